//! Deduplicating collector: `DedupCollector` (limit 10) against
//! `TopDocs::with_limit(10).order_by_score()` in the same run, on a corpus of 60,000 documents
//! in 6 segments where a third are near-duplicates (edited copies, fingerprints within 3 bits)
//! of another document.
//!
//! `cargo bench --bench collector` (about a minute). Queries: a selective term (in about 0.5%
//! of the documents), a common term (in most), and an OR of two mid-frequency terms.
//! `dedup_verified` is the collector with two-stage matching (candidates within 16 bits,
//! signatures of 128 values, stored two a column value as new indexes store them: a copy
//! shares about 90% of its original's). The `..._by_date`
//! rows rank by an i64 fast field (a random day per document), newest first.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tantivy::collector::{Count, TopDocs};
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, FAST, INDEXED, TEXT};
use tantivy::{doc, Index, Order, Searcher, Term};
use tantivy_dedup::matching::Verification;
use tantivy_dedup::plugin::collector::ColumnCache;
use tantivy_dedup::plugin::DedupCollector;

// Only the `Rng` is used here; the fingerprint generators serve the lookup benches.
#[allow(dead_code)]
#[path = "support/data.rs"]
mod data;

use data::Rng;

const DOCS: usize = 60_000;
const SEGMENT_DOCS: usize = 10_000;
const VOCABULARY: u64 = 5_000;

fn word(rng: &mut Rng) -> u64 {
    // Skewed: word 0 is in most documents, the tail in a few.
    let u = rng.below(1 << 20) as f64 / f64::from(1 << 20);
    (VOCABULARY as f64 * u * u * u) as u64
}

/// Values of a signature.
const SIGNATURE_VALUES: usize = 128;

/// Documents as word ids, a fingerprint and a signature: two thirds original, one third
/// copies of an earlier original with one or two words replaced, up to 3 fingerprint bits
/// flipped and a tenth of the signature's values replaced. (Signatures come from their own
/// generator, so that the words and fingerprints are those of the runs before they existed.)
fn corpus(rng: &mut Rng) -> Vec<(Vec<u64>, u64, Vec<u32>)> {
    let mut values = Rng(11);
    let mut docs: Vec<(Vec<u64>, u64, Vec<u32>)> = Vec::with_capacity(DOCS);
    let mut originals: Vec<usize> = Vec::new();
    while docs.len() < DOCS {
        if docs.len() % 3 == 2 && !originals.is_empty() {
            let source = originals[rng.below(originals.len() as u64) as usize];
            let (mut words, fp, mut signature) = docs[source].clone();
            for _ in 0..1 + rng.below(2) {
                let at = rng.below(words.len() as u64) as usize;
                words[at] = word(rng);
            }
            let flips = rng.below(4) as u32;
            for _ in 0..SIGNATURE_VALUES / 10 {
                signature[values.below(SIGNATURE_VALUES as u64) as usize] = values.next() as u32;
            }
            docs.push((words, rng.flip(fp, flips), signature));
        } else {
            let len = 20 + rng.below(40) as usize;
            let words = (0..len).map(|_| word(rng)).collect();
            originals.push(docs.len());
            let signature = (0..SIGNATURE_VALUES)
                .map(|_| values.next() as u32)
                .collect();
            docs.push((words, rng.next(), signature));
        }
    }
    docs
}

/// How the bench stores signatures: as `DedupIndex` keeps them in each settings format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Two values a u64 column value (format 5 on).
    Pairs,
    /// One value a u64 column value (formats 2 to 4).
    Values,
    /// A bytes field (format 1).
    Bytes,
}

/// The corpus indexed, with signatures stored as `layout` says.
fn build(layout: Layout) -> (Searcher, Field) {
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", TEXT);
    let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
    let signature = match layout {
        Layout::Bytes => schema.add_bytes_field("signature", FAST),
        Layout::Pairs | Layout::Values => schema.add_u64_field("signature", FAST),
    };
    let published = schema.add_i64_field("published", FAST);
    // Days from their own generator: the corpus stays that of the runs before them.
    let mut days = Rng(13);
    let index = Index::create_in_ram(schema.build());
    let mut writer = index.writer_with_num_threads(1, 100_000_000).unwrap();
    writer.set_merge_policy(Box::new(NoMergePolicy));
    let mut rng = Rng(7);
    for (i, (words, fp, values)) in corpus(&mut rng).into_iter().enumerate() {
        let text: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
        let day = days.below(3_650) as i64;
        let mut document = doc!(body => text.join(" "), fingerprint => fp, published => day);
        match layout {
            Layout::Bytes => {
                let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                document.add_bytes(signature, &bytes);
            }
            Layout::Values => {
                for value in values {
                    document.add_u64(signature, u64::from(value));
                }
            }
            Layout::Pairs => {
                for pair in values.chunks(2) {
                    let high = pair.get(1).map_or(0, |&v| u64::from(v));
                    document.add_u64(signature, u64::from(pair[0]) | high << 32);
                }
            }
        }
        writer.add_document(document).unwrap();
        if (i + 1) % SEGMENT_DOCS == 0 {
            writer.commit().unwrap();
        }
    }
    writer.commit().unwrap();
    (index.reader().unwrap().searcher(), body)
}

/// The word whose document frequency is closest to `target`.
fn word_with_df(searcher: &Searcher, body: Field, target: u64) -> Term {
    (0..VOCABULARY)
        .map(|w| Term::from_field_text(body, &format!("w{w}")))
        .min_by_key(|term| searcher.doc_freq(term).unwrap().abs_diff(target))
        .unwrap()
}

fn term_query(term: Term) -> Box<dyn Query> {
    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
}

fn bench_collector(c: &mut Criterion) {
    let (searcher, body) = build(Layout::Pairs);
    let (values_searcher, _) = build(Layout::Values);
    let (bytes_searcher, _) = build(Layout::Bytes);
    let docs = DOCS as u64;
    let queries: Vec<(&str, Box<dyn Query>)> = vec![
        (
            "selective_term",
            term_query(word_with_df(&searcher, body, docs / 200)),
        ),
        (
            "common_term",
            term_query(word_with_df(&searcher, body, docs * 3 / 4)),
        ),
        (
            "two_term_or",
            Box::new(BooleanQuery::new(vec![
                (
                    Occur::Should,
                    term_query(word_with_df(&searcher, body, docs / 10)),
                ),
                (
                    Occur::Should,
                    term_query(word_with_df(&searcher, body, docs / 12)),
                ),
            ])),
        ),
    ];
    let top_docs = TopDocs::with_limit(10).order_by_score();
    let dedup = DedupCollector::new("fingerprint", 10);
    // As `DedupIndex::collector` builds it: columns kept across searches.
    let cached = dedup.clone().column_cache(ColumnCache::new());
    let verified = cached
        .clone()
        .verification("signature", Verification::default());
    // Containment: no separation by signatures (a page holding two articles contains
    // both), at any distance.
    let containment = cached
        .clone()
        .verification("signature", Verification::containment());
    let count_top_docs = (Count, TopDocs::with_limit(10).order_by_score());
    let count_verified = (Count, verified.clone());
    let top_docs_by_date =
        TopDocs::with_limit(10).order_by_fast_field::<i64>("published", Order::Desc);
    let verified_by_date = verified
        .clone()
        .order_by_fast_field("published", Order::Desc);
    for (name, query) in &queries {
        let page = dedup.search(&searcher, query.as_ref()).unwrap();
        let verified_page = verified.search(&searcher, query.as_ref()).unwrap();
        eprintln!(
            "{name}: {} matches, {} shown, {} hidden ({} hidden verifying)",
            searcher.search(query.as_ref(), &Count).unwrap(),
            page.hits.len(),
            page.hidden_total,
            verified_page.hidden_total
        );
        let mut group = c.benchmark_group(format!("collector/{name}"));
        group.bench_function("top_docs", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &top_docs)
                    .unwrap()
            })
        });
        group.bench_function("dedup", |b| {
            b.iter(|| searcher.search(black_box(query.as_ref()), &dedup).unwrap())
        });
        group.bench_function("dedup_cached_columns", |b| {
            b.iter(|| cached.search(&searcher, black_box(query.as_ref())).unwrap())
        });
        // Through `DedupCollector::search`, which proves a verified page on the merged
        // ranking.
        group.bench_function("dedup_verified", |b| {
            b.iter(|| {
                verified
                    .search(&searcher, black_box(query.as_ref()))
                    .unwrap()
            })
        });
        // tantivy's entry point, where each segment proves the page alone.
        group.bench_function("dedup_verified_searcher_search", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &verified)
                    .unwrap()
            })
        });
        group.bench_function("dedup_containment", |b| {
            b.iter(|| {
                containment
                    .search(&searcher, black_box(query.as_ref()))
                    .unwrap()
            })
        });
        group.bench_function("dedup_containment_searcher_search", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &containment)
                    .unwrap()
            })
        });
        // The same, on the same corpus with one signature value a column value (indexes of
        // settings formats 2 to 4).
        group.bench_function("dedup_verified_searcher_search_values_layout", |b| {
            b.iter(|| {
                values_searcher
                    .search(black_box(query.as_ref()), &verified)
                    .unwrap()
            })
        });
        // And with signatures in a bytes field (format 1): a read decompresses an sstable
        // block.
        group.bench_function("dedup_verified_searcher_search_bytes_layout", |b| {
            b.iter(|| {
                bytes_searcher
                    .search(black_box(query.as_ref()), &verified)
                    .unwrap()
            })
        });
        // "N results" beside the page, as applications show it: inside a tuple tantivy
        // feeds the collectors every match, without pruning.
        group.bench_function("count_top_docs", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &count_top_docs)
                    .unwrap()
            })
        });
        group.bench_function("count_dedup_verified", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &count_verified)
                    .unwrap()
            })
        });
        // Newest first: every match is read (no pruning by a field), on both sides.
        group.bench_function("top_docs_by_date", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &top_docs_by_date)
                    .unwrap()
            })
        });
        group.bench_function("dedup_verified_by_date", |b| {
            b.iter(|| {
                verified_by_date
                    .search(&searcher, black_box(query.as_ref()))
                    .unwrap()
            })
        });
        group.bench_function("dedup_verified_by_date_searcher_search", |b| {
            b.iter(|| {
                searcher
                    .search(black_box(query.as_ref()), &verified_by_date)
                    .unwrap()
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(40)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = bench_collector
}
criterion_main!(benches);
