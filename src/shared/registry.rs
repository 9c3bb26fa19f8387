//! [`SharedRegistry`]: register, number, then decide by number.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use redis::Commands;

use super::keys::{candidate_keys, check_id, CandidateKeys};
use super::lease::Lease;
use super::record::{self, Record, State};
use super::scripts::{self, Shas};
use super::slots::{
    first_slot_of_id, group_of_id, handle, next_slot, place_of_handle, records_key, Handle,
};
use super::space;
use super::store::Store;
use super::window::Claimed;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::lookup::MAX_TABLE_DISTANCE;
use crate::matching::{Matcher, MatchingSettings};

/// How long a registration may stay undecided before the others take its writer for dead
/// and the registration for given up.
const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The pause between two reads of a candidate that is not decided yet.
pub(super) const POLL: Duration = Duration::from_millis(5);

/// What [`SharedRegistry::decide`] says of a document.
///
/// Available with the `cluster` feature.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
/// Available with the `cluster` feature.
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
    /// This writer's number in the space's table of writers, as records hold it: given
    /// at the first write ([`number`](Self::number)), so that a reader changes nothing.
    number: OnceLock<u16>,
    /// The names of the writers' numbers read so far.
    names: Mutex<HashMap<u16, String>>,
    pub(super) lease: Duration,
    /// The seed addresses, for the writer lease's own connection.
    urls: Vec<String>,
    /// This writer's hold on its name, once it [joined](SharedRegistry::join).
    hold: Option<Lease>,
    /// The space's description, as this writer's settings make it.
    description: String,
    /// The scripts' SHA-1s.
    pub(super) shas: Shas,
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
        let shas = store.run("cannot load the shared index's scripts", scripts::load)?;
        let writers = format!("{namespace}:writers");
        let found: Option<u16> = store.run("cannot read the writer's number", |c| {
            c.hget(&writers, format!("n:{node}"))
        })?;
        let number = OnceLock::new();
        let mut names = HashMap::new();
        if let Some(found) = found {
            let _ = number.set(found);
            names.insert(found, node.to_owned());
        }
        Ok(SharedRegistry {
            store,
            matcher,
            namespace: namespace.to_owned(),
            node: node.to_owned(),
            number,
            names: Mutex::new(names),
            lease: DEFAULT_LEASE,
            urls: urls.to_vec(),
            hold: None,
            description,
            shas,
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
        check_id(id)?;
        let keys = candidate_keys(&self.matcher, fingerprint, signature);
        // 1. The record (claimed: one writer decides an id), then the rest as a window's.
        loop {
            // Registered now: the lease runs from the claim, by the Redis server's clock.
            let mut doc = [Claimed {
                at: 0,
                id,
                fingerprint,
                signature,
                handle: 0,
                keys: keys.clone(),
                record: record::registration(id, self.number()?, fingerprint, signature),
                seq: 0,
            }];
            let (taken, handle, bytes) =
                (self.claim_all(&doc)?.pop()).ok_or_else(|| short_reply("a claim"))?;
            if taken {
                doc[0].handle = handle;
                doc[0].record = bytes;
                let mut out = [None];
                self.decide_claimed(&mut doc, &mut out)?;
                let [decision] = out;
                return decision.expect("the document decided");
            }
            if let Some(decision) = self.settled(&record::read(id, &bytes)?)? {
                return Ok(decision);
            }
            // Another writer claimed it first: its decision, once made, is the answer.
            std::thread::sleep(POLL);
        }
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

    /// The handles other than `handle` listed under `keys` with a fingerprint within the
    /// rule's reach of `fingerprint` (the others cannot be near, whatever their records say).
    pub(super) fn candidates(
        &self,
        handle: Handle,
        fingerprint: Fingerprint,
        keys: &CandidateKeys,
    ) -> Result<BTreeSet<Handle>> {
        let lists: Vec<_> = keys.lists.iter().collect();
        let listed = self.read_lists(&lists, &[])?;
        let reach = self.matcher.reach();
        Ok((keys.lists.iter())
            .filter_map(|key| listed.get(key))
            .flatten()
            .filter(|&&(theirs, other)| {
                other != handle && theirs.is_none_or(|theirs| fingerprint.distance(theirs) <= reach)
            })
            .map(|&(_, other)| other)
            .collect())
    }

    /// Gives up `id`'s registration (its add failed, or the index left it out after
    /// all): it no longer rejects anything, and the records it rejected meanwhile are given
    /// up too, so that they are decided anew when they come again. Returns those.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::Decode`] for a record this build cannot read.
    pub fn abort(&self, id: &str) -> Result<Vec<String>> {
        let Some((handle, bytes)) = self.find_record(id)? else {
            return Ok(Vec::new());
        };
        let record = record::read(id, &bytes)?;
        let given_up = record::with_state(&bytes, State::Aborted);
        self.update_records(&[(handle, bytes.as_slice(), given_up.as_slice())])?;
        match record.state {
            State::Admitted => self.reopen_rejected_by(handle, &record),
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
            State::Admitted if self.is_mine(record) => {
                Some(SharedDecision::Admitted { seq, again: true })
            }
            State::Admitted => Some(SharedDecision::Elsewhere {
                node: self.name_of(record.node)?,
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
        match self.read_record(id)? {
            Some(record) => Ok(record.fingerprint),
            None => Err(Error::Decode {
                what: "a record of the shared index",
                source: format!("{id}: no record").into(),
            }),
        }
    }

    /// The handle and bytes of `id`'s record; `None` when there is none. Looked for as the
    /// claim script places it: from the id's first slot on, past slots other ids took.
    pub(super) fn find_record(&self, id: &str) -> Result<Option<(Handle, Vec<u8>)>> {
        let group = group_of_id(id);
        let key = records_key(&self.namespace, group);
        let mut slot = first_slot_of_id(id);
        loop {
            let bytes: Option<Vec<u8>> = self
                .store
                .run("cannot read a record", |c| c.hget(&key, slot))?;
            let Some(bytes) = bytes else {
                return Ok(None);
            };
            match record::id_of(&bytes) {
                Some(theirs) if theirs == id.as_bytes() => {
                    return Ok(Some((handle(group, slot), bytes)))
                }
                Some(_) => slot = next_slot(slot),
                None => {
                    return Err(record::read(id, &bytes)
                        .err()
                        .unwrap_or_else(|| short_reply("a record")))
                }
            }
        }
    }

    /// The bytes of the record at `handle`; `None` when there is none.
    pub(super) fn read_record_at(&self, handle: Handle) -> Result<Option<Vec<u8>>> {
        let (group, slot) = place_of_handle(handle);
        let key = records_key(&self.namespace, group);
        self.store
            .run("cannot read a record", |c| c.hget(&key, slot))
    }

    /// `id`'s record; `None` when there is none.
    pub(super) fn read_record(&self, id: &str) -> Result<Option<Record>> {
        (self.find_record(id)?)
            .map(|(_, bytes)| record::read(id, &bytes))
            .transpose()
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

    /// This writer's number in the space, given it now if it has none yet.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::InvalidSetting`] (`node`) once a space has had more
    /// writers' names than a record can number.
    pub(super) fn number(&self) -> Result<u16> {
        if let Some(&number) = self.number.get() {
            return Ok(number);
        }
        let writers = format!("{}:writers", self.namespace);
        let number: u64 = self.store.run("cannot number the writer", |c| {
            redis::cmd("EVAL")
                .arg(scripts::WRITER)
                .arg(1)
                .arg(&writers)
                .arg(&self.node)
                .query(c)
        })?;
        let number = u16::try_from(number).map_err(|_| Error::InvalidSetting {
            name: "node",
            reason: format!(
                "the space {} has had {} writers' names: a space takes at most {}",
                self.namespace,
                number - 1,
                u16::MAX
            ),
        })?;
        let number = *self.number.get_or_init(|| number);
        (self.names.lock().unwrap_or_else(|e| e.into_inner())).insert(number, self.node.clone());
        Ok(number)
    }

    /// Whether `record` was registered by this writer.
    pub(super) fn is_mine(&self, record: &Record) -> bool {
        self.number.get() == Some(&record.node)
    }

    /// The name of the writer numbered `number` in the space.
    ///
    /// # Errors
    /// [`Error::Cluster`]; [`Error::Decode`] for a number the space never gave.
    pub(super) fn name_of(&self, number: u16) -> Result<String> {
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(name) = names.get(&number) {
            return Ok(name.clone());
        }
        let key = format!("{}:writers", self.namespace);
        let name: Option<String> = self.store.run("cannot read a writer's name", |c| {
            c.hget(&key, format!("w:{number}"))
        })?;
        let name = name.ok_or_else(|| Error::Decode {
            what: "a record of the shared index",
            source: format!("writer number {number}: no such writer in the space").into(),
        })?;
        names.insert(number, name.clone());
        Ok(name)
    }

    /// The lease of the writer `node`.
    fn writer_key(&self, node: &str) -> String {
        format!("{}:w:{node}", self.namespace)
    }

    pub(super) fn seq_key(&self) -> String {
        format!("{}:seq", self.namespace)
    }
}

/// The admitted near-duplicate that rejects a document.
pub(super) struct Nearest {
    pub(super) id: String,
    pub(super) fingerprint: Fingerprint,
    pub(super) distance: u32,
    pub(super) similarity: Option<f64>,
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
