//! Fingerprinting throughput, with jieba-rs segmentation alone as the baseline in the same run.
//!
//! ```sh
//! cargo bench --bench fingerprint
//! ```
//!
//! Texts are the English and Chinese documents of `samples/corpus.jsonl`; set
//! `TANTIVY_DEDUP_BENCH_EN` / `TANTIVY_DEDUP_BENCH_ZH` to JSON-lines files (for example those
//! `scripts/fetch-corpora.sh` writes) to measure on more text.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tantivy_dedup::fingerprint::SimHasher;
use tantivy_dedup::fingerprint::{SimHashAccumulator, SimHashCounter};

#[path = "support/configs.rs"]
mod configs;

fn texts(env: &str, language: &str) -> Vec<String> {
    let content = match std::env::var(env) {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        Err(_) => include_str!("../samples/corpus.jsonl").to_owned(),
    };
    content
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|doc| {
            std::env::var(env).is_ok()
                || doc["tags"].get(0).and_then(|t| t.as_str()) == Some(language)
        })
        .filter_map(|doc| doc["text"].as_str().map(str::to_owned))
        .collect()
}

fn bench_corpus(c: &mut Criterion, name: &str, texts: &[String]) {
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = c.benchmark_group(format!("fingerprint/{name}"));
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    let jieba = jieba_rs::Jieba::new();
    group.bench_function("jieba-cut-only", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| jieba.cut(black_box(t), true).len())
                .sum::<usize>()
        })
    });
    for (label, config) in configs::configs() {
        let hasher = SimHasher::new(&config).expect("valid config");
        let _ = hasher.fingerprint("预热 warm-up 預熱");
        group.bench_function(label, |b| {
            b.iter(|| {
                texts
                    .iter()
                    .filter_map(|t| hasher.fingerprint(black_box(t)))
                    .fold(0u64, |acc, f| acc ^ f.bits())
            })
        });
    }
    group.finish();
}

fn fingerprints(c: &mut Criterion) {
    let english = texts("TANTIVY_DEDUP_BENCH_EN", "en");
    let chinese = texts("TANTIVY_DEDUP_BENCH_ZH", "zh");
    bench_corpus(c, "english", &english);
    bench_corpus(c, "chinese", &chinese);
    bench_signed(c, "english", &english);
    bench_signed(c, "chinese", &chinese);
}

/// What `DedupWriter::add` computes per document before its lookup, per word of the text
/// (UAX #29 words; Han characters count one each): the default fingerprint alone
/// (`verification(None)`), and the fingerprint with the signature of two-stage matching
/// (the default settings), both through `DedupIndex::fill_document`; and the signature
/// alone, as `TextMatcher::signature` gives it to a batch job (Python's
/// `signatures(texts, fingerprints=False)`); both again with shingle weights learned from
/// the texts themselves (`ingest --idf-from`).
fn bench_signed(c: &mut Criterion, name: &str, texts: &[String]) {
    use tantivy::schema::{Schema, TantivyDocument};
    use tantivy_dedup::matching::{MatchingSettings, TextMatcher};
    use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};
    use unicode_segmentation::UnicodeSegmentation;

    let words: usize = texts.iter().map(|t| t.unicode_words().count()).sum();
    let mut group = c.benchmark_group(format!("signed/{name}"));
    group.throughput(Throughput::Elements(words as u64));
    group.sample_size(20);
    let plain = TextMatcher::new(&MatchingSettings::default()).unwrap();
    let weights = Arc::new(
        plain
            .learn_weights(texts.iter().map(String::as_str))
            .unwrap(),
    );
    let rows = [
        (
            "fingerprint",
            DedupSettings::new(["body"]).matching(MatchingSettings::default().verification(None)),
        ),
        ("fingerprint_and_signature", DedupSettings::new(["body"])),
        (
            "fingerprint_and_weighted_signature",
            DedupSettings::new(["body"]).shingle_weights(Arc::clone(&weights)),
        ),
    ];
    for (label, settings) in rows {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", text_field_options());
        settings.add_fields(&mut schema).unwrap();
        let index = tantivy::Index::create_in_ram(schema.build());
        let index = DedupIndex::create(index, settings).unwrap();
        let documents: Vec<TantivyDocument> = texts
            .iter()
            .map(|text| tantivy::doc!(body => text.as_str()))
            .collect();
        group.bench_function(label, |b| {
            b.iter_batched_ref(
                || documents.clone(),
                |documents| {
                    documents
                        .iter_mut()
                        .filter_map(|document| index.fill_document(black_box(document)))
                        .fold(0u64, |acc, f| acc ^ f.bits())
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    let weighted = TextMatcher::with_weights(&MatchingSettings::default(), weights).unwrap();
    for (label, matcher) in [("signature", &plain), ("weighted_signature", &weighted)] {
        group.bench_function(label, |b| {
            b.iter(|| {
                (texts.iter())
                    .filter_map(|text| matcher.signature(black_box(text)))
                    .fold(0u32, |acc, signature| acc ^ signature[0])
            })
        });
    }
    group.finish();
}

/// The hot loop alone: 1,000 feature hashes into one accumulator.
fn accumulator(c: &mut Criterion) {
    let hashes: Vec<u64> = (0..1000u64)
        .map(|i| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()))
        .collect();
    let mut group = c.benchmark_group("accumulator");
    group.throughput(Throughput::Elements(hashes.len() as u64));
    group.bench_function("add-1000-features", |b| {
        b.iter(|| {
            let mut acc = SimHashAccumulator::new();
            for &h in &hashes {
                acc.add(black_box(h), 1.5);
            }
            acc.finish()
        })
    });
    // Unit weights through the counter, which TF weighting uses: same bits.
    group.bench_function("count-1000-features", |b| {
        b.iter(|| {
            let mut counter = SimHashCounter::new();
            for &h in &hashes {
                counter.add(black_box(h));
            }
            counter.finish()
        })
    });
    group.finish();
}

criterion_group!(benches, fingerprints, accumulator);
criterion_main!(benches);
