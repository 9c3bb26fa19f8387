//! `Matcher`: the one rule by which the writer, the collector, the batch helpers and `eval`
//! decide that two documents are near-duplicates, with or without [`Verification`].

use super::rule::PairScore;
use super::Verification;
use crate::fingerprint::{jaccard, shares_band};

/// A pair the rule calls near-duplicates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Near {
    /// The verification's score of the pair, when the rule verifies and both documents have
    /// signatures.
    pub similarity: Option<f64>,
}

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
    score: PairScore,
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
    /// has them): [`Near`] when they are near-duplicates, with their score.
    pub fn judge(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> Option<Near> {
        let strength = self.strength(distance, a, b)?;
        let threshold = self.verify.map_or(f64::INFINITY, |rule| rule.threshold);
        (strength >= threshold).then(|| Near {
            similarity: self.score(distance, a, b),
        })
    }

    /// The highest threshold at which the rule calls the pair near-duplicates: infinite
    /// within the distance, the pair's score for a verified candidate (within the candidate
    /// distance, with signatures, sharing a band when the candidates come from bands), and
    /// `None` for a pair no threshold makes near-duplicates. [`judge`](Self::judge) compares
    /// it with the rule's threshold; `eval` sweeps the threshold over it.
    pub fn strength(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> Option<f64> {
        if distance <= self.distance {
            return Some(f64::INFINITY);
        }
        let rule = self.verify?;
        if distance > rule.candidate_distance {
            return None;
        }
        let (a, b) = (a?, b?);
        if let Some((_, rows)) = rule.bands {
            if !shares_band(a, b, rows) {
                return None;
            }
        }
        Some(rule.score.of(distance, jaccard(a, b)))
    }

    /// The pair's score, when the rule verifies, the pair is within its reach and both
    /// signatures are given.
    fn score(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> Option<f64> {
        let rule = self.verify.filter(|_| distance <= self.reach())?;
        Some(rule.score.of(distance, jaccard(a?, b?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::CandidateStage;

    fn near(similarity: Option<f64>) -> Option<Near> {
        Some(Near { similarity })
    }

    /// Verification with every candidate within the distance, to test the scores alone.
    fn scan() -> Verification {
        Verification::default().candidates(CandidateStage::Scan)
    }

    #[test]
    fn verification_adds_to_the_fingerprint_rule() {
        let plain = Matcher::new(3, None);
        assert_eq!(plain.reach(), 3);
        assert_eq!(plain.judge(3, None, None), near(None));
        assert_eq!(plain.judge(4, None, None), None);

        let verified = Matcher::new(3, Some(&scan().threshold(0.5)));
        assert_eq!(verified.reach(), 16);
        let a = [1, 2, 3, 4];
        let half = [1, 2, 9, 9];
        let quarter = [1, 9, 9, 9];
        assert_eq!(verified.judge(12, Some(&a), Some(&half)), near(Some(0.5)));
        assert_eq!(verified.judge(12, Some(&a), Some(&quarter)), None);
        assert_eq!(
            verified.judge(17, Some(&a), Some(&a)),
            None,
            "beyond the candidates"
        );
        assert_eq!(
            verified.judge(2, Some(&a), Some(&quarter)),
            near(Some(0.25)),
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
            near(Some(0.4))
        );
        assert_eq!(
            banded.judge(12, Some(&a), Some(&scattered)),
            None,
            "three values of five agree, but no band"
        );
        assert_eq!(
            banded.judge(3, Some(&a), Some(&scattered)),
            near(Some(0.6)),
            "within the distance no band is needed"
        );
        let scan = Matcher::new(3, Some(&verification.candidates(CandidateStage::Scan)));
        assert_eq!(scan.judge(12, Some(&a), Some(&scattered)), near(Some(0.6)));
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
