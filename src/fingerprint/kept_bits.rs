//! [`KeptBits`]: which 32 bits of each bin's 64-bit minimum a stored signature keeps.

use serde::{Deserialize, Serialize};

/// Which half of each bin's 64-bit minimum a stored signature keeps (32 bits a value). Both
/// estimate the Jaccard similarity alike (two different minima agree on either half with
/// probability about 2^-32); they differ in the values an index stores, so the choice is
/// frozen with the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeptBits {
    /// The low 32 bits: what indexes whose settings file is of format 3 or earlier keep.
    /// The size of the set is lost with the high bits, so such signatures cannot estimate
    /// containment.
    Low,
    /// The high 32 bits: a bin's minimum stays a number that shrinks as the set grows, so
    /// the signature also estimates the size of its set
    /// ([`estimated_size`](crate::fingerprint::estimated_size)) and, with two sizes and the
    /// Jaccard estimate, containment.
    #[default]
    High,
}

impl KeptBits {
    /// The compact value of a bin's 64-bit minimum.
    #[inline]
    pub(crate) fn of(self, value: u64) -> u32 {
        match self {
            KeptBits::Low => value as u32,
            KeptBits::High => (value >> 32) as u32,
        }
    }
}
