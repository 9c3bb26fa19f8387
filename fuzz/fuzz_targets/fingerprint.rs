//! Any bytes through the tokenizer, every feature kind, the fingerprinter and MinHash: no
//! panic; tokens are non-empty, in text order, on character boundaries; a fingerprint exists
//! exactly when there are features; strict UTF-8 agrees with `str::from_utf8`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::fingerprint::{MinHasher, Utf8Policy};
use tantivy_dedup::text::{FeatureKind, MixedTokenizer};

struct Setup {
    tokenizer: MixedTokenizer,
    hashers: Vec<SimHasher>,
    minhasher: MinHasher,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| Setup {
        tokenizer: MixedTokenizer::new(),
        hashers: [
            FeatureKind::CharNgrams { n: 3 },
            FeatureKind::Words,
            FeatureKind::WordShingles { n: 2 },
            FeatureKind::ScriptShingles { words: 2, chars: 3 },
        ]
        .into_iter()
        .map(|kind| SimHasher::new(&FingerprintConfig::default().features(kind)).unwrap())
        .collect(),
        minhasher: MinHasher::new(16, 0).unwrap(),
    })
}

fuzz_target!(|bytes: &[u8]| {
    let setup = setup();
    let strict = setup.hashers[0].fingerprint_bytes(bytes, Utf8Policy::Strict);
    assert_eq!(strict.is_ok(), std::str::from_utf8(bytes).is_ok());
    let text = String::from_utf8_lossy(bytes);
    let mut end = 0;
    let mut words = Vec::new();
    setup.tokenizer.for_each_token(&text, |token, range| {
        assert!(!token.is_empty());
        assert!(range.start >= end && range.start < range.end && range.end <= text.len());
        assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
        end = range.end;
        words.push(token.to_owned());
    });
    for hasher in &setup.hashers {
        let features = hasher.extractor().features(&text);
        let fingerprint = hasher.fingerprint(&text);
        // Texts over the size bound are fingerprinted on a prefix: only check the short ones.
        if text.len() < 1 << 16 {
            assert_eq!(fingerprint.is_some(), !features.is_empty());
        }
    }
    let signature = setup.minhasher.signature(&words);
    let jaccard = signature.jaccard(&signature).unwrap();
    assert!(jaccard == 1.0 || words.is_empty());
});
