//! The same query with and without the deduplicating collector, showing what was hidden.
//!
//! ```sh
//! cargo run --example dedupe_search [QUERY]
//! ```
//!
//! Indexes the sample corpus (`samples/corpus.jsonl`: license versions, spam campaigns, man
//! pages in Simplified and Traditional Chinese) *without* rejecting anything, then searches
//! it with `TopDocs` and with `DedupCollector`.

use std::io::BufRead;

use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{Schema, TantivyDocument, Value, STORED, STRING};
use tantivy::{doc, DocAddress, Index, IndexWriter, Searcher};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};

fn main() -> anyhow::Result<()> {
    let query = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "warranty".to_owned());
    let settings = DedupSettings::new(["body"]);
    let mut schema = Schema::builder();
    let id = schema.add_text_field("id", STRING | STORED);
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema)?;
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings)?;

    // A plain writer: every document goes in, with its fingerprint and signature filled in.
    let mut writer: IndexWriter = index.index().writer(50_000_000)?;
    let corpus = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/corpus.jsonl"))?;
    for line in std::io::BufReader::new(corpus).lines() {
        let record: serde_json::Value = serde_json::from_str(&line?)?;
        let mut document = doc!(
            id => record["id"].as_str().unwrap_or_default(),
            body => record["text"].as_str().unwrap_or_default(),
        );
        index.fill_document(&mut document);
        writer.add_document(document)?;
    }
    writer.commit()?;

    let searcher = index.index().reader()?.searcher();
    let parsed = QueryParser::for_index(index.index(), vec![body]).parse_query(&query)?;
    let name =
        |address: DocAddress| -> anyhow::Result<String> { stored_id(&searcher, id, address) };

    println!("TopDocs, limit 6, query {query:?}:");
    for (score, address) in searcher.search(&parsed, &TopDocs::with_limit(6).order_by_score())? {
        println!("  {score:6.3}  {}", name(address)?);
    }
    println!("DedupCollector, limit 6, distance {}:", index.distance());
    let page = index.collector(6).search(&searcher, &*parsed)?;
    for hit in &page.hits {
        println!("  {:6.3}  {}", hit.score, name(hit.address)?);
        for hidden in &hit.hidden {
            let similarity = hidden
                .jaccard
                .map(|jaccard| format!(", signatures {:.0}% equal", 100.0 * jaccard))
                .unwrap_or_default();
            println!(
                "          hides {} ({} bits apart{similarity})",
                name(hidden.address)?,
                hidden.distance
            );
        }
    }
    println!("{} near-duplicates hidden", page.hidden_total);
    Ok(())
}

fn stored_id(
    searcher: &Searcher,
    id: tantivy::schema::Field,
    address: DocAddress,
) -> anyhow::Result<String> {
    let document: TantivyDocument = searcher.doc(address)?;
    Ok(document
        .get_first(id)
        .and_then(|value| value.as_str())
        .unwrap_or_default()
        .to_owned())
}
