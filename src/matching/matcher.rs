//! `Matcher`: the one rule by which the writer, the collector, the batch helpers and `eval`
//! decide that two documents are near-duplicates, with or without [`Verification`].

use super::rule::PairScore;
use super::Verification;
use crate::fingerprint::{equal_positions, is_empty_set, jaccard, shares_band, KeptBits};

/// A pair the rule calls near-duplicates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Near {
    /// The verification's score of the pair, when the rule verifies and both documents have
    /// signatures.
    pub similarity: Option<f64>,
}

/// Near-duplicates are within `distance` bits (with a verification whose signatures decide,
/// and signatures on both sides, with a score at or above its threshold), or (with a
/// verification) within its candidate distance with a score at or above its threshold and,
/// when its candidates come from bands, sharing a band.
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
    /// Whether pairs within the distance are judged by their signatures too.
    decides: bool,
    /// The bits the signatures keep of each value, on which their Jaccard estimate depends.
    bits: KeptBits,
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
                decides: v.get_signatures_decide(),
                bits: v.get_kept_bits(),
            }),
        }
    }

    /// The distance within which pairs come from the fingerprints: at or under it a pair
    /// matches whatever its score, unless the signatures decide.
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

    /// The verification's threshold, when the rule verifies.
    pub fn threshold(&self) -> Option<f64> {
        self.verify.map(|rule| rule.threshold)
    }

    /// Whether pairs may need signatures to be judged.
    pub fn verifies(&self) -> bool {
        self.verify.is_some()
    }

    /// Whether the signatures decide the pairs within the distance too.
    pub fn signatures_decide(&self) -> bool {
        self.verify.is_some_and(|rule| rule.decides)
    }

    /// Whether a pair at Hamming `distance` is judged by its signatures: within the
    /// candidate distance, and beyond the distance unless the signatures decide.
    /// [`judge`](Self::judge) ignores the signatures of any other pair, so a caller may
    /// leave them unread.
    pub fn needs_signatures(&self, distance: u32) -> bool {
        self.verify.is_some_and(|rule| {
            let within = distance <= self.distance;
            (within && rule.decides) || (!within && distance <= rule.candidate_distance)
        })
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

    /// The highest threshold at which the rule calls the pair near-duplicates: the pair's
    /// score for a verified candidate (within the candidate distance, with signatures,
    /// sharing a band when the candidates come from bands, or within the distance when the
    /// signatures decide), infinite for any other pair within the distance, and `None` for a
    /// pair no threshold makes near-duplicates. [`judge`](Self::judge) compares it with the
    /// rule's threshold; `eval` sweeps the threshold over it.
    pub fn strength(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> Option<f64> {
        if distance <= self.distance {
            return Some(match (self.verify, a, b) {
                (Some(rule), Some(a), Some(b))
                    if rule.decides && !is_empty_set(a) && !is_empty_set(b) =>
                {
                    rule.score.of_signatures(distance, a, b, rule.bits)
                }
                // No signature to decide by: the distance alone, as well as it can be judged.
                _ => f64::INFINITY,
            });
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
        Some(rule.score.of_signatures(distance, a, b, rule.bits))
    }

    /// The test of whether no document can be a near-duplicate of both of two documents
    /// (see [`Separation`]), for signatures of `n` values.
    pub fn separation(&self, n: usize) -> Separation {
        let reach2 = 2 * self.reach();
        let no_signatures = Separation {
            reach2,
            zone_start: reach2,
            unsigned_reach: reach2,
            n,
            least: 0,
        };
        let Some(rule) = self.verify else {
            return no_signatures;
        };
        let Some(least) = self.least_agreement(n) else {
            // A page holding two distinct articles contains both: signatures prove no pair
            // apart, only the distance does.
            return no_signatures;
        };
        // A pair one of whose documents has no signature is near only within the distance,
        // so a document near both of two signed ones is, when it has no signature, within
        // the distance of each; with one, the signatures decide both matches, or (under the
        // earlier rule) one within the distance needs none.
        let unsigned_reach = self.distance + self.reach();
        let zone_start = if rule.decides {
            2 * self.distance
        } else {
            unsigned_reach
        };
        Separation {
            reach2,
            zone_start: zone_start.min(reach2),
            unsigned_reach,
            n,
            least,
        }
    }

    /// The fewest equal positions of two signatures of `n` values with which a pair the
    /// signatures judge (beyond the distance, or at any distance when they decide) can be
    /// near-duplicates (`n + 1` when none can): a pair whose signatures agree on fewer
    /// positions, or on at most as many as some upper bound below it, is not near. `None`
    /// when the rule does not verify or scores containment, which no count of equal
    /// positions bounds.
    pub fn least_agreement(&self, n: usize) -> Option<usize> {
        let rule = self
            .verify
            .filter(|rule| rule.score != PairScore::Containment)?;
        // At the nearest distance the signatures judge, where a score is highest, and the
        // score does not fall as the agreement grows.
        let nearest = if rule.decides { 0 } else { self.distance + 1 };
        let reaches = |equal: usize| {
            let jaccard = if n == 0 {
                0.0
            } else {
                rule.bits.jaccard(equal as f64 / n as f64)
            };
            rule.score.of(nearest, jaccard) >= rule.threshold
        };
        Some((0..=n).find(|&equal| reaches(equal)).unwrap_or(n + 1))
    }

    /// The pair's score, when the rule verifies, the pair is within its reach and both
    /// signatures are given.
    fn score(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> Option<f64> {
        let rule = self.verify.filter(|_| distance <= self.reach())?;
        Some(rule.score.of_signatures(distance, a?, b?, rule.bits))
    }

    /// The Jaccard estimate of two signatures of the rule's index (of 32-bit values when
    /// the rule does not verify): what reports give as a pair's similarity.
    pub fn jaccard(&self, a: &[u32], b: &[u32]) -> f64 {
        let bits = self.verify.map_or(KeptBits::High, |rule| rule.bits);
        jaccard(a, b, bits)
    }
}

/// Whether no document can be a near-duplicate of both `p` and `q`, two documents some
/// bits apart: the test of a packing, whose members the greedy walk never hides with one
/// shown hit. Worked out once by [`Matcher::separation`] for signatures of `n` values.
///
/// A document `h` near both is within the reach of each, so `p` and `q` are within twice
/// the reach. Beyond that, by how `h` matches them: both unverified (within *k*) puts them
/// within `2k`; one unverified and one verified, within `k` plus the reach; both verified
/// needs both signatures, each agreeing with `h`'s on at least `e` of `n` positions (the
/// fewest with which a verified pair can reach the threshold), so that `p` and `q` agree on
/// at least `2e - n` positions. A match is unverified when a side has no signature, and,
/// unless the signatures decide, whenever it is within *k*. So a pair of which one lacks a
/// signature is separated beyond `k` plus the reach, and two signed ones whose signatures
/// agree on fewer positions beyond `2k` when the signatures decide (`h` has none, or
/// verifies both), beyond `k` plus the reach when they do not. The bands only narrow what
/// matches, so the test holds with them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Separation {
    /// Twice the reach: any pair further apart is separated.
    reach2: u32,
    /// Pairs of signed documents further apart than this (and within `reach2`) are
    /// separated by their signatures; closer ones never.
    zone_start: u32,
    /// Pairs further apart than this of which a document has no signature are separated.
    unsigned_reach: u32,
    /// Values per signature.
    n: usize,
    /// The fewest equal positions with which a verified pair matches (0 when the rule
    /// does not verify, `n + 1` when no verified pair can match).
    least: usize,
}

impl Separation {
    /// Whether [`separates`](Self::separates) looks at the signatures of a pair at
    /// `distance`.
    #[inline]
    pub fn needs_signatures(&self, distance: u32) -> bool {
        distance > self.zone_start && distance <= self.reach2
    }

    /// Whether no document is near both of two documents `distance` bits apart, whose
    /// signatures (of `n` values) are `a` and `b`. Signatures are looked at only where
    /// [`needs_signatures`](Self::needs_signatures) says.
    pub fn separates(&self, distance: u32, a: Option<&[u32]>, b: Option<&[u32]>) -> bool {
        if distance > self.reach2 {
            return true;
        }
        if !self.needs_signatures(distance) {
            return false;
        }
        // A document without a signature is near another only within k; an empty set's
        // agrees with nothing, so it is verified only where no agreement is needed.
        let verifiable = |s: &[u32]| s.len() == self.n && (self.least == 0 || !is_empty_set(s));
        match (a, b) {
            (Some(a), Some(b)) if verifiable(a) && verifiable(b) => {
                (equal_positions(a, b) as i64) < 2 * self.least as i64 - self.n as i64
            }
            _ => distance > self.unsigned_reach,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::EMPTY;
    use crate::matching::{CandidateStage, PairScore};

    fn near(similarity: Option<f64>) -> Option<Near> {
        Some(Near { similarity })
    }

    /// Verification with every candidate within the distance, to test the scores alone.
    fn scan() -> Verification {
        Verification::default()
            .kept_bits(KeptBits::High)
            .candidates(CandidateStage::Scan)
    }

    #[test]
    fn signatures_decide_within_the_distance_too() {
        let matcher = Matcher::new(3, Some(&scan().threshold(0.5)));
        assert!(matcher.signatures_decide());
        let a = [1, 2, 3, 4];
        let half = [1, 2, 9, 9];
        let quarter = [1, 9, 9, 9];
        assert_eq!(
            matcher.judge(1, Some(&a), Some(&quarter)),
            None,
            "a bit apart, signatures that disagree: reports of one frame"
        );
        assert_eq!(matcher.judge(0, Some(&a), Some(&half)), near(Some(0.5)));
        assert_eq!(matcher.strength(2, Some(&a), Some(&quarter)), Some(0.25));
        assert_eq!(
            matcher.judge(2, None, Some(&a)),
            near(None),
            "without a signature the distance judges, as well as it can"
        );
        let empty = [EMPTY; 4];
        assert_eq!(
            matcher.judge(2, Some(&empty), Some(&a)),
            near(Some(0.0)),
            "an empty set's signature is no evidence"
        );
        let needed: Vec<u32> = (0..=64).filter(|&d| matcher.needs_signatures(d)).collect();
        assert_eq!(needed, (0..=16).collect::<Vec<_>>());
        // Within the distance, bands need not be shared: the tables find those pairs.
        let banded = Matcher::new(
            3,
            Some(
                &Verification::default()
                    .kept_bits(KeptBits::High)
                    .hashes(4)
                    .candidates(CandidateStage::Bands { rows: 2 })
                    .threshold(0.5),
            ),
        );
        assert_eq!(
            banded.judge(2, Some(&a), Some(&[1, 9, 3, 9])),
            near(Some(0.5))
        );
    }

    #[test]
    fn a_byte_a_value_needs_the_chance_agreements_beyond_the_threshold() {
        // 128 values of a byte: a pair reaches 0.5 on 65 equal values, not 64, since 1 in
        // 256 of the others agree by chance.
        let byte = scan().kept_bits(KeptBits::LowByte).threshold(0.5);
        let matcher = Matcher::new(3, Some(&byte));
        assert_eq!(matcher.least_agreement(128), Some(65));
        let a: Vec<u32> = (0..128).map(|i| i % 256).collect();
        let mut b = a.clone();
        b[64..].iter_mut().for_each(|v| *v += 1);
        let score = matcher.strength(0, Some(&a), Some(&b)).unwrap();
        assert!(score < 0.5, "{score}");
        assert_eq!(matcher.jaccard(&a, &a), 1.0);
    }

    #[test]
    fn verification_adds_to_the_fingerprint_rule() {
        let plain = Matcher::new(3, None);
        assert_eq!(plain.reach(), 3);
        assert_eq!(plain.judge(3, None, None), near(None));
        assert_eq!(plain.judge(4, None, None), None);

        // The rule of settings before format 6: within k, near whatever the signatures say.
        let verified = Matcher::new(3, Some(&scan().threshold(0.5).signatures_decide(false)));
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
            .kept_bits(KeptBits::High)
            .hashes(5)
            .candidates(CandidateStage::Bands { rows: 2 })
            .threshold(0.4)
            .signatures_decide(false);
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
        let verified = Matcher::new(3, Some(&scan().threshold(0.5).signatures_decide(false)));
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// A separated pair has no document near both: `h` is drawn between `p` and `q`
        /// (its fingerprint takes some of the bits in which they differ from each, its
        /// signature some values from each), where a document near both is likeliest.
        #[test]
        fn no_document_is_near_both_of_a_separated_pair(
            (p, q, mask, noise) in (0u64..256, 0u64..256, 0u64..256, 0u64..4),
            signatures in proptest::collection::vec(
                proptest::option::weighted(0.9, proptest::collection::vec(0u32..3, 8)),
                2,
            ),
            mix in proptest::collection::vec(0u8..3, 8),
            rule in 0usize..4,
            threshold in 0.0f64..1.0,
            decide in proptest::bool::ANY,
        ) {
            let verification = Verification::default()
                    .kept_bits(KeptBits::High)
                .hashes(8)
                .candidate_distance(3)
                .signatures_decide(decide);
            let verification = match rule {
                0 => verification.candidates(CandidateStage::Scan),
                1 => verification.candidates(CandidateStage::Bands { rows: 2 }),
                2 => verification
                    .candidates(CandidateStage::Scan)
                    .score(PairScore::Combined { mu: 0.5 }),
                _ => verification.candidates(CandidateStage::Scan).candidate_distance(1),
            };
            let matcher = Matcher::new(1, Some(&verification.threshold(threshold)));
            let (sp, sq) = (signatures[0].as_deref(), signatures[1].as_deref());
            let separation = matcher.separation(8);
            let h = p ^ ((p ^ q) & mask) ^ noise;
            let sh: Option<Vec<u32>> = sp.zip(sq).map(|(sp, sq)| {
                (0..8).map(|i| [sp[i], sq[i], 9][usize::from(mix[i])]).collect()
            });
            let distance = |x: u64, y: u64| (x ^ y).count_ones();
            if separation.separates(distance(p, q), sp, sq) {
                let near_p = matcher.judge(distance(h, p), sh.as_deref(), sp).is_some();
                let near_q = matcher.judge(distance(h, q), sh.as_deref(), sq).is_some();
                proptest::prop_assert!(!(near_p && near_q));
            }
        }
    }

    #[test]
    fn unrelated_signatures_separate_what_the_fingerprints_cannot() {
        let matcher = Matcher::new(
            3,
            Some(
                &Verification::default()
                    .kept_bits(KeptBits::High)
                    .hashes(4)
                    .signatures_decide(false),
            ),
        );
        let separation = matcher.separation(4);
        let (a, b) = ([1, 2, 3, 4], [5, 6, 7, 8]);
        assert!(
            separation.separates(33, None, None),
            "beyond twice the reach"
        );
        assert!(
            !separation.separates(19, Some(&a), Some(&b)),
            "within k + 16"
        );
        assert!(separation.needs_signatures(20) && separation.needs_signatures(32));
        assert!(!separation.needs_signatures(33));
        assert!(separation.separates(20, Some(&a), Some(&b)));
        assert!(
            separation.separates(20, None, Some(&a)),
            "no signature, no verification"
        );
        assert!(
            !separation.separates(20, Some(&a), Some(&a)),
            "the same: one h near both"
        );
        // When the signatures decide, they separate two signed documents from twice k on;
        // one without a signature still only beyond k plus the reach.
        let deciding = Matcher::new(
            3,
            Some(&Verification::default().kept_bits(KeptBits::High).hashes(4)),
        )
        .separation(4);
        assert!(deciding.needs_signatures(7) && !deciding.needs_signatures(6));
        assert!(deciding.separates(7, Some(&a), Some(&b)));
        assert!(!deciding.separates(7, Some(&a), Some(&a)));
        assert!(!deciding.separates(19, None, Some(&a)));
        assert!(deciding.separates(20, None, Some(&a)));
        let plain = Matcher::new(3, None).separation(4);
        assert!(!plain.needs_signatures(7));
        assert!(plain.separates(7, None, None) && !plain.separates(6, None, None));
    }
}
