//! The second stage of two-stage matching: pairs found by their fingerprints at a loose
//! distance, kept when a similarity score reaches a threshold; the threshold swept.

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
    let mut sorted: Vec<ScoredPair> = candidates.to_vec();
    sorted.sort_unstable_by(|x, y| y.score.total_cmp(&x.score));
    assert!(sorted.iter().filter(|p| p.label).count() as u64 <= positives);
    let mut best = ThresholdPoint::new(f64::INFINITY, 0, 0, positives);
    let (mut tp, mut fp) = (0, 0);
    for (i, pair) in sorted.iter().enumerate() {
        if pair.label {
            tp += 1;
        } else {
            fp += 1;
        }
        let last_of_score = sorted.get(i + 1).is_none_or(|next| next.score < pair.score);
        if last_of_score {
            let point = ThresholdPoint::new(pair.score, tp, fp, positives);
            if point.scores.f1 > best.scores.f1 {
                best = point;
            }
        }
    }
    let curve = grid
        .iter()
        .map(|&threshold| {
            let kept = sorted.iter().take_while(|p| p.score >= threshold);
            let (tp, fp) = kept.fold(
                (0, 0),
                |(tp, fp), p| {
                    if p.label {
                        (tp + 1, fp)
                    } else {
                        (tp, fp + 1)
                    }
                },
            );
            ThresholdPoint::new(threshold, tp, fp, positives)
        })
        .collect();
    (best, curve)
}

#[cfg(test)]
mod tests {
    use super::*;

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
