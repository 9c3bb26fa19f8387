//! [`TextMatcher`]: the matching rule applied to texts, without an index: their
//! fingerprints, signatures and the verdict on a pair, as an index with the same settings
//! computes them.

use std::sync::Arc;

use super::{check_shingle_weights, Judgement, Matcher, MatchingSettings, Verification};
use crate::error::{Error, Result};
use crate::fingerprint::{
    Fingerprint, ShingleWeights, ShingleWeightsBuilder, Signature, Signer, SimHasher,
};
use crate::text::ChineseDictionary;

/// The error of shingle weights asked of settings without signatures.
fn unsigned() -> Error {
    Error::InvalidSetting {
        name: "verification",
        reason: "shingle weights are for signatures, and these settings have none".to_owned(),
    }
}

/// The rule of [`MatchingSettings`] applied to texts: a text's fingerprint and (when the
/// settings verify) its signature, as a [`DedupIndex`](crate::plugin::DedupIndex) with the
/// same settings stores them, and the verdict on two texts or on their stored values. For
/// batch work outside an index (a corpus fingerprinted on many cores, a Python or Spark
/// job) that must judge exactly as the index does.
///
/// ```
/// use tantivy_dedup::matching::{MatchingSettings, TextMatcher};
///
/// let matcher = TextMatcher::new(&MatchingSettings::default())?;
/// let page = "The quick brown fox jumps over the lazy dog near the river bank today.";
/// let (fingerprint, signature) = matcher.fingerprint_and_signature(page);
/// assert_eq!(fingerprint, matcher.fingerprint(page));
/// assert_eq!(signature.map(|s| s.len()), matcher.signature_len());
/// assert!(matcher.judge(page, page).near);
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TextMatcher {
    values: Values,
    distance: u32,
    verification: Option<Verification>,
}

/// Fingerprints alone, or fingerprints and signatures when the rule verifies.
#[derive(Clone, Debug)]
// One per matcher, made once: the size of the variants costs nothing.
#[allow(clippy::large_enum_variant)]
enum Values {
    Fingerprints(SimHasher),
    Signed(Signer),
}

impl TextMatcher {
    /// The matcher of `settings`, with jieba's built-in dictionary and IDF table.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) for settings out of range.
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) (`verification.weights`) when
    /// the signatures weight their shingles by a table: use
    /// [`with_weights`](Self::with_weights) with it.
    pub fn new(settings: &MatchingSettings) -> Result<TextMatcher> {
        Self::of_settings(settings, None)
    }

    /// The matcher of `settings`, its signatures' shingles weighted by `weights` (see
    /// [`Verification::weights`], which is set to the table's identity where the settings
    /// name none).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) for settings out of range,
    /// settings that name another table, or settings without signatures.
    pub fn with_weights(
        settings: &MatchingSettings,
        weights: Arc<ShingleWeights>,
    ) -> Result<TextMatcher> {
        let Some(verification) = settings.get_verification() else {
            return Err(unsigned());
        };
        let named = match verification.get_weights() {
            Some(_) => verification.clone(),
            None => (verification.clone()).weights(Some(weights.identity().to_owned())),
        };
        let settings = settings.clone().verification(named);
        Self::of_settings(&settings, Some(weights))
    }

    fn of_settings(
        settings: &MatchingSettings,
        weights: Option<Arc<ShingleWeights>>,
    ) -> Result<TextMatcher> {
        settings.validate()?;
        let hasher = SimHasher::new(settings.get_fingerprint())?;
        TextMatcher::with_hasher(
            hasher,
            ChineseDictionary::default(),
            settings.get_distance(),
            settings.get_verification(),
            weights,
        )
    }

    /// The matcher over `hasher` (whose tokenizer, dictionary and IDF table an index's
    /// settings chose), with `dictionary` for the signatures' shingles, weighted by
    /// `weights` when the verification names that table.
    pub(crate) fn with_hasher(
        hasher: SimHasher,
        dictionary: ChineseDictionary,
        distance: u32,
        verification: Option<&Verification>,
        weights: Option<Arc<ShingleWeights>>,
    ) -> Result<TextMatcher> {
        check_shingle_weights(verification, weights.as_deref())?;
        let values = match verification {
            Some(verification) => Values::Signed(
                Signer::new(
                    hasher,
                    dictionary,
                    verification.get_shingles(),
                    verification.get_hashes(),
                    verification.get_shingle_hashing(),
                    verification.get_kept_bits(),
                )?
                .with_weights(weights),
            ),
            None => Values::Fingerprints(hasher),
        };
        Ok(TextMatcher {
            values,
            distance,
            verification: verification.cloned(),
        })
    }

    /// A table of shingle weights learned from `texts`, a sample of the documents to come
    /// (a few thousand at least, of the kinds the index will hold): each shingle, taken as
    /// this matcher's signatures take them, weighs by the number of the sample's texts it
    /// is in ([`idf_weight`](crate::fingerprint::idf_weight)). Give it to
    /// [`DedupSettings::shingle_weights`](crate::plugin::DedupSettings::shingle_weights)
    /// when the index is created.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) when the settings do not
    /// verify (there are no shingles to weigh).
    pub fn learn_weights<'t>(
        &self,
        texts: impl IntoIterator<Item = &'t str>,
    ) -> Result<ShingleWeights> {
        let mut builder = ShingleWeightsBuilder::new();
        for text in texts {
            let Some(hashes) = self.shingle_hashes(text) else {
                return Err(unsigned());
            };
            builder.add_document(hashes);
        }
        Ok(builder.build())
    }

    /// The hashes of the shingles of `text`, as the signatures take them (repeats
    /// included): what a [`ShingleWeightsBuilder`] counts, for a sample too large for
    /// [`learn_weights`](Self::learn_weights) on one core. `None` when the settings do not
    /// verify.
    pub fn shingle_hashes(&self, text: &str) -> Option<Vec<u64>> {
        match &self.values {
            Values::Signed(signer) => Some(signer.shingle_hashes(text)),
            Values::Fingerprints(_) => None,
        }
    }

    /// The hasher of the fingerprints.
    pub fn hasher(&self) -> &SimHasher {
        match &self.values {
            Values::Fingerprints(hasher) => hasher,
            Values::Signed(signer) => signer.fingerprints(),
        }
    }

    /// The distance *k*: fingerprints within it are near-duplicates, or, where the
    /// signatures decide, candidates judged by them.
    pub fn distance(&self) -> u32 {
        self.distance
    }

    /// Whether the signatures decide the pairs within *k* too
    /// ([`Verification::signatures_decide`]); `false` when the rule does not verify.
    pub fn signatures_decide(&self) -> bool {
        self.verification
            .as_ref()
            .is_some_and(Verification::get_signatures_decide)
    }

    /// The largest Hamming distance at which a pair can be near-duplicates: the candidate
    /// distance of a verifying rule, else *k*. Pairs farther apart are never near.
    pub fn reach(&self) -> u32 {
        Matcher::new(self.distance, self.verification.as_ref()).reach()
    }

    /// The bands and rows of the candidate stage, when pairs beyond *k* become candidates
    /// by sharing a band ([`lookup::band_keys`](crate::lookup::band_keys)); `None` when
    /// they come from the fingerprints within the candidate distance, or the rule does not
    /// verify.
    pub fn bands(&self) -> Option<(usize, usize)> {
        Matcher::new(self.distance, self.verification.as_ref()).bands()
    }

    /// The fewest positions on which the signatures of a pair the signatures judge (beyond
    /// *k*, or at any distance where they decide) must agree for the pair to be
    /// near-duplicates (`signature_len + 1` when no such pair can be):
    /// fewer is never near, whatever the pair's distance, so a job may drop the pairs an
    /// upper bound on their agreement puts below it before it compares whole signatures.
    /// `None` when the rule does not verify, or scores containment (no count of equal
    /// positions bounds it).
    pub fn least_agreement(&self) -> Option<usize> {
        let n = self.signature_len()?;
        Matcher::new(self.distance, self.verification.as_ref()).least_agreement(n)
    }

    /// Values per signature; `None` when the rule does not verify.
    pub fn signature_len(&self) -> Option<usize> {
        self.verification.as_ref().map(Verification::get_hashes)
    }

    /// The fingerprint of `text`; `None` when it has no features.
    pub fn fingerprint(&self, text: &str) -> Option<Fingerprint> {
        self.hasher().fingerprint(text)
    }

    /// The fingerprint of `text`, and its signature when the rule verifies (none without a
    /// fingerprint either: such a text is never a near-duplicate).
    pub fn fingerprint_and_signature(&self, text: &str) -> (Option<Fingerprint>, Option<Vec<u32>>) {
        let (fingerprint, signature) = self.values_of(text);
        (fingerprint, signature.map(|s| s.values().to_vec()))
    }

    /// The signature of `text` alone, without its fingerprint, when the rule verifies: the
    /// signature [`fingerprint_and_signature`](Self::fingerprint_and_signature) gives a
    /// text with a fingerprint, and the signature of the empty set
    /// ([`is_empty_set`](crate::fingerprint::is_empty_set)) for a text without shingles.
    /// `None` when the rule does not verify.
    pub fn signature(&self, text: &str) -> Option<Vec<u32>> {
        match &self.values {
            Values::Signed(signer) => Some(signer.sign(text).values().to_vec()),
            Values::Fingerprints(_) => None,
        }
    }

    /// What [`fingerprint_and_signature`](Self::fingerprint_and_signature) gives, in the
    /// compact form the plugin stores.
    pub(crate) fn values_of(&self, text: &str) -> (Option<Fingerprint>, Option<Signature>) {
        match &self.values {
            Values::Signed(signer) => signer.fingerprint_and_sign(text),
            Values::Fingerprints(hasher) => (hasher.fingerprint(text), None),
        }
    }

    /// The verdict on two texts, with why.
    pub fn judge(&self, a: &str, b: &str) -> Judgement {
        let (fa, sa) = self.values_of(a);
        let (fb, sb) = self.values_of(b);
        self.judge_values(
            (fa, sa.as_ref().map(Signature::values)),
            (fb, sb.as_ref().map(Signature::values)),
        )
    }

    /// The verdict on two documents by their values, as
    /// [`fingerprint_and_signature`](Self::fingerprint_and_signature) gives them.
    pub fn judge_values(
        &self,
        a: (Option<Fingerprint>, Option<&[u32]>),
        b: (Option<Fingerprint>, Option<&[u32]>),
    ) -> Judgement {
        let distance = a.0.zip(b.0).map(|(fa, fb)| fa.distance(fb));
        Matcher::new(self.distance, self.verification.as_ref()).explain(distance, a.1, b.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::is_empty_set;

    #[test]
    fn a_signature_alone_is_the_one_beside_the_fingerprint() {
        let matcher = TextMatcher::new(&MatchingSettings::default()).unwrap();
        for text in [
            "The quick brown fox jumps over the lazy dog.",
            "Near-duplicate pages, 近似重复的网页 and their 指纹: one shingle each.",
            "Café au lait, naïve façade — “quoted” words",
            "網頁的指紋與近似重複",
            "the and of",
            "",
            "!!! ...",
        ] {
            let (fingerprint, signature) = matcher.fingerprint_and_signature(text);
            let alone = matcher.signature(text).unwrap();
            match signature {
                Some(signature) => assert_eq!(alone, signature, "{text}"),
                None => {
                    assert!(fingerprint.is_none());
                    assert!(is_empty_set(&alone), "{text}");
                }
            }
        }
    }

    /// A pair just beyond *k* (where a score is highest) sharing its first band is near
    /// exactly when its signatures agree on `least_agreement` positions or more.
    #[test]
    fn the_least_agreement_is_where_pairs_beyond_k_become_near() {
        for threshold in [0.3, 0.55, 0.9] {
            let verification = crate::matching::Verification::default().threshold(threshold);
            let settings = MatchingSettings::default().verification(Some(verification));
            let matcher = TextMatcher::new(&settings).unwrap();
            let n = matcher.signature_len().unwrap();
            let least = matcher.least_agreement().unwrap();
            assert!(0 < least && least <= n, "{least}");
            let a: Vec<u32> = (0..n as u32).collect();
            let (fa, fb) = (
                Fingerprint(0),
                Fingerprint((1 << (matcher.distance() + 1)) - 1),
            );
            for equal in 8..=n {
                let b: Vec<u32> = (0..n as u32)
                    .map(|i| if (i as usize) < equal { i } else { i + 1000 })
                    .collect();
                let judgement = matcher.judge_values((Some(fa), Some(&a)), (Some(fb), Some(&b)));
                assert_eq!(
                    judgement.near,
                    equal >= least,
                    "{threshold} {equal} {least}"
                );
            }
        }
        let containment = crate::matching::Verification::containment();
        let settings = MatchingSettings::default().verification(Some(containment));
        assert_eq!(TextMatcher::new(&settings).unwrap().least_agreement(), None);
    }

    #[test]
    fn no_signature_without_verification() {
        let settings = MatchingSettings::default().verification(None);
        let matcher = TextMatcher::new(&settings).unwrap();
        assert_eq!(matcher.signature("The quick brown fox jumps."), None);
    }
}
