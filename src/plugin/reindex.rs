//! [`reindex`]: an index made without the plugin (or with other settings) copied into a
//! dedup index through a [`DedupWriter`](crate::plugin::DedupWriter), so that every document gets its fingerprint and
//! signature and its near-duplicates meet the policy. tantivy schemas are immutable, so a
//! new index is the only way: Elasticsearch's `_reindex` API and Solr's reindexing do the
//! same.

use tantivy::schema::{Schema, TantivyDocument};
use tantivy::{DocAddress, Index};

use crate::error::{Error, Result};
use crate::plugin::columns::{
    CONTENT_FIELD, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD, SEQUENCE_FIELD,
    SIGNATURE_FIELD,
};
use crate::plugin::{AddOutcome, DedupIndex, Policy};

/// Documents added between two commits of a reindex: bounds the writer's pending
/// references (the commit at the end is the one that counts).
const COMMIT_EVERY: u64 = 100_000;

/// The plugin's own fields, which a reindex computes again rather than copies.
const PLUGIN_FIELDS: [&str; 6] = [
    FINGERPRINT_FIELD,
    SEQUENCE_FIELD,
    FLAG_FIELD,
    DUPLICATE_OF_FIELD,
    SIGNATURE_FIELD,
    CONTENT_FIELD,
];

/// What [`reindex`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReindexReport {
    /// Alive documents read from the source.
    pub documents: u64,
    /// Indexed as new ([`AddOutcome::Added`]).
    pub added: u64,
    /// Near-duplicates of a document copied before them, rejected, flagged or replacing it
    /// as the policy says.
    pub duplicates: u64,
    /// Left out: the same key and text was copied already ([`AddOutcome::Exists`]).
    pub exists: u64,
    /// Replaced the document of the same key copied before them ([`AddOutcome::Updated`]).
    pub updated: u64,
    /// Fields of the source that are not STORED, so that no value of theirs could be copied
    /// (a FAST or INDEXED-only field's values are not in the document store).
    pub unstored_fields: Vec<String>,
}

/// Copies every alive document of `source`, in index order, into `target` through a
/// [`DedupWriter`](crate::plugin::DedupWriter) with `policy`, and commits. Fields are matched by name (make the target's
/// schema with [`DedupSettings::extend_schema`](crate::plugin::DedupSettings::extend_schema)
/// of the source's); the plugin's own fields of a source that has them are computed again,
/// so a dedup index can be reindexed with other settings too.
///
/// Only stored values can be read back: the report lists the source's fields that are not
/// STORED, whose values the copies lack.
///
/// ```
/// use tantivy::schema::{Schema, STORED, STRING, TEXT};
/// use tantivy::{doc, Index};
/// use tantivy_dedup::plugin::{reindex, DedupIndex, DedupSettings, Policy};
///
/// // An index of the application's own, made without the plugin.
/// let mut schema = Schema::builder();
/// let url = schema.add_text_field("url", STRING | STORED);
/// let body = schema.add_text_field("body", TEXT | STORED);
/// let source = Index::create_in_ram(schema.build());
/// let mut writer = source.writer_with_num_threads(1, 15_000_000)?;
/// let page = "The same page, crawled from two mirrors of one site, word for word.";
/// writer.add_document(doc!(url => "https://a.example/p", body => page))?;
/// writer.add_document(doc!(url => "https://b.example/p", body => page))?;
/// writer.commit()?;
///
/// let settings = DedupSettings::new(["body"]).key_field("url");
/// let schema = settings.extend_schema(&source.schema())?;
/// let target = DedupIndex::create(Index::create_in_ram(schema), settings)?;
/// let report = reindex(&source, &target, Policy::Reject, 50_000_000)?;
/// assert_eq!((report.documents, report.added, report.duplicates), (2, 1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Schema`] when a text field of the target's settings is missing from the source
/// or not STORED there (its text cannot be read back to fingerprint), or when a source
/// field is missing from the target; as [`DedupIndex::writer`] and the writer's `add` and
/// `commit` otherwise (an error of one document stops the reindex: nothing of it is
/// committed past the last commit, made every 100,000 documents).
pub fn reindex(
    source: &Index,
    target: &DedupIndex,
    policy: Policy,
    memory_budget_bytes: usize,
) -> Result<ReindexReport> {
    let from = source.schema();
    let to = target.index().schema();
    let mut report = ReindexReport {
        unstored_fields: unstored_fields(&from),
        ..ReindexReport::default()
    };
    for name in target.settings().get_text_fields() {
        if from.get_field(name).is_err() || report.unstored_fields.contains(name) {
            return Err(Error::Schema {
                field: name.clone(),
                reason: "a text field to fingerprint must be STORED in the source index, to be \
                         read back"
                    .into(),
            });
        }
    }
    // Source field number -> target field, `None` for the plugin's own.
    let mut fields = Vec::new();
    for (_, entry) in from.fields() {
        let name = entry.name();
        fields.push(if PLUGIN_FIELDS.contains(&name) {
            None
        } else {
            Some(to.get_field(name).map_err(|_| {
                Error::Schema {
                    field: name.to_owned(),
                    reason: "in the source index but not in the target's schema: make it with \
                         DedupSettings::extend_schema of the source's"
                        .into(),
                }
            })?)
        });
    }
    let writer = target.writer(policy, memory_budget_bytes)?;
    let searcher = source.reader()?.searcher();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            let stored: TantivyDocument = searcher.doc(DocAddress::new(ord as u32, doc))?;
            let mut copy = TantivyDocument::default();
            for (field, value) in stored.field_values() {
                if let Some(target_field) = fields[field.field_id() as usize] {
                    copy.add_field_value(target_field, value);
                }
            }
            count(&mut report, &writer.add(copy)?);
            if report.documents.is_multiple_of(COMMIT_EVERY) {
                writer.commit()?;
            }
        }
    }
    writer.commit()?;
    Ok(report)
}

/// Tallies one document's outcome.
fn count(report: &mut ReindexReport, outcome: &AddOutcome) {
    report.documents += 1;
    match outcome {
        AddOutcome::Added { .. } => report.added += 1,
        AddOutcome::Exists { .. } => report.exists += 1,
        AddOutcome::Updated { .. } => report.updated += 1,
        AddOutcome::Rejected { .. } | AddOutcome::Flagged { .. } | AddOutcome::Replaced { .. } => {
            report.duplicates += 1;
        }
    }
}

/// The names of `schema`'s fields whose values are not in the document store (the plugin's
/// own left out: they are computed again).
fn unstored_fields(schema: &Schema) -> Vec<String> {
    schema
        .fields()
        .filter(|(_, entry)| !entry.is_stored() && !PLUGIN_FIELDS.contains(&entry.name()))
        .map(|(_, entry)| entry.name().to_owned())
        .collect()
}
