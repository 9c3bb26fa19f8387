//! [`reindex`]: an index made without the plugin (or with other settings) copied into a
//! dedup index through a [`DedupWriter`](crate::plugin::DedupWriter), so that every document gets its fingerprint and
//! signature and its near-duplicates meet the policy. tantivy schemas are immutable, so a
//! new index is the only way: Elasticsearch's `_reindex` API and Solr's reindexing do the
//! same.

use tantivy::columnar::Column;
use tantivy::schema::{Field, Schema, TantivyDocument, Value};
use tantivy::{DocAddress, Index, Searcher};

use crate::error::{Error, Result};
use crate::plugin::columns::{
    CONTENT_FIELD, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD, SEQUENCE_FIELD,
    SIGNATURE_FIELD,
};
use crate::plugin::fast_values::{self, FastValues};
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
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ReindexReport {
    /// Alive documents read from the source.
    pub documents: u64,
    /// Indexed as new ([`AddOutcome::Added`]).
    pub added: u64,
    /// Near-duplicates of a document copied before them, rejected, flagged or replacing it
    /// as the policy says: each is in [`duplicate_outcomes`](Self::duplicate_outcomes).
    pub duplicates: u64,
    /// Left out: the same key and text was copied already ([`AddOutcome::Exists`]).
    pub exists: u64,
    /// Replaced the document of the same key copied before them ([`AddOutcome::Updated`]).
    pub updated: u64,
    /// Fields of the source whose values could not be copied: neither STORED (in the
    /// document store) nor FAST of a type read back from its column (numbers, dates, bools,
    /// strings, bytes). An INDEXED-only field's values are in no form that can be read
    /// back.
    pub unstored_fields: Vec<String>,
    /// Fields of the source that are FAST and not STORED, whose values were read back from
    /// their columns.
    pub fast_only_fields: Vec<String>,
    /// Every near-duplicate, in copy order: its source address and key, and what the
    /// writer did with it (whose duplicate it was, and the policy's action).
    pub duplicate_outcomes: Vec<ReindexedDuplicate>,
}

/// A document of the source that [`reindex`] found a near-duplicate of one copied before
/// it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReindexedDuplicate {
    /// Where it is in the source.
    pub source: DocAddress,
    /// Its key, when the target has a [key field](crate::plugin::DedupSettings::key_field).
    pub key: Option<String>,
    /// What the writer did: [`AddOutcome::Rejected`], [`AddOutcome::Flagged`] or
    /// [`AddOutcome::Replaced`], naming the document it is a near-duplicate of.
    pub outcome: AddOutcome,
}

/// How [`reindex_with`] copies: the policy, and the target writer's memory and indexing
/// threads.
#[derive(Clone, Debug)]
pub struct ReindexOptions {
    policy: Policy,
    memory_budget_bytes: usize,
    indexing_threads: Option<usize>,
}

impl ReindexOptions {
    /// Copies under `policy` with a writer of `memory_budget_bytes`, as many indexing
    /// threads as tantivy chooses (one a core, up to 8).
    pub fn new(policy: Policy, memory_budget_bytes: usize) -> ReindexOptions {
        ReindexOptions {
            policy,
            memory_budget_bytes,
            indexing_threads: None,
        }
    }

    /// The target writer's indexing threads (at least 1). The copies are decided in the
    /// source's order whatever the threads, so the outcome is the same every run.
    #[must_use]
    pub fn indexing_threads(mut self, threads: usize) -> ReindexOptions {
        self.indexing_threads = Some(threads.max(1));
        self
    }
}

/// Copies every alive document of `source` into `target` through a
/// [`DedupWriter`](crate::plugin::DedupWriter) with `policy`, and commits: as
/// [`reindex_with`] with [`ReindexOptions::new`]. Fields are matched by name (make the target's
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
    reindex_with(
        source,
        target,
        &ReindexOptions::new(policy, memory_budget_bytes),
    )
}

/// Copies every alive document of `source` into `target` through a
/// [`DedupWriter`](crate::plugin::DedupWriter), fingerprinted in parallel
/// ([`add_all`](crate::plugin::DedupWriter::add_all)), and commits.
///
/// Which of two near-duplicates is kept is the same every run: documents are decided in
/// the source's order, by [`SEQUENCE_FIELD`] when the source is a dedup index (its own add
/// order), else by segment id and then document number. Stored values are copied, and the
/// values of FAST fields that are not STORED are read back from their columns
/// ([`ReindexReport::fast_only_fields`]); the report lists the fields whose values could
/// not be copied at all, and every near-duplicate with its key.
///
/// # Errors
/// As [`reindex`].
pub fn reindex_with(
    source: &Index,
    target: &DedupIndex,
    options: &ReindexOptions,
) -> Result<ReindexReport> {
    let from = source.schema();
    let to = target.index().schema();
    let mut report = ReindexReport {
        unstored_fields: lost_fields(&from),
        fast_only_fields: fast_only_fields(&from),
        ..ReindexReport::default()
    };
    for name in target.settings().get_text_fields() {
        let stored =
            (from.get_field(name).ok()).is_some_and(|f| from.get_field_entry(f).is_stored());
        if !stored {
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
    let fast_fields: Vec<(Field, Field)> = (from.fields())
        .filter(|(_, entry)| report.fast_only_fields.iter().any(|n| n == entry.name()))
        .filter_map(|(field, _)| Some((field, fields[field.field_id() as usize]?)))
        .collect();
    let searcher = source.reader()?.searcher();
    let order = copy_order(&searcher)?;
    let mut fast_values = (searcher.segment_readers().iter())
        .map(|reader| FastValues::open(reader, &from, &fast_fields))
        .collect::<Result<Vec<_>>>()?;
    let key_field = target
        .settings()
        .get_key_field()
        .and_then(|k| to.get_field(k).ok());
    let writer = match options.indexing_threads {
        Some(threads) => {
            target.writer_with_num_threads(options.policy, threads, options.memory_budget_bytes)?
        }
        None => target.writer(options.policy, options.memory_budget_bytes)?,
    };
    // A document read, or the error reading it: the copies stream through `add_all`, whose
    // outcomes come back in this order.
    let copies = order.iter().map(|&address| -> Result<TantivyDocument> {
        let stored: TantivyDocument = searcher.doc(address)?;
        let mut copy = TantivyDocument::default();
        for (field, value) in stored.field_values() {
            if let Some(target_field) = fields[field.field_id() as usize] {
                copy.add_field_value(target_field, value);
            }
        }
        fast_values[address.segment_ord as usize].add_to(address.doc_id, &mut copy)?;
        Ok(copy)
    });
    // Read errors stop the copy; `add_all` takes documents, so they wait beside it.
    let mut read_error = None;
    let documents = copies.map_while(|copy| match copy {
        Ok(copy) => Some(copy),
        Err(error) => {
            read_error = Some(error);
            None
        }
    });
    for (at, outcome) in writer.add_all(documents).enumerate() {
        let outcome = outcome?;
        count(&mut report, &outcome);
        if outcome.duplicate_of().is_some() {
            let source_address = order[at];
            let key = match key_field {
                Some(field) => {
                    let stored: TantivyDocument = searcher.doc(source_address)?;
                    let value = stored.get_first(field);
                    value.and_then(|v| Value::as_str(&v)).map(str::to_owned)
                }
                None => None,
            };
            report.duplicate_outcomes.push(ReindexedDuplicate {
                source: source_address,
                key,
                outcome,
            });
        }
        if report.documents.is_multiple_of(COMMIT_EVERY) {
            writer.commit()?;
        }
    }
    if let Some(error) = read_error {
        return Err(error);
    }
    writer.commit()?;
    Ok(report)
}

/// The alive documents of `searcher` in the order a reindex copies them: by
/// [`SEQUENCE_FIELD`] when the segments have it, then by segment id and document number.
fn copy_order(searcher: &Searcher) -> Result<Vec<DocAddress>> {
    let mut order = Vec::new();
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let sequence: Option<Column<u64>> = reader.fast_fields().column_opt(SEQUENCE_FIELD)?;
        let id = reader.segment_id().uuid_string();
        for doc in reader.doc_ids_alive() {
            let place = sequence
                .as_ref()
                .and_then(|c| c.first(doc))
                .unwrap_or(u64::MAX);
            order.push((place, id.clone(), doc, DocAddress::new(ord as u32, doc)));
        }
    }
    order.sort_unstable_by(|a, b| (a.0, &a.1, a.2).cmp(&(b.0, &b.1, b.2)));
    Ok(order
        .into_iter()
        .map(|(_, _, _, address)| address)
        .collect())
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

/// The names of `schema`'s fields whose values cannot be read back: not in the document
/// store, nor in a fast column of a readable type (the plugin's own left out: they are
/// computed again).
fn lost_fields(schema: &Schema) -> Vec<String> {
    schema
        .fields()
        .filter(|(_, entry)| !PLUGIN_FIELDS.contains(&entry.name()))
        .filter(|(_, entry)| !entry.is_stored() && !fast_values::readable(entry.field_type()))
        .map(|(_, entry)| entry.name().to_owned())
        .collect()
}

/// The names of `schema`'s fields that are FAST of a readable type and not STORED (the
/// plugin's own left out).
fn fast_only_fields(schema: &Schema) -> Vec<String> {
    schema
        .fields()
        .filter(|(_, entry)| !PLUGIN_FIELDS.contains(&entry.name()))
        .filter(|(_, entry)| !entry.is_stored() && fast_values::readable(entry.field_type()))
        .map(|(_, entry)| entry.name().to_owned())
        .collect()
}
