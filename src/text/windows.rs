//! Sliding windows over a stream: character n-grams of normalized characters, and word
//! shingles of tokens. Each window is a slice of one buffer, never a copy.

use crate::text::MAX_FEATURE_N;
use std::ops::Range;

/// Where each of the last n items of a stream starts in the buffer that holds them: the
/// ring both windows below keep. `slot` is `count % n`, kept by wrapping rather than by a
/// division per item; once `count` reaches n it is also the slot of the oldest item held.
struct Ring {
    n: usize,
    starts: [usize; MAX_FEATURE_N],
    count: usize,
    slot: usize,
}

impl Ring {
    fn new(n: usize) -> Self {
        Ring {
            n,
            starts: [0; MAX_FEATURE_N],
            count: 0,
            slot: 0,
        }
    }

    /// Records the next item, starting at `start`; returns the slot it takes.
    #[inline]
    fn push(&mut self, start: usize) -> usize {
        let slot = self.slot;
        self.starts[slot] = start;
        self.count += 1;
        self.slot += 1;
        if self.slot == self.n {
            self.slot = 0;
        }
        slot
    }

    /// The start of the window of the last n items, once there are n: that of item
    /// `count - n`, the oldest in the ring.
    #[inline]
    fn window_start(&self) -> Option<usize> {
        (self.count >= self.n).then(|| self.starts[self.slot])
    }

    /// The slots of the items held (the last n, or all when fewer came), oldest first.
    #[inline]
    fn held_slots(&self) -> impl Iterator<Item = usize> + '_ {
        let oldest = if self.count >= self.n { self.slot } else { 0 };
        (0..self.count.min(self.n)).map(move |i| {
            let slot = oldest + i;
            if slot >= self.n {
                slot - self.n
            } else {
                slot
            }
        })
    }

    /// The start of the oldest of the `newest` last items (`newest` at most the items held).
    fn start_of_newest(&self, newest: usize) -> usize {
        let mut slot = self.slot + self.n - newest;
        if slot >= self.n {
            slot -= self.n;
        }
        self.starts[slot]
    }

    /// Moves every start `cut` bytes back, after the buffer lost its first `cut` bytes.
    fn shift(&mut self, cut: usize) {
        for start in &mut self.starts {
            *start = start.saturating_sub(cut);
        }
    }
}

/// Character n-grams of a stream of normalized characters.
///
/// The characters go into one buffer and a [`Ring`] holds where each of the last n starts,
/// so each n-gram is a slice of the buffer (no copying per n-gram).
pub(crate) struct CharNgrams {
    normalized: String,
    ring: Ring,
}

impl CharNgrams {
    pub(crate) fn new(n: usize) -> Self {
        Self::with_capacity(n, 0)
    }

    pub(crate) fn with_capacity(n: usize, bytes: usize) -> Self {
        CharNgrams {
            normalized: String::with_capacity(bytes),
            ring: Ring::new(n),
        }
    }

    /// Adds a character; emits the n-gram it ends, once there are n.
    #[inline]
    pub(crate) fn push(&mut self, c: char, emit: &mut impl FnMut(&str)) {
        self.ring.push(self.normalized.len());
        self.normalized.push(c);
        if let Some(start) = self.ring.window_start() {
            emit(&self.normalized[start..]);
        }
    }

    /// Emits all there is when fewer than n characters came: a short text still has one
    /// feature.
    pub(crate) fn finish(&self, emit: &mut impl FnMut(&str)) {
        if 0 < self.ring.count && self.ring.count < self.ring.n {
            emit(&self.normalized);
        }
    }
}

/// Each window of `n` characters of `text` in order, or the whole of `text` when it has
/// fewer (nothing when it is empty): the character n-grams of text already normalized,
/// each a slice of it. An iterator, so that the caller's loop holds the hashing and the
/// counting; where each character starts is found first, in one pass.
pub(crate) fn char_windows(n: usize, text: &str) -> impl Iterator<Item = &str> {
    char_window_ranges(n, text.as_bytes()).map(move |range| &text[range])
}

/// The byte ranges of [`char_windows`] in `utf8`.
pub(crate) fn char_window_ranges(n: usize, utf8: &[u8]) -> impl Iterator<Item = Range<usize>> {
    // Where each character starts (a byte that is no UTF-8 continuation), then the end:
    // written at every byte, kept by counting starts, without a branch per byte.
    let mut bounds = vec![0; utf8.len() + 1];
    let mut chars = 0;
    for (at, &byte) in utf8.iter().enumerate() {
        bounds[chars] = at;
        chars += usize::from((byte as i8) >= -0x40);
    }
    bounds[chars] = utf8.len();
    bounds.truncate(chars + 1);
    let width = n.min(chars).max(1);
    (0..bounds.len().saturating_sub(width)).map(move |i| bounds[i]..bounds[i + width])
}

/// Word shingles of a stream of tokens, joined by single spaces (tokens never contain
/// whitespace); a shingle weighs the mean of its tokens.
///
/// As in [`CharNgrams`], the tokens go into one buffer and a [`Ring`] holds where each of
/// the last n starts (with its weight beside it), so each shingle is a slice of the buffer.
/// The buffer is cut back to the last n - 1 tokens when it outgrows [`Self::COMPACT_AT`],
/// which keeps it in cache without moving bytes at every token.
pub(crate) struct WordShingles {
    joined: String,
    ring: Ring,
    weights: [f32; MAX_FEATURE_N],
}

impl WordShingles {
    /// Buffer length past which the tokens before the window are dropped.
    const COMPACT_AT: usize = 4096;

    pub(crate) fn new(n: usize) -> Self {
        WordShingles {
            joined: String::new(),
            ring: Ring::new(n),
            weights: [0.0; MAX_FEATURE_N],
        }
    }

    /// Adds a token; emits the shingle it ends, once there are n.
    #[inline]
    pub(crate) fn push(&mut self, word: &str, weight: f32, emit: &mut impl FnMut(&str, f32)) {
        if self.joined.len() > Self::COMPACT_AT {
            self.drop_before_window();
        }
        if self.ring.count > 0 {
            self.joined.push(' ');
        }
        let slot = self.ring.push(self.joined.len());
        self.weights[slot] = weight;
        self.joined.push_str(word);
        if let Some(start) = self.ring.window_start() {
            emit(&self.joined[start..], self.mean());
        }
    }

    /// Emits all there is when fewer than n tokens came: a short text still has one feature.
    pub(crate) fn finish(&self, emit: &mut impl FnMut(&str, f32)) {
        if 0 < self.ring.count && self.ring.count < self.ring.n {
            emit(&self.joined, self.mean());
        }
    }

    /// The mean weight of the tokens in the window, summed oldest first.
    #[inline]
    fn mean(&self) -> f32 {
        let mut sum = 0.0f32;
        let mut held = 0;
        for slot in self.ring.held_slots() {
            sum += self.weights[slot];
            held += 1;
        }
        sum / held as f32
    }

    /// Moves the last n - 1 tokens (the part of the next shingle already read) to the front.
    #[cold]
    fn drop_before_window(&mut self) {
        let keep = (self.ring.n - 1).min(self.ring.count);
        if keep == 0 {
            self.joined.clear();
            return;
        }
        let cut = self.ring.start_of_newest(keep);
        self.joined.drain(..cut);
        self.ring.shift(cut);
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
