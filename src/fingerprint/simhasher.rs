//! `SimHasher`: text in, 64-bit SimHash fingerprint out.

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, FingerprintConfig, SimHashAccumulator, SimHashCounter};
use crate::text::{
    char_window_ranges, char_windows, ChineseDictionary, FeatureExtractor, FeatureKind, IdfSource,
    IdfTable, MixedTokenizer, Weighting, JIEBA_IDF_IDENTITY,
};

// Not `#[non_exhaustive]`: invalid bytes are refused or replaced; a policy that does neither
// would change what a fingerprint of the bytes means.
/// What to do with bytes that are not valid UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Utf8Policy {
    /// Refuse them with [`Error::InvalidUtf8`].
    #[default]
    Strict,
    /// Replace each invalid sequence with U+FFFD and go on.
    Lossy,
}

/// Computes SimHash fingerprints (Charikar 2002) under one [`FingerprintConfig`].
///
/// Each feature of the text is hashed with xxh3 (seeded with the config's seed) and its
/// weight is added to the bit positions its hash sets; a bit of the fingerprint is 1 when the
/// features setting it outweigh the others. Share one `SimHasher` across threads: it is
/// `Send + Sync` and cheap to clone.
///
/// ```
/// use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
///
/// let hasher = SimHasher::new(&FingerprintConfig::default())?;
/// let a = hasher.fingerprint("The quick brown fox jumps over the lazy dog near the river bank").unwrap();
/// let b = hasher.fingerprint("The quick brown fox jumped over the lazy dog near the river bank").unwrap();
/// let c = hasher.fingerprint("Completely different words about tantivy search engines").unwrap();
/// assert!(a.distance(b) < a.distance(c));
/// assert_eq!(hasher.fingerprint(" ,.; "), None); // no features, no fingerprint
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SimHasher {
    config: FingerprintConfig,
    extractor: FeatureExtractor,
}

/// Builds a [`SimHasher`] with a user dictionary or an IDF source of one's own.
#[derive(Clone, Debug)]
pub struct SimHasherBuilder {
    config: FingerprintConfig,
    dictionary: Option<ChineseDictionary>,
    idf: Option<Arc<dyn IdfSource>>,
}

impl SimHasherBuilder {
    /// The jieba dictionary to segment with. Default: the built-in one. Its digest must be
    /// the one the config's tokenizer settings name.
    #[must_use]
    pub fn dictionary(mut self, dictionary: ChineseDictionary) -> Self {
        self.dictionary = Some(dictionary);
        self
    }

    /// The IDF source. Default: jieba's table when the config names it. Its
    /// [identity](IdfSource::identity) must be the config's [`idf`](FingerprintConfig::idf).
    #[must_use]
    pub fn idf(mut self, idf: Arc<dyn IdfSource>) -> Self {
        self.idf = Some(idf);
        self
    }

    /// The hasher. Can be called again.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the config is invalid, or when the dictionary or the IDF
    /// source is not the one the config names (the fingerprints would not be the config's).
    pub fn build(&self) -> Result<SimHasher> {
        let config = &self.config;
        config.validate()?;
        let dictionary = self.dictionary.clone().unwrap_or_default();
        let tokenizer = MixedTokenizer::with_dictionary(config.get_tokenizer(), dictionary)?;
        let weighting = config.get_weighting();
        let idf = if weighting.uses_idf() {
            let idf = match &self.idf {
                Some(idf) => Arc::clone(idf),
                None if config.get_idf() == JIEBA_IDF_IDENTITY => {
                    IdfTable::jieba() as Arc<dyn IdfSource>
                }
                None => {
                    return Err(Error::InvalidSetting {
                        name: "idf",
                        reason: format!(
                            "the config names IDF source {:?}; pass it to the builder",
                            config.get_idf()
                        ),
                    })
                }
            };
            if idf.identity() != config.get_idf() {
                return Err(Error::InvalidSetting {
                    name: "idf",
                    reason: format!(
                        "the config names IDF source {:?} but the source given is {:?}",
                        config.get_idf(),
                        idf.identity()
                    ),
                });
            }
            Some(idf)
        } else {
            None
        };
        let extractor = FeatureExtractor::new(tokenizer, config.get_features(), weighting, idf)?;
        Ok(SimHasher {
            config: config.clone(),
            extractor,
        })
    }
}

impl SimHasher {
    /// A hasher for `config` with jieba's built-in dictionary and, where the weighting needs
    /// one, jieba's IDF table.
    ///
    /// # Errors
    /// As [`SimHasherBuilder::build`]; use [`SimHasher::builder`] for other dictionaries and
    /// IDF sources.
    pub fn new(config: &FingerprintConfig) -> Result<Self> {
        Self::builder(config.clone()).build()
    }

    /// A builder, for a user dictionary or another IDF source.
    #[must_use]
    pub fn builder(config: FingerprintConfig) -> SimHasherBuilder {
        SimHasherBuilder {
            config,
            dictionary: None,
            idf: None,
        }
    }

    /// The config this hasher computes fingerprints under.
    #[must_use]
    pub fn config(&self) -> &FingerprintConfig {
        &self.config
    }

    /// The feature extractor (tokenizer, features, weights) this hasher uses.
    #[must_use]
    pub fn extractor(&self) -> &FeatureExtractor {
        &self.extractor
    }

    /// The fingerprint of `text`, or `None` when it has no features (empty, or only
    /// whitespace and punctuation). Only the first
    /// [`max_text_bytes`](FingerprintConfig::max_text_bytes) are read.
    #[must_use]
    pub fn fingerprint(&self, text: &str) -> Option<Fingerprint> {
        let text = bounded_prefix(text, self.config.get_max_text_bytes());
        let hash = |feature: &str| self.feature_hash(feature);
        if self.config.get_weighting() == Weighting::Tf {
            // Every weight is 1: count instead of summing (the same bits, fewer operations per
            // feature: `SimHashCounter`).
            let mut counter = SimHashCounter::new();
            if let FeatureKind::CharNgrams { n } = self.config.get_features() {
                // The normalized text first, then the counting in the loop over its n-grams.
                let normalized = self.extractor.tokenizer().normalized_utf8(text);
                self.count_char_ngrams(n, &normalized, &mut counter);
                return counter.finish();
            }
            self.extractor.for_each_feature(text, |feature, weight| {
                debug_assert_eq!(weight, 1.0);
                counter.add(hash(feature));
            });
            return counter.finish();
        }
        let mut accumulator = SimHashAccumulator::new();
        self.extractor.for_each_feature(text, |feature, weight| {
            accumulator.add(hash(feature), weight)
        });
        accumulator.finish()
    }

    /// Counts the character `n`-grams of `normalized`, the UTF-8 of a text's normalized
    /// characters (`MixedTokenizer::normalized_utf8`), by their hashes.
    #[inline]
    pub(crate) fn count_char_ngrams(
        &self,
        n: usize,
        normalized: &[u8],
        counter: &mut SimHashCounter,
    ) {
        if normalized.is_ascii() {
            // One byte a character: the windows of bytes, with the counting in the loop.
            // Windows of a length known at compile time for the usual n (the default is
            // 3): xxh3's branches on the length fold away.
            match (n, normalized.len() >= n) {
                (2, true) => self.count_windows::<2>(normalized, counter),
                (3, true) => self.count_windows::<3>(normalized, counter),
                (4, true) => self.count_windows::<4>(normalized, counter),
                (5, true) => self.count_windows::<5>(normalized, counter),
                // Fewer than n characters: the whole text is the one n-gram (none if empty).
                _ => counter.extend(
                    (normalized.windows(n.min(normalized.len()).max(1)))
                        .map(|gram| self.feature_hash_bytes(gram)),
                ),
            }
        } else {
            // Chinese: a window of n Han characters is 3n bytes, hashed with its length
            // known at compile time; other windows by their length.
            match n {
                2 => self.count_char_windows::<2, 6>(normalized, counter),
                3 => self.count_char_windows::<3, 9>(normalized, counter),
                4 => self.count_char_windows::<4, 12>(normalized, counter),
                5 => self.count_char_windows::<5, 15>(normalized, counter),
                _ => {
                    let normalized = std::str::from_utf8(normalized).expect("whole characters");
                    counter.extend(char_windows(n, normalized).map(|gram| self.feature_hash(gram)));
                }
            }
        }
    }

    /// Counts the windows of `N` characters of `normalized` (UTF-8; the whole of it when
    /// it has fewer, nothing when it is empty) by their hashes; `B` is 3N, the bytes of N
    /// characters of the Basic Multilingual Plane outside ASCII and Latin (Han, kana,
    /// Hangul).
    #[inline]
    fn count_char_windows<const N: usize, const B: usize>(
        &self,
        normalized: &[u8],
        counter: &mut SimHashCounter,
    ) {
        debug_assert_eq!(B, 3 * N);
        counter.extend(char_window_ranges(N, normalized).map(|range| {
            let gram = &normalized[range];
            match <&[u8; B]>::try_from(gram) {
                Ok(gram) => self.feature_hash_bytes(gram),
                Err(_) => self.feature_hash_bytes(gram),
            }
        }));
    }

    /// Counts the windows of `N` bytes of `bytes` (at least `N` long) by their hashes.
    #[inline]
    fn count_windows<const N: usize>(&self, bytes: &[u8], counter: &mut SimHashCounter) {
        counter.extend(bytes.windows(N).map(|gram| {
            let gram: &[u8; N] = gram.try_into().expect("a window is N bytes");
            self.feature_hash_bytes(gram)
        }));
    }

    /// The hash of one feature, as the fingerprint's bits take it: xxh3 with the config's
    /// seed (which [`MinHasher::hash`](super::MinHasher::hash) with the same seed is too).
    #[inline]
    pub(crate) fn feature_hash(&self, feature: &str) -> u64 {
        self.feature_hash_bytes(feature.as_bytes())
    }

    /// The hash of each character `n`-gram of `normalized` (UTF-8 of normalized
    /// characters; the whole of it when it has fewer, nothing when it is empty), in order,
    /// as [`count_char_ngrams`](Self::count_char_ngrams) hashes them.
    pub(crate) fn char_ngram_hashes<'a>(
        &'a self,
        n: usize,
        normalized: &'a [u8],
    ) -> impl Iterator<Item = u64> + 'a {
        char_window_ranges(n, normalized).map(move |range| {
            // The usual windows, of 2 to 5 characters of 3 bytes (Han), are hashed at a
            // length known at compile time.
            let gram = &normalized[range];
            match gram.len() {
                6 => self.feature_hash_bytes(<&[u8; 6]>::try_from(gram).expect("6 bytes")),
                9 => self.feature_hash_bytes(<&[u8; 9]>::try_from(gram).expect("9 bytes")),
                12 => self.feature_hash_bytes(<&[u8; 12]>::try_from(gram).expect("12 bytes")),
                15 => self.feature_hash_bytes(<&[u8; 15]>::try_from(gram).expect("15 bytes")),
                _ => self.feature_hash_bytes(gram),
            }
        })
    }

    /// [`feature_hash`](Self::feature_hash) of a feature's bytes.
    #[inline]
    pub(crate) fn feature_hash_bytes(&self, feature: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(feature, self.config.get_seed())
    }

    /// The fingerprint of bytes that should be UTF-8, with an explicit policy for those that
    /// are not.
    ///
    /// # Errors
    /// [`Error::InvalidUtf8`] under [`Utf8Policy::Strict`] when `bytes` is not valid UTF-8.
    pub fn fingerprint_bytes(
        &self,
        bytes: &[u8],
        policy: Utf8Policy,
    ) -> Result<Option<Fingerprint>> {
        // simdutf8 checks non-ASCII text several times faster than the standard library,
        // which finds where invalid bytes start once there are some.
        let text = match (simdutf8::basic::from_utf8(bytes), policy) {
            (Ok(text), _) => Cow::Borrowed(text),
            (Err(_), Utf8Policy::Strict) => {
                let error = std::str::from_utf8(bytes).expect_err("simdutf8 found invalid UTF-8");
                return Err(Error::InvalidUtf8 {
                    valid_up_to: error.valid_up_to(),
                });
            }
            (Err(_), Utf8Policy::Lossy) => String::from_utf8_lossy(bytes),
        };
        Ok(self.fingerprint(&text))
    }

    /// The fingerprint of features weighted by the caller, hashed with this hasher's seed;
    /// `None` when no feature has a positive weight.
    #[must_use]
    pub fn fingerprint_weighted<'a>(
        &self,
        features: impl IntoIterator<Item = (&'a str, f32)>,
    ) -> Option<Fingerprint> {
        let mut accumulator = SimHashAccumulator::new();
        for (feature, weight) in features {
            accumulator.add(self.feature_hash(feature), weight);
        }
        accumulator.finish()
    }
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a character
/// boundary.
pub(crate) fn bounded_prefix(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{FeatureKind, IdfTableBuilder, Weighting};

    proptest::proptest! {
        /// Both paths of `count_char_ngrams` (windows of bytes when every normalized
        /// character is ASCII, windows of characters otherwise) give the fingerprint of the
        /// windows over the normalized characters, for n-grams of 1 to 6 characters and
        /// texts of every ASCII byte, with accents, quotes and Han characters between.
        #[test]
        fn the_ngram_paths_count_the_windows_of_the_normalized_text(
            text in "([a-zA-Z0-9]{1,6}[ ,.'_:!]{0,2}|[\\x00-\\x7f]|é|İ|’|—|門|我|京|①|\u{20000}|，|ア){0,40}",
            n in 1usize..=6,
        ) {
            let hasher = SimHasher::new(
                &FingerprintConfig::default().features(FeatureKind::CharNgrams { n }),
            )
            .unwrap();
            let mut normalized = String::new();
            hasher
                .extractor()
                .tokenizer()
                .for_each_normalized_char(&text, |c| normalized.push(c));
            let chars: Vec<char> = normalized.chars().collect();
            let grams: Vec<String> = if chars.len() < n {
                (!chars.is_empty()).then_some(normalized).into_iter().collect()
            } else {
                chars.windows(n).map(|w| w.iter().collect()).collect()
            };
            let expected = hasher.fingerprint_weighted(grams.iter().map(|g| (g.as_str(), 1.0)));
            proptest::prop_assert_eq!(hasher.fingerprint(&text), expected);
        }
    }

    #[test]
    fn prefix_is_cut_on_a_char_boundary() {
        assert_eq!(bounded_prefix("北京abc", 4), "北");
        assert_eq!(bounded_prefix("北京abc", 100), "北京abc");
        assert_eq!(bounded_prefix("北京", 2), "");
    }

    #[test]
    fn huge_texts_are_fingerprinted_on_their_prefix() {
        let hasher = SimHasher::new(&FingerprintConfig::default().max_text_bytes(64)).unwrap();
        let head = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
        let a = format!("{head} one two three four");
        let b = format!("{head} five six seven eight");
        assert_eq!(hasher.fingerprint(&a), hasher.fingerprint(&b));
    }

    #[test]
    fn invalid_utf8_has_an_explicit_policy() {
        let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
        let bytes = b"hello \xff world";
        assert!(matches!(
            hasher.fingerprint_bytes(bytes, Utf8Policy::Strict),
            Err(Error::InvalidUtf8 { valid_up_to: 6 })
        ));
        let lossy = hasher.fingerprint_bytes(bytes, Utf8Policy::Lossy).unwrap();
        assert_eq!(lossy, hasher.fingerprint("hello world"));
    }

    #[test]
    fn seed_changes_the_bits() {
        let text = "我爱北京天安门 and Beijing's 2008 Olympics";
        let a = SimHasher::new(&FingerprintConfig::default())
            .unwrap()
            .fingerprint(text);
        let b = SimHasher::new(&FingerprintConfig::default().seed(1))
            .unwrap()
            .fingerprint(text);
        assert_ne!(a, b);
    }

    #[test]
    fn idf_source_must_match_the_config() {
        let mut builder = IdfTableBuilder::new(MixedTokenizer::new(), FeatureKind::Words);
        builder.add_document("some words");
        let table: Arc<dyn IdfSource> = Arc::new(builder.build());
        let config = FingerprintConfig::default().weighting(Weighting::TfIdf);
        let mismatch = SimHasher::builder(config.clone())
            .idf(Arc::clone(&table))
            .build();
        assert!(matches!(
            mismatch,
            Err(Error::InvalidSetting { name: "idf", .. })
        ));
        let unnamed = SimHasher::new(&config.clone().idf(table.identity()));
        assert!(matches!(
            unnamed,
            Err(Error::InvalidSetting { name: "idf", .. })
        ));
        let ok = SimHasher::builder(config.idf(table.identity()))
            .idf(table)
            .build();
        assert!(ok.is_ok());
        // Term counts need no IDF at all.
        assert!(SimHasher::new(
            &FingerprintConfig::default()
                .weighting(Weighting::Tf)
                .idf("anything")
        )
        .is_ok());
    }

    #[test]
    fn weighted_features_match_text_features() {
        let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
        let text = "北京 天安门 北京 olympics";
        let features = hasher.extractor().features(text);
        let weighted = hasher.fingerprint_weighted(features.iter().map(|(f, w)| (f.as_str(), *w)));
        assert_eq!(weighted, hasher.fingerprint(text));
    }
}
