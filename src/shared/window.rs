//! [`SharedRegistry::decide_window`]: the protocol of [`SharedRegistry`], a window of
//! documents at a time, each step one pipeline for the whole window with one script (or one
//! command) a group of keys ([`slots`](super::slots)): claims, keys, one counter increment
//! for all their numbers, numbers and candidate keys, candidates' records (each read once
//! for the window), decisions. A document waits only for documents numbered before it, as
//! one at a time.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use redis::cluster::cluster_pipe;
use redis::Commands;

use super::keys::{candidate_keys, check_id, list_entry, parse_list, CandidateKeys, ListKey};
use super::record::{self, Record};
use super::registry::{short_reply, Nearest, SharedDecision, SharedRegistry, Verdict, POLL};
use super::scripts::reloading;
use super::slots::{
    first_slot_of_id, group_of_id, handle, list_key, place_of_handle, records_key, Handle,
};
use super::space::LAYOUT;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;

/// A document of a window: its id, fingerprint and signature.
///
/// Available with the `cluster` feature.
pub type WindowDocument<'a> = (&'a str, Fingerprint, Option<&'a [u32]>);

/// A document of the window claimed for this writer, on its way to a decision.
pub(super) struct Claimed<'a> {
    pub(super) at: usize,
    pub(super) id: &'a str,
    pub(super) fingerprint: Fingerprint,
    pub(super) signature: Option<&'a [u32]>,
    /// Where its record is, once claimed.
    pub(super) handle: Handle,
    pub(super) keys: CandidateKeys,
    /// Its record as the claim wrote it.
    pub(super) record: Vec<u8>,
    pub(super) seq: u64,
}

/// The documents under candidate keys, by key.
type Listed = HashMap<ListKey, Vec<(Option<Fingerprint>, Handle)>>;

impl SharedRegistry {
    /// Decides each of `documents` (unique ids; see [`decide`](Self::decide)) against every
    /// writer's documents, in a few pipelined steps for the whole window; the decisions in
    /// the order given. Documents of the window near each other are decided as if one at a
    /// time, in the order of their numbers. An id given twice, or one another writer
    /// holds, is decided on its own after the window.
    ///
    /// # Errors
    /// [`Error::Cluster`] fails the whole window; [`Error::KeyTooLong`] is one document's.
    pub fn decide_window(
        &self,
        documents: &[WindowDocument<'_>],
    ) -> Result<Vec<Result<SharedDecision>>> {
        self.check_lease()?;
        let mut out: Vec<Option<Result<SharedDecision>>> =
            (0..documents.len()).map(|_| None).collect();
        let number = self.number()?;
        let mut seen = HashSet::new();
        let mut claiming = Vec::new();
        let mut alone = Vec::new();
        for (at, &(id, fingerprint, signature)) in documents.iter().enumerate() {
            match check_id(id) {
                Err(error) => out[at] = Some(Err(error)),
                Ok(()) if !seen.insert(id) => alone.push(at),
                Ok(()) => claiming.push(Claimed {
                    at,
                    id,
                    fingerprint,
                    signature,
                    handle: 0,
                    keys: candidate_keys(&self.matcher, fingerprint, signature),
                    record: record::registration(id, number, fingerprint, signature),
                    seq: 0,
                }),
            }
        }
        // 1. The claims.
        let found = self.claim_all(&claiming)?;
        let mut claimed = Vec::new();
        for (mut doc, (taken, handle, bytes)) in claiming.into_iter().zip(found) {
            match taken {
                true => {
                    doc.handle = handle;
                    doc.record = bytes;
                    claimed.push(doc);
                }
                false => alone.push(doc.at),
            }
        }
        if !claimed.is_empty() {
            self.decide_claimed(&mut claimed, &mut out)?;
        }
        // Decided before, another writer's, or given twice: one at a time.
        alone.sort_unstable();
        for at in alone {
            let (id, fingerprint, signature) = documents[at];
            out[at] = Some(self.decide(id, fingerprint, signature));
        }
        Ok(out
            .into_iter()
            .map(|d| d.expect("every document decided"))
            .collect())
    }

    /// Claims the records of `docs` (their `record`s, registrations), one script a group:
    /// for each, whether it was taken, its handle, and the record written (taken) or found.
    pub(super) fn claim_all(&self, docs: &[Claimed<'_>]) -> Result<Vec<(bool, Handle, Vec<u8>)>> {
        let mut groups: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (n, doc) in docs.iter().enumerate() {
            groups.entry(group_of_id(doc.id)).or_default().push(n);
        }
        let lease = self.lease.as_millis() as u64;
        let number = self.number()?.to_be_bytes();
        let replies: Vec<Vec<Vec<u8>>> = self.store.run("cannot register documents", |c| {
            let mut pipe = cluster_pipe();
            for (&group, members) in &groups {
                let script = (pipe.cmd("EVALSHA").arg(&self.shas.claim))
                    .arg(1)
                    .arg(records_key(&self.namespace, group))
                    .arg(&number[..])
                    .arg(lease)
                    .arg(LAYOUT);
                for &n in members {
                    (script.arg(docs[n].id))
                        .arg(first_slot_of_id(docs[n].id))
                        .arg(&docs[n].record);
                }
            }
            {
                let result = pipe.query(c);
                reloading(c, result)
            }
        })?;
        if replies.len() != groups.len() {
            return Err(short_reply("claims"));
        }
        let mut out: Vec<Option<(bool, Handle, Vec<u8>)>> = (0..docs.len()).map(|_| None).collect();
        for ((&group, members), reply) in groups.iter().zip(replies) {
            if reply.len() != 3 * members.len() {
                return Err(short_reply("claims"));
            }
            let mut reply = reply.into_iter();
            for &n in members {
                let taken = reply.next().is_some_and(|flag| flag == b"1");
                let slot = (reply.next())
                    .and_then(|slot| std::str::from_utf8(&slot).ok()?.parse().ok())
                    .ok_or_else(|| short_reply("claims"))?;
                out[n] = Some((taken, handle(group, slot), reply.next().unwrap_or_default()));
            }
        }
        Ok(out
            .into_iter()
            .map(|o| o.expect("one a document"))
            .collect())
    }

    /// Steps 2 to 7 for the documents `claimed` (their records written).
    pub(super) fn decide_claimed(
        &self,
        claimed: &mut [Claimed<'_>],
        out: &mut [Option<Result<SharedDecision>>],
    ) -> Result<()> {
        // 2. Their keys: a script a group.
        type Group = BTreeMap<u64, Vec<(i64, Vec<u8>)>>;
        let mut groups: BTreeMap<u64, Group> = BTreeMap::new();
        for doc in claimed.iter() {
            for key in &doc.keys.lists {
                let lists = groups.entry(key.group).or_default();
                let entry = list_entry(doc.handle, doc.fingerprint, key);
                lists
                    .entry(key.bucket)
                    .or_default()
                    .push((key.field, entry));
            }
        }
        self.store.run("cannot register documents' keys", |c| {
            let mut pipe = cluster_pipe();
            for (&group, lists) in &groups {
                let script = (pipe.cmd("EVALSHA").arg(&self.shas.register)).arg(lists.len());
                for &bucket in lists.keys() {
                    script.arg(list_key(&self.namespace, group, bucket));
                }
                for entries in lists.values() {
                    script.arg(entries.len());
                    for (field, entry) in entries {
                        script.arg(*field).arg(entry.as_slice());
                    }
                }
                script.ignore();
            }
            {
                let result = pipe.query::<()>(c);
                reloading(c, result)
            }
        })?;
        // 3. Their numbers, in window order, after all their keys.
        let last: u64 = self.store.run("cannot number documents", |c| {
            c.incr(self.seq_key(), claimed.len())
        })?;
        let first = last + 1 - claimed.len() as u64;
        for (n, doc) in claimed.iter_mut().enumerate() {
            doc.seq = first + n as u64;
        }
        // 4. Numbers into records, then the candidate keys (each read once).
        let numbered: Vec<Vec<u8>> = (claimed.iter())
            .map(|doc| record::numbered(&doc.record, doc.seq))
            .collect();
        let updates: Vec<(Handle, &[u8], &[u8])> = (claimed.iter().zip(&numbered))
            .map(|(doc, new)| (doc.handle, doc.record.as_slice(), new.as_slice()))
            .collect();
        let keys: Vec<&ListKey> = claimed.iter().flat_map(|doc| &doc.keys.lists).collect();
        let listed = self.read_lists(&keys, &updates)?;
        let reach = self.matcher.reach();
        let candidates: Vec<BTreeSet<Handle>> = (claimed.iter())
            .map(|doc| {
                (doc.keys.lists.iter())
                    .filter_map(|key| listed.get(key))
                    .flatten()
                    .filter(|&&(theirs, other)| {
                        other != doc.handle
                            && theirs.is_none_or(|theirs| doc.fingerprint.distance(theirs) <= reach)
                    })
                    .map(|&(_, other)| other)
                    .collect()
            })
            .collect();
        // 5. The candidates' records, each read once for the window (but this window's).
        let ours: HashMap<Handle, usize> = claimed
            .iter()
            .enumerate()
            .map(|(n, doc)| (doc.handle, n))
            .collect();
        let foreign: BTreeSet<Handle> = candidates
            .iter()
            .flatten()
            .copied()
            .filter(|handle| !ours.contains_key(handle))
            .collect();
        let mut records: HashMap<Handle, (Option<Record>, u64)> = HashMap::new();
        self.read_aged(foreign.into_iter().collect(), &mut records)?;
        // 6. Each judged in number order, this window's by their decisions here.
        let mut decided: Vec<Option<Nearest>> = Vec::with_capacity(claimed.len());
        for (n, doc) in claimed.iter().enumerate() {
            let mut best: Option<(u64, Nearest)> = None;
            let mut waiting: BTreeSet<Handle> = BTreeSet::new();
            for other in &candidates[n] {
                if let Some(&m) = ours.get(other) {
                    // Numbered before, and admitted here: as its record will say.
                    let theirs = &claimed[m];
                    if m < n && decided[m].is_none() {
                        let distance = doc.fingerprint.distance(theirs.fingerprint);
                        if let Some(near) =
                            self.matcher
                                .judge(distance, doc.signature, theirs.signature)
                        {
                            consider(
                                &mut best,
                                theirs.seq,
                                Nearest {
                                    id: theirs.id.to_owned(),
                                    fingerprint: theirs.fingerprint,
                                    distance,
                                    similarity: near.similarity,
                                },
                            );
                        }
                    }
                    continue;
                }
                waiting.insert(*other);
            }
            while !waiting.is_empty() {
                let mut still = BTreeSet::new();
                for other in &waiting {
                    let (record, age) = records.get(other).cloned().unwrap_or((None, 0));
                    let id = record.as_ref().map(|r| r.id.clone()).unwrap_or_default();
                    match self.judge(doc.seq, doc.fingerprint, doc.signature, record, age) {
                        Verdict::Wait => {
                            still.insert(*other);
                        }
                        Verdict::Admitted {
                            seq,
                            fingerprint,
                            distance,
                            similarity,
                        } => {
                            consider(
                                &mut best,
                                seq,
                                Nearest {
                                    id,
                                    fingerprint,
                                    distance,
                                    similarity,
                                },
                            );
                        }
                        Verdict::Irrelevant => {}
                    }
                }
                waiting = still;
                if !waiting.is_empty() {
                    std::thread::sleep(POLL);
                    self.read_aged(waiting.iter().copied().collect(), &mut records)?;
                }
            }
            decided.push(best.map(|(_, near)| near));
        }
        // 7. The decisions: each written where the record is still the one numbered here.
        let finals: Vec<Vec<u8>> = (numbered.iter().zip(&decided))
            .map(|(bytes, by)| {
                record::decided(
                    bytes,
                    by.as_ref().map(|near| {
                        (
                            near.id.as_str(),
                            near.fingerprint,
                            near.distance,
                            near.similarity,
                        )
                    }),
                )
            })
            .collect();
        let updates: Vec<(Handle, &[u8], &[u8])> = (claimed.iter().zip(&numbered).zip(&finals))
            .map(|((doc, old), new)| (doc.handle, old.as_slice(), new.as_slice()))
            .collect();
        self.update_records(&updates)?;
        for (doc, by) in claimed.iter().zip(decided) {
            out[doc.at] = Some(Ok(match by {
                Some(near) => SharedDecision::Rejected {
                    seq: doc.seq,
                    by: near.id,
                    fingerprint: near.fingerprint,
                    distance: near.distance,
                    similarity: near.similarity,
                },
                None => SharedDecision::Admitted {
                    seq: doc.seq,
                    again: false,
                },
            }));
        }
        Ok(())
    }

    /// Writes each of `updates` (a handle, the record expected, the new record) where the
    /// record is the one expected: a script a group.
    pub(super) fn update_records(&self, updates: &[(Handle, &[u8], &[u8])]) -> Result<()> {
        let pipe = self.update_pipe(updates);
        self.store.run("cannot record decisions", |c| {
            let result = pipe.query::<()>(c);
            reloading(c, result)
        })
    }

    /// Writes `new` as the record at `handle` where the record is `old`: whether it holds
    /// `new` now.
    pub(super) fn compare_and_set(&self, handle: Handle, old: &[u8], new: &[u8]) -> Result<bool> {
        let (group, slot) = place_of_handle(handle);
        let set: Vec<i64> = self.store.run("cannot give a document up", |c| {
            let result = redis::cmd("EVALSHA")
                .arg(&self.shas.update)
                .arg(1)
                .arg(records_key(&self.namespace, group))
                .arg(slot)
                .arg(old)
                .arg(new)
                .query(c);
            reloading(c, result)
        })?;
        Ok(set == [1])
    }

    /// The pipeline of [`update_records`](Self::update_records), its replies ignored.
    fn update_pipe(&self, updates: &[(Handle, &[u8], &[u8])]) -> redis::cluster::ClusterPipeline {
        type Group<'b> = Vec<(u32, &'b [u8], &'b [u8])>;
        let mut groups: BTreeMap<u64, Group<'_>> = BTreeMap::new();
        for &(handle, old, new) in updates {
            let (group, slot) = place_of_handle(handle);
            groups.entry(group).or_default().push((slot, old, new));
        }
        let mut pipe = cluster_pipe();
        for (&group, updates) in &groups {
            let script = (pipe.cmd("EVALSHA").arg(&self.shas.update))
                .arg(1)
                .arg(records_key(&self.namespace, group));
            for (slot, old, new) in updates {
                script.arg(*slot).arg(*old).arg(*new);
            }
            script.ignore();
        }
        pipe
    }

    /// The documents listed under `keys`, one `HMGET` a list hash, after `updates` (as
    /// [`update_records`](Self::update_records)) in the same pipeline.
    pub(super) fn read_lists(
        &self,
        keys: &[&ListKey],
        updates: &[(Handle, &[u8], &[u8])],
    ) -> Result<Listed> {
        let mut hashes: BTreeMap<(u64, u64), BTreeMap<i64, ListKey>> = BTreeMap::new();
        for &&key in keys {
            hashes
                .entry((key.group, key.bucket))
                .or_default()
                .insert(key.field, key);
        }
        let mut pipe = match updates.is_empty() {
            true => cluster_pipe(),
            false => self.update_pipe(updates),
        };
        for (&(group, bucket), fields) in &hashes {
            pipe.cmd("HMGET")
                .arg(list_key(&self.namespace, group, bucket))
                .arg(fields.keys().copied().collect::<Vec<i64>>());
        }
        let values: Vec<Vec<Option<Vec<u8>>>> = self.store.run("cannot read candidates", |c| {
            let result = pipe.query(c);
            reloading(c, result)
        })?;
        if values.len() != hashes.len() {
            return Err(short_reply("candidates"));
        }
        let mut listed = Listed::new();
        for ((&(group, bucket), fields), values) in hashes.iter().zip(values) {
            if values.len() != fields.len() {
                return Err(short_reply("candidates"));
            }
            for ((&field, &key), value) in fields.iter().zip(values) {
                let Some(value) = value else { continue };
                let members = parse_list(&value, &key).ok_or_else(|| Error::Decode {
                    what: "a candidate key of the shared index",
                    source: format!(
                        "{} field {field}: not a list",
                        list_key(&self.namespace, group, bucket)
                    )
                    .into(),
                })?;
                listed.insert(key, members);
            }
        }
        Ok(listed)
    }

    /// Reads the records at `handles` with their ages into `records`, in one pipeline.
    fn read_aged(
        &self,
        handles: Vec<Handle>,
        records: &mut HashMap<Handle, (Option<Record>, u64)>,
    ) -> Result<()> {
        if handles.is_empty() {
            return Ok(());
        }
        let read = self.read_aged_records(&handles)?;
        records.extend(handles.into_iter().zip(read));
        Ok(())
    }

    /// The records at `handles` (`None` for one there is none at), each with its age in
    /// milliseconds by its Redis node's clock, one script a group: a lease is judged by the
    /// clock that stamped it, never a writer's.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::Decode`] for a record that does not read as one.
    pub(super) fn read_aged_records(
        &self,
        handles: &[Handle],
    ) -> Result<Vec<(Option<Record>, u64)>> {
        let mut groups: BTreeMap<u64, Vec<(usize, u32)>> = BTreeMap::new();
        for (n, &handle) in handles.iter().enumerate() {
            let (group, slot) = place_of_handle(handle);
            groups.entry(group).or_default().push((n, slot));
        }
        let replies: Vec<Vec<Option<Vec<u8>>>> = self.store.run("cannot read candidates", |c| {
            let mut pipe = cluster_pipe();
            for (&group, members) in &groups {
                let script = (pipe.cmd("EVALSHA").arg(&self.shas.read))
                    .arg(1)
                    .arg(records_key(&self.namespace, group));
                for &(_, slot) in members {
                    script.arg(slot);
                }
            }
            {
                let result = pipe.query(c);
                reloading(c, result)
            }
        })?;
        if replies.len() != groups.len() {
            return Err(short_reply("candidates' records"));
        }
        let mut out: Vec<(Option<Record>, u64)> = (0..handles.len()).map(|_| (None, 0)).collect();
        for (members, reply) in groups.values().zip(replies) {
            if reply.len() != members.len() + 1 {
                return Err(short_reply("candidates' records"));
            }
            let mut reply = reply.into_iter();
            let now: u64 = (reply.next().flatten())
                .and_then(|now| std::str::from_utf8(&now).ok()?.parse().ok())
                .unwrap_or(0);
            for (&(n, slot), bytes) in members.iter().zip(reply) {
                if let Some(bytes) = bytes {
                    let record = record::read(&format!("slot {slot}"), &bytes)?;
                    let age = now.saturating_sub(record.at);
                    out[n] = (Some(record), age);
                }
            }
        }
        Ok(out)
    }
}

/// Keeps `near` (numbered `seq`) when it is numbered before the best so far.
fn consider(best: &mut Option<(u64, Nearest)>, seq: u64, near: Nearest) {
    if best.as_ref().is_none_or(|(first, _)| seq < *first) {
        *best = Some((seq, near));
    }
}
