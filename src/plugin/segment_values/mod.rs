//! The plugin's segment component: each document's fingerprint and signature in a file of
//! every segment (`<segment>.dedup`), written by tantivy's indexing threads when a segment
//! is finalized, merged when tantivy merges segments (deleted documents dropped) and
//! committed, garbage-collected and fail-closed with them: an index that has the component
//! cannot be written without it ([`tantivy::TantivyError::MissingPlugin`]).
//!
//! A document that [`DedupWriter`](crate::plugin::DedupWriter) or
//! [`fill_document`](crate::plugin::DedupIndex::fill_document) prepared carries its values
//! in [`VALUES_FIELD`], a custom field that only this component reads; a document an
//! application's own `IndexWriter` added as it came is fingerprinted and signed here, from
//! its text fields, on the indexing thread. Either way the file is what every reader of
//! fingerprints and signatures reads in the indexes that have it.

mod attach;
mod block_table;
mod file;
mod merge;
mod opened;
mod plugin;
mod tables;
mod values_field;
mod writer;

pub(crate) use attach::{record, register};
pub(crate) use file::{SegmentValues, SignatureShape};
pub(crate) use opened::{open, pin, pinned_searcher};
pub use plugin::DedupSegmentPlugin;
pub(crate) use plugin::{shape_of, tables_of};
pub(crate) use tables::{BlockRun, TablesAt};
pub(crate) use values_field::{decode_values, encode_values};

/// The extension of the component's file in each segment.
pub const EXTENSION: &str = "dedup";

/// The custom field that carries a prepared document's values to the component.
pub const VALUES_FIELD: &str = "dedup_values";

/// The first settings format whose indexes keep their values in the component.
pub(crate) const SEGMENT_VALUES_FROM_FORMAT: u32 = 10;

/// The custom type name of [`VALUES_FIELD`].
pub(crate) const VALUES_TYPE: &str = "tantivy-dedup.values";
