//! The plugin's fields in a tantivy index: their names, how each is written and read,
//! and where it is checked. Everything that reads or writes a plugin field goes through
//! here, the way tantivy's `fastfield` module is the one door to its columns (the
//! equivalent of Lucene's DocValues).
//!
//! * [`DedupFields`]: the fields an index's settings name, resolved in its schema and
//!   checked once per open.
//! * `stored`: every alive document's fingerprint, key hash, flag and add order read from
//!   the fast columns of a searcher, and single values read by address.
//! * `segment`: one segment's fingerprint, flag and signature columns, as the collector
//!   reads them.
//! * `signature`: the stored forms of a MinHash signature (u64 values, or bytes in older
//!   indexes) and the column that reads either.

mod fields;
pub(crate) mod fingerprint;
pub(crate) mod segment;
pub(crate) mod signature;
pub(crate) mod stored;

pub use fields::{replaced_texts, DedupFields};

use tantivy::columnar::Column;
use tantivy::DocId;

/// The u64 field holding each document's fingerprint (FAST; INDEXED too in indexes of
/// settings format 9 and earlier). A document whose text has no features has no value in
/// it.
pub const FINGERPRINT_FIELD: &str = "dedup_fingerprint";

/// The u64 field numbering documents in the order the writer added them (FAST): the order
/// in which [`duplicate_groups`](crate::plugin::DedupIndex::duplicate_groups) lists groups
/// and members and breaks its last ties, since tantivy's own document order changes with
/// threads and merges.
pub const SEQUENCE_FIELD: &str = "dedup_sequence";

/// The u64 field marking documents indexed under [`Policy::Flag`](crate::plugin::Policy::Flag) as
/// near-duplicates: 0 for an original, `distance + 1` for a flagged document (FAST, INDEXED
/// and STORED, so a `TermQuery` on 0 keeps originals only).
pub const FLAG_FIELD: &str = "dedup_flag";

/// The stored string field naming what a flagged document duplicates: the original's key,
/// or its fingerprint in hex when the index has no key field.
pub const DUPLICATE_OF_FIELD: &str = "dedup_duplicate_of";

/// The field holding each document's MinHash signature when the settings have a
/// [`Verification`](crate::matching::Verification): a multi-valued u64 FAST field, the
/// signature's values in order, eight of a byte a column value (settings format 7, the
/// default), two of 32 bits (formats 5 and 6, and indexes keeping 32 bits), or one (formats
/// 2 to 4). Indexes made with settings format 1 have a bytes FAST field
/// instead (4 bytes a value, little-endian), read and written as it is. A document without
/// a fingerprint has none.
pub const SIGNATURE_FIELD: &str = "dedup_signature";

/// The u64 field holding a digest (xxh3) of each document's fingerprinted text (FAST), in
/// indexes with a key field: how the writer tells a document added again with the same text
/// (`exists`) from a new version of it (an update). Indexes made before it existed tell them
/// apart by fingerprint, and take a new text of the same fingerprint for the same text.
pub const CONTENT_FIELD: &str = "dedup_content";

/// The raw string field (STRING and STORED, multi-valued) where a document indexed under
/// [`Policy::Replace`](crate::plugin::Policy::Replace) records what it stands for: one value
/// per document it replaced, the replaced document's text digest ([`CONTENT_FIELD`]) in 16
/// hex digits followed by its key, and the records of those documents in turn (up to
/// [`MAX_REPLACED_RECORDS`]). A record added again with that key and text, while its key
/// has no document of its own, is [`Exists`](crate::plugin::AddOutcome::Exists): a finished
/// replace job run again changes nothing. In indexes with a key field; indexes made before
/// it existed replace again on such a run. The records' texts are in
/// [`REPLACED_TEXT_FIELD`], their keys indexed in [`REPLACED_KEY_FIELD`].
pub const REPLACED_FIELD: &str = "dedup_replaced";

/// The stored-only string field (multi-valued) beside [`REPLACED_FIELD`]: for each record
/// a document holds, the replaced document's stored fields, as a JSON array of the record
/// and the document (tantivy's JSON form of it). What lets a replaced text come back as a
/// document when its holder changes in a later commit or run, where its holder's new text
/// no longer covers it. In indexes with a key field made by this version of the crate;
/// records of older indexes (or of documents without stored text) are reported lost
/// instead.
pub const REPLACED_TEXT_FIELD: &str = "dedup_replaced_text";

/// The indexed-only raw string field (multi-valued) beside [`REPLACED_FIELD`]: the key of
/// each record a document holds, so that the holders of a key's records are found when
/// that key is deleted (and its records let go with it). With [`REPLACED_TEXT_FIELD`].
pub const REPLACED_KEY_FIELD: &str = "dedup_replaced_key";

/// The most records of [`REPLACED_FIELD`] one document keeps: the documents it replaced
/// itself first, then theirs, nearest first. A cluster of more near-duplicates replaced one
/// after another is replaced again, in part, when its records are added again.
pub const MAX_REPLACED_RECORDS: usize = 256;

/// The u64 field holding a hash of each document's scope (FAST), in indexes whose settings
/// name a [scope field](crate::plugin::DedupSettings::scope_field): documents are
/// near-duplicates only when their values here are equal (or both absent).
pub const SCOPE_FIELD: &str = "dedup_scope";

/// True when `doc` holds a nonzero value in the [`FLAG_FIELD`] column `flags`: a document
/// flagged as a near-duplicate at index time. False without the column or a value.
#[inline]
pub(crate) fn is_flagged(flags: Option<&Column<u64>>, doc: DocId) -> bool {
    flags
        .and_then(|column| column.first(doc))
        .is_some_and(|value| value != 0)
}
