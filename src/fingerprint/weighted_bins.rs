//! [`WeightedBins`]: MinHash of a set whose elements have weights, in `k` bins: each bin
//! keeps the element whose arrival there comes first, each element arriving at a rate of
//! its weight.
//!
//! Each element runs a Poisson process of rate `w` (its weight): arrival times spaced by
//! exponential draws of mean `1 / w`, each arrival in a bin drawn uniformly, all from a
//! stream seeded by the element's hash. A bin keeps its first arrival. In the union of two
//! sets, a bin's first arrival is element `e`'s with probability `w(e) / Σ w`; when it is
//! an element of both sets it is the first in each. So when an element's weight is a
//! function of the element alone (a [`ShingleWeights`](super::ShingleWeights) table, not a
//! count within one document), two signatures agree in a bin with probability
//! `Σ_{A∩B} w / Σ_{A∪B} w`, the weighted Jaccard similarity, bin by bin: compared position
//! by position as plain signatures are, bands included. (One permutation hashing with a
//! weighted race inside each bin does not do this: with about one element a bin, the bin's
//! race has one runner and the weights count for nothing.)
//!
//! The cost is the arrivals: an element's stream stops at its first arrival later than
//! every bin's first (none of its later ones can be first anywhere), so a set of `n`
//! elements makes about `n + k ln k` of them. The signature depends on the set alone, not
//! on the order its elements come in.

use super::minhash::{bin_of, mix};

/// An increment of the splitmix64 stream each element's arrivals are drawn from.
const STREAM: u64 = 0x9E37_79B9_7F4A_7C15;

/// The bins of a weighted MinHash: the elements gathered as they come, the arrivals run
/// when the signature is finished.
#[derive(Clone, Debug)]
pub(crate) struct WeightedBins {
    k: usize,
    /// The elements: `(hash, weight)`.
    elements: Vec<(u64, f32)>,
}

/// One element's stream of arrivals, as far as it has run.
struct Stream {
    state: u64,
    time: f64,
    /// The mean time between its arrivals: the inverse of its weight.
    mean: f64,
    /// Its identity in the bins it comes first in.
    value: u64,
}

impl WeightedBins {
    /// `k` empty bins.
    pub(crate) fn new(k: usize) -> Self {
        WeightedBins {
            k,
            elements: Vec::new(),
        }
    }

    /// Adds an element by its hash and weight (a positive weight; others count as the
    /// smallest positive one). An element added twice counts once.
    #[inline]
    pub(crate) fn add(&mut self, hash: u64, weight: f32) {
        self.elements.push((hash, weight));
    }

    /// Each bin's first arrival's element (its hash, remixed); all `u64::MAX` for an
    /// empty set (a set with an element fills every bin).
    ///
    /// The streams run in rounds, an arrival of each a round, so that the bins fill and
    /// the latest first arrival falls while every element takes part: run one element at a
    /// time, the first would fill every bin alone (`k ln k` arrivals), the second nearly as
    /// many, and a set of `n` would cost `k ln k` times `ln n`.
    pub(crate) fn finish(mut self) -> Vec<u64> {
        let k = self.k;
        let mut values = vec![u64::MAX; k];
        let mut times = vec![f64::INFINITY; k];
        self.elements.sort_unstable_by_key(|&(hash, _)| hash);
        self.elements.dedup_by_key(|&mut (hash, _)| hash);
        let mut streams: Vec<Stream> = (self.elements.iter())
            .map(|&(hash, weight)| Stream {
                state: hash,
                time: 0.0,
                mean: 1.0 / f64::from(weight.max(f32::MIN_POSITIVE)),
                value: mix(hash),
            })
            .collect();
        let (mut empty, mut latest) = (k, f64::INFINITY);
        while !streams.is_empty() {
            let mut i = 0;
            while i < streams.len() {
                let stream = &mut streams[i];
                stream.state = stream.state.wrapping_add(STREAM);
                let draw = mix(stream.state);
                // The bin from the draw's high bits, the time from its low 52.
                stream.time += exponential((draw & ((1 << 52) - 1)) + 1) * stream.mean;
                if stream.time >= latest {
                    // Every later arrival of this stream is later still: first nowhere.
                    streams.swap_remove(i);
                    continue;
                }
                let bin = bin_of(draw, k);
                let before = times[bin];
                if stream.time < before {
                    times[bin] = stream.time;
                    values[bin] = stream.value;
                    if before == f64::INFINITY {
                        empty -= 1;
                    }
                    if empty == 0 && (before == latest || latest == f64::INFINITY) {
                        latest = times.iter().copied().fold(0.0, f64::max);
                    }
                }
                i += 1;
            }
        }
        values
    }
}

/// `-ln(x / 2^52)` for `x` in `1..=2^52`: an exponential draw from a uniform one.
///
/// Computed here rather than by `f64::ln`, for two reasons: the platform's `ln` may differ
/// in its last bit from one C library to another, and a stored signature must not depend
/// on where it was computed; and it is cheaper (`f64::ln` measured 27 ns a call; this,
/// half of a weighted signature's 8 µs for 130 shingles). With `x = 2^e m`, `m` in `[1, 2)`:
/// `ln x = e ln 2 + ln m`, and `ln m = 2 atanh t` with `t = (m - 1) / (m + 1)` in
/// `[0, 1/3)`, whose series to `t^11` is within `2e-7` of it.
#[inline]
fn exponential(x: u64) -> f64 {
    let e = 63 - x.leading_zeros();
    let m = x as f64 / (1u64 << e) as f64;
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let series = t
        * (1.0
            + t2 * (1.0 / 3.0
                + t2 * (1.0 / 5.0 + t2 * (1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (1.0 / 11.0))))));
    (52 - i64::from(e)) as f64 * std::f64::consts::LN_2 - 2.0 * series
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::equal_positions;
    use proptest::prelude::*;

    fn signature(elements: &[(u64, f32)], k: usize) -> Vec<u64> {
        let mut bins = WeightedBins::new(k);
        for &(element, weight) in elements {
            bins.add(mix(element ^ 0x9E37_79B9_7F4A_7C15), weight);
        }
        bins.finish()
    }

    #[test]
    fn signatures_estimate_the_weighted_jaccard_similarity() {
        // 100 shared elements of weight 1 (a frame) and 20 of each set's own of weight 5 (its
        // figures): plain Jaccard 100 / 140 = 0.71, weighted 100 / 300 = 0.33.
        let shared = (0..100).map(|e| (e, 1.0));
        let a: Vec<_> = shared
            .clone()
            .chain((1000..1020).map(|e| (e, 5.0)))
            .collect();
        let b: Vec<_> = shared.chain((2000..2020).map(|e| (e, 5.0))).collect();
        let k = 4096;
        let agreement = equal_positions(&signature(&a, k), &signature(&b, k)) as f64 / k as f64;
        assert!((agreement - 1.0 / 3.0).abs() < 0.04, "{agreement}");
    }

    #[test]
    fn equal_weights_estimate_the_jaccard_similarity() {
        let a: Vec<_> = (0..300).map(|e| (e, 2.0)).collect();
        let b: Vec<_> = (100..400).map(|e| (e, 2.0)).collect();
        let k = 4096;
        let agreement = equal_positions(&signature(&a, k), &signature(&b, k)) as f64 / k as f64;
        assert!((agreement - 0.5).abs() < 0.04, "{agreement}");
    }

    #[test]
    fn the_exponential_draw_is_that_of_the_logarithm() {
        let mut x = 1u64;
        while x <= 1 << 52 {
            for x in [x, x + x / 3, x + x / 2 + 1, (x << 1) - 1] {
                let x = x.min(1 << 52);
                let exact = -((x as f64) / (1u64 << 52) as f64).ln();
                assert!((exponential(x) - exact).abs() < 1e-6, "{x}");
            }
            x <<= 1;
        }
        assert_eq!(exponential(1 << 52), 0.0);
    }

    #[test]
    fn an_empty_set_keeps_empty_bins_and_a_small_one_fills_them() {
        assert!(signature(&[], 16).iter().all(|&v| v == u64::MAX));
        let one = signature(&[(7, 1.0)], 16);
        assert!(one.iter().all(|&v| v == one[0] && v != u64::MAX));
    }

    proptest! {
        /// The signature is the set's: the same in any order, and an element repeated
        /// counts once.
        #[test]
        fn the_order_of_the_elements_does_not_matter(
            elements in prop::collection::vec((0u64..500, 1u32..50), 0..80),
            rotate in 0usize..80,
        ) {
            let elements: Vec<(u64, f32)> =
                elements.into_iter().map(|(e, w)| (e, w as f32)).collect();
            let mut other = elements.clone();
            if !other.is_empty() {
                let by = rotate % other.len();
                other.rotate_left(by);
                other.extend(elements.iter().take(3));
            }
            // A weight is the element's: the first one given to it.
            let weight_of = |e: u64| elements.iter().find(|(x, _)| *x == e).map(|p| p.1);
            let other: Vec<(u64, f32)> =
                other.iter().map(|&(e, _)| (e, weight_of(e).unwrap())).collect();
            let elements: Vec<(u64, f32)> =
                elements.iter().map(|&(e, _)| (e, weight_of(e).unwrap())).collect();
            prop_assert_eq!(signature(&elements, 64), signature(&other, 64));
        }
    }
}
