//! Where the writer's view finds what its slots do not hold: the committed references in
//! the writer's searcher ([`Committed`]), and the references' signatures
//! ([`SlotSignatures`]).
//!
//! A slot holds a fingerprint and a key hash, never a document address (merges move
//! documents). A committed slot is found again through the fingerprint field, which is
//! INDEXED: a walk of the exact fingerprint's postings, narrowed by the key hash.

use std::collections::HashMap;

use tantivy::schema::{IndexRecordOption, TantivyDocument};
use tantivy::{DocAddress, DocId, DocSet, Searcher, SegmentReader, Term, TERMINATED};

use crate::error::Result;
use crate::fingerprint::{Fingerprint, Signature};
use crate::lookup::SignatureTable;
use crate::plugin::columns::stored::{key_at, key_hash, signature_at, version_at, NO_KEY};
use crate::plugin::columns::{is_flagged, FLAG_FIELD};
use crate::plugin::segment_values::{self, SegmentValues};
use crate::plugin::DedupIndex;

/// The index at the writer's last commit, as its searcher shows it, and the committed slots
/// found in it so far.
pub(super) struct Committed {
    index: DedupIndex,
    searcher: Searcher,
    /// Committed slots already found in the searcher: a popular reference (the original of
    /// a campaign) is described on every add that duplicates it.
    addresses: HashMap<u32, Option<DocAddress>>,
    /// Whether some segment has terms in [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD):
    /// an index never written under `Policy::Replace` pays no lookup for them.
    holds_records: bool,
    /// The segment component's files of the searcher's segments, held so that they are
    /// read after a merge deletes them (see `segment_values::pin`).
    pins: Vec<SegmentValues>,
}

impl Committed {
    /// The commit `searcher` shows, of `index`.
    pub fn new(index: DedupIndex, searcher: Searcher) -> Committed {
        let holds_records = holds_records(&index, &searcher);
        let pins = pins_of(&searcher);
        Committed {
            index,
            searcher,
            addresses: HashMap::new(),
            holds_records,
            pins,
        }
    }

    /// The index.
    pub fn index(&self) -> &DedupIndex {
        &self.index
    }

    /// The searcher on the last commit.
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// Moves to the commit `searcher` shows, where merges may have moved documents.
    pub fn reload(&mut self, searcher: Searcher) {
        self.holds_records = holds_records(&self.index, &searcher);
        self.pins = pins_of(&searcher);
        self.searcher = searcher;
        self.addresses.clear();
    }

    /// The versions (text digests, or fingerprints) of the committed, alive documents with
    /// `key`.
    pub fn versions_of(&self, key: &str) -> Result<Vec<Option<u64>>> {
        let content = self.index.fields().content.is_some();
        self.with_key(key)?
            .into_iter()
            .map(|address| version_at(&self.searcher, address, content))
            .collect()
    }

    /// The alive documents with `key`, in add order.
    pub fn with_key(&self, key: &str) -> Result<Vec<DocAddress>> {
        match self.index.fields().key {
            Some(field) => self.with_term(Term::from_field_text(field, key)),
            None => Ok(Vec::new()),
        }
    }

    /// Whether some committed segment has records of
    /// [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD).
    pub fn holds_records(&self) -> bool {
        self.holds_records
    }

    /// The alive documents holding `record` in
    /// [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD), in add order.
    pub fn with_record(&self, record: &str) -> Result<Vec<DocAddress>> {
        match self.index.fields().replaced {
            Some(field) if self.holds_records => {
                self.with_term(Term::from_field_text(field, record))
            }
            _ => Ok(Vec::new()),
        }
    }

    /// The alive documents holding a record of `key` (in
    /// [`REPLACED_KEY_FIELD`](crate::plugin::REPLACED_KEY_FIELD)), in add order.
    pub fn with_record_key(&self, key: &str) -> Result<Vec<DocAddress>> {
        match self.index.fields().replaced_key {
            Some(field) if self.holds_records => self.with_term(Term::from_field_text(field, key)),
            _ => Ok(Vec::new()),
        }
    }

    /// The alive documents flagged as near-duplicates of the document of `key` (their
    /// [`DUPLICATE_OF_FIELD`](crate::plugin::DUPLICATE_OF_FIELD) is `key`), in add order.
    pub fn flagged_against(&self, key: &str) -> Result<Vec<DocAddress>> {
        match self.index.fields().flag {
            Some((_, of)) => self.with_term(Term::from_field_text(of, key)),
            None => Ok(Vec::new()),
        }
    }

    /// The stored fields of the document at `address`.
    pub fn doc_at(&self, address: DocAddress) -> Result<TantivyDocument> {
        Ok(self.searcher.doc(address)?)
    }

    /// The alive documents holding `term`, in add order: the term's postings walked
    /// segment by segment (a `TermQuery` would weigh the term first, for scores no one
    /// reads, on every add that has a key).
    ///
    /// Segments are ordered by their random ids, so address order would differ from one
    /// run of the same adds to the next; what is decided again in this order (the copies
    /// flagged against a document that changed) must not. Documents without an add order
    /// (an index of an older format) keep address order, after the others.
    fn with_term(&self, term: Term) -> Result<Vec<DocAddress>> {
        let mut found = Vec::new();
        for (segment_ord, reader) in self.searcher.segment_readers().iter().enumerate() {
            first_alive_with(reader, &term, |doc| {
                found.push(DocAddress::new(segment_ord as u32, doc));
                Ok(None::<()>)
            })?;
        }
        if found.len() > 1 && self.pins.len() == self.searcher.segment_readers().len() {
            let sequence = |a: &DocAddress| self.pins[a.segment_ord as usize].sequence(a.doc_id);
            found.sort_by_cached_key(sequence);
        }
        Ok(found)
    }

    /// The records of [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) the document at
    /// `address` holds, read from the document store (the whole document: tantivy reads no
    /// less; only a replace reads it).
    pub fn records_at(&self, address: DocAddress) -> Result<Vec<String>> {
        let fields = self.index.fields();
        if fields.replaced.is_none() {
            return Ok(Vec::new());
        }
        let document: TantivyDocument = self.searcher.doc(address)?;
        Ok(fields.records_in(&document))
    }

    /// The version (text digest, or fingerprint) of the committed document at `address`.
    pub fn version_at(&self, address: DocAddress) -> Result<Option<u64>> {
        version_at(
            &self.searcher,
            address,
            self.index.fields().content.is_some(),
        )
    }

    /// The key of the document at `address`, if the index has keys and it has one.
    pub fn key_at(&self, address: DocAddress) -> Result<Option<String>> {
        match self.index.settings().get_key_field() {
            Some(field) => key_at(&self.searcher, field, address),
            None => Ok(None),
        }
    }

    /// The address of the committed `slot`, whose fingerprint and key hash are `identity`,
    /// found once per commit.
    pub fn address_of(
        &mut self,
        slot: u32,
        identity: (Fingerprint, u64),
    ) -> Result<Option<DocAddress>> {
        if let Some(&address) = self.addresses.get(&slot) {
            return Ok(address);
        }
        let address = self.first_with(identity)?;
        self.addresses.insert(slot, address);
        Ok(address)
    }

    /// The first alive, unflagged document with exactly `fingerprint` and a key of hash
    /// `wanted`.
    ///
    /// Walks the fingerprint's postings in index order and stops at the first hit, reading
    /// the flag column before the key: a corpus of near-identical pages under Flag holds
    /// thousands of flagged copies of one fingerprint, and collecting (and sorting) them all
    /// on every add made ingest quadratic.
    fn first_with(&self, (fingerprint, wanted): (Fingerprint, u64)) -> Result<Option<DocAddress>> {
        let term = Term::from_field_u64(self.index.fields().fingerprint, fingerprint.bits());
        for (segment_ord, reader) in self.searcher.segment_readers().iter().enumerate() {
            let flags = if self.index.settings().get_flagging() {
                Some(reader.fast_fields().u64(FLAG_FIELD)?)
            } else {
                None
            };
            let alive = reader.alive_bitset();
            let unflagged = |doc: DocId| !is_flagged(flags.as_ref(), doc);
            if self.index.fields().values.is_some() {
                // The component's table by fingerprint holds every document, those added
                // without the fingerprint field too, and its key hashes spare reading keys
                // back from tantivy's dictionary.
                let values = segment_values::open(reader)?;
                let found = values.documents_with(fingerprint).find(|&doc| {
                    unflagged(doc)
                        && alive.is_none_or(|a| a.is_alive(doc))
                        && values.key_hash(doc) == wanted
                });
                if let Some(doc) = found {
                    return Ok(Some(DocAddress::new(segment_ord as u32, doc)));
                }
                continue;
            }
            let found = first_alive_with(reader, &term, |doc| {
                if !unflagged(doc) {
                    return Ok(None);
                }
                let address = DocAddress::new(segment_ord as u32, doc);
                let hash = self
                    .key_at(address)?
                    .map_or(NO_KEY, |key| key_hash(key.as_bytes()));
                Ok((hash == wanted).then_some(address))
            })?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}

/// Walks the alive documents of `reader` holding `term`, in order, until `visit` gives a
/// value.
fn first_alive_with<T>(
    reader: &SegmentReader,
    term: &Term,
    mut visit: impl FnMut(DocId) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let Some(mut postings) = reader
        .inverted_index(term.field())?
        .read_postings(term, IndexRecordOption::Basic)
        .map_err(tantivy::TantivyError::from)?
    else {
        return Ok(None);
    };
    let alive = reader.alive_bitset();
    let mut doc = postings.doc();
    while doc != TERMINATED {
        if alive.is_none_or(|a| a.is_alive(doc)) {
            if let Some(found) = visit(doc)? {
                return Ok(Some(found));
            }
        }
        doc = postings.advance();
    }
    Ok(None)
}

/// The pins of `searcher`'s segments, where they can be taken: the writer takes its
/// searchers pinned (`segment_values::pinned_searcher`), so these are found held.
fn pins_of(searcher: &Searcher) -> Vec<SegmentValues> {
    segment_values::pin(searcher)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Whether a segment of `searcher` has terms in `index`'s
/// [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) (true when one cannot be read: the
/// lookup then reports the error).
fn holds_records(index: &DedupIndex, searcher: &Searcher) -> bool {
    let Some(field) = index.fields().replaced else {
        return false;
    };
    searcher.segment_readers().iter().any(|reader| {
        reader
            .inverted_index(field)
            .map_or(true, |inverted| inverted.terms().num_terms() > 0)
    })
}

/// Where the writer's view finds the signature of a slot.
pub(super) enum SlotSignatures {
    /// The index does not verify.
    None,
    /// Every slot's, in memory (4 bytes a value): with
    /// [`CandidateStage::Scan`](crate::matching::CandidateStage::Scan) an add compares every
    /// reference within the candidate distance, too many to read from the index.
    InMemory(SignatureTable),
    /// Those of the slots added since the last commit; a committed slot's is read from the
    /// index when a candidate needs it. With bands an add meets a few candidates, and the
    /// writer's memory keeps only the bands.
    OnDemand {
        hashes: usize,
        pending: HashMap<u32, Signature>,
    },
}

impl SlotSignatures {
    /// The number of values of a signature (0 when the index does not verify).
    pub fn hashes(&self) -> usize {
        match self {
            SlotSignatures::None => 0,
            SlotSignatures::InMemory(table) => table.hashes(),
            SlotSignatures::OnDemand { hashes, .. } => *hashes,
        }
    }

    /// Records the signature of the next slot, `slot`.
    pub fn push(&mut self, slot: u32, signature: Option<Signature>) {
        match self {
            SlotSignatures::None => {}
            SlotSignatures::InMemory(table) => table.push(signature.as_ref()),
            SlotSignatures::OnDemand { pending, .. } => {
                if let Some(signature) = signature {
                    pending.insert(slot, signature);
                }
            }
        }
    }

    /// The signature of `slot`, whose fingerprint and key hash are `identity`: a committed
    /// slot's is read from `committed` (`read` holds it for the caller).
    pub fn get<'a>(
        &'a self,
        slot: u32,
        identity: (Fingerprint, u64),
        committed: &mut Committed,
        read: &'a mut Option<Signature>,
    ) -> Result<Option<&'a [u32]>> {
        match self {
            SlotSignatures::None => Ok(None),
            SlotSignatures::InMemory(table) => Ok(table.get(slot)),
            SlotSignatures::OnDemand { hashes, pending } => {
                if let Some(pending) = pending.get(&slot) {
                    return Ok(Some(pending.values()));
                }
                *read = match committed.address_of(slot, identity)? {
                    Some(address) => signature_at(committed.searcher(), address, *hashes)?,
                    None => None,
                };
                Ok(read.as_ref().map(Signature::values))
            }
        }
    }

    /// Forgets a slot added since the last commit and deleted before it.
    pub fn forget_pending(&mut self, slot: u32) {
        if let SlotSignatures::OnDemand { pending, .. } = self {
            pending.remove(&slot);
        }
    }

    /// The slots added since the last commit are committed: their signatures are in the
    /// index now.
    pub fn commit(&mut self) {
        if let SlotSignatures::OnDemand { pending, .. } = self {
            pending.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::Schema;
    use tantivy::{doc, Index, IndexWriter, TantivyDocument};

    use super::*;
    use crate::matching::MatchingSettings;
    use crate::plugin::{text_field_options, DedupSettings};

    /// An index with an original (key `a`) and a flagged copy (key `b`) of one fingerprint,
    /// then a document without a fingerprint (key `c`).
    fn committed() -> (Committed, Fingerprint) {
        let settings = DedupSettings::new(["body"])
            .key_field("url")
            .flagging(true)
            .matching(MatchingSettings::default().verification(None));
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", text_field_options());
        settings.add_fields(&mut schema).unwrap();
        let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
        let fields = index.fields().clone();
        let url = fields.key.unwrap();
        let fingerprint = Fingerprint(0xABCD);
        let mut writer: IndexWriter = index
            .index()
            .writer_with_num_threads(1, 15_000_000)
            .unwrap();
        for (key, flag) in [("b", Some((1, "a"))), ("a", None)] {
            let mut document: TantivyDocument = doc!(body => "text", url => key);
            fields.set_fingerprint(&mut document, Some(fingerprint), None);
            fields.set_flag(&mut document, flag);
            writer.add_document(document).unwrap();
        }
        writer.add_document(doc!(body => "", url => "c")).unwrap();
        writer.commit().unwrap();
        let searcher = index.index().reader().unwrap().searcher();
        (Committed::new(index, searcher), fingerprint)
    }

    #[test]
    fn a_committed_slot_is_its_unflagged_document_with_its_key() {
        let (mut committed, fingerprint) = committed();
        let a = committed
            .address_of(0, (fingerprint, key_hash(b"a")))
            .unwrap()
            .expect("the original");
        assert_eq!(committed.key_at(a).unwrap().as_deref(), Some("a"));
        // The flagged copy is no reference, whatever its key.
        assert_eq!(
            committed
                .address_of(1, (fingerprint, key_hash(b"b")))
                .unwrap(),
            None
        );
        // Found once per commit: a reload forgets the addresses.
        committed.reload(committed.searcher().clone());
        assert_eq!(
            committed
                .address_of(0, (fingerprint, key_hash(b"a")))
                .unwrap(),
            Some(a)
        );
    }

    #[test]
    fn keys_are_looked_up_among_alive_documents() {
        let (committed, _) = committed();
        assert_eq!(
            committed.versions_of("c").unwrap(),
            [None],
            "no fingerprint"
        );
        assert!(committed.versions_of("d").unwrap().is_empty());
        assert_eq!(committed.with_key("b").unwrap().len(), 1);
    }

    #[test]
    fn pending_signatures_are_kept_until_the_commit() {
        let (mut committed, fingerprint) = committed();
        let mut signatures = SlotSignatures::OnDemand {
            hashes: 2,
            pending: HashMap::new(),
        };
        signatures.push(7, Some(Signature::from_values(vec![1, 2])));
        let identity = (fingerprint, key_hash(b"a"));
        let mut read = None;
        let got = signatures
            .get(7, identity, &mut committed, &mut read)
            .unwrap();
        assert_eq!(got, Some(&[1, 2][..]));
        signatures.commit();
        // Committed, it is read from the index: this one has no signature field at all.
        let mut read = None;
        assert_eq!(
            signatures
                .get(7, identity, &mut committed, &mut read)
                .unwrap(),
            None
        );
        let mut table = SlotSignatures::InMemory(SignatureTable::new(2));
        table.push(0, None);
        let mut read = None;
        let got = table.get(0, identity, &mut committed, &mut read).unwrap();
        assert_eq!(got, Some(&[crate::fingerprint::EMPTY; 2][..]));
    }
}
