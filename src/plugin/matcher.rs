//! `Matcher`: the one rule by which the writer, the batch helpers and the CLI decide that two
//! documents are near-duplicates, with or without [`Verification`].

use crate::plugin::signature::{jaccard, shares_band};
use crate::plugin::verification::Score;
use crate::plugin::Verification;

/// Near-duplicates are within `distance` bits, or (with a verification) within its candidate
/// distance with a score at or above its threshold and, when its candidates come from bands,
/// sharing a band.
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
    /// Bands and values per band, when candidates come from bands.
    bands: Option<(usize, usize)>,
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
                bands: v.get_bands(),
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

    /// The bands and rows of the candidate stage, when it uses bands: then a pair beyond
    /// the distance can only match when it shares a band.
    pub fn bands(&self) -> Option<(usize, usize)> {
        self.verify.and_then(|rule| rule.bands)
    }

    /// The distance within which pairs come from the fingerprints' block tables: the
    /// distance when bands give the candidates beyond it, else the reach.
    pub fn table_distance(&self) -> u32 {
        match self.bands() {
            Some(_) => self.distance,
            None => self.reach(),
        }
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
        let candidate = |rule: Rule| match (rule.bands, a, b) {
            (None, _, _) => true,
            (Some((_, rows)), Some(a), Some(b)) => shares_band(a, b, rows),
            (Some(_), _, _) => false,
        };
        let verified = self.verify.is_some_and(|rule| {
            distance <= rule.candidate_distance
                && score.is_some_and(|s| s >= rule.threshold)
                && candidate(rule)
        });
        (distance <= self.distance || verified).then_some(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::CandidateStage;

    /// Verification with every candidate within the distance, to test the scores alone.
    fn scan() -> Verification {
        Verification::default().candidates(CandidateStage::Scan)
    }

    #[test]
    fn verification_adds_to_the_fingerprint_rule() {
        let plain = Matcher::new(3, None);
        assert_eq!(plain.reach(), 3);
        assert_eq!(plain.judge(3, None, None), Some(None));
        assert_eq!(plain.judge(4, None, None), None);

        let verified = Matcher::new(3, Some(&scan().threshold(0.5)));
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
    fn with_bands_a_verified_pair_shares_a_band() {
        let verification = Verification::default()
            .hashes(5)
            .candidates(CandidateStage::Bands { rows: 2 })
            .threshold(0.4);
        let banded = Matcher::new(3, Some(&verification));
        assert_eq!(banded.bands(), Some((2, 2)));
        // Two bands of two values; the fifth value is in none.
        let a = [1, 2, 3, 4, 5];
        let first_band = [1, 2, 9, 9, 9];
        let scattered = [1, 9, 3, 9, 5];
        assert_eq!(
            banded.judge(12, Some(&a), Some(&first_band)),
            Some(Some(0.4))
        );
        assert_eq!(
            banded.judge(12, Some(&a), Some(&scattered)),
            None,
            "three values of five agree, but no band"
        );
        assert_eq!(
            banded.judge(3, Some(&a), Some(&scattered)),
            Some(Some(0.6)),
            "within the distance no band is needed"
        );
        let scan = Matcher::new(3, Some(&verification.candidates(CandidateStage::Scan)));
        assert_eq!(scan.judge(12, Some(&a), Some(&scattered)), Some(Some(0.6)));
    }

    #[test]
    fn signatures_are_needed_only_between_the_distance_and_the_candidate_distance() {
        let plain = Matcher::new(3, None);
        assert!((0..=64).all(|d| !plain.needs_signatures(d)));
        let verified = Matcher::new(3, Some(&scan().threshold(0.5)));
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
