//! `Judgement`: the rule's verdict on one pair with its reason, for a user asking "are these
//! two texts near-duplicates under this index's rule, and why?"

use super::matcher::Matcher;
use crate::fingerprint::{is_empty_set, shares_band};

/// The verdict of a matching rule on two texts, with the measurements behind it (see
/// [`DedupIndex::judge`](crate::plugin::DedupIndex::judge)).
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// Whether the rule calls the pair near-duplicates.
    pub near: bool,
    /// The Hamming distance of the fingerprints; `None` when a text has no features.
    pub distance: Option<u32>,
    /// The fraction of equal signature values (the Jaccard estimate of their shingle sets),
    /// when the rule verifies and both have signatures.
    pub jaccard: Option<f64>,
    /// Why.
    pub reason: Reason,
}

/// Why a rule judged a pair as it did.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// A text has no features, so no fingerprint: never a near-duplicate.
    NoFingerprint,
    /// Near: the fingerprints are within the distance *k*, and the signatures do not decide
    /// (a text has none, or the index's rule predates their deciding).
    WithinDistance {
        /// The rule's *k*.
        k: u32,
    },
    /// Not near: the fingerprints are further apart than the rule looks (*k*, or the
    /// verification's candidate distance).
    BeyondReach {
        /// The largest distance at which the rule can call a pair near-duplicates.
        reach: u32,
    },
    /// Not near: beyond *k*, and a text's shingle set is empty, so its signature is no
    /// evidence.
    NoSignature,
    /// Not near: beyond *k*, and the signatures agree on no whole band, so the candidate
    /// stage never pairs them.
    NoSharedBand {
        /// Values per band.
        rows: usize,
    },
    /// Not near: the verification's score is under its threshold, at whatever distance.
    BelowThreshold {
        /// The pair's score ([`PairScore`](super::PairScore)).
        score: f64,
        /// The rule's threshold.
        threshold: f64,
    },
    /// Near: a score at or above the threshold, within *k* (where the signatures decide)
    /// or beyond it within the candidate distance.
    Verified {
        /// The pair's score.
        score: f64,
        /// The rule's threshold.
        threshold: f64,
    },
}

impl Matcher {
    /// The judgement of two documents by their fingerprint distance (`None` when one has no
    /// fingerprint) and signatures: what [`judge`](Self::judge) decides, with why.
    pub fn explain(
        &self,
        distance: Option<u32>,
        a: Option<&[u32]>,
        b: Option<&[u32]>,
    ) -> Judgement {
        let jaccard = a.zip(b).map(|(a, b)| self.jaccard(a, b));
        let judgement = |near, reason| Judgement {
            near,
            distance,
            jaccard,
            reason,
        };
        let Some(distance) = distance else {
            return judgement(false, Reason::NoFingerprint);
        };
        fn signed(s: Option<&[u32]>) -> Option<&[u32]> {
            s.filter(|s| !is_empty_set(s))
        }
        let by_score = |a, b| {
            let score = self
                .strength(distance, Some(a), Some(b))
                .expect("a verified candidate has a score");
            let threshold = self.threshold().expect("the rule verifies");
            if score >= threshold {
                judgement(true, Reason::Verified { score, threshold })
            } else {
                judgement(false, Reason::BelowThreshold { score, threshold })
            }
        };
        if distance <= self.distance() {
            return match (signed(a), signed(b)) {
                (Some(a), Some(b)) if self.signatures_decide() => by_score(a, b),
                _ => judgement(true, Reason::WithinDistance { k: self.distance() }),
            };
        }
        if distance > self.reach() || !self.verifies() {
            return judgement(
                false,
                Reason::BeyondReach {
                    reach: self.reach(),
                },
            );
        }
        let (Some(a), Some(b)) = (signed(a), signed(b)) else {
            return judgement(false, Reason::NoSignature);
        };
        if let Some((_, rows)) = self.bands() {
            if !shares_band(a, b, rows) {
                return judgement(false, Reason::NoSharedBand { rows });
            }
        }
        by_score(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::KeptBits;
    use crate::matching::{CandidateStage, Verification};

    proptest::proptest! {
        /// The explanation agrees with `judge` on every pair.
        #[test]
        fn explain_agrees_with_judge(
            distance in proptest::option::weighted(0.9, 0u32..=64),
            signatures in proptest::collection::vec(
                proptest::option::weighted(0.9, proptest::collection::vec(0u32..3, 8)),
                2,
            ),
            bands in proptest::bool::ANY,
            threshold in 0.0f64..1.0,
            decide in proptest::bool::ANY,
        ) {
            let stage = if bands {
                CandidateStage::Bands { rows: 2 }
            } else {
                CandidateStage::Scan
            };
            let verification = Verification::default()
                    .kept_bits(KeptBits::High)
                .hashes(8)
                .candidates(stage)
                .threshold(threshold)
                .signatures_decide(decide);
            for matcher in [Matcher::new(3, Some(&verification)), Matcher::new(3, None)] {
                let (a, b) = (signatures[0].as_deref(), signatures[1].as_deref());
                let explained = matcher.explain(distance, a, b);
                let judged = distance.and_then(|d| matcher.judge(d, a, b)).is_some();
                proptest::prop_assert_eq!(explained.near, judged, "{:?}", explained);
            }
        }
    }

    #[test]
    fn reasons_name_the_deciding_step() {
        let matcher = Matcher::new(
            3,
            Some(
                &Verification::default()
                    .kept_bits(KeptBits::High)
                    .hashes(4)
                    .candidates(CandidateStage::Bands { rows: 2 })
                    .signatures_decide(false),
            ),
        );
        let (a, b, c) = ([1, 2, 3, 4], [1, 2, 9, 9], [9, 2, 9, 4]);
        assert_eq!(
            matcher.explain(None, None, None).reason,
            Reason::NoFingerprint
        );
        assert_eq!(
            matcher.explain(Some(2), None, None).reason,
            Reason::WithinDistance { k: 3 }
        );
        assert_eq!(
            matcher.explain(Some(17), Some(&a), Some(&a)).reason,
            Reason::BeyondReach { reach: 16 }
        );
        assert_eq!(
            matcher.explain(Some(8), Some(&a), None).reason,
            Reason::NoSignature
        );
        assert_eq!(
            matcher.explain(Some(8), Some(&a), Some(&c)).reason,
            Reason::NoSharedBand { rows: 2 }
        );
        let below = matcher.explain(Some(8), Some(&a), Some(&b));
        assert!(matches!(below.reason, Reason::BelowThreshold { score, .. } if score == 0.5));
        assert_eq!(below.jaccard, Some(0.5));
        assert!(!below.near);
        let verified = matcher.explain(Some(8), Some(&a), Some(&a));
        assert!(verified.near && matches!(verified.reason, Reason::Verified { .. }));

        let deciding = Matcher::new(
            3,
            Some(
                &Verification::default()
                    .kept_bits(KeptBits::High)
                    .hashes(4)
                    .candidates(CandidateStage::Bands { rows: 2 }),
            ),
        );
        let framed = deciding.explain(Some(1), Some(&a), Some(&c));
        assert!(
            !framed.near
                && matches!(framed.reason, Reason::BelowThreshold { score, .. } if score == 0.5),
            "{framed:?}"
        );
        assert_eq!(
            deciding.explain(Some(1), Some(&a), None).reason,
            Reason::WithinDistance { k: 3 }
        );
        assert!(matches!(
            deciding.explain(Some(1), Some(&a), Some(&a)).reason,
            Reason::Verified { .. }
        ));
    }
}
