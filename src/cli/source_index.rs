//! Reading the documents of an existing tantivy index, for `ingest --from-index`: every
//! alive document's stored fields mapped onto the tool's (id, text, title, url, tags). The
//! source is opened for reading only and left as it is.

use std::path::Path;

use anyhow::Context;
use clap::Args;
use tantivy::schema::{Field, Schema, TantivyDocument, Value};
use tantivy::{DocAddress, Searcher};

use crate::cli::index_dir::open_tantivy;
use crate::cli::input::{Document, Record};

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

/// Calls `emit` with every alive document of the index in `dir`, in index order (segment,
/// then document); the place of a record is `DIR:N`, its number in that order.
///
/// # Errors
/// When the index cannot be opened or read, or a named field is missing or not stored.
pub fn read_index(
    dir: &Path,
    fields: &SourceFields,
    emit: &mut dyn FnMut(Record),
) -> anyhow::Result<()> {
    let index = open_tantivy(dir)?;
    let fields = fields.resolve(&index.schema())?;
    let searcher = index
        .reader()
        .context("cannot read the source index")?
        .searcher();
    let mut n = 0u64;
    for_each_stored(&searcher, |stored| {
        n += 1;
        let place = format!("{}:{n}", dir.display());
        let stored = stored.with_context(|| format!("cannot read the stored document {place}"))?;
        let texts: Vec<String> = fields
            .text
            .iter()
            .flat_map(|&field| stored.get_all(field).filter_map(|v| text_of(&v)))
            .collect();
        let first = |field: Option<Field>| {
            field
                .and_then(|f| stored.get_first(f))
                .and_then(|v| text_of(&v))
        };
        emit(Ok(Document {
            id: first(fields.id).unwrap_or_else(|| place.clone()),
            place,
            text: texts.join("\n"),
            title: first(fields.title),
            url: first(fields.url),
            tags: Vec::new(),
            from_stdin: false,
        }));
        Ok(())
    })
}

/// Calls `visit` with every alive document's stored fields (or the error reading them), in
/// index order: segment, then document.
///
/// # Errors
/// The first error `visit` returns.
pub fn for_each_stored(
    searcher: &Searcher,
    mut visit: impl FnMut(tantivy::Result<TantivyDocument>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            visit(searcher.doc(DocAddress::new(ord as u32, doc)))?;
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
