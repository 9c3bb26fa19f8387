//! [`ShingleHashing`]: how a signature hashes a word shingle, and [`WordShingleHashes`], the
//! sliding window that hashes shingles from their words' hashes.

use serde::{Deserialize, Serialize};

use crate::text::MAX_FEATURE_N;

/// How the signature of two-stage matching hashes a shingle of several words. Both give
/// every distinct shingle its own well-mixed 64-bit hash, so signatures estimate the same
/// Jaccard similarity; they differ in cost, and in the values an index stores, so the
/// hashing is frozen with the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ShingleHashing {
    /// The xxh3 of the shingle's text, its words joined by a space: a shingle's text is
    /// built and hashed whole, so each word is copied and hashed once per shingle it is
    /// in. Indexes whose settings file is of format 2 or earlier hash this way.
    Text,
    /// Each word hashed once (xxh3 of its text), a shingle's hash the xxh3 of its words'
    /// hashes in order (a shingle of one word: that word's hash): a word is hashed once,
    /// not once per shingle it is in.
    #[default]
    Words,
}

/// The hashes of the word `n`-shingles of a stream of word hashes, by
/// [`ShingleHashing::Words`]: [`push`](Self::push) each word's hash in order, then
/// [`finish`](Self::finish), as `WordShingles` takes the words themselves.
#[derive(Clone, Debug)]
pub(crate) struct WordShingleHashes {
    /// The last `held` word hashes, oldest first.
    window: [u64; MAX_FEATURE_N],
    held: usize,
    n: usize,
    seed: u64,
}

impl WordShingleHashes {
    /// A window of `n` words (1 to [`MAX_FEATURE_N`]), hashing with `seed`.
    pub(crate) fn new(n: usize, seed: u64) -> Self {
        debug_assert!((1..=MAX_FEATURE_N).contains(&n));
        WordShingleHashes {
            window: [0; MAX_FEATURE_N],
            held: 0,
            n: n.clamp(1, MAX_FEATURE_N),
            seed,
        }
    }

    /// Adds the next word's hash; emits the hash of the shingle it ends, once there are `n`.
    #[inline]
    pub(crate) fn push(&mut self, word_hash: u64, emit: &mut impl FnMut(u64)) {
        if self.held == self.n {
            // A loop of n - 1 moves (one for the default shingles), not a call to memmove.
            for i in 1..self.n {
                self.window[i - 1] = self.window[i];
            }
            self.held -= 1;
        }
        self.window[self.held] = word_hash;
        self.held += 1;
        if self.held == self.n {
            emit(self.hash());
        }
    }

    /// Emits the one shingle of a text with fewer than `n` words (none for no words).
    pub(crate) fn finish(&self, emit: &mut impl FnMut(u64)) {
        if 0 < self.held && self.held < self.n {
            emit(self.hash());
        }
    }

    /// The hash of the words held.
    #[inline]
    fn hash(&self) -> u64 {
        let xxh3 = |bytes: &[u8]| xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.seed);
        match self.held {
            1 => self.window[0],
            // The default shingles, without filling the general buffer.
            2 => {
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&self.window[0].to_le_bytes());
                bytes[8..].copy_from_slice(&self.window[1].to_le_bytes());
                xxh3(&bytes)
            }
            held => {
                let mut bytes = [0u8; 8 * MAX_FEATURE_N];
                for (chunk, hash) in bytes.chunks_exact_mut(8).zip(&self.window[..held]) {
                    chunk.copy_from_slice(&hash.to_le_bytes());
                }
                xxh3(&bytes[..8 * held])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shingles(n: usize, words: &[u64]) -> Vec<u64> {
        let mut window = WordShingleHashes::new(n, 7);
        let mut out = Vec::new();
        for &word in words {
            window.push(word, &mut |h| out.push(h));
        }
        window.finish(&mut |h| out.push(h));
        out
    }

    #[test]
    fn one_hash_per_shingle_in_order_and_by_order() {
        let two = shingles(2, &[1, 2, 3, 1, 2]);
        assert_eq!(two.len(), 4);
        assert_eq!(two[0], two[3], "the same words in the same order");
        assert_ne!(two[0], shingles(2, &[2, 1])[0], "order matters");
        assert_eq!(
            shingles(3, &[1, 2]).len(),
            1,
            "a short text still has one shingle"
        );
        assert!(shingles(2, &[]).is_empty());
        assert_eq!(
            shingles(1, &[5, 6]),
            [5, 6],
            "a shingle of one word is its hash"
        );
        assert_eq!(shingles(4, &[9]), [9]);
        assert_eq!(
            shingles(2, &[1, 2]),
            shingles(2, &[8, 1, 2])[1..],
            "a window depends on its words only"
        );
    }
}
