//! The stored forms of a MinHash [`Signature`] in the [`SIGNATURE_FIELD`] fast field, and
//! the one column type that reads either.
//!
//! * **Values** (indexes created by this version): a multi-valued u64 fast field, one
//!   column value a signature value, in order (tantivy bit-packs them to 32 bits). A read is
//!   a range of bit-unpacked loads.
//! * **Bytes** (indexes made before): a bytes fast field, 4 bytes a value, little-endian.
//!   tantivy keeps bytes in an sstable whose blocks may be zstd-compressed, and a random
//!   read decompresses a block with a fresh context (quickwit-oss/tantivy#2475): about 4 µs
//!   a signature, which is why new indexes use values. Read and written in the indexes
//!   that have it.
//!
//! The schema says which: [`SignatureLayout::of`].

use tantivy::columnar::{BytesColumn, Column};
use tantivy::schema::{Field, FieldType, Schema};
use tantivy::{DocId, SegmentReader, TantivyDocument};

use super::SIGNATURE_FIELD;
use crate::error::{Error, Result};
use crate::fingerprint::{le_bytes, Signature};

/// How a signature field stores its signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SignatureLayout {
    /// A multi-valued u64 fast field, one column value a signature value.
    Values,
    /// A bytes fast field, 4 bytes a value (indexes made before the values layout).
    Bytes,
}

impl SignatureLayout {
    /// The layout of `field` in `schema`: `None` when it is neither a u64 nor a bytes fast
    /// field.
    pub(crate) fn of(schema: &Schema, field: Field) -> Option<SignatureLayout> {
        match schema.get_field_entry(field).field_type() {
            FieldType::U64(options) if options.is_fast() => Some(SignatureLayout::Values),
            FieldType::Bytes(options) if options.is_fast() => Some(SignatureLayout::Bytes),
            _ => None,
        }
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

/// One segment's column of signatures, in either layout.
#[derive(Clone)]
pub(crate) enum SignatureColumn {
    /// The values layout.
    Values(Column<u64>),
    /// The bytes layout.
    Bytes(BytesColumn),
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
        let layout = reader
            .schema()
            .get_field(name)
            .ok()
            .and_then(|field| SignatureLayout::of(reader.schema(), field));
        Ok(match layout {
            Some(SignatureLayout::Values) => fast_fields.column_opt::<u64>(name)?.map(Self::Values),
            // Unknown or unfit fields get tantivy's own message from `bytes`.
            Some(SignatureLayout::Bytes) | None => fast_fields.bytes(name)?.map(Self::Bytes),
        })
    }

    /// The number of documents with a signature, of `hashes` values each.
    pub(crate) fn documents(&self, hashes: usize) -> u32 {
        match self {
            Self::Values(column) => column.values.num_vals() / hashes.max(1) as u32,
            Self::Bytes(column) => column.ords().values.num_vals(),
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
                let stored = (rows.end - rows.start) as usize;
                if stored != hashes {
                    return Err(decode_error(
                        format!("{stored} values in {SIGNATURE_FIELD}"),
                        format!("{hashes}"),
                    ));
                }
                // The column's maximum, kept by tantivy, says once for all its values
                // whether each fits a u32: the loop below then only narrows.
                let fits = column.values.max_value() <= u64::from(u32::MAX);
                // In chunks through `get_range`, which unpacks runs of bits at once.
                let mut chunk = [0u64; 64];
                for (slots, start) in out.chunks_mut(chunk.len()).zip(rows.step_by(chunk.len())) {
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
        }
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

    /// Writes `signatures` (one document each, `None` for none) in `layout` over three
    /// segments, merges them when `merge`, and reads every document back.
    fn round_trip(
        layout: SignatureLayout,
        signatures: &[Option<Vec<u32>>],
        hashes: usize,
        merge: bool,
    ) -> Vec<Result<Option<Vec<u32>>>> {
        let mut schema = Schema::builder();
        let field = match layout {
            SignatureLayout::Values => {
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

    #[test]
    fn both_layouts_keep_values_in_order_through_merges() {
        let signatures = vec![
            Some(vec![1, u32::MAX, 0x0102_0304]),
            None,
            Some(vec![9, 8, 7]),
            Some(vec![0, 0, u32::MAX]),
            Some(vec![5, 4, 3]),
            None,
        ];
        for layout in [SignatureLayout::Values, SignatureLayout::Bytes] {
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
    fn a_signature_of_another_length_is_a_decode_error() {
        let signatures = [Some(vec![1, 2, 3, 4]), None];
        for layout in [SignatureLayout::Values, SignatureLayout::Bytes] {
            let read = round_trip(layout, &signatures, 2, false);
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
}
