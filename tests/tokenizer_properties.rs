//! Properties of the tokenizer and the fingerprint on arbitrary text: no panic, offsets that
//! point at the tokens, and fingerprints that do not depend on what the tokenizer drops.

use proptest::prelude::*;
use tantivy::tokenizer::{TokenStream, Tokenizer};
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::text::{FeatureKind, MixedTokenizer};

/// Text mixing Han characters (Simplified and Traditional), Latin, digits, punctuation,
/// whitespace, emoji, combining marks, right-to-left script and control characters.
fn mixed_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "我",
        "爱",
        "北京",
        "天安門",
        "軟體",
        "的",
        "，",
        "。",
        "Beijing's",
        "2008",
        "ÉCOLE",
        " ",
        "\n",
        "\t",
        "😀",
        "e\u{301}",
        "שלום",
        "مرحبا",
        "\u{0}",
        "\u{7}",
        "-",
        "...",
        "a",
        "Z",
        "𠀀",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

/// Non-Han text rich in the characters UAX #29 treats specially between words: apostrophes,
/// periods, commas, colons, underscores, digits, Hebrew letters and quotes, Katakana, fullwidth
/// forms, and the spaces and punctuation the tokenizer cuts at. No combining marks: after a
/// punctuation mark they are a word of their own for the tokenizer, part of the mark for UAX #29.
fn latin_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "Z", "é", "ß", "1", "2", "'", ".", ",", ":", ";", "_", "-", " ", "\n", "\u{a0}", "(",
        ")", "!", "?", "/", "@", "#", "%", "\"", "א", "ב", "״", "カ", "ナ", "ー", "０", "，", "．",
        "：", "；", "（", "）", "“", "”", "—", "…", "、", "。", "《", "》", "«", "»", "😀", "e.g.",
        "3.14", "1,000", "can't", "U.S.A", "a_b", "x86_64",
    ]);
    prop::collection::vec(pieces, 0..30).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tokens_are_well_formed(text in prop_oneof![mixed_text(), any::<String>()]) {
        let mut tokenizer = MixedTokenizer::new();
        let mut stream = tokenizer.token_stream(&text);
        let mut position = 0;
        let mut last_start = 0;
        while let Some(token) = stream.next() {
            prop_assert!(!token.text.is_empty());
            prop_assert!(token.offset_from < token.offset_to);
            prop_assert!(text.is_char_boundary(token.offset_from) && text.is_char_boundary(token.offset_to));
            prop_assert!(token.offset_from >= last_start, "tokens come in text order");
            prop_assert_eq!(token.position, position);
            prop_assert!(!token.text.chars().any(char::is_whitespace));
            position += 1;
            last_start = token.offset_from;
        }
    }

    #[test]
    fn cutting_at_spaces_and_punctuation_keeps_every_uax29_word(text in latin_text()) {
        use unicode_segmentation::UnicodeSegmentation;
        let tokenizer = MixedTokenizer::new();
        let mut ours = Vec::new();
        tokenizer.for_each_token(&text, |word, range| ours.push((word.to_owned(), range.start, range.end)));
        let reference: Vec<(String, usize, usize)> = text
            .unicode_word_indices()
            .map(|(offset, word)| (word.to_lowercase(), offset, offset + word.len()))
            .collect();
        prop_assert_eq!(ours, reference);
    }

    #[test]
    fn fingerprints_ignore_punctuation_and_spacing(text in mixed_text()) {
        let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
        // '。' separates words everywhere; '，' would not do: between digits it is a thousands
        // separator to UAX #29 ("2008，2008" is one number).
        let respaced: String = text.chars().flat_map(|c| match c {
            '。' => vec![' '],
            ' ' => vec![' ', ' ', '\n'],
            c => vec![c],
        }).collect();
        prop_assert_eq!(hasher.fingerprint(&text), hasher.fingerprint(&respaced));
    }

    #[test]
    fn every_feature_kind_handles_any_text(text in any::<String>(), n in 1usize..6) {
        for kind in [FeatureKind::Words, FeatureKind::WordShingles { n }, FeatureKind::CharNgrams { n }] {
            let hasher = SimHasher::new(&FingerprintConfig::default().features(kind)).unwrap();
            let has_alphanumeric = text.chars().any(char::is_alphanumeric);
            let fingerprint = hasher.fingerprint(&text);
            if !has_alphanumeric {
                prop_assert_eq!(fingerprint, None);
            }
        }
    }
}
