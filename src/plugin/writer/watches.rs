//! The watches of committed rejections: under [`Policy::Reject`](super::Policy), a record
//! rejected near a document is watched, by key and text version, until that document
//! changes; then, unless its key holds that text by then, it is reported
//! [`Rejudged::Lost`](super::Rejudged). Kept in memory, and in the index's ledger
//! (`ledger`) so that a later writer, in a later run and of any policy, watches them too.
//!
//! A record reported lost stays in the ledger until its report is delivered: handed out by
//! [`DedupWriter::take_rejudged`](super::DedupWriter::take_rejudged), then two commits made
//! (the first is the one its report line waits for; the caller has recorded it before the
//! second). A writer that opens reports again the ones of a writer that stopped before
//! that, so that a report lost with a killed process is made again: at least once.

use foldhash::{HashMap, HashSet};

use tantivy::Directory;

use super::ledger::{Entry, Ledger, Named};
use super::outcome::AddOutcome;
use crate::error::Result;

/// What is watched, and the ledger it is kept in.
#[derive(Debug, Default)]
pub(super) struct Watches {
    /// By the key of the document they were rejected near: the rejected keys, each with
    /// its text version and the stamp of its watch.
    by_reference: HashMap<String, HashMap<String, (Option<u64>, u64)>>,
    /// The keys watched, with the version and stamp of their watch: an entry of
    /// `by_reference` of another is dead (its key was decided again since).
    watched: HashMap<String, (Option<u64>, u64)>,
    /// The last stamp given.
    stamp: u64,
    ledger: Option<Ledger>,
    /// The changes since the ledger was last written.
    pending: Vec<Entry>,
    /// Records reported lost or decided again whose report is not delivered, with the key
    /// whose change did it, and the outcome (as JSON) of one decided again.
    undelivered: HashMap<String, (String, Option<String>)>,
    /// Of those, the ones handed out since the last commit.
    handed: HashSet<String>,
    /// Of those, the ones handed out before the last commit: the next delivers them.
    armed: HashSet<String>,
}

impl Watches {
    /// The watches kept in `directory`'s ledger, read.
    ///
    /// # Errors
    /// As [`Ledger::open`].
    pub fn open(directory: Box<dyn Directory>, named: Named) -> Result<Watches> {
        let (ledger, entries) = Ledger::open(directory, named)?;
        let mut watches = Watches::default();
        for entry in entries {
            watches.apply(entry);
        }
        watches.ledger = Some(ledger);
        Ok(watches)
    }

    /// Makes the change of `entry` in memory.
    fn apply(&mut self, entry: Entry) {
        match entry {
            Entry::Watch {
                reference,
                rejected,
                version,
            } => {
                // A key watched again with the same text keeps its watch (and its other
                // references); with another, it starts a new one.
                let watch = match self.watched.get(&rejected) {
                    Some(&(watched, stamp)) if watched == version => (version, stamp),
                    _ => {
                        self.stamp += 1;
                        (version, self.stamp)
                    }
                };
                self.watched.insert(rejected.clone(), watch);
                (self.by_reference.entry(reference).or_default()).insert(rejected, watch);
            }
            Entry::Unwatch { rejected } => {
                self.watched.remove(&rejected);
            }
            Entry::Drop { reference } => {
                self.by_reference.remove(&reference);
            }
            Entry::Lost { rejected, after } => {
                self.undelivered.insert(rejected, (after, None));
            }
            Entry::Decided {
                rejected,
                after,
                outcome,
            } => {
                self.undelivered.insert(rejected, (after, Some(outcome)));
            }
            Entry::Delivered { rejected } => {
                self.undelivered.remove(&rejected);
            }
        }
    }

    /// `rejected` is reported lost, because `after` changed: kept until the report is
    /// delivered.
    pub fn lost(&mut self, rejected: &str, after: &str) {
        self.handed.remove(rejected);
        self.armed.remove(rejected);
        self.change(Entry::Lost {
            rejected: rejected.to_owned(),
            after: after.to_owned(),
        });
    }

    /// `rejected` is decided again, to `outcome`, because `after` changed: kept until the
    /// report is delivered.
    pub fn decided(&mut self, rejected: &str, after: &str, outcome: &AddOutcome) {
        self.handed.remove(rejected);
        self.armed.remove(rejected);
        self.change(Entry::Decided {
            rejected: rejected.to_owned(),
            after: after.to_owned(),
            outcome: serde_json::to_string(outcome).expect("an outcome serializes"),
        });
    }

    /// The report of `rejected`'s loss is handed out: delivered by the second commit from
    /// now.
    pub fn handed(&mut self, rejected: &str) {
        if self.undelivered.contains_key(rejected) {
            self.handed.insert(rejected.to_owned());
        }
    }

    /// The records reported lost or decided again whose reports were not delivered, with
    /// the key whose change did it and the outcome of one decided again: a writer that
    /// opens reports them again. (An outcome a later version wrote that this one cannot
    /// read is reported as the record's id indexed.)
    pub fn undelivered(&self) -> impl Iterator<Item = (&str, &str, Option<AddOutcome>)> {
        (self.undelivered.iter()).map(|(rejected, (after, outcome))| {
            let outcome = outcome.as_deref().map(|json| {
                serde_json::from_str(json).unwrap_or_else(|_| AddOutcome::Exists {
                    key: rejected.clone(),
                })
            });
            (rejected.as_str(), after.as_str(), outcome)
        })
    }

    /// Whether a commit would deliver reports handed out (see the module's documentation).
    pub fn delivers(&self) -> bool {
        !self.armed.is_empty()
    }

    /// Makes the change of `entry`, to be written to the ledger at the next commit.
    fn change(&mut self, entry: Entry) {
        if self.ledger.is_some() {
            self.pending.push(entry.clone());
        }
        self.apply(entry);
    }

    /// Watches `rejected`, with text `version`, rejected near the documents of
    /// `references`.
    pub fn watch(&mut self, rejected: &str, version: Option<u64>, references: &[String]) {
        for reference in references {
            let live = self.watched.get(rejected).map(|&(watched, _)| watched);
            let known = (self.by_reference.get(reference))
                .and_then(|watching| watching.get(rejected))
                .is_some_and(|watch| Some(watch) == self.watched.get(rejected));
            // Rejected again as it was (a run repeated): nothing new to write.
            if known && live == Some(version) {
                continue;
            }
            self.change(Entry::Watch {
                reference: reference.clone(),
                rejected: rejected.to_owned(),
                version,
            });
        }
    }

    /// A record of `key` with text `version` is decided now: a watch of another text of
    /// the key ends (it is not the key's latest word); one of this text stays, for it may
    /// be rejected again as it was.
    pub fn forget(&mut self, key: &str, version: Option<u64>) {
        if (self.watched.get(key)).is_some_and(|&(watched, _)| watched != version) {
            self.unwatch(key);
        }
    }

    /// Whether a text of `key` other than `version` is watched (rejected, its key's latest
    /// word).
    pub fn watches_other(&self, key: &str, version: Option<u64>) -> bool {
        (self.watched.get(key)).is_some_and(|&(watched, _)| watched != version)
    }

    /// `key` is watched no more (deleted, or reported lost).
    pub fn unwatch(&mut self, key: &str) {
        if self.watched.contains_key(key) {
            self.change(Entry::Unwatch {
                rejected: key.to_owned(),
            });
        }
    }

    /// The document of `reference` changed: the keys watched near it, with their text
    /// versions, no longer watched near it; in the order they were watched (the maps' order
    /// changes from run to run, and the reports of records lost follow this one).
    pub fn take(&mut self, reference: &str) -> Vec<(String, Option<u64>)> {
        // `apply` of the drop, without a copy of what it drops.
        let Some(watching) = self.by_reference.remove(reference) else {
            return Vec::new();
        };
        if self.ledger.is_some() {
            self.pending.push(Entry::Drop {
                reference: reference.to_owned(),
            });
        }
        let mut taken: Vec<(u64, String, Option<u64>)> = (watching.into_iter())
            .filter(|(rejected, watch)| self.watched.get(rejected) == Some(watch))
            .map(|(rejected, (version, stamp))| (stamp, rejected, version))
            .collect();
        taken.sort_unstable_by_key(|(stamp, ..)| *stamp);
        (taken.into_iter())
            .map(|(_, rejected, version)| (rejected, version))
            .collect()
    }

    /// Writes the changes since the last call to the ledger, synced, and rewrites it when
    /// most of its entries are dead (leaving those out of memory too). Called before
    /// tantivy's commit: an entry of a commit that then fails watches a record that is in
    /// no document, which is true.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the ledger cannot be written; the changes stay
    /// pending.
    pub fn persist(&mut self) -> Result<Option<u64>> {
        // The reports handed out before the last commit: recorded by now.
        for rejected in std::mem::take(&mut self.armed) {
            if self.undelivered.contains_key(&rejected) {
                self.change(Entry::Delivered { rejected });
            }
        }
        self.armed = std::mem::take(&mut self.handed);
        let Some(ledger) = &mut self.ledger else {
            return Ok(None);
        };
        // Nothing changed: neither the dead entries nor the files grew.
        if self.pending.is_empty() && !ledger.is_legacy() {
            return Ok(ledger.tip());
        }
        ledger.append(&self.pending)?;
        self.pending.clear();
        let watched = &self.watched;
        let live: usize = (self.by_reference.values())
            .map(|watching| {
                (watching.iter())
                    .filter(|(rejected, watch)| watched.get(*rejected) == Some(watch))
                    .count()
            })
            .sum();
        let live = live + self.undelivered.len();
        if !ledger.due(live) {
            return Ok(ledger.tip());
        }
        // Dead entries go from memory too: it holds what the ledger does.
        for watching in self.by_reference.values_mut() {
            watching.retain(|rejected, watch| watched.get(rejected) == Some(watch));
        }
        self.by_reference.retain(|_, watching| !watching.is_empty());
        let watches = (self.by_reference.iter()).flat_map(|(reference, watching)| {
            (watching.iter()).map(|(rejected, &(version, _))| Entry::Watch {
                reference: reference.clone(),
                rejected: rejected.clone(),
                version,
            })
        });
        let lost = (self.undelivered.iter()).map(|(rejected, (after, outcome))| match outcome {
            Some(outcome) => Entry::Decided {
                rejected: rejected.clone(),
                after: after.clone(),
                outcome: outcome.clone(),
            },
            None => Entry::Lost {
                rejected: rejected.clone(),
                after: after.clone(),
            },
        });
        let live: Vec<Entry> = watches.chain(lost).collect();
        ledger.compact(live.iter())?;
        Ok(ledger.tip())
    }

    /// tantivy's commit is made: what the ledger replaced is deleted (see
    /// [`Ledger::committed`]).
    ///
    /// # Errors
    /// As [`Ledger::committed`].
    pub fn committed(&mut self) -> Result<()> {
        match &mut self.ledger {
            Some(ledger) => ledger.committed(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::directory::RamDirectory;

    fn commit(watches: &mut Watches) {
        watches.persist().unwrap();
        watches.committed().unwrap();
    }

    fn open(directory: &RamDirectory) -> Watches {
        Watches::open(Box::new(directory.clone()), Named::Unknown).unwrap()
    }

    #[test]
    fn a_later_writer_watches_what_an_earlier_one_committed() {
        let directory = RamDirectory::create();
        let mut first = open(&directory);
        first.watch("r", Some(7), &["j".into(), "k".into()]);
        first.watch("s", None, &["j".into()]);
        commit(&mut first);
        let mut second = open(&directory);
        let mut near_j = second.take("j");
        near_j.sort();
        assert_eq!(near_j, [("r".into(), Some(7)), ("s".into(), None)]);
        second.unwatch("r");
        commit(&mut second);
        let mut third = open(&directory);
        assert!(third.take("j").is_empty(), "taken");
        assert!(third.take("k").is_empty(), "r is watched no more");
    }

    #[test]
    fn a_key_rejected_again_as_it_was_writes_nothing_and_another_text_ends_its_watch() {
        let directory = RamDirectory::create();
        let mut watches = open(&directory);
        watches.watch("r", Some(7), &["j".into()]);
        commit(&mut watches);
        watches.forget("r", Some(7));
        watches.watch("r", Some(7), &["j".into()]);
        assert!(watches.pending.is_empty(), "{:?}", watches.pending);
        watches.forget("r", Some(8));
        commit(&mut watches);
        assert!(open(&directory).take("j").is_empty());
    }

    #[test]
    fn dead_entries_are_compacted_away() {
        let directory = RamDirectory::create();
        let mut watches = open(&directory);
        for round in 0..10u64 {
            watches.watch("r", Some(round), &["j".into()]);
            watches.forget("r", Some(round + 1));
            watches.watch("r", Some(round + 1), &["k".into()]);
            commit(&mut watches);
        }
        let ledger = watches.ledger.as_ref().unwrap();
        assert!(ledger.due(0) && !ledger.due(1), "{ledger:?}");
        assert_eq!(watches.by_reference.len(), 1, "{:?}", watches.by_reference);
        assert_eq!(open(&directory).take("k"), [("r".into(), Some(10))]);
    }
}
