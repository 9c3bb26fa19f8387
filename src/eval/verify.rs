//! The second stage of two-stage matching: pairs found by their fingerprints at a loose
//! distance, kept when a similarity score reaches a threshold; the threshold swept.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::counts::Scores;

/// A candidate pair's score under a second-stage similarity, with its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredPair {
    /// True for near-duplicates.
    pub label: bool,
    /// The similarity: higher is more alike.
    pub score: f64,
}

/// The scores when candidates scoring at least `threshold` are kept.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThresholdPoint {
    /// Candidates scoring at least this are called near-duplicates.
    pub threshold: f64,
    /// What that calls right and wrong (missed pairs include those the first stage missed).
    #[serde(flatten)]
    pub scores: Scores,
}

impl ThresholdPoint {
    fn new(threshold: f64, tp: u64, fp: u64, positives: u64) -> ThresholdPoint {
        ThresholdPoint {
            threshold,
            scores: Scores::new(tp, fp, positives - tp),
        }
    }
}

/// Sweeps the threshold over `candidates`, where `positives` counts every near-duplicate
/// pair of the set (those the first stage missed are false negatives at every threshold).
/// Returns the point of highest F1 over every distinct score (the highest threshold on
/// ties), and the points at `grid` thresholds.
///
/// # Panics
/// When `candidates` holds more near-duplicate pairs than `positives`.
pub fn sweep_scores(
    candidates: &[ScoredPair],
    positives: u64,
    grid: &[f64],
) -> (ThresholdPoint, Vec<ThresholdPoint>) {
    let mut histogram = ScoreHistogram::default();
    for pair in candidates {
        histogram.add(pair.score, pair.label);
    }
    histogram.sweep(positives, grid)
}

/// A score as a key ordered by `f64::total_cmp`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key(f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The candidates of a second stage counted by score: how many near-duplicate and distinct
/// pairs score each distinct value. What [`sweep_scores`] sweeps, in memory that grows with
/// the distinct scores, not the pairs: a Jaccard estimate of 128 values takes at most 129
/// values, so millions of candidate pairs (thousands of identical documents) take a few
/// kilobytes.
#[derive(Clone, Debug, Default)]
pub struct ScoreHistogram {
    /// Near-duplicate and distinct pairs, by score.
    counts: BTreeMap<Key, (u64, u64)>,
    pairs: usize,
}

impl ScoreHistogram {
    /// Counts a pair of `label` scoring `score`.
    pub fn add(&mut self, score: f64, label: bool) {
        self.add_many(score, label, 1);
    }

    /// Counts `count` pairs of `label` scoring `score` (a [`NearPair`](super::NearPair)
    /// standing for several).
    pub fn add_many(&mut self, score: f64, label: bool, count: u64) {
        let (near, distinct) = self.counts.entry(Key(score)).or_default();
        if label {
            *near += count;
        } else {
            *distinct += count;
        }
        self.pairs += count as usize;
    }

    /// The pairs counted.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// As [`sweep_scores`]: the point of highest F1 over every distinct score (the highest
    /// threshold on ties), and the points at `grid` thresholds.
    ///
    /// # Panics
    /// When more near-duplicate pairs were counted than `positives`.
    pub fn sweep(&self, positives: u64, grid: &[f64]) -> (ThresholdPoint, Vec<ThresholdPoint>) {
        let found: u64 = self.counts.values().map(|&(near, _)| near).sum();
        assert!(found <= positives);
        let mut best = ThresholdPoint::new(f64::INFINITY, 0, 0, positives);
        let (mut tp, mut fp) = (0, 0);
        for (&Key(score), &(near, distinct)) in self.counts.iter().rev() {
            tp += near;
            fp += distinct;
            let point = ThresholdPoint::new(score, tp, fp, positives);
            if point.scores.f1 > best.scores.f1 {
                best = point;
            }
        }
        let curve = grid
            .iter()
            .map(|&threshold| {
                let (tp, fp) = (self.counts.range(Key(threshold)..))
                    .fold((0, 0), |(tp, fp), (_, &(near, distinct))| {
                        (tp + near, fp + distinct)
                    });
                ThresholdPoint::new(threshold, tp, fp, positives)
            })
            .collect();
        (best, curve)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep of the histogram against the sweep over every pair sorted, on scores with
    /// many ties (a Jaccard estimate of 128 values takes 129).
    #[test]
    fn the_histogram_sweeps_as_every_pair_sorted_would() {
        let mut state = 7u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let pairs: Vec<ScoredPair> = (0..5_000)
            .map(|_| ScoredPair {
                label: next() % 3 == 0,
                score: (next() % 129) as f64 / 128.0,
            })
            .collect();
        let positives = pairs.iter().filter(|p| p.label).count() as u64 + 17;
        let grid: Vec<f64> = (0..=20).map(|i| f64::from(i) * 0.05).collect();
        let (best, curve) = sweep_scores(&pairs, positives, &grid);
        // The reference: every distinct score as a threshold, counted over all pairs.
        let mut thresholds: Vec<f64> = pairs.iter().map(|p| p.score).collect();
        thresholds.sort_by(|a, b| b.total_cmp(a));
        thresholds.dedup();
        let at = |t: f64| {
            let kept = pairs.iter().filter(|p| p.score >= t);
            let tp = kept.clone().filter(|p| p.label).count() as u64;
            ThresholdPoint::new(t, tp, kept.count() as u64 - tp, positives)
        };
        let mut expected = ThresholdPoint::new(f64::INFINITY, 0, 0, positives);
        for &t in &thresholds {
            let point = at(t);
            if point.scores.f1 > expected.scores.f1 {
                expected = point;
            }
        }
        assert_eq!(best, expected);
        assert_eq!(curve, grid.iter().map(|&t| at(t)).collect::<Vec<_>>());
    }

    #[test]
    fn the_best_threshold_separates_the_labels() {
        let pairs = [
            (true, 0.9),
            (true, 0.8),
            (false, 0.5),
            (true, 0.4),
            (false, 0.1),
        ]
        .map(|(label, score)| ScoredPair { label, score });
        // One more positive the first stage missed.
        let (best, curve) = sweep_scores(&pairs, 4, &[0.0, 0.45, 1.0]);
        // At 0.4: 3 of 4 found, 1 of 4 kept wrong (F1 0.75, better than 0.67 at 0.8).
        assert_eq!(best.threshold, 0.4);
        assert_eq!(
            (best.scores.true_positives, best.scores.false_positives),
            (3, 1)
        );
        assert_eq!(best.scores.false_negatives, 1);
        assert_eq!(curve[0].scores.true_positives, 3);
        assert_eq!(curve[0].scores.false_positives, 2);
        assert_eq!(curve[1].scores.true_positives, 2);
        assert_eq!(curve[2].scores.true_positives, 0);
    }
}
