//! Records judged again: when a document changes (a new version of its key, or a delete by
//! key), the records the writer judged against its old text are decided again, so that no
//! input text silently ends up nowhere. The writer's equivalent of a database's dependency
//! tracking for derived rows.
//!
//! * Under [`Policy::Reject`], a rejected record is held, with the keys of the references it
//!   was judged near, until the commit; a change of one of those keys decides it again (an
//!   update or an add when it is near nothing now). After the commit only its key and text
//!   version are kept, with its references' keys (`watches`), in memory and in the index's
//!   ledger (`ledger`), which later writers of every policy read: a change of one of
//!   them, by this writer or one of a later run, reports it [`Rejudged::Lost`] unless its
//!   key holds that text by then.
//! * The copies flagged against a document (found by
//!   [`DUPLICATE_OF_FIELD`](crate::plugin::DUPLICATE_OF_FIELD), or held since the commit) are
//!   written again from their stored fields and decided again as [`Policy::Flag`] decides:
//!   unflagged, or flagged against another document. So does a writer of any policy in an
//!   index with the flag fields (an earlier Flag run flagged them), a Replace writer also
//!   when its document replaces their original: they are documents of the index, never
//!   rejected nor replacing one. A copy written again is no new word of its key (a later
//!   text of it held or watched as rejected stays so); one whose key was decided otherwise
//!   since it was queued is left as it is. Copies without a key stay as they are.
//! * Under [`Policy::Replace`], a replacing document keeps the stored fields of each record
//!   it holds ([`REPLACED_TEXT_FIELD`](crate::plugin::REPLACED_TEXT_FIELD)), and the batch's
//!   are held until the commit; when their holder changes, those its new text still covers
//!   stay its records, the others are decided again as any addition, in whichever commit or
//!   run it changes. A key deleted, or decided again, takes its records out of the
//!   documents holding them (written again without them), so that no older text of it comes
//!   back later. A record whose text is not kept (made by an older version of the crate, or
//!   copied by a reindex without it), or whose key another document also holds a record of
//!   with no word of which is later, is reported [`Rejudged::Lost`] and dropped, so that
//!   its text, added again, is judged again rather than taken for indexed. A holder
//!   written again, or a record decided again, is no new word of its key: a later text of
//!   it rejected (by a Reject writer, held or watched) stays its latest word.
//!
//! What is held until the commit is a copy of documents of the pending batch (and of the
//! records of the committed holders it changes): bounded by it.

use std::collections::{HashMap, HashSet, VecDeque};

use super::dedup_writer::{Decision, DedupWriter, PreparedDocument, State};
use super::watches::Watches;
use super::AddOutcome;
#[cfg(doc)]
use super::Policy;
use crate::error::Result;
use crate::fingerprint::{Fingerprint, Signature};

/// A record decided again because a document it had been judged against changed (see
/// [`DedupWriter::take_rejudged`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Rejudged {
    /// Decided again: its new outcome (an [`AddOutcome::Updated`] or
    /// [`AddOutcome::Added`] for a record kept out before and near nothing now, an
    /// [`AddOutcome::Added`] for a copy unflagged, ...).
    Decided {
        /// The record's key, when it has one.
        key: Option<String>,
        /// The key of the document whose change decided it again.
        after: String,
        /// What the writer did with it now.
        outcome: AddOutcome,
        /// Reported by an earlier writer too, which stopped before it was known to be
        /// recorded (see [`DedupWriter::take_rejudged`]): a reader that keeps every report
        /// may hold it already.
        repeated: bool,
    },
    /// Its text is in no document, and no near-duplicate of it is: it was kept out (rejected,
    /// or replaced) because of a document that changed, at a time the writer no longer holds
    /// its text (before the last commit). Fetch it again and add it.
    Lost {
        /// The record's key.
        key: String,
        /// The key of the document whose change left it out.
        after: String,
        /// Reported by an earlier writer too, which stopped before it was known to be
        /// recorded (see [`DedupWriter::take_rejudged`]): a reader that keeps every report
        /// may hold it already.
        repeated: bool,
    },
}

/// What the writer holds to decide records again (see the module's documentation).
#[derive(Default)]
pub(super) struct Dependents {
    /// Rejected records with a key, by key: the keys of the references they were judged
    /// near, and the record.
    rejected: HashMap<String, (Vec<String>, PreparedDocument)>,
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
    added: HashMap<String, PreparedDocument>,
    /// Under Replace: the texts of the records made since the commit, by record.
    texts: HashMap<String, PreparedDocument>,
    /// The records of `texts` of each key.
    text_keys: HashMap<String, Vec<String>>,
    /// Records of `texts` whose key was decided again since with another text: let go when
    /// their holder changes.
    superseded: HashSet<String>,
    /// The keys decided since the commit, with the record of their latest text: a record of
    /// such a key with another text (read back from a committed holder) is let go.
    latest: HashMap<String, Option<String>>,
    /// Records rejected before the commit, by key and version, watched until a reference
    /// they were judged near changes (and kept in the index's ledger under Reject).
    watches: Watches,
    /// Keys deleted by key since the commit: their records are let go with them.
    deleted: HashSet<String>,
    /// The rejected texts reported lost since the commit, by key: their keys' latest words.
    lost: HashMap<String, Option<u64>>,
    /// What is left to do.
    queue: VecDeque<Work>,
    /// The records decided again, not taken yet.
    pub rejudged: Vec<Rejudged>,
}

/// A step of the work a change leaves.
enum Work {
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
    fn rejected_other(&self, key: &str, version: Option<u64>) -> bool {
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
    fn take_near(&mut self, reference: &str) -> (Vec<PreparedDocument>, Vec<PreparedDocument>) {
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

/// Whether two documents' values make them near-duplicates by `writer`'s rule.
fn covers(
    writer: &DedupWriter,
    (fingerprint, signature, scope): (Fingerprint, Option<&Signature>, Option<u64>),
    other: &PreparedDocument,
) -> bool {
    let Some(theirs) = other.fingerprint else {
        return false;
    };
    if writer.index().settings().get_scope_field().is_some() && scope != other.scope {
        return false;
    }
    let distance = (fingerprint.bits() ^ theirs.bits()).count_ones();
    (writer.matcher())
        .judge(
            distance,
            signature.map(Signature::values),
            other.signature.as_ref().map(Signature::values),
        )
        .is_some()
}

impl DedupWriter {
    /// The records the document of `old` holds, now that it goes: those whose text the writer
    /// holds and `new` (the values of the document taking its key's place, when it is a
    /// reference) covers are returned, to be its records; the others with a text are decided
    /// again, and those without one reported lost.
    pub(super) fn release_records(
        &self,
        state: &mut State,
        old: &str,
        new: Option<(Fingerprint, Option<&Signature>, Option<u64>)>,
    ) -> Result<Vec<String>> {
        let held = state.view.holdings_of(old)?;
        let mut kept = Vec::new();
        let fields = self.index().fields();
        // The texts a committed version keeps of its records, held like the batch's own.
        let schema = self.index().index().schema();
        for stored in state.view.committed_docs_of(old)? {
            for (record, text) in fields.texts_in(&schema, &stored) {
                if !state.dependents.holds_text(&record) {
                    state.dependents.load_text(record, self.prepare(text)?);
                }
            }
        }
        // Of two records of one key, the first is the newer: a document's own record comes
        // before the ones it took over.
        let mut seen = HashSet::new();
        for record in held {
            let key = fields.key_of_record(&record);
            if let Some(key) = key {
                // Its page is gone (deleted since the commit), has a document of its own
                // (added again since it was replaced), or a newer record: it is let go.
                let decided = state.dependents.latest.get(key);
                if state.dependents.deleted.contains(key)
                    || state.dependents.superseded.contains(&record)
                    || decided.is_some_and(|latest| latest.as_deref() != Some(record.as_str()))
                    || !seen.insert(key.to_owned())
                    || !state.view.versions_of(key)?.is_empty()
                {
                    state.dependents.texts.remove(&record);
                    continue;
                }
            }
            match state.dependents.texts.remove(&record) {
                Some(text) if new.is_some_and(|new| covers(self, new, &text)) => {
                    kept.push(record.clone());
                    state.dependents.texts.insert(record, text);
                }
                // Another document holds a record of its key too, and which is the later
                // text is not known: reported lost rather than an older text brought back.
                Some(_) if key.is_some_and(|key| self.other_holders(state, key, old, &record)) => {
                    state.dependents.report_lost(key.unwrap_or_default(), old);
                }
                Some(text) => state.dependents.queue.push_back(Work::Decide {
                    prepared: text,
                    after: old.to_owned(),
                    decision: Decision::Older,
                    quiet: false,
                }),
                None => {
                    if let Some(key) = key {
                        state.dependents.report_lost(key, old);
                    }
                }
            }
        }
        Ok(kept)
    }

    /// Lets go of the records of `key` that other documents hold, now that `key` is
    /// deleted or decided again (its latest word is elsewhere): their holders are written
    /// again without them, so that no later change of a holder brings an older text of
    /// `key` back.
    pub(super) fn let_go_records_of(&self, state: &mut State, key: &str) -> Result<()> {
        let fields = self.index().fields();
        if fields.replaced_key.is_none() {
            return Ok(());
        }
        let schema = self.index().index().schema();
        let others = |record: &String| fields.key_of_record(record) != Some(key);
        for (holder, address) in state.view.holders_of_records_of(key)? {
            let rewritten = match address {
                Some(address) => {
                    let stored = state.view.doc_at(address)?;
                    let mut records = fields.records_in(&stored);
                    records.retain(others);
                    // Held like the batch's own: the holder, pending now, may change next.
                    for (record, text) in fields.texts_in(&schema, &stored) {
                        if others(&record) && !state.dependents.holds_text(&record) {
                            state.dependents.load_text(record, self.prepare(text)?);
                        }
                    }
                    let mut document = fields.unmarked(&stored);
                    fields.add_records(&mut document, &records);
                    (state.dependents).write_texts(&schema, fields, &mut document, &records);
                    self.prepare(document)?
                }
                None => {
                    let Some(mut held) = state.dependents.added.get(&holder).cloned() else {
                        continue;
                    };
                    let mut records = state.view.holdings_of(&holder)?;
                    records.retain(others);
                    // Held as it was added: with the records it had then, which go.
                    held.document = fields.unmarked(&held.document);
                    fields.add_records(&mut held.document, &records);
                    (state.dependents).write_texts(&schema, fields, &mut held.document, &records);
                    held.records = records;
                    held
                }
            };
            state.dependents.queue.push_back(Work::Rewrite(rewritten));
        }
        Ok(())
    }

    /// Whether a document other than `old` holds a record of `key`, and `record` is not
    /// known as `key`'s latest text.
    fn other_holders(&self, state: &State, key: &str, old: &str, record: &str) -> bool {
        if (state.dependents.latest.get(key))
            .is_some_and(|latest| latest.as_deref() == Some(record))
        {
            return false;
        }
        (state.view.holders_of_records_of(key)).map_or(true, |holders| {
            holders.iter().any(|(holder, _)| holder != old)
        })
    }

    /// Does the work changes left: decides again what was judged against a changed
    /// document, and what that changes in turn.
    pub(super) fn settle(&self, state: &mut State) -> Result<()> {
        while let Some(work) = state.dependents.queue.pop_front() {
            match work {
                Work::Changed(key) => self.changed(state, &key)?,
                Work::Decide {
                    prepared,
                    after,
                    decision,
                    quiet,
                } => {
                    let key = prepared.key.clone();
                    let rewrite = decision == Decision::FlaggedCopy;
                    if let (true, Some(key), Some(field)) =
                        (rewrite, key.as_deref(), self.index().fields().key)
                    {
                        // Its key decided otherwise since it was queued (a later text of it
                        // held as rejected, decided again first): that one stands.
                        if state.view.versions_of(key)? != [prepared.version] {
                            continue;
                        }
                        (state.writer).delete_term(tantivy::Term::from_field_text(field, key));
                        state.view.delete_key(key)?;
                    }
                    // A copy or a record whose key's latest word is another text, rejected
                    // (by a Reject writer): decided unreported, its key's report stands.
                    let unreported = quiet
                        || decision != Decision::Sent
                            && key.as_deref().is_some_and(|key| {
                                (state.dependents).rejected_other(key, prepared.version)
                            });
                    let outcome = self.decide_as(state, prepared, decision)?;
                    if unreported {
                        continue;
                    }
                    if let Some(key) = &key {
                        state.dependents.watches.decided(key, &after, &outcome);
                    }
                    (state.dependents.rejudged).push(Rejudged::Decided {
                        key,
                        after,
                        outcome,
                        repeated: false,
                    });
                }
                Work::Rewrite(prepared) => {
                    let (Some(key), Some(field)) =
                        (prepared.key.clone(), self.index().fields().key)
                    else {
                        continue;
                    };
                    // Replaced or updated since it was queued: nothing to write again.
                    if state.view.versions_of(&key)? != [prepared.version] {
                        continue;
                    }
                    (state.writer).delete_term(tantivy::Term::from_field_text(field, &key));
                    state.view.delete_key(&key)?;
                    self.decide_as(state, prepared, Decision::Older)?;
                }
            }
        }
        Ok(())
    }

    /// Queues what was judged against the document of `key`, which changed.
    fn changed(&self, state: &mut State, key: &str) -> Result<()> {
        let mut again = Vec::new();
        let (rejected, flagged) = state.dependents.take_near(key);
        // The texts rejected near it, by key: their keys' latest words, taken here.
        let mut rejected_words: HashMap<String, Option<u64>> = (rejected.iter())
            .filter_map(|held| Some((held.key.clone()?, held.version)))
            .collect();
        again.extend(rejected.into_iter().map(|held| (held, Decision::Sent)));
        for copy in flagged {
            let current = match copy.key.as_deref() {
                Some(copy_key) => state.view.versions_of(copy_key)?,
                None => Vec::new(),
            };
            // Written again since (and so held again, or decided otherwise): not this one.
            if current == [copy.version] {
                again.push((copy, Decision::FlaggedCopy));
            }
        }
        // Whatever this writer's policy: an earlier Flag run may have flagged them (none
        // without the flag fields).
        for (_, stored) in state.view.flagged_against(key)? {
            let unmarked = self.index().fields().unmarked(&stored);
            again.push((self.prepare(unmarked)?, Decision::FlaggedCopy));
        }
        for (rejected, version) in state.dependents.watches.take(key) {
            rejected_words.insert(rejected.clone(), version);
            // Rejected again with that text since the commit (held to be decided again,
            // or near another reference still), or indexed with it: not lost.
            let held = (state.dependents.rejected.get(&rejected))
                .is_some_and(|(_, held)| held.version == version);
            if held || state.view.versions_of(&rejected)?.contains(&version) {
                continue;
            }
            state.dependents.watches.unwatch(&rejected);
            state.dependents.lost.insert(rejected.clone(), version);
            state.dependents.report_lost(&rejected, key);
        }
        for (prepared, decision) in again {
            let other =
                |key: &str| (rejected_words.get(key)).is_some_and(|v| *v != prepared.version);
            let quiet = decision != Decision::Sent && prepared.key.as_deref().is_some_and(other);
            state.dependents.queue.push_back(Work::Decide {
                prepared,
                after: key.to_owned(),
                decision,
                quiet,
            });
        }
        Ok(())
    }

    /// Takes the records decided again since the last call (by this writer's adds and
    /// deletes, from every thread), in the order they were decided: when a document changes,
    /// a record rejected or flagged against its old text, or replaced by it, is decided again
    /// ([`Rejudged::Decided`]), or reported [`Rejudged::Lost`] when its text is no longer
    /// held. What is held to do so until the commit is bounded by the pending batch, and so
    /// are these: the commit (or a rollback) drops the ones not taken.
    ///
    /// A record reported [`Rejudged::Lost`] or decided again (with a key) is kept in the
    /// index's ledger until its report is delivered: taken here, then two commits made (record what this returns before
    /// the second; `ingest` writes its report lines after the first). A writer that opens on an index whose
    /// last writer stopped before that (killed, or dropped) reports those records again,
    /// with `repeated` set, from its first call: a report is made at least once.
    /// [`deliver_reports`](Self::deliver_reports) makes the commit that delivers them when
    /// there is nothing else to commit.
    pub fn take_rejudged(&self) -> Vec<Rejudged> {
        let mut state = self.lock();
        let taken = std::mem::take(&mut state.dependents.rejudged);
        for rejudged in &taken {
            match rejudged {
                Rejudged::Lost { key, .. } | Rejudged::Decided { key: Some(key), .. } => {
                    state.dependents.watches.handed(key)
                }
                Rejudged::Decided { key: None, .. } => {}
            }
        }
        taken
    }

    /// Commits when reports of lost records taken by
    /// [`take_rejudged`](Self::take_rejudged) after their commit are yet to be delivered
    /// (see there): the last step of a job, once its report is recorded. Whether it
    /// committed.
    ///
    /// # Errors
    /// As [`commit`](Self::commit).
    pub fn deliver_reports(&self) -> Result<bool> {
        if !self.lock().dependents.watches.delivers() {
            return Ok(false);
        }
        self.commit()?;
        Ok(true)
    }
}
