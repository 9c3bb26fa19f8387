//! Features: the pieces of a text that its fingerprint is made of ([`FeatureKind`]), and
//! [`FeatureExtractor`], which weighs them.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::text::idf::IdfSource;
use crate::text::script::has_han;
use crate::text::tokenizer::ScriptUnit;
use crate::text::weighting::{length_relevance, Weighting};
use crate::text::windows::{char_windows, CharNgrams, WordShingles};
use crate::text::MixedTokenizer;

/// The largest `n` accepted for shingles and n-grams.
pub const MAX_FEATURE_N: usize = 16;

/// What a text's features are.
///
/// - **words**: each token. Robust to reordering, blind to it.
/// - **word shingles** of `n`: each run of `n` consecutive tokens (Broder's shingles); they keep
///   local word order, so two texts with the same vocabulary but different sentences differ
///   more.
/// - **character n-grams** of `n`: each run of `n` consecutive letters or digits of the
///   normalized text (lowercased, folded, whitespace and punctuation skipped); no segmentation
///   is needed, so they are indifferent to segmentation errors.
///
/// A text shorter than one shingle or one n-gram yields a single feature of all it has, so that
/// short texts still get a fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FeatureKind {
    /// Every token.
    Words,
    /// Every run of `n` consecutive tokens.
    WordShingles {
        /// Tokens per shingle, in `1..=16`.
        n: usize,
    },
    /// Every run of `n` consecutive letters or digits.
    CharNgrams {
        /// Characters per n-gram, in `1..=16`.
        n: usize,
    },
    /// By script, without segmenting Chinese: every run of `words` consecutive tokens of the
    /// non-Han text, and every run of `chars` consecutive characters of the Han text (each
    /// part read as if the other were not there).
    ScriptShingles {
        /// Tokens per shingle outside Han text, in `1..=16`.
        words: usize,
        /// Characters per n-gram of Han text, in `1..=16`.
        chars: usize,
    },
}

impl FeatureKind {
    /// Checks that `n` is in range.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for `n = 0` or `n > 16`.
    pub fn validate(self) -> Result<()> {
        let check = |name, n: usize| {
            if (1..=MAX_FEATURE_N).contains(&n) {
                Ok(())
            } else {
                Err(Error::InvalidSetting {
                    name,
                    reason: format!("{n} is outside 1..={MAX_FEATURE_N}"),
                })
            }
        };
        match self {
            FeatureKind::Words => Ok(()),
            FeatureKind::WordShingles { n } | FeatureKind::CharNgrams { n } => {
                check("features.n", n)
            }
            FeatureKind::ScriptShingles { words, chars } => {
                check("features.words", words)?;
                check("features.chars", chars)
            }
        }
    }
}

impl std::fmt::Display for FeatureKind {
    /// `words`, `shingles-N`, `chargrams-N` or `scripts-W-C`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeatureKind::Words => f.write_str("words"),
            FeatureKind::WordShingles { n } => write!(f, "shingles-{n}"),
            FeatureKind::CharNgrams { n } => write!(f, "chargrams-{n}"),
            FeatureKind::ScriptShingles { words, chars } => write!(f, "scripts-{words}-{chars}"),
        }
    }
}

impl std::str::FromStr for FeatureKind {
    type Err = Error;

    /// The inverse of `Display`: `words`, `shingles-N`, `chargrams-N` or `scripts-W-C`, with
    /// the numbers in range.
    fn from_str(text: &str) -> Result<Self> {
        let invalid = || Error::InvalidSetting {
            name: "features",
            reason: format!("{text:?} is not words, shingles-N, chargrams-N or scripts-W-C"),
        };
        let number = |n: &str| n.parse::<usize>().map_err(|_| invalid());
        let kind = match text.split_once('-') {
            None if text == "words" => FeatureKind::Words,
            Some(("shingles", n)) => FeatureKind::WordShingles { n: number(n)? },
            Some(("chargrams", n)) => FeatureKind::CharNgrams { n: number(n)? },
            Some(("scripts", rest)) => {
                let (words, chars) = rest.split_once('-').ok_or_else(invalid)?;
                FeatureKind::ScriptShingles {
                    words: number(words)?,
                    chars: number(chars)?,
                }
            }
            _ => return Err(invalid()),
        };
        kind.validate()?;
        Ok(kind)
    }
}

/// Calls `emit` with every IDF unit of `text`: each word for word and shingle features, each
/// n-gram for n-gram features.
pub(crate) fn for_each_unit(
    tokenizer: &MixedTokenizer,
    kind: FeatureKind,
    text: &str,
    mut emit: impl FnMut(&str),
) {
    match kind {
        FeatureKind::Words | FeatureKind::WordShingles { .. } => {
            tokenizer.for_each_token(text, |word, _| emit(word))
        }
        FeatureKind::CharNgrams { n } => for_each_char_ngram(tokenizer, n, text, emit),
        FeatureKind::ScriptShingles { chars, .. } => {
            let mut grams = CharNgrams::new(chars);
            tokenizer.for_each_script_unit(text, |unit| match unit {
                ScriptUnit::Word(word) => emit(word),
                ScriptUnit::Han(c) => grams.push(c, &mut emit),
            });
            grams.finish(&mut emit);
        }
    }
}

/// Calls `emit` with every character n-gram of `text`, in order (the whole normalized text
/// when it has fewer than `n` characters).
pub(crate) fn for_each_char_ngram(
    tokenizer: &MixedTokenizer,
    n: usize,
    text: &str,
    mut emit: impl FnMut(&str),
) {
    if has_han(text) {
        // Chinese: each character into the window as it is decoded, once.
        let mut grams = CharNgrams::with_capacity(n, text.len());
        tokenizer.for_each_normalized_char(text, |c| grams.push(c, &mut emit));
        grams.finish(&mut emit);
        return;
    }
    // Other text: the ASCII stretches normalized without decoding, and the windows over
    // bytes when every normalized character is ASCII (most English).
    let normalized = tokenizer.normalized_text(text);
    if normalized.is_ascii() {
        AsciiNgrams::of_normalized(n, normalized)
            .iter()
            .for_each(emit);
    } else {
        char_windows(n, &normalized).for_each(emit);
    }
}

/// The character n-grams of a text whose normalized characters are all ASCII (most English
/// documents, curly quotes and dashes included): its letters and digits, lowercased, one
/// byte each, and the n-grams the windows over them, without a ring of starts. An
/// iterator, so that the caller's loop holds the hashing and counting: through a callback,
/// the call per n-gram was not inlined and cost a sixth of the time of fingerprinting
/// English.
pub(crate) struct AsciiNgrams {
    normalized: String,
    n: usize,
}

impl AsciiNgrams {
    /// The n-grams of text already normalized: ASCII letters and digits, lowercased.
    pub(crate) fn of_normalized(n: usize, normalized: String) -> Self {
        debug_assert!(normalized
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        AsciiNgrams { normalized, n }
    }

    /// The n-grams in order; the whole normalized text when it is shorter than n, nothing
    /// when it is empty.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let len = self.normalized.len();
        let (width, count) = if len < self.n {
            (len, usize::from(len > 0))
        } else {
            (self.n, len - self.n + 1)
        };
        (0..count).map(move |start| &self.normalized[start..start + width])
    }
}

/// Turns text into weighted features: the tokenizer, the feature kind and the weighting
/// together.
#[derive(Clone, Debug)]
pub struct FeatureExtractor {
    tokenizer: MixedTokenizer,
    kind: FeatureKind,
    weighting: Weighting,
    idf: Option<Arc<dyn IdfSource>>,
}

impl FeatureExtractor {
    /// An extractor; `idf` is required when `weighting` [uses IDF](Weighting::uses_idf).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when `kind` is out of range or the weighting needs an IDF
    /// source and none is given.
    pub fn new(
        tokenizer: MixedTokenizer,
        kind: FeatureKind,
        weighting: Weighting,
        idf: Option<Arc<dyn IdfSource>>,
    ) -> Result<Self> {
        kind.validate()?;
        if weighting.uses_idf() && idf.is_none() {
            return Err(Error::InvalidSetting {
                name: "weighting",
                reason: format!("{weighting:?} needs an IDF source"),
            });
        }
        Ok(FeatureExtractor {
            tokenizer,
            kind,
            weighting,
            idf: if weighting.uses_idf() { idf } else { None },
        })
    }

    /// The tokenizer features are made from.
    #[must_use]
    pub fn tokenizer(&self) -> &MixedTokenizer {
        &self.tokenizer
    }

    /// The kind of features it gives.
    #[must_use]
    pub fn kind(&self) -> FeatureKind {
        self.kind
    }

    /// Calls `emit(feature, weight)` for every feature occurrence of `text`, in text order.
    /// A feature occurring three times is emitted three times: that is its term frequency.
    pub fn for_each_feature(&self, text: &str, mut emit: impl FnMut(&str, f32)) {
        match self.kind {
            FeatureKind::Words => self
                .tokenizer
                .for_each_token(text, |word, _| emit(word, self.unit_weight(word))),
            FeatureKind::WordShingles { n } => self.for_each_shingle(n, text, emit),
            FeatureKind::CharNgrams { n } => {
                for_each_char_ngram(&self.tokenizer, n, text, |gram| {
                    emit(gram, self.idf_weight(gram))
                });
            }
            FeatureKind::ScriptShingles { words, chars } => {
                self.for_each_script_shingle(words, chars, text, emit)
            }
        }
    }

    /// The features of `text` with their summed weights, in order of first occurrence: for
    /// inspection and tests (fingerprinting uses [`for_each_feature`](Self::for_each_feature)).
    #[must_use]
    pub fn features(&self, text: &str) -> Vec<(String, f32)> {
        let mut out: Vec<(String, f32)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        self.for_each_feature(text, |feature, weight| match index.get(feature) {
            Some(&i) => out[i].1 += weight,
            None => {
                index.insert(feature.to_owned(), out.len());
                out.push((feature.to_owned(), weight));
            }
        });
        out
    }

    fn for_each_shingle(&self, n: usize, text: &str, mut emit: impl FnMut(&str, f32)) {
        let mut shingles = WordShingles::new(n);
        self.tokenizer.for_each_token(text, |word, _| {
            shingles.push(word, self.unit_weight(word), &mut emit)
        });
        shingles.finish(&mut emit);
    }

    fn for_each_script_shingle(
        &self,
        words: usize,
        chars: usize,
        text: &str,
        mut emit: impl FnMut(&str, f32),
    ) {
        let mut shingles = WordShingles::new(words);
        let mut grams = CharNgrams::new(chars);
        self.tokenizer
            .for_each_script_unit(text, |unit| match unit {
                ScriptUnit::Word(word) => shingles.push(word, self.unit_weight(word), &mut emit),
                ScriptUnit::Han(c) => grams.push(c, &mut |gram| emit(gram, self.idf_weight(gram))),
            });
        shingles.finish(&mut emit);
        grams.finish(&mut |gram| emit(gram, self.idf_weight(gram)));
    }

    /// The weight of one word: its IDF and length relevance as the weighting asks.
    #[inline]
    fn unit_weight(&self, word: &str) -> f32 {
        let mut weight = self.idf_weight(word);
        if self.weighting.uses_length() {
            weight *= length_relevance(word.chars().count());
        }
        weight
    }

    #[inline]
    fn idf_weight(&self, unit: &str) -> f32 {
        self.idf
            .as_ref()
            .map_or(1.0, |idf| idf.idf_or_default(unit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::IdfTable;

    fn extractor(kind: FeatureKind, weighting: Weighting) -> FeatureExtractor {
        let idf: Arc<dyn IdfSource> = IdfTable::jieba();
        FeatureExtractor::new(MixedTokenizer::new(), kind, weighting, Some(idf)).unwrap()
    }

    fn names(features: Vec<(String, f32)>) -> Vec<String> {
        features.into_iter().map(|f| f.0).collect()
    }

    #[test]
    fn kinds_parse_as_they_print() {
        for kind in [
            FeatureKind::Words,
            FeatureKind::WordShingles { n: 3 },
            FeatureKind::CharNgrams { n: 16 },
            FeatureKind::ScriptShingles { words: 2, chars: 3 },
        ] {
            assert_eq!(kind.to_string().parse::<FeatureKind>().unwrap(), kind);
        }
        for bad in [
            "word",
            "shingles",
            "chargrams-0",
            "chargrams-17",
            "ngrams-3",
            "shingles-x",
            "scripts-2",
            "scripts-2-0",
            "scripts-0-3",
            "scripts-2-3-4",
        ] {
            assert!(bad.parse::<FeatureKind>().is_err(), "{bad}");
        }
    }

    #[test]
    fn script_shingles_cut_no_chinese_words() {
        let e = extractor(
            FeatureKind::ScriptShingles { words: 2, chars: 3 },
            Weighting::Tf,
        );
        // Word pairs of the Latin text, read across the Chinese; character 3-grams of the
        // Chinese, read across the Latin and the punctuation, folded.
        assert_eq!(
            names(e.features("Beijing's Olympics 我愛北京, in 2008 天安門")),
            [
                "beijing's olympics",
                "我爱北",
                "爱北京",
                "olympics in",
                "in 2008",
                "北京天",
                "京天安",
                "天安门",
            ]
        );
        // Too short for a shingle or an n-gram: one feature of all there is, per script.
        assert_eq!(names(e.features("Hi 北京")), ["hi", "北京"]);
        assert!(e.features(" ,。 ").is_empty());
    }

    #[test]
    fn words_count_each_occurrence() {
        let features = extractor(FeatureKind::Words, Weighting::Tf).features("a b a, A!");
        assert_eq!(features, vec![("a".to_owned(), 3.0), ("b".to_owned(), 1.0)]);
    }

    #[test]
    fn shingles_slide_over_tokens() {
        let e = extractor(FeatureKind::WordShingles { n: 2 }, Weighting::Tf);
        assert_eq!(
            names(e.features("One two, three four")),
            ["one two", "two three", "three four"]
        );
        assert_eq!(names(e.features("alone")), ["alone"]);
        assert!(e.features("  ,, ").is_empty());
        let e3 = extractor(FeatureKind::WordShingles { n: 3 }, Weighting::Tf);
        assert_eq!(
            names(e3.features("我爱北京天安门")),
            ["我 爱 北京", "爱 北京 天安门"]
        );
    }

    proptest::proptest! {
        /// The ASCII stretches of `normalized_text` keep what normalization keeps, for every
        /// ASCII byte, between other characters too.
        #[test]
        fn ascii_stretches_keep_the_normalized_characters(
            text in "([\\x00-\\x7f]|é|’|門|①){0,80}",
        ) {
            let tokenizer = MixedTokenizer::new();
            let mut normalized = String::new();
            tokenizer.for_each_normalized_char(&text, |c| normalized.push(c));
            proptest::prop_assert_eq!(tokenizer.normalized_text(&text), normalized);
        }
    }

    #[test]
    fn char_ngrams_skip_punctuation_and_fold() {
        let e = extractor(FeatureKind::CharNgrams { n: 3 }, Weighting::Tf);
        assert_eq!(names(e.features("Ab, c-D!")), ["abc", "bcd"]);
        assert_eq!(names(e.features("門門")), ["门门"]);
        assert_eq!(names(e.features("我愛北京")), ["我爱北", "爱北京"]);
    }

    #[test]
    fn idf_weights_rare_words_higher() {
        let e = extractor(FeatureKind::Words, Weighting::TfIdf);
        let features = e.features("中国 劳动防护");
        assert_eq!(features.len(), 2);
        assert!(features[1].1 > features[0].1);
    }

    #[test]
    fn length_weight_multiplies_idf() {
        let tfidf = extractor(FeatureKind::Words, Weighting::TfIdf).features("劳动防护 a");
        let length = extractor(FeatureKind::Words, Weighting::TfIdfLength).features("劳动防护 a");
        assert!((length[0].1 - tfidf[0].1 * length_relevance(4)).abs() < 1e-5);
        assert!((length[1].1 - tfidf[1].1 * length_relevance(1)).abs() < 1e-5);
    }

    #[test]
    fn out_of_range_n_and_missing_idf_are_refused() {
        for kind in [
            FeatureKind::WordShingles { n: 0 },
            FeatureKind::CharNgrams { n: 17 },
        ] {
            assert!(matches!(kind.validate(), Err(Error::InvalidSetting { .. })));
        }
        let missing = FeatureExtractor::new(
            MixedTokenizer::new(),
            FeatureKind::Words,
            Weighting::TfIdf,
            None,
        );
        assert!(matches!(
            missing,
            Err(Error::InvalidSetting {
                name: "weighting",
                ..
            })
        ));
    }

    #[test]
    fn serde_form_is_tagged() {
        let json = serde_json::to_string(&FeatureKind::WordShingles { n: 2 }).unwrap();
        assert_eq!(json, r#"{"kind":"word-shingles","n":2}"#);
        assert_eq!(FeatureKind::CharNgrams { n: 4 }.to_string(), "chargrams-4");
    }
}
