//! [`KeptBits`]: which bits of each bin's 64-bit minimum a stored signature keeps, and the
//! Jaccard estimate that follows from them.

use serde::{Deserialize, Serialize};

use super::signature::EMPTY;

/// Which bits of each bin's 64-bit minimum a stored signature keeps. The choice is frozen
/// with the index: it decides the values an index stores, and so its size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum KeptBits {
    /// The low 32 bits: what indexes whose settings file is of format 3 or earlier keep.
    /// The size of the set is lost with the high bits, so such signatures cannot estimate
    /// containment.
    Low,
    /// The high 32 bits: a bin's minimum stays a number that shrinks as the set grows, so
    /// the signature also estimates the size of its set
    /// ([`estimated_size`](crate::fingerprint::estimated_size)) and, with two sizes and the
    /// Jaccard estimate, containment. What indexes of settings formats 4 to 6 keep, and
    /// what [`Verification::containment`](crate::matching::Verification::containment) asks for.
    High,
    /// The low 8 bits: b-bit minwise hashing (Li and König 2010) with b = 8, a quarter of
    /// the space of 32 bits. Two different minima agree on 8 bits with probability 1/256,
    /// which the Jaccard estimate takes out ([`jaccard`](Self::jaccard)); at 128 values its
    /// standard error grows by about 0.3% against 32 bits. The size of the set is lost, so
    /// such signatures cannot estimate containment. The default of new indexes.
    #[default]
    LowByte,
}

impl KeptBits {
    /// The compact value of a bin's 64-bit minimum. An empty bin (an empty set's, all ones)
    /// stays [`EMPTY`] whatever the bits kept, so an empty set's signature stays one.
    #[inline]
    pub(crate) fn of(self, value: u64) -> u32 {
        match self {
            KeptBits::Low => value as u32,
            KeptBits::High => (value >> 32) as u32,
            KeptBits::LowByte if value == u64::MAX => EMPTY,
            KeptBits::LowByte => (value & 0xFF) as u32,
        }
    }

    /// The probability that two different minima keep equal values: 1/256 for
    /// [`LowByte`](Self::LowByte); for 32 bits about 2^-32, taken as 0.
    pub fn chance(self) -> f64 {
        match self {
            KeptBits::LowByte => 1.0 / 256.0,
            KeptBits::Low | KeptBits::High => 0.0,
        }
    }

    /// The Jaccard estimate of two signatures whose values agree on `fraction` of their
    /// positions: `(fraction - c) / (1 - c)` for the [`chance`](Self::chance) `c` of a
    /// chance agreement (Li and König's unbiased estimator), clamped to `[0, 1]`.
    pub fn jaccard(self, fraction: f64) -> f64 {
        let chance = self.chance();
        ((fraction - chance) / (1.0 - chance)).clamp(0.0, 1.0)
    }

    /// Whether the values keep the high bits of the minima, from which a signature
    /// estimates its set's size, as containment needs.
    pub fn estimates_size(self) -> bool {
        self == KeptBits::High
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_a_value_takes_chance_agreements_out() {
        assert_eq!(KeptBits::LowByte.of(0x1234_5678_9ABC_DEF0), 0xF0);
        assert_eq!(KeptBits::LowByte.of(u64::MAX), EMPTY);
        assert_eq!(KeptBits::LowByte.jaccard(1.0), 1.0);
        assert_eq!(KeptBits::LowByte.jaccard(1.0 / 256.0), 0.0);
        assert_eq!(KeptBits::LowByte.jaccard(0.0), 0.0, "clamped");
        let half = KeptBits::LowByte.jaccard(0.5 + 0.5 / 256.0);
        assert!((half - 0.5).abs() < 1e-12, "{half}");
        assert_eq!(KeptBits::High.jaccard(0.25), 0.25);
    }

    /// Over many pairs of sets of known Jaccard similarity, the mean estimate of one byte a
    /// value is as close to it as that of 32 bits: the chance agreements are taken out.
    #[test]
    fn the_byte_estimate_is_unbiased() {
        use crate::fingerprint::{equal_positions, OnePermutationBins, Signature};
        let signature = |range: std::ops::Range<u64>, seed: u64, bits: KeptBits| {
            let mut bins = OnePermutationBins::new(128);
            for element in range {
                bins.add(xxhash_rust::xxh3::xxh3_64_with_seed(
                    &element.to_le_bytes(),
                    seed,
                ));
            }
            Signature::compact(&bins.finish(), bits)
        };
        // Sets of 300 elements sharing 100: Jaccard 100 / 500 = 0.2.
        let (mut byte, mut high) = (0.0, 0.0);
        let trials = 400;
        for seed in 0..trials {
            for (bits, total) in [(KeptBits::LowByte, &mut byte), (KeptBits::High, &mut high)] {
                let a = signature(0..300, seed, bits);
                let b = signature(200..500, seed, bits);
                let equal = equal_positions(a.values(), b.values());
                *total += bits.jaccard(equal as f64 / 128.0);
            }
        }
        let (byte, high) = (byte / trials as f64, high / trials as f64);
        assert!((byte - 0.2).abs() < 0.01, "byte {byte}");
        assert!((byte - high).abs() < 0.01, "byte {byte}, high {high}");
    }
}
