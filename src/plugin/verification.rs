//! `Verification`: the second stage of two-stage matching. Candidates are the documents
//! within a loose distance of the fingerprint that share a band of a MinHash signature of
//! their shingles (or, with [`CandidateStage::Scan`], every document within that distance);
//! the signature, kept beside the fingerprint, decides which of them are near-duplicates.
//!
//! Why: a 64-bit SimHash moves 5 to 8 bits for 5% of words edited, so a distance that finds
//! such edits (10 to 16 bits) also finds unrelated texts of one language. The Jaccard
//! estimate of 128 MinHash values tells the two apart; `docs/PARAMETERS.md` has the
//! measurements (F1 0.86–0.88 of SimHash alone against 0.93–0.99 on edited text).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fingerprint::{combined_similarity, DEFAULT_MU};
use crate::text::FeatureKind;

/// Default candidate distance of the first stage: 16 bits, where SimHash still finds 95% of
/// the pairs edited by up to 10% in the evaluation sets (10 bits finds 73 to 77%).
pub const DEFAULT_CANDIDATE_DISTANCE: u32 = 16;

/// Default shingles of the signature: by script, word 2-shingles outside Han text and
/// character 3-grams inside it. Measured against word 2- and 3-shingles and character 3- to
/// 5-grams everywhere (`docs/PARAMETERS.md`, "Two-stage matching"):
/// - English and spam are as with word 2-shingles: character n-grams lose to MinHash LSH on
///   spam campaigns (unrelated messages share more character n-grams than word pairs);
/// - Chinese is as with character 3-grams: word shingles of Chinese need jieba (the
///   signature's largest cost) and break where an edit re-segments a word, so 10% edits were
///   found at 86 to 92% with word 2-shingles at 0.5, and are found at 90 to 97% at 0.55.
pub const DEFAULT_SHINGLES: FeatureKind = FeatureKind::ScriptShingles { words: 2, chars: 3 };

/// Default signature length: 128 values (a standard error of about 0.04 on a Jaccard
/// similarity of 0.3).
pub const DEFAULT_SIGNATURE_HASHES: usize = 128;

/// Default threshold of the Jaccard estimate (see [`Verification::threshold`]): the highest
/// (in steps of 0.05) at which the recall targets on edited text hold in both languages.
pub const DEFAULT_THRESHOLD: f64 = 0.55;

/// Default values per band of the candidate stage ([`CandidateStage::Bands`]): 4, so 32 bands
/// of the default 128 values. A pair whose signatures agree on a fraction `J` of their values
/// shares a band with probability `1 - (1 - J^4)^32`: 0.95 at the default threshold 0.55,
/// 0.988 at 0.6, 0.003 at 0.1 (see [`band_probability`](crate::lookup::band_probability)).
/// Measured: at the default threshold the bands lose 0 to 0.05% of the pairs that every
/// candidate within 16 bits finds (`docs/PARAMETERS.md`).
pub const DEFAULT_BAND_ROWS: usize = 4;

/// Where the second stage's candidates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum CandidateStage {
    /// Every document within the [candidate distance](Verification::candidate_distance):
    /// exact, but the writer compares each new document with every reference (above
    /// [`MAX_TABLE_DISTANCE`](crate::lookup::MAX_TABLE_DISTANCE) bits no block table
    /// narrows them), about a millisecond per million references.
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
    fn legacy() -> CandidateStage {
        CandidateStage::Scan
    }
}

/// How a candidate pair is scored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Score {
    /// The Jaccard estimate of the two signatures (the fraction of equal values).
    Jaccard,
    /// The "improved SimHash" paper's `mu / (hamming + 1) + (1 - mu) * jaccard`.
    Combined {
        /// The weight of the fingerprint distance, in `[0, 1]`.
        mu: f64,
    },
}

impl Score {
    /// The combined similarity with the default `mu` ([`DEFAULT_MU`]).
    pub fn combined() -> Score {
        Score::Combined { mu: DEFAULT_MU }
    }

    /// The score of a pair at Hamming `distance` whose signatures agree on `jaccard`.
    pub fn of(self, distance: u32, jaccard: f64) -> f64 {
        match self {
            Score::Jaccard => jaccard,
            Score::Combined { mu } => combined_similarity(distance, jaccard, mu),
        }
    }
}

/// Two-stage matching settings of an index (see
/// [`DedupSettings::verification`](super::DedupSettings::verification)).
///
/// Two documents are near-duplicates when their fingerprints differ in at most the index's
/// [distance](super::DedupSettings::distance) bits, as without verification, **or** when
/// they differ in at most [`candidate_distance`](Self::candidate_distance) bits, the
/// [`score`](Self::score) of their signatures reaches the [`threshold`](Self::threshold),
/// and (with the default [`CandidateStage::Bands`]) their signatures agree on a whole band.
/// Verification adds what the fingerprints alone miss; it never loses a pair they find.
///
/// The signature (what the shingles and the number of hashes make) is frozen with the index;
/// the candidate stage, the candidate distance, the threshold and the score can change at
/// every open.
///
/// ```
/// use tantivy_dedup::plugin::{DedupSettings, Verification};
///
/// let settings = DedupSettings::new(["body"]).verification(Verification::default().threshold(0.4));
/// assert_eq!(settings.get_verification().unwrap().get_candidate_distance(), 16);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    shingles: FeatureKind,
    hashes: usize,
    #[serde(default = "CandidateStage::legacy")]
    candidates: CandidateStage,
    candidate_distance: u32,
    threshold: f64,
    score: Score,
}

impl Default for Verification {
    /// MinHash of [`DEFAULT_SHINGLES`] (word 2-shingles outside Han text, character 3-grams
    /// inside), 128 values, candidates sharing one of 32 bands of [`DEFAULT_BAND_ROWS`]
    /// values and within 16 bits, Jaccard at least [`DEFAULT_THRESHOLD`].
    fn default() -> Self {
        Verification {
            shingles: DEFAULT_SHINGLES,
            hashes: DEFAULT_SIGNATURE_HASHES,
            candidates: CandidateStage::Bands {
                rows: DEFAULT_BAND_ROWS,
            },
            candidate_distance: DEFAULT_CANDIDATE_DISTANCE,
            threshold: DEFAULT_THRESHOLD,
            score: Score::Jaccard,
        }
    }
}

/// The settings-file paths of what may change between opens.
pub(crate) const RUNTIME_PATHS: [&str; 6] = [
    "verification.candidates.kind",
    "verification.candidates.rows",
    "verification.candidate_distance",
    "verification.threshold",
    "verification.score.kind",
    "verification.score.mu",
];

impl Verification {
    /// The shingles the signature is taken over, tokenized as the fingerprint's features
    /// are. Default [`DEFAULT_SHINGLES`]: word 2-shingles outside Han text (measured better
    /// than character n-grams, which unrelated English messages share more of) and character
    /// 3-grams inside it (better than word shingles on edited Chinese, and no jieba pass).
    #[must_use]
    pub fn shingles(mut self, shingles: FeatureKind) -> Self {
        self.shingles = shingles;
        self
    }

    /// Values per signature, each 4 bytes in the index and in the writer's memory. Default
    /// [`DEFAULT_SIGNATURE_HASHES`].
    #[must_use]
    pub fn hashes(mut self, hashes: usize) -> Self {
        self.hashes = hashes;
        self
    }

    /// Where candidates come from. Default [`CandidateStage::Bands`] of
    /// [`DEFAULT_BAND_ROWS`] values.
    #[must_use]
    pub fn candidates(mut self, candidates: CandidateStage) -> Self {
        self.candidates = candidates;
        self
    }

    /// The loose distance within which candidates are taken. With the default
    /// [`CandidateStage::Bands`] it filters the band hits; with [`CandidateStage::Scan`]
    /// above [`MAX_TABLE_DISTANCE`](crate::lookup::MAX_TABLE_DISTANCE) bits the lookup scans
    /// every fingerprint (a popcount each: about a millisecond per million documents).
    /// Default [`DEFAULT_CANDIDATE_DISTANCE`].
    #[must_use]
    pub fn candidate_distance(mut self, k: u32) -> Self {
        self.candidate_distance = k;
        self
    }

    /// The score at or above which a candidate is a near-duplicate. Default
    /// [`DEFAULT_THRESHOLD`], the highest at which the evaluation sets' edits of up to 10%
    /// are found (80% or more) in English and Chinese at precision 1.000; `tantivy-dedup
    /// eval` shows the best one for labelled pairs of one's own data (0.20 to 0.23 on the
    /// edit sets, 0.77 to 0.81 on the spam campaigns and the man page mirrors).
    #[must_use]
    pub fn threshold(mut self, threshold: f64) -> Self {
        self.threshold = threshold;
        self
    }

    /// How a candidate is scored. Default [`Score::Jaccard`].
    #[must_use]
    pub fn score(mut self, score: Score) -> Self {
        self.score = score;
        self
    }

    /// See [`shingles`](Self::shingles()).
    pub fn get_shingles(&self) -> FeatureKind {
        self.shingles
    }

    /// See [`hashes`](Self::hashes()).
    pub fn get_hashes(&self) -> usize {
        self.hashes
    }

    /// See [`candidates`](Self::candidates()).
    pub fn get_candidates(&self) -> CandidateStage {
        self.candidates
    }

    /// The bands and rows of the candidate stage, when it uses bands.
    pub fn get_bands(&self) -> Option<(usize, usize)> {
        match self.candidates {
            CandidateStage::Scan => None,
            CandidateStage::Bands { rows } => Some((self.hashes / rows.max(1), rows)),
        }
    }

    /// See [`candidate_distance`](Self::candidate_distance()).
    pub fn get_candidate_distance(&self) -> u32 {
        self.candidate_distance
    }

    /// See [`threshold`](Self::threshold()).
    pub fn get_threshold(&self) -> f64 {
        self.threshold
    }

    /// See [`score`](Self::score()).
    pub fn get_score(&self) -> Score {
        self.score
    }

    /// The same signature with the runtime settings of `other`.
    pub(crate) fn with_runtime_of(mut self, other: &Verification) -> Self {
        self.candidates = other.candidates;
        self.candidate_distance = other.candidate_distance;
        self.threshold = other.threshold;
        self.score = other.score;
        self
    }

    /// Checks that every setting is in range.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the first one that is not.
    pub fn validate(&self) -> Result<()> {
        self.shingles.validate()?;
        let invalid = |name, reason: String| Err(Error::InvalidSetting { name, reason });
        if !(1..=4096).contains(&self.hashes) {
            return invalid(
                "verification.hashes",
                format!("{} is not in 1..=4096", self.hashes),
            );
        }
        if let CandidateStage::Bands { rows } = self.candidates {
            if !(1..=self.hashes).contains(&rows) {
                return invalid(
                    "verification.candidates.rows",
                    format!(
                        "{rows} is not in 1..={}, the signature's values",
                        self.hashes
                    ),
                );
            }
        }
        if self.candidate_distance > 64 {
            return invalid(
                "verification.candidate_distance",
                format!(
                    "{} is above 64, the fingerprint's width",
                    self.candidate_distance
                ),
            );
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return invalid(
                "verification.threshold",
                format!("{} is not in [0, 1]", self.threshold),
            );
        }
        if let Score::Combined { mu } = self.score {
            if !(0.0..=1.0).contains(&mu) {
                return invalid("verification.score.mu", format!("{mu} is not in [0, 1]"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_settings_are_named() {
        assert!(Verification::default().validate().is_ok());
        let name = |v: Verification| match v.validate() {
            Err(Error::InvalidSetting { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            name(Verification::default().hashes(0)),
            "verification.hashes"
        );
        assert_eq!(
            name(Verification::default().candidates(CandidateStage::Bands { rows: 0 })),
            "verification.candidates.rows"
        );
        assert_eq!(
            name(Verification::default().candidate_distance(65)),
            "verification.candidate_distance"
        );
        assert_eq!(
            name(Verification::default().threshold(1.5)),
            "verification.threshold"
        );
        assert_eq!(
            name(Verification::default().score(Score::Combined { mu: -0.1 })),
            "verification.score.mu"
        );
    }

    #[test]
    fn scores() {
        assert_eq!(Score::Jaccard.of(9, 0.4), 0.4);
        let combined = Score::combined().of(3, 0.4);
        assert!((combined - (0.85 / 4.0 + 0.15 * 0.4)).abs() < 1e-12);
    }
}
