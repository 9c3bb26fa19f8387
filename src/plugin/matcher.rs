//! `Matcher`: the one rule by which the writer, the batch helpers and the CLI decide that two
//! documents are near-duplicates, with or without [`Verification`].

use crate::plugin::signature::jaccard;
use crate::plugin::verification::Score;
use crate::plugin::Verification;

/// Near-duplicates are within `distance` bits, or (with a verification) within its candidate
/// distance with a score at or above its threshold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Matcher {
    distance: u32,
    verify: Option<Rule>,
}

#[derive(Clone, Copy, Debug)]
struct Rule {
    candidate_distance: u32,
    threshold: f64,
    score: Score,
}

impl Matcher {
    /// The rule at `distance`, verified by `verification` if given.
    pub fn new(distance: u32, verification: Option<&Verification>) -> Matcher {
        Matcher {
            distance,
            verify: verification.map(|v| Rule {
                candidate_distance: v.get_candidate_distance(),
                threshold: v.get_threshold(),
                score: v.get_score(),
            }),
        }
    }

    /// The distance at or under which a pair matches whatever its score.
    pub fn distance(&self) -> u32 {
        self.distance
    }

    /// The largest distance at which a pair can match: where candidates are looked for.
    pub fn reach(&self) -> u32 {
        self.verify.map_or(self.distance, |rule| {
            rule.candidate_distance.max(self.distance)
        })
    }

    /// Whether pairs may need signatures to be judged.
    pub fn verifies(&self) -> bool {
        self.verify.is_some()
    }

    /// Whether a pair at Hamming `distance` is judged by its signatures: beyond the
    /// distance, within the candidate distance. [`judge`](Self::judge) ignores the
    /// signatures of any other pair, so a caller may leave them unread.
    pub fn needs_signatures(&self, distance: u32) -> bool {
        self.verify
            .is_some_and(|rule| distance > self.distance && distance <= rule.candidate_distance)
    }

    /// Judges a pair at Hamming `distance` whose signatures are `a` and `b` (when the index
    /// has them): `None` when they are not near-duplicates, else their score (`None`
    /// without verification).
    pub fn judge(
        &self,
        distance: u32,
        a: Option<&[u32]>,
        b: Option<&[u32]>,
    ) -> Option<Option<f64>> {
        if distance > self.reach() {
            return None;
        }
        let score = match (self.verify, a, b) {
            (Some(rule), Some(a), Some(b)) => Some(rule.score.of(distance, jaccard(a, b))),
            _ => None,
        };
        let verified = self.verify.is_some_and(|rule| {
            distance <= rule.candidate_distance && score.is_some_and(|s| s >= rule.threshold)
        });
        (distance <= self.distance || verified).then_some(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verification_adds_to_the_fingerprint_rule() {
        let plain = Matcher::new(3, None);
        assert_eq!(plain.reach(), 3);
        assert_eq!(plain.judge(3, None, None), Some(None));
        assert_eq!(plain.judge(4, None, None), None);

        let verified = Matcher::new(3, Some(&Verification::default().threshold(0.5)));
        assert_eq!(verified.reach(), 16);
        let a = [1, 2, 3, 4];
        let half = [1, 2, 9, 9];
        let quarter = [1, 9, 9, 9];
        assert_eq!(verified.judge(12, Some(&a), Some(&half)), Some(Some(0.5)));
        assert_eq!(verified.judge(12, Some(&a), Some(&quarter)), None);
        assert_eq!(
            verified.judge(17, Some(&a), Some(&a)),
            None,
            "beyond the candidates"
        );
        assert_eq!(
            verified.judge(2, Some(&a), Some(&quarter)),
            Some(Some(0.25)),
            "within the distance, a pair matches whatever its score"
        );
        assert_eq!(
            verified.judge(12, None, Some(&a)),
            None,
            "no signature, no verification"
        );
    }

    #[test]
    fn signatures_are_needed_only_between_the_distance_and_the_candidate_distance() {
        let plain = Matcher::new(3, None);
        assert!((0..=64).all(|d| !plain.needs_signatures(d)));
        let verified = Matcher::new(3, Some(&Verification::default().threshold(0.5)));
        let needed: Vec<u32> = (0..=64).filter(|&d| verified.needs_signatures(d)).collect();
        assert_eq!(needed, (4..=16).collect::<Vec<_>>());
        // Elsewhere the verdict does not depend on the signatures, so they may stay unread.
        let (a, b) = ([1, 2, 3, 4], [1, 2, 3, 4]);
        for d in (0..=64).filter(|&d| !verified.needs_signatures(d)) {
            assert_eq!(
                verified.judge(d, Some(&a), Some(&b)).is_some(),
                verified.judge(d, None, None).is_some(),
                "distance {d}"
            );
        }
    }
}
