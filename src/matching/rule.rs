//! The runtime half of the matching settings: [`MatchRule`] (the distance *k*, and the
//! [`VerifyRule`] of two-stage matching), which may change at every open of an index,
//! unlike the fingerprints and signatures it judges.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fingerprint::{
    combined_similarity, jaccard, overlap, KeptBits, DEFAULT_MU, FINGERPRINT_BITS,
};
use crate::lookup::DEFAULT_MAX_DISTANCE;

/// Default candidate distance of the first stage: 16 bits, where SimHash still finds 95% of
/// the pairs edited by up to 10% in the evaluation sets (10 bits finds 73 to 77%).
pub const DEFAULT_CANDIDATE_DISTANCE: u32 = 16;

/// Default threshold of the Jaccard estimate (see [`VerifyRule`]): precision first. The
/// lowest (in steps of 0.05) at which, end to end (`ingest` then `clusters`), no pair of
/// the templated news and spam sets whose word 5-shingle Jaccard is under 0.4 is called
/// near: reports of one frame with other figures (a rate notice of two weeks, the grain
/// ships of two days) agree on 0.7 to 0.78 of their word 2-shingles. Edits of 1 to 5% stay
/// above it; heavier ones are [`Preset::Rewrites`](super::Preset::Rewrites)' to find
/// (`docs/PARAMETERS.md`, "Presets").
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// Default values per band of the candidate stage ([`CandidateStage::Bands`]): 9, so 14 bands
/// of the default 128 values, the rows [`band_rows_for`](crate::lookup::band_rows_for) suits
/// to the default threshold. A pair whose signatures agree on a fraction `J` of their values
/// shares a band with probability `1 - (1 - J^9)^14`: 0.87 at the default threshold 0.8,
/// 0.999 at 0.9, 0.0003 at 0.3 (see [`band_probability`](crate::lookup::band_probability)).
/// Pairs within the distance need no band: the fingerprints' tables find them.
pub const DEFAULT_BAND_ROWS: usize = 9;

/// Where the second stage's candidates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
#[non_exhaustive]
pub enum CandidateStage {
    /// Every document within the [candidate distance](VerifyRule::candidate_distance):
    /// exact, but a writer compares each new document with every reference (above
    /// [`MAX_TABLE_DISTANCE`](crate::lookup::MAX_TABLE_DISTANCE) bits no block table
    /// narrows them).
    Scan,
    /// Documents whose signatures agree on every value of at least one band of `rows`
    /// consecutive values (MinHash LSH): `hashes / rows` bands (values left over are in
    /// none), a lookup of one key per band and document, whatever the size of the index.
    /// The rule then asks of a verified pair that it shares a band too, so the writer, the
    /// collector and the batch helpers still judge alike; a pair of Jaccard estimate `J`
    /// shares one with probability about `1 - (1 - J^rows)^bands`. More rows make the stage
    /// stricter (fewer, surer candidates), more values make more bands.
    Bands {
        /// Values per band.
        rows: usize,
    },
}

impl CandidateStage {
    /// The stage of settings files written before it was a setting: every candidate
    /// within the distance.
    pub(crate) fn legacy() -> CandidateStage {
        CandidateStage::Scan
    }
}

/// How a candidate pair is scored. Not to be confused with `tantivy::Score`, a query's
/// relevance score.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
#[non_exhaustive]
pub enum PairScore {
    /// The Jaccard estimate of the two signatures (the fraction of equal values).
    Jaccard,
    /// The "improved SimHash" paper's `mu / (hamming + 1) + (1 - mu) * jaccard`.
    Combined {
        /// The weight of the fingerprint distance, in `[0, 1]`.
        mu: f64,
    },
    /// The overlap coefficient `|A ∩ B| / min(|A|, |B|)` estimated from the signatures
    /// ([`overlap`](crate::fingerprint::overlap)): how much of the shorter text's shingles
    /// the longer one holds. An article inside a page of navigation and other stories, or
    /// a passage quoted whole in a longer text, scores near 1 where its Jaccard similarity
    /// is the ratio of the lengths. Needs signatures keeping the high bits
    /// ([`KeptBits::High`](crate::fingerprint::KeptBits::High), the default of new
    /// indexes). Containment has no triangle inequality (a page holding two articles
    /// contains both), so the collector proves no hits apart by their signatures: search
    /// through [`DedupCollector::search`](crate::plugin::DedupCollector::search), where
    /// it costs about what Jaccard does; under tantivy's `Searcher::search` every segment
    /// hands over all its hits (hundreds of times `TopDocs` on a common term,
    /// `docs/BENCHMARKS.md`).
    Containment,
}

impl PairScore {
    /// The combined similarity with the default `mu` ([`DEFAULT_MU`]).
    pub fn combined() -> PairScore {
        PairScore::Combined { mu: DEFAULT_MU }
    }

    /// The score of a pair at Hamming `distance` whose signatures agree on `jaccard`. For
    /// [`Containment`](PairScore::Containment), which needs the signatures themselves, the
    /// Jaccard similarity: a lower bound of it.
    pub fn of(self, distance: u32, jaccard: f64) -> f64 {
        match self {
            PairScore::Jaccard | PairScore::Containment => jaccard,
            PairScore::Combined { mu } => combined_similarity(distance, jaccard, mu),
        }
    }

    /// The score of a pair at Hamming `distance` with signatures `a` and `b`, keeping
    /// `bits` of their values.
    pub(crate) fn of_signatures(self, distance: u32, a: &[u32], b: &[u32], bits: KeptBits) -> f64 {
        match self {
            PairScore::Containment => overlap(a, b),
            _ => self.of(distance, jaccard(a, b, bits)),
        }
    }
}

/// How the second stage of two-stage matching finds and judges candidates: the part of a
/// [`Verification`](super::Verification) that may change at every open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerifyRule {
    /// Where candidates come from. Default [`CandidateStage::Bands`] of
    /// [`DEFAULT_BAND_ROWS`] values.
    pub candidates: CandidateStage,
    /// The loose distance within which candidates are taken. Default
    /// [`DEFAULT_CANDIDATE_DISTANCE`].
    pub candidate_distance: u32,
    /// The score at or above which a candidate is a near-duplicate. Default
    /// [`DEFAULT_THRESHOLD`].
    pub threshold: f64,
    /// How a candidate is scored. Default [`PairScore::Jaccard`].
    pub score: PairScore,
    /// Whether the signatures decide every pair, those within the distance *k* too: a pair
    /// is near only when its score reaches the threshold, and *k* only says where the
    /// fingerprints' block tables find candidates. Default `true`. A pair of which a
    /// document has no signature (or an empty shingle set) is judged by its distance alone,
    /// as well as it can be.
    ///
    /// `false` is the rule of settings written before format 6: within *k* a pair is near
    /// whatever its signatures say, so reports of one frame with other figures, whose
    /// SimHashes differ in a bit or two, are near at a signature agreement of 0.3.
    pub signatures_decide: bool,
}

impl Default for VerifyRule {
    fn default() -> Self {
        VerifyRule {
            candidates: CandidateStage::Bands {
                rows: DEFAULT_BAND_ROWS,
            },
            candidate_distance: DEFAULT_CANDIDATE_DISTANCE,
            threshold: DEFAULT_THRESHOLD,
            score: PairScore::Jaccard,
            signatures_decide: true,
        }
    }
}

impl VerifyRule {
    /// Checks that every setting is in range for signatures of `hashes` values.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the first one that is not.
    pub fn validate(&self, hashes: usize) -> Result<()> {
        let invalid = |name, reason: String| Err(Error::InvalidSetting { name, reason });
        if let CandidateStage::Bands { rows } = self.candidates {
            if !(1..=hashes).contains(&rows) {
                return invalid(
                    "verification.candidates.rows",
                    format!("{rows} is not in 1..={hashes}, the signature's values"),
                );
            }
        }
        check_distance("verification.candidate_distance", self.candidate_distance)?;
        if !(0.0..=1.0).contains(&self.threshold) {
            return invalid(
                "verification.threshold",
                format!("{} is not in [0, 1]", self.threshold),
            );
        }
        if let PairScore::Combined { mu } = self.score {
            if !(0.0..=1.0).contains(&mu) {
                return invalid("verification.score.mu", format!("{mu} is not in [0, 1]"));
            }
        }
        Ok(())
    }
}

/// The runtime matching settings: the distance *k* within which two fingerprints are
/// near-duplicates, and, when the index verifies, how the signatures decide.
/// What is stored with an index (the fingerprints and signatures) is judged by it;
/// it may change at every open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchRule {
    /// The Hamming distance at or under which two fingerprints are near-duplicates (with a
    /// verification whose signatures decide, candidates the signatures judge).
    /// Default [`DEFAULT_MAX_DISTANCE`].
    pub distance: u32,
    /// The second stage, when the index keeps signatures.
    pub verify: Option<VerifyRule>,
}

impl Default for MatchRule {
    /// Distance [`DEFAULT_MAX_DISTANCE`], no verification.
    fn default() -> Self {
        MatchRule {
            distance: DEFAULT_MAX_DISTANCE,
            verify: None,
        }
    }
}

/// Checks that `k`, the setting `name`, is a Hamming distance between fingerprints: at most
/// [`FINGERPRINT_BITS`].
///
/// # Errors
/// [`Error::InvalidSetting`] naming it.
pub fn check_distance(name: &'static str, k: u32) -> Result<()> {
    if k <= FINGERPRINT_BITS {
        return Ok(());
    }
    Err(Error::InvalidSetting {
        name,
        reason: format!("{k} is above {FINGERPRINT_BITS}, the fingerprint's width"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores() {
        assert_eq!(PairScore::Jaccard.of(9, 0.4), 0.4);
        let combined = PairScore::combined().of(3, 0.4);
        assert!((combined - (0.85 / 4.0 + 0.15 * 0.4)).abs() < 1e-12);
    }

    #[test]
    fn distances_stop_at_the_fingerprint_width() {
        assert!(check_distance("distance", 64).is_ok());
        match check_distance("distance", 65) {
            Err(Error::InvalidSetting { name, reason }) => {
                assert_eq!(name, "distance");
                assert!(reason.contains("above 64"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
