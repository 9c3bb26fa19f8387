//! Sliding windows over a stream: character n-grams of normalized characters, and word
//! shingles of tokens. Each window is a slice of one buffer, never a copy.

use crate::text::MAX_FEATURE_N;

/// Character n-grams of a stream of normalized characters.
///
/// The characters go into one buffer; a ring holds where each of the last n starts, so each
/// n-gram is a slice of the buffer (no copying per n-gram). `slot` is `count % n`, kept by
/// wrapping rather than by a division per character.
pub(crate) struct CharNgrams {
    n: usize,
    normalized: String,
    starts: [usize; MAX_FEATURE_N],
    count: usize,
    slot: usize,
}

impl CharNgrams {
    pub(crate) fn new(n: usize) -> Self {
        Self::with_capacity(n, 0)
    }

    pub(crate) fn with_capacity(n: usize, bytes: usize) -> Self {
        CharNgrams {
            n,
            normalized: String::with_capacity(bytes),
            starts: [0; MAX_FEATURE_N],
            count: 0,
            slot: 0,
        }
    }

    /// Adds a character; emits the n-gram it ends, once there are n.
    #[inline]
    pub(crate) fn push(&mut self, c: char, emit: &mut impl FnMut(&str)) {
        self.starts[self.slot] = self.normalized.len();
        self.normalized.push(c);
        self.count += 1;
        self.slot += 1;
        if self.slot == self.n {
            self.slot = 0;
        }
        if self.count >= self.n {
            // The oldest start in the ring: that of character `count - n`.
            emit(&self.normalized[self.starts[self.slot]..]);
        }
    }

    /// Emits all there is when fewer than n characters came: a short text still has one
    /// feature.
    pub(crate) fn finish(&self, emit: &mut impl FnMut(&str)) {
        if 0 < self.count && self.count < self.n {
            emit(&self.normalized);
        }
    }
}

/// Word shingles of a stream of tokens, joined by single spaces (tokens never contain
/// whitespace); a shingle weighs the mean of its tokens.
///
/// As in [`CharNgrams`], the tokens go into one buffer and a ring holds where each of the
/// last n starts, with its weight, so each shingle is a slice of the buffer. The buffer is
/// cut back to the last n - 1 tokens when it outgrows [`Self::COMPACT_AT`], which keeps it in cache
/// without moving bytes at every token.
pub(crate) struct WordShingles {
    n: usize,
    joined: String,
    starts: [usize; MAX_FEATURE_N],
    weights: [f32; MAX_FEATURE_N],
    count: usize,
    slot: usize,
}

impl WordShingles {
    /// Buffer length past which the tokens before the window are dropped.
    const COMPACT_AT: usize = 4096;

    pub(crate) fn new(n: usize) -> Self {
        WordShingles {
            n,
            joined: String::new(),
            starts: [0; MAX_FEATURE_N],
            weights: [0.0; MAX_FEATURE_N],
            count: 0,
            slot: 0,
        }
    }

    /// Adds a token; emits the shingle it ends, once there are n.
    #[inline]
    pub(crate) fn push(&mut self, word: &str, weight: f32, emit: &mut impl FnMut(&str, f32)) {
        if self.joined.len() > Self::COMPACT_AT {
            self.drop_before_window();
        }
        if self.count > 0 {
            self.joined.push(' ');
        }
        self.starts[self.slot] = self.joined.len();
        self.weights[self.slot] = weight;
        self.joined.push_str(word);
        self.count += 1;
        self.slot += 1;
        if self.slot == self.n {
            self.slot = 0;
        }
        if self.count >= self.n {
            // The oldest start in the ring: that of token `count - n`.
            emit(&self.joined[self.starts[self.slot]..], self.mean());
        }
    }

    /// Emits all there is when fewer than n tokens came: a short text still has one feature.
    pub(crate) fn finish(&self, emit: &mut impl FnMut(&str, f32)) {
        if 0 < self.count && self.count < self.n {
            emit(&self.joined, self.mean());
        }
    }

    /// The mean weight of the tokens in the window, summed oldest first.
    #[inline]
    fn mean(&self) -> f32 {
        let held = self.count.min(self.n);
        let oldest = if self.count >= self.n { self.slot } else { 0 };
        let mut sum = 0.0f32;
        for i in 0..held {
            let mut slot = oldest + i;
            if slot >= self.n {
                slot -= self.n;
            }
            sum += self.weights[slot];
        }
        sum / held as f32
    }

    /// Moves the last n - 1 tokens (the part of the next shingle already read) to the front.
    #[cold]
    fn drop_before_window(&mut self) {
        let keep = self.n - 1;
        if keep == 0 || self.count == 0 {
            self.joined.clear();
            return;
        }
        // The start of token `count - keep`, the oldest one kept.
        let mut first = self.slot + self.n - keep;
        if first >= self.n {
            first -= self.n;
        }
        let cut = self.starts[first];
        self.joined.drain(..cut);
        for start in &mut self.starts {
            *start = start.saturating_sub(cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::features::for_each_char_ngram;
    use crate::text::MixedTokenizer;

    proptest::proptest! {
        /// `for_each_char_ngram` (the ring of starts, or `AsciiNgrams` for an ASCII text)
        /// gives what sliding a window over the normalized characters gives, for every n
        /// (and the whole text when it is shorter than n).
        #[test]
        fn char_ngrams_are_the_windows_of_the_normalized_text(
            text in "[a-cA-C0-9 ,.門门我愛é]{0,40}",
            n in 1..=MAX_FEATURE_N,
        ) {
            let tokenizer = MixedTokenizer::new();
            let mut chars = Vec::new();
            tokenizer.for_each_normalized_char(&text, |c| chars.push(c));
            let expected: Vec<String> = if chars.len() < n {
                (!chars.is_empty()).then(|| chars.iter().collect()).into_iter().collect()
            } else {
                chars.windows(n).map(|w| w.iter().collect()).collect()
            };
            let mut found = Vec::new();
            for_each_char_ngram(&tokenizer, n, &text, |gram| found.push(gram.to_owned()));
            proptest::prop_assert_eq!(found, expected);
        }

        /// The ring of word starts gives what joining each window of n words gives, with the
        /// mean of their weights summed oldest first, across the buffer's cuts (words up to
        /// 3,000 bytes long, so that the buffer passes `COMPACT_AT` every few words).
        #[test]
        fn word_shingles_are_the_joined_windows(
            words in proptest::collection::vec(("[a-z]{1,8}", 0usize..3000, 0.0f32..4.0), 0..60),
            n in 1..=MAX_FEATURE_N,
        ) {
            let words: Vec<(String, f32)> = words
                .into_iter()
                .map(|(word, pad, weight)| {
                    let pad = if pad > 2500 { "x".repeat(pad) } else { String::new() };
                    (word + &pad, weight)
                })
                .collect();
            let window = |part: &[(String, f32)]| {
                let joined: Vec<&str> = part.iter().map(|(w, _)| w.as_str()).collect();
                let sum: f32 = part.iter().map(|p| p.1).sum();
                (joined.join(" "), sum / part.len() as f32)
            };
            let expected: Vec<(String, f32)> = if words.len() < n {
                (!words.is_empty()).then(|| window(&words)).into_iter().collect()
            } else {
                words.windows(n).map(window).collect()
            };
            let mut shingles = WordShingles::new(n);
            let mut found = Vec::new();
            let mut emit = |shingle: &str, weight: f32| found.push((shingle.to_owned(), weight));
            for (word, weight) in &words {
                shingles.push(word, *weight, &mut emit);
            }
            shingles.finish(&mut emit);
            proptest::prop_assert_eq!(found, expected);
        }
    }
}
