//! `SegmentColumns`: the fast-field columns the collector reads one segment through, opened
//! once per segment (and kept across searches by a
//! [`ColumnCache`](crate::plugin::collector::ColumnCache)).

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use tantivy::columnar::{Column, ColumnType};
use tantivy::{DocId, SegmentReader};

use super::fingerprint::FingerprintColumn;
use super::is_flagged;
use super::signature::SignatureColumn;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;

/// The fingerprint, flag, signature and sort columns of one segment. A column missing from
/// a segment (no document of it has a value) reads as no value.
///
/// Shared: a clone (the cache's, each search's, each fruit's) costs one reference count,
/// where cloning the columns would cost one per column index and values.
#[derive(Clone, Default)]
pub(crate) struct SegmentColumns(Arc<Columns>);

/// The columns a [`SegmentColumns`] shares.
#[derive(Default)]
struct Columns {
    fingerprint: Option<FingerprintColumn>,
    /// The flags of documents to skip.
    flag: Option<Column<u64>>,
    /// The flags of documents taken in, to lead their groups by their originals.
    kept_flags: Option<Column<u64>>,
    /// The signatures and the number of values each holds.
    signature: Option<(SignatureColumn, usize)>,
    /// The scope hashes, when the collector has scopes.
    scope: Option<Column<u64>>,
    /// The fast field hits are ranked by, as `u64` (tantivy's order-preserving form), with
    /// its type.
    sort: Option<(Column<u64>, ColumnType)>,
    /// What the collector's searches learned of how many hits this segment must give
    /// (`CapacityHint`): kept with the columns, so that it lives as long as the segment
    /// in a cache, and goes with it.
    learned: AtomicUsize,
}

/// Which columns to open: field names, and the signature's number of values.
pub(crate) struct ColumnNames<'a> {
    pub(crate) fingerprint: &'a str,
    /// The flag field, when flagged documents are skipped.
    pub(crate) flag: Option<&'a str>,
    /// The flag field, when flagged documents are taken in and their groups led by their
    /// originals.
    pub(crate) kept_flags: Option<&'a str>,
    pub(crate) signature: Option<(&'a str, usize)>,
    /// Whether every document with a fingerprint must have a signature (an index's own
    /// collector, whose writer stores both).
    pub(crate) require_signatures: bool,
    /// The fast field hits are ranked by, when not by score.
    pub(crate) sort: Option<&'a str>,
    /// The u64 field of scope hashes, when near-duplicates must share a scope.
    pub(crate) scope: Option<&'a str>,
}

impl SegmentColumns {
    /// Opens the columns `names` lists in `reader`'s segment.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when a column cannot be read;
    /// [`Error::MissingSignatures`](crate::Error::MissingSignatures) when signatures are
    /// required and fewer documents have one than have a fingerprint.
    pub(crate) fn open(reader: &SegmentReader, names: &ColumnNames) -> Result<Self> {
        let fast_fields = reader.fast_fields();
        let flag = match names.flag {
            Some(name) => fast_fields.column_opt::<u64>(name)?,
            None => None,
        };
        let kept_flags = match names.kept_flags {
            Some(name) => fast_fields.column_opt::<u64>(name)?,
            None => None,
        };
        let signature = match names.signature {
            Some((name, hashes)) => {
                SignatureColumn::open(reader, name)?.map(|column| (column, hashes))
            }
            None => None,
        };
        let fingerprint = FingerprintColumn::open(reader, names.fingerprint)?;
        let scope = match names.scope {
            Some(name) => fast_fields.column_opt::<u64>(name)?,
            None => None,
        };
        let sort = match names.sort {
            Some(name) => fast_fields.u64_lenient(name)?,
            None => None,
        };
        if names.require_signatures && names.signature.is_some() {
            let fingerprints = fingerprint.as_ref().map_or(0, FingerprintColumn::documents);
            let signatures = signature
                .as_ref()
                .map_or(0, |(column, _)| column.documents());
            if signatures < fingerprints {
                return Err(Error::MissingSignatures {
                    segment: reader.segment_id().short_uuid_string(),
                    documents: fingerprints - signatures,
                });
            }
        }
        Ok(SegmentColumns(Arc::new(Columns {
            fingerprint,
            flag,
            kept_flags,
            signature,
            scope,
            sort,
            learned: AtomicUsize::new(0),
        })))
    }

    /// True when [`append_signature`](Self::append_signature) finds a signature of `doc`:
    /// told by its count of column values when that is enough, else read into `scratch`
    /// (cleared first).
    ///
    /// # Errors
    /// As `append_signature`.
    pub(crate) fn has_signature(&self, doc: DocId, scratch: &mut Vec<u32>) -> Result<bool> {
        if let Some((column, hashes)) = &self.0.signature {
            if let Some(signed) = column.signed(doc, *hashes) {
                return Ok(signed);
            }
        }
        scratch.clear();
        self.append_signature(doc, scratch)
    }

    /// What the collector's searches learned of this segment (see `CapacityHint`).
    pub(crate) fn learned(&self) -> &AtomicUsize {
        &self.0.learned
    }

    /// True when the segment has a flag column (else no document is flagged).
    #[inline]
    pub(crate) fn has_flags(&self) -> bool {
        self.0.flag.is_some()
    }

    /// True when `doc` has a non-zero flag in the column of flags to skip.
    #[inline]
    pub(crate) fn is_flagged(&self, doc: DocId) -> bool {
        is_flagged(self.0.flag.as_ref(), doc)
    }

    /// True when `doc`, taken in, was flagged at index time (read only when its group is to
    /// be led by its original).
    #[inline]
    pub(crate) fn flagged(&self, doc: DocId) -> bool {
        is_flagged(self.0.kept_flags.as_ref(), doc)
    }

    /// The fingerprint of `doc`, if it has one.
    #[inline]
    pub(crate) fn fingerprint(&self, doc: DocId) -> Option<Fingerprint> {
        self.0
            .fingerprint
            .as_ref()
            .and_then(|column| column.get(doc))
    }

    /// The scope of `doc`: its value in the scope column (`None` without one, or without
    /// scopes: then every hit shares the one scope).
    #[inline]
    pub(crate) fn scope(&self, doc: DocId) -> Option<u64> {
        self.0.scope.as_ref().and_then(|column| column.first(doc))
    }

    /// The `u64` form of `doc`'s (first) value in the sort field, if it has one.
    #[inline]
    pub(crate) fn sort_value(&self, doc: DocId) -> Option<u64> {
        self.0
            .sort
            .as_ref()
            .and_then(|(column, _)| column.first(doc))
    }

    /// The sort field's first values of `docs` into `values` (as long as `docs`): `None`
    /// for a document without one, or when the segment has no column.
    #[inline]
    pub(crate) fn sort_values(&self, docs: &[DocId], values: &mut [Option<u64>]) {
        values.fill(None);
        if let Some((column, _)) = &self.0.sort {
            column.first_vals(docs, values);
        }
    }

    /// The type of the sort field's values, when the segment has the column.
    pub(crate) fn sort_type(&self) -> Option<ColumnType> {
        self.0.sort.as_ref().map(|(_, column_type)| *column_type)
    }

    /// The number of values of a signature (0 when signatures are not read).
    pub(crate) fn signature_values(&self) -> usize {
        self.0.signature.as_ref().map_or(0, |(_, hashes)| *hashes)
    }

    /// Appends the signature values of `doc` to `values`, when signatures are read and it
    /// has one (true); false leaves `values` as it was. A value of another length than the
    /// index's signatures was not written by this crate (a user's own pipeline, another
    /// index's settings): the document is judged by its fingerprint alone, as one indexed
    /// without a signature is.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the column cannot be read.
    pub(crate) fn append_signature(&self, doc: DocId, values: &mut Vec<u32>) -> Result<bool> {
        let Some((column, hashes)) = self.0.signature.as_ref() else {
            return Ok(false);
        };
        let start = values.len();
        values.resize(start + hashes, 0);
        let read = column.read_slice(doc, &mut values[start..]);
        if !matches!(read, Ok(true)) {
            values.truncate(start);
        }
        match read {
            Ok(found) => Ok(found),
            Err(Error::Decode { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }
}
