//! The fields of a corpus index and the document of a record.

use tantivy::schema::{Field, Schema, TantivyDocument, STORED, STRING};

use crate::error::{Error, Result};
use crate::plugin::{text_field_options, DedupSettings};

/// The fields of a corpus index.
#[derive(Debug, Clone, Copy)]
pub struct CorpusFields {
    /// The document id: the key the writer recognizes re-ingested documents by.
    pub id: Field,
    /// The title (searched, stored; not fingerprinted: copies often retitle).
    pub title: Field,
    /// The text (searched, stored, fingerprinted).
    pub body: Field,
    /// The URL (stored).
    pub url: Field,
    /// The tags (stored, exact match).
    pub tags: Field,
}

/// One record of a corpus: what a JSON line of `tantivy-dedup ingest` holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusRecord {
    /// Its id, the index's key.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its title.
    pub title: Option<String>,
    /// Its URL.
    pub url: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
}

impl CorpusRecord {
    /// A record of an id and a text, without title, URL or tags.
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> CorpusRecord {
        CorpusRecord {
            id: id.into(),
            text: text.into(),
            ..CorpusRecord::default()
        }
    }
}

impl CorpusFields {
    /// The fields of `schema`.
    ///
    /// # Errors
    /// [`Error::Schema`] naming a missing field: the index was not made as a corpus index.
    pub fn of(schema: &Schema) -> Result<CorpusFields> {
        let get = |name: &str| {
            schema.get_field(name).map_err(|_| Error::Schema {
                field: name.to_owned(),
                reason: "missing: the index was not made by tantivy-dedup ingest".to_owned(),
            })
        };
        Ok(CorpusFields {
            id: get("id")?,
            title: get("title")?,
            body: get("body")?,
            url: get("url")?,
            tags: get("tags")?,
        })
    }

    /// The tantivy document of `record`.
    pub fn document(&self, record: &CorpusRecord) -> TantivyDocument {
        let mut doc = TantivyDocument::new();
        doc.add_text(self.id, &record.id);
        doc.add_text(self.body, &record.text);
        if let Some(title) = &record.title {
            doc.add_text(self.title, title);
        }
        if let Some(url) = &record.url {
            doc.add_text(self.url, url);
        }
        for tag in &record.tags {
            doc.add_text(self.tags, tag);
        }
        doc
    }
}

/// The settings a corpus index starts from: `body` fingerprinted, `id` as the key, flagging
/// on so that every policy works. Change the fingerprint, distance or matching over them.
pub fn corpus_settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("id").flagging(true)
}

/// The schema of a corpus index with `settings`: the corpus fields and the plugin's.
///
/// # Errors
/// What [`DedupSettings::add_fields`] returns for settings that do not fit the corpus
/// fields (a key field other than `id` of other options).
pub fn corpus_schema(settings: &DedupSettings) -> Result<Schema> {
    let mut schema = Schema::builder();
    schema.add_text_field("title", text_field_options());
    schema.add_text_field("body", text_field_options());
    schema.add_text_field("url", STRING | STORED);
    schema.add_text_field("tags", STRING | STORED);
    settings.add_fields(&mut schema)?;
    Ok(schema.build())
}
