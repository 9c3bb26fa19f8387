//! The tantivy plugin: fingerprints and signatures stored in the index, near-duplicates
//! rejected, flagged or replaced while indexing ([`DedupWriter`]) and hidden in search
//! results ([`DedupCollector`]), and the settings that make an index's fingerprints
//! comparable kept in its directory ([`DedupIndex`]).
//!
//! The equivalent of Solr's `SignatureUpdateProcessorFactory` with `overwriteDupes` and of
//! Elasticsearch's `collapse`, for near-duplicates rather than equal values. Every part
//! judges pairs by one rule ([`crate::matching`]): two documents are near-duplicates when
//! their 64-bit SimHash fingerprints differ in at most *k* bits (3 by default), or, with
//! two-stage matching (on by default: [`Verification`](crate::matching::Verification)), when they are within a looser
//! candidate distance, share a band of their MinHash signatures, and the signatures agree
//! on enough of their values.
//!
//! * [`DedupSettings`]: text fields, key field, flagging, distance, fingerprint config,
//!   verification; [`add_fields`](DedupSettings::add_fields), the one call that sets a
//!   schema up; [`MatchingSettings`](crate::matching::MatchingSettings), its matching half (fingerprint config, distance,
//!   verification) as a file of its own, the one `eval --recommend` writes.
//! * [`DedupIndex`]: creates or opens an index's settings (a typed
//!   [`SettingsMismatch`](crate::Error::SettingsMismatch) when they differ) and registers
//!   the tokenizer; [`near_duplicates_of`](DedupIndex::near_duplicates_of) and
//!   [`duplicate_groups`](DedupIndex::duplicate_groups), batch work by the writer's rule;
//!   [`judge_stored`](DedupIndex::judge_stored), the rule's verdict on two stored documents.
//! * The index-time path (`writer/`): [`DedupWriter`], [`Policy`], [`AddOutcome`].
//! * The query-time path (`collector/`): [`DedupCollector`], [`DedupTopDocs`].
//! * The fields (`columns/`): [`DedupFields`] and the field names, every plugin field read
//!   and written in one place.
//! * [`reindex`]: an existing index copied into a dedup index (schemas are immutable), its
//!   schema made by [`DedupSettings::extend_schema`].
//!
//! # Deduplicating search results
//!
//! [`DedupCollector`] works on any index with a u64 fast field of fingerprints; a
//! [`DedupIndex`]'s [`collector`](DedupIndex::collector) sets it up with the index's rule.
//!
//! ```
//! use tantivy::query::AllQuery;
//! use tantivy::schema::{Schema, FAST, INDEXED, TEXT};
//! use tantivy::{doc, Index};
//! use tantivy_dedup::plugin::DedupCollector;
//!
//! let mut schema = Schema::builder();
//! let title = schema.add_text_field("title", TEXT);
//! let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
//! let index = Index::create_in_ram(schema.build());
//! let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
//! writer.add_document(doc!(title => "a", fingerprint => 0xFF00_u64))?;
//! writer.add_document(doc!(title => "a, copied", fingerprint => 0xFF01_u64))?;
//! writer.add_document(doc!(title => "empty: no fingerprint"))?;
//! writer.commit()?;
//!
//! let searcher = index.reader()?.searcher();
//! // Equal scores: the ranking breaks ties by address, so the first document hides the second.
//! let top = searcher.search(&AllQuery, &DedupCollector::new("fingerprint", 10))?;
//! let shown: Vec<u32> = top.hits.iter().map(|hit| hit.address.doc_id).collect();
//! assert_eq!(shown, [0, 2]);
//! assert_eq!(top.hits[0].hidden[0].address.doc_id, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The module is called `plugin` rather than `tantivy` so that `tantivy::` paths inside the
//! crate keep naming the tantivy crate.

mod batch;
pub mod collector;
mod columns;
mod fast_values;
mod index;
mod read_only;
mod reindex;
mod segment_values;
mod settings;
mod settings_file;
mod stored_judgement;
mod writer;

pub use batch::{DuplicateGroup, NearDuplicate};
pub use collector::dedup_collector::DedupCollector;
pub use collector::results::{DedupHit, DedupTopDocs, HiddenHit};
pub use collector::sort_value::SortValue;
pub use columns::{
    replaced_texts, DedupFields, CONTENT_FIELD, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD,
    MAX_REPLACED_RECORDS, REPLACED_FIELD, REPLACED_KEY_FIELD, REPLACED_TEXT_FIELD, SCOPE_FIELD,
    SEQUENCE_FIELD, SIGNATURE_FIELD,
};
pub use index::{register_tokenizer, DedupIndex};
pub use read_only::ReadOnlyTolerantDirectory;
pub use reindex::{reindex, reindex_with, ReindexOptions, ReindexReport, ReindexedDuplicate};
pub use segment_values::{DedupSegmentPlugin, VALUES_FIELD};
pub use settings::{text_field_options, DedupSettings};
pub use settings_file::{
    DICTIONARY_FILE, IDF_FILE, LEDGER_FILE, SETTINGS_FILE, SHINGLE_WEIGHTS_FILE,
};
pub use writer::{
    AddAll, AddOutcome, Check, DedupPreparedCommit, DedupWriter, Duplicate, Policy,
    PreparedDocument, Rejudged,
};
