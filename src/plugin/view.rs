//! The writer's view of the index: every alive, unflagged document with a fingerprint —
//! committed or added since the last commit — in a [`FingerprintIndex`], and the keys added
//! and deleted since the last commit.
//!
//! Lookup ids are *slots*, numbered by the view; a slot does not hold a document address
//! (merges move documents), only its fingerprint and a hash of its key. A committed slot is
//! found again in a searcher through the fingerprint field, which is INDEXED: a term query on
//! the exact fingerprint, narrowed by the key hash.

use std::collections::{HashMap, HashSet};

use tantivy::collector::{Count, DocSetCollector};
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, Term, TERMINATED};

use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::lookup::{BandIndex, FingerprintIndex, LookupOptions, Match, MAX_TABLE_DISTANCE};
use crate::plugin::matcher::Matcher;
use crate::plugin::settings::FLAG_FIELD;
use crate::plugin::signature::{is_empty_set, Signature, SignatureTable};
use crate::plugin::stored::{
    fingerprint_at, key_at, key_hash, signature_at, stored_band_index, stored_fingerprints,
    stored_signatures, NO_KEY,
};
use crate::plugin::{DedupIndex, Duplicate};

/// A reference found near a new document, and judged a near-duplicate of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judged {
    /// Its slot.
    pub id: u32,
    /// The Hamming distance of the fingerprints.
    pub distance: u32,
    /// The verification's score of the pair, when the index verifies.
    pub score: Option<f64>,
}

pub(crate) struct WriterView {
    lookup: FingerprintIndex,
    /// The fingerprint of each slot, removed ones included (the lookup says which are
    /// present): a band hit's distance without a search of the lookup's insert buffer.
    fingerprints: Vec<Fingerprint>,
    /// Key hash of each slot ([`NO_KEY`] for none), indexed by slot.
    slot_keys: Vec<u64>,
    /// Where the slots' signatures are found (nowhere when the index does not verify).
    signatures: SlotSignatures,
    /// The slots' signatures by band, when the verification's candidates come from bands
    /// (empty sets' signatures left out).
    bands: Option<BandIndex>,
    /// Keys of the slots added since the last commit.
    pending_slots: HashMap<u32, Option<String>>,
    /// Keys added since the last commit.
    pending_keys: HashSet<String>,
    /// Keys deleted since the last commit: their committed documents no longer count.
    deleted_keys: HashSet<String>,
    /// Committed slots already found in the current searcher: a popular reference (the
    /// original of a campaign) is described on every add that duplicates it.
    addresses: HashMap<u32, Option<DocAddress>>,
    matches: Vec<Match>,
    band_hits: Vec<u32>,
    judged: Vec<Judged>,
}

impl WriterView {
    /// The view of the committed documents of `searcher`, for a writer judging by `matcher`.
    pub fn build(index: &DedupIndex, searcher: &Searcher, matcher: &Matcher) -> Result<WriterView> {
        let mut stored = stored_fingerprints(searcher, index.settings())?;
        stored.retain(|doc| !doc.flagged);
        let references = stored.iter();
        let slot_keys: Vec<u64> = references.clone().map(|doc| doc.key_hash).collect();
        let options = LookupOptions::new()
            .max_distance(matcher.table_distance().min(MAX_TABLE_DISTANCE))
            .expected_len(slot_keys.len());
        let fingerprints: Vec<Fingerprint> =
            references.clone().map(|doc| doc.fingerprint).collect();
        let (bands, signatures) = match (matcher.bands(), index.settings().get_verification()) {
            (Some(bands), Some(verification)) => {
                let hashes = verification.get_hashes();
                (
                    Some(stored_band_index(searcher, &stored, hashes, bands)?),
                    SlotSignatures::OnDemand {
                        hashes,
                        pending: HashMap::new(),
                    },
                )
            }
            (_, Some(_)) => (
                None,
                SlotSignatures::InMemory(stored_signatures(searcher, &stored, index.settings())?),
            ),
            (_, None) => (None, SlotSignatures::None),
        };
        let lookup = options.build_from(
            references
                .enumerate()
                .map(|(slot, doc)| (slot as u32, doc.fingerprint)),
        )?;
        Ok(WriterView {
            lookup,
            fingerprints,
            slot_keys,
            signatures,
            bands,
            pending_slots: HashMap::new(),
            pending_keys: HashSet::new(),
            deleted_keys: HashSet::new(),
            addresses: HashMap::new(),
            matches: Vec::new(),
            band_hits: Vec::new(),
            judged: Vec::new(),
        })
    }

    /// Rebuilds the block tables when `matcher` needs another distance of them than they
    /// serve (a writer given another distance): the documents added since the last commit
    /// stay.
    pub fn retable(&mut self, matcher: &Matcher) -> Result<()> {
        let wanted = matcher.table_distance().min(MAX_TABLE_DISTANCE);
        if wanted != self.lookup.max_distance() {
            let options = self.lookup.options().clone().max_distance(wanted);
            let mut entries: Vec<(u32, Fingerprint)> = self.lookup.iter().collect();
            entries.sort_unstable_by_key(|&(slot, _)| slot);
            self.lookup = options.build_from(entries)?;
        }
        Ok(())
    }

    /// Number of reference documents (the ones a new document is compared with).
    pub fn len(&self) -> usize {
        self.lookup.len()
    }

    /// Whether a document with `key` is in the index as the writer sees it.
    pub fn contains_key(&self, index: &DedupIndex, searcher: &Searcher, key: &str) -> Result<bool> {
        if self.pending_keys.contains(key) {
            return Ok(true);
        }
        if self.deleted_keys.contains(key) {
            return Ok(false);
        }
        let Some(field) = index.fields().key else {
            return Ok(false);
        };
        let query = TermQuery::new(Term::from_field_text(field, key), IndexRecordOption::Basic);
        Ok(searcher.search(&query, &Count)? > 0)
    }

    /// The references that `matcher` judges near-duplicates of a document with
    /// `fingerprint` and `signature`, nearest first (then in slot order). `searcher` is the
    /// writer's, on the last commit: committed references' signatures are read from it.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when a signature cannot be read.
    pub fn near(
        &mut self,
        index: &DedupIndex,
        searcher: &Searcher,
        fingerprint: Fingerprint,
        signature: Option<&Signature>,
        matcher: &Matcher,
    ) -> Result<&[Judged]> {
        let bands = self.bands.as_ref().filter(|_| matcher.bands().is_some());
        match (bands, signature) {
            (Some(bands), Some(signature)) => {
                // Within the distance from the tables; beyond it, what shares a band.
                self.lookup
                    .query_into(fingerprint, matcher.distance(), &mut self.matches);
                if !is_empty_set(signature.values()) {
                    bands.candidates_into(signature.values(), &mut self.band_hits);
                }
                for &id in &self.band_hits {
                    if !self.lookup.contains(id) {
                        continue;
                    }
                    let distance = self.fingerprints[id as usize].distance(fingerprint);
                    if distance > matcher.distance() && distance <= matcher.reach() {
                        self.matches.push(Match { id, distance });
                    }
                }
                self.band_hits.clear();
                self.matches.sort_unstable_by_key(|m| (m.distance, m.id));
            }
            (Some(_), None) => {
                self.lookup
                    .query_into(fingerprint, matcher.distance(), &mut self.matches);
            }
            (None, _) => {
                self.lookup
                    .query_into(fingerprint, matcher.reach(), &mut self.matches);
            }
        }
        self.judged.clear();
        let ours = signature.map(Signature::values);
        for found in &self.matches {
            let read;
            let theirs = match &self.signatures {
                SlotSignatures::None => None,
                SlotSignatures::InMemory(table) => table.get(found.id),
                SlotSignatures::OnDemand { hashes, pending } => match pending.get(&found.id) {
                    Some(pending) => Some(pending.values()),
                    None => {
                        let slot = found.id as usize;
                        let address = address_of(
                            &mut self.addresses,
                            (index, searcher),
                            found.id,
                            (self.fingerprints[slot], self.slot_keys[slot]),
                        )?;
                        read = match address {
                            Some(address) => signature_at(searcher, address, *hashes)?,
                            None => None,
                        };
                        read.as_ref().map(Signature::values)
                    }
                },
            };
            if let Some(score) = matcher.judge(found.distance, ours, theirs) {
                self.judged.push(Judged {
                    id: found.id,
                    distance: found.distance,
                    score,
                });
            }
        }
        Ok(&self.judged)
    }

    /// Adds a reference document, added since the last commit.
    pub fn insert(
        &mut self,
        fingerprint: Fingerprint,
        signature: Option<&Signature>,
        key: Option<&str>,
    ) {
        let slot = self.slot_keys.len() as u32;
        self.slot_keys
            .push(key.map_or(NO_KEY, |key| key_hash(key.as_bytes())));
        self.signatures.push(slot, signature);
        if let (Some(bands), Some(signature)) = (&mut self.bands, signature) {
            if !is_empty_set(signature.values()) {
                bands.insert(slot, signature.values());
            }
        }
        self.lookup.insert(slot, fingerprint);
        self.fingerprints.push(fingerprint);
        self.pending_slots.insert(slot, key.map(str::to_owned));
        self.note_added_key(key);
    }

    /// Records a key added since the last commit, for a document that is not a reference.
    pub fn note_added_key(&mut self, key: Option<&str>) {
        if let Some(key) = key {
            self.pending_keys.insert(key.to_owned());
        }
    }

    /// Forgets every document with `key`, committed or not, as a delete by that key does.
    pub fn delete_key(&mut self, index: &DedupIndex, searcher: &Searcher, key: &str) -> Result<()> {
        let hash = key_hash(key.as_bytes());
        self.pending_keys.remove(key);
        let pending: Vec<u32> = self
            .pending_slots
            .iter()
            .filter(|(_, slot_key)| slot_key.as_deref() == Some(key))
            .map(|(&slot, _)| slot)
            .collect();
        for slot in pending {
            self.pending_slots.remove(&slot);
            self.signatures.forget_pending(slot);
            self.remove_slot(slot);
        }
        if self.deleted_keys.insert(key.to_owned()) {
            for address in committed_with_key(index, searcher, key)? {
                let Some(fingerprint) = fingerprint_at(searcher, address)? else {
                    continue;
                };
                self.lookup.query_into(fingerprint, 0, &mut self.matches);
                for found in std::mem::take(&mut self.matches) {
                    let slot = found.id;
                    if self.slot_keys[slot as usize] == hash
                        && !self.pending_slots.contains_key(&slot)
                    {
                        self.remove_slot(slot);
                    }
                }
            }
        }
        Ok(())
    }

    fn remove_slot(&mut self, slot: u32) {
        self.lookup.remove(slot);
        if let Some(bands) = &mut self.bands {
            bands.remove(slot);
        }
    }

    /// What the writer reports about the reference `found`.
    pub fn describe(
        &mut self,
        index: &DedupIndex,
        searcher: &Searcher,
        found: Judged,
    ) -> Result<Duplicate> {
        let Judged {
            id: slot,
            distance,
            score,
        } = found;
        let fingerprint = self.fingerprints[slot as usize];
        if let Some(key) = self.pending_slots.get(&slot) {
            return Ok(Duplicate {
                key: key.clone(),
                address: None,
                fingerprint,
                distance,
                similarity: score,
            });
        }
        let address = address_of(
            &mut self.addresses,
            (index, searcher),
            slot,
            (fingerprint, self.slot_keys[slot as usize]),
        )?;
        let key = match (address, index.settings().get_key_field()) {
            (Some(address), Some(field)) => key_at(searcher, field, address)?,
            _ => None,
        };
        Ok(Duplicate {
            key,
            address,
            fingerprint,
            distance,
            similarity: score,
        })
    }

    /// The documents added since the last commit are committed now.
    pub fn commit(&mut self) {
        // The writer's searcher moves to the new commit, where merges may have moved documents.
        self.addresses.clear();
        self.signatures.commit();
        self.pending_slots.clear();
        self.pending_keys.clear();
        self.deleted_keys.clear();
    }
}

/// Where the writer's view finds the signature of a slot.
enum SlotSignatures {
    /// The index does not verify.
    None,
    /// Every slot's, in memory (512 bytes each by default): with
    /// [`CandidateStage::Scan`](crate::plugin::CandidateStage::Scan) an add compares every
    /// reference within the candidate distance, too many to read from the index.
    InMemory(SignatureTable),
    /// Those of the slots added since the last commit; a committed slot's is read from the
    /// index when a candidate needs it. With bands an add meets a few candidates, and the
    /// writer's memory keeps only the bands (about 300 bytes a reference).
    OnDemand {
        hashes: usize,
        pending: HashMap<u32, Signature>,
    },
}

impl SlotSignatures {
    /// Records the signature of the next slot, `slot`.
    fn push(&mut self, slot: u32, signature: Option<&Signature>) {
        match self {
            SlotSignatures::None => {}
            SlotSignatures::InMemory(table) => table.push(signature),
            SlotSignatures::OnDemand { pending, .. } => {
                if let Some(signature) = signature {
                    pending.insert(slot, signature.clone());
                }
            }
        }
    }

    /// Forgets a slot added since the last commit and deleted before it.
    fn forget_pending(&mut self, slot: u32) {
        if let SlotSignatures::OnDemand { pending, .. } = self {
            pending.remove(&slot);
        }
    }

    /// The slots added since the last commit are committed: their signatures are in the
    /// index now.
    fn commit(&mut self) {
        if let SlotSignatures::OnDemand { pending, .. } = self {
            pending.clear();
        }
    }
}

/// The address of the committed `slot`, with its `(fingerprint, key hash)`, in `searcher`,
/// found once per commit and kept in `addresses`.
fn address_of(
    addresses: &mut HashMap<u32, Option<DocAddress>>,
    (index, searcher): (&DedupIndex, &Searcher),
    slot: u32,
    (fingerprint, key_hash): (Fingerprint, u64),
) -> Result<Option<DocAddress>> {
    if let Some(&address) = addresses.get(&slot) {
        return Ok(address);
    }
    let address = committed_slot(index, searcher, fingerprint, key_hash)?;
    addresses.insert(slot, address);
    Ok(address)
}

/// Alive documents of `searcher` with `key`.
fn committed_with_key(
    index: &DedupIndex,
    searcher: &Searcher,
    key: &str,
) -> Result<Vec<DocAddress>> {
    let Some(field) = index.fields().key else {
        return Ok(Vec::new());
    };
    let query = TermQuery::new(Term::from_field_text(field, key), IndexRecordOption::Basic);
    let mut found: Vec<DocAddress> = searcher
        .search(&query, &DocSetCollector)?
        .into_iter()
        .collect();
    found.sort();
    Ok(found)
}

/// The first alive, unflagged document of `searcher` with exactly `fingerprint` and a key of
/// hash `key_hash`.
///
/// Walks the fingerprint's postings in index order and stops at the first hit, reading the
/// flag column before the key: a corpus of near-identical pages under Flag holds thousands of
/// flagged copies of one fingerprint, and collecting (and sorting) them all on every add made
/// ingest quadratic.
fn committed_slot(
    index: &DedupIndex,
    searcher: &Searcher,
    fingerprint: Fingerprint,
    key_hash_wanted: u64,
) -> Result<Option<DocAddress>> {
    let term = Term::from_field_u64(index.fields().fingerprint, fingerprint.0);
    let key_field = index.settings().get_key_field();
    for (segment_ord, reader) in searcher.segment_readers().iter().enumerate() {
        let Some(mut postings) = reader
            .inverted_index(term.field())?
            .read_postings(&term, IndexRecordOption::Basic)
            .map_err(tantivy::TantivyError::from)?
        else {
            continue;
        };
        let flags = if index.settings().get_flagging() {
            Some(reader.fast_fields().u64(FLAG_FIELD)?)
        } else {
            None
        };
        let alive = reader.alive_bitset();
        let mut doc = postings.doc();
        while doc != TERMINATED {
            let flagged = flags
                .as_ref()
                .is_some_and(|flags| flags.first(doc).unwrap_or(0) != 0);
            if !flagged && alive.is_none_or(|alive| alive.is_alive(doc)) {
                let address = DocAddress::new(segment_ord as u32, doc);
                let hash = match key_field {
                    Some(field) => key_at(searcher, field, address)?
                        .map_or(NO_KEY, |key| key_hash(key.as_bytes())),
                    None => NO_KEY,
                };
                if hash == key_hash_wanted {
                    return Ok(Some(address));
                }
            }
            doc = postings.advance();
        }
    }
    Ok(None)
}
