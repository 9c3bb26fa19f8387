//! Brute-force popcount scan: the reference every faster lookup is tested against.
//!
//! A linear scan computes the Hamming distance (XOR, then popcount) from the query to every
//! stored fingerprint. It is exact by construction, needs no memory beyond the fingerprints
//! and ids, and for a few thousand fingerprints it is as fast as any table. That makes it the
//! oracle in tests, the baseline in benchmarks, and the insert buffer of
//! [`FingerprintIndex`](super::FingerprintIndex).

use std::fmt;
use std::ops::BitXor;

use rayon::prelude::*;

use super::results::{Match, Pair};
use crate::fingerprint::Fingerprint;

/// Fingerprints and ids in two parallel vectors, searched by scanning all of them.
///
/// Unlike [`FingerprintIndex`](super::FingerprintIndex) this is a plain list: it does not
/// check ids, so pushing the same id twice stores it twice and a query reports it twice.
///
/// ```
/// use tantivy_dedup::lookup::LinearScan;
/// use tantivy_dedup::fingerprint::Fingerprint;
///
/// let scan: LinearScan = [(1, Fingerprint(0b1011)), (2, Fingerprint(u64::MAX))]
///     .into_iter()
///     .collect();
/// let matches = scan.query(Fingerprint(0b0011), 1);
/// assert_eq!(matches.len(), 1);
/// assert_eq!((matches[0].id, matches[0].distance), (1, 1));
/// ```
#[derive(Clone, Default)]
pub struct LinearScan {
    // Separate vectors, not a `Vec<(u32, u64)>`: the scan reads only the fingerprints, as a
    // dense `&[u64]` the compiler can vectorize; ids are read for the few hits.
    pub(crate) ids: Vec<u32>,
    pub(crate) fps: Vec<u64>,
}

impl LinearScan {
    /// An empty scan.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty scan with room for `capacity` fingerprints.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        LinearScan {
            ids: Vec::with_capacity(capacity),
            fps: Vec::with_capacity(capacity),
        }
    }

    /// Appends `fingerprint` under `id` (not checked for repeats).
    pub fn push(&mut self, id: u32, fingerprint: Fingerprint) {
        self.ids.push(id);
        self.fps.push(fingerprint.0);
    }

    /// Number of stored fingerprints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.fps.len()
    }

    /// True when nothing is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fps.is_empty()
    }

    /// The stored `(id, fingerprint)` pairs in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (u32, Fingerprint)> + '_ {
        self.ids
            .iter()
            .zip(&self.fps)
            .map(|(&id, &fp)| (id, Fingerprint(fp)))
    }

    /// Every stored fingerprint within Hamming distance `k` of `query`, sorted by
    /// `(distance, id)`.
    #[must_use]
    pub fn query(&self, query: Fingerprint, k: u32) -> Vec<Match> {
        let mut out = Vec::new();
        self.query_into(query, k, &mut out);
        out
    }

    /// Like [`query`](Self::query), but reuses `out`: it is cleared, then filled.
    pub fn query_into(&self, query: Fingerprint, k: u32, out: &mut Vec<Match>) {
        out.clear();
        scan_into(&self.ids, &self.fps, query.0, k, out, |_| true);
        sort_matches(out);
    }

    /// Every pair of stored entries within distance `k`, as `(smaller id, larger id)`,
    /// sorted; a quadratic scan run in parallel. Entries with equal ids are not paired.
    #[must_use]
    pub fn all_pairs(&self, k: u32) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = (0..self.fps.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let (a, fa) = (self.ids[i], self.fps[i]);
                let mut hits = Vec::new();
                // Only later positions: each unordered pair of positions is looked at once.
                for_each_within(&self.fps[i + 1..], fa, k, |j| hits.push(i + 1 + j));
                hits.into_iter().filter_map(move |j| {
                    let b = self.ids[j];
                    (a != b).then(|| Pair {
                        a: a.min(b),
                        b: a.max(b),
                        distance: (fa ^ self.fps[j]).count_ones(),
                    })
                })
            })
            .collect();
        pairs.par_sort_unstable();
        pairs
    }
}

impl fmt::Debug for LinearScan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinearScan")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl FromIterator<(u32, Fingerprint)> for LinearScan {
    fn from_iter<I: IntoIterator<Item = (u32, Fingerprint)>>(iter: I) -> Self {
        let mut scan = LinearScan::new();
        scan.extend(iter);
        scan
    }
}

impl Extend<(u32, Fingerprint)> for LinearScan {
    fn extend<I: IntoIterator<Item = (u32, Fingerprint)>>(&mut self, iter: I) {
        for (id, fp) in iter {
            self.push(id, fp);
        }
    }
}

/// Sorts matches into the order every query documents: by distance, then id.
pub(crate) fn sort_matches(out: &mut [Match]) {
    out.sort_unstable_by_key(|m| (m.distance, m.id));
}

/// Appends a [`Match`] for every `fps[i]` within `k` of `query` for which `keep(ids[i])`.
pub(crate) fn scan_into(
    ids: &[u32],
    fps: &[u64],
    query: u64,
    k: u32,
    out: &mut Vec<Match>,
    mut keep: impl FnMut(u32) -> bool,
) {
    for_each_within(fps, query, k, |i| {
        if keep(ids[i]) {
            out.push(Match {
                id: ids[i],
                distance: (fps[i] ^ query).count_ones(),
            });
        }
    });
}

/// A word whose bits can be counted: `u32` table windows and `u64` fingerprints.
pub(crate) trait Word: Copy + Eq + BitXor<Output = Self> {
    const ZERO: Self;
    fn ones(self) -> u32;
    /// `self` without its lowest set bit.
    fn clear_lowest(self) -> Self;
}

impl Word for u32 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn ones(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn clear_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
}

impl Word for u64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn ones(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn clear_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
}

/// True when the hardware counts bits in one instruction for the target being compiled.
const FAST_POPCOUNT: bool = cfg!(any(
    target_feature = "popcnt",
    target_arch = "aarch64",
    target_arch = "wasm32"
));

/// True when `x` has at most `K` bits set.
///
/// Without a popcount instruction (the default `x86_64` target has none), `count_ones` is a
/// dozen shifts and masks; clearing the lowest set bit `K` times and testing for zero takes
/// `2K` simple operations that vectorize as well, and is about twice as fast for `K <= 5`
/// (measured in the lookup benchmark).
#[inline(always)]
fn at_most<W: Word, const K: u32>(x: W) -> bool {
    if FAST_POPCOUNT || K > 5 {
        x.ones() <= K
    } else {
        let mut y = x;
        for _ in 0..K {
            y = y.clear_lowest();
        }
        y == W::ZERO
    }
}

/// Lanes per block in [`for_each_within`].
const LANES: usize = 16;

/// Calls `hit(i)` for every `i` with `popcount(values[i] ^ query) <= k`, in increasing order.
///
/// The hot loop of every lookup. Hits are rare, so the values are taken in blocks of
/// [`LANES`]: a branch-free loop the compiler turns into SIMD tells whether a block holds
/// any hit, and only such blocks are looked at lane by lane. `k` is turned into a constant
/// for the common distances, so that the bit test is unrolled.
#[inline]
pub(crate) fn for_each_within<W: Word>(values: &[W], query: W, k: u32, mut hit: impl FnMut(usize)) {
    match k {
        0 => within_blocks::<W, 0>(values, query, &mut hit),
        1 => within_blocks::<W, 1>(values, query, &mut hit),
        2 => within_blocks::<W, 2>(values, query, &mut hit),
        3 => within_blocks::<W, 3>(values, query, &mut hit),
        4 => within_blocks::<W, 4>(values, query, &mut hit),
        5 => within_blocks::<W, 5>(values, query, &mut hit),
        6 => within_blocks::<W, 6>(values, query, &mut hit),
        7 => within_blocks::<W, 7>(values, query, &mut hit),
        8 => within_blocks::<W, 8>(values, query, &mut hit),
        _ => {
            for (i, &v) in values.iter().enumerate() {
                if (v ^ query).ones() <= k {
                    hit(i);
                }
            }
        }
    }
}

#[inline]
fn within_blocks<W: Word, const K: u32>(values: &[W], query: W, hit: &mut impl FnMut(usize)) {
    let mut blocks = values.chunks_exact(LANES);
    let mut base = 0;
    for block in &mut blocks {
        let any = block
            .iter()
            .fold(false, |any, &v| any | at_most::<W, K>(v ^ query));
        if any {
            for (lane, &v) in block.iter().enumerate() {
                if at_most::<W, K>(v ^ query) {
                    hit(base + lane);
                }
            }
        }
        base += LANES;
    }
    for (lane, &v) in blocks.remainder().iter().enumerate() {
        if at_most::<W, K>(v ^ query) {
            hit(base + lane);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids_of(matches: &[Match]) -> Vec<(u32, u32)> {
        matches.iter().map(|m| (m.id, m.distance)).collect()
    }

    #[test]
    fn finds_exactly_the_fingerprints_within_k() {
        // 40 values: more than two blocks of LANES, so the remainder path runs too.
        let scan: LinearScan = (0..40u32)
            .map(|i| (i, Fingerprint((1u64 << i) - 1)))
            .collect();
        // Value i has i low bits set; the query 0 is at distance i from it.
        let got = scan.query(Fingerprint(0), 3);
        assert_eq!(ids_of(&got), vec![(0, 0), (1, 1), (2, 2), (3, 3)]);
        assert!(scan.query(Fingerprint(0), 64).len() == 40);
    }

    #[test]
    fn the_unrolled_bit_tests_agree_with_popcount() {
        let values: Vec<u64> = (0..200u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64))
            .collect();
        for k in 0..=12 {
            for &q in &[0u64, u64::MAX, 0xff] {
                let mut got = Vec::new();
                for_each_within(&values, q, k, |i| got.push(i));
                let expected: Vec<usize> = (0..values.len())
                    .filter(|&i| (values[i] ^ q).count_ones() <= k)
                    .collect();
                assert_eq!(got, expected, "k={k} q={q:x}");
            }
        }
    }

    #[test]
    fn results_are_sorted_by_distance_then_id() {
        let scan: LinearScan = [(9, 0b1), (3, 0b11), (5, 0b10), (1, 0b0)]
            .into_iter()
            .map(|(id, fp)| (id, Fingerprint(fp)))
            .collect();
        let got = scan.query(Fingerprint(0), 2);
        assert_eq!(ids_of(&got), vec![(1, 0), (5, 1), (9, 1), (3, 2)]);
    }

    #[test]
    fn all_pairs_reports_each_pair_once_smaller_id_first() {
        let scan: LinearScan = [(7, 0u64), (2, 1), (4, u64::MAX)]
            .into_iter()
            .map(|(id, fp)| (id, Fingerprint(fp)))
            .collect();
        assert_eq!(
            scan.all_pairs(1),
            vec![Pair {
                a: 2,
                b: 7,
                distance: 1
            }]
        );
    }
}
