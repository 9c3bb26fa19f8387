//! [`SharedRegistry::decide_window`]: the protocol of [`SharedRegistry`], a window of
//! documents at a time, each step one pipeline for the whole window: claims, keys, one
//! counter increment for all their numbers, numbers and candidate keys, candidates'
//! records (each read once for the window), decisions. A document waits only for
//! documents numbered before it, as one at a time.

use std::collections::{BTreeSet, HashMap, HashSet};

use redis::cluster::cluster_pipe;
use redis::Commands;

use super::keys::{
    band_entry, candidate_keys, member, parse_band, parse_member, CandidateKeys, ADD_MEMBER,
};
use super::record::{self, Record};
use super::registry::{short_reply, Nearest, SharedDecision, SharedRegistry, Verdict, CLAIM, POLL};
use crate::error::{Error, Result};
use crate::Fingerprint;

/// A document of a window: its id, fingerprint and signature.
pub type WindowDocument<'a> = (&'a str, Fingerprint, Option<&'a [u32]>);

/// A document of the window claimed for this writer, on its way to a decision.
struct Claimed<'a> {
    at: usize,
    id: &'a str,
    fingerprint: Fingerprint,
    signature: Option<&'a [u32]>,
    member: Vec<u8>,
    keys: CandidateKeys,
    seq: u64,
}

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
        let mut seen = HashSet::new();
        let mut claiming = Vec::new();
        let mut alone = Vec::new();
        for (at, &(id, fingerprint, signature)) in documents.iter().enumerate() {
            match member(id, fingerprint) {
                Err(error) => out[at] = Some(Err(error)),
                Ok(_) if !seen.insert(id) => alone.push(at),
                Ok(member) => claiming.push(Claimed {
                    at,
                    id,
                    fingerprint,
                    signature,
                    member,
                    keys: candidate_keys(&self.namespace, &self.matcher, fingerprint, signature),
                    seq: 0,
                }),
            }
        }
        // 1. The claims.
        let lease = self.lease.as_millis() as u64;
        let found: Vec<Vec<Vec<u8>>> = self.store.run("cannot register documents", |c| {
            let mut pipe = cluster_pipe();
            for doc in &claiming {
                let fields = record::fields(&self.node, doc.fingerprint, doc.signature);
                let script = pipe
                    .cmd("EVAL")
                    .arg(CLAIM)
                    .arg(1)
                    .arg(self.record_key(doc.id));
                script.arg(&self.node).arg(lease);
                for (field, value) in &fields {
                    script.arg(*field).arg(value);
                }
            }
            pipe.query(c)
        })?;
        if found.len() != claiming.len() {
            return Err(short_reply("claims"));
        }
        let mut claimed = Vec::new();
        for (doc, found) in claiming.into_iter().zip(found) {
            match found.is_empty() {
                true => claimed.push(doc),
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

    /// Steps 2 to 7 for the documents `claimed` (their records written).
    fn decide_claimed(
        &self,
        claimed: &mut [Claimed<'_>],
        out: &mut [Option<Result<SharedDecision>>],
    ) -> Result<()> {
        // 2. Their keys, and this writer's set.
        let entries: Vec<Vec<u8>> = claimed.iter().map(|doc| band_entry(&doc.member)).collect();
        let new: Vec<bool> = self.store.run("cannot register documents' keys", |c| {
            let mut pipe = cluster_pipe();
            for (doc, entry) in claimed.iter().zip(&entries) {
                for key in &doc.keys.blocks {
                    pipe.sadd(key, &doc.member).ignore();
                }
                for band in &doc.keys.bands {
                    pipe.hset_nx(&band.bucket, band.field, entry);
                }
                pipe.sadd(self.node_key(), doc.id).ignore();
            }
            pipe.query(c)
        })?;
        let bands: usize = claimed.iter().map(|doc| doc.keys.bands.len()).sum();
        if new.len() != bands {
            return Err(short_reply("documents' keys"));
        }
        let mut shared = Vec::new();
        let mut new = new.into_iter();
        for (doc, entry) in claimed.iter().zip(&entries) {
            for band in &doc.keys.bands {
                if !new.next().unwrap_or(true) {
                    shared.push((band, entry));
                }
            }
        }
        if !shared.is_empty() {
            self.store.run("cannot register documents' keys", |c| {
                let mut pipe = cluster_pipe();
                for (band, entry) in &shared {
                    (pipe.cmd("EVAL").arg(ADD_MEMBER).arg(1).arg(&band.bucket))
                        .arg(band.field)
                        .arg(entry.as_slice())
                        .ignore();
                }
                pipe.query::<()>(c)
            })?;
        }
        // 3. Their numbers, in window order, after all their keys.
        let last: u64 = self.store.run("cannot number documents", |c| {
            c.incr(self.seq_key(), claimed.len())
        })?;
        let first = last + 1 - claimed.len() as u64;
        for (n, doc) in claimed.iter_mut().enumerate() {
            doc.seq = first + n as u64;
        }
        // 4. Numbers into records, then the candidate keys (each read once).
        let blocks: Vec<&String> = (claimed.iter().flat_map(|doc| &doc.keys.blocks))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let fields: Vec<(&String, u32)> = (claimed.iter().flat_map(|doc| &doc.keys.bands))
            .map(|band| (&band.bucket, band.field))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        type Read = (Vec<Vec<Vec<u8>>>, Vec<Option<Vec<u8>>>);
        let (listed, values): Read = self.store.run("cannot read candidates", |c| {
            let mut pipe = cluster_pipe();
            for doc in claimed.iter() {
                pipe.hset(self.record_key(doc.id), "seq", doc.seq).ignore();
            }
            for key in &blocks {
                pipe.smembers(*key);
            }
            for (bucket, field) in &fields {
                pipe.hget(*bucket, *field);
            }
            let replies: Vec<redis::Value> = pipe.query(c)?;
            if replies.len() != blocks.len() + fields.len() {
                return Ok((Vec::new(), Vec::new()));
            }
            let (a, b) = replies.split_at(blocks.len());
            fn read<T: redis::FromRedisValue>(
                values: &[redis::Value],
            ) -> redis::RedisResult<Vec<T>> {
                Ok((values.iter())
                    .map(redis::from_redis_value_ref)
                    .collect::<std::result::Result<_, _>>()?)
            }
            let (listed, values) = (read(a)?, read(b)?);
            Ok((listed, values))
        })?;
        if listed.len() != blocks.len() || values.len() != fields.len() {
            return Err(short_reply("candidates"));
        }
        let undecodable = |what: String| Error::Decode {
            what: "a candidate key of the shared index",
            source: what.into(),
        };
        let mut members_of: HashMap<&str, Vec<(Fingerprint, String)>> = HashMap::new();
        for (key, listed) in blocks.iter().zip(listed) {
            let members = members_of.entry(key.as_str()).or_default();
            for bytes in listed {
                members.push(
                    parse_member(&bytes)
                        .ok_or_else(|| undecodable(format!("{key}: not a member")))?,
                );
            }
        }
        let mut band_members: HashMap<(&str, u32), Vec<(Fingerprint, String)>> = HashMap::new();
        for ((bucket, field), value) in fields.iter().zip(values) {
            let Some(value) = value else { continue };
            let members = parse_band(&value)
                .ok_or_else(|| undecodable(format!("{bucket} field {field}: not a list")))?;
            band_members.insert((bucket.as_str(), *field), members);
        }
        let reach = self.matcher.reach();
        let candidates: Vec<BTreeSet<String>> = (claimed.iter())
            .map(|doc| {
                let blocks = doc
                    .keys
                    .blocks
                    .iter()
                    .filter_map(|key| members_of.get(key.as_str()));
                let bands = (doc.keys.bands.iter())
                    .filter_map(|band| band_members.get(&(band.bucket.as_str(), band.field)));
                (blocks.chain(bands).flatten())
                    .filter(|(theirs, other)| {
                        other != doc.id && doc.fingerprint.distance(*theirs) <= reach
                    })
                    .map(|(_, other)| other.clone())
                    .collect()
            })
            .collect();
        // 5. The candidates' records, each read once for the window (but this window's).
        let ours: HashMap<&str, usize> = claimed
            .iter()
            .enumerate()
            .map(|(n, doc)| (doc.id, n))
            .collect();
        let foreign: BTreeSet<&String> = candidates
            .iter()
            .flatten()
            .filter(|id| !ours.contains_key(id.as_str()))
            .collect();
        let mut records: HashMap<String, (Option<Record>, u64)> = HashMap::new();
        self.read_aged(foreign.into_iter().cloned().collect(), &mut records)?;
        // 6. Each judged in number order, this window's by their decisions here.
        let mut decided: Vec<Option<Nearest>> = Vec::with_capacity(claimed.len());
        for (n, doc) in claimed.iter().enumerate() {
            let mut best: Option<(u64, Nearest)> = None;
            let mut waiting: BTreeSet<String> = BTreeSet::new();
            for other in &candidates[n] {
                if let Some(&m) = ours.get(other.as_str()) {
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
                                    id: other.clone(),
                                    fingerprint: theirs.fingerprint,
                                    distance,
                                    similarity: near.similarity,
                                },
                            );
                        }
                    }
                    continue;
                }
                waiting.insert(other.clone());
            }
            while !waiting.is_empty() {
                let mut still = BTreeSet::new();
                for other in &waiting {
                    let (record, age) = records.get(other).cloned().unwrap_or((None, 0));
                    match self.judge(doc.seq, doc.fingerprint, doc.signature, record, age) {
                        Verdict::Wait => {
                            still.insert(other.clone());
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
                                    id: other.clone(),
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
                    self.read_aged(waiting.iter().cloned().collect(), &mut records)?;
                }
            }
            decided.push(best.map(|(_, near)| near));
        }
        // 7. The decisions.
        self.store.run("cannot record decisions", |c| {
            let mut pipe = cluster_pipe();
            for (doc, by) in claimed.iter().zip(&decided) {
                let fields = Nearest::decision_fields(by.as_ref());
                pipe.hset_multiple(self.record_key(doc.id), &fields)
                    .ignore();
                if by.is_some() {
                    pipe.srem(self.node_key(), doc.id).ignore();
                }
            }
            pipe.query::<()>(c)
        })?;
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

    /// Reads the records of `ids` with their ages into `records`, in one pipeline.
    fn read_aged(
        &self,
        ids: Vec<String>,
        records: &mut HashMap<String, (Option<Record>, u64)>,
    ) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let read = self.read_aged_records(&ids)?;
        records.extend(ids.into_iter().zip(read));
        Ok(())
    }
}

/// Keeps `near` (numbered `seq`) when it is numbered before the best so far.
fn consider(best: &mut Option<(u64, Nearest)>, seq: u64, near: Nearest) {
    if best.as_ref().is_none_or(|(first, _)| seq < *first) {
        *best = Some((seq, near));
    }
}
