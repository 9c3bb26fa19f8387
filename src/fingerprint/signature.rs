//! [`Signature`]: a positional MinHash signature (one permutation hashing, Li, Owen and
//! Zhang 2012) in its compact form, 32 or 8 bits a value: what two-stage matching compares
//! after the fingerprints, and what an index stores beside each fingerprint.

/// The bits of each value of a positional MinHash signature (one value per bin or per hash
/// function) that [`KeptBits`] says, in a `u32` each. Two different minima agree on 32 bits
/// with probability about 2^-32, nothing next to the estimate's own error; on 8 bits with
/// probability 1/256, which [`KeptBits::jaccard`] takes out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature(Box<[u32]>);

use super::KeptBits;

/// The value of every position of an empty set's signature.
pub(crate) const EMPTY: u32 = u32::MAX;

impl Signature {
    /// The signature with these values.
    pub fn from_values(values: impl Into<Box<[u32]>>) -> Signature {
        Signature(values.into())
    }

    /// The compact form of a positional signature's 64-bit values: the half of each that
    /// `bits` says.
    pub fn compact(values: &[u64], bits: KeptBits) -> Signature {
        Signature(values.iter().map(|&v| bits.of(v)).collect())
    }

    /// The values.
    pub fn values(&self) -> &[u32] {
        &self.0
    }
}

/// `values` as little-endian bytes, 4 a value: how an index's bytes column and the shared
/// space store a signature.
pub(crate) fn le_bytes(values: &[u32]) -> Vec<u8> {
    let mut bytes = vec![0u8; 4 * values.len()];
    write_le_bytes(values, &mut bytes);
    bytes
}

/// Writes [`le_bytes`] of `values` at the start of `out` (at least 4 bytes a value).
#[inline]
pub(crate) fn write_le_bytes(values: &[u32], out: &mut [u8]) {
    // Chunks copied whole: a `flat_map` over each value's bytes went byte by byte.
    for (chunk, value) in out.chunks_exact_mut(4).zip(values) {
        chunk.copy_from_slice(&value.to_le_bytes());
    }
}

/// The number of positions at which two signatures agree: the count behind every Jaccard
/// estimate of positional signatures, 32-bit ([`jaccard`]) or 64-bit
/// ([`MinHashSignature::jaccard`](super::MinHashSignature::jaccard)).
pub(crate) fn equal_positions<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    // Summed as 0 or 1 per position in `u32` lanes, which vectorizes to a compare and a
    // subtract per lane (a filtered count does not vectorize, and `usize` lanes widen every
    // mask first). A chunk's count fits a `u32` whatever the length.
    a.chunks(1 << 16)
        .zip(b.chunks(1 << 16))
        .map(|(a, b)| {
            let equal: u32 = a.iter().zip(b).map(|(x, y)| u32::from(x == y)).sum();
            equal as usize
        })
        .sum()
}

/// The Jaccard estimate of two signatures' values keeping `bits`: from the fraction of
/// their equal positions, less the chance agreements of few bits ([`KeptBits::jaccard`]).
/// 0 when either is the signature of an empty set (no shingles is no evidence).
pub(crate) fn jaccard(a: &[u32], b: &[u32], bits: KeptBits) -> f64 {
    if is_empty_set(a) || is_empty_set(b) {
        return 0.0;
    }
    bits.jaccard(equal_positions(a, b) as f64 / a.len() as f64)
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

/// The estimated number of distinct elements of the set behind a one-permutation signature
/// whose values keep the high bits of their bins' minima ([`KeptBits::High`]; the estimate
/// of other values means nothing). 0 for an empty set.
///
/// Densified bins copy the value of a filled one, so the distinct values count the filled
/// bins `f` of `k`: while more than two are empty, the set is small (fewer than about
/// `k ln(k / 3)` elements) and linear counting, `k ln(k / (k - f))`, estimates it. Beyond,
/// each bin holds the least of about `n / k` uniform values, whose mean is
/// `1 / (n / k + 1)`: `n = k (k - 1) / sum` of the minima (as fractions of 2^32). Two bins
/// of a large set can hold equal high bits by chance (their minima are small numbers), so
/// one or two missing values are not taken for empty bins. Either way the relative error
/// is about `1 / sqrt(k)`: 9% for 128 values.
pub fn estimated_size(values: &[u32]) -> f64 {
    if is_empty_set(values) {
        return 0.0;
    }
    let k = values.len() as f64;
    let filled = distinct_values(values) as f64;
    if filled < k - 2.0 {
        return k * (k / (k - filled)).ln();
    }
    let sum: f64 = values
        .iter()
        .map(|&v| (f64::from(v) + 0.5) / 4_294_967_296.0)
        .sum();
    k * (k - 1.0) / sum
}

/// The number of distinct values, sorted in a buffer on the stack for signatures of up to
/// 512 values (a containment score counts two per compared pair).
fn distinct_values(values: &[u32]) -> usize {
    let count = |sorted: &mut [u32]| {
        sorted.sort_unstable();
        1 + sorted.windows(2).filter(|pair| pair[0] != pair[1]).count()
    };
    if values.is_empty() {
        return 0;
    }
    let mut buffer = [0u32; 512];
    match buffer.get_mut(..values.len()) {
        Some(sorted) => {
            sorted.copy_from_slice(values);
            count(sorted)
        }
        None => count(&mut values.to_vec()),
    }
}

/// The estimated overlap coefficient of two sets from their signatures ([`KeptBits::High`]):
/// `|A ∩ B| / min(|A|, |B|)`, how much of the smaller set the larger one holds, in `[0, 1]`.
/// With the Jaccard estimate `J` and the sizes, `|A ∩ B| = J (|A| + |B|) / (1 + J)`. 0 when
/// either set is empty.
pub fn overlap(a: &[u32], b: &[u32]) -> f64 {
    let j = jaccard(a, b, KeptBits::High);
    if j == 0.0 {
        return 0.0;
    }
    overlap_of(j, estimated_size(a), estimated_size(b))
}

/// The overlap coefficient of two sets of sizes `size_a` and `size_b` whose Jaccard
/// similarity is `j`: what [`overlap`] computes, for a caller that keeps each set's
/// [`estimated_size`] (a size sorts the signature's values once).
pub(crate) fn overlap_of(j: f64, size_a: f64, size_b: f64) -> f64 {
    if j == 0.0 {
        return 0.0;
    }
    let common = j * (size_a + size_b) / (1.0 + j);
    (common / size_a.min(size_b)).clamp(0.0, 1.0)
}

/// True for the signature of an empty set (every value `u32::MAX`; the scan stops at the
/// first other value, the first one for any other set), or for no values at all. Such a
/// signature shares its bands with every other empty one: indexes leave it out of their
/// band tables, as a program grouping by [`band_keys`](crate::lookup::band_keys) must.
pub fn is_empty_set(values: &[u32]) -> bool {
    values.iter().all(|&v| v == EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_count_equal_positions_and_empty_sets_match_nothing() {
        let a = [1, 2, 3, 4];
        assert_eq!(jaccard(&a, &[1, 2, 9, 9], KeptBits::High), 0.5);
        assert_eq!(jaccard(&a, &a, KeptBits::LowByte), 1.0);
        let empty = [EMPTY; 4];
        assert_eq!(
            jaccard(&empty, &empty, KeptBits::High),
            0.0,
            "no shingles is no evidence"
        );
        assert!(!shares_band(&empty, &empty, 2));
        assert!(shares_band(&a, &[1, 2, 9, 9], 2));
        assert!(
            !shares_band(&a, &[1, 9, 3, 9], 2),
            "equal values, no whole band"
        );
    }

    #[test]
    fn the_compact_form_keeps_the_half_asked_for() {
        let values = [u64::MAX, 0x3_0000_0002];
        let low = Signature::compact(&values, KeptBits::Low);
        assert_eq!(low.values(), [EMPTY, 2]);
        assert_eq!(Signature::from_values(vec![EMPTY, 2]), low);
        assert_eq!(
            Signature::compact(&values, KeptBits::High).values(),
            [EMPTY, 3]
        );
    }

    /// The high-bit signature of the set of elements `range` (of 128 values).
    fn signature_of(range: std::ops::Range<u64>) -> Vec<u32> {
        let mut bins = crate::fingerprint::OnePermutationBins::new(128);
        for element in range {
            bins.add(xxhash_rust::xxh3::xxh3_64(&element.to_le_bytes()));
        }
        Signature::compact(&bins.finish(), KeptBits::High)
            .0
            .into_vec()
    }

    #[test]
    fn sizes_are_estimated_within_a_third_from_one_to_a_million() {
        assert_eq!(estimated_size(&[EMPTY; 128]), 0.0);
        for n in [1, 10, 100, 300, 500, 700, 1_000, 10_000, 100_000, 1_000_000] {
            // A few sets of each size: the error is about 9%, never a third.
            for start in [0, 7 << 40, 13 << 40] {
                let estimate = estimated_size(&signature_of(start..start + n));
                let error = (estimate - n as f64).abs() / n as f64;
                assert!(error < 0.34, "{n} estimated {estimate:.0}");
            }
        }
    }

    #[test]
    fn distinct_values_are_counted_on_the_stack_or_off_it() {
        assert_eq!(distinct_values(&[]), 0);
        assert_eq!(distinct_values(&[3, 1, 3, 2, 1]), 3);
        let long: Vec<u32> = (0..2_000).map(|i| i % 700).collect();
        assert_eq!(distinct_values(&long), 700);
        assert_eq!(distinct_values(&long[..512]), 512);
    }

    #[test]
    fn a_set_inside_a_larger_one_overlaps_it_whole() {
        // An article of 800 shingles inside a page of 4,000: Jaccard 0.2, overlap 1.
        let (article, page) = (signature_of(1_000..1_800), signature_of(0..4_000));
        assert!(jaccard(&article, &page, KeptBits::High) < 0.3);
        assert!(
            overlap(&article, &page) > 0.8,
            "{}",
            overlap(&article, &page)
        );
        assert_eq!(overlap(&article, &page), overlap(&page, &article));
        // Half of it quoted: about a half.
        let half = overlap(&signature_of(3_600..4_400), &page);
        assert!((0.35..0.65).contains(&half), "{half}");
        assert_eq!(overlap(&signature_of(10_000..10_800), &page), 0.0);
        assert_eq!(overlap(&[EMPTY; 128], &page), 0.0);
    }
}
