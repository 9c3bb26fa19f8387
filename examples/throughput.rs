//! Fingerprinting throughput on JSON-lines corpora, single-threaded, for the side-by-side
//! comparison with the Python peers (`scripts/compare-throughput.sh`).
//!
//! ```sh
//! cargo run --release --example throughput -- data/english.jsonl data/chinese.jsonl
//! ```
//!
//! Prints one JSON object per configuration and corpus:
//! `{"tool":"tantivy-dedup","config":"words/tf","corpus":"english","docs":..,"bytes":..,"seconds":..,"mb_per_s":..}`.
//! `seconds` is the best of three runs of fingerprinting only (the corpus is loaded first).
//! The `jieba-cut-only` row is jieba-rs segmentation alone on the same texts: the baseline
//! for the cost of fingerprinting Chinese.

use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use tantivy_dedup::text::{FeatureKind, ScriptFolding, TokenizerConfig, Weighting};
use tantivy_dedup::{FingerprintConfig, SimHasher};

const RUNS: usize = 3;

fn load(path: &Path) -> anyhow::Result<Vec<String>> {
    let file = std::fs::File::open(path).with_context(|| format!("open {}", path.display()))?;
    let mut texts = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("read {}:{}", path.display(), number + 1))?;
        let value: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("parse {}:{}", path.display(), number + 1))?;
        if let Some(text) = value.get("text").and_then(|t| t.as_str()) {
            texts.push(text.to_owned());
        }
    }
    Ok(texts)
}

/// Best wall time of `RUNS` runs of `work` over every text.
fn best_seconds(texts: &[String], mut work: impl FnMut(&str) -> u64) -> f64 {
    let mut best = f64::INFINITY;
    let mut sink = 0u64;
    for _ in 0..RUNS {
        let start = Instant::now();
        for text in texts {
            sink = sink.wrapping_add(work(text));
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    std::hint::black_box(sink);
    best
}

fn report(config: &str, corpus: &str, texts: &[String], seconds: f64) {
    let bytes: usize = texts.iter().map(String::len).sum();
    let line = serde_json::json!({
        "tool": "tantivy-dedup",
        "config": config,
        "corpus": corpus,
        "docs": texts.len(),
        "bytes": bytes,
        "seconds": seconds,
        "mb_per_s": bytes as f64 / 1e6 / seconds,
    });
    println!("{line}");
}

fn main() -> anyhow::Result<()> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(!paths.is_empty(), "usage: throughput FILE.jsonl...");
    let default = FingerprintConfig::default();
    let no_fold = TokenizerConfig::default().folding(ScriptFolding::Off);
    let regional = TokenizerConfig::default().folding(ScriptFolding::Regional);
    let configs = [
        ("words/tf", default.clone().weighting(Weighting::Tf)),
        ("words/tfidf", default.clone().weighting(Weighting::TfIdf)),
        (
            "words/tfidf-length",
            default.clone().weighting(Weighting::TfIdfLength),
        ),
        (
            "words/tfidf-length/fold-off",
            default.clone().tokenizer(no_fold.clone()),
        ),
        (
            "words/tfidf-length/fold-regional",
            default.clone().tokenizer(regional),
        ),
        (
            "words/tfidf/no-hmm",
            default
                .clone()
                .tokenizer(TokenizerConfig::default().hmm(false)),
        ),
        (
            "shingles-2/tf",
            default
                .clone()
                .features(FeatureKind::WordShingles { n: 2 })
                .weighting(Weighting::Tf),
        ),
        (
            "shingles-3/tfidf",
            default.clone().features(FeatureKind::WordShingles { n: 3 }),
        ),
        (
            "chargrams-3/tf",
            default
                .clone()
                .features(FeatureKind::CharNgrams { n: 3 })
                .weighting(Weighting::Tf),
        ),
        (
            "chargrams-4/tf",
            default
                .clone()
                .features(FeatureKind::CharNgrams { n: 4 })
                .weighting(Weighting::Tf),
        ),
        (
            "chargrams-4/tf/fold-off",
            default
                .clone()
                .features(FeatureKind::CharNgrams { n: 4 })
                .weighting(Weighting::Tf)
                .tokenizer(no_fold),
        ),
    ];
    let jieba = jieba_rs::Jieba::new();
    for path in &paths {
        let path = Path::new(path);
        let corpus = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("corpus")
            .to_owned();
        let texts = load(path)?;
        for (name, config) in &configs {
            let hasher = SimHasher::new(config)?;
            // Warm the lazily loaded tables outside the timed runs.
            let _ = hasher.fingerprint("预热 warm-up 預熱");
            let seconds = best_seconds(&texts, |t| hasher.fingerprint(t).map_or(0, |f| f.bits()));
            report(name, &corpus, &texts, seconds);
        }
        let seconds = best_seconds(&texts, |t| jieba.cut(t, true).len() as u64);
        report("jieba-cut-only", &corpus, &texts, seconds);
    }
    Ok(())
}
