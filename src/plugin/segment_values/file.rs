//! The `.dedup` file of a segment: each document's fingerprint and signature, by document
//! id, and the documents sorted by fingerprint.
//!
//! ```text
//! header      b"TDDV", then u32 LE: format, documents, signature values, bytes a value,
//!             fingerprinted documents, references, banded references, the tables'
//!             distance, bands, rows
//! fingerprints  documents × u64 LE (0 where none)
//! fingerprinted bitset, documents.div_ceil(64) × u64 LE
//! signatures    documents × values × bytes a value (zeros where none)
//! signed        bitset, as above
//! key hashes    documents × u64 LE (0 for a document without a key)
//! sorted        one (u64 fingerprint, u32 document) LE a fingerprinted document,
//!               by fingerprint then document
//! sequences     documents × u64 LE: each one's place in the writer's add order
//!               (u64::MAX for a document added without the writer)
//! references    bitset: the documents a writer compares new ones with (fingerprinted,
//!               not flagged)
//! tables        the references' block and band tables (see `tables.rs`)
//! ```
//!
//! Files of format 1 (the first indexes of settings format 10) end after the sorted
//! table: their segments have no tables, and a writer builds its tables in memory.
//!
//! Fixed widths, so that a value is one read at a computed offset of the memory-mapped
//! file, nothing decoded at open. A signature keeps a byte a value
//! ([`KeptBits::LowByte`](crate::fingerprint::KeptBits::LowByte); an empty set's, all
//! [`EMPTY`], as all ones) or four.

use std::io::{self, Write};

use tantivy::directory::OwnedBytes;
use tantivy::DocId;

use super::tables::{is_banded, write_tables, TableShape, TablesAt};
use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, EMPTY};
use crate::lookup::band_keys;

const MAGIC: &[u8; 4] = b"TDDV";
/// The format of the files this crate writes.
const FORMAT: u32 = 2;
/// The header of a file of format 1, and of the current format.
const HEADER_1: usize = 20;
const HEADER: usize = 44;
/// The bytes of one entry of the sorted table.
const SORTED_ENTRY: usize = 12;

/// How a segment's signatures are stored: their number of values, and bytes a value (1 or
/// 4; 0 values for an index without signatures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SignatureShape {
    pub values: usize,
    pub bytes: usize,
}

impl SignatureShape {
    /// No signatures.
    pub(crate) const NONE: SignatureShape = SignatureShape {
        values: 0,
        bytes: 1,
    };

    /// The bytes of one document's signature.
    fn width(self) -> usize {
        self.values * self.bytes
    }

    /// Appends `values` in this shape to `out`.
    pub(crate) fn encode(self, values: &[u32], out: &mut Vec<u8>) {
        debug_assert_eq!(values.len(), self.values);
        if self.bytes == 1 {
            // An empty set's values are all `EMPTY`, whose low byte is 0xFF.
            out.extend(values.iter().map(|&value| value as u8));
        } else {
            out.extend(values.iter().flat_map(|value| value.to_le_bytes()));
        }
    }

    /// The values stored as `bytes` into `out` (whose length is `self.values`).
    fn decode(self, bytes: &[u8], out: &mut [u32]) {
        if self.bytes == 1 {
            for (slot, &byte) in out.iter_mut().zip(bytes) {
                *slot = u32::from(byte);
            }
            // As the octet columns: all ones is an empty set's signature.
            if bytes.iter().all(|&byte| byte == 0xFF) {
                out.fill(EMPTY);
            }
        } else {
            for (slot, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                *slot = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
    }
}

/// One document's values, as the segment keeps them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DocValues<'a> {
    /// Its fingerprint, if it has one.
    pub fingerprint: Option<u64>,
    /// Its signature's bytes in the segment's [`SignatureShape`], if it has one.
    pub signature: Option<&'a [u8]>,
    /// The hash of its key (`NO_KEY` for none).
    pub key_hash: u64,
    /// Its place in the writer's add order (`u64::MAX` for none).
    pub sequence: u64,
    /// Whether it is flagged as a near-duplicate (no reference then).
    pub flagged: bool,
}

/// One segment's values as a writer or a merge collects them, in document order.
#[derive(Default)]
pub(crate) struct ValuesBuilder {
    fingerprints: Vec<u64>,
    fingerprinted: Vec<u64>,
    signatures: Vec<u8>,
    signed: Vec<u64>,
    keys: Vec<u64>,
    sequences: Vec<u64>,
    references: Vec<u64>,
    documents: u32,
}

impl ValuesBuilder {
    /// Adds the next document's values.
    pub(crate) fn push(&mut self, values: DocValues<'_>, shape: SignatureShape) {
        let DocValues {
            fingerprint,
            signature,
            key_hash,
            sequence,
            flagged,
        } = values;
        self.keys.push(key_hash);
        self.sequences.push(sequence);
        let doc = self.documents as usize;
        if doc.is_multiple_of(64) {
            self.fingerprinted.push(0);
            self.signed.push(0);
            self.references.push(0);
        }
        self.fingerprints.push(fingerprint.unwrap_or(0));
        if fingerprint.is_some() {
            self.fingerprinted[doc / 64] |= 1 << (doc % 64);
            if !flagged {
                self.references[doc / 64] |= 1 << (doc % 64);
            }
        }
        match signature {
            Some(bytes) if bytes.len() == shape.width() && shape.values > 0 => {
                self.signatures.extend_from_slice(bytes);
                self.signed[doc / 64] |= 1 << (doc % 64);
            }
            _ => self
                .signatures
                .resize(self.signatures.len() + shape.width(), 0),
        }
        self.documents += 1;
    }

    /// The documents added.
    pub(crate) fn documents(&self) -> u32 {
        self.documents
    }

    /// The heap bytes held.
    pub(crate) fn memory(&self) -> usize {
        8 * (self.fingerprints.capacity()
            + self.fingerprinted.capacity()
            + self.signed.capacity()
            + self.keys.capacity()
            + self.sequences.capacity()
            + self.references.capacity())
            + self.signatures.capacity()
    }
}

/// A segment's documents as its file is written from them: a new segment's, collected by
/// [`ValuesBuilder`], or a merged one's, read from its sources' files.
pub(crate) trait SegmentDocs {
    /// The number of documents.
    fn documents(&self) -> u32;

    /// The values of `doc`, below [`documents`](Self::documents).
    fn doc(&self, doc: DocId) -> DocValues<'_>;
}

impl SegmentDocs for ValuesBuilder {
    fn documents(&self) -> u32 {
        self.documents
    }

    fn doc(&self, doc: DocId) -> DocValues<'_> {
        let fingerprint = bit(&self.fingerprinted, doc).then(|| self.fingerprints[doc as usize]);
        let width = self.signatures.len() / (self.documents as usize).max(1);
        let at = doc as usize * width;
        DocValues {
            fingerprint,
            signature: bit(&self.signed, doc).then(|| &self.signatures[at..at + width]),
            key_hash: self.keys[doc as usize],
            sequence: self.sequences[doc as usize],
            flagged: fingerprint.is_some() && !bit(&self.references, doc),
        }
    }
}

/// Writes the file of `docs`, whose signatures are of `shape`, with reference tables of
/// `tables`. Reads each document's values several times, a section at a time, so that a
/// merge holds only the tables' entries, not the sources' values.
pub(crate) fn write_file(
    docs: &impl SegmentDocs,
    shape: SignatureShape,
    tables: TableShape,
    out: &mut impl Write,
) -> io::Result<()> {
    let documents = docs.documents();
    let width = shape.width();
    fn signed(values: DocValues<'_>, shape: SignatureShape) -> Option<&[u8]> {
        (values.signature).filter(|bytes| shape.values > 0 && bytes.len() == shape.width())
    }
    // What the header counts and the tables hold, in one pass; each banded reference's
    // band keys are computed once for all the band tables.
    let mut sorted: Vec<(u64, DocId)> = Vec::new();
    let mut references = 0u32;
    let mut banded: Vec<DocId> = Vec::new();
    let mut keys: Vec<u32> = Vec::new();
    let mut decoded = vec![0u32; shape.values];
    for doc in 0..documents {
        let values = docs.doc(doc);
        let Some(fingerprint) = values.fingerprint else {
            continue;
        };
        sorted.push((fingerprint, doc));
        if values.flagged {
            continue;
        }
        references += 1;
        if let Some(bytes) = signed(values, shape).filter(|_| tables.bands > 0) {
            shape.decode(bytes, &mut decoded);
            if is_banded(tables, &decoded) {
                banded.push(doc);
                keys.extend(band_keys(&decoded, tables.rows).take(tables.bands));
            }
        }
    }
    out.write_all(MAGIC)?;
    for value in [
        FORMAT,
        documents,
        shape.values as u32,
        shape.bytes as u32,
        sorted.len() as u32,
        references,
        banded.len() as u32,
        tables.distance,
        tables.bands as u32,
        tables.rows as u32,
    ] {
        out.write_all(&value.to_le_bytes())?;
    }
    for doc in 0..documents {
        out.write_all(&docs.doc(doc).fingerprint.unwrap_or(0).to_le_bytes())?;
    }
    write_bitset(documents, |doc| docs.doc(doc).fingerprint.is_some(), out)?;
    let zeros = vec![0u8; width];
    for doc in 0..documents {
        out.write_all(signed(docs.doc(doc), shape).unwrap_or(&zeros))?;
    }
    write_bitset(documents, |doc| signed(docs.doc(doc), shape).is_some(), out)?;
    for doc in 0..documents {
        out.write_all(&docs.doc(doc).key_hash.to_le_bytes())?;
    }
    sorted.sort_unstable();
    let mut entry = [0u8; SORTED_ENTRY];
    for &(fingerprint, doc) in &sorted {
        entry[..8].copy_from_slice(&fingerprint.to_le_bytes());
        entry[8..].copy_from_slice(&doc.to_le_bytes());
        out.write_all(&entry)?;
    }
    for doc in 0..documents {
        out.write_all(&docs.doc(doc).sequence.to_le_bytes())?;
    }
    let is_reference = |values: DocValues<'_>| values.fingerprint.is_some() && !values.flagged;
    write_bitset(documents, |doc| is_reference(docs.doc(doc)), out)?;
    sorted.retain(|&(_, doc)| is_reference(docs.doc(doc)));
    write_tables(tables, &sorted, (&banded, &keys), out)
}

/// Writes the bitset of the documents below `documents` for which `is_set` holds.
fn write_bitset(
    documents: u32,
    is_set: impl Fn(DocId) -> bool,
    out: &mut impl Write,
) -> io::Result<()> {
    for start in (0..documents).step_by(64) {
        let mut word = 0u64;
        for doc in start..documents.min(start + 64) {
            word |= u64::from(is_set(doc)) << (doc - start);
        }
        out.write_all(&word.to_le_bytes())?;
    }
    Ok(())
}

fn bit(words: &[u64], doc: DocId) -> bool {
    words
        .get(doc as usize / 64)
        .is_some_and(|word| word >> (doc % 64) & 1 == 1)
}

/// A segment's `.dedup` file, read in place. Cheap to clone: its clones share one
/// handle on the file (see `opened.rs`).
#[derive(Clone)]
pub(crate) struct SegmentValues(pub(super) std::sync::Arc<Layout>);

impl std::ops::Deref for SegmentValues {
    type Target = Layout;

    fn deref(&self) -> &Layout {
        &self.0
    }
}

/// The file's bytes and where its sections are.
pub(crate) struct Layout {
    bytes: OwnedBytes,
    documents: u32,
    shape: SignatureShape,
    /// Where each section starts: the fingerprints after the header, ...
    header: usize,
    fingerprinted: usize,
    signatures: usize,
    signed: usize,
    keys: usize,
    sorted: usize,
    sorted_len: usize,
    /// Format 2 on: where the sequences and the references bitset start, and the tables.
    references: Option<(usize, usize, TablesAt)>,
}

impl SegmentValues {
    /// Reads the file's header and checks its sections' sizes against its length.
    ///
    /// # Errors
    /// [`Error::Decode`] when the file is not one this crate writes, or is truncated.
    pub(crate) fn open(bytes: OwnedBytes, max_doc: u32) -> Result<SegmentValues> {
        let damaged = |found: String| Error::Decode {
            what: "a segment's .dedup file",
            source: format!(
                "{found}, not tantivy-dedup's values of {max_doc} documents, format {FORMAT}"
            )
            .into(),
        };
        let data = bytes.as_slice();
        if data.len() < HEADER || &data[..4] != MAGIC {
            return Err(damaged(format!("{} bytes without its header", data.len())));
        }
        let word = |i: usize| u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
        let (format, documents, values, bytes_a_value) = (word(1), word(2), word(3), word(4));
        let header = match format {
            1 => HEADER_1,
            FORMAT if data.len() >= HEADER => HEADER,
            _ => return Err(damaged(format!("format {format}"))),
        };
        if documents != max_doc || !matches!(bytes_a_value, 1 | 4) {
            return Err(damaged(format!(
                "{documents} documents, {bytes_a_value} bytes a signature value"
            )));
        }
        let shape = SignatureShape {
            values: values as usize,
            bytes: bytes_a_value as usize,
        };
        let docs = documents as usize;
        let bitset = 8 * docs.div_ceil(64);
        let fingerprinted = header + 8 * docs;
        let signatures = fingerprinted + bitset;
        let signed = signatures + docs * shape.width();
        let keys = signed + bitset;
        let sorted = keys + 8 * docs;
        let (sorted_len, references, end) = if format == 1 {
            if data.len() < sorted || !(data.len() - sorted).is_multiple_of(SORTED_ENTRY) {
                return Err(damaged(format!("{} bytes", data.len())));
            }
            ((data.len() - sorted) / SORTED_ENTRY, None, data.len())
        } else {
            let sorted_len = word(5) as usize;
            let sequences = sorted + SORTED_ENTRY * sorted_len;
            let bits = sequences + 8 * docs;
            let tables = TableShape {
                distance: word(8),
                bands: word(9) as usize,
                rows: word(10) as usize,
            };
            if tables.bands > 0 && tables.bands * tables.rows > shape.values {
                return Err(damaged(format!(
                    "{} bands of {} values",
                    tables.bands, tables.rows
                )));
            }
            let counts = (word(6) as usize, word(7) as usize);
            let at = TablesAt::read(data, tables, counts, bits + bitset)?;
            let end = at.end();
            (sorted_len, Some((sequences, bits, at)), end)
        };
        if data.len() != end {
            return Err(damaged(format!("{} bytes", data.len())));
        }
        Ok(SegmentValues(std::sync::Arc::new(Layout {
            bytes,
            documents,
            shape,
            header,
            fingerprinted,
            signatures,
            signed,
            keys,
            sorted,
            sorted_len,
            references,
        })))
    }
}

impl Layout {
    /// The number of documents with a fingerprint.
    pub(crate) fn fingerprinted(&self) -> u32 {
        self.sorted_len as u32
    }

    /// The number of documents with a signature.
    pub(crate) fn signed_documents(&self) -> u32 {
        let words = &self.bytes[self.signed..self.keys];
        words.iter().map(|byte| byte.count_ones()).sum()
    }

    /// The signatures' shape.
    pub(crate) fn shape(&self) -> SignatureShape {
        self.shape
    }

    /// The reference tables, when the file has them (format 2 on).
    pub(crate) fn tables(&self) -> Option<&TablesAt> {
        self.references.as_ref().map(|(_, _, tables)| tables)
    }

    /// The file's bytes, which [`tables`](Self::tables) read.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// `doc`'s place in the writer's add order (`u64::MAX` for a document added without
    /// it, or in a file without the sequences).
    #[inline]
    pub(crate) fn sequence(&self, doc: DocId) -> u64 {
        match &self.references {
            Some((sequences, _, _)) if doc < self.documents => {
                let at = sequences + 8 * doc as usize;
                u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap())
            }
            _ => u64::MAX,
        }
    }

    /// Whether `doc` is a reference: it has a fingerprint and is not flagged (`None` in a
    /// file that does not say).
    #[inline]
    pub(crate) fn is_reference(&self, doc: DocId) -> Option<bool> {
        let (_, bits, _) = self.references.as_ref()?;
        Some(doc < self.documents && self.bit(*bits, doc))
    }

    fn bit(&self, start: usize, doc: DocId) -> bool {
        let at = start + 8 * (doc as usize / 64);
        let word = u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap());
        word >> (doc % 64) & 1 == 1
    }

    /// `doc`'s fingerprint, if it has one.
    #[inline]
    pub(crate) fn fingerprint(&self, doc: DocId) -> Option<Fingerprint> {
        if doc >= self.documents || !self.bit(self.fingerprinted, doc) {
            return None;
        }
        let at = self.header + 8 * doc as usize;
        Some(Fingerprint(u64::from_le_bytes(
            self.bytes[at..at + 8].try_into().unwrap(),
        )))
    }

    /// The hash of `doc`'s key (`key_hash`), `NO_KEY` for none.
    #[inline]
    pub(crate) fn key_hash(&self, doc: DocId) -> u64 {
        if doc >= self.documents {
            return 0;
        }
        let at = self.keys + 8 * doc as usize;
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap())
    }

    /// Whether `doc` has a signature.
    pub(crate) fn is_signed(&self, doc: DocId) -> bool {
        doc < self.documents && self.shape.values > 0 && self.bit(self.signed, doc)
    }

    /// The bytes of `doc`'s signature as stored, if it has one.
    pub(crate) fn signature_bytes(&self, doc: DocId) -> Option<&[u8]> {
        if !self.is_signed(doc) {
            return None;
        }
        let width = self.shape.width();
        let at = self.signatures + doc as usize * width;
        Some(&self.bytes[at..at + width])
    }

    /// Reads `doc`'s signature into `out`, whose length must be the segment's number of
    /// values; false when it has none (or another number of values).
    pub(crate) fn read_signature(&self, doc: DocId, out: &mut [u32]) -> bool {
        if out.len() != self.shape.values {
            return false;
        }
        match self.signature_bytes(doc) {
            Some(bytes) => {
                self.shape.decode(bytes, out);
                true
            }
            None => false,
        }
    }

    /// The documents whose fingerprint is `fingerprint`, in document order.
    pub(crate) fn documents_with(
        &self,
        fingerprint: Fingerprint,
    ) -> impl Iterator<Item = DocId> + '_ {
        let entry = |i: usize| {
            let at = self.sorted + i * SORTED_ENTRY;
            let e = &self.bytes[at..at + SORTED_ENTRY];
            (
                u64::from_le_bytes(e[..8].try_into().unwrap()),
                u32::from_le_bytes(e[8..].try_into().unwrap()),
            )
        };
        // The first entry not below `fingerprint`.
        let (mut low, mut high) = (0, self.sorted_len);
        while low < high {
            let mid = (low + high) / 2;
            if entry(mid).0 < fingerprint.bits() {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        (low..self.sorted_len)
            .map(entry)
            .take_while(move |&(bits, _)| bits == fingerprint.bits())
            .map(|(_, doc)| doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document's values, added in order (its sequence is its fingerprint), unflagged.
    fn doc_values(
        fingerprint: Option<u64>,
        signature: Option<&[u8]>,
        key_hash: u64,
    ) -> DocValues<'_> {
        DocValues {
            fingerprint,
            signature,
            key_hash,
            sequence: fingerprint.unwrap_or(u64::MAX),
            flagged: false,
        }
    }

    fn written(builder: &ValuesBuilder, shape: SignatureShape) -> SegmentValues {
        let mut bytes = Vec::new();
        write_file(builder, shape, TableShape::new(3, None), &mut bytes).unwrap();
        SegmentValues::open(OwnedBytes::new(bytes), builder.documents()).unwrap()
    }

    proptest::proptest! {
        /// What is pushed is what is read, by document and by fingerprint.
        #[test]
        fn values_read_back_as_pushed(
            docs in proptest::collection::vec(
                (proptest::option::of(0u64..8), proptest::option::of(proptest::collection::vec(0u32..256, 4))),
                0..200,
            ),
            wide in proptest::bool::ANY,
        ) {
            let shape = SignatureShape { values: 4, bytes: if wide { 4 } else { 1 } };
            let mut builder = ValuesBuilder::default();
            for (fingerprint, signature) in &docs {
                let bytes = signature.as_ref().map(|values| {
                    let mut bytes = Vec::new();
                    shape.encode(values, &mut bytes);
                    bytes
                });
                builder.push(
                    doc_values(*fingerprint, bytes.as_deref(), fingerprint.unwrap_or(0) + 1),
                    shape,
                );
            }
            let values = written(&builder, shape);
            let mut out = [0u32; 4];
            for (doc, (fingerprint, signature)) in docs.iter().enumerate() {
                let doc = doc as DocId;
                proptest::prop_assert_eq!(values.fingerprint(doc), fingerprint.map(Fingerprint));
                proptest::prop_assert_eq!(values.key_hash(doc), fingerprint.unwrap_or(0) + 1);
                proptest::prop_assert_eq!(values.read_signature(doc, &mut out), signature.is_some());
                if let Some(signature) = signature {
                    proptest::prop_assert_eq!(&out[..], &signature[..]);
                }
            }
            for bits in 0..8 {
                let expected: Vec<DocId> = (0..docs.len() as DocId)
                    .filter(|&doc| docs[doc as usize].0 == Some(bits))
                    .collect();
                let found: Vec<DocId> = values.documents_with(Fingerprint(bits)).collect();
                proptest::prop_assert_eq!(found, expected);
            }
        }
    }

    #[test]
    fn an_empty_sets_signature_reads_back_as_itself() {
        let shape = SignatureShape {
            values: 3,
            bytes: 1,
        };
        let mut bytes = Vec::new();
        shape.encode(&[EMPTY; 3], &mut bytes);
        let mut builder = ValuesBuilder::default();
        builder.push(doc_values(Some(1), Some(&bytes), 0), shape);
        let mut out = [0; 3];
        assert!(written(&builder, shape).read_signature(0, &mut out));
        assert_eq!(out, [EMPTY; 3]);
    }

    #[test]
    fn a_truncated_or_foreign_file_is_an_error() {
        let shape = SignatureShape {
            values: 2,
            bytes: 1,
        };
        let mut builder = ValuesBuilder::default();
        builder.push(doc_values(Some(5), Some(&[1, 2]), 0), shape);
        let mut bytes = Vec::new();
        write_file(
            &builder,
            shape,
            TableShape::new(3, Some((1, 2))),
            &mut bytes,
        )
        .unwrap();
        let truncated = OwnedBytes::new(bytes[..bytes.len() - 1].to_vec());
        assert!(SegmentValues::open(truncated, 1).is_err());
        assert!(SegmentValues::open(OwnedBytes::new(bytes.clone()), 2).is_err());
        assert!(SegmentValues::open(OwnedBytes::new(b"nope".to_vec()), 1).is_err());
        assert!(SegmentValues::open(OwnedBytes::new(bytes), 1).is_ok());
    }
}
