//! Reading the documents of an existing tantivy index, for `ingest --from-index`: every
//! alive document's stored fields mapped onto the tool's (id, text, title, url, tags). The
//! source is opened for reading only and left as it is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use tantivy::schema::{Field, Schema, TantivyDocument, Value};
use tantivy::store::StoreReader;
use tantivy::{DocId, Searcher};
use tantivy_dedup::corpus::CorpusRecord;
use tantivy_dedup::plugin::{replaced_texts, REPLACED_FIELD, REPLACED_TEXT_FIELD};

use crate::cli::index_dir::open_tantivy;
use crate::cli::input::{size_for_people, Document, ReadOptions, Record, RecordError};
use crate::cli::panics::take_last_panic;

/// Where the tool's fields are in a source index's schema.
#[derive(Args, Debug, Default)]
pub struct SourceFields {
    /// With --from-index: the stored field holding each document's id (a string or a
    /// number) [default: none: DIR:N, the document's place in index order].
    #[arg(long, value_name = "FIELD", requires = "from_index")]
    pub id_field: Option<String>,
    /// With --from-index: a stored field whose text is indexed and fingerprinted, joined in
    /// the order given (repeat the option) [default: body, else text].
    #[arg(long = "text-field", value_name = "FIELD", requires = "from_index")]
    pub text_fields: Vec<String>,
    /// With --from-index: the stored title field [default: title, when there is one].
    #[arg(long, value_name = "FIELD", requires = "from_index")]
    pub title_field: Option<String>,
    /// With --from-index: the stored URL field [default: url, when there is one].
    #[arg(long, value_name = "FIELD", requires = "from_index")]
    pub url_field: Option<String>,
}

/// The fields resolved in a schema.
struct Resolved {
    id: Option<Field>,
    text: Vec<Field>,
    title: Option<Field>,
    url: Option<Field>,
}

/// What a stored document of the source gives through [`Resolved`] fields.
struct Read {
    /// Its id, when there is an id field and a non-empty value in it.
    id: Option<String>,
    /// Its text fields' values, joined by new lines.
    text: String,
    title: Option<String>,
    url: Option<String>,
}

impl Resolved {
    /// The values of a stored document in these fields.
    fn read(&self, stored: &TantivyDocument) -> Read {
        let texts: Vec<String> = (self.text.iter())
            .flat_map(|&field| stored.get_all(field).filter_map(|v| text_of(&v)))
            .collect();
        let first = |field: Option<Field>| {
            field
                .and_then(|f| stored.get_first(f))
                .and_then(|v| text_of(&v))
        };
        Read {
            id: first(self.id).filter(|id| !id.is_empty()),
            text: texts.join("\n"),
            title: first(self.title),
            url: first(self.url),
        }
    }
}

impl SourceFields {
    fn resolve(&self, schema: &Schema) -> anyhow::Result<Resolved> {
        let stored = |name: &str| -> anyhow::Result<Field> {
            let field = schema
                .get_field(name)
                .with_context(|| format!("the source index has no field {name:?}"))?;
            anyhow::ensure!(
                schema.get_field_entry(field).is_stored(),
                "the source index's field {name:?} is not STORED: its values cannot be read back"
            );
            Ok(field)
        };
        // A default field is taken when the schema has it stored, else left out.
        let default = |name: &str| stored(name).ok();
        let text = if self.text_fields.is_empty() {
            vec![default("body").or_else(|| default("text")).context(
                "the source index has no stored body or text field: name one with --text-field",
            )?]
        } else {
            self.text_fields
                .iter()
                .map(|name| stored(name))
                .collect::<anyhow::Result<_>>()?
        };
        Ok(Resolved {
            id: self.id_field.as_deref().map(stored).transpose()?,
            text,
            title: match &self.title_field {
                Some(name) => Some(stored(name)?),
                None => default("title"),
            },
            url: match &self.url_field {
                Some(name) => Some(stored(name)?),
                None => default("url"),
            },
        })
    }
}

/// A source index opened and its fields resolved, before anything else is done: a missing
/// or unstored field is refused before the run creates its index.
pub struct SourceIndex {
    dir: PathBuf,
    searcher: Searcher,
    fields: Resolved,
    /// The source's [`REPLACED_FIELD`], stored, when it is an index of this tool: the
    /// records of what each document replaced, copied so that a replace job run again on
    /// the new index does not bring older versions back.
    replaced: Option<Field>,
    /// The source's [`REPLACED_TEXT_FIELD`], stored, when it is an index of this tool: the
    /// texts of those records, copied so that they come back when their holder changes in
    /// the new index, as they would have in the source.
    replaced_text: Option<Field>,
}

impl SourceIndex {
    /// Opens the index in `dir` for reading and resolves `fields` in its schema.
    ///
    /// # Errors
    /// When the index cannot be opened, or a named field is missing or not stored.
    pub fn open(dir: &Path, fields: &SourceFields) -> anyhow::Result<SourceIndex> {
        let index = open_tantivy(dir)?;
        let schema = index.schema();
        let resolved = fields.resolve(&schema)?;
        let stored = |name: &str| {
            (schema.get_field(name).ok()).filter(|&field| schema.get_field_entry(field).is_stored())
        };
        let (replaced, replaced_text) = (stored(REPLACED_FIELD), stored(REPLACED_TEXT_FIELD));
        let searcher = index
            .reader()
            .context("cannot read the source index")?
            .searcher();
        Ok(SourceIndex {
            dir: dir.to_path_buf(),
            searcher,
            fields: resolved,
            replaced,
            replaced_text,
        })
    }

    /// Calls `emit` with every alive document, in index order (segment, then document);
    /// the place of a record is `DIR:N`, its number in that order. Reading ends early when
    /// `options` says the run is stopping.
    ///
    /// Each document ends as one record: an error record (and the reading goes on) for a
    /// stored document that cannot be read (named by segment and document), one larger
    /// than [`ReadOptions::max_record_bytes`] (not decoded), one without an id in the
    /// `--id-field`, or one repeating the id of an earlier document (which is kept).
    pub fn read(&self, options: &ReadOptions, emit: &mut dyn FnMut(Record)) {
        let mut first_of: HashMap<String, u64> = HashMap::new();
        let mut n = 0u64;
        for segment in self.searcher.segment_readers() {
            let segment_id = segment.segment_id().short_uuid_string();
            // One block in memory at a time: a document store's blocks are as large as
            // its largest document.
            let store = guarded(|| segment.get_store_reader(1).map_err(|e| e.to_string()));
            for doc in segment.doc_ids_alive() {
                if options.stopped() {
                    return;
                }
                n += 1;
                let place = format!("{}:{n}", self.dir.display());
                let at = format!("segment {segment_id}, document {doc}");
                let record = match &store {
                    Ok(store) => self.record(store, doc, &at, n, options, &mut first_of),
                    Err(e) => Err(format!("cannot read the stored document ({at}): {e}")),
                };
                emit(record.map_err(|reason| RecordError {
                    place: place.clone(),
                    reason,
                }));
            }
        }
    }

    /// The record of the document `doc` of `store`, the `n`th read; `at` names it for
    /// errors.
    fn record(
        &self,
        store: &StoreReader,
        doc: DocId,
        at: &str,
        n: u64,
        options: &ReadOptions,
        first_of: &mut HashMap<String, u64>,
    ) -> Result<Document, String> {
        let place = format!("{}:{n}", self.dir.display());
        let unreadable = |e: String| format!("cannot read the stored document ({at}): {e}");
        let size = guarded(|| store.get_document_bytes(doc).map(|bytes| bytes.len()))
            .map_err(unreadable)?;
        if size > options.max_record_bytes {
            return Err(format!(
                "the stored document ({at}) is {size} bytes, over the limit of {} \
                 (--max-record-mb): not read",
                size_for_people(options.max_record_bytes)
            ));
        }
        let stored: TantivyDocument = guarded(|| store.get(doc)).map_err(unreadable)?;
        let read = self.fields.read(&stored);
        let id = match (self.fields.id, read.id) {
            (None, _) => place.clone(),
            (Some(_), Some(id)) => id,
            (Some(field), None) => {
                return Err(format!(
                    "no id: the stored field {:?} is empty or missing ({at})",
                    self.searcher.schema().get_field_name(field)
                ))
            }
        };
        if let Some(earlier) = first_of.get(&id) {
            return Err(format!(
                "the id {id:?} is the id of {}:{earlier} too, which is kept ({at})",
                self.dir.display()
            ));
        }
        first_of.insert(id.clone(), n);
        let replaced = match self.replaced {
            Some(field) => (stored.get_all(field))
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            None => Vec::new(),
        };
        Ok(Document {
            id,
            place,
            text: read.text,
            title: read.title,
            url: read.url,
            tags: Vec::new(),
            from_stdin: false,
            replaced,
            replaced_texts: self.replaced_texts(&stored),
        })
    }

    /// The records' texts a stored document of the source holds in its
    /// [`REPLACED_TEXT_FIELD`] (`[record, stored fields as JSON]` each), read through the
    /// same fields as its own. One that does not read back, or has no id where the source
    /// has an id field, is left out: its record is then reported lost if its holder
    /// changes, as in the source.
    fn replaced_texts(&self, stored: &TantivyDocument) -> Vec<(String, CorpusRecord)> {
        let Some(field) = self.replaced_text else {
            return Vec::new();
        };
        let texts = replaced_texts(self.searcher.schema(), field, stored);
        (texts.into_iter())
            .filter_map(|(record, document)| {
                let read = self.fields.read(&document);
                // Without --id-field the new documents' ids are places, which no record
                // names.
                let text = CorpusRecord {
                    id: read.id?,
                    text: read.text,
                    title: read.title,
                    url: read.url,
                    tags: Vec::new(),
                };
                Some((record, text))
            })
            .collect()
    }
}

/// `read`'s result, with a panic in it (tantivy's, on a damaged block) as an error.
fn guarded<T, E: std::fmt::Display>(read: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => Err(format!(
            "tantivy failed reading it: {}",
            take_last_panic().unwrap_or_else(|| "no message".to_owned())
        )),
    }
}

/// Calls `visit` with every alive document's stored fields (or the error reading them), in
/// index order: segment, then document.
///
/// # Errors
/// The first error `visit` returns.
#[cfg(feature = "cluster")]
pub fn for_each_stored(
    searcher: &Searcher,
    mut visit: impl FnMut(tantivy::Result<TantivyDocument>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            visit(searcher.doc(tantivy::DocAddress::new(ord as u32, doc)))?;
        }
    }
    Ok(())
}

/// A stored value as text: a string as it is, a number in decimal.
fn text_of<'a>(value: &impl Value<'a>) -> Option<String> {
    value
        .as_str()
        .map(str::to_owned)
        .or_else(|| value.as_u64().map(|n| n.to_string()))
        .or_else(|| value.as_i64().map(|n| n.to_string()))
}
