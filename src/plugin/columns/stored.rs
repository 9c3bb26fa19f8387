//! Reading the plugin's fields of a searcher's documents from the fast columns: every alive
//! document's fingerprint, key hash, flag and add order at once, or one value by address.

use rayon::prelude::*;
use tantivy::columnar::Column;
use tantivy::{DocAddress, DocId, Searcher, SegmentReader};

use super::fingerprint::FingerprintColumn;
use super::signature::{self, SignatureColumn};
use super::{
    is_flagged, CONTENT_FIELD, FINGERPRINT_FIELD, FLAG_FIELD, SCOPE_FIELD, SEQUENCE_FIELD,
    SIGNATURE_FIELD,
};
use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::fingerprint::{is_empty_set, Signature, EMPTY};
use crate::lookup::{BandIndex, SignatureTable};
use crate::plugin::DedupSettings;

/// An alive document that has a fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StoredFingerprint {
    /// Where it is in the searcher it was read from.
    pub address: DocAddress,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// [`key_hash`] of its key; [`NO_KEY`] when it has none.
    pub key_hash: u64,
    /// Whether it was flagged as a near-duplicate at index time.
    pub flagged: bool,
    /// Its scope hash ([`SCOPE_FIELD`]), when the index has scopes and it has one.
    pub scope: Option<u64>,
    /// Its place in the writer's add order ([`SEQUENCE_FIELD`]); `u64::MAX` for a document
    /// added without the plugin's writer.
    pub sequence: u64,
}

/// The key hash of a document without a key.
pub(crate) const NO_KEY: u64 = 0;

/// A 64-bit hash of a document key, never [`NO_KEY`]. Collisions only cost a check against
/// the index (see the writer), never a wrong answer.
pub(crate) fn key_hash(key: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key).max(1)
}

/// Every alive document of `searcher` with a fingerprint, in the writer's add order (then in
/// index order: segment, then document), read segment by segment in parallel.
pub(crate) fn stored_fingerprints(
    searcher: &Searcher,
    settings: &DedupSettings,
) -> Result<Vec<StoredFingerprint>> {
    let per_segment = searcher
        .segment_readers()
        .par_iter()
        .enumerate()
        .map(|(ord, reader)| segment_fingerprints(ord as u32, reader, settings))
        .collect::<Result<Vec<_>>>()?;
    let mut all = per_segment.concat();
    all.par_sort_unstable_by_key(|doc| (doc.sequence, doc.address));
    Ok(all)
}

/// The sequence number after every one used in `searcher`'s segments (deleted documents
/// included): where a writer goes on numbering.
pub(crate) fn next_sequence(searcher: &Searcher) -> Result<u64> {
    let mut next = 0;
    for reader in searcher.segment_readers() {
        let column: Column<u64> = reader.fast_fields().u64(SEQUENCE_FIELD)?;
        // An upper bound of the values (0 for none): gaps are harmless, reuse is not.
        next = next.max(column.max_value().saturating_add(1));
    }
    Ok(next)
}

fn segment_fingerprints(
    segment_ord: u32,
    reader: &SegmentReader,
    settings: &DedupSettings,
) -> Result<Vec<StoredFingerprint>> {
    let fast = reader.fast_fields();
    let Some(fingerprints) = FingerprintColumn::open(reader, FINGERPRINT_FIELD)? else {
        return Ok(Vec::new());
    };
    let flags: Option<Column<u64>> = if settings.get_flagging() {
        Some(fast.u64(FLAG_FIELD)?)
    } else {
        None
    };
    // The segment component holds each document's key hash; the column is read otherwise.
    let keys = match (settings.get_key_field(), &fingerprints) {
        (_, FingerprintColumn::Segment(_)) | (None, _) => None,
        (Some(name), _) => fast.str(name)?,
    };
    // Hash each distinct key once, in ordinal order, instead of once per document.
    let key_hashes: Vec<u64> = match &keys {
        Some(keys) => {
            let mut hashes = Vec::with_capacity(keys.num_terms());
            let mut stream = keys
                .dictionary()
                .stream()
                .map_err(tantivy::TantivyError::from)?;
            while stream.advance() {
                hashes.push(key_hash(stream.key()));
            }
            hashes
        }
        None => Vec::new(),
    };
    let sequences: Column<u64> = fast.u64(SEQUENCE_FIELD)?;
    let scopes: Option<Column<u64>> = match settings.get_scope_field() {
        Some(_) => fast.column_opt(SCOPE_FIELD)?,
        None => None,
    };
    let mut out = Vec::new();
    let mut visit = |doc: DocId| {
        let Some(fingerprint) = fingerprints.get(doc) else {
            return;
        };
        let key_hash = match &fingerprints {
            FingerprintColumn::Segment(values) => values.key_hash(doc),
            FingerprintColumn::Column(_) => keys
                .as_ref()
                .and_then(|keys| keys.ords().first(doc))
                .map_or(NO_KEY, |ord| key_hashes[ord as usize]),
        };
        out.push(StoredFingerprint {
            address: DocAddress::new(segment_ord, doc),
            fingerprint,
            key_hash,
            flagged: is_flagged(flags.as_ref(), doc),
            scope: scopes.as_ref().and_then(|scopes| scopes.first(doc)),
            sequence: sequences.first(doc).unwrap_or(u64::MAX),
        });
    };
    match reader.alive_bitset() {
        Some(alive) => alive.iter_alive().for_each(&mut visit),
        None => (0..reader.max_doc()).for_each(&mut visit),
    }
    Ok(out)
}

/// The fingerprint of the document at `address`, if it has one.
pub(crate) fn fingerprint_at(
    searcher: &Searcher,
    address: DocAddress,
) -> Result<Option<Fingerprint>> {
    let reader = searcher.segment_reader(address.segment_ord);
    let column = FingerprintColumn::open(reader, FINGERPRINT_FIELD)?;
    Ok(column.and_then(|column| column.get(address.doc_id)))
}

/// The scope hash of the document at `address` ([`SCOPE_FIELD`]), if it has one.
pub(crate) fn scope_at(searcher: &Searcher, address: DocAddress) -> Result<Option<u64>> {
    let reader = searcher.segment_reader(address.segment_ord);
    let column: Option<Column<u64>> = reader.fast_fields().column_opt(SCOPE_FIELD)?;
    Ok(column.and_then(|column| column.first(address.doc_id)))
}

/// The version of the document at `address`, as `DedupFields::version_of` computed it when
/// it was added: its text digest when `content` (the index has the field), else its
/// fingerprint.
pub(crate) fn version_at(
    searcher: &Searcher,
    address: DocAddress,
    content: bool,
) -> Result<Option<u64>> {
    let name = if content {
        CONTENT_FIELD
    } else {
        FINGERPRINT_FIELD
    };
    let reader = searcher.segment_reader(address.segment_ord);
    let column = reader.fast_fields().u64(name)?;
    Ok(column.first(address.doc_id))
}

/// The key of the document at `address`, read from the key field's fast column.
pub(crate) fn key_at(
    searcher: &Searcher,
    key_field: &str,
    address: DocAddress,
) -> Result<Option<String>> {
    let reader = searcher.segment_reader(address.segment_ord);
    let Some(keys) = reader.fast_fields().str(key_field)? else {
        return Ok(None);
    };
    let Some(ord) = keys.ords().first(address.doc_id) else {
        return Ok(None);
    };
    let mut key = String::new();
    keys.ord_to_str(ord, &mut key)
        .map_err(tantivy::TantivyError::from)?;
    Ok(Some(key))
}

/// The signatures of `docs` (documents of `searcher`), in their order, when `settings` have
/// a verification; a document without one gets an empty set's.
///
/// In the bytes layout, each segment's distinct signatures are read once, in the order of
/// its dictionary, rather than looked up document by document.
///
/// # Errors
/// [`Error::Decode`](crate::Error::Decode) for a stored signature of another length;
/// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
pub(crate) fn stored_signatures(
    searcher: &Searcher,
    docs: &[StoredFingerprint],
    settings: &DedupSettings,
) -> Result<SignatureTable> {
    let Some(verification) = settings.get_matching().get_verification() else {
        return Ok(SignatureTable::new(0));
    };
    let hashes = verification.get_hashes();
    let segments = searcher
        .segment_readers()
        .par_iter()
        .map(|reader| segment_signatures(reader, hashes))
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(docs.len() * hashes);
    let mut buffer = Vec::with_capacity(hashes);
    for doc in docs {
        let segment = &segments[doc.address.segment_ord as usize];
        match segment.get(doc.address.doc_id, hashes, &mut buffer)? {
            Some(signature) => out.extend_from_slice(signature),
            None => out.extend(std::iter::repeat_n(EMPTY, hashes)),
        }
    }
    Ok(SignatureTable::from_values(hashes, out))
}

/// The [`BandIndex`] of the signatures of `docs` (documents of `searcher`, numbered by their
/// position), `hashes` values each, in `bands` bands of `rows` values; documents without a
/// signature, or with an empty set's, are left out.
///
/// Segment by segment, so that at most one segment's signatures are held at a time beside
/// the band keys: a writer that reads committed signatures on demand never needs them all.
///
/// # Errors
/// As [`stored_signatures`].
pub(crate) fn stored_band_index(
    searcher: &Searcher,
    docs: &[StoredFingerprint],
    hashes: usize,
    (bands, rows): (usize, usize),
) -> Result<BandIndex> {
    let mut by_segment: Vec<Vec<(u32, DocId)>> = vec![Vec::new(); searcher.segment_readers().len()];
    for (slot, doc) in docs.iter().enumerate() {
        by_segment[doc.address.segment_ord as usize].push((slot as u32, doc.address.doc_id));
    }
    let mut builder = BandIndex::builder(bands, rows)?;
    for (reader, docs) in searcher.segment_readers().iter().zip(&by_segment) {
        if docs.is_empty() {
            continue;
        }
        let segment = segment_signatures(reader, hashes)?;
        let mut buffer = Vec::with_capacity(hashes);
        for &(slot, doc) in docs {
            if let Some(signature) = segment.get(doc, hashes, &mut buffer)? {
                if !is_empty_set(signature) {
                    builder.add(slot, signature);
                }
            }
        }
    }
    Ok(builder.build())
}

/// A segment's signatures as [`segment_signatures`] reads them.
pub(crate) enum SegmentSignatures {
    /// None in the segment.
    None,
    /// The values layout, read document by document.
    Values(SignatureColumn),
    /// The bytes layout: ordinals by document, and the distinct signatures by ordinal.
    Bytes(Column<u64>, Vec<u32>),
}

impl SegmentSignatures {
    /// Reads the signature of `doc` into `buffer` (cleared first); false when it has none.
    ///
    /// # Errors
    /// As [`SignatureColumn::read_into`].
    pub(crate) fn read(&self, doc: DocId, hashes: usize, buffer: &mut Vec<u32>) -> Result<bool> {
        match self {
            SegmentSignatures::Values(column) => column.read_into(doc, hashes, buffer),
            SegmentSignatures::None | SegmentSignatures::Bytes(..) => {
                let mut scratch = Vec::new();
                let found = self.get(doc, hashes, &mut scratch)?;
                buffer.clear();
                buffer.extend_from_slice(found.unwrap_or_default());
                Ok(found.is_some())
            }
        }
    }

    /// The signature of `doc`, if it has one (in `buffer` when it is read there).
    fn get<'a>(
        &'a self,
        doc: DocId,
        hashes: usize,
        buffer: &'a mut Vec<u32>,
    ) -> Result<Option<&'a [u32]>> {
        match self {
            SegmentSignatures::None => Ok(None),
            SegmentSignatures::Values(column) => Ok(column
                .read_into(doc, hashes, buffer)?
                .then_some(buffer.as_slice())),
            SegmentSignatures::Bytes(ords, values) => Ok(ords.first(doc).map(|ord| {
                let start = ord as usize * hashes;
                &values[start..start + hashes]
            })),
        }
    }
}

/// A segment's signatures, ready to be looked up by document.
pub(crate) fn segment_signatures(
    reader: &SegmentReader,
    hashes: usize,
) -> Result<SegmentSignatures> {
    let column = match SignatureColumn::open(reader, SIGNATURE_FIELD)? {
        None => return Ok(SegmentSignatures::None),
        Some(SignatureColumn::Bytes(column)) => column,
        Some(values) => return Ok(SegmentSignatures::Values(values)),
    };
    let mut values = Vec::with_capacity(column.num_terms() * hashes);
    let mut stream = column
        .dictionary()
        .stream()
        .map_err(tantivy::TantivyError::from)?;
    while stream.advance() {
        signature::decode_bytes(stream.key(), hashes, &mut values)?;
    }
    Ok(SegmentSignatures::Bytes(column.ords().clone(), values))
}

/// The signature of the document at `address`, if it has one.
pub(crate) fn signature_at(
    searcher: &Searcher,
    address: DocAddress,
    hashes: usize,
) -> Result<Option<Signature>> {
    let reader = searcher.segment_reader(address.segment_ord);
    match SignatureColumn::open(reader, SIGNATURE_FIELD)? {
        Some(column) => column.read(address.doc_id, hashes),
        None => Ok(None),
    }
}
