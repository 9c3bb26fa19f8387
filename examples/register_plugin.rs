//! Create an index with the tantivy-dedup plugin, add documents, reopen it.
//!
//! ```sh
//! cargo run --example register_plugin
//! ```
//!
//! Shows the three calls a user needs: `DedupSettings::add_fields` (the schema),
//! `DedupIndex::create` (settings written into the index directory, tokenizer registered)
//! and, after every reopen, `DedupIndex::open` (settings read back, tokenizer registered
//! again: tantivy does not persist registrations).

use anyhow::Context;
use tantivy::collector::Count;
use tantivy::query::QueryParser;
use tantivy::schema::Schema;
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::FingerprintConfig;
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::plugin::{text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy};
use tantivy_dedup::text::Weighting;

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let settings = DedupSettings::new(["body"]).key_field("url");

    // 1. The schema: your text fields, plus the plugin's (fingerprint, sequence, key).
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema)?;
    let schema = schema.build();
    let url = schema.get_field("url")?;

    // 2. Create: the settings go into the index directory.
    let index = DedupIndex::create(Index::create_in_dir(dir.path(), schema)?, settings.clone())?;
    let writer = index.writer(Policy::Reject, 50_000_000)?;
    let pages = [
        (
            "https://example.org/a",
            "搜索引擎每天抓取大量网页，其中很多网页内容几乎相同，例如镜像站点和转载文章。",
        ),
        (
            "https://mirror.example.tw/a",
            "搜尋引擎每天抓取大量網頁，其中很多網頁內容幾乎相同，例如鏡像站點和轉載文章。",
        ),
        (
            "https://example.org/b",
            "Tantivy is a full-text search engine library written in Rust, inspired by Lucene.",
        ),
    ];
    for (address, text) in pages {
        let outcome = writer.add(doc!(url => address, body => text))?;
        match &outcome {
            AddOutcome::Added { fingerprint, .. } => {
                println!(
                    "added     {address} {}",
                    fingerprint.map(|f| f.to_string()).unwrap_or_default()
                );
            }
            other => {
                let of = other
                    .duplicate_of()
                    .context("a duplicate names its original")?;
                println!(
                    "rejected  {address}: {} bits from {}",
                    of.distance,
                    of.key.as_deref().unwrap_or("?")
                );
            }
        }
    }
    writer.commit()?;
    writer.wait_merging_threads()?;
    drop(index);

    // 3. Reopen: one call reads the settings and registers the tokenizer again.
    let index = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
    let searcher = index.index().reader()?.searcher();
    let parser = QueryParser::for_index(index.index(), vec![body]);
    let hits = searcher.search(&parser.parse_query("搜索引擎")?, &Count)?;
    println!(
        "reopened: {} documents, {hits} match 搜索引擎",
        searcher.num_docs()
    );
    assert_eq!((searcher.num_docs(), hits), (2, 1));

    // Opening with other fingerprint settings is an error that names what differs.
    let tfidf = FingerprintConfig::default().weighting(Weighting::TfIdf);
    let other = settings.matching(MatchingSettings::default().fingerprint(tfidf));
    let error = DedupIndex::open_with(Index::open_in_dir(dir.path())?, &other).unwrap_err();
    println!("other settings: {error}");
    Ok(())
}
