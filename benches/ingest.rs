//! Ingest with `DedupWriter` against a plain `IndexWriter` with the same schema and
//! tokenizer, and the time `DedupWriter` takes to open over a large committed index (its
//! lookup built from the fingerprint column) against opening a plain `IndexWriter`.
//!
//! Run with `cargo bench --bench ingest`. The documents are the first 3,000 English and
//! 1,000 Chinese documents of `data/english.jsonl` and `data/chinese.jsonl`
//! (`scripts/fetch-corpora.sh`), or, without them, the sample corpus repeated with a
//! numbered line per copy. Figures and commands: `docs/BENCHMARKS.md`, "Ingest".

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tantivy::schema::{Schema, TantivyDocument};
use tantivy::{doc, Index, IndexWriter};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::matching::{CandidateStage, Verification};
use tantivy_dedup::plugin::{
    register_tokenizer, text_field_options, DedupIndex, DedupSettings, Policy,
};
use tantivy_dedup::text::MixedTokenizer;

// Only the `Rng` is used here.
#[allow(dead_code)]
#[path = "support/data.rs"]
mod data;
#[path = "support/ingest_docs.rs"]
mod ingest_docs;
use ingest_docs::documents;

const MEMORY: usize = 100_000_000;
const THREADS: usize = 2;
const OPEN_DOCS: u64 = 1_000_000;
const OPEN_VERIFIED_DOCS: u64 = 200_000;

/// A schema with the plugin's fields (for both sides, so that they store the same fields).
fn schema(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    schema.build()
}

fn bench_ingest(c: &mut Criterion) {
    let (docs, source) = documents();
    let bytes: usize = docs.iter().map(|(_, t)| t.len()).sum();
    eprintln!(
        "ingest: {} documents, {:.1} MB, from {source}",
        docs.len(),
        bytes as f64 / 1e6
    );
    // The defaults (two-stage matching), then fingerprints alone; `add` one document at a
    // time from the caller's thread, and `add_all` (fingerprints on rayon's pool); then the
    // candidate stages side by side: SimHash candidates alone (every reference within 16
    // bits, no bands), and bands of 2 at any distance (what `eval --recommend` chooses for
    // heavy rewrites).
    let verified = Some(Verification::default());
    let setup = |name, policy, flagging, verification: &Option<Verification>, batched| Setup {
        name,
        policy,
        flagging,
        verification: verification.clone(),
        batched,
    };
    let writers = [
        setup(
            "dedup_writer_reject",
            Policy::Reject,
            false,
            &verified,
            false,
        ),
        setup("dedup_writer_flag", Policy::Flag, true, &verified, false),
        setup(
            "dedup_writer_reject_fingerprints_only",
            Policy::Reject,
            false,
            &None,
            false,
        ),
        setup(
            "dedup_writer_flag_fingerprints_only",
            Policy::Flag,
            true,
            &None,
            false,
        ),
        setup(
            "dedup_writer_reject_add_all",
            Policy::Reject,
            false,
            &verified,
            true,
        ),
        setup(
            "dedup_writer_reject_fingerprints_only_add_all",
            Policy::Reject,
            false,
            &None,
            true,
        ),
        setup(
            "dedup_writer_reject_scan_candidates",
            Policy::Reject,
            false,
            &Some(Verification::default().candidates(CandidateStage::Scan)),
            false,
        ),
        setup(
            "dedup_writer_reject_bands_2_any_distance",
            Policy::Reject,
            false,
            &Some(
                Verification::default()
                    .candidates(CandidateStage::Bands { rows: 2 })
                    .candidate_distance(64)
                    .threshold(0.164),
            ),
            false,
        ),
    ];
    // As many indexing threads as this machine's cores: they keep every core busy, and
    // the caller's fingerprinting adds to their work.
    ingest_group(c, "ingest", &docs, THREADS, &writers);
    // One indexing thread on two cores leaves the caller a core of its own.
    let one_thread = [0, 2, 4, 5].map(|i| writers[i].clone());
    ingest_group(c, "ingest_one_indexing_thread", &docs, 1, &one_thread);
}

/// One `DedupWriter` of the bench.
#[derive(Clone)]
struct Setup {
    name: &'static str,
    policy: Policy,
    flagging: bool,
    verification: Option<Verification>,
    /// Through `add_all` rather than `add`.
    batched: bool,
}

/// The plain writer, then each of `writers`, over `threads` indexing threads.
fn ingest_group(
    c: &mut Criterion,
    name: &str,
    docs: &[(String, String)],
    threads: usize,
    writers: &[Setup],
) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.throughput(Throughput::Elements(docs.len() as u64));

    let plain_settings = DedupSettings::new(["body"])
        .key_field("url")
        .matching(MatchingSettings::default().verification(None));
    group.bench_function("plain_index_writer", |b| {
        b.iter_batched(
            || {
                let index = Index::create_in_ram(schema(&plain_settings));
                register_tokenizer(&index, MixedTokenizer::new());
                index
            },
            |index| {
                let schema = index.schema();
                let (body, url) = (
                    schema.get_field("body").unwrap(),
                    schema.get_field("url").unwrap(),
                );
                let mut writer: IndexWriter =
                    index.writer_with_num_threads(threads, MEMORY).unwrap();
                for (id, text) in docs {
                    writer
                        .add_document(doc!(url => id.as_str(), body => text.as_str()))
                        .unwrap();
                }
                writer.commit().unwrap();
                black_box(index)
            },
            BatchSize::PerIteration,
        )
    });

    for setup in writers {
        let (policy, batched) = (setup.policy, setup.batched);
        let settings = DedupSettings::new(["body"])
            .key_field("url")
            .flagging(setup.flagging)
            .matching(MatchingSettings::default().verification(setup.verification.clone()));
        group.bench_function(setup.name, |b| {
            b.iter_batched(
                || {
                    DedupIndex::create(Index::create_in_ram(schema(&settings)), settings.clone())
                        .unwrap()
                },
                |index| {
                    let schema = index.index().schema();
                    let (body, url) = (
                        schema.get_field("body").unwrap(),
                        schema.get_field("url").unwrap(),
                    );
                    let writer: IndexWriter = index
                        .index()
                        .writer_with_num_threads(threads, MEMORY)
                        .unwrap();
                    let writer =
                        tantivy_dedup::plugin::DedupWriter::new(index.clone(), writer, policy)
                            .unwrap();
                    let documents = docs
                        .iter()
                        .map(|(id, text)| doc!(url => id.as_str(), body => text.as_str()));
                    if batched {
                        for outcome in writer.add_all(documents) {
                            black_box(outcome.unwrap());
                        }
                    } else {
                        for document in documents {
                            black_box(writer.add(document).unwrap());
                        }
                    }
                    writer.commit().unwrap();
                    black_box(index)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// An index of `docs` documents holding only the plugin's fields (random fingerprints, a key
/// each, random signatures when `verified`, one in ten deleted), written once.
fn large_index(docs: u64, verified: bool) -> DedupIndex {
    let mut settings = DedupSettings::new(["body"]).key_field("url");
    if !verified {
        settings = settings.matching(MatchingSettings::default().verification(None));
    }
    let index = DedupIndex::create(Index::create_in_ram(schema(&settings)), settings).unwrap();
    let fields = index.fields().clone();
    let key = fields.key.unwrap();
    let mut writer: IndexWriter = index
        .index()
        .writer_with_num_threads(THREADS, 400_000_000)
        .unwrap();
    let mut rng = data::Rng(7);
    for i in 0..docs {
        let mut document = TantivyDocument::default();
        document.add_u64(fields.fingerprint, rng.next());
        document.add_u64(fields.sequence, i);
        document.add_text(key, format!("https://example.org/{i}"));
        if let Some(field) = fields.signature {
            // The layout `add_fields` makes: one u64 value a signature value. (tantivy
            // drops a bytes value given to a u64 field without an error.)
            for _ in 0..128 {
                document.add_u64(field, u64::from(rng.next() as u32));
            }
        }
        writer.add_document(document).unwrap();
    }
    writer.commit().unwrap();
    for i in (0..docs).step_by(10) {
        writer.delete_term(tantivy::Term::from_field_text(
            key,
            &format!("https://example.org/{i}"),
        ));
    }
    writer.commit().unwrap();
    writer.wait_merging_threads().unwrap();
    index
}

fn bench_open(c: &mut Criterion) {
    // Fingerprints alone at 1M; with signatures at 200k (random signatures of 1M documents
    // would take 512 MB).
    for (docs, verified) in [(OPEN_DOCS, false), (OPEN_VERIFIED_DOCS, true)] {
        let started = std::time::Instant::now();
        let index = large_index(docs, verified);
        eprintln!(
            "open: {docs} documents (10% deleted, signatures: {verified}) written in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let name = if verified { "open_verified" } else { "open" };
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.throughput(Throughput::Elements(docs * 9 / 10));
        group.bench_function("plain_index_writer", |b| {
            b.iter(|| {
                let writer: IndexWriter = index
                    .index()
                    .writer_with_num_threads(THREADS, MEMORY)
                    .unwrap();
                drop(black_box(writer));
            })
        });
        group.bench_function("dedup_writer", |b| {
            b.iter(|| {
                let writer: IndexWriter = index
                    .index()
                    .writer_with_num_threads(THREADS, MEMORY)
                    .unwrap();
                let writer =
                    tantivy_dedup::plugin::DedupWriter::new(index.clone(), writer, Policy::Reject)
                        .unwrap();
                assert_eq!(writer.references(), (docs * 9 / 10) as usize);
                drop(black_box(writer));
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_ingest, bench_open);
criterion_main!(benches);
