//! [`Signer`]: a text's fingerprint and its MinHash signature, from one walk over the text
//! where the feature kinds allow (the defaults), for two-stage matching.

use std::sync::Arc;

use crate::error::Result;
use crate::fingerprint::signature::Signature;
use crate::fingerprint::weighted_bins::WeightedBins;
use crate::fingerprint::{
    bounded_prefix, Fingerprint, KeptBits, MinHasher, OnePermutationBins, ShingleHashing,
    ShingleWeights, SimHashCounter, SimHasher, WordShingleHashes,
};
use crate::text::{
    for_each_shingle_unit, has_han, shingle_words, ChineseDictionary, FeatureKind, HanText,
    ShingleUnit, Weighting, WordShingles,
};

/// Computes a text's fingerprint and the MinHash signature of its shingles: the two values
/// two-stage matching compares (the fingerprint first, the signature for the pairs the
/// fingerprints alone cannot decide).
///
/// The signature is a one permutation MinHash ([`MinHasher::one_permutation`]) of the
/// text's `shingles`, tokenized and normalized as the fingerprint's features are, with the
/// same seed, a shingle of several words hashed as its [`ShingleHashing`] says, in its
/// compact form ([`Signature`]). With [`ShingleWeights`], each shingle counts by its
/// weight ([`WeightedBins`]).
#[derive(Clone, Debug)]
pub(crate) struct Signer {
    fingerprints: SimHasher,
    shingles: SimHasher,
    minhasher: MinHasher,
    hashing: ShingleHashing,
    bits: KeptBits,
    /// How much each shingle counts; every shingle alike without.
    weights: Option<Arc<ShingleWeights>>,
    /// Words per shingle.
    words: usize,
    /// `chars` when the fingerprints are character `chars`-grams counted by term frequency
    /// and the signatures script shingles of `chars` Han characters (the defaults):
    /// [`fingerprint_and_sign`](Self::fingerprint_and_sign) then takes both from the
    /// same passes over the text.
    joint: Option<usize>,
    /// Whether the units of an ASCII text's shingles are all words (word and script
    /// shingles): [`sign`](Self::sign) then takes its tokens in one scan.
    ascii_words: bool,
}

impl Signer {
    /// The signer of `hashes`-value signatures of `shingles` hashed by `hashing`, keeping
    /// the `bits` of each value, beside
    /// the fingerprints of `fingerprints`, whose tokenizer settings, seed and text bound it
    /// shares; jieba's dictionary is `dictionary`.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) for settings out of range.
    pub fn new(
        fingerprints: SimHasher,
        dictionary: ChineseDictionary,
        shingles: FeatureKind,
        hashes: usize,
        hashing: ShingleHashing,
        bits: KeptBits,
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
                FeatureKind::ScriptShingles { chars, .. },
            ) if chars == n => Some(chars),
            _ => None,
        };
        Ok(Signer {
            shingles: SimHasher::builder(config).dictionary(dictionary).build()?,
            minhasher: MinHasher::one_permutation(hashes, seed)?,
            fingerprints,
            hashing,
            bits,
            weights: None,
            words: shingle_words(shingles),
            joint,
            ascii_words: matches!(
                shingles,
                FeatureKind::WordShingles { .. } | FeatureKind::ScriptShingles { .. }
            ),
        })
    }

    /// The same signer, its shingles weighted by `weights`.
    pub fn with_weights(mut self, weights: Option<Arc<ShingleWeights>>) -> Signer {
        self.weights = weights;
        self
    }

    /// The hasher of the fingerprints.
    pub fn fingerprints(&self) -> &SimHasher {
        &self.fingerprints
    }

    /// The hashes of the shingles of `text` as [`sign`](Self::sign) takes them (what a
    /// [`ShingleWeights`] table counts), repeats included.
    pub fn shingle_hashes(&self, text: &str) -> Vec<u64> {
        let mut builder = self.builder_into(Bins::Collect(Vec::new()));
        self.add_shingles(text, &mut builder);
        match builder.finish_bins() {
            Bins::Collect(hashes) => hashes,
            _ => unreachable!("the builder collects"),
        }
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
        let Some(chars) = self.joint else {
            let fingerprint = fingerprints.fingerprint(text);
            return (fingerprint, fingerprint.map(|_| self.sign(text)));
        };
        let mut counter = SimHashCounter::new();
        let mut signature = self.builder();
        let tokenizer = fingerprints.extractor().tokenizer();
        let ascii = text.is_ascii();
        if ascii || !has_han(text) {
            // Text without Han characters (English, any Latin, Greek or Cyrillic script):
            // all the signature's units are words. The words and the normalized characters
            // are taken in two scans, each over ASCII stretches without decoding (the
            // normalizing one without a branch a byte), and the fingerprint's n-grams after.
            if ascii {
                tokenizer.for_each_ascii_token(text, |word| signature.word(word));
            } else {
                tokenizer.for_each_token(text, |word, _| signature.word(word));
            }
            let normalized = tokenizer.normalized_utf8(text);
            fingerprints.count_char_ngrams(chars, &normalized, &mut counter);
        } else {
            // Text with Han characters: the fingerprint's n-grams over the normalized text
            // as bytes, as without a signature; the signature's words from the other runs,
            // and its Han n-grams over the Han runs' characters alone, whose windows of
            // characters that follow each other in the text are the fingerprint's, hashed
            // alike.
            let (normalized, han) = tokenizer.normalized_utf8_and_han(text);
            fingerprints.count_char_ngrams(chars, &normalized, &mut counter);
            self.add_script_units(text, &han, chars, &mut signature);
        }
        match counter.finish() {
            Some(fingerprint) => (Some(fingerprint), Some(signature.finish())),
            None => (None, None),
        }
    }

    /// The signature of the shingles of `text` (of its first
    /// [`max_text_bytes`](crate::fingerprint::FingerprintConfig::max_text_bytes), as the fingerprint).
    pub fn sign(&self, text: &str) -> Signature {
        let mut signature = self.builder();
        self.add_shingles(text, &mut signature);
        signature.finish()
    }

    /// Adds the shingles of `text` (of its bounded prefix) to `signature`.
    fn add_shingles(&self, text: &str, signature: &mut SignatureBuilder<'_>) {
        let extractor = self.shingles.extractor();
        let text = bounded_prefix(text, self.shingles.config().get_max_text_bytes());
        let tokenizer = extractor.tokenizer();
        if self.ascii_words && text.is_ascii() {
            // Most English text: its units are its tokens, taken in one scan without
            // decoding or splitting it by script first.
            tokenizer.for_each_ascii_token(text, |word| signature.word(word));
        } else if let FeatureKind::ScriptShingles { chars, .. } = extractor.kind() {
            // The Han runs apart in one pass: the units `add_units` takes one at a time.
            self.add_script_units(text, &tokenizer.han_text(text), chars, signature);
        } else {
            self.add_units(text, signature);
        }
    }

    /// Adds the script shingle units of `text`, whose Han runs are `han`, to `signature`:
    /// the words between the runs, and the `chars`-grams of their characters, hashed as
    /// bytes (as the fingerprint's n-grams are, with the same seed).
    fn add_script_units(
        &self,
        text: &str,
        han: &HanText,
        chars: usize,
        signature: &mut SignatureBuilder<'_>,
    ) {
        let tokenizer = self.shingles.extractor().tokenizer();
        tokenizer.for_each_other_token(text, han, |word| signature.word(word));
        (self.shingles.char_ngram_hashes(chars, &han.chars)).for_each(|hash| signature.add(hash));
    }

    /// Adds the shingle units of `text` to `signature`, as the shingles' extractor splits
    /// any text.
    fn add_units(&self, text: &str, signature: &mut SignatureBuilder<'_>) {
        for_each_shingle_unit(self.shingles.extractor(), text, |unit| match unit {
            ShingleUnit::Word(word) => signature.word(word),
            ShingleUnit::Feature(feature) => signature.add(self.minhasher.hash(feature)),
        });
    }

    /// An empty signature, to fill.
    fn builder(&self) -> SignatureBuilder<'_> {
        let k = self.minhasher.k();
        self.builder_into(match &self.weights {
            Some(weights) => Bins::Weighted(WeightedBins::new(k), weights),
            None => Bins::Plain(OnePermutationBins::new(k)),
        })
    }

    /// An empty signature whose shingles go to `bins`.
    fn builder_into<'s>(&'s self, bins: Bins<'s>) -> SignatureBuilder<'s> {
        let words = match self.hashing {
            ShingleHashing::Text => Shingler::Text(WordShingles::new(self.words)),
            ShingleHashing::Words => Shingler::Hashes(WordShingleHashes::new(
                self.words,
                self.shingles.config().get_seed(),
            )),
        };
        SignatureBuilder {
            minhasher: &self.minhasher,
            bins,
            words,
            bits: self.bits,
        }
    }
}

/// A signature being filled: whole features by their hashes, words a shingle at a time.
struct SignatureBuilder<'s> {
    minhasher: &'s MinHasher,
    bins: Bins<'s>,
    words: Shingler,
    bits: KeptBits,
}

/// Where a signature's shingles go.
enum Bins<'s> {
    /// Plain one permutation MinHash.
    Plain(OnePermutationBins),
    /// Each shingle weighted by the table.
    Weighted(WeightedBins, &'s ShingleWeights),
    /// Kept as they are, to count.
    Collect(Vec<u64>),
}

impl Bins<'_> {
    #[inline]
    fn add(&mut self, hash: u64) {
        match self {
            Bins::Plain(bins) => bins.add(hash),
            Bins::Weighted(bins, weights) => bins.add(hash, weights.weight(hash)),
            Bins::Collect(hashes) => hashes.push(hash),
        }
    }
}

/// The window of words that makes shingles, by [`ShingleHashing`].
enum Shingler {
    Text(WordShingles),
    Hashes(WordShingleHashes),
}

impl<'s> SignatureBuilder<'s> {
    /// Adds a whole feature by its hash ([`MinHasher::hash`]).
    #[inline]
    fn add(&mut self, hash: u64) {
        self.bins.add(hash);
    }

    /// Adds the next word, and the shingle it ends.
    #[inline]
    fn word(&mut self, word: &str) {
        let SignatureBuilder {
            minhasher,
            bins,
            words,
            ..
        } = self;
        match words {
            Shingler::Text(window) => window.push(word, 1.0, &mut |shingle, _| {
                bins.add(minhasher.hash(shingle));
            }),
            Shingler::Hashes(window) => window.push(minhasher.hash(word), &mut |hash| {
                bins.add(hash);
            }),
        }
    }

    /// The signature, with the shingle of a text of fewer words than a shingle holds.
    fn finish(self) -> Signature {
        let bits = self.bits;
        let values = match self.finish_bins() {
            Bins::Plain(bins) => bins.finish(),
            Bins::Weighted(bins, _) => bins.finish(),
            Bins::Collect(_) => unreachable!("a signature's builder has bins"),
        };
        Signature::compact(&values, bits)
    }

    /// The bins, with the shingle of a text of fewer words than a shingle holds.
    fn finish_bins(self) -> Bins<'s> {
        let SignatureBuilder {
            minhasher,
            mut bins,
            words,
            ..
        } = self;
        match words {
            Shingler::Text(window) => window.finish(&mut |shingle, _| {
                bins.add(minhasher.hash(shingle));
            }),
            Shingler::Hashes(window) => window.finish(&mut |hash| bins.add(hash)),
        }
        bins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::signature::jaccard;
    use crate::fingerprint::FingerprintConfig;
    use proptest::strategy::Strategy;

    /// The shingles and length of the plugin's default signatures.
    const SHINGLES: FeatureKind = FeatureKind::ScriptShingles { words: 2, chars: 3 };

    const HASHINGS: [ShingleHashing; 2] = [ShingleHashing::Text, ShingleHashing::Words];

    fn signer_of(config: &FingerprintConfig, hashing: ShingleHashing) -> Signer {
        let hasher = SimHasher::new(config).unwrap();
        Signer::new(
            hasher,
            ChineseDictionary::default(),
            SHINGLES,
            128,
            hashing,
            KeptBits::default(),
        )
        .unwrap()
    }

    fn signer() -> Signer {
        signer_of(&FingerprintConfig::default(), ShingleHashing::default())
    }

    #[test]
    fn signatures_estimate_the_jaccard_similarity() {
        for hashing in HASHINGS {
            let signer = signer_of(&FingerprintConfig::default(), hashing);
            let text =
                "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat";
            let a = signer.sign(text);
            assert_eq!(a.values().len(), 128);
            let b = signer.sign(&text.replace("lazy", "sleepy"));
            let j = jaccard(a.values(), b.values(), KeptBits::default());
            // 3 of 15 shingles changed: exact Jaccard 12 / 18.
            assert!((j - 12.0 / 18.0).abs() < 0.15, "{hashing:?}: {j}");
            assert_eq!(jaccard(a.values(), a.values(), KeptBits::default()), 1.0);
        }
    }

    #[test]
    fn text_hashing_is_the_minhash_of_the_shingles_text() {
        // What indexes of settings format 2 and earlier store: their signatures stay
        // comparable with those of new documents.
        let signer = signer_of(&FingerprintConfig::default(), ShingleHashing::Text);
        let text = "Near-duplicate pages, 近似重复的网页 and their 指纹: one shingle each.";
        let extractor = signer.shingles.extractor();
        let shingles: Vec<(String, f32)> = extractor.features(text);
        let minhash = MinHasher::one_permutation(128, FingerprintConfig::default().get_seed())
            .unwrap()
            .signature(shingles.iter().map(|(shingle, _)| shingle));
        assert_eq!(
            signer.sign(text),
            Signature::compact(minhash.values(), KeptBits::default())
        );
    }

    #[test]
    fn word_hashing_changes_only_the_word_shingles() {
        let [text, words] =
            HASHINGS.map(|hashing| signer_of(&FingerprintConfig::default(), hashing));
        // Han n-grams and one-word texts hash alike; shingles of two words do not.
        for same in ["近似重复的网页", "word", "!!!"] {
            assert_eq!(text.sign(same), words.sign(same), "{same}");
        }
        assert_ne!(text.sign("two words"), words.sign("two words"));
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
            hashing in proptest::sample::select(HASHINGS.to_vec()),
        ) {
            let mut fingerprints = FingerprintConfig::default().seed(seed);
            match config {
                1 => fingerprints = fingerprints.features(FeatureKind::CharNgrams { n: 4 }),
                2 => fingerprints = fingerprints.weighting(Weighting::TfIdf),
                3 => fingerprints = fingerprints.max_text_bytes(20),
                _ => {}
            }
            let signer = signer_of(&fingerprints, hashing);
            proptest::prop_assert_eq!(signer.joint.is_some(), config != 1 && config != 2);
            let fingerprint = SimHasher::new(&fingerprints).unwrap().fingerprint(&text);
            let apart = (fingerprint, fingerprint.map(|_| signer.sign(&text)));
            proptest::prop_assert_eq!(signer.fingerprint_and_sign(&text), apart);
        }
    }

    /// Text with Han runs for the walks' proptests: Traditional characters and phrases that
    /// folding converts, characters of four bytes, compatibility ideographs, radicals and
    /// kana beside Han runs, Chinese punctuation between Han characters, and words of Latin
    /// and Greek script with accents, stop words and capitals.
    const HAN_TEXT: &str = "([a-zA-Z0-9]{1,5}[ ,.']?|The |and |é|İ|Ω|[門门我愛爱的北京網絡软體]{1,5}|臺灣|使用者|档案|默认|計算機|𠀀|𪚥|豈|⼀|〇|ひら|ア|ｈ|，|。|、|—|\u{3000}|\n){0,50}";

    fn foldings() -> impl Strategy<Value = crate::text::ScriptFolding> {
        use crate::text::ScriptFolding;
        proptest::prop_oneof![
            proptest::strategy::Just(ScriptFolding::Off),
            proptest::strategy::Just(ScriptFolding::Characters),
            proptest::strategy::Just(ScriptFolding::Regional),
            proptest::strategy::Just(ScriptFolding::RegionalAnyScript),
        ]
    }

    /// The signer of `shingles` beside fingerprints of `features`, tokenized with
    /// `folding` and `stop_words`.
    fn signer_with(
        features: FeatureKind,
        shingles: FeatureKind,
        folding: crate::text::ScriptFolding,
        stop_words: bool,
        hashing: ShingleHashing,
    ) -> Signer {
        let tokenizer = crate::text::TokenizerConfig::default()
            .folding(folding)
            .stop_words(stop_words);
        let fingerprints = FingerprintConfig::default()
            .tokenizer(tokenizer)
            .features(features);
        let hasher = SimHasher::new(&fingerprints).unwrap();
        Signer::new(
            hasher,
            ChineseDictionary::default(),
            shingles,
            128,
            hashing,
            KeptBits::default(),
        )
        .unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The walk of text with Han characters (the normalized text with its Han runs
        /// apart, then the words between them) gives what the fingerprint and the
        /// signature give apart, for n-grams of 2 to 5 characters.
        #[test]
        fn the_walk_of_han_text_gives_the_fingerprint_and_the_signature(
            text in HAN_TEXT,
            chars in 2usize..=5,
            folding in foldings(),
            stop_words in proptest::prelude::any::<bool>(),
            hashing in proptest::sample::select(HASHINGS.to_vec()),
        ) {
            let signer = signer_with(
                FeatureKind::CharNgrams { n: chars },
                FeatureKind::ScriptShingles { words: 2, chars },
                folding,
                stop_words,
                hashing,
            );
            proptest::prop_assert!(signer.joint.is_some());
            let fingerprint = signer.fingerprints().fingerprint(&text);
            let apart = (fingerprint, fingerprint.map(|_| signer.sign(&text)));
            proptest::prop_assert_eq!(signer.fingerprint_and_sign(&text), apart);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The walks of text without Han characters give what the fingerprint and the
        /// signature give apart. ASCII text (words and letters in one scan): capitals,
        /// infixes (`can't`, `3.14`, `e.g`), underscores and stop words. Other text (words,
        /// then the normalized characters): accents, curly quotes and dashes between ASCII
        /// words, characters that lowercase to more than one, to ASCII or not at all,
        /// combining marks after spaces, and scripts past U+3000 that are not Han.
        #[test]
        fn the_walks_without_han_give_the_fingerprint_and_the_signature(
            text in proptest::prop_oneof![
                "([a-zA-Z0-9_]{1,6}|[ ,.';:!_-]|The |and |I |\n){0,60}",
                "([a-zA-Z0-9_]{1,6}|[ ,.';:!_-]|The |and |\n|é|É|İ|ß|Σ|ς|\u{212a}|’|“|—|…|\u{a0}|\u{202f}|\u{301}|①|ﬁ|ひら|한|ｈ|😀){0,60}",
            ],
            stop_words in proptest::prelude::any::<bool>(),
            hashing in proptest::sample::select(HASHINGS.to_vec()),
        ) {
            let fingerprints = FingerprintConfig::default()
                .tokenizer(crate::text::TokenizerConfig::default().stop_words(stop_words));
            let signer = signer_of(&fingerprints, hashing);
            proptest::prop_assert!(signer.joint.is_some());
            proptest::prop_assert!(!has_han(&text));
            let fingerprint = SimHasher::new(&fingerprints).unwrap().fingerprint(&text);
            let apart = (fingerprint, fingerprint.map(|_| signer.sign(&text)));
            proptest::prop_assert_eq!(signer.fingerprint_and_sign(&text), apart);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The scan of an ASCII text's tokens signs as its shingle units do: capitals,
        /// infixes, underscores and stop words, for word and script shingles.
        #[test]
        fn the_ascii_scan_signs_as_the_units_do(
            text in "([a-zA-Z0-9_]{1,6}|[ ,.';:!_-]|The |and |I |\n){0,60}",
            stop_words in proptest::prelude::any::<bool>(),
            hashing in proptest::sample::select(HASHINGS.to_vec()),
            shingles in proptest::prop_oneof![
                (1usize..=3).prop_map(|n| FeatureKind::WordShingles { n }),
                (1usize..=3).prop_map(|words| FeatureKind::ScriptShingles { words, chars: 3 }),
            ],
        ) {
            let fingerprints = FingerprintConfig::default()
                .tokenizer(crate::text::TokenizerConfig::default().stop_words(stop_words));
            let signer = Signer::new(
                SimHasher::new(&fingerprints).unwrap(),
                ChineseDictionary::default(),
                shingles,
                128,
                hashing,
                KeptBits::default(),
            )
            .unwrap();
            proptest::prop_assert!(signer.ascii_words);
            let mut by_units = signer.builder();
            signer.add_units(&text, &mut by_units);
            proptest::prop_assert_eq!(signer.sign(&text), by_units.finish());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The Han runs taken apart sign as the script shingle units do, for shingles of 1
        /// to 3 words and 1 to 5 Han characters.
        #[test]
        fn the_han_text_signs_as_the_units_do(
            text in HAN_TEXT,
            words in 1usize..=3,
            chars in 1usize..=5,
            folding in foldings(),
            stop_words in proptest::prelude::any::<bool>(),
            hashing in proptest::sample::select(HASHINGS.to_vec()),
        ) {
            let shingles = FeatureKind::ScriptShingles { words, chars };
            let features = FingerprintConfig::default().get_features();
            let signer = signer_with(features, shingles, folding, stop_words, hashing);
            let mut by_units = signer.builder();
            signer.add_units(&text, &mut by_units);
            proptest::prop_assert_eq!(signer.sign(&text), by_units.finish());
        }
    }

    #[test]
    fn no_shingles_is_no_evidence() {
        let signer = signer();
        let empty = signer.sign("!!! ...");
        assert_eq!(
            jaccard(empty.values(), empty.values(), KeptBits::default()),
            0.0
        );
    }
}
