//! A dedup index on disk with one text field, `body`, and the plugin's fields.

#![allow(dead_code)] // Each test file uses its own part.

use std::path::Path;

use tantivy::schema::Schema;
use tantivy::{doc, Index, TantivyDocument};

use super::rng::Rng;
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};

/// A new index in `dir` whose schema has `body` and the fields `settings` add.
pub fn create(dir: &Path, settings: DedupSettings) -> DedupIndex {
    let index = Index::create_in_dir(dir, schema_of(&settings)).unwrap();
    DedupIndex::create(index, settings).unwrap()
}

/// The schema of `body` and the fields `settings` add.
pub fn schema_of(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    schema.build()
}

/// The first text value of the stored field `name` of the document at `address`.
pub fn stored_str(
    searcher: &tantivy::Searcher,
    address: tantivy::DocAddress,
    name: &str,
) -> String {
    use tantivy::schema::Value;
    let field = searcher.schema().get_field(name).unwrap();
    let document: tantivy::TantivyDocument = searcher.doc(address).unwrap();
    let value = document.get_first(field).and_then(|value| value.as_str());
    value
        .unwrap_or_else(|| panic!("{address:?} has no {name}"))
        .to_owned()
}

/// A text of `n` random words: unrelated to every other seed's.
pub fn random_text(seed: u64, n: usize) -> String {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| format!("w{}", rng.next() % 50_000))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A document of `index` (fields `url` and `body`) with that key and text.
pub fn page(index: &DedupIndex, url: &str, body: &str) -> TantivyDocument {
    let schema = index.index().schema();
    let url_field = schema.get_field("url").unwrap();
    let body_field = schema.get_field("body").unwrap();
    doc!(url_field => url, body_field => body)
}
