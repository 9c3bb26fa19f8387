//! What the writer holds to decide records again when a document they were judged against
//! changes (the module `rejudge` says when and how): the records rejected, the copies
//! flagged, the documents added and the texts of the records replaced since the commit,
//! the watches of the rejections committed before, and the work a change leaves.
//!
//! What is held until the commit is a copy of documents of the pending batch (and of the
//! records of the committed holders it changes): bounded by it.

use std::collections::{HashMap, HashSet, VecDeque};

use super::outcome::Rejudged;
use super::prepared_document::{Decision, PreparedDocument};
use super::watches::Watches;
use crate::error::Result;

/// What the writer holds to decide records again (see the module's documentation).
#[derive(Default)]
pub(super) struct Dependents {
    /// Rejected records with a key, by key: the keys of the references they were judged
    /// near, and the record.
    pub rejected: HashMap<String, (Vec<String>, PreparedDocument)>,
    /// Rejected records without a key, likewise.
    rejected_keyless: Vec<(Vec<String>, PreparedDocument)>,
    /// The keys of the records rejected near each reference (`rejected` says which of them
    /// are still held so).
    rejected_near: HashMap<String, Vec<String>>,
    /// Copies flagged since the commit, by key: the key of their original, and the copy
    /// unflagged.
    flagged: HashMap<String, (String, PreparedDocument)>,
    /// The keys of the copies flagged against each original (`flagged` says which of them
    /// are still held so).
    flagged_against: HashMap<String, Vec<String>>,
    /// Under Replace: the keyed documents added since the commit, by key.
    pub added: HashMap<String, PreparedDocument>,
    /// Under Replace: the texts of the records made since the commit, by record.
    pub texts: HashMap<String, PreparedDocument>,
    /// The records of `texts` of each key.
    text_keys: HashMap<String, Vec<String>>,
    /// Records of `texts` whose key was decided again since with another text: let go when
    /// their holder changes.
    pub superseded: HashSet<String>,
    /// The keys decided since the commit, with the record of their latest text: a record of
    /// such a key with another text (read back from a committed holder) is let go.
    pub latest: HashMap<String, Option<String>>,
    /// Records rejected before the commit, by key and version, watched until a reference
    /// they were judged near changes (and kept in the index's ledger under Reject).
    pub watches: Watches,
    /// Keys deleted by key since the commit: their records are let go with them.
    pub deleted: HashSet<String>,
    /// The rejected texts reported lost since the commit, by key: their keys' latest words.
    pub lost: HashMap<String, Option<u64>>,
    /// What is left to do.
    pub queue: VecDeque<Work>,
    /// The records decided again, not taken yet.
    pub rejudged: Vec<Rejudged>,
}

/// A step of the work a change leaves.
pub(super) enum Work {
    /// The document of this key changed: decide again what was judged against it.
    Changed(String),
    /// Decide this record again, because `after` changed, as `decision` says; a flagged
    /// copy written again ([`Decision::FlaggedCopy`]) has its indexed version deleted first.
    /// `quiet`: its key's latest word was found another text, rejected, when it was queued
    /// (it is not reported).
    Decide {
        prepared: PreparedDocument,
        after: String,
        decision: Decision,
        quiet: bool,
    },
    /// Write this holder again without the records of a key decided or deleted since they
    /// were made (unreported: its text is the same), unless it changed since.
    Rewrite(PreparedDocument),
}

impl Dependents {
    /// Nothing held yet, the committed rejections of `watches` watched.
    /// What a writer opening holds: `watches` read from the ledger, and the reports of
    /// lost records an earlier writer made and did not deliver, to be made again.
    pub fn watching(watches: Watches) -> Dependents {
        let mut rejudged: Vec<Rejudged> = (watches.undelivered())
            .map(|(key, after, outcome)| match outcome {
                Some(outcome) => Rejudged::Decided {
                    key: Some(key.to_owned()),
                    after: after.to_owned(),
                    outcome,
                    repeated: true,
                },
                None => Rejudged::Lost {
                    key: key.to_owned(),
                    after: after.to_owned(),
                    repeated: true,
                },
            })
            .collect();
        rejudged.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        Dependents {
            watches,
            rejudged,
            ..Dependents::default()
        }
    }

    /// A record of `key` and `version` (whose record of
    /// [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD) is `record`) is decided now: what
    /// was held of that key with another text is superseded (held with the same text, it
    /// stands), and so are the records of its other texts.
    pub fn forget(&mut self, key: &str, version: Option<u64>, record: Option<&str>) {
        if (self.rejected.get(key)).is_some_and(|(_, held)| held.version != version) {
            self.rejected.remove(key);
        }
        self.watches.forget(key, version);
        self.lost.remove(key);
        self.forget_texts(key, record);
    }

    /// [`forget`](Self::forget) for a document written again with the text it has (a
    /// holder written again without some of its records): a later text of its key rejected
    /// (held, watched, or reported lost) stays its latest word.
    pub fn forget_texts(&mut self, key: &str, record: Option<&str>) {
        for other in self.text_keys.get(key).into_iter().flatten() {
            // Sent again with the text of a record: that record is its latest text again.
            if Some(other.as_str()) == record {
                self.superseded.remove(other);
            } else {
                self.superseded.insert(other.clone());
            }
        }
        // A copy held as flagged, or a document held as added, stays: the new text may be
        // rejected (under Reject), leaving it indexed (`written_over` once it is not).
        self.deleted.remove(key);
        self.latest
            .insert(key.to_owned(), record.map(str::to_owned));
    }

    /// The text of `key` of `version` is written (not rejected): a document of another
    /// text of it held as flagged or added is no longer in the index.
    pub fn written_over(&mut self, key: &str, version: Option<u64>) {
        if (self.flagged.get(key)).is_some_and(|(_, held)| held.version != version) {
            self.flagged.remove(key);
        }
        if (self.added.get(key)).is_some_and(|held| held.version != version) {
            self.added.remove(key);
        }
    }

    /// The document of `key` is deleted by key: whatever was held of it goes, and a record
    /// of it that a document holds is not decided again when its holder changes.
    pub fn deleted(&mut self, key: &str) {
        self.watches.unwatch(key);
        self.rejected.remove(key);
        self.flagged.remove(key);
        self.added.remove(key);
        self.lost.remove(key);
        self.deleted.insert(key.to_owned());
    }

    /// Whether the latest word of `key` is a text other than `version` rejected (held until
    /// the commit, watched since, or reported lost since the commit).
    pub fn rejected_other(&self, key: &str, version: Option<u64>) -> bool {
        (self.rejected.get(key)).is_some_and(|(_, held)| held.version != version)
            || self.watches.watches_other(key, version)
            || (self.lost.get(key)).is_some_and(|lost| *lost != version)
    }

    /// Holds a rejected record, judged near the references of `against`.
    pub fn hold_rejected(&mut self, against: Vec<String>, prepared: PreparedDocument) {
        if against.is_empty() {
            return;
        }
        match prepared.key.clone() {
            Some(key) => {
                for reference in &against {
                    (self.rejected_near.entry(reference.clone()).or_default()).push(key.clone());
                }
                self.rejected.insert(key, (against, prepared));
            }
            None => self.rejected_keyless.push((against, prepared)),
        }
    }

    /// Holds a copy flagged against the document of `original`, unflagged.
    pub fn hold_flagged(&mut self, original: String, prepared: PreparedDocument) {
        if let Some(key) = prepared.key.clone() {
            (self.flagged_against.entry(original.clone()).or_default()).push(key.clone());
            self.flagged.insert(key, (original, prepared));
        }
    }

    /// Takes the records held as rejected near `reference`, and the copies held as flagged
    /// against it.
    pub fn take_near(&mut self, reference: &str) -> (Vec<PreparedDocument>, Vec<PreparedDocument>) {
        let mut rejected = Vec::new();
        for key in self.rejected_near.remove(reference).unwrap_or_default() {
            let near = |(against, _): &(Vec<String>, PreparedDocument)| {
                against.iter().any(|other| other == reference)
            };
            if self.rejected.get(&key).is_some_and(near) {
                rejected.extend(self.rejected.remove(&key).map(|(_, held)| held));
            }
        }
        let (now, later): (Vec<_>, Vec<_>) = (std::mem::take(&mut self.rejected_keyless))
            .into_iter()
            .partition(|(against, _)| against.iter().any(|other| other == reference));
        self.rejected_keyless = later;
        rejected.extend(now.into_iter().map(|(_, held)| held));
        let mut flagged = Vec::new();
        for key in self.flagged_against.remove(reference).unwrap_or_default() {
            if (self.flagged.get(&key)).is_some_and(|(original, _)| original == reference) {
                flagged.extend(self.flagged.remove(&key).map(|(_, held)| held));
            }
        }
        (rejected, flagged)
    }

    /// Holds a document added under Replace, which a later one may replace.
    pub fn hold_added(&mut self, key: String, prepared: PreparedDocument) {
        self.added.insert(key, prepared);
    }

    /// The document of `key` held by [`hold_added`](Self::hold_added), taken.
    pub fn take_added(&mut self, key: &str) -> Option<PreparedDocument> {
        self.added.remove(key)
    }

    /// Holds the text of `record`, replaced now.
    pub fn hold_text(&mut self, record: String, prepared: PreparedDocument) {
        if let Some(key) = prepared.key.clone() {
            (self.text_keys.entry(key).or_default()).push(record.clone());
        }
        self.superseded.remove(&record);
        self.texts.insert(record, prepared);
    }

    /// Holds the text of `record`, read back from a committed document holding it (where
    /// [`REPLACED_TEXT_FIELD`](crate::plugin::REPLACED_TEXT_FIELD) keeps it).
    pub fn load_text(&mut self, record: String, prepared: PreparedDocument) {
        if let Some(key) = prepared.key.clone() {
            (self.text_keys.entry(key).or_default()).push(record.clone());
        }
        self.texts.insert(record, prepared);
    }

    /// Whether the text of `record` is held.
    pub fn holds_text(&self, record: &str) -> bool {
        self.texts.contains_key(record)
    }

    /// Writes the held texts of `records` into `document`'s
    /// [`REPLACED_TEXT_FIELD`](crate::plugin::REPLACED_TEXT_FIELD), which keeps them past
    /// the commit.
    pub fn write_texts(
        &self,
        schema: &tantivy::schema::Schema,
        fields: &crate::plugin::DedupFields,
        document: &mut tantivy::TantivyDocument,
        records: &[String],
    ) {
        let texts = (records.iter())
            .filter_map(|record| Some((record.as_str(), &self.texts.get(record)?.document)));
        fields.add_texts(schema, document, texts);
    }

    /// The document of `key` changed.
    pub fn changed(&mut self, key: &str) {
        self.queue.push_back(Work::Changed(key.to_owned()));
    }

    /// Before tantivy's commit: the rejected records' keys and versions are watched, and
    /// the ledger written (see [`Watches::persist`]).
    ///
    /// # Errors
    /// As [`Watches::persist`].
    pub fn persist(&mut self) -> Result<Option<u64>> {
        for (key, (against, held)) in std::mem::take(&mut self.rejected) {
            self.watches.watch(&key, held.version, &against);
        }
        self.watches.persist()
    }

    /// The commit (after [`persist`](Self::persist)): what is held of the batch is let go.
    ///
    /// # Errors
    /// As [`Watches::committed`].
    pub fn commit(&mut self) -> Result<()> {
        self.rollback();
        self.watches.committed()
    }

    /// `key`'s text is reported lost, because `after` changed; kept in the ledger until
    /// the report is delivered.
    pub fn report_lost(&mut self, key: &str, after: &str) {
        self.watches.lost(key, after);
        self.rejudged.push(Rejudged::Lost {
            key: key.to_owned(),
            after: after.to_owned(),
            repeated: false,
        });
    }

    /// A rollback: what was held of the batch is dropped with it.
    pub fn rollback(&mut self) {
        self.rejected.clear();
        self.rejected_keyless.clear();
        self.rejected_near.clear();
        self.flagged.clear();
        self.flagged_against.clear();
        self.added.clear();
        self.texts.clear();
        self.text_keys.clear();
        self.superseded.clear();
        self.latest.clear();
        self.deleted.clear();
        self.lost.clear();
        self.queue.clear();
        self.rejudged.clear();
    }
}
