//! Golden values: fingerprints of fixed texts under fixed configs, pinned so that they never
//! change by accident, across versions and platforms. A change here is a change of
//! `FORMAT_VERSION`: every stored fingerprint would become incomparable.

use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::text::{FeatureKind, ScriptFolding, TokenizerConfig, Weighting};

const TEXTS: [&str; 5] = [
    "我爱北京天安门 and Beijing's 2008 Olympics",
    "The quick brown fox jumps over the lazy dog. The dog sleeps.",
    "搜尋引擎每天抓取大量網頁，其中很多網頁內容幾乎相同。",
    "tantivy 是一个用 Rust 编写的全文搜索引擎库，设计上参考了 Lucene。",
    "使用者可以把档案列印出来，预设的位元组顺序见软体说明。",
];

fn configs() -> Vec<(&'static str, FingerprintConfig)> {
    // Every setting spelled out, so that a change of defaults does not move the pins.
    let default = FingerprintConfig::default()
        .tokenizer(
            TokenizerConfig::default()
                .hmm(true)
                .folding(ScriptFolding::Regional)
                .stop_words(false),
        )
        .features(FeatureKind::Words)
        .weighting(Weighting::TfIdf)
        .idf(tantivy_dedup::text::JIEBA_IDF_IDENTITY)
        .seed(0)
        .max_text_bytes(1 << 20);
    vec![
        ("words/tf-idf", default.clone()),
        ("words/tf", default.clone().weighting(Weighting::Tf)),
        (
            "shingles-2/tf-idf-length",
            default
                .clone()
                .features(FeatureKind::WordShingles { n: 2 })
                .weighting(Weighting::TfIdfLength),
        ),
        (
            "chargrams-3/tf",
            default
                .clone()
                .features(FeatureKind::CharNgrams { n: 3 })
                .weighting(Weighting::Tf),
        ),
        (
            "chargrams-3/tf/regional-any-script",
            default
                .clone()
                .tokenizer(
                    TokenizerConfig::default()
                        .hmm(true)
                        .folding(ScriptFolding::RegionalAnyScript)
                        .stop_words(false),
                )
                .features(FeatureKind::CharNgrams { n: 3 })
                .weighting(Weighting::Tf),
        ),
        ("seed-42", default.clone().seed(42)),
        (
            "fold-characters",
            default
                .clone()
                .tokenizer(TokenizerConfig::default().folding(ScriptFolding::Characters)),
        ),
        (
            "no-hmm/no-fold/stop-words",
            default.tokenizer(
                TokenizerConfig::default()
                    .hmm(false)
                    .folding(ScriptFolding::Off)
                    .stop_words(true),
            ),
        ),
    ]
}

fn actual() -> Vec<String> {
    configs()
        .into_iter()
        .map(|(name, config)| {
            let hasher = SimHasher::new(&config).unwrap();
            let prints: Vec<String> = TEXTS
                .iter()
                .map(|t| hasher.fingerprint(t).unwrap().to_string())
                .collect();
            format!("{name}: {}", prints.join(" "))
        })
        .collect()
}

const GOLDEN: &[&str] = &[
    "words/tf-idf: 78a318a8a5f2bef7 8200868318d23077 61dd274c164398c6 68655e74a5b600de abd49c6d3fe93ff9",
    "words/tf: 7821182825d096a4 8200868318d23077 209c234c16239082 486dde64a5b6005e 8a541c5d2d613ff8",
    "shingles-2/tf-idf-length: dc0c9b2618320b54 36bfda624aa13d42 b4004c57b2e141a3 a628bd6abbbe6e17 5b6c41c38995c372",
    "chargrams-3/tf: cf5926288e3013d1 cb1f8160449337ff 513f956227644600 daf2d0421ed0ce80 bd7344884b5ea7c9",
    "chargrams-3/tf/regional-any-script: cf5926288e3013d1 cb1f8160449337ff 513f956227644600 daf2d0421ed0ce80 9b996b26ecb58183",
    "seed-42: 2a1300dda0d7538e cef50c6694d80a85 502ccdb796c2a734 423d928a029aa301 b038702b06bf4ddb",
    "fold-characters: 78a318a8a5f2bef7 8200868318d23077 6ddda7dcd04393c2 68655e74a5b600de abd49c6d3fe93ff9",
    "no-hmm/no-fold/stop-words: 7a839aa845d33ee6 84ac9e8291dab2e7 7b9ccbc893d210eb 686d3e74a5b608ce aad49d7d3be93ff9",
];

#[test]
fn fingerprints_never_change_by_accident() {
    let actual = actual();
    assert_eq!(
        actual,
        GOLDEN,
        "fingerprints changed: if on purpose, bump FORMAT_VERSION and update GOLDEN:\n{}",
        actual.join("\n")
    );
}

/// The default config is the pinned `chargrams-3/tf/regional-any-script` row, so its
/// fingerprints are pinned too (chosen by measurement: docs/PARAMETERS.md).
#[test]
fn the_default_config_is_pinned() {
    let pinned = configs()
        .into_iter()
        .find(|(name, _)| *name == "chargrams-3/tf/regional-any-script")
        .unwrap()
        .1;
    assert_eq!(FingerprintConfig::default(), pinned);
}
