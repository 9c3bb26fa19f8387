//! [`Signer`]: a text's fingerprint and its MinHash signature, from one walk over the text
//! where the feature kinds allow (the defaults), for two-stage matching.

use crate::error::Result;
use crate::fingerprint::signature::Signature;
use crate::fingerprint::{bounded_prefix, Fingerprint, MinHasher, SimHashCounter, SimHasher};
use crate::text::{
    for_each_joint_feature, ChineseDictionary, FeatureKind, JointFeature, Weighting,
};

/// Computes a text's fingerprint and the MinHash signature of its shingles: the two values
/// two-stage matching compares (the fingerprint first, the signature for the pairs the
/// fingerprints alone cannot decide).
///
/// The signature is a one permutation MinHash ([`MinHasher::one_permutation`]) of the
/// text's `shingles`, tokenized and normalized as the fingerprint's features are, with the
/// same seed, in its compact form ([`Signature`]).
#[derive(Clone, Debug)]
pub(crate) struct Signer {
    fingerprints: SimHasher,
    shingles: SimHasher,
    minhasher: MinHasher,
    /// `(chars, words)` when the fingerprints are character `chars`-grams counted by term
    /// frequency and the signatures script shingles of `words` tokens and `chars` Han
    /// characters (the defaults): [`fingerprint_and_sign`](Self::fingerprint_and_sign) then
    /// walks the text once for both.
    joint: Option<(usize, usize)>,
}

impl Signer {
    /// The signer of `hashes`-value signatures of `shingles`, beside the fingerprints of
    /// `fingerprints`, whose tokenizer settings, seed and text bound it shares; jieba's
    /// dictionary is `dictionary`.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) for settings out of range.
    pub fn new(
        fingerprints: SimHasher,
        dictionary: ChineseDictionary,
        shingles: FeatureKind,
        hashes: usize,
    ) -> Result<Signer> {
        let config = fingerprints
            .config()
            .clone()
            .features(shingles)
            .weighting(Weighting::Tf);
        let seed = config.get_seed();
        let joint = match (
            fingerprints.config().get_features(),
            fingerprints.config().get_weighting(),
            shingles,
        ) {
            (
                FeatureKind::CharNgrams { n },
                Weighting::Tf,
                FeatureKind::ScriptShingles { words, chars },
            ) if chars == n => Some((chars, words)),
            _ => None,
        };
        Ok(Signer {
            shingles: SimHasher::builder(config).dictionary(dictionary).build()?,
            minhasher: MinHasher::one_permutation(hashes, seed)?,
            fingerprints,
            joint,
        })
    }

    /// The hasher of the fingerprints.
    pub fn fingerprints(&self) -> &SimHasher {
        &self.fingerprints
    }

    /// The fingerprint of `text`, and its signature when it has one: none without a
    /// fingerprint either (such a document is never a near-duplicate). The same values as
    /// [`SimHasher::fingerprint`] and [`sign`](Self::sign), from one walk over the text
    /// when the feature kinds allow it.
    pub fn fingerprint_and_sign(&self, text: &str) -> (Option<Fingerprint>, Option<Signature>) {
        let fingerprints = &self.fingerprints;
        // Both read the same prefix, and hash a feature the same way (xxh3, the config's
        // seed): an n-gram of both is hashed once.
        let text = bounded_prefix(text, fingerprints.config().get_max_text_bytes());
        let (chars, words) = match self.joint {
            // An ASCII text has no Han text, so nothing to share, and each side has a fast
            // path for ASCII.
            Some(kinds) if !text.is_ascii() => kinds,
            _ => {
                let fingerprint = fingerprints.fingerprint(text);
                return (fingerprint, fingerprint.map(|_| self.sign(text)));
            }
        };
        let mut counter = SimHashCounter::new();
        let mut hashes = Vec::new();
        let tokenizer = fingerprints.extractor().tokenizer();
        for_each_joint_feature(tokenizer, chars, words, text, |feature| match feature {
            JointFeature::Fingerprint(gram) => counter.add(fingerprints.feature_hash(gram)),
            JointFeature::Both(gram) => {
                let hash = fingerprints.feature_hash(gram);
                counter.add(hash);
                hashes.push(hash);
            }
            JointFeature::Signature(feature) => hashes.push(self.minhasher.hash(feature)),
        });
        match counter.finish() {
            Some(fingerprint) => (Some(fingerprint), Some(self.signature_of(hashes))),
            None => (None, None),
        }
    }

    /// The signature of the shingles of `text` (of its first
    /// [`max_text_bytes`](crate::FingerprintConfig::max_text_bytes), as the fingerprint).
    pub fn sign(&self, text: &str) -> Signature {
        let mut hashes = Vec::new();
        self.shingles.extractor().for_each_feature(
            bounded_prefix(text, self.shingles.config().get_max_text_bytes()),
            |shingle, _| {
                hashes.push(self.minhasher.hash(shingle));
            },
        );
        self.signature_of(hashes)
    }

    /// The signature of the shingles with these hashes.
    fn signature_of(&self, hashes: Vec<u64>) -> Signature {
        Signature::compact(self.minhasher.signature_of_hashes(hashes).values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::signature::jaccard;
    use crate::FingerprintConfig;

    /// The shingles and length of the plugin's default signatures.
    const SHINGLES: FeatureKind = FeatureKind::ScriptShingles { words: 2, chars: 3 };

    fn signer_of(config: &FingerprintConfig) -> Signer {
        let hasher = SimHasher::new(config).unwrap();
        Signer::new(hasher, ChineseDictionary::default(), SHINGLES, 128).unwrap()
    }

    fn signer() -> Signer {
        signer_of(&FingerprintConfig::default())
    }

    #[test]
    fn signatures_estimate_the_jaccard_similarity() {
        let signer = signer();
        let text =
            "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat";
        let a = signer.sign(text);
        assert_eq!(a.values().len(), 128);
        let b = signer.sign(&text.replace("lazy", "sleepy"));
        let j = jaccard(a.values(), b.values());
        // 3 of 15 shingles changed: exact Jaccard 12 / 18.
        assert!((j - 12.0 / 18.0).abs() < 0.15, "{j}");
        assert_eq!(jaccard(a.values(), a.values()), 1.0);
    }

    proptest::proptest! {
        /// One walk gives what the fingerprint and the signature give apart, in the joint
        /// case (the defaults) and in others: character 4-grams with 3-character Han
        /// shingles, TF-IDF weights, and a prefix cut short.
        #[test]
        fn the_joint_walk_gives_the_fingerprint_and_the_signature(
            text in "([a-zA-Z0-9]{1,6}[ ,.']?|the |[門门我愛爱的北京]{1,4}|é|①|，|。){0,50}",
            config in 0usize..4,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut fingerprints = FingerprintConfig::default().seed(seed);
            match config {
                1 => fingerprints = fingerprints.features(FeatureKind::CharNgrams { n: 4 }),
                2 => fingerprints = fingerprints.weighting(Weighting::TfIdf),
                3 => fingerprints = fingerprints.max_text_bytes(20),
                _ => {}
            }
            let signer = signer_of(&fingerprints);
            proptest::prop_assert_eq!(signer.joint.is_some(), config != 1 && config != 2);
            let fingerprint = SimHasher::new(&fingerprints).unwrap().fingerprint(&text);
            let apart = (fingerprint, fingerprint.map(|_| signer.sign(&text)));
            proptest::prop_assert_eq!(signer.fingerprint_and_sign(&text), apart);
        }
    }

    #[test]
    fn no_shingles_is_no_evidence() {
        let signer = signer();
        let empty = signer.sign("!!! ...");
        assert_eq!(jaccard(empty.values(), empty.values()), 0.0);
    }
}
