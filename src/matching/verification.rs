//! [`Verification`]: the second stage of two-stage matching as an index is set up with it:
//! the signature it stores (shingles, values) and the [`VerifyRule`] it is judged by.
//! Candidates are the documents within a loose distance of the fingerprint that share a
//! band of a MinHash signature of their shingles (or, with [`CandidateStage::Scan`], every
//! document within that distance); the signature, kept beside the fingerprint, decides
//! which of them are near-duplicates.
//!
//! Why: a 64-bit SimHash moves 5 to 8 bits for 5% of words edited, so a distance that finds
//! such edits (10 to 16 bits) also finds unrelated texts of one language. The Jaccard
//! estimate of 128 MinHash values tells the two apart; `docs/PARAMETERS.md` has the
//! measurements (F1 0.86–0.88 of SimHash alone against 0.93–0.99 on edited text).

use serde::{Deserialize, Serialize};

use super::rule::{CandidateStage, PairScore, VerifyRule};
#[cfg(doc)]
use super::rule::{DEFAULT_BAND_ROWS, DEFAULT_CANDIDATE_DISTANCE, DEFAULT_THRESHOLD};
use crate::error::{Error, Result};
use crate::fingerprint::{KeptBits, ShingleHashing, ShingleWeights, FINGERPRINT_BITS};
use crate::text::FeatureKind;

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

/// The fewest values of a signature of [`KeptBits::LowByte`]: with fewer, its stored form
/// would have as many column values as another form's, which a read tells apart by that
/// count.
pub const MIN_BYTE_HASHES: usize = 3;

/// Two-stage matching settings of an index (see
/// [`DedupSettings::matching`](crate::plugin::DedupSettings::matching)).
///
/// The signatures decide: two documents are near-duplicates when the
/// [`score`](Self::score) of their signatures reaches the [`threshold`](Self::threshold)
/// and their fingerprints differ in at most the index's
/// [distance](crate::matching::MatchingSettings::distance) bits, or in at most
/// [`candidate_distance`](Self::candidate_distance) bits with signatures that (with the
/// default [`CandidateStage::Bands`]) agree on a whole band. The fingerprints find the
/// candidates; their distance never overrules the signatures, so two reports of one frame
/// with other figures, a bit apart, stay apart when their shingles do. A pair of which a
/// document has no signature is near within the distance, as without verification.
/// Settings written before format 6 keep their rule, under which a pair within the
/// distance is near whatever its signatures say ([`signatures_decide`](Self::signatures_decide)).
///
/// The signature (what the shingles and the number of hashes make) is frozen with the index;
/// its [`rule`](Self::rule) (the candidate stage, the candidate distance, the threshold and
/// the score) can change at every open.
///
/// ```
/// use tantivy_dedup::matching::{MatchingSettings, Verification};
///
/// let settings = MatchingSettings::default().verification(Verification::default().threshold(0.4));
/// assert_eq!(settings.get_verification().unwrap().get_candidate_distance(), 16);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "VerificationFile", into = "VerificationFile")]
pub struct Verification {
    shingles: FeatureKind,
    hashes: usize,
    shingle_hashing: ShingleHashing,
    kept_bits: KeptBits,
    /// The identity of the [`ShingleWeights`](crate::fingerprint::ShingleWeights) table the
    /// shingles are weighted by; every shingle alike without.
    weights: Option<String>,
    rule: VerifyRule,
}

impl Default for Verification {
    /// MinHash of [`DEFAULT_SHINGLES`] (word 2-shingles outside Han text, character 3-grams
    /// inside) hashed by [`ShingleHashing::Words`], [`DEFAULT_SIGNATURE_HASHES`] values,
    /// judged by [`VerifyRule::default`].
    fn default() -> Self {
        Verification {
            shingles: DEFAULT_SHINGLES,
            hashes: DEFAULT_SIGNATURE_HASHES,
            shingle_hashing: ShingleHashing::Words,
            kept_bits: KeptBits::LowByte,
            weights: None,
            rule: VerifyRule::default(),
        }
    }
}

/// A [`Verification`] as the settings file holds it: one flat object, its fields checked.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VerificationFile {
    shingles: FeatureKind,
    hashes: usize,
    /// Absent from files of format 2 and earlier, whose signatures hashed a shingle's text.
    #[serde(default = "text_hashing")]
    shingle_hashing: ShingleHashing,
    /// Absent from files of format 3 and earlier, whose signatures kept the low bits.
    #[serde(default = "low_bits")]
    kept_bits: KeptBits,
    /// Absent from files of format 7 and earlier, and from those whose signatures weight
    /// every shingle alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weights: Option<String>,
    /// Absent from files written before the candidate stage was a setting, whose rule took
    /// every candidate within the distance.
    #[serde(default = "CandidateStage::legacy")]
    candidates: CandidateStage,
    candidate_distance: u32,
    threshold: f64,
    score: PairScore,
    /// Absent from files of format 5 and earlier, whose rule called every pair within the
    /// distance near.
    #[serde(default)]
    signatures_decide: bool,
}

/// The bits kept by signatures written before [`KeptBits`] was a setting.
fn low_bits() -> KeptBits {
    KeptBits::Low
}

/// The hashing of signatures written before [`ShingleHashing`] was a setting.
fn text_hashing() -> ShingleHashing {
    ShingleHashing::Text
}

impl From<VerificationFile> for Verification {
    fn from(file: VerificationFile) -> Self {
        Verification {
            shingles: file.shingles,
            hashes: file.hashes,
            shingle_hashing: file.shingle_hashing,
            kept_bits: file.kept_bits,
            weights: file.weights,
            rule: VerifyRule {
                candidates: file.candidates,
                candidate_distance: file.candidate_distance,
                threshold: file.threshold,
                score: file.score,
                signatures_decide: file.signatures_decide,
            },
        }
    }
}

impl From<Verification> for VerificationFile {
    fn from(verification: Verification) -> Self {
        let VerifyRule {
            candidates,
            candidate_distance,
            threshold,
            score,
            signatures_decide,
        } = verification.rule;
        VerificationFile {
            shingles: verification.shingles,
            hashes: verification.hashes,
            shingle_hashing: verification.shingle_hashing,
            kept_bits: verification.kept_bits,
            weights: verification.weights,
            candidates,
            candidate_distance,
            threshold,
            score,
            signatures_decide,
        }
    }
}

impl Verification {
    /// Two-stage matching for a text inside a longer one (an article in a page of
    /// navigation and other stories, a passage quoted whole): candidates scored by
    /// [`PairScore::Containment`], at any distance (an embedding moves the fingerprint far)
    /// from bands of 2 values (it shares few of the page's shingles: a pair of Jaccard
    /// similarity 0.2 shares one of the 64 bands with probability 0.93), the default
    /// threshold. What `--score containment` takes for the options it is not given.
    pub fn containment() -> Verification {
        Verification::default()
            .kept_bits(KeptBits::High)
            .score(PairScore::Containment)
            .candidates(CandidateStage::Bands { rows: 2 })
            .candidate_distance(FINGERPRINT_BITS)
    }

    /// The shingles the signature is taken over, tokenized as the fingerprint's features
    /// are. Default [`DEFAULT_SHINGLES`]: word 2-shingles outside Han text (measured better
    /// than character n-grams, which unrelated English messages share more of) and character
    /// 3-grams inside it (better than word shingles on edited Chinese, and no jieba pass).
    #[must_use]
    pub fn shingles(mut self, shingles: FeatureKind) -> Self {
        self.shingles = shingles;
        self
    }

    /// Values per signature, each a byte in the index by default (4 bytes with 32
    /// [`kept_bits`](Self::kept_bits)). Default [`DEFAULT_SIGNATURE_HASHES`].
    #[must_use]
    pub fn hashes(mut self, hashes: usize) -> Self {
        self.hashes = hashes;
        self
    }

    /// How a shingle of several words is hashed. Default [`ShingleHashing::Words`]; an index
    /// created by a tantivy-dedup whose settings format was 2 or earlier hashes by
    /// [`ShingleHashing::Text`] (its settings say so when read back).
    #[must_use]
    pub fn shingle_hashing(mut self, hashing: ShingleHashing) -> Self {
        self.shingle_hashing = hashing;
        self
    }

    /// Which bits of each value the signature keeps. Default [`KeptBits::LowByte`], a byte
    /// a value (128 bytes a signature by default); [`KeptBits::High`] keeps 32 bits, with
    /// which a signature also estimates its set's size, as [`PairScore::Containment`]
    /// needs. An index created by a tantivy-dedup whose settings format was 3 or earlier
    /// keeps [`KeptBits::Low`], one of formats 4 to 6 [`KeptBits::High`] (their settings
    /// say so when read back).
    #[must_use]
    pub fn kept_bits(mut self, bits: KeptBits) -> Self {
        self.kept_bits = bits;
        self
    }

    /// Weights the shingles by the [`ShingleWeights`](crate::fingerprint::ShingleWeights)
    /// table of this [`identity`](crate::fingerprint::ShingleWeights::identity): the
    /// signatures then estimate the weighted Jaccard similarity, in which the shingles of
    /// many documents (a frame, a header, boilerplate) count less than a document's own.
    /// Default `None`: every shingle alike. Set by
    /// [`DedupSettings::shingle_weights`](crate::plugin::DedupSettings::shingle_weights),
    /// which also keeps the table with the index; frozen with the signature.
    #[must_use]
    pub fn weights(mut self, identity: Option<String>) -> Self {
        self.weights = identity;
        self
    }

    /// Where candidates come from. Default [`CandidateStage::Bands`] of
    /// [`DEFAULT_BAND_ROWS`] values.
    #[must_use]
    pub fn candidates(mut self, candidates: CandidateStage) -> Self {
        self.rule.candidates = candidates;
        self
    }

    /// The loose distance within which candidates are taken. With the default
    /// [`CandidateStage::Bands`] it filters the band hits; with [`CandidateStage::Scan`]
    /// above [`MAX_TABLE_DISTANCE`](crate::lookup::MAX_TABLE_DISTANCE) bits the lookup scans
    /// every fingerprint (a popcount each).
    /// Default [`DEFAULT_CANDIDATE_DISTANCE`].
    #[must_use]
    pub fn candidate_distance(mut self, k: u32) -> Self {
        self.rule.candidate_distance = k;
        self
    }

    /// The score at or above which a candidate is a near-duplicate. Default
    /// [`DEFAULT_THRESHOLD`], precision first: no report of one frame with other figures
    /// called near on the templated news set; [`Preset::Rewrites`](super::Preset::Rewrites)
    /// takes 0.18 for heavy rewrites. `tantivy-dedup eval` shows the best one for labelled
    /// pairs of one's own data (0.20 to 0.23 on the edit sets, 0.77 to 0.81 on the spam
    /// campaigns and the man page mirrors). With bands,
    /// a threshold far from the default wants bands of other lengths:
    /// [`band_rows_for`](crate::lookup::band_rows_for) gives them.
    #[must_use]
    pub fn threshold(mut self, threshold: f64) -> Self {
        self.rule.threshold = threshold;
        self
    }

    /// How a candidate is scored. Default [`PairScore::Jaccard`].
    #[must_use]
    pub fn score(mut self, score: PairScore) -> Self {
        self.rule.score = score;
        self
    }

    /// Whether the signatures decide the pairs within the distance too (see
    /// [`VerifyRule::signatures_decide`]). Default `true`; `false` is the rule of settings
    /// written before format 6, which an index created with them keeps.
    #[must_use]
    pub fn signatures_decide(mut self, decide: bool) -> Self {
        self.rule.signatures_decide = decide;
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

    /// See [`shingle_hashing`](Self::shingle_hashing()).
    pub fn get_shingle_hashing(&self) -> ShingleHashing {
        self.shingle_hashing
    }

    /// See [`kept_bits`](Self::kept_bits()).
    pub fn get_kept_bits(&self) -> KeptBits {
        self.kept_bits
    }

    /// See [`weights`](Self::weights()).
    pub fn get_weights(&self) -> Option<&str> {
        self.weights.as_deref()
    }

    /// See [`candidates`](Self::candidates()).
    pub fn get_candidates(&self) -> CandidateStage {
        self.rule.candidates
    }

    /// The bands and rows of the candidate stage, when it uses bands.
    pub fn get_bands(&self) -> Option<(usize, usize)> {
        match self.rule.candidates {
            CandidateStage::Scan => None,
            CandidateStage::Bands { rows } => Some((self.hashes / rows.max(1), rows)),
        }
    }

    /// See [`candidate_distance`](Self::candidate_distance()).
    pub fn get_candidate_distance(&self) -> u32 {
        self.rule.candidate_distance
    }

    /// See [`threshold`](Self::threshold()).
    pub fn get_threshold(&self) -> f64 {
        self.rule.threshold
    }

    /// See [`score`](Self::score()).
    pub fn get_score(&self) -> PairScore {
        self.rule.score
    }

    /// See [`signatures_decide`](Self::signatures_decide()).
    pub fn get_signatures_decide(&self) -> bool {
        self.rule.signatures_decide
    }

    /// The part that may change at every open: how candidates are found and judged.
    pub fn rule(&self) -> VerifyRule {
        self.rule
    }

    /// The same signature, judged by `rule`.
    #[must_use]
    pub fn with_rule(mut self, rule: VerifyRule) -> Self {
        self.rule = rule;
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
        if self.rule.score == PairScore::Containment && !self.kept_bits.estimates_size() {
            return invalid(
                "verification.score",
                format!(
                    "containment needs signatures that keep the high 32 bits (kept_bits \
                     \"high\"), and this one keeps {}: create the index for containment \
                     (--score containment at creation) to use it",
                    serde_json::to_string(&self.kept_bits).unwrap_or_default()
                ),
            );
        }
        if self.rule.score == PairScore::Containment && self.weights.is_some() {
            return invalid(
                "verification.score",
                "containment estimates the sets' sizes from plain signatures, and this one \
                 weights its shingles: create the index without shingle weights to use it"
                    .to_owned(),
            );
        }
        if self.kept_bits == KeptBits::LowByte && self.hashes < MIN_BYTE_HASHES {
            return invalid(
                "verification.hashes",
                format!(
                    "signatures of a byte a value need at least {MIN_BYTE_HASHES} values, \
                     not {}",
                    self.hashes
                ),
            );
        }
        self.rule.validate(self.hashes)
    }
}

/// Checks that the signatures of `verification` can be computed with `table`: the table
/// they name is the one given, and a table given is named.
///
/// # Errors
/// [`Error::InvalidSetting`] (`verification.weights`) when they differ.
pub(crate) fn check_shingle_weights(
    verification: Option<&Verification>,
    table: Option<&ShingleWeights>,
) -> Result<()> {
    let named = verification.and_then(Verification::get_weights);
    let given = table.map(ShingleWeights::identity);
    let reason = match (named, given) {
        (None, None) => return Ok(()),
        (Some(named), Some(given)) if named == given => return Ok(()),
        (_, Some(_)) if verification.is_none() => return Ok(()),
        (Some(named), None) => format!(
            "the signatures weight their shingles by the table {named:?}, which is not there: \
             open the index whose directory keeps it, or give the table"
        ),
        (None, Some(given)) => {
            format!("the table {given:?} is given, and the signatures name no table")
        }
        (Some(named), Some(given)) => {
            format!("the signatures weight their shingles by {named:?}, not by {given:?}")
        }
    };
    Err(Error::InvalidSetting {
        name: "verification.weights",
        reason,
    })
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
            name(Verification::default().score(PairScore::Combined { mu: -0.1 })),
            "verification.score.mu"
        );
        assert_eq!(
            name(
                Verification::default()
                    .kept_bits(KeptBits::Low)
                    .score(PairScore::Containment)
            ),
            "verification.score"
        );
        assert!(Verification::containment().validate().is_ok());
        assert_eq!(
            name(Verification::default().score(PairScore::Containment)),
            "verification.score",
            "a byte a value cannot estimate containment"
        );
        assert_eq!(
            name(Verification::default().hashes(2)),
            "verification.hashes"
        );
        assert_eq!(
            name(Verification::containment().weights(Some("idf-1-0".into()))),
            "verification.score",
            "weighted signatures cannot estimate containment"
        );
    }

    #[test]
    fn the_settings_file_keeps_one_flat_object() {
        let json = serde_json::to_value(Verification::default()).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "candidate_distance",
                "candidates",
                "hashes",
                "kept_bits",
                "score",
                "shingle_hashing",
                "shingles",
                "signatures_decide",
                "threshold"
            ]
        );
        let mut unknown = json.clone();
        unknown["typo"] = 1.into();
        assert!(serde_json::from_value::<Verification>(unknown).is_err());
        let back: Verification = serde_json::from_value(json).unwrap();
        assert_eq!(back, Verification::default());
        let weighted = Verification::default().weights(Some("idf-9-00ff".into()));
        let json = serde_json::to_value(&weighted).unwrap();
        assert_eq!(json["weights"], "idf-9-00ff");
        assert_eq!(
            serde_json::from_value::<Verification>(json).unwrap(),
            weighted
        );
    }
}
