//! The writer's view of the index: every alive, unflagged document with a fingerprint —
//! committed or added since the last commit — as a *reference* new documents are compared
//! with, and the keys added and deleted since the last commit.
//!
//! References are numbered by *slot*, the id of their fingerprint in a
//! [`FingerprintIndex`] (block tables within the distance) and of their signature in a
//! [`BandIndex`] (candidates beyond it).
//!
//! Where the segments keep reference tables (the segment component's files), the committed
//! references stay there ([`SegmentRefs`]): their slots are their places in the last
//! commit, and the tables in memory hold only the references added since, numbered from
//! [`SegmentRefs::end`]. Elsewhere (indexes of settings format 9 and earlier, a writer
//! given a wider distance than the index's) every reference is in memory, and a committed
//! slot is found again in the index when a duplicate must be described or its signature
//! read ([`Committed`]).

use std::collections::{HashMap, HashSet};

use tantivy::{Searcher, TantivyDocument};

use super::band_filter::BandFilter;
use super::outcome::Duplicate;
use super::segment_refs::SegmentRefs;
use super::slots::{Committed, SlotSignatures};
use crate::error::Result;
use crate::fingerprint::{is_empty_set, Fingerprint, Signature};
use crate::lookup::{BandIndex, FingerprintIndex, LookupOptions, Match, MAX_TABLE_DISTANCE};
use crate::matching::{find_candidates, Matcher};
use crate::plugin::columns::stored::{
    fingerprint_at, key_hash, stored_band_index, stored_fingerprints, stored_signatures, NO_KEY,
};
use crate::plugin::DedupIndex;

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
    /// The last commit, where committed references are found again.
    committed: Committed,
    /// The committed references, where the segments' tables hold them; their slots are
    /// below [`base`](Self::base).
    segments: Option<SegmentRefs>,
    /// The first slot of the lookup's (0 when every reference is in memory).
    base: u32,
    lookup: FingerprintIndex,
    /// The fingerprint of each slot from `base`, removed ones included (the lookup says
    /// which are present): a band hit's distance without a search of the lookup's insert
    /// buffer.
    fingerprints: Vec<Fingerprint>,
    /// Key hash of each slot from `base` ([`NO_KEY`] for none).
    slot_keys: Vec<u64>,
    /// Scope hash of each slot from `base`; empty when the index has no scopes.
    slot_scopes: Vec<Option<u64>>,
    /// Where the slots' signatures are found (nowhere when the index does not verify).
    signatures: SlotSignatures,
    /// The slots' signatures by band, when the verification's candidates come from bands
    /// (empty sets' signatures left out).
    bands: Option<BandIndex>,
    /// What was added and deleted since the last commit.
    pending: Pending,
    /// Buffers reused by every add.
    matches: Vec<Match>,
    band_hits: Vec<u32>,
    signature: Vec<u32>,
}

/// The keys added and deleted since the last commit, so that `exists` and deletes by key
/// are exact before the commit. The keys are the documents' (a crawler's URLs): std's
/// SipHash, which keys crafted to collide cannot defeat, and no slower here than foldhash
/// in a measured ingest.
#[derive(Default)]
struct Pending {
    /// Keys of the slots added since the last commit.
    slots: HashMap<u32, Option<String>>,
    /// Keys added since the last commit, with the version of their text (see
    /// `DedupFields::version_of`).
    added: HashMap<String, Option<u64>>,
    /// Keys deleted since the last commit: their committed documents no longer count.
    deleted: HashSet<String>,
    /// Records of [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) held by documents added
    /// since the last commit, with their holder's key.
    records: HashMap<String, Option<String>>,
    /// The records of each keyed holder added since the last commit, forgotten with it.
    holdings: HashMap<String, Vec<String>>,
    /// The holders added since the last commit of records of each key (some perhaps gone
    /// since: `holdings` says which still hold them).
    holders: HashMap<String, Vec<String>>,
}

impl WriterView {
    /// The view of the committed documents of `searcher`, for a writer judging by `matcher`.
    pub fn build(index: DedupIndex, searcher: Searcher, matcher: &Matcher) -> Result<WriterView> {
        WriterView::build_from(index, searcher, matcher, None)
    }

    /// As [`build`](Self::build), with the band filter of the view before a commit.
    fn build_from(
        index: DedupIndex,
        searcher: Searcher,
        matcher: &Matcher,
        filter: Option<BandFilter>,
    ) -> Result<WriterView> {
        if index.fields().values.is_some() {
            let scoped = index.settings().get_scope_field().is_some();
            if let Some(segments) = SegmentRefs::open(&searcher, matcher, scoped, filter)? {
                return WriterView::over_segments(index, searcher, matcher, segments);
            }
        }
        WriterView::in_memory(index, searcher, matcher)
    }

    /// The view with every reference in memory: the committed ones read from `searcher`.
    fn in_memory(index: DedupIndex, searcher: Searcher, matcher: &Matcher) -> Result<WriterView> {
        let mut stored = stored_fingerprints(&searcher, index.settings())?;
        stored.retain(|doc| !doc.flagged);
        let slot_keys: Vec<u64> = stored.iter().map(|doc| doc.key_hash).collect();
        let slot_scopes: Vec<Option<u64>> = match index.settings().get_scope_field() {
            Some(_) => stored.iter().map(|doc| doc.scope).collect(),
            None => Vec::new(),
        };
        let fingerprints: Vec<Fingerprint> = stored.iter().map(|doc| doc.fingerprint).collect();
        let (bands, signatures) = match (
            matcher.bands(),
            index.settings().get_matching().get_verification(),
        ) {
            (Some(bands), Some(verification)) => {
                let hashes = verification.get_hashes();
                (
                    Some(stored_band_index(&searcher, &stored, hashes, bands)?),
                    SlotSignatures::OnDemand {
                        hashes,
                        pending: HashMap::new(),
                    },
                )
            }
            (_, Some(_)) => (
                None,
                SlotSignatures::InMemory(stored_signatures(&searcher, &stored, index.settings())?),
            ),
            (_, None) => (None, SlotSignatures::None),
        };
        let lookup = LookupOptions::new()
            .max_distance(matcher.table_distance().min(MAX_TABLE_DISTANCE))
            .expected_len(slot_keys.len())
            .build_from(
                fingerprints
                    .iter()
                    .copied()
                    .enumerate()
                    .map(|(slot, fp)| (slot as u32, fp)),
            )?;
        let committed = Committed::new(index, searcher);
        let references = (fingerprints, slot_keys, slot_scopes);
        Ok(WriterView::assemble(
            committed,
            None,
            lookup,
            references,
            (signatures, bands),
        ))
    }

    /// The view of these parts, with nothing added or deleted since the commit.
    fn assemble(
        committed: Committed,
        segments: Option<SegmentRefs>,
        lookup: FingerprintIndex,
        (fingerprints, slot_keys, slot_scopes): (Vec<Fingerprint>, Vec<u64>, Vec<Option<u64>>),
        (signatures, bands): (SlotSignatures, Option<BandIndex>),
    ) -> WriterView {
        WriterView {
            committed,
            base: segments.as_ref().map_or(0, SegmentRefs::end),
            segments,
            lookup,
            fingerprints,
            slot_keys,
            slot_scopes,
            signatures,
            bands,
            pending: Pending::default(),
            matches: Vec::new(),
            band_hits: Vec::new(),
            signature: Vec::new(),
        }
    }

    /// The view whose committed references are `segments`': nothing of them in memory.
    fn over_segments(
        index: DedupIndex,
        searcher: Searcher,
        matcher: &Matcher,
        segments: SegmentRefs,
    ) -> Result<WriterView> {
        let verification = index.settings().get_matching().get_verification();
        let bands = match (matcher.bands(), verification) {
            (Some((bands, rows)), Some(_)) => Some(BandIndex::new(bands, rows)?),
            _ => None,
        };
        let signatures = match verification {
            Some(verification) => SlotSignatures::OnDemand {
                hashes: verification.get_hashes(),
                pending: HashMap::new(),
            },
            None => SlotSignatures::None,
        };
        let lookup = LookupOptions::new()
            .max_distance(matcher.table_distance().min(MAX_TABLE_DISTANCE))
            .build_from(std::iter::empty())?;
        let committed = Committed::new(index, searcher);
        let references = (Vec::new(), Vec::new(), Vec::new());
        Ok(WriterView::assemble(
            committed,
            Some(segments),
            lookup,
            references,
            (signatures, bands),
        ))
    }

    /// The view read again from the last commit (after a rollback, or a delete by query
    /// whose documents are known only once committed).
    pub fn rebuild(&mut self, matcher: &Matcher) -> Result<()> {
        let index = self.committed.index().clone();
        let searcher = self.committed.searcher().clone();
        *self = WriterView::build(index, searcher, matcher)?;
        Ok(())
    }

    /// Rebuilds the block tables when `matcher` needs another distance of them than they
    /// serve (a writer given another distance): the documents added since the last commit
    /// stay.
    pub fn retable(&mut self, matcher: &Matcher) -> Result<()> {
        if let Some(segments) = &self.segments {
            if !segments.serve(matcher) {
                return self.rebuild_keeping_pending(matcher);
            }
        }
        let wanted = matcher.table_distance().min(MAX_TABLE_DISTANCE);
        if wanted != self.lookup.max_distance() {
            let options = self.lookup.options().clone().max_distance(wanted);
            let mut entries: Vec<(u32, Fingerprint)> = self.lookup.iter().collect();
            entries.sort_unstable_by_key(|&(slot, _)| slot);
            self.lookup = options.build_from(entries)?;
        }
        Ok(())
    }

    /// The view read again from the last commit for `matcher`, with the references and
    /// keys added since: the segments' tables do not serve `matcher`.
    fn rebuild_keeping_pending(&mut self, matcher: &Matcher) -> Result<()> {
        let index = self.committed.index().clone();
        let searcher = self.committed.searcher().clone();
        let mut pending_slots: Vec<u32> = self.pending.slots.keys().copied().collect();
        pending_slots.sort_unstable();
        let mut added = Vec::with_capacity(pending_slots.len());
        for slot in pending_slots {
            let at = (slot - self.base) as usize;
            let signature = match &self.signatures {
                SlotSignatures::OnDemand { pending, .. } => pending.get(&slot).cloned(),
                SlotSignatures::InMemory(table) => table
                    .get(slot)
                    .map(|values| Signature::from_values(values.to_vec())),
                SlotSignatures::None => None,
            };
            let scope = self.slot_scopes.get(at).copied().flatten();
            let key = self.pending.slots[&slot].clone();
            added.push((self.fingerprints[at], signature, scope, key));
        }
        let mut pending = std::mem::take(&mut self.pending);
        *self = WriterView::build(index, searcher, matcher)?;
        // Keeps the deleted keys, records and versions; the slots are numbered again.
        pending.slots.clear();
        for (fingerprint, signature, scope, key) in added {
            self.insert((fingerprint, signature, scope), (key.as_deref(), None));
            let slot = self.base + self.slot_keys.len() as u32 - 1;
            pending.slots.insert(slot, key);
        }
        for key in &pending.deleted {
            self.forget_committed(key)?;
        }
        self.pending = pending;
        Ok(())
    }

    /// The searcher on the last commit.
    pub fn searcher(&self) -> &Searcher {
        self.committed.searcher()
    }

    /// Number of reference documents (the ones a new document is compared with).
    pub fn len(&self) -> usize {
        self.lookup.len() + self.segments.as_ref().map_or(0, SegmentRefs::len)
    }

    /// The versions of the documents with `key` in the index as the writer sees it (their
    /// text digests, or fingerprints): empty when there is none.
    pub fn versions_of(&self, key: &str) -> Result<Vec<Option<u64>>> {
        if let Some(&version) = self.pending.added.get(key) {
            return Ok(vec![version]);
        }
        if self.pending.deleted.contains(key) {
            return Ok(Vec::new());
        }
        self.committed.versions_of(key)
    }

    /// Whether a document of `key` and `version` was replaced by a document the writer
    /// sees alive (one holding its record in
    /// [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD)).
    pub fn was_replaced(&self, key: &str, version: u64) -> Result<bool> {
        // Every keyed add of a new key asks: most indexes hold no record at all.
        if self.pending.records.is_empty() && !self.committed.holds_records() {
            return Ok(false);
        }
        let Some(record) = self.committed.index().fields().record_of(key, version) else {
            return Ok(false);
        };
        if self.pending.records.contains_key(&record) {
            return Ok(true);
        }
        for address in self.committed.with_record(&record)? {
            // A holder deleted by key since the last commit no longer counts.
            match self.committed.key_at(address)? {
                Some(holder) if self.pending.deleted.contains(&holder) => {}
                _ => return Ok(true),
            }
        }
        Ok(false)
    }

    /// The records a document replacing `duplicate` (a reference with a key) takes over:
    /// its own (none when the index keeps none), and the ones it holds.
    pub fn records_of(&self, duplicate: &Duplicate) -> Result<(Option<String>, Vec<String>)> {
        let Some(key) = duplicate.key.as_deref() else {
            return Ok((None, Vec::new()));
        };
        let (version, held) = match duplicate.address {
            Some(address) => (
                self.committed.version_at(address)?,
                self.committed.records_at(address)?,
            ),
            None => (
                self.pending.added.get(key).copied().flatten(),
                self.pending.holdings.get(key).cloned().unwrap_or_default(),
            ),
        };
        let fields = self.committed.index().fields();
        let own = version.and_then(|version| fields.record_of(key, version));
        Ok((own, held))
    }

    /// The records of [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) the document of
    /// `key` the writer sees alive holds (none when it has none, or is deleted).
    pub fn holdings_of(&self, key: &str) -> Result<Vec<String>> {
        if self.pending.added.contains_key(key) {
            return Ok(self.pending.holdings.get(key).cloned().unwrap_or_default());
        }
        if self.pending.deleted.contains(key) || !self.committed.holds_records() {
            return Ok(Vec::new());
        }
        let mut held = Vec::new();
        for address in self.committed.with_key(key)? {
            held.extend(self.committed.records_at(address)?);
        }
        Ok(held)
    }

    /// The documents the writer sees alive holding a record of `key` (other than `key`'s
    /// own): their keys, and the addresses of the committed ones (`None` for a holder added
    /// since the last commit). Holders without a key are left out: they cannot be written
    /// again alone.
    pub fn holders_of_records_of(
        &self,
        key: &str,
    ) -> Result<Vec<(String, Option<tantivy::DocAddress>)>> {
        let fields = self.committed.index().fields();
        let mut holders: Vec<(String, Option<tantivy::DocAddress>)> = Vec::new();
        for holder in self.pending.holders.get(key).into_iter().flatten() {
            let holds = |record: &String| fields.key_of_record(record) == Some(key);
            let records = self.pending.holdings.get(holder);
            if holder != key
                && records.is_some_and(|records| records.iter().any(holds))
                && !holders.iter().any(|(other, _)| other == holder)
            {
                holders.push((holder.clone(), None));
            }
        }
        for address in self.committed.with_record_key(key)? {
            match self.committed.key_at(address)? {
                Some(holder) if holder != key && !self.touched(&holder) => {
                    holders.push((holder, Some(address)));
                }
                _ => {}
            }
        }
        Ok(holders)
    }

    /// The stored fields of the committed documents of `key`, when the writer sees them alive
    /// (none when the key was added or deleted since the last commit): where the texts of
    /// the records they hold are kept.
    pub fn committed_docs_of(&self, key: &str) -> Result<Vec<TantivyDocument>> {
        if self.touched(key) || !self.committed.holds_records() {
            return Ok(Vec::new());
        }
        let addresses = self.committed.with_key(key)?;
        (addresses.into_iter())
            .map(|address| self.committed.doc_at(address))
            .collect()
    }

    /// The stored fields of the committed documents flagged as near-duplicates of the
    /// document of `key`, with their keys, leaving out those whose key was added or deleted
    /// since the last commit (the writer knows those as they are now) and those without a
    /// key (which cannot be written again alone).
    pub fn flagged_against(&self, key: &str) -> Result<Vec<(String, TantivyDocument)>> {
        let mut found = Vec::new();
        for address in self.committed.flagged_against(key)? {
            let Some(copy) = self.committed.key_at(address)? else {
                continue;
            };
            if !self.touched(&copy) {
                found.push((copy, self.committed.doc_at(address)?));
            }
        }
        Ok(found)
    }

    /// The stored fields of the committed document at `address`.
    pub fn doc_at(&self, address: tantivy::DocAddress) -> Result<TantivyDocument> {
        self.committed.doc_at(address)
    }

    /// Whether a document of `key` was added or deleted since the last commit: the
    /// committed documents of that key no longer say what the writer sees.
    pub fn touched(&self, key: &str) -> bool {
        self.pending.added.contains_key(key) || self.pending.deleted.contains(key)
    }

    /// Records the [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) values of a document
    /// added since the last commit, whose key is `holder`.
    pub fn note_records(&mut self, holder: Option<&str>, records: Vec<String>) {
        if records.is_empty() {
            return;
        }
        for record in &records {
            self.pending
                .records
                .insert(record.clone(), holder.map(str::to_owned));
        }
        if let Some(holder) = holder {
            let fields = self.committed.index().fields();
            for key in records
                .iter()
                .filter_map(|record| fields.key_of_record(record))
            {
                let holders = self.pending.holders.entry(key.to_owned()).or_default();
                holders.push(holder.to_owned());
            }
            self.pending.holdings.insert(holder.to_owned(), records);
        }
    }

    /// Whether the reference `judged` is a document with `key` (by key hash).
    pub fn has_key(&self, judged: &Judged, key: &str) -> bool {
        self.key_hash_of(judged.id) == key_hash(key.as_bytes())
    }

    /// The key hash of `slot`.
    fn key_hash_of(&self, slot: u32) -> u64 {
        match &self.segments {
            Some(segments) if slot < self.base => segments.key_hash(slot),
            _ => self.slot_keys[(slot - self.base) as usize],
        }
    }

    /// The fingerprint of `slot`.
    fn fingerprint_of(&self, slot: u32) -> Fingerprint {
        match &self.segments {
            Some(segments) if slot < self.base => segments.fingerprint(slot),
            _ => self.fingerprints[(slot - self.base) as usize],
        }
    }

    /// The references of `scope` that `matcher` judges near-duplicates of a document with
    /// `fingerprint` and `signature`, nearest first (then in slot order), into `judged`.
    /// Committed references' signatures are read from the last commit.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when a signature cannot be read.
    pub fn near(
        &mut self,
        (fingerprint, signature, scope): (Fingerprint, Option<&Signature>, Option<u64>),
        matcher: &Matcher,
        judged: &mut Vec<Judged>,
    ) -> Result<()> {
        judged.clear();
        let (fingerprints, base) = (&self.fingerprints, self.base);
        find_candidates(
            (&self.lookup, self.bands.as_ref()),
            (fingerprint, signature.map(Signature::values)),
            |id| fingerprints[(id - base) as usize],
            matcher,
            (&mut self.band_hits, &mut self.matches),
        );
        if let Some(segments) = &mut self.segments {
            let pending = self.matches.len();
            segments.candidates(
                (fingerprint, signature.map(Signature::values)),
                matcher,
                &mut self.matches,
            );
            if self.matches.len() > pending {
                // Nearest first; at one distance in add order, as when every reference is
                // in memory: the committed ones by their sequence, then those added since.
                let segments = &*segments;
                self.matches.sort_by_cached_key(|found| {
                    let order = match found.id < base {
                        true => (0, segments.sequence(found.id)),
                        false => (1, 0),
                    };
                    (found.distance, order, found.id)
                });
            }
        }
        let ours = signature.map(Signature::values);
        for index in 0..self.matches.len() {
            let found = self.matches[index];
            let scope_of = match &self.segments {
                Some(segments) if found.id < base => segments.scope(found.id),
                _ => match self.slot_scopes.get((found.id - base) as usize) {
                    Some(&theirs) => theirs,
                    None => scope,
                },
            };
            if scope_of != scope {
                continue;
            }
            let mut read = None;
            let theirs = match &self.segments {
                Some(segments) if found.id < base => {
                    self.signature.resize(self.signatures.hashes(), 0);
                    let signed = !self.signature.is_empty()
                        && segments.read_signature(found.id, &mut self.signature);
                    signed.then_some(&self.signature[..])
                }
                _ => {
                    let identity = (self.fingerprint_of(found.id), self.key_hash_of(found.id));
                    self.signatures
                        .get(found.id, identity, &mut self.committed, &mut read)?
                }
            };
            if let Some(near) = matcher.judge(found.distance, ours, theirs) {
                judged.push(Judged {
                    id: found.id,
                    distance: found.distance,
                    score: near.similarity,
                });
            }
        }
        Ok(())
    }

    /// Adds a reference document, added since the last commit.
    pub fn insert(
        &mut self,
        (fingerprint, signature, scope): (Fingerprint, Option<Signature>, Option<u64>),
        (key, version): (Option<&str>, Option<u64>),
    ) {
        let slot = self.base + self.slot_keys.len() as u32;
        self.slot_keys
            .push(key.map_or(NO_KEY, |key| key_hash(key.as_bytes())));
        if self
            .committed
            .index()
            .settings()
            .get_scope_field()
            .is_some()
        {
            self.slot_scopes.push(scope);
        }
        if let (Some(bands), Some(signature)) = (&mut self.bands, &signature) {
            if !is_empty_set(signature.values()) {
                bands.insert(slot, signature.values());
            }
        }
        self.signatures.push(slot, signature);
        self.lookup.insert(slot, fingerprint);
        self.fingerprints.push(fingerprint);
        self.pending.slots.insert(slot, key.map(str::to_owned));
        self.note_added_key(key, version);
    }

    /// Records a key added since the last commit with the version of its text, for a
    /// document that is not a reference.
    pub fn note_added_key(&mut self, key: Option<&str>, version: Option<u64>) {
        if let Some(key) = key {
            self.pending.added.insert(key.to_owned(), version);
        }
    }

    /// Forgets every document with `key`, committed or not, as a delete by that key does.
    pub fn delete_key(&mut self, key: &str) -> Result<()> {
        self.pending.added.remove(key);
        for record in self.pending.holdings.remove(key).unwrap_or_default() {
            if self
                .pending
                .records
                .get(&record)
                .is_some_and(|holder| holder.as_deref() == Some(key))
            {
                self.pending.records.remove(&record);
            }
        }
        let pending: Vec<u32> = self
            .pending
            .slots
            .iter()
            .filter(|(_, slot_key)| slot_key.as_deref() == Some(key))
            .map(|(&slot, _)| slot)
            .collect();
        for slot in pending {
            self.pending.slots.remove(&slot);
            self.signatures.forget_pending(slot);
            self.remove_slot(slot);
        }
        if self.pending.deleted.insert(key.to_owned()) {
            self.forget_committed(key)?;
        }
        Ok(())
    }

    /// Forgets the committed references with `key`.
    fn forget_committed(&mut self, key: &str) -> Result<()> {
        let hash = key_hash(key.as_bytes());
        if let Some(segments) = &mut self.segments {
            for address in self.committed.with_key(key)? {
                if let Some(id) = segments.reference_at(address) {
                    segments.remove(id);
                }
            }
            return Ok(());
        }
        {
            for address in self.committed.with_key(key)? {
                let Some(fingerprint) = fingerprint_at(self.searcher(), address)? else {
                    continue;
                };
                self.lookup.query_into(fingerprint, 0, &mut self.matches);
                for found in std::mem::take(&mut self.matches) {
                    let slot = found.id;
                    if self.slot_keys[(slot - self.base) as usize] == hash
                        && !self.pending.slots.contains_key(&slot)
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
    pub fn describe(&mut self, found: Judged) -> Result<Duplicate> {
        let Judged {
            id: slot,
            distance,
            score,
        } = found;
        let fingerprint = self.fingerprint_of(slot);
        let (key, address) = match self.pending.slots.get(&slot) {
            Some(key) => (key.clone(), None),
            None if slot < self.base => {
                let address = self
                    .segments
                    .as_ref()
                    .map(|segments| segments.address(slot));
                let key = match address {
                    Some(address) => self.committed.key_at(address)?,
                    None => None,
                };
                (key, address)
            }
            None => {
                let identity = (fingerprint, self.slot_keys[slot as usize]);
                let address = self.committed.address_of(slot, identity)?;
                let key = match address {
                    Some(address) => self.committed.key_at(address)?,
                    None => None,
                };
                (key, address)
            }
        };
        Ok(Duplicate {
            key,
            address,
            fingerprint,
            distance,
            similarity: score,
        })
    }

    /// The documents added since the last commit are committed now, in the commit
    /// `searcher` shows.
    pub fn commit(&mut self, searcher: Searcher, matcher: &Matcher) -> Result<()> {
        if let Some(segments) = self.segments.take() {
            // The references added since are in the new segments' tables now.
            let index = self.committed.index().clone();
            let filter = Some(segments.into_filter());
            *self = WriterView::build_from(index, searcher, matcher, filter)?;
            return Ok(());
        }
        self.committed.reload(searcher);
        self.signatures.commit();
        self.pending = Pending::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::Schema;
    use tantivy::Index;

    use super::*;
    use crate::matching::MatchingSettings;
    use crate::plugin::{text_field_options, DedupSettings};

    /// The view of an empty index with keys, judging within `k` bits (no verification).
    fn view(k: u32) -> (WriterView, Matcher) {
        let settings = DedupSettings::new(["body"])
            .key_field("url")
            .matching(MatchingSettings::default().verification(None));
        let mut schema = Schema::builder();
        schema.add_text_field("body", text_field_options());
        settings.add_fields(&mut schema).unwrap();
        let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
        let searcher = index.index().reader().unwrap().searcher();
        let matcher = Matcher::new(k, None);
        (
            WriterView::build(index, searcher, &matcher).unwrap(),
            matcher,
        )
    }

    fn near(view: &mut WriterView, matcher: &Matcher, bits: u64) -> Vec<(u32, u32)> {
        let mut judged = Vec::new();
        view.near((Fingerprint(bits), None, None), matcher, &mut judged)
            .unwrap();
        judged.iter().map(|j| (j.id, j.distance)).collect()
    }

    /// Texts of 12 words of a vocabulary of 40: many pairs share most words.
    fn texts(seed: u64, count: usize) -> Vec<String> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let base: Vec<String> = (0..12).map(|_| format!("w{}", next() % 40)).collect();
        (0..count)
            .map(|_| {
                let mut words = base.clone();
                for _ in 0..next() % 5 {
                    words[(next() % 12) as usize] = format!("w{}", next() % 40);
                }
                words.join(" ")
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// The committed references probed in the segments' tables are those the tables in
        /// memory hold, found in the same order: flagged, deleted and added-since references
        /// included.
        #[test]
        fn segment_tables_find_what_memory_finds(seed in proptest::prelude::any::<u64>()) {
            use crate::plugin::{DedupWriter, Policy};
            let settings = DedupSettings::new(["body"]).key_field("url").flagging(true);
            let mut schema = Schema::builder();
            let body = schema.add_text_field("body", text_field_options());
            settings.add_fields(&mut schema).unwrap();
            let schema = schema.build();
            let url = schema.get_field("url").unwrap();
            let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
            let texts = texts(seed, 90);
            let tantivy_writer = index.index().writer_with_num_threads(1, 15_000_000).unwrap();
            let writer = DedupWriter::new(index.clone(), tantivy_writer, Policy::Flag).unwrap();
            for (i, text) in texts[..60].iter().enumerate() {
                let key = format!("k{}", i % 50);
                let _ = writer.add(tantivy::doc!(body => text.as_str(), url => key)).unwrap();
                if i % 20 == 19 {
                    writer.commit().unwrap();
                }
            }
            writer.delete_key("k3").unwrap();
            writer.commit().unwrap();
            writer.wait_merging_threads().unwrap();
            let searcher = index.index().reader().unwrap().searcher();
            let matcher = index.matcher(index.distance());
            let mut segmented = WriterView::build(index.clone(), searcher.clone(), &matcher).unwrap();
            proptest::prop_assert!(segmented.segments.is_some());
            let mut memory = WriterView::in_memory(index.clone(), searcher, &matcher).unwrap();
            for view in [&mut segmented, &mut memory] {
                for (i, text) in texts[60..75].iter().enumerate() {
                    let (fingerprint, signature) = index.fingerprint_and_signature(text);
                    if let Some(fingerprint) = fingerprint {
                        let key = format!("p{i}");
                        view.insert((fingerprint, signature, None), (Some(&key), None));
                    }
                }
                for key in ["k7", "k8", "p2"] {
                    view.delete_key(key).unwrap();
                }
            }
            proptest::prop_assert_eq!(segmented.len(), memory.len());
            let mut total = 0;
            for text in &texts {
                let (Some(fingerprint), signature) = index.fingerprint_and_signature(text) else {
                    continue;
                };
                let mut found = Vec::new();
                for view in [&mut segmented, &mut memory] {
                    let mut judged = Vec::new();
                    view.near((fingerprint, signature.as_ref(), None), &matcher, &mut judged).unwrap();
                    let described: Vec<_> = judged
                        .into_iter()
                        .map(|j| {
                            let d = view.describe(j).unwrap();
                            (d.key, d.distance, d.similarity.map(f64::to_bits))
                        })
                        .collect();
                    found.push(described);
                }
                proptest::prop_assert_eq!(&found[0], &found[1]);
                total += found[0].len();
            }
            // Texts this alike find references (not a comparison of two empty answers).
            proptest::prop_assert!(total >= texts.len() / 2, "{total} found");
        }
    }

    #[test]
    fn references_added_since_the_commit_are_found_nearest_first() {
        let (mut view, matcher) = view(3);
        view.insert((Fingerprint(0b0111), None, None), (Some("far"), Some(1)));
        view.insert((Fingerprint(0b0001), None, None), (Some("near"), Some(2)));
        view.insert((Fingerprint(u64::MAX), None, None), (None, None));
        assert_eq!(view.len(), 3);
        assert_eq!(near(&mut view, &matcher, 0), [(1, 1), (0, 3)]);
        let duplicate = view
            .describe(Judged {
                id: 1,
                distance: 1,
                score: None,
            })
            .unwrap();
        assert_eq!(duplicate.key.as_deref(), Some("near"));
        assert_eq!(duplicate.address, None, "not committed: no address yet");
    }

    #[test]
    fn keys_added_and_deleted_before_the_commit_are_exact() {
        let (mut view, matcher) = view(3);
        view.insert((Fingerprint(0), None, None), (Some("a"), Some(7)));
        view.note_added_key(Some("flagged"), Some(8));
        assert_eq!(view.versions_of("a").unwrap(), [Some(7)]);
        assert_eq!(view.versions_of("flagged").unwrap(), [Some(8)]);
        view.delete_key("a").unwrap();
        assert!(view.versions_of("a").unwrap().is_empty());
        assert!(
            near(&mut view, &matcher, 0).is_empty(),
            "deleted, no reference"
        );
        assert_eq!(view.len(), 0);
        // Added again after the delete: the new version.
        view.note_added_key(Some("a"), Some(9));
        assert_eq!(view.versions_of("a").unwrap(), [Some(9)]);
        view.commit(view.searcher().clone(), &matcher).unwrap();
        assert!(
            view.versions_of("flagged").unwrap().is_empty(),
            "never committed here"
        );
    }
}
