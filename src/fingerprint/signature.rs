//! [`Signature`]: a positional MinHash signature (one permutation hashing, Li, Owen and
//! Zhang 2012) in its compact form, 32 bits a value: what two-stage matching compares after
//! the fingerprints, and what an index stores beside each fingerprint.

/// The low 32 bits of each value of a positional MinHash signature (one value per bin or
/// per hash function). Two different minima agree on their low 32 bits with probability
/// 2^-32: nothing next to the estimate's own error, at half the memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature(Box<[u32]>);

/// The value of every position of an empty set's signature.
pub(crate) const EMPTY: u32 = u32::MAX;

impl Signature {
    /// The signature with these values.
    pub fn from_values(values: impl Into<Box<[u32]>>) -> Signature {
        Signature(values.into())
    }

    /// The compact form of a positional signature's 64-bit values: the low 32 bits of each.
    pub fn compact(values: &[u64]) -> Signature {
        Signature(values.iter().map(|&v| v as u32).collect())
    }

    /// The values.
    pub fn values(&self) -> &[u32] {
        &self.0
    }
}

/// The number of positions at which two signatures agree: the count behind every Jaccard
/// estimate of positional signatures, 32-bit ([`jaccard`]) or 64-bit
/// ([`MinHashSignature::jaccard`](super::MinHashSignature::jaccard)).
pub(crate) fn equal_positions<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    // Summed as 0 or 1 per position, which vectorizes (a filtered count does not).
    a.iter().zip(b).map(|(x, y)| usize::from(x == y)).sum()
}

/// The fraction of equal positions of two signatures' values: their Jaccard estimate. 0
/// when either is the signature of an empty set (no shingles is no evidence).
pub(crate) fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    if is_empty_set(a) || is_empty_set(b) {
        return 0.0;
    }
    equal_positions(a, b) as f64 / a.len() as f64
}

/// True when two signatures agree on every value of at least one band of `rows` values:
/// the candidates of a [`BandIndex`](crate::lookup::BandIndex). False when either is the
/// signature of an empty set, which no band index holds.
pub(crate) fn shares_band(a: &[u32], b: &[u32], rows: usize) -> bool {
    debug_assert_eq!(a.len(), b.len());
    if is_empty_set(a) || is_empty_set(b) {
        return false;
    }
    a.chunks_exact(rows)
        .zip(b.chunks_exact(rows))
        .any(|(x, y)| x == y)
}

/// True for the signature of an empty set (every value [`EMPTY`]; the scan stops at the first
/// other value, the first one for any other set), or for no values at all.
pub(crate) fn is_empty_set(values: &[u32]) -> bool {
    values.iter().all(|&v| v == EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_count_equal_positions_and_empty_sets_match_nothing() {
        let a = [1, 2, 3, 4];
        assert_eq!(jaccard(&a, &[1, 2, 9, 9]), 0.5);
        assert_eq!(jaccard(&a, &a), 1.0);
        let empty = [EMPTY; 4];
        assert_eq!(jaccard(&empty, &empty), 0.0, "no shingles is no evidence");
        assert!(!shares_band(&empty, &empty, 2));
        assert!(shares_band(&a, &[1, 2, 9, 9], 2));
        assert!(
            !shares_band(&a, &[1, 9, 3, 9], 2),
            "equal values, no whole band"
        );
    }

    #[test]
    fn the_compact_form_keeps_the_low_bits() {
        let signature = Signature::compact(&[u64::MAX, 0x1_0000_0002]);
        assert_eq!(signature.values(), [EMPTY, 2]);
        assert_eq!(Signature::from_values(vec![EMPTY, 2]), signature);
    }
}
