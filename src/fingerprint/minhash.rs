//! MinHash signatures of sets (Broder 1997) and the combined SimHash + MinHash similarity.
//!
//! The probability that two sets have the same minimum under a random hash function is their
//! Jaccard similarity `|A ∩ B| / |A ∪ B|`. A signature keeps that minimum for `k` hash
//! functions ([`MinHashVariant::KHashes`]), or the `k` smallest values of one hash function
//! ([`MinHashVariant::BottomK`], cheaper to compute: one hash per element instead of `k`), or
//! the minimum of each of `k` bins that one hash function splits the set into, empty bins
//! filled from other bins ([`MinHashVariant::OnePermutation`]: one hash per element,
//! and compared position by position as the `k`-hash signature is).

use serde::{Deserialize, Serialize};

use super::signature::equal_positions;
use crate::error::{Error, Result};

/// Default weight of the SimHash part in [`combined_similarity`], in the middle of the 0.8 to
/// 0.9 the "improved SimHash" paper recommends.
pub const DEFAULT_MU: f64 = 0.85;

/// The similarity of two documents from the Hamming distance of their SimHash fingerprints and
/// the Jaccard similarity of their metadata sets, as the "improved SimHash" paper defines it:
/// `mu / (hamming + 1) + (1 - mu) * jaccard`. The content dominates for `mu` near 1; the `+ 1`
/// keeps equal fingerprints (distance 0) at a finite score of `mu`.
#[must_use]
pub fn combined_similarity(hamming: u32, jaccard: f64, mu: f64) -> f64 {
    mu / (f64::from(hamming) + 1.0) + (1.0 - mu) * jaccard
}

/// Which MinHash construction a [`MinHasher`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum MinHashVariant {
    /// `k` hash functions, the minimum of each.
    KHashes,
    /// One hash function, its `k` smallest distinct values.
    BottomK,
    /// One permutation hashing (Li, Owen and Zhang, NIPS 2012): one hash function splits
    /// the elements into `k` bins by its high bits and each bin keeps its minimum; an empty
    /// bin takes the value of a filled bin drawn by a hash of its position (optimal
    /// densification, Shrivastava, ICML 2017). As cheap as `BottomK`, and estimates like
    /// `KHashes`: the fraction of equal positions.
    OnePermutation,
}

/// Computes [`MinHashSignature`]s of sets of strings.
///
/// ```
/// use tantivy_dedup::fingerprint::MinHasher;
///
/// let hasher = MinHasher::new(256, 42)?;
/// let a = hasher.signature(["rust", "search", "tantivy", "simhash"]);
/// let b = hasher.signature(["rust", "search", "tantivy", "minhash"]);
/// let j = a.jaccard(&b)?; // true Jaccard: 3 / 5
/// assert!((j - 0.6).abs() < 0.15);
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinHasher {
    variant: MinHashVariant,
    k: usize,
    seed: u64,
    /// One salt per hash function of [`MinHashVariant::KHashes`].
    salts: Vec<u64>,
}

/// The MinHash summary of one set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinHashSignature {
    variant: MinHashVariant,
    seed: u64,
    /// `KHashes`: the minimum per function (`u64::MAX` for an empty set). `BottomK`: the
    /// smallest distinct values, ascending, at most `k`.
    values: Vec<u64>,
    k: usize,
}

/// A 64-bit finalizer (splitmix64): turns one well-mixed hash into independent-looking
/// others, so that `k` hash functions cost one xxh3 plus `k` multiplications per element.
#[inline]
pub(super) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl MinHasher {
    /// `k` hash functions, derived from `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for `k = 0`.
    pub fn new(k: usize, seed: u64) -> Result<Self> {
        Self::with_variant(MinHashVariant::KHashes, k, seed)
    }

    /// The one permutation variant: one hash function split into `k` bins, densified.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for `k = 0`.
    pub fn one_permutation(k: usize, seed: u64) -> Result<Self> {
        Self::with_variant(MinHashVariant::OnePermutation, k, seed)
    }

    /// The bottom-`k` variant: one hash function, the `k` smallest values.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for `k = 0`.
    pub fn bottom_k(k: usize, seed: u64) -> Result<Self> {
        Self::with_variant(MinHashVariant::BottomK, k, seed)
    }

    /// A hasher of the given variant.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for `k = 0`.
    pub fn with_variant(variant: MinHashVariant, k: usize, seed: u64) -> Result<Self> {
        if k == 0 {
            return Err(Error::InvalidSetting {
                name: "minhash.k",
                reason: "must be at least 1".to_owned(),
            });
        }
        let salts = match variant {
            MinHashVariant::KHashes => (0..k as u64).map(|i| mix(seed ^ mix(i + 1))).collect(),
            MinHashVariant::BottomK | MinHashVariant::OnePermutation => Vec::new(),
        };
        Ok(MinHasher {
            variant,
            k,
            seed,
            salts,
        })
    }

    /// Values per signature.
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// The signature of a set. Repeated elements count once, as in a set.
    #[must_use]
    pub fn signature<I, S>(&self, set: I) -> MinHashSignature
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.signature_of_hashes(set.into_iter().map(|s| self.hash(s.as_ref())))
    }

    /// The hash of one element, as [`signature`](Self::signature) takes it: with
    /// [`signature_of_hashes`](Self::signature_of_hashes), a signature without collecting
    /// the elements as strings.
    #[inline]
    #[must_use]
    pub fn hash(&self, element: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(element.as_bytes(), self.seed)
    }

    /// The signature of the set whose elements have these [`hash`](Self::hash)es.
    #[must_use]
    pub fn signature_of_hashes(&self, hashes: impl IntoIterator<Item = u64>) -> MinHashSignature {
        let hashes = hashes.into_iter();
        let values = match self.variant {
            MinHashVariant::KHashes => {
                let mut minima = vec![u64::MAX; self.k];
                for hash in hashes {
                    for (min, salt) in minima.iter_mut().zip(&self.salts) {
                        *min = (*min).min(mix(hash ^ salt));
                    }
                }
                minima
            }
            MinHashVariant::BottomK => {
                let mut all: Vec<u64> = hashes.map(mix).collect();
                all.sort_unstable();
                all.dedup();
                all.truncate(self.k);
                all
            }
            MinHashVariant::OnePermutation => one_permutation(hashes, self.k),
        };
        MinHashSignature {
            variant: self.variant,
            seed: self.seed,
            values,
            k: self.k,
        }
    }
}

/// The bins of one permutation hashing, densified; all `u64::MAX` for an empty set.
///
/// An empty bin takes the value of a filled bin drawn by a hash of its position and of the
/// attempt number, drawing again until the bin is filled (optimal densification, Shrivastava,
/// ICML 2017). The draws are the same for every set, so two sets' empty bins borrow from the
/// same positions; and they are independent across bins, which borrowing from the next
/// filled bin to the right (rotation, Shrivastava and Li, ICML 2014) is not: with most bins
/// empty, rotation repeats one chance agreement over a run of bins.
fn one_permutation(hashes: impl Iterator<Item = u64>, k: usize) -> Vec<u64> {
    let mut bins = OnePermutationBins::new(k);
    hashes.for_each(|hash| bins.add(hash));
    bins.finish()
}

/// The bins of one permutation hashing filled as the hashes come: a signature without
/// collecting its elements' hashes first (what [`MinHasher::signature_of_hashes`] gives for
/// [`MinHashVariant::OnePermutation`]).
#[derive(Clone, Debug)]
pub(crate) struct OnePermutationBins {
    bins: Vec<u64>,
    /// Which bins an element fell in, a bit each, 64 bins a word: densification then visits
    /// the empty bins alone and tests its draws without a branch each.
    filled: Vec<u64>,
}

impl OnePermutationBins {
    /// `k` empty bins.
    pub(crate) fn new(k: usize) -> Self {
        OnePermutationBins {
            bins: vec![u64::MAX; k],
            filled: vec![0; k.div_ceil(64)],
        }
    }

    /// Adds an element by its hash ([`MinHasher::hash`], or another hash as well mixed).
    #[inline]
    pub(crate) fn add(&mut self, hash: u64) {
        // The bin from the high bits of the hash, the value from all its bits remixed, so
        // that the values within a bin are not ordered by the bin's own bits.
        let bin = bin_of(hash, self.bins.len());
        self.bins[bin] = self.bins[bin].min(mix(hash));
        self.filled[bin / 64] |= 1 << (bin % 64);
    }

    /// The bins, densified; all `u64::MAX` for an empty set.
    pub(crate) fn finish(self) -> Vec<u64> {
        let OnePermutationBins { mut bins, filled } = self;
        densify(&mut bins, &filled);
        bins
    }
}

/// Fills the empty bins of `bins` (those whose bit in `filled`, 64 bins a word, is clear),
/// each from a filled bin drawn by a hash of its position; leaves them all as they are when
/// none is filled.
fn densify(bins: &mut [u64], filled: &[u64]) {
    let k = bins.len();
    if filled.iter().all(|&word| word == 0) {
        return;
    }
    let is_filled = |j: usize| (filled[j / 64] >> (j % 64)) & 1;
    for (w, &word) in filled.iter().enumerate() {
        // The empty bins of this word, its bits past the last bin left out. In place: an
        // empty bin takes the value of a filled one, which never changes.
        let tail = k - 64 * w;
        let mut empty = if tail < 64 {
            !word & ((1 << tail) - 1)
        } else {
            !word
        };
        while empty != 0 {
            let i = 64 * w + empty.trailing_zeros() as usize;
            empty &= empty - 1;
            bins[i] = bins[densifying_source(i, k, is_filled)];
        }
    }
}

/// The filled bin that the empty bin `i` of `k` takes its value from: the first filled one
/// that hashes of its position and of the attempt number draw (`is_filled` is 1 for a
/// filled bin, 0 for an empty one).
#[inline]
fn densifying_source(i: usize, k: usize, is_filled: impl Fn(usize) -> u64) -> usize {
    let draw = |attempt: u64| bin_of(mix(((i as u64) << 32) ^ attempt ^ 0xD6E8_FEB8_6659_FD93), k);
    // The first four draws at once, the first filled one picked from their bits: a draw
    // found empty half the time was a mispredicted branch half the time. With about as many
    // elements as bins (a third of the bins empty), all four are empty about once in a
    // hundred bins.
    let draws = [draw(0), draw(1), draw(2), draw(3)];
    let hits = is_filled(draws[0])
        | is_filled(draws[1]) << 1
        | is_filled(draws[2]) << 2
        | is_filled(draws[3]) << 3;
    if hits != 0 {
        return draws[hits.trailing_zeros() as usize];
    }
    (4..)
        .map(draw)
        .find(|&j| is_filled(j) == 1)
        .expect("some bin is filled")
}

/// The bin of `hash` among `k`, from its high bits.
#[inline]
pub(super) fn bin_of(hash: u64, k: usize) -> usize {
    ((u128::from(hash) * k as u128) >> 64) as usize
}

impl MinHashSignature {
    /// True when the set was empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        match self.variant {
            MinHashVariant::KHashes | MinHashVariant::OnePermutation => {
                self.values.iter().all(|&v| v == u64::MAX)
            }
            MinHashVariant::BottomK => self.values.is_empty(),
        }
    }

    /// The raw values (see the variant for their meaning).
    #[must_use]
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The estimated Jaccard similarity of the two sets, in `[0, 1]`. When either set is
    /// empty the estimate is 0: an absent set of tags is no evidence of similarity.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the signatures come from different hashers (variant,
    /// `k` or seed), which makes them incomparable.
    pub fn jaccard(&self, other: &MinHashSignature) -> Result<f64> {
        if (self.variant, self.k, self.seed) != (other.variant, other.k, other.seed) {
            return Err(Error::InvalidSetting {
                name: "minhash",
                reason:
                    "signatures from different MinHashers (variant, k or seed) cannot be compared"
                        .to_owned(),
            });
        }
        if self.is_empty() || other.is_empty() {
            return Ok(0.0);
        }
        Ok(match self.variant {
            MinHashVariant::KHashes | MinHashVariant::OnePermutation => {
                equal_positions(&self.values, &other.values) as f64 / self.k as f64
            }
            MinHashVariant::BottomK => {
                // The k smallest of the union are a uniform sample of the union; the fraction
                // of them in both sets estimates the Jaccard similarity.
                let (a, b) = (&self.values, &other.values);
                let (mut i, mut j, mut taken, mut shared) = (0, 0, 0, 0);
                while taken < self.k && (i < a.len() || j < b.len()) {
                    match (a.get(i), b.get(j)) {
                        (Some(x), Some(y)) if x == y => {
                            shared += 1;
                            i += 1;
                            j += 1;
                        }
                        (Some(x), Some(y)) if x < y => i += 1,
                        (Some(_), None) => i += 1,
                        _ => j += 1,
                    }
                    taken += 1;
                }
                shared as f64 / taken as f64
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Densification as it was first written, a bin at a time and a draw at a time: the
    /// values it gives are stored in indexes, and must never change.
    fn densify_one_by_one(bins: &mut [u64], filled: &[bool]) {
        let k = bins.len();
        if !filled.contains(&true) {
            return;
        }
        for i in 0..k {
            if filled[i] {
                continue;
            }
            let mut attempt = 0u64;
            let source = loop {
                let j = bin_of(mix(((i as u64) << 32) ^ attempt ^ 0xD6E8_FEB8_6659_FD93), k);
                if filled[j] {
                    break j;
                }
                attempt += 1;
            };
            bins[i] = bins[source];
        }
    }

    proptest::proptest! {
        /// The bins densified from their bits give the values of the first densification,
        /// for sets from empty to several times the bins, and bin counts off a multiple of 64.
        #[test]
        fn densification_from_bits_gives_the_first_values(
            hashes in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..400),
            k in proptest::sample::select(vec![1usize, 7, 63, 64, 65, 128, 200, 256]),
        ) {
            let mut bins = OnePermutationBins::new(k);
            let (mut expected, mut filled) = (vec![u64::MAX; k], vec![false; k]);
            for &hash in &hashes {
                bins.add(hash);
                let bin = bin_of(hash, k);
                expected[bin] = expected[bin].min(mix(hash));
                filled[bin] = true;
            }
            densify_one_by_one(&mut expected, &filled);
            proptest::prop_assert_eq!(bins.finish(), expected);
        }
    }

    fn exact_jaccard(a: &[String], b: &[String]) -> f64 {
        let a: HashSet<_> = a.iter().collect();
        let b: HashSet<_> = b.iter().collect();
        a.intersection(&b).count() as f64 / a.union(&b).count() as f64
    }

    fn words(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| format!("w{i}")).collect()
    }

    #[test]
    fn estimates_are_close_to_exact_jaccard() {
        for hasher in [
            MinHasher::new(512, 7).unwrap(),
            MinHasher::bottom_k(512, 7).unwrap(),
            MinHasher::one_permutation(512, 7).unwrap(),
        ] {
            for (a, b) in [
                (0..1000, 500..1500),
                (0..1000, 0..900),
                (0..1000, 990..2000),
                (0..100, 0..100),
            ] {
                let (a, b) = (words(a), words(b));
                let estimate = hasher.signature(&a).jaccard(&hasher.signature(&b)).unwrap();
                let exact = exact_jaccard(&a, &b);
                assert!(
                    (estimate - exact).abs() < 0.08,
                    "{hasher:?}: {estimate} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn small_sets_in_bottom_k_are_exact() {
        let hasher = MinHasher::bottom_k(64, 1).unwrap();
        let a = hasher.signature(["a", "b", "c", "d"]);
        let b = hasher.signature(["c", "d", "e", "a", "a"]);
        assert!((a.jaccard(&b).unwrap() - 3.0 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn empty_sets_and_mismatched_hashers() {
        let hasher = MinHasher::new(16, 1).unwrap();
        let empty = hasher.signature(Vec::<String>::new());
        let some = hasher.signature(["x"]);
        assert!(empty.is_empty());
        assert_eq!(empty.jaccard(&some).unwrap(), 0.0);
        assert_eq!(some.jaccard(&some).unwrap(), 1.0);
        let other = MinHasher::new(16, 2).unwrap().signature(["x"]);
        assert!(some.jaccard(&other).is_err());
        assert!(MinHasher::new(0, 1).is_err());
        assert!(MinHasher::bottom_k(0, 1).is_err());
        assert!(MinHasher::one_permutation(0, 1).is_err());
        let hasher = MinHasher::one_permutation(16, 1).unwrap();
        assert!(hasher.signature(Vec::<String>::new()).is_empty());
        let one = hasher.signature(["x"]);
        assert!(
            !one.is_empty(),
            "one element fills every bin by densification"
        );
        assert_eq!(one.jaccard(&one).unwrap(), 1.0);
    }

    #[test]
    fn one_permutation_on_sets_smaller_than_k() {
        // Densification keeps the estimate unbiased when most bins are empty.
        let hasher = MinHasher::one_permutation(128, 3).unwrap();
        let mut total = 0.0;
        for trial in 0..200 {
            let a: Vec<String> = (0..20).map(|i| format!("t{trial}-{i}")).collect();
            let b: Vec<String> = (10..30).map(|i| format!("t{trial}-{i}")).collect();
            total += hasher.signature(&a).jaccard(&hasher.signature(&b)).unwrap();
        }
        let mean = total / 200.0;
        assert!((mean - 10.0 / 30.0).abs() < 0.05, "mean estimate {mean}");
    }

    #[test]
    fn combined_similarity_follows_the_paper() {
        assert!((combined_similarity(0, 1.0, DEFAULT_MU) - 1.0).abs() < 1e-12);
        assert!((combined_similarity(3, 0.5, 0.8) - (0.8 / 4.0 + 0.2 * 0.5)).abs() < 1e-12);
        assert!(combined_similarity(1, 0.0, 0.85) < combined_similarity(0, 0.0, 0.85));
    }
}
