//! Mending the gaps between a writer's shard and the shared space: what the space holds
//! for an id ([`SharedState`]), the ids a writer admitted there
//! ([`SharedRegistry::admitted_ids`]), and giving up those its shard does not hold
//! ([`SharedRegistry::release`]). `tantivy-dedup repair` drives them (docs/SCALING.md).

use std::time::Duration;

use redis::Commands;

use super::keys::candidate_keys;
use super::record::{self, Record, State};
use super::registry::SharedRegistry;
use super::slots::{records_key, Handle, GROUPS};
use super::store::RETRY_FOR;
use crate::error::Result;

/// What the shared space holds for an id (see [`SharedRegistry::state`]).
///
/// Available with the `cluster` feature.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedState {
    /// Registered by `node`, not decided yet (or its writer died before deciding).
    Pending {
        /// The writer that registered it.
        node: String,
    },
    /// Admitted by `node`: it is to be in that writer's shard.
    Admitted {
        /// The writer that admitted it.
        node: String,
    },
    /// Rejected as a near-duplicate of the admitted document `by`.
    Rejected {
        /// The writer that decided it.
        node: String,
        /// The admitted near-duplicate.
        by: String,
    },
    /// Given up by `node` (its add failed, or `repair` released it): as if it never came.
    GivenUp {
        /// The writer that gave it up.
        node: String,
    },
}

/// A document [`SharedRegistry::release`] gave up, and the records it had rejected, given
/// up with it so that they are decided anew when they come again.
///
/// Available with the `cluster` feature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    /// The id given up.
    pub id: String,
    /// The ids it had rejected.
    pub reopened: Vec<String>,
}

impl SharedRegistry {
    /// What the shared space holds for `id`; `None` when it was never registered.
    ///
    /// # Errors
    /// [`Error::Cluster`](crate::Error::Cluster); [`Error::Decode`](crate::Error::Decode) for
    /// a record this build cannot read.
    pub fn state(&self, id: &str) -> Result<Option<SharedState>> {
        let Some(record) = self.read_record(id)? else {
            return Ok(None);
        };
        let node = self.name_of(record.node)?;
        Ok(Some(match record.state {
            State::Pending => SharedState::Pending { node },
            State::Admitted => SharedState::Admitted { node },
            State::Rejected => SharedState::Rejected {
                node,
                by: record.by.unwrap_or_default(),
            },
            State::Aborted => SharedState::GivenUp { node },
        }))
    }

    /// The ids this writer admitted and has not given up: those its shard should hold.
    /// Every record of the space is read for them (each names its writer; a set of ids a
    /// writer would cost about 50 bytes a document more).
    ///
    /// # Errors
    /// [`Error::Cluster`](crate::Error::Cluster); [`Error::Decode`](crate::Error::Decode) for
    /// a record this build cannot read.
    pub fn admitted_ids(&self) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        for group in 0..GROUPS {
            let key = records_key(&self.namespace, group);
            // HSCAN, a page at a time: one HGETALL of millions of records would hold Redis up.
            let part: Vec<(String, Vec<u8>)> = self.store.run("cannot read the records", |c| {
                c.hscan::<_, (String, Vec<u8>)>(&key)?.collect()
            })?;
            for (slot, bytes) in part {
                let record = record::read(&format!("slot {slot}"), &bytes)?;
                if record.state == State::Admitted && self.is_mine(&record) {
                    ids.push(record.id);
                }
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    /// Gives up each of `ids` that this writer admitted, for documents its shard does not
    /// hold (its writer died between the decision and the commit, and the run was never
    /// resumed), so that they no longer keep other documents out; then gives up the
    /// records each of them had rejected, so that those are decided anew when they come
    /// again (their texts are not in the shared space: ingest them again). Ids admitted by
    /// another writer, or not admitted, are left as they are.
    ///
    /// Run it with this writer stopped (its shard must not be adding the ids meanwhile).
    /// Other writers may go on: a writer that read one of the ids as admitted just before
    /// it was given up decides within the lease, or within the 15 s it retries a failover,
    /// so the records rejected by the ids are looked for once both have passed, and the
    /// call takes that long when it gives anything up. A writer stalled longer than that
    /// can still leave a record rejected by a given-up id:
    /// for a repair that leaves none, stop every writer of the space.
    ///
    /// # Errors
    /// [`Error::Cluster`](crate::Error::Cluster); [`Error::Decode`](crate::Error::Decode) for
    /// a record this build cannot read.
    pub fn release(&self, ids: &[String]) -> Result<Vec<Released>> {
        let mut released = Vec::new();
        for id in ids {
            // Read before it is given up: once it is, another writer may claim the id anew
            // with other values.
            let Some((handle, _)) = self.find_record(id)? else {
                continue;
            };
            if let Some(record) = self.give_up_if(handle, State::Admitted, |r| self.is_mine(r))? {
                released.push((id.clone(), handle, record));
            }
        }
        if released.is_empty() {
            return Ok(Vec::new());
        }
        std::thread::sleep(self.lease + RETRY_FOR + Duration::from_secs(1));
        released
            .into_iter()
            .map(|(id, handle, record)| {
                let reopened = self.reopen_rejected_by(handle, &record)?;
                Ok(Released { id, reopened })
            })
            .collect()
    }

    /// Gives up the records that the document at `handle` (given up, whose record was
    /// `record`) rejected: each shares a candidate key with it, as every near-duplicate
    /// does. Their ids.
    pub(super) fn reopen_rejected_by(
        &self,
        handle: Handle,
        record: &Record,
    ) -> Result<Vec<String>> {
        let keys = candidate_keys(
            &self.matcher,
            record.fingerprint,
            record.signature.as_deref(),
        );
        let mut reopened = Vec::new();
        for other in self.candidates(handle, record.fingerprint, &keys)? {
            let by = |theirs: &Record| theirs.by.as_deref() == Some(record.id.as_str());
            if let Some(theirs) = self.give_up_if(other, State::Rejected, by)? {
                reopened.push(theirs.id);
            }
        }
        Ok(reopened)
    }

    /// Gives up the record at `handle` when it is in `state` and `holds`, in one step on
    /// its node (a record claimed anew meanwhile is left alone); the record it gave up.
    fn give_up_if(
        &self,
        handle: Handle,
        state: State,
        holds: impl Fn(&Record) -> bool,
    ) -> Result<Option<Record>> {
        let Some(bytes) = self.read_record_at(handle)? else {
            return Ok(None);
        };
        let record = record::read(&format!("handle {handle}"), &bytes)?;
        if record.state != state || !holds(&record) {
            return Ok(None);
        }
        let given_up = record::with_state(&bytes, State::Aborted);
        Ok(self
            .compare_and_set(handle, &bytes, &given_up)?
            .then_some(record))
    }
}
