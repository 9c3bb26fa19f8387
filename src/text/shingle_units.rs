//! The units a signature's shingles are made of: words, which the signer takes a few at a
//! time (by their text or by their hashes, as its `ShingleHashing` says), and features
//! that stand whole (character n-grams, Han n-grams, single words).

use crate::text::tokenizer::ScriptUnit;
use crate::text::windows::CharNgrams;
use crate::text::{FeatureExtractor, FeatureKind};

/// What [`for_each_shingle_unit`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShingleUnit<'a> {
    /// A word of the text, to be taken in shingles of [`shingle_words`] words.
    Word(&'a str),
    /// A whole feature.
    Feature(&'a str),
}

/// The number of words per shingle of `kind`: 1 when it shingles no words.
pub(crate) fn shingle_words(kind: FeatureKind) -> usize {
    match kind {
        FeatureKind::WordShingles { n } => n,
        FeatureKind::ScriptShingles { words, .. } => words,
        FeatureKind::Words | FeatureKind::CharNgrams { .. } => 1,
    }
}

/// Calls `emit` for every unit of the features of `text` under `extractor`'s kind: the
/// tokens of word shingles and the non-Han tokens of script shingles as
/// [`ShingleUnit::Word`]s, each in text order; every other feature (Han n-grams of script
/// shingles, character n-grams, words) as a [`ShingleUnit::Feature`]. The word shingles of
/// the words, with the features, are the features the extractor gives.
pub(crate) fn for_each_shingle_unit(
    extractor: &FeatureExtractor,
    text: &str,
    mut emit: impl FnMut(ShingleUnit<'_>),
) {
    let tokenizer = extractor.tokenizer();
    match extractor.kind() {
        FeatureKind::WordShingles { .. } => {
            tokenizer.for_each_token(text, |word, _| emit(ShingleUnit::Word(word)));
        }
        FeatureKind::ScriptShingles { chars, .. } => {
            let mut grams = CharNgrams::new(chars);
            tokenizer.for_each_script_unit(text, |unit| match unit {
                ScriptUnit::Word(word) => emit(ShingleUnit::Word(word)),
                ScriptUnit::Han(c) => grams.push(c, &mut |gram| emit(ShingleUnit::Feature(gram))),
            });
            grams.finish(&mut |gram| emit(ShingleUnit::Feature(gram)));
        }
        FeatureKind::Words | FeatureKind::CharNgrams { .. } => {
            extractor.for_each_feature(text, |feature, _| emit(ShingleUnit::Feature(feature)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::windows::WordShingles;
    use crate::text::{MixedTokenizer, Weighting};
    use proptest::prelude::*;

    proptest! {
        /// Shingling the words and adding the whole features gives the extractor's
        /// features, for every kind.
        #[test]
        fn the_units_make_the_extractors_features(
            text in "([a-zA-Z0-9]{1,3}[ ,.']?|the |我|愛|爱|的|é|，|。){0,40}",
            kind in prop_oneof![
                (1usize..=4).prop_map(|n| FeatureKind::WordShingles { n }),
                (1usize..=4, 1usize..=4)
                    .prop_map(|(words, chars)| FeatureKind::ScriptShingles { words, chars }),
                (1usize..=4).prop_map(|n| FeatureKind::CharNgrams { n }),
                Just(FeatureKind::Words),
            ],
        ) {
            let extractor =
                FeatureExtractor::new(MixedTokenizer::new(), kind, Weighting::Tf, None).unwrap();
            let mut expected = Vec::new();
            extractor.for_each_feature(&text, |feature, _| expected.push(feature.to_owned()));
            let mut shingles = WordShingles::new(shingle_words(kind));
            let mut units = Vec::new();
            for_each_shingle_unit(&extractor, &text, |unit| match unit {
                ShingleUnit::Word(word) => {
                    shingles.push(word, 1.0, &mut |s, _| units.push(s.to_owned()))
                }
                ShingleUnit::Feature(feature) => units.push(feature.to_owned()),
            });
            shingles.finish(&mut |s, _| units.push(s.to_owned()));
            expected.sort();
            units.sort();
            prop_assert_eq!(units, expected);
        }
    }
}
