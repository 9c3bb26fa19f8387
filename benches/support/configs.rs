//! The fingerprint configurations whose throughput is measured, shared by
//! `benches/fingerprint.rs` and `examples/throughput.rs` (included by both with `#[path]`),
//! so that criterion and the side-by-side comparison label the same settings alike.

use tantivy_dedup::fingerprint::FingerprintConfig;
use tantivy_dedup::text::{FeatureKind, ScriptFolding, TokenizerConfig, Weighting};

/// The default config and variations of one setting at a time, with their labels.
pub fn configs() -> Vec<(&'static str, FingerprintConfig)> {
    // The default is character 3-grams, TF, regional-any-script folding; the word configs
    // start from it with word features.
    let default = FingerprintConfig::default();
    let no_fold = TokenizerConfig::default().folding(ScriptFolding::Off);
    let words = default.clone().features(FeatureKind::Words);
    vec![
        ("default (chargrams-3/tf)", default.clone()),
        (
            "chargrams-3/tf/fold-off",
            default.clone().tokenizer(no_fold.clone()),
        ),
        (
            "chargrams-3/tfidf",
            default.clone().weighting(Weighting::TfIdf),
        ),
        (
            "chargrams-4/tf",
            default.clone().features(FeatureKind::CharNgrams { n: 4 }),
        ),
        ("words/tf", words.clone()),
        ("words/tfidf", words.clone().weighting(Weighting::TfIdf)),
        (
            "words/tfidf-length",
            words.clone().weighting(Weighting::TfIdfLength),
        ),
        (
            "words/tfidf-length/fold-off",
            words
                .clone()
                .weighting(Weighting::TfIdfLength)
                .tokenizer(no_fold),
        ),
        (
            "words/tfidf/no-hmm",
            words
                .clone()
                .weighting(Weighting::TfIdf)
                .tokenizer(TokenizerConfig::default().hmm(false)),
        ),
        (
            "shingles-2/tf",
            words.clone().features(FeatureKind::WordShingles { n: 2 }),
        ),
        (
            "shingles-3/tfidf",
            words
                .features(FeatureKind::WordShingles { n: 3 })
                .weighting(Weighting::TfIdf),
        ),
    ]
}
