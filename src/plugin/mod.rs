//! The tantivy plugin: fingerprints stored in the index, near-duplicates rejected, flagged or
//! replaced while indexing ([`DedupWriter`]), and the settings that make an index's
//! fingerprints comparable kept in its directory ([`DedupIndex`]).
//!
//! The equivalent of Solr's `SignatureUpdateProcessorFactory` with `overwriteDupes`, for
//! near-duplicates rather than exact signatures: a document is a near-duplicate of another
//! when their 64-bit SimHash fingerprints differ in at most *k* bits.
//!
//! * [`DedupSettings`]: text fields, key field, flagging, distance, fingerprint config; and
//!   [`add_fields`](DedupSettings::add_fields), the one call that sets a schema up.
//! * [`DedupIndex`]: creates or opens an index's settings (a typed
//!   [`SettingsMismatch`](crate::Error::SettingsMismatch) when they differ) and registers
//!   the tokenizer.
//! * [`DedupWriter`], [`Policy`], [`AddOutcome`]: index-time deduplication.
//! * [`DedupCollector`]: near-duplicates suppressed in search results.
//! * [`DedupIndex::near_duplicates_of`], [`DedupIndex::duplicate_groups`]: batch work over
//!   an existing index, by the writer's rule.
//!
//! # Deduplicating search results
//!
//! [`DedupCollector`] is a
//! [`Collector`](tantivy::collector::Collector) that ranks the matching documents by score, as
//! `TopDocs::with_limit(n).order_by_score()` does, and hides every hit whose fingerprint lies
//! within distance *k* of a higher-ranked shown hit: field collapsing (as in Elasticsearch's
//! `collapse`) keyed by near-equality of SimHash fingerprints instead of equal values. It
//! returns a [`DedupTopDocs`] page of
//! [`DedupHit`]s, each listing the hits it hid.
//!
//! The index stores each document's fingerprint in a u64 fast field, and optionally a flag
//! (a u64 fast field, nonzero for documents flagged as near-duplicates while indexing) that
//! the collector can skip.
//!
//! ```
//! use tantivy::collector::TopDocs;
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
//! assert_eq!(top.hits[0].hidden[0].doc_id, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The module is called `plugin` rather than `tantivy` so that `tantivy::` paths inside the
//! crate keep naming the tantivy crate.

mod batch;
mod candidates;
mod collector;
mod column_cache;
mod config_file;
mod dedup_index;
mod fields;
mod matcher;
mod outcome;
mod results;
mod segment_columns;
mod settings;
mod signature;
mod stored;
mod suppression;
mod verification;
mod view;
mod writer;

pub use batch::{DuplicateGroup, NearDuplicate};
pub use candidates::SegmentCandidates;
pub use collector::{
    DedupCollector, DedupSegmentCollector, CANDIDATE_FACTOR, RETRY_FACTOR, SHARE_FACTOR,
};
pub use column_cache::ColumnCache;
pub use config_file::{DICTIONARY_FILE, IDF_FILE, SETTINGS_FILE};
pub use dedup_index::{register_tokenizer, DedupIndex};
pub use fields::DedupFields;
pub use outcome::{AddOutcome, Duplicate, Policy};
pub use results::{DedupHit, DedupTopDocs};
pub use settings::{
    text_field_options, DedupSettings, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD,
    SEQUENCE_FIELD, SETTINGS_VERSION, SIGNATURE_FIELD,
};
pub use verification::{
    CandidateStage, Score, Verification, DEFAULT_BAND_ROWS, DEFAULT_CANDIDATE_DISTANCE,
    DEFAULT_SHINGLES, DEFAULT_SIGNATURE_HASHES, DEFAULT_THRESHOLD,
};
pub use writer::DedupWriter;

pub(crate) use signature::{jaccard, shares_band, Signature, Signer};
