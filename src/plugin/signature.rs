//! The MinHash signature kept beside each fingerprint for two-stage matching, as it is
//! stored: one `u32` per value, little-endian, in the [`SIGNATURE_FIELD`] bytes fast field.
//!
//! [`SIGNATURE_FIELD`]: super::SIGNATURE_FIELD

use tantivy::columnar::BytesColumn;
use tantivy::DocId;

use crate::error::{Error, Result};
use crate::fingerprint::{bounded_prefix, Fingerprint, MinHasher, SimHashCounter, SimHasher};
use crate::plugin::Verification;
use crate::text::{
    for_each_joint_feature, ChineseDictionary, FeatureKind, JointFeature, Weighting,
};

/// The low 32 bits of each value of a one permutation MinHash signature. Two different
/// minima agree on their low 32 bits with probability 2^-32: nothing next to the estimate's
/// own error, at half the memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature(Box<[u32]>);

/// The value of every position of an empty set's signature.
pub(crate) const EMPTY: u32 = u32::MAX;

impl Signature {
    /// The stored form: 4 bytes per value, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// Reads the stored form back.
    ///
    /// # Errors
    /// [`Error::Decode`] when `bytes` is not `4 * hashes` long.
    pub fn from_bytes(bytes: &[u8], hashes: usize) -> Result<Signature> {
        if bytes.len() != 4 * hashes {
            return Err(Error::Decode {
                what: "signature",
                source: format!(
                    "{} bytes, not the {} of {hashes} values",
                    bytes.len(),
                    4 * hashes
                )
                .into(),
            });
        }
        Ok(Signature(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ))
    }

    /// The signature of `doc` in a segment's column of signatures of `hashes` values, if it
    /// has one.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the column cannot be read; [`Error::Decode`] when the value is
    /// not `4 * hashes` bytes long.
    pub fn read(column: &BytesColumn, doc: DocId, hashes: usize) -> Result<Option<Signature>> {
        let Some(ord) = column.ords().first(doc) else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(4 * hashes);
        column
            .ord_to_bytes(ord, &mut bytes)
            .map_err(tantivy::TantivyError::from)?;
        Signature::from_bytes(&bytes, hashes).map(Some)
    }

    /// The values.
    pub fn values(&self) -> &[u32] {
        &self.0
    }

    /// The values, owned.
    pub fn into_values(self) -> Box<[u32]> {
        self.0
    }
}

/// The fraction of equal positions of two signatures' values: their Jaccard estimate. 0
/// when either is the signature of an empty set (no shingles is no evidence).
pub(crate) fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if is_empty_set(a) || is_empty_set(b) {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

/// True when two signatures agree on every value of at least one band of `rows` values:
/// the candidates of a [`BandIndex`](crate::lookup::BandIndex). False when either is the
/// signature of an empty set, which the writer does not index.
pub(crate) fn shares_band(a: &[u32], b: &[u32], rows: usize) -> bool {
    debug_assert_eq!(a.len(), b.len());
    if is_empty_set(a) || is_empty_set(b) {
        return false;
    }
    a.chunks_exact(rows)
        .zip(b.chunks_exact(rows))
        .any(|(x, y)| x == y)
}

/// True for the signature of an empty set (every value [`EMPTY`]; the scan stops at the first
/// other value, the first one for any other set), or for no values at all.
pub(crate) fn is_empty_set(values: &[u32]) -> bool {
    values.iter().all(|&v| v == EMPTY)
}

/// The signatures of numbered documents, one after the other: `hashes` values each, none
/// when the index does not verify.
#[derive(Clone, Debug, Default)]
pub(crate) struct SignatureTable {
    hashes: usize,
    values: Vec<u32>,
}

impl SignatureTable {
    /// An empty table of signatures of `hashes` values (0: no signatures).
    pub fn new(hashes: usize) -> SignatureTable {
        SignatureTable {
            hashes,
            values: Vec::new(),
        }
    }

    /// The table of `values`, `hashes` per document.
    pub fn from_values(hashes: usize, values: Vec<u32>) -> SignatureTable {
        debug_assert!(hashes == 0 && values.is_empty() || values.len() % hashes == 0);
        SignatureTable { hashes, values }
    }

    /// Appends the next document's signature (an empty set's when it has none).
    pub fn push(&mut self, signature: Option<&Signature>) {
        if self.hashes == 0 {
            return;
        }
        match signature {
            Some(signature) => self.values.extend_from_slice(signature.values()),
            None => self.values.extend(std::iter::repeat_n(EMPTY, self.hashes)),
        }
    }

    /// A [`BandIndex`](crate::lookup::BandIndex) of `bands` bands of `rows` values over
    /// every document's signature, those of empty sets left out (they match nothing).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when `bands` or `rows` is 0.
    pub fn band_index(&self, bands: usize, rows: usize) -> Result<crate::lookup::BandIndex> {
        let mut index = crate::lookup::BandIndex::new(bands, rows)?;
        let documents = self.values.len().checked_div(self.hashes).unwrap_or(0) as u32;
        index.extend((0..documents).filter_map(|i| {
            let values = self.get(i)?;
            (!is_empty_set(values)).then_some((i, values))
        }));
        Ok(index)
    }

    /// The signature of document `i`; `None` when the table holds none.
    #[inline]
    pub fn get(&self, i: u32) -> Option<&[u32]> {
        (self.hashes > 0).then(|| {
            let start = i as usize * self.hashes;
            &self.values[start..start + self.hashes]
        })
    }
}

/// Computes the signatures of texts, under an index's [`Verification`] settings.
#[derive(Clone, Debug)]
pub(crate) struct Signer {
    shingles: SimHasher,
    minhasher: MinHasher,
    /// `(chars, words)` when the fingerprints are character `chars`-grams counted by term
    /// frequency and the signatures script shingles of `words` tokens and `chars` Han
    /// characters (the defaults): [`fingerprint_and_sign`](Self::fingerprint_and_sign) then
    /// walks the text once for both.
    joint: Option<(usize, usize)>,
}

impl Signer {
    /// The signer of `verification`, with the fingerprint hasher's tokenizer settings, seed
    /// and `dictionary`.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for settings out of range.
    pub fn new(
        fingerprints: &SimHasher,
        dictionary: ChineseDictionary,
        verification: &Verification,
    ) -> Result<Signer> {
        let config = fingerprints
            .config()
            .clone()
            .features(verification.get_shingles())
            .weighting(Weighting::Tf);
        let seed = config.get_seed();
        let joint = match (
            fingerprints.config().get_features(),
            fingerprints.config().get_weighting(),
            verification.get_shingles(),
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
            minhasher: MinHasher::one_permutation(verification.get_hashes(), seed)?,
            joint,
        })
    }

    /// The fingerprint of `text` under `fingerprints` (the hasher this signer was made
    /// with), and its signature when it has one: none without a fingerprint either (such a
    /// document is never a near-duplicate). The same values as
    /// [`SimHasher::fingerprint`] and [`sign`](Self::sign), from one walk over the text
    /// when the feature kinds allow it.
    pub fn fingerprint_and_sign(
        &self,
        fingerprints: &SimHasher,
        text: &str,
    ) -> (Option<Fingerprint>, Option<Signature>) {
        // `joint` was decided from the hasher given to `new`: this must be it (or its twin).
        debug_assert!(
            fingerprints.config().get_tokenizer() == self.shingles.config().get_tokenizer()
                && fingerprints.config().get_seed() == self.shingles.config().get_seed()
                && fingerprints.config().get_max_text_bytes()
                    == self.shingles.config().get_max_text_bytes(),
            "fingerprint_and_sign takes the hasher the signer was made with"
        );
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
        let signature = self.minhasher.signature_of_hashes(hashes);
        Signature(signature.values().iter().map(|&v| v as u32).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FingerprintConfig;

    fn signer() -> Signer {
        let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
        Signer::new(
            &hasher,
            ChineseDictionary::default(),
            &Verification::default(),
        )
        .unwrap()
    }

    #[test]
    fn signatures_round_trip_and_estimate() {
        let signer = signer();
        let text =
            "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat";
        let a = signer.sign(text);
        assert_eq!(a.values().len(), 128);
        let back = Signature::from_bytes(&a.to_bytes(), 128).unwrap();
        assert_eq!(back, a);
        assert!(Signature::from_bytes(&a.to_bytes(), 64).is_err());
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
            let hasher = SimHasher::new(&fingerprints).unwrap();
            let signer =
                Signer::new(&hasher, ChineseDictionary::default(), &Verification::default())
                    .unwrap();
            proptest::prop_assert_eq!(signer.joint.is_some(), config != 1 && config != 2);
            let fingerprint = hasher.fingerprint(&text);
            let apart = (fingerprint, fingerprint.map(|_| signer.sign(&text)));
            proptest::prop_assert_eq!(signer.fingerprint_and_sign(&hasher, &text), apart);
        }
    }

    #[test]
    fn no_shingles_is_no_evidence() {
        let signer = signer();
        let empty = signer.sign("!!! ...");
        assert_eq!(jaccard(empty.values(), empty.values()), 0.0);
    }
}
