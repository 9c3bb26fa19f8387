//! [`SharedRegistry`]: register, number, then decide by number.

use std::collections::BTreeSet;
use std::time::Duration;

use redis::cluster::cluster_pipe;
use redis::{Commands, RedisResult};

use super::keys::{
    band_entry, candidate_keys, member, parse_band, parse_member, BandEntry, CandidateKeys,
    ADD_MEMBER,
};
use super::lease::Lease;
use super::record::{self, Hash, Record, State};
use super::space;
use super::store::Store;
use crate::error::{Error, Result};
use crate::lookup::MAX_TABLE_DISTANCE;
use crate::matching::{Matcher, MatchingSettings};
use crate::Fingerprint;

/// How long a registration may stay undecided before the others take its writer for dead
/// and the registration for given up.
const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The pause between two reads of a candidate that is not decided yet.
pub(super) const POLL: Duration = Duration::from_millis(5);

/// What [`SharedRegistry::decide`] says of a document.
#[derive(Debug, Clone, PartialEq)]
pub enum SharedDecision {
    /// No document numbered before it is an admitted near-duplicate: add it.
    Admitted {
        /// Its number from the cluster-wide counter.
        seq: u64,
        /// Admitted before, by this writer: a resumed run, or a new version of a document
        /// its shard holds (nothing was judged now).
        again: bool,
    },
    /// A document numbered before it, admitted, is a near-duplicate: leave it out.
    Rejected {
        /// Its number from the cluster-wide counter.
        seq: u64,
        /// The id of the admitted near-duplicate.
        by: String,
        /// The admitted near-duplicate's fingerprint.
        fingerprint: Fingerprint,
        /// The Hamming distance between their fingerprints.
        distance: u32,
        /// With verification, the pair's score (as `Matcher` judged it).
        similarity: Option<f64>,
    },
    /// Another writer (`node`) registered this id and admitted it: it is in that writer's
    /// shard (the same page fetched by two nodes). Leave it out here.
    Elsewhere {
        /// The writer that admitted it.
        node: String,
    },
}

/// A near-duplicate space shared by several writers, each with its own shard, in Redis
/// Cluster, under the `Reject` policy: of every group of near-duplicates added by any
/// writer, the first (by the cluster's numbering) is admitted, the others rejected.
///
/// **The protocol.** To decide a document `d`, its writer
/// 1. writes `d`'s record (fingerprint, signature, *pending*, the time) and lists `d`
///    under each of its candidate keys (the fingerprint's blocks, the signature's bands:
///    any near-duplicate of `d` shares one);
/// 2. then takes `d`'s number from one cluster-wide counter (`INCR`) and writes it into
///    the record;
/// 3. then reads the documents listed under `d`'s keys, and judges by the index's rule
///    each candidate numbered before `d`, waiting for those still pending: `d` is
///    rejected when one of them is an admitted near-duplicate, admitted otherwise; the
///    decision goes into the record.
///
/// **Why no near-duplicate pair is admitted.** Take near-duplicates `a` and `b`, `a`
/// numbered first; they share a key `K`. `b` reads `K` after taking its number, which
/// comes after `a`'s, which `a` took after adding itself to `K`: so `b` finds `a` in `K`
/// (each key is one Redis node's, and every step completes before the next is sent). `b`
/// then waits until `a` is decided, reading `a`'s number first if `a` has not written it
/// yet, and is rejected if `a` was admitted. A document waits only for documents numbered
/// before it, so no two wait for each other. By induction over the numbers, the admitted
/// documents are those a single writer would admit taking every document in number order.
///
/// **Faults.** Redis unreachable, or a failover not over within 15 seconds, is
/// [`Error::Cluster`]: nothing falls back to a local-only check. A writer that dies leaves
/// its pending records behind; after the lease (10 s by default) the others take them for
/// given up, and a run that adds the same id again registers it anew. A failover can lose
/// writes Redis acknowledged but had not copied to the replica yet (Redis replicates
/// asynchronously); the guarantee above holds for what the cluster keeps.
pub struct SharedRegistry {
    pub(super) store: Store,
    pub(super) matcher: Matcher,
    pub(super) namespace: String,
    /// This writer's name: an id registered by another writer is that writer's.
    pub(super) node: String,
    pub(super) lease: Duration,
    /// The seed addresses, for the writer lease's own connection.
    urls: Vec<String>,
    /// This writer's hold on its name, once it [joined](SharedRegistry::join).
    hold: Option<Lease>,
    /// The space's description, as this writer's settings make it.
    description: String,
}

impl std::fmt::Debug for SharedRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedRegistry")
            .field("namespace", &self.namespace)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl SharedRegistry {
    /// Connects to the cluster through its seed addresses (`redis://127.0.0.1:30001`, ...)
    /// for the space `namespace` (one per corpus: every writer of the corpus names the
    /// same) as the writer `node` (a name of its own, the same when it runs again), judging
    /// by `matching`: the fingerprint settings, distance and verification of the index
    /// ([`DedupSettings::matching`](crate::plugin::DedupSettings::matching), with the
    /// distance of this run). Every writer of a space must use the same.
    ///
    /// The first writer of a namespace writes its layout, rule and fingerprint settings into
    /// the space; the others check theirs against it.
    ///
    /// # Errors
    /// [`Error::Cluster`] when the cluster cannot be reached (or is not a cluster);
    /// [`Error::InvalidSetting`] (`distance`) when the rule's block tables would cover more
    /// than [`MAX_TABLE_DISTANCE`] bits (a candidate stage that scans, without bands);
    /// [`Error::SpaceMismatch`], naming each differing setting, when the space was made
    /// with another rule or other fingerprint settings, or by a build that laid it out
    /// otherwise.
    pub fn connect(
        urls: &[String],
        namespace: &str,
        node: &str,
        matching: &MatchingSettings,
    ) -> Result<SharedRegistry> {
        let matcher = Matcher::new(matching.get_distance(), matching.get_verification());
        if matcher.table_distance() > MAX_TABLE_DISTANCE {
            return Err(Error::InvalidSetting {
                name: "distance",
                reason: format!(
                    "a shared index finds candidates within at most {MAX_TABLE_DISTANCE} bits \
                     by blocks (use candidates from bands beyond k)"
                ),
            });
        }
        let description = space::describe(matching)?;
        let store = Store::connect(urls)?;
        space::check(&store, namespace, &description, true)?;
        Ok(SharedRegistry {
            store,
            matcher,
            namespace: namespace.to_owned(),
            node: node.to_owned(),
            lease: DEFAULT_LEASE,
            urls: urls.to_vec(),
            hold: None,
            description,
        })
    }

    /// Checks that the space `namespace` of the cluster at `urls`, if it exists, was made
    /// with `matching` (as [`connect`](Self::connect) checks it), changing nothing: for a
    /// reader of the space's shards, such as `search`.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub fn check_settings(
        urls: &[String],
        namespace: &str,
        matching: &MatchingSettings,
    ) -> Result<()> {
        let description = space::describe(matching)?;
        let store = Store::connect(urls)?;
        space::check(&store, namespace, &description, false)
    }

    /// Whether `matching` is the rule and fingerprint settings this registry judges by.
    pub fn judges_by(&self, matching: &MatchingSettings) -> bool {
        space::describe(matching).is_ok_and(|description| description == self.description)
    }

    /// This registry as the writer of the shard whose token is `shard` (its
    /// [`ShardIdentity::shard`](super::ShardIdentity)): the space binds this writer's name
    /// to the first shard that joins under it, and refuses it to any other; and the writer
    /// holds its name's lease (one key the Redis server expires, renewed while this
    /// registry lives, given back when it is dropped), so that a second live writer of the
    /// name (a copy of the shard, or one name given to two) is refused. A lease left by a
    /// writer that died is waited for, the lease's length at most.
    ///
    /// # Errors
    /// [`Error::NameTaken`] when the name is another shard's; [`Error::WriterRunning`]
    /// when a live writer holds the name; [`Error::Cluster`].
    pub fn join(mut self, shard: &str) -> Result<SharedRegistry> {
        let shards = format!("{}:shards", self.namespace);
        let bound: Option<String> = self.store.run("cannot bind the writer's name", |c| {
            c.hset_nx::<_, _, _, ()>(&shards, &self.node, shard)?;
            c.hget(&shards, &self.node)
        })?;
        if bound.as_deref() != Some(shard) {
            return Err(Error::NameTaken {
                namespace: self.namespace.clone(),
                node: self.node.clone(),
            });
        }
        let store = Store::connect(&self.urls)?;
        let key = self.writer_key(&self.node);
        let hold = Lease::take(store, key, self.lease, &self.namespace, &self.node)?;
        self.hold = Some(hold);
        Ok(self)
    }

    /// Whether a writer named `node` holds its lease now (it [joined](Self::join) and
    /// runs).
    ///
    /// # Errors
    /// [`Error::Cluster`].
    pub fn writer_running(&self, node: &str) -> Result<bool> {
        let key = self.writer_key(node);
        self.store
            .run("cannot read a writer's lease", |c| c.exists(&key))
    }

    /// The same, taking a registration undecided for longer than `lease` for given up.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> SharedRegistry {
        self.lease = lease;
        self
    }

    /// This writer's name in the shared space.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Decides the document `id` (unique in the corpus) with `fingerprint` and `signature`
    /// (as the index stores them) against every writer's documents (see
    /// [`SharedRegistry`]). A document decided before is decided the same again, so that a
    /// resumed run finishes the job; one registered but never decided (its writer died) is
    /// registered anew.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::KeyTooLong`] for an id longer than tantivy indexes a
    /// key; [`Error::Decode`] for a record or key listing this build cannot read (an
    /// older build's).
    pub fn decide(
        &self,
        id: &str,
        fingerprint: Fingerprint,
        signature: Option<&[u32]>,
    ) -> Result<SharedDecision> {
        self.check_lease()?;
        let member = member(id, fingerprint)?;
        let record_key = self.record_key(id);
        // 1. The record (claimed: one writer decides an id), then the candidate keys.
        loop {
            // Registered now: the lease runs from the claim, by the Redis server's clock.
            let fields = record::fields(&self.node, fingerprint, signature);
            let Some(record) = self.claim(&record_key, &fields)? else {
                break;
            };
            if let Some(decision) = self.settled(&record)? {
                return Ok(decision);
            }
            // Another writer claimed it first: its decision, once made, is the answer.
            std::thread::sleep(POLL);
        }
        let keys = candidate_keys(&self.namespace, &self.matcher, fingerprint, signature);
        self.register(id, &member, &keys)?;
        // 2. Its number, after its keys.
        let seq: u64 = self
            .store
            .run("cannot number a document", |c| c.incr(self.seq_key(), 1))?;
        // 3. Its number into its record, and the candidates (in one pipeline: the order
        // that matters is the counter's before the reads), each judged once decided.
        let candidates = self.candidates(id, fingerprint, &keys, Some(seq))?;
        let by = self.first_admitted_near(seq, fingerprint, signature, candidates)?;
        let fields = Nearest::decision_fields(by.as_ref());
        let rejected = by.is_some();
        self.store.run("cannot record a decision", |c| {
            let mut pipe = cluster_pipe();
            pipe.hset_multiple(&record_key, &fields).ignore();
            if rejected {
                pipe.srem(self.node_key(), id).ignore();
            }
            pipe.query::<()>(c)
        })?;
        Ok(match by {
            Some(near) => SharedDecision::Rejected {
                seq,
                by: near.id,
                fingerprint: near.fingerprint,
                distance: near.distance,
                similarity: near.similarity,
            },
            None => SharedDecision::Admitted { seq, again: false },
        })
    }

    /// [`Error::WriterRunning`] once this writer's lease on its name was found another's.
    pub(super) fn check_lease(&self) -> Result<()> {
        if self.hold.as_ref().is_some_and(Lease::lost) {
            return Err(Error::WriterRunning {
                namespace: self.namespace.clone(),
                node: self.node.clone(),
            });
        }
        Ok(())
    }

    /// Lists `id` (as `member`) under each of `keys`, and adds it to this writer's set
    /// (registered, not known rejected), which `repair` checks against its shard: in the
    /// same step, so that no admitted id is missing from it.
    fn register(&self, id: &str, member: &[u8], keys: &CandidateKeys) -> Result<()> {
        let entry = band_entry(member);
        // A band value is nearly always new: a plain HSETNX takes it. One another document
        // holds already (a near-duplicate's, or a collision of 32-bit keys) is appended to
        // by a script, in a second step: a script per band would cost Redis several times
        // the command.
        let new: Vec<bool> = self.store.run("cannot register a document's keys", |c| {
            let mut pipe = cluster_pipe();
            for key in &keys.blocks {
                pipe.sadd(key, member).ignore();
            }
            for band in &keys.bands {
                pipe.hset_nx(&band.bucket, band.field, &entry);
            }
            pipe.sadd(self.node_key(), id).ignore();
            pipe.query(c)
        })?;
        if new.len() != keys.bands.len() {
            return Err(short_reply("a document's keys"));
        }
        let shared: Vec<&BandEntry> = (keys.bands.iter().zip(new))
            .filter_map(|(band, new)| (!new).then_some(band))
            .collect();
        if shared.is_empty() {
            return Ok(());
        }
        self.store.run("cannot register a document's keys", |c| {
            let mut pipe = cluster_pipe();
            for band in &shared {
                (pipe.cmd("EVAL").arg(ADD_MEMBER).arg(1).arg(&band.bucket))
                    .arg(band.field)
                    .arg(&entry)
                    .ignore();
            }
            pipe.query::<()>(c)
        })
    }

    /// The ids other than `id` listed under `keys` with a fingerprint within the rule's
    /// reach of `fingerprint` (the others cannot be near, whatever their records say);
    /// with `number`, written into `id`'s record in the same pipeline, before the reads.
    pub(super) fn candidates(
        &self,
        id: &str,
        fingerprint: Fingerprint,
        keys: &CandidateKeys,
        number: Option<u64>,
    ) -> Result<BTreeSet<String>> {
        type Read = (Vec<Vec<Vec<u8>>>, Vec<Option<Vec<u8>>>);
        let read: Option<Read> = self.store.run("cannot read candidates", |c| {
            let mut pipe = cluster_pipe();
            if let Some(seq) = number {
                pipe.hset(self.record_key(id), "seq", seq).ignore();
            }
            for key in &keys.blocks {
                pipe.smembers(key);
            }
            for band in &keys.bands {
                pipe.hget(&band.bucket, band.field);
            }
            let values: Vec<redis::Value> = pipe.query(c)?;
            if values.len() != keys.blocks.len() + keys.bands.len() {
                return Ok(None);
            }
            let (blocks, bands) = values.split_at(keys.blocks.len());
            fn read<T: redis::FromRedisValue>(values: &[redis::Value]) -> RedisResult<Vec<T>> {
                Ok((values.iter())
                    .map(redis::from_redis_value_ref)
                    .collect::<std::result::Result<_, _>>()?)
            }
            Ok(Some((read(blocks)?, read(bands)?)))
        })?;
        let (blocks, bands) = read.ok_or_else(|| short_reply("candidates"))?;
        let undecodable = |what: String| Error::Decode {
            what: "a candidate key of the shared index",
            source: what.into(),
        };
        let mut members = Vec::new();
        for (key, listed) in keys.blocks.iter().zip(blocks) {
            for bytes in listed {
                members.push(
                    parse_member(&bytes)
                        .ok_or_else(|| undecodable(format!("{key}: not a member")))?,
                );
            }
        }
        for (band, value) in keys.bands.iter().zip(bands) {
            let Some(value) = value else { continue };
            members.extend(parse_band(&value).ok_or_else(|| {
                undecodable(format!("{} field {}: not a list", band.bucket, band.field))
            })?);
        }
        let reach = self.matcher.reach();
        Ok((members.into_iter())
            .filter(|(theirs, other)| other != id && fingerprint.distance(*theirs) <= reach)
            .map(|(_, other)| other)
            .collect())
    }

    /// Gives up `id`'s registration (its add failed, or the index left it out after
    /// all): it no longer rejects anything, and the records it rejected meanwhile are given
    /// up too, so that they are decided anew when they come again. Returns those.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::Decode`] for a record this build cannot read.
    pub fn abort(&self, id: &str) -> Result<Vec<String>> {
        let record = self.read_record(id)?;
        let record_key = self.record_key(id);
        self.store.run("cannot give a document up", |c| {
            let mut pipe = cluster_pipe();
            pipe.hset(&record_key, "st", State::Aborted.code()).ignore();
            pipe.srem(self.node_key(), id).ignore();
            pipe.query::<()>(c)
        })?;
        match record {
            Some(record) if record.state == State::Admitted => self.reopen_rejected_by(id, &record),
            _ => Ok(Vec::new()),
        }
    }

    /// The answer `record` already gives: its decision when this writer made it (a
    /// resumed run), what the other writer decided when one did; `None` when the record
    /// is this writer's undecided one, given up, or expired, and is to be claimed anew,
    /// or another writer's still pending (to be read again).
    fn settled(&self, record: &Record) -> Result<Option<SharedDecision>> {
        let Some(seq) = record.seq else {
            return Ok(None);
        };
        Ok(match record.state {
            State::Admitted if record.node == self.node => {
                Some(SharedDecision::Admitted { seq, again: true })
            }
            State::Admitted => Some(SharedDecision::Elsewhere {
                node: record.node.clone(),
            }),
            State::Rejected => {
                let by = record.by.clone().unwrap_or_default();
                let fingerprint = match record.by_fingerprint {
                    Some(fingerprint) => fingerprint,
                    // Decided by a build that did not write it down: read it.
                    None => self.fingerprint_of(&by)?,
                };
                Some(SharedDecision::Rejected {
                    seq,
                    by,
                    fingerprint,
                    distance: record.distance.unwrap_or_default(),
                    similarity: record.similarity,
                })
            }
            State::Pending | State::Aborted => None,
        })
    }

    /// The fingerprint in `id`'s record.
    fn fingerprint_of(&self, id: &str) -> Result<Fingerprint> {
        let record_key = self.record_key(id);
        let hex: Option<String> =
            (self.store).run("cannot read a record", |c| c.hget(&record_key, "fp"))?;
        hex.and_then(|hex| u64::from_str_radix(&hex, 16).ok())
            .map(Fingerprint)
            .ok_or_else(|| Error::Decode {
                what: "a record of the shared index",
                source: format!("{record_key}: no fingerprint").into(),
            })
    }

    /// Writes `fields` as the record at `record_key`, in one step on its node, unless the
    /// record there is decided or another writer's live registration: `None` once
    /// written, else that record.
    fn claim(
        &self,
        record_key: &str,
        fields: &[(&'static str, Vec<u8>)],
    ) -> Result<Option<Record>> {
        let mut script = redis::cmd("EVAL");
        script.arg(CLAIM).arg(1).arg(record_key);
        script.arg(&self.node).arg(self.lease.as_millis() as u64);
        for (field, value) in fields {
            script.arg(*field).arg(value);
        }
        let found: Vec<Vec<u8>> = self
            .store
            .run("cannot register a document", |c| script.query(c))?;
        if found.is_empty() {
            return Ok(None);
        }
        let hash: Hash = (found.chunks_exact(2))
            .map(|pair| {
                (
                    String::from_utf8_lossy(&pair[0]).into_owned(),
                    pair[1].clone(),
                )
            })
            .collect();
        record::read(record_key, &hash).map(Some)
    }

    /// The lowest-numbered admitted near-duplicate among `candidates` numbered before
    /// `seq`, reading again those not decided yet until they are (or their lease ends).
    fn first_admitted_near(
        &self,
        seq: u64,
        fingerprint: Fingerprint,
        signature: Option<&[u32]>,
        mut candidates: BTreeSet<String>,
    ) -> Result<Option<Nearest>> {
        let mut admitted: Option<(u64, Nearest)> = None;
        while !candidates.is_empty() {
            let ids: Vec<String> = candidates.iter().cloned().collect();
            let read = self.read_aged_records(&ids)?;
            for (other, (record, age)) in ids.into_iter().zip(read) {
                match self.judge(seq, fingerprint, signature, record, age) {
                    Verdict::Wait => continue,
                    Verdict::Admitted {
                        seq: their_seq,
                        fingerprint,
                        distance,
                        similarity,
                    } => {
                        if admitted.as_ref().is_none_or(|(best, _)| their_seq < *best) {
                            let id = other.clone();
                            admitted = Some((
                                their_seq,
                                Nearest {
                                    id,
                                    fingerprint,
                                    distance,
                                    similarity,
                                },
                            ));
                        }
                    }
                    Verdict::Irrelevant => {}
                }
                candidates.remove(&other);
            }
            if !candidates.is_empty() {
                std::thread::sleep(POLL);
            }
        }
        Ok(admitted.map(|(_, nearest)| nearest))
    }

    /// The records of `ids` (`None` for one removed), each with its age in milliseconds by
    /// its Redis node's clock, in one pipeline: a lease is judged by the clock that stamped
    /// it, never a writer's.
    ///
    /// # Errors
    /// [`Error::Shared`] when the space cannot be read, or a record does not read as one (an
    /// older build's, which would be judged wrongly).
    pub(super) fn read_aged_records(&self, ids: &[String]) -> Result<Vec<(Option<Record>, u64)>> {
        let replies: Vec<Vec<Vec<u8>>> = self.store.run("cannot read candidates", |c| {
            let mut pipe = cluster_pipe();
            for other in ids {
                pipe.cmd("EVAL")
                    .arg(READ_AGED)
                    .arg(1)
                    .arg(self.record_key(other));
            }
            pipe.query(c)
        })?;
        if replies.len() != ids.len() {
            return Err(short_reply("candidates' records"));
        }
        (ids.iter().zip(replies))
            .map(|(other, reply)| {
                let (hash, age) = aged_hash(reply);
                let record = match hash.is_empty() {
                    true => None,
                    false => Some(record::read(&self.record_key(other), &hash)?),
                };
                Ok((record, age))
            })
            .collect()
    }

    /// What a candidate's record means for a document numbered `seq`, read `age`
    /// milliseconds after it was registered (by its Redis node's clock).
    pub(super) fn judge(
        &self,
        seq: u64,
        fingerprint: Fingerprint,
        signature: Option<&[u32]>,
        record: Option<Record>,
        age: u64,
    ) -> Verdict {
        // A record removed: numbered after us if at all, once it is written again.
        let Some(record) = record else {
            return Verdict::Irrelevant;
        };
        let expired = age > self.lease.as_millis() as u64;
        let Some(their_seq) = record.seq else {
            // Registered, not numbered yet: numbered after us if it has not been by now,
            // unless its writer is between the counter and the record. Wait for it.
            return if expired {
                Verdict::Irrelevant
            } else {
                Verdict::Wait
            };
        };
        if their_seq >= seq {
            return Verdict::Irrelevant;
        }
        let distance = fingerprint.distance(record.fingerprint);
        let Some(near) = (self.matcher).judge(distance, signature, record.signature.as_deref())
        else {
            return Verdict::Irrelevant;
        };
        match record.state {
            State::Admitted => Verdict::Admitted {
                seq: their_seq,
                fingerprint: record.fingerprint,
                distance,
                similarity: near.similarity,
            },
            State::Rejected | State::Aborted => Verdict::Irrelevant,
            State::Pending if expired => Verdict::Irrelevant,
            State::Pending => Verdict::Wait,
        }
    }

    pub(super) fn record_key(&self, id: &str) -> String {
        format!("{}:d:{id}", self.namespace)
    }

    /// The set of the ids this writer admitted.
    pub(super) fn node_key(&self) -> String {
        format!("{}:n:{}", self.namespace, self.node)
    }

    /// The lease of the writer `node`.
    fn writer_key(&self, node: &str) -> String {
        format!("{}:w:{node}", self.namespace)
    }

    pub(super) fn seq_key(&self) -> String {
        format!("{}:seq", self.namespace)
    }
}

/// The claim of [`SharedRegistry::claim`], on one key: `ARGV[1]` this writer, `ARGV[2]` the
/// lease (milliseconds), the rest the new record's fields. Returns the record found when it
/// is decided or another writer's live registration, else writes the new one, stamped
/// `at` with the Redis server's time (milliseconds), and returns nothing. Every lease is
/// judged by the server's clock: writers' clocks may be off by any amount.
pub(super) const CLAIM: &str = "
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local found = redis.call('HGETALL', KEYS[1])
if #found > 0 then
  local r = {}
  for i = 1, #found, 2 do r[found[i]] = found[i + 1] end
  local decided = (r.st == 'a' or r.st == 'r') and r.seq ~= nil
  local live = r.st == 'p' and now - tonumber(r.at or '0') <= tonumber(ARGV[2])
  if decided or (r.node ~= ARGV[1] and live) then return found end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'at', string.format('%d', now), unpack(ARGV, 3))
return {}
";

/// The record at `KEYS[1]` (its fields and values, as HGETALL), then the pseudo-field
/// `~age`: the milliseconds since it was registered (`at`), by the clock of the Redis
/// server that stamped it.
pub(super) const READ_AGED: &str = "
local found = redis.call('HGETALL', KEYS[1])
local at = nil
for i = 1, #found, 2 do if found[i] == 'at' then at = tonumber(found[i + 1]) end end
if at then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  found[#found + 1] = '~age'
  found[#found + 1] = string.format('%d', math.max(0, now - at))
end
return found
";

/// A reply of [`READ_AGED`]: the record's hash, and its age (0 when it has none).
pub(super) fn aged_hash(reply: Vec<Vec<u8>>) -> (Hash, u64) {
    let mut age = 0;
    let mut hash = Hash::new();
    let mut values = reply.into_iter();
    while let (Some(field), Some(value)) = (values.next(), values.next()) {
        let field = String::from_utf8_lossy(&field).into_owned();
        if field == "~age" {
            age = (std::str::from_utf8(&value).ok())
                .and_then(|age| age.parse().ok())
                .unwrap_or(0);
        } else {
            hash.insert(field, value);
        }
    }
    (hash, age)
}

/// The admitted near-duplicate that rejects a document.
pub(super) struct Nearest {
    pub(super) id: String,
    pub(super) fingerprint: Fingerprint,
    pub(super) distance: u32,
    pub(super) similarity: Option<f64>,
}

impl Nearest {
    /// The fields a document's record takes when it is decided: rejected by `by`, or
    /// admitted.
    pub(super) fn decision_fields(by: Option<&Nearest>) -> Vec<(&'static str, String)> {
        match by {
            Some(near) => {
                let mut fields = vec![
                    ("st", State::Rejected.code().to_owned()),
                    ("by", near.id.clone()),
                    ("byfp", format!("{:x}", near.fingerprint.bits())),
                    ("dist", near.distance.to_string()),
                ];
                fields.extend(near.similarity.map(|s| ("sim", s.to_string())));
                fields
            }
            None => vec![("st", State::Admitted.code().to_owned())],
        }
    }
}

/// What a candidate means for a document.
pub(super) enum Verdict {
    /// Not decided yet: read it again.
    Wait,
    /// An admitted near-duplicate numbered before it, with its number and how near.
    Admitted {
        seq: u64,
        fingerprint: Fingerprint,
        distance: u32,
        similarity: Option<f64>,
    },
    /// Numbered after it, not near, rejected or given up.
    Irrelevant,
}

/// A reply with fewer values than the commands sent: missing ones would be missing
/// candidates.
pub(super) fn short_reply(what: &'static str) -> Error {
    Error::Decode {
        what,
        source: "Redis answered fewer values than commands sent".into(),
    }
}
