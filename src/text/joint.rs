//! The features of a character n-gram fingerprint and the units of a script shingle
//! signature, in one walk over the text.
//!
//! An index that verifies candidates needs both for every document it takes: the
//! fingerprint's n-grams of all normalized characters, and the signature's word shingles of
//! the non-Han text with n-grams of the Han text. Two walks decoded, normalized and folded
//! the text twice, on the thread that calls `DedupWriter::add`, where every cycle is taken
//! from the indexing. And where n Han characters follow each other (with nothing but
//! punctuation and spaces between them), the signature's n-gram is the fingerprint's: one
//! hash serves both.

use crate::text::tokenizer::JointUnit;
use crate::text::windows::CharNgrams;
use crate::text::MixedTokenizer;

/// What [`for_each_joint_feature`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JointFeature<'a> {
    /// An n-gram of the fingerprint's only.
    Fingerprint(&'a str),
    /// An n-gram of both: n characters of Han text with no other letter or digit between
    /// them (punctuation and spaces may be).
    Both(&'a str),
    /// A feature of the signature's only: an n-gram of Han characters with other letters or
    /// digits between them (or of fewer than n, when the text has fewer).
    Signature(&'a str),
    /// A word of the non-Han text, which the signature takes in shingles of several words.
    Word(&'a str),
}

/// Calls `emit` for every feature occurrence of `text` under both feature kinds: the
/// character `chars`-grams of the fingerprint (`FeatureKind::CharNgrams`), and the script
/// shingles of `chars` Han characters and of words of the signature
/// (`FeatureKind::ScriptShingles`). The fingerprint's features, `Fingerprint` and `Both`,
/// are those that [`FeatureExtractor`](super::FeatureExtractor) gives for the first kind,
/// in its order; the signature's units, `Both`, `Signature` and `Word`, those that
/// [`for_each_shingle_unit`](super::for_each_shingle_unit) gives for the second, each kind
/// of unit in its order.
pub(crate) fn for_each_joint_feature(
    tokenizer: &MixedTokenizer,
    chars: usize,
    text: &str,
    mut emit: impl FnMut(JointFeature<'_>),
) {
    let mut grams = CharNgrams::with_capacity(chars, text.len());
    let mut han_grams = CharNgrams::new(chars);
    // How many of the last characters of the fingerprint's stream came from Han text: from
    // `chars` on, its window and the Han window hold the same characters.
    let mut han_tail = 0;
    tokenizer.for_each_joint_unit(text, |unit| match unit {
        JointUnit::Char(c) => {
            han_tail = 0;
            grams.push(c, &mut |gram| emit(JointFeature::Fingerprint(gram)));
        }
        JointUnit::Han(c) => {
            han_tail += 1;
            if han_tail >= chars {
                grams.push(c, &mut |gram| emit(JointFeature::Both(gram)));
                han_grams.push(c, &mut |_| {});
            } else {
                grams.push(c, &mut |gram| emit(JointFeature::Fingerprint(gram)));
                han_grams.push(c, &mut |gram| emit(JointFeature::Signature(gram)));
            }
        }
        JointUnit::Word(word) => emit(JointFeature::Word(word)),
    });
    grams.finish(&mut |gram| emit(JointFeature::Fingerprint(gram)));
    han_grams.finish(&mut |gram| emit(JointFeature::Signature(gram)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{
        for_each_shingle_unit, FeatureExtractor, FeatureKind, ScriptFolding, ShingleUnit,
        TokenizerConfig, Weighting,
    };
    use proptest::prelude::*;

    /// The features of one kind, in order, as the extractor gives them.
    fn features(tokenizer: &MixedTokenizer, kind: FeatureKind, text: &str) -> Vec<String> {
        let extractor = FeatureExtractor::new(tokenizer.clone(), kind, Weighting::Tf, None)
            .expect("valid kind");
        let mut out = Vec::new();
        extractor.for_each_feature(text, |feature, _| out.push(feature.to_owned()));
        out
    }

    /// The units of script shingles of `chars` Han characters, words and whole features
    /// apart, each in order, as `for_each_shingle_unit` gives them.
    fn shingle_units(tokenizer: &MixedTokenizer, chars: usize, text: &str) -> [Vec<String>; 2] {
        let kind = FeatureKind::ScriptShingles { words: 2, chars };
        let extractor = FeatureExtractor::new(tokenizer.clone(), kind, Weighting::Tf, None)
            .expect("valid kind");
        let [mut words, mut features] = [Vec::new(), Vec::new()];
        for_each_shingle_unit(&extractor, text, |unit| match unit {
            ShingleUnit::Word(word) => words.push(word.to_owned()),
            ShingleUnit::Feature(feature) => features.push(feature.to_owned()),
        });
        [words, features]
    }

    /// The fingerprint's features, and the signature's words and whole features, of the
    /// joint walk, each in order.
    fn joint(tokenizer: &MixedTokenizer, chars: usize, text: &str) -> [Vec<String>; 3] {
        let [mut fingerprint, mut words, mut signature] = [Vec::new(), Vec::new(), Vec::new()];
        for_each_joint_feature(tokenizer, chars, text, |feature| match feature {
            JointFeature::Fingerprint(gram) => fingerprint.push(gram.to_owned()),
            JointFeature::Both(gram) => {
                fingerprint.push(gram.to_owned());
                signature.push(gram.to_owned());
            }
            JointFeature::Signature(feature) => signature.push(feature.to_owned()),
            JointFeature::Word(word) => words.push(word.to_owned()),
        });
        [fingerprint, words, signature]
    }

    #[test]
    fn han_runs_share_their_ngrams() {
        let tokenizer = MixedTokenizer::new();
        let mut both = Vec::new();
        for_each_joint_feature(
            &tokenizer,
            3,
            "我爱北京, the Great Wall 天安门",
            |f| {
                if let JointFeature::Both(gram) = f {
                    both.push(gram.to_owned());
                }
            },
        );
        // "京天安" spans English words: the signature's Han n-gram, not the fingerprint's.
        assert_eq!(both, ["我爱北", "爱北京", "天安门"]);
    }

    proptest! {
        /// Each side of the joint walk is what its kind gives alone (the extractor's
        /// n-grams, the signature's units), in the same order, for mixed scripts, stop
        /// words, in-word punctuation and folding.
        #[test]
        fn each_side_is_its_extractors_features(
            text in "([a-zA-Z0-9]{1,3}[ ,.'_:]?|[ ,.'_:]|the |and |İ|門|门|我|愛|爱|的|é|Ω|ı|①|\u{301}|\u{202f}|，|。|—){0,60}",
            chars in 1usize..=5,
            folding in prop_oneof![
                Just(ScriptFolding::Off),
                Just(ScriptFolding::Characters),
                Just(ScriptFolding::Regional),
            ],
            stop_words in any::<bool>(),
        ) {
            let config = TokenizerConfig::default().folding(folding).stop_words(stop_words);
            let tokenizer = MixedTokenizer::from_config(&config).unwrap();
            let [fingerprint, words, signature] = joint(&tokenizer, chars, &text);
            prop_assert_eq!(fingerprint, features(&tokenizer, FeatureKind::CharNgrams { n: chars }, &text));
            prop_assert_eq!([words, signature], shingle_units(&tokenizer, chars, &text));
        }
    }
}
