//! [`DistanceCounts`]: how many positive and negative pairs lie at each Hamming distance,
//! and what follows from them at every threshold *k*: precision, recall, F1, ROC AUC.

use serde::{Deserialize, Serialize};

use crate::fingerprint::FINGERPRINT_BITS;

/// The bucket of pairs where a document has no fingerprint: never near anything.
pub const NO_FINGERPRINT: usize = FINGERPRINT_BITS as usize + 1;

/// Pairs counted by distance: index `d` in `0..=64` for pairs `d` bits apart,
/// [`NO_FINGERPRINT`] for pairs where either document has no fingerprint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistanceCounts {
    /// Near-duplicate pairs by distance.
    pub positive: Vec<u64>,
    /// Distinct pairs by distance.
    pub negative: Vec<u64>,
}

/// Counts of a matcher's calls on the labeled pairs, and what follows from them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Near-duplicate pairs called near-duplicates.
    pub true_positives: u64,
    /// Distinct pairs called near-duplicates.
    pub false_positives: u64,
    /// Near-duplicate pairs missed.
    pub false_negatives: u64,
    /// `tp / (tp + fp)`; 1 when nothing is called a near-duplicate.
    pub precision: f64,
    /// `tp / (tp + fn)`; 1 when there are no near-duplicate pairs.
    pub recall: f64,
    /// The harmonic mean of precision and recall; 0 when either is.
    pub f1: f64,
}

impl Scores {
    /// The scores of these counts.
    pub fn new(true_positives: u64, false_positives: u64, false_negatives: u64) -> Scores {
        let ratio = |num: u64, den: u64| {
            if den == 0 {
                1.0
            } else {
                num as f64 / den as f64
            }
        };
        let precision = ratio(true_positives, true_positives + false_positives);
        let recall = ratio(true_positives, true_positives + false_negatives);
        let f1 = if true_positives == 0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Scores {
            true_positives,
            false_positives,
            false_negatives,
            precision,
            recall,
            f1,
        }
    }
}

/// The scores when pairs within `k` bits are called near-duplicates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The threshold: pairs at most `k` bits apart are called near-duplicates.
    pub k: u32,
    /// What that calls right and wrong.
    #[serde(flatten)]
    pub scores: Scores,
}

impl DistanceCounts {
    /// No pairs.
    pub fn new() -> DistanceCounts {
        DistanceCounts {
            positive: vec![0; NO_FINGERPRINT + 1],
            negative: vec![0; NO_FINGERPRINT + 1],
        }
    }

    /// Counts one pair at `distance` (or [`NO_FINGERPRINT`]) with `label`; `count` may be
    /// negative to take back pairs counted under another label.
    pub fn add(&mut self, label: bool, distance: usize, count: i64) {
        let side = if label {
            &mut self.positive
        } else {
            &mut self.negative
        };
        side[distance] = side[distance].wrapping_add_signed(count);
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &DistanceCounts) {
        for (a, b) in self.positive.iter_mut().zip(&other.positive) {
            *a += b;
        }
        for (a, b) in self.negative.iter_mut().zip(&other.negative) {
            *a += b;
        }
    }

    /// Near-duplicate pairs in all.
    pub fn positives(&self) -> u64 {
        self.positive.iter().sum()
    }

    /// Distinct pairs in all.
    pub fn negatives(&self) -> u64 {
        self.negative.iter().sum()
    }

    /// The point at threshold `k`.
    pub fn at(&self, k: u32) -> Point {
        let within = (k as usize).min(FINGERPRINT_BITS as usize) + 1;
        let tp: u64 = self.positive[..within].iter().sum();
        let fp: u64 = self.negative[..within].iter().sum();
        Point {
            k,
            scores: Scores::new(tp, fp, self.positives() - tp),
        }
    }

    /// The points for `k` in `0..=max_k`.
    pub fn sweep(&self, max_k: u32) -> Vec<Point> {
        (0..=max_k).map(|k| self.at(k)).collect()
    }

    /// The point of highest F1 for `k` in `0..=max_k` (the smallest such `k` on ties).
    pub fn best(&self, max_k: u32) -> Point {
        self.sweep(max_k)
            .into_iter()
            .fold(None, |best: Option<Point>, p| match best {
                Some(b) if b.scores.f1 >= p.scores.f1 => Some(b),
                _ => Some(p),
            })
            .expect("the sweep has at least k = 0")
    }

    /// The area under the ROC curve of the distance as a score (smaller is more alike): the
    /// chance that a random near-duplicate pair is closer than a random distinct pair, ties
    /// counting half. `None` when either side has no pair.
    pub fn roc_auc(&self) -> Option<f64> {
        let (positives, negatives) = (self.positives(), self.negatives());
        if positives == 0 || negatives == 0 {
            return None;
        }
        let mut negatives_farther = negatives as f64;
        let mut area = 0.0;
        for (&p, &n) in self.positive.iter().zip(&self.negative) {
            negatives_farther -= n as f64;
            area += p as f64 * (negatives_farther + n as f64 / 2.0);
        }
        Some(area / (positives as f64 * negatives as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(positive: &[(usize, u64)], negative: &[(usize, u64)]) -> DistanceCounts {
        let mut c = DistanceCounts::new();
        for &(d, n) in positive {
            c.add(true, d, n as i64);
        }
        for &(d, n) in negative {
            c.add(false, d, n as i64);
        }
        c
    }

    #[test]
    fn points_count_pairs_within_k() {
        let c = counts(&[(0, 2), (3, 1), (10, 1)], &[(2, 1), (30, 5)]);
        let p = c.at(3).scores;
        assert_eq!(
            (p.true_positives, p.false_positives, p.false_negatives),
            (3, 1, 1)
        );
        assert!((p.precision - 0.75).abs() < 1e-12);
        assert!((p.recall - 0.75).abs() < 1e-12);
        assert!((p.f1 - 0.75).abs() < 1e-12);
        // At 10 every near-duplicate is found for one false positive: F1 0.89.
        assert_eq!(c.best(16).k, 10);
        assert_eq!(c.best(5).k, 3);
        assert_eq!(c.at(64).scores.true_positives, 4);
    }

    #[test]
    fn pairs_without_fingerprints_are_never_near() {
        let c = counts(&[(NO_FINGERPRINT, 1)], &[(NO_FINGERPRINT, 1)]);
        assert_eq!(c.at(64).scores.true_positives, 0);
        assert_eq!(c.at(64).scores.false_positives, 0);
    }

    #[test]
    fn auc_matches_the_pairwise_definition() {
        let c = counts(
            &[(0, 2), (3, 1), (10, 1)],
            &[(3, 1), (30, 5), (NO_FINGERPRINT, 1)],
        );
        let (mut wins, mut total) = (0.0, 0.0);
        for (dp, &np) in c.positive.iter().enumerate() {
            for (dn, &nn) in c.negative.iter().enumerate() {
                let w = (np * nn) as f64;
                total += w;
                wins += w * if dp < dn {
                    1.0
                } else if dp == dn {
                    0.5
                } else {
                    0.0
                };
            }
        }
        assert!((c.roc_auc().unwrap() - wins / total).abs() < 1e-12);
        assert_eq!(counts(&[(0, 1)], &[]).roc_auc(), None);
    }

    #[test]
    fn negative_counts_take_pairs_back() {
        let mut c = counts(&[], &[(5, 3)]);
        c.add(false, 5, -1);
        c.add(true, 5, 1);
        assert_eq!((c.positives(), c.negatives()), (1, 2));
    }
}
