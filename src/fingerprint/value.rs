//! The 64-bit fingerprint value and the distances between two of them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Number of bits in a [`Fingerprint`].
pub const FINGERPRINT_BITS: u32 = 64;

/// A 64-bit SimHash fingerprint (Charikar 2002).
///
/// Two texts are near-duplicates when their fingerprints differ in few bits: the
/// [Hamming distance](Fingerprint::distance). Fingerprints are only comparable when they
/// were computed under equal [`FingerprintConfig`](crate::fingerprint::FingerprintConfig)s.
///
/// Displays (and parses) as 16 lowercase hexadecimal digits, the form the command-line
/// tool prints.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The raw 64 bits.
    #[inline]
    #[must_use]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Number of bit positions in which `self` and `other` differ, in `0..=64`.
    #[inline]
    #[must_use]
    pub const fn distance(self, other: Fingerprint) -> u32 {
        (self.0 ^ other.0).count_ones()
    }

    /// Similarity in `[0, 1]`: `1 - distance / 64`. Equal fingerprints have similarity 1,
    /// complementary ones 0; unrelated texts land near 0.5.
    #[inline]
    #[must_use]
    pub fn similarity(self, other: Fingerprint) -> f64 {
        1.0 - f64::from(self.distance(other)) / f64::from(FINGERPRINT_BITS)
    }

    /// True when the two fingerprints differ in at most `max_distance` bits.
    #[inline]
    #[must_use]
    pub const fn is_near(self, other: Fingerprint, max_distance: u32) -> bool {
        self.distance(other) <= max_distance
    }
}

impl From<u64> for Fingerprint {
    fn from(bits: u64) -> Self {
        Fingerprint(bits)
    }
}

impl From<Fingerprint> for u64 {
    fn from(fingerprint: Fingerprint) -> Self {
        fingerprint.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({:016x})", self.0)
    }
}

impl FromStr for Fingerprint {
    type Err = Error;

    /// Parses exactly 16 hexadecimal digits (either case), the [`Display`](fmt::Display) form.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::InvalidFingerprint(s.to_owned()));
        }
        u64::from_str_radix(s, 16)
            .map(Fingerprint)
            .map_err(|_| Error::InvalidFingerprint(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_differing_bits() {
        let a = Fingerprint(0b1011);
        let b = Fingerprint(0b0001);
        assert_eq!(a.distance(b), 2);
        assert_eq!(a.distance(a), 0);
        assert_eq!(Fingerprint(0).distance(Fingerprint(u64::MAX)), 64);
        assert!(a.is_near(b, 2));
        assert!(!a.is_near(b, 1));
    }

    #[test]
    fn similarity_spans_zero_to_one() {
        assert_eq!(Fingerprint(7).similarity(Fingerprint(7)), 1.0);
        assert_eq!(Fingerprint(0).similarity(Fingerprint(u64::MAX)), 0.0);
        assert_eq!(Fingerprint(0).similarity(Fingerprint(u64::MAX >> 32)), 0.5);
    }

    #[test]
    fn hex_round_trip() {
        let f = Fingerprint(0x00ab_cdef_0123_4567);
        assert_eq!(f.to_string(), "00abcdef01234567");
        assert_eq!("00ABCDEF01234567".parse::<Fingerprint>().unwrap(), f);
        assert!("abc".parse::<Fingerprint>().is_err());
        assert!("+0abcdef01234567".parse::<Fingerprint>().is_err());
    }
}
