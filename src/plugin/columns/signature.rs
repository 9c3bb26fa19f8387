//! The stored forms of a MinHash [`Signature`] in the [`SIGNATURE_FIELD`] fast field, and
//! the one column type that reads each of them.
//!
//! * **Octets** (signatures keeping a byte a value, [`KeptBits::LowByte`], the default of
//!   settings format 7): the multi-valued u64 fast field, one column value eight signature
//!   values, the first in the lowest byte (a last column value of fewer values padded with
//!   zeros). An empty set's signature is stored as all ones and read back as itself. 16
//!   column values and 128 bytes a document for the default 128 values.
//! * **Pairs** (indexes of settings formats 5 and 6): a multi-valued u64 fast field, one
//!   column value two signature values, the first in the low half (an odd last value
//!   alone). Half as many values as one a value: tantivy's indexing threads record every
//!   column value of every document, and 128 of them a document was a tenth of the CPU of
//!   an ingest with the default settings.
//! * **Values** (formats 2 to 4): the same field, one column value a signature value, in
//!   order (tantivy bit-packs them to 32 bits). Such indexes keep writing it.
//! * **Bytes** (format 1): a bytes fast field, 4 bytes a value, little-endian. tantivy
//!   keeps bytes in an sstable whose blocks may be zstd-compressed, and a random read
//!   decompresses a block with a fresh context (quickwit-oss/tantivy#2475): about 4 µs a
//!   signature, which is why later indexes use a u64 field. Read and written in the indexes
//!   that have it.
//!
//! The schema tells a bytes field from a u64 one, and the settings which u64 form an index
//! writes ([`SignatureLayout::written`]). A read tells the u64 forms apart by a document's
//! count of column values: a signature of `h` values has `h` of them one a value,
//! `h.div_ceil(2)` as pairs and `h.div_ceil(8)` as octets, three counts that differ from
//! `h = 3` on, the fewest values of a signature of a byte a value
//! ([`MIN_BYTE_HASHES`](crate::matching::MIN_BYTE_HASHES)). Below, only the two 32-bit forms
//! exist: their counts differ at `h = 2`, and at `h = 1` they are the same value.

use tantivy::columnar::{BytesColumn, Column, ColumnIndex, RowId};
use tantivy::schema::{Field, FieldType, Schema};
use tantivy::{DocId, SegmentReader, TantivyDocument};

use super::fingerprint::has_segment_values;
use super::SIGNATURE_FIELD;
use crate::error::{Error, Result};
use crate::fingerprint::{le_bytes, KeptBits, Signature, EMPTY};
use crate::plugin::segment_values::{self, SegmentValues};

/// The first settings format whose indexes store [`SignatureLayout::Pairs`].
const PAIRS_FROM_FORMAT: u32 = 5;

/// How a signature field stores its signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SignatureLayout {
    /// A multi-valued u64 fast field, eight signature values of a byte a column value.
    Octets,
    /// A multi-valued u64 fast field, two signature values a column value.
    Pairs,
    /// A multi-valued u64 fast field, one signature value a column value (settings formats
    /// 2 to 4).
    Values,
    /// A bytes fast field, 4 bytes a value (settings format 1).
    Bytes,
}

/// The two kinds of fast field that hold signatures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    U64,
    Bytes,
}

impl FieldKind {
    /// The kind of `field` in `schema`: `None` when it is neither a u64 nor a bytes fast
    /// field.
    fn of(schema: &Schema, field: Field) -> Option<FieldKind> {
        match schema.get_field_entry(field).field_type() {
            FieldType::U64(options) if options.is_fast() => Some(FieldKind::U64),
            FieldType::Bytes(options) if options.is_fast() => Some(FieldKind::Bytes),
            _ => None,
        }
    }
}

impl SignatureLayout {
    /// Whether `field` of `schema` can hold signatures: a u64 or a bytes fast field.
    pub(crate) fn fits(schema: &Schema, field: Field) -> bool {
        FieldKind::of(schema, field).is_some()
    }

    /// The layout that an index of settings format `format`, whose signatures keep `bits`,
    /// writes into `field` of `schema`: `None` when the field cannot hold signatures.
    pub(crate) fn written(
        schema: &Schema,
        field: Field,
        format: u32,
        bits: KeptBits,
    ) -> Option<SignatureLayout> {
        FieldKind::of(schema, field).map(|kind| match kind {
            FieldKind::U64 if bits == KeptBits::LowByte => SignatureLayout::Octets,
            FieldKind::U64 if format >= PAIRS_FROM_FORMAT => SignatureLayout::Pairs,
            FieldKind::U64 => SignatureLayout::Values,
            FieldKind::Bytes => SignatureLayout::Bytes,
        })
    }
}

/// Adds `signature` to `document`'s `field`, stored as `layout` says.
pub(crate) fn add_to(
    document: &mut TantivyDocument,
    field: Field,
    layout: SignatureLayout,
    signature: &Signature,
) {
    match layout {
        SignatureLayout::Octets => {
            for octet in signature.values().chunks(8) {
                document.add_u64(field, octet_value(octet));
            }
        }
        SignatureLayout::Pairs => {
            for pair in signature.values().chunks(2) {
                document.add_u64(field, pair_value(pair));
            }
        }
        SignatureLayout::Values => {
            for &value in signature.values() {
                document.add_u64(field, u64::from(value));
            }
        }
        SignatureLayout::Bytes => {
            document.add_bytes(field, &le_bytes(signature.values()));
        }
    }
}

/// The column value of one or two signature values: the first in the low half.
#[inline]
fn pair_value(pair: &[u32]) -> u64 {
    let high = pair.get(1).copied().unwrap_or(0);
    u64::from(pair[0]) | u64::from(high) << 32
}

/// The column value of up to eight signature values of a byte each (an empty set's
/// [`EMPTY`] as all ones): the first in the lowest byte.
#[inline]
fn octet_value(octet: &[u32]) -> u64 {
    octet
        .iter()
        .rev()
        .fold(0, |packed, &value| packed << 8 | u64::from(value & 0xFF))
}

/// Whether the signatures a reader asks for under `name` are the segment component's: the
/// schema has no such field, and keeps its values in the component.
pub(crate) fn in_segment_values(schema: &Schema, name: &str) -> bool {
    schema.get_field(name).is_err() && has_segment_values(schema)
}

/// One segment's column of signatures, in any layout.
#[derive(Clone)]
pub(crate) enum SignatureColumn {
    /// A u64 column: the pairs or the values layout, told apart document by document.
    Values(Column<u64>),
    /// The bytes layout.
    Bytes(BytesColumn),
    /// The segment component's file (indexes of settings format 10 and later).
    Segment(SegmentValues),
}

impl SignatureColumn {
    /// The signature column named `name` in `reader`'s segment; `None` when no document of
    /// the segment has a value in it (or the schema has no such field).
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the column cannot be read or the field is neither a u64 nor
    /// a bytes fast field.
    pub(crate) fn open(reader: &SegmentReader, name: &str) -> Result<Option<SignatureColumn>> {
        let fast_fields = reader.fast_fields();
        let schema = reader.schema();
        if in_segment_values(schema, name) {
            return Ok(Some(Self::Segment(segment_values::open(reader)?)));
        }
        let kind = schema
            .get_field(name)
            .ok()
            .and_then(|field| FieldKind::of(schema, field));
        Ok(if kind == Some(FieldKind::U64) {
            fast_fields.column_opt::<u64>(name)?.map(Self::Values)
        } else {
            // Bytes fields, and unknown or unfit ones, which get tantivy's own message.
            fast_fields.bytes(name)?.map(Self::Bytes)
        })
    }

    /// The number of documents with a signature.
    pub(crate) fn documents(&self) -> u32 {
        match self {
            Self::Values(column) => {
                // The documents of a segment all store their signatures in the form of its
                // index: the first one's count of column values is each one's.
                let first = match &column.index {
                    ColumnIndex::Multivalued(index) => index.next_non_null_doc(0),
                    // At most one column value a document (signatures of one value).
                    _ => None,
                };
                let width = first.map_or(1, |doc| column.index.value_row_ids(doc).len());
                column.values.num_vals() / width.max(1) as u32
            }
            Self::Bytes(column) => column.ords().values.num_vals(),
            Self::Segment(values) => values.signed_documents(),
        }
    }

    /// Reads `doc`'s signature of `hashes` values into `out` (cleared first); false when it
    /// has none.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the column cannot be read; [`Error::Decode`] when the stored
    /// value is not that of `hashes` values (not written by this crate, or by an index of
    /// another signature length).
    pub(crate) fn read_into(&self, doc: DocId, hashes: usize, out: &mut Vec<u32>) -> Result<bool> {
        out.clear();
        out.resize(hashes, 0);
        let found = self.read_slice(doc, out)?;
        if !found {
            out.clear();
        }
        Ok(found)
    }

    /// Reads `doc`'s signature into `out`, whose length is the number of values a
    /// signature has; false when it has none (`out` is then unspecified).
    ///
    /// # Errors
    /// As [`read_into`](Self::read_into).
    pub(crate) fn read_slice(&self, doc: DocId, out: &mut [u32]) -> Result<bool> {
        let hashes = out.len();
        match self {
            Self::Values(column) => {
                let rows = column.index.value_row_ids(doc);
                if rows.is_empty() {
                    return Ok(false);
                }
                let stored = rows.len();
                if stored == hashes {
                    read_values(column, rows.start, out)?;
                } else if stored == hashes.div_ceil(2) {
                    read_pairs(column, rows.start, out)?;
                } else if stored == hashes.div_ceil(8) {
                    read_octets(column, rows.start, out);
                } else {
                    return Err(decode_error(
                        format!("{stored} values in {SIGNATURE_FIELD}"),
                        format!(
                            "{hashes} (one a value), {} (two) or {} (eight)",
                            hashes.div_ceil(2),
                            hashes.div_ceil(8)
                        ),
                    ));
                }
                Ok(true)
            }
            Self::Bytes(column) => {
                let Some(ord) = column.ords().first(doc) else {
                    return Ok(false);
                };
                let mut bytes = Vec::with_capacity(4 * hashes);
                column
                    .ord_to_bytes(ord, &mut bytes)
                    .map_err(tantivy::TantivyError::from)?;
                check_bytes(&bytes, hashes)?;
                for (slot, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *slot = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
                Ok(true)
            }
            Self::Segment(values) => {
                if !values.is_signed(doc) {
                    return Ok(false);
                }
                if !values.read_signature(doc, out) {
                    return Err(decode_error(
                        format!("{} values in the segment's file", values.shape().values),
                        format!("{hashes}"),
                    ));
                }
                Ok(true)
            }
        }
    }

    /// Whether [`read_slice`](Self::read_slice) finds a signature of `hashes` values for
    /// `doc` (`Ok(true)`, rather than `Ok(false)` or a decode error), when the count of its
    /// column values tells it without reading them: `None` when only a read can (values
    /// one a column value in a column holding some beyond a u32, and the bytes layout). A
    /// page's count of hits judged without a signature asks this of every hit, and a read
    /// unpacks the whole signature.
    pub(crate) fn signed(&self, doc: DocId, hashes: usize) -> Option<bool> {
        let column = match self {
            Self::Values(column) => column,
            Self::Segment(values) => {
                return Some(values.is_signed(doc) && values.shape().values == hashes)
            }
            Self::Bytes(_) => return None,
        };
        let fits = column.values.max_value() <= u64::from(u32::MAX);
        let stored = column.index.value_row_ids(doc).len();
        // The branches of `read_slice`, in its order, with the checks its reads make on
        // the column as a whole.
        Some(if stored == 0 {
            false
        } else if stored == hashes {
            if !fits {
                return None;
            }
            true
        } else if stored == hashes.div_ceil(2) {
            !(hashes >= 2 && fits)
        } else {
            stored == hashes.div_ceil(8)
        })
    }

    /// `doc`'s signature of `hashes` values, if it has one.
    ///
    /// # Errors
    /// As [`read_into`](Self::read_into).
    pub(crate) fn read(&self, doc: DocId, hashes: usize) -> Result<Option<Signature>> {
        let mut values = Vec::new();
        Ok(self
            .read_into(doc, hashes, &mut values)?
            .then(|| Signature::from_values(values)))
    }
}

/// Column values read at once by `get_range`, which unpacks runs of bits together.
const CHUNK: usize = 64;

/// Reads `out.len()` signature values stored one a column value from row `start` on.
///
/// # Errors
/// [`Error::Decode`] for a value beyond a u32.
fn read_values(column: &Column<u64>, start: RowId, out: &mut [u32]) -> Result<()> {
    // The column's maximum, kept by tantivy, says once for all its values whether each
    // fits a u32: the loop below then only narrows.
    let fits = column.values.max_value() <= u64::from(u32::MAX);
    let mut chunk = [0u64; CHUNK];
    for (slots, start) in out.chunks_mut(CHUNK).zip((start..).step_by(CHUNK)) {
        let values = &mut chunk[..slots.len()];
        column.values.get_range(u64::from(start), values);
        if !fits {
            if let Some(value) = values.iter().find(|&&v| v > u64::from(u32::MAX)) {
                return Err(decode_error(
                    format!("value {value} in {SIGNATURE_FIELD}"),
                    "a u32".into(),
                ));
            }
        }
        for (slot, &value) in slots.iter_mut().zip(values.iter()) {
            *slot = value as u32;
        }
    }
    Ok(())
}

/// Reads `out.len()` signature values stored two a column value from row `start` on.
///
/// # Errors
/// [`Error::Decode`] when no value of the column uses its high half: a column of one
/// signature value a column value, read as pairs for signatures twice as long as its own.
fn read_pairs(column: &Column<u64>, start: RowId, out: &mut [u32]) -> Result<()> {
    if out.len() >= 2 && column.values.max_value() <= u64::from(u32::MAX) {
        return Err(decode_error(
            format!("one value a column value in {SIGNATURE_FIELD}"),
            format!("pairs of the {} values asked for", out.len()),
        ));
    }
    let mut chunk = [0u64; CHUNK];
    for (slots, start) in out.chunks_mut(2 * CHUNK).zip((start..).step_by(CHUNK)) {
        let values = &mut chunk[..slots.len().div_ceil(2)];
        column.values.get_range(u64::from(start), values);
        let (pairs, last) = slots.as_chunks_mut::<2>();
        for (pair, &value) in pairs.iter_mut().zip(values.iter()) {
            *pair = [value as u32, (value >> 32) as u32];
        }
        if let [last] = last {
            *last = values[pairs.len()] as u32;
        }
    }
    Ok(())
}

/// Reads `out.len()` signature values stored eight a column value, a byte each, from row
/// `start` on; a signature of all ones is an empty set's (a set's own 128 values are all
/// 255 with probability 2^-1024).
fn read_octets(column: &Column<u64>, start: RowId, out: &mut [u32]) {
    let mut chunk = [0u64; CHUNK];
    // Whether every byte read is 0xFF, told by the column values (a signature is read
    // for every pair the walk reports, and a check of each value cost as much as the
    // read).
    let mut all_ones = true;
    for (slots, start) in out.chunks_mut(8 * CHUNK).zip((start..).step_by(CHUNK)) {
        let values = &mut chunk[..slots.len().div_ceil(8)];
        column.values.get_range(u64::from(start), values);
        // Whole octets a fixed-size array at a time, which the compiler widens at once.
        let (octets, last) = slots.as_chunks_mut::<8>();
        for (octet, &value) in octets.iter_mut().zip(values.iter()) {
            *octet = value.to_le_bytes().map(u32::from);
            all_ones &= value == u64::MAX;
        }
        if !last.is_empty() {
            let value = values[octets.len()];
            for (slot, byte) in last.iter_mut().zip(value.to_le_bytes()) {
                *slot = u32::from(byte);
            }
            let mask = u64::MAX >> (64 - 8 * last.len());
            all_ones &= value & mask == mask;
        }
    }
    if all_ones {
        out.fill(EMPTY);
    }
}

/// Appends the `hashes` values stored as `bytes` to `out`.
///
/// # Errors
/// [`Error::Decode`] when `bytes` is not `4 * hashes` long.
pub(crate) fn decode_bytes(bytes: &[u8], hashes: usize, out: &mut Vec<u32>) -> Result<()> {
    check_bytes(bytes, hashes)?;
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Ok(())
}

/// Checks that `bytes` is the stored form of `hashes` values.
///
/// # Errors
/// [`Error::Decode`] when `bytes` is not `4 * hashes` long.
fn check_bytes(bytes: &[u8], hashes: usize) -> Result<()> {
    if bytes.len() != 4 * hashes {
        return Err(decode_error(
            format!("{} bytes in {SIGNATURE_FIELD}", bytes.len()),
            format!("the {} of {hashes} values", 4 * hashes),
        ));
    }
    Ok(())
}

fn decode_error(found: String, expected: String) -> Error {
    Error::Decode {
        what: "signature",
        source: format!("{found}, not {expected}").into(),
    }
}

#[cfg(test)]
mod tests {
    use tantivy::indexer::NoMergePolicy;
    use tantivy::schema::{BytesOptions, NumericOptions, FAST};
    use tantivy::{Index, IndexWriter};

    use super::*;

    /// Writes `signatures` as [`written`] does and reads every document back as a
    /// signature of `hashes` values.
    fn round_trip(
        layout: SignatureLayout,
        signatures: &[Option<Vec<u32>>],
        hashes: usize,
        merge: bool,
    ) -> Vec<Result<Option<Vec<u32>>>> {
        let index = written(layout, signatures, merge);
        let searcher = index.reader().unwrap().searcher();
        let mut read = Vec::new();
        for reader in searcher.segment_readers() {
            let column = SignatureColumn::open(reader, SIGNATURE_FIELD).unwrap();
            for doc in 0..reader.max_doc() {
                read.push(match &column {
                    Some(column) => column
                        .read(doc, hashes)
                        .map(|s| s.map(|s| s.values().to_vec())),
                    None => Ok(None),
                });
            }
        }
        read
    }

    /// An index of `signatures` (one document each, `None` for none) written in `layout`
    /// over up to three segments (one when there are fewer than three signatures), merged
    /// into one when `merge`.
    fn written(layout: SignatureLayout, signatures: &[Option<Vec<u32>>], merge: bool) -> Index {
        let mut schema = Schema::builder();
        let field = match layout {
            SignatureLayout::Octets | SignatureLayout::Pairs | SignatureLayout::Values => {
                schema.add_u64_field(SIGNATURE_FIELD, NumericOptions::default() | FAST)
            }
            SignatureLayout::Bytes => {
                schema.add_bytes_field(SIGNATURE_FIELD, BytesOptions::default() | FAST)
            }
        };
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(NoMergePolicy));
        for chunk in signatures.chunks(signatures.len().div_ceil(3).max(1)) {
            for signature in chunk {
                let mut document = TantivyDocument::default();
                if let Some(values) = signature {
                    add_to(
                        &mut document,
                        field,
                        layout,
                        &Signature::from_values(values.clone()),
                    );
                }
                writer.add_document(document).unwrap();
            }
            writer.commit().unwrap();
        }
        if merge {
            let segments = index.searchable_segment_ids().unwrap();
            writer.merge(&segments).wait().unwrap();
            writer.wait_merging_threads().unwrap();
        }
        index
    }

    const LAYOUTS: [SignatureLayout; 3] = [
        SignatureLayout::Pairs,
        SignatureLayout::Values,
        SignatureLayout::Bytes,
    ];

    #[test]
    fn every_layout_keeps_values_in_order_through_merges() {
        let signatures = vec![
            Some(vec![1, u32::MAX, 0x0102_0304]),
            None,
            Some(vec![9, 8, 7]),
            Some(vec![0, 0, u32::MAX]),
            Some(vec![5, 4, 3]),
            None,
        ];
        for layout in LAYOUTS {
            for merge in [false, true] {
                let read: Vec<_> = round_trip(layout, &signatures, 3, merge)
                    .into_iter()
                    .map(Result::unwrap)
                    .collect();
                // Each signature whole and in order (the searcher's segment order is
                // not the commit order).
                let (mut read, mut written) = (read, signatures.clone());
                read.sort();
                written.sort();
                assert_eq!(read, written, "{layout:?}, merged: {merge}");
            }
        }
    }

    #[test]
    fn octets_keep_bytes_and_empty_sets_through_merges() {
        // Signatures of a byte a value, 128 of them as by default and 13 (a last column
        // value of five), an empty set's among them.
        let bytes = |seed: u32, n: u32| (0..n).map(|i| (i * 37 + seed) % 256).collect();
        for hashes in [128, 13] {
            let signatures = vec![
                Some(bytes(1, hashes)),
                Some(vec![crate::fingerprint::EMPTY; hashes as usize]),
                None,
                Some(bytes(200, hashes)),
                Some(
                    vec![255; hashes as usize - 1]
                        .into_iter()
                        .chain([0])
                        .collect(),
                ),
            ];
            for merge in [false, true] {
                let read = round_trip(SignatureLayout::Octets, &signatures, hashes as usize, merge);
                let mut read: Vec<_> = read.into_iter().map(Result::unwrap).collect();
                let mut written = signatures.clone();
                read.sort();
                written.sort();
                assert_eq!(read, written, "{hashes} values, merged: {merge}");
            }
        }
        // A signature of 128 values takes 16 column values.
        let index = written(SignatureLayout::Octets, &[Some(bytes(3, 128))], false);
        let searcher = index.reader().unwrap().searcher();
        let column = searcher.segment_readers()[0]
            .fast_fields()
            .column_opt::<u64>(SIGNATURE_FIELD)
            .unwrap()
            .unwrap();
        assert_eq!(column.values.num_vals(), 16);
    }

    #[test]
    fn a_signature_of_another_length_is_a_decode_error() {
        let signatures = [Some(vec![1, 2, 3, 4, 5]), None];
        for layout in LAYOUTS {
            let read = round_trip(layout, &signatures, 7, false);
            assert_eq!(read.len(), 2);
            assert!(read.iter().any(|r| matches!(r, Ok(None))), "{layout:?}");
            let error = read.iter().find_map(|r| r.as_ref().err());
            match error {
                Some(Error::Decode { what, source }) => {
                    assert_eq!(*what, "signature");
                    assert!(source.to_string().contains(SIGNATURE_FIELD), "{source}");
                }
                other => panic!("{layout:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_u64_forms_are_not_read_for_each_other() {
        // Four values one a column value, read as pairs of eight; four pairs of eight
        // values (their high halves used), read as four values one a column value.
        let four = [Some(vec![1, 2, 3, 4])];
        let eight = [Some(vec![1, 2, 3, 4, 5, 6, 7, 8])];
        let misreads = [
            round_trip(SignatureLayout::Values, &four, 8, false),
            round_trip(SignatureLayout::Pairs, &eight, 4, false),
        ];
        for read in misreads {
            assert!(matches!(read[..], [Err(Error::Decode { .. })]), "{read:?}");
        }
        // One value: both forms are the same column value.
        for layout in [SignatureLayout::Pairs, SignatureLayout::Values] {
            let read = round_trip(layout, &[Some(vec![u32::MAX])], 1, false);
            assert!(
                matches!(&read[..], [Ok(Some(v))] if v == &[u32::MAX]),
                "{read:?}"
            );
        }
    }

    #[test]
    fn signed_agrees_with_a_read_in_every_layout_and_length() {
        let signatures = [
            Some(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            None,
            Some(vec![1, 2, 3, 4]),
            Some(vec![u32::MAX; 8]),
            Some(vec![9; 3]),
        ];
        for layout in [
            SignatureLayout::Octets,
            SignatureLayout::Pairs,
            SignatureLayout::Values,
        ] {
            for hashes in [1, 2, 3, 4, 8, 16] {
                let index = written(layout, &signatures, true);
                let searcher = index.reader().unwrap().searcher();
                let reader = &searcher.segment_readers()[0];
                let column = SignatureColumn::open(reader, SIGNATURE_FIELD)
                    .unwrap()
                    .unwrap();
                for doc in 0..reader.max_doc() {
                    let read = matches!(column.read(doc, hashes), Ok(Some(_)));
                    if let Some(signed) = column.signed(doc, hashes) {
                        assert_eq!(signed, read, "{layout:?}, {hashes} values, doc {doc}");
                    }
                }
            }
        }
    }

    #[test]
    fn documents_counts_those_with_a_signature_in_every_layout() {
        let signatures = [Some(vec![1, 2, 3]), None, Some(vec![4, 5, 6]), None];
        for layout in LAYOUTS {
            let index = written(layout, &signatures, true);
            let searcher = index.reader().unwrap().searcher();
            let reader = &searcher.segment_readers()[0];
            let column = SignatureColumn::open(reader, SIGNATURE_FIELD).unwrap();
            assert_eq!(column.map(|c| c.documents()), Some(2), "{layout:?}");
        }
    }
}
