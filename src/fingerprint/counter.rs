//! The SimHash accumulator for unit weights (term-frequency weighting): counts, not sums.
//!
//! When every feature weighs 1, the sum for bit `i` is the number of features whose hash has
//! bit `i` set. Instead of 64 additions per feature, each of the hash's 8 bytes bumps one of
//! 256 counters of its byte position; turning those 8 x 256 counts into 64 bit counts is done
//! once per text. The counts are exact integers, as the `f32` sums of
//! [`SimHashAccumulator`](super::SimHashAccumulator) are for fewer than 2^24 features (any
//! text under 16 MiB): both give the same bits.

use crate::fingerprint::Fingerprint;

/// Counts feature hashes byte by byte; see the module documentation.
#[derive(Clone, Debug)]
pub struct SimHashCounter {
    /// `bytes[p][b]`: features whose hash has byte value `b` at byte position `p`.
    /// u32: overflowing one would take 2^32 features, a text of more than 4 GiB.
    bytes: [[u32; 256]; 8],
    total: u64,
}

impl Default for SimHashCounter {
    fn default() -> Self {
        SimHashCounter {
            bytes: [[0; 256]; 8],
            total: 0,
        }
    }
}

impl SimHashCounter {
    /// An empty counter.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one feature occurrence of weight 1, by its 64-bit hash.
    #[inline]
    pub fn add(&mut self, hash: u64) {
        self.total += 1;
        for (counts, byte) in self.bytes.iter_mut().zip(hash.to_le_bytes()) {
            counts[usize::from(byte)] += 1;
        }
    }

    /// The fingerprint: bit `i` is set when more than half of the features have it set.
    /// `None` when nothing was added.
    #[must_use]
    pub fn finish(&self) -> Option<Fingerprint> {
        if self.total == 0 {
            return None;
        }
        let mut bits = 0u64;
        for (position, counts) in self.bytes.iter().enumerate() {
            // The features with bit 7 of this byte set are those counted in the upper half
            // of the 256 counters. Adding the upper half onto the lower one forgets bit 7 and
            // leaves 128 counters indexed by bits 0..7, whose upper half holds bit 6; and so
            // on down to bit 0: 255 additions and 255 summed counters, where testing every
            // counter against every bit takes 2,048. Counts of more than 2^32 features are
            // out of reach (see `bytes`), so u32 sums do not overflow.
            let mut folded = *counts;
            let mut width = folded.len();
            for bit in (0..8).rev() {
                let (low, high) = folded[..width].split_at_mut(width / 2);
                let ones: u32 = high.iter().sum();
                bits |= u64::from(2 * u64::from(ones) > self.total) << (position * 8 + bit);
                for (low, high) in low.iter_mut().zip(high.iter()) {
                    *low += *high;
                }
                width /= 2;
            }
        }
        Some(Fingerprint(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::SimHashAccumulator;
    use proptest::prelude::*;

    #[test]
    fn nothing_added_is_no_fingerprint() {
        assert_eq!(SimHashCounter::new().finish(), None);
    }

    #[test]
    fn a_tie_leaves_the_bit_clear() {
        let mut counter = SimHashCounter::new();
        counter.add(0b01);
        counter.add(0b10);
        // Each of bits 0 and 1 is set in exactly half the features: not more than half.
        assert_eq!(counter.finish(), Some(Fingerprint(0)));
        counter.add(0b01);
        assert_eq!(counter.finish(), Some(Fingerprint(0b01)));
    }

    proptest! {
        /// The same bits as the f32 accumulator with every weight 1, on hashes that share
        /// bytes often (few distinct values) and on arbitrary ones.
        #[test]
        fn agrees_with_the_weighted_accumulator(
            hashes in prop::collection::vec(
                prop_oneof![any::<u64>(), (0u64..4).prop_map(|x| x * 0x0101_0101_0101_0101)],
                0..600,
            )
        ) {
            let mut counter = SimHashCounter::new();
            let mut accumulator = SimHashAccumulator::new();
            for &hash in &hashes {
                counter.add(hash);
                accumulator.add(hash, 1.0);
            }
            prop_assert_eq!(counter.finish(), accumulator.finish());
        }
    }
}
