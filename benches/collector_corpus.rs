//! The deduplicating collector on real text, as a tantivy user sets it up: a `DedupIndex`
//! with the default settings (two-stage matching, signatures stored), documents written by
//! a plain `IndexWriter` after `fill_document`, and `index.collector(10)` against `TopDocs`
//! in the same run.
//!
//! ```sh
//! scripts/fetch-corpora.sh                 # data/english.jsonl (docs/DATA.md)
//! cargo bench --bench collector_corpus     # a few minutes, a minute of it building the index
//! ```
//!
//! Documents: the paragraphs of at least 20 words of `data/english.jsonl` (SpamAssassin
//! messages and the Brown corpus; another file of JSON lines with a `text` field through
//! `TANTIVY_DEDUP_BENCH_CORPUS`), each third document an edited mirror of an earlier one
//! (two words replaced by words of another paragraph), in 6 segments. Queries: a selective
//! term (in about 0.5% of the documents), a common term (in about three quarters) and an
//! OR of two terms in about a tenth each, chosen by document frequency. The `..._by_date`
//! rows rank by an i64 fast field (a random day per document), newest first.

use std::hint::black_box;
use std::io::BufRead;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tantivy::collector::{Count, TopDocs};
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, FAST};
use tantivy::{doc, Index, IndexWriter, Order, Searcher, Term};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};

#[allow(dead_code)]
#[path = "support/data.rs"]
mod data;

use data::Rng;

const SEGMENTS: usize = 6;

/// The paragraphs of at least 20 words of the corpus, or `None` when it is not there.
fn paragraphs() -> Option<(Vec<String>, String)> {
    let path = std::env::var("TANTIVY_DEDUP_BENCH_CORPUS")
        .unwrap_or_else(|_| "data/english.jsonl".to_owned());
    let file = std::fs::File::open(&path).ok()?;
    let mut paragraphs = Vec::new();
    for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let text = record["text"].as_str().unwrap_or_default();
        let blocks = text.split("\n\n").map(str::trim);
        paragraphs.extend(
            blocks
                .filter(|p| p.split_whitespace().count() >= 20)
                .map(str::to_owned),
        );
    }
    Some((paragraphs, path))
}

/// The paragraphs, each third document an edited mirror of an earlier paragraph.
fn documents(paragraphs: &[String], rng: &mut Rng) -> Vec<String> {
    let mut documents = Vec::with_capacity(paragraphs.len() * 3 / 2);
    for paragraph in paragraphs {
        documents.push(paragraph.clone());
        if documents.len() % 3 == 2 {
            let source = &paragraphs[rng.below(documents.len() as u64 / 2 + 1) as usize];
            let donor = &paragraphs[rng.below(paragraphs.len() as u64) as usize];
            let donor: Vec<&str> = donor.split_whitespace().collect();
            let mut words: Vec<&str> = source.split_whitespace().collect();
            for _ in 0..2 {
                let at = rng.below(words.len() as u64) as usize;
                words[at] = donor[rng.below(donor.len() as u64) as usize];
            }
            documents.push(words.join(" "));
        }
    }
    documents
}

/// The documents in a `DedupIndex` with the default settings, written by a plain
/// `IndexWriter` (`fill_document` gives each its fingerprint and signature).
fn build(documents: &[String]) -> (DedupIndex, Field) {
    let settings = DedupSettings::new(["body"]);
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    let published = schema.add_i64_field("published", FAST);
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    let mut writer: IndexWriter = index
        .index()
        .writer_with_num_threads(1, 200_000_000)
        .unwrap();
    writer.set_merge_policy(Box::new(NoMergePolicy));
    let mut days = Rng(13);
    let per_segment = documents.len().div_ceil(SEGMENTS);
    for (i, text) in documents.iter().enumerate() {
        let day = days.below(3_650) as i64;
        let mut document = doc!(body => text.as_str(), published => day);
        index.fill_document(&mut document);
        writer.add_document(document).unwrap();
        if (i + 1) % per_segment == 0 {
            writer.commit().unwrap();
        }
    }
    writer.commit().unwrap();
    (index, body)
}

/// The terms of `body` (from its first segment's dictionary) whose document frequencies
/// are closest to each target.
fn terms_with_df(searcher: &Searcher, body: Field, targets: &[u64]) -> Vec<Term> {
    let inverted = searcher.segment_reader(0).inverted_index(body).unwrap();
    let mut stream = inverted.terms().stream().unwrap();
    let mut terms: Vec<(Term, u64)> = Vec::new();
    while stream.advance() {
        let Ok(text) = std::str::from_utf8(stream.key()) else {
            continue;
        };
        let term = Term::from_field_text(body, text);
        let df = searcher.doc_freq(&term).unwrap();
        terms.push((term, df));
    }
    targets
        .iter()
        .map(|&target| {
            let (term, _) = terms
                .iter()
                .min_by_key(|(_, df)| df.abs_diff(target))
                .expect("the corpus has terms");
            term.clone()
        })
        .collect()
}

fn term_query(term: Term) -> Box<dyn Query> {
    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
}

fn bench_collector_corpus(c: &mut Criterion) {
    let Some((paragraphs, path)) = paragraphs() else {
        eprintln!("collector_corpus: no corpus (run scripts/fetch-corpora.sh); skipped");
        return;
    };
    let documents = documents(&paragraphs, &mut Rng(7));
    let (index, body) = build(&documents);
    let searcher = index.index().reader().unwrap().searcher();
    let n = documents.len() as u64;
    eprintln!("collector_corpus: {n} documents from {path}");
    let terms = terms_with_df(&searcher, body, &[n / 200, n * 3 / 4, n / 10, n / 12]);
    let queries: Vec<(&str, Box<dyn Query>)> = vec![
        ("selective_term", term_query(terms[0].clone())),
        ("common_term", term_query(terms[1].clone())),
        (
            "two_term_or",
            Box::new(BooleanQuery::new(vec![
                (Occur::Should, term_query(terms[2].clone())),
                (Occur::Should, term_query(terms[3].clone())),
            ])),
        ),
    ];
    let top_docs = TopDocs::with_limit(10).order_by_score();
    let verified = index.collector(10);
    let count_top_docs = (Count, TopDocs::with_limit(10).order_by_score());
    let count_verified = (Count, verified.clone());
    let top_docs_by_date =
        TopDocs::with_limit(10).order_by_fast_field::<i64>("published", Order::Desc);
    let verified_by_date = verified
        .clone()
        .order_by_fast_field("published", Order::Desc);
    for (name, query) in &queries {
        let page = verified.search(&searcher, query.as_ref()).unwrap();
        eprintln!(
            "{name}: {} matches, {} shown, {} hidden",
            searcher.search(query.as_ref(), &Count).unwrap(),
            page.hits.len(),
            page.hidden_total
        );
        let query = query.as_ref();
        // Each row one search, the same query: `TopDocs` beside the collector on each path.
        let rows: [(&str, &dyn Fn()); 7] = [
            ("top_docs", &|| {
                searcher.search(black_box(query), &top_docs).unwrap();
            }),
            ("dedup_verified", &|| {
                verified.search(&searcher, black_box(query)).unwrap();
            }),
            ("dedup_verified_searcher_search", &|| {
                searcher.search(black_box(query), &verified).unwrap();
            }),
            ("count_top_docs", &|| {
                searcher.search(black_box(query), &count_top_docs).unwrap();
            }),
            ("count_dedup_verified", &|| {
                searcher.search(black_box(query), &count_verified).unwrap();
            }),
            ("top_docs_by_date", &|| {
                searcher
                    .search(black_box(query), &top_docs_by_date)
                    .unwrap();
            }),
            ("dedup_verified_by_date_searcher_search", &|| {
                searcher
                    .search(black_box(query), &verified_by_date)
                    .unwrap();
            }),
        ];
        let mut group = c.benchmark_group(format!("collector_corpus/{name}"));
        for (row, search) in rows {
            group.bench_function(row, |b| b.iter(search));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(40)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = bench_collector_corpus
}
criterion_main!(benches);
