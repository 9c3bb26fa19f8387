//! The cost of one search with the index's deduplicating collector against `TopDocs`, in
//! instructions, for a machine too busy to time it: an index built once on disk, then each
//! way of searching run N times in its own process under `valgrind --tool=callgrind`, whose
//! counts do not depend on the machine's load. The cost of one search is the difference of
//! two runs' counts (N searches and none) over N.
//!
//! ```sh
//! cargo build --release --example collector_cost
//! target/release/examples/collector_cost build /tmp/idx data/reuters.jsonl
//! for way in top_docs dedup dedup_searcher_search; do for n in 0 40; do
//!   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$way.$n \
//!     target/release/examples/collector_cost search /tmp/idx $n $way
//! done; done
//! ```
//!
//! The index: the paragraphs of at least 20 words of a JSON-lines corpus (`text`), each
//! third document an edited copy of an earlier one (with `whole`: the documents of at least
//! 20 words, as they are), in 6 segments, written by a plain
//! `IndexWriter` after `fill_document` (the default settings). The query: the term whose
//! document frequency is closest to 3/4 of the documents (a common term).

use std::io::BufRead;

use anyhow::Context;
use tantivy::collector::TopDocs;
use tantivy::indexer::NoMergePolicy;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Schema};
use tantivy::{doc, Index, IndexWriter, Term};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};

const SEGMENTS: usize = 6;

fn build(dir: &str, corpus: &str, whole: bool) -> anyhow::Result<()> {
    let file = std::fs::File::open(corpus).with_context(|| format!("cannot open {corpus}"))?;
    let mut paragraphs = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let record: serde_json::Value = serde_json::from_str(&line?)?;
        let text = record["text"].as_str().unwrap_or_default();
        let pieces: Vec<&str> = if whole {
            vec![text]
        } else {
            text.split("\n\n").map(str::trim).collect()
        };
        paragraphs.extend(
            (pieces.into_iter())
                .filter(|p| p.split_whitespace().count() >= 20)
                .map(str::to_owned),
        );
    }
    let mut documents = Vec::new();
    for (i, paragraph) in paragraphs.iter().enumerate() {
        documents.push(paragraph.clone());
        if i % 2 == 1 && !whole {
            // An edited copy of an earlier paragraph: one word replaced.
            let mut words: Vec<&str> = paragraphs[i / 2].split_whitespace().collect();
            let at = (i * 7919) % words.len();
            words[at] = "edited";
            documents.push(words.join(" "));
        }
    }
    std::fs::create_dir_all(dir)?;
    let settings = DedupSettings::new(["body"]);
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema)?;
    let index = DedupIndex::create(Index::create_in_dir(dir, schema.build())?, settings)?;
    let mut writer: IndexWriter = index.index().writer_with_num_threads(1, 200_000_000)?;
    writer.set_merge_policy(Box::new(NoMergePolicy));
    let per_segment = documents.len().div_ceil(SEGMENTS);
    for (i, text) in documents.iter().enumerate() {
        let mut document = doc!(body => text.as_str());
        index.fill_document(&mut document);
        writer.add_document(document)?;
        if (i + 1) % per_segment == 0 {
            writer.commit()?;
        }
    }
    writer.commit()?;
    println!("{} documents in {dir}", documents.len());
    Ok(())
}

fn search(dir: &str, n: usize, way: &str) -> anyhow::Result<()> {
    let index = DedupIndex::open(Index::open_in_dir(dir)?)?;
    let searcher = index.index().reader()?.searcher();
    let body = searcher.schema().get_field("body")?;
    let docs = searcher.num_docs();
    // The term of the first segment's dictionary whose frequency is nearest 3/4 of the docs.
    let inverted = searcher.segment_reader(0).inverted_index(body)?;
    let mut stream = inverted.terms().stream()?;
    let mut best: Option<(Term, u64)> = None;
    while stream.advance() {
        let Ok(text) = std::str::from_utf8(stream.key()) else {
            continue;
        };
        let term = Term::from_field_text(body, text);
        let df = searcher.doc_freq(&term)?;
        if best
            .as_ref()
            .is_none_or(|(_, b)| df.abs_diff(docs * 3 / 4) < b.abs_diff(docs * 3 / 4))
        {
            best = Some((term, df));
        }
    }
    let (term, df) = best.context("no terms")?;
    let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
    let collector = index.collector(10);
    let top_docs = TopDocs::with_limit(10).order_by_score();
    let mut shown = 0;
    for _ in 0..n {
        shown += match way {
            "top_docs" => searcher.search(&query, &top_docs)?.len(),
            "dedup" => collector.search(&searcher, &query)?.hits.len(),
            "dedup_searcher_search" => searcher.search(&query, &collector)?.hits.len(),
            other => anyhow::bail!("unknown way {other}"),
        };
    }
    println!("{way}: {n} searches of a term in {df} of {docs} documents, {shown} hits");
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["build", dir, corpus] => build(dir, corpus, false),
        ["build", dir, corpus, "whole"] => build(dir, corpus, true),
        ["search", dir, n, way] => search(dir, n.parse()?, way),
        _ => anyhow::bail!("usage: collector_cost build DIR CORPUS [whole] | search DIR N WAY"),
    }
}
