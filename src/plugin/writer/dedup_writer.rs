//! `DedupWriter`: an [`IndexWriter`] that fingerprints each document and rejects, flags or
//! replaces near-duplicates before they are indexed.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tantivy::index::SegmentId;
use tantivy::query::Query;
use tantivy::schema::TantivyDocument;
use tantivy::{IndexReader, IndexWriter, Opstamp, ReloadPolicy, Searcher, SegmentMeta, Term};

use super::prepared_commit::DedupPreparedCommit;
use super::rejudge::Dependents;
use super::view::{Judged, WriterView};
use super::watches::Watches;
use super::{decode_payload, AddOutcome, Check, Policy};
use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, Signature};
use crate::matching::{check_distance, Matcher};
use crate::plugin::columns::stored::next_sequence;
use crate::plugin::segment_values;
use crate::plugin::{DedupIndex, MAX_REPLACED_RECORDS};

/// Wraps an [`IndexWriter`]: [`add`](Self::add) computes the document's fingerprint from the
/// settings' text fields, looks for a near-duplicate among every alive document of the index
/// and every document added since the last commit, and applies the [`Policy`].
///
/// - **Shared by threads.** Every method takes `&self`; put the writer in an `Arc`.
///   Fingerprints are computed in the calling threads, in parallel; the check and the insert
///   are one step under a lock, so two near-duplicates added at once never both get in.
/// - **True to the commits.** On creation the writer reads every alive fingerprint of the
///   last commit (`docs/BENCHMARKS.md` has the rate). Deletes by key
///   update it at once; [`commit`](Self::commit) keeps it; [`rollback`](Self::rollback)
///   reads the last commit again, so rolled-back documents vanish from it. Segment merges
///   change nothing it sees.
/// - **Documents without a fingerprint** (no features: empty, or only punctuation) are
///   indexed, and never duplicates of one another. Texts longer than
///   [`max_text_bytes`](crate::fingerprint::FingerprintConfig::max_text_bytes) are fingerprinted on
///   their prefix.
/// - **Keys.** With a [key field](crate::plugin::DedupSettings::key_field), a document whose
///   key is in the index already with the same text is not added again
///   ([`AddOutcome::Exists`]), so an interrupted ingestion can be run again from the start;
///   with another text it replaces the indexed version in one step, atomic against other
///   threads and against a crash ([`AddOutcome::Updated`]; the new text is checked
///   against every other document as any addition is). "The same text" is the same digest
///   of the fingerprinted text ([`CONTENT_FIELD`](crate::plugin::CONTENT_FIELD)); an index
///   made before that field existed compares fingerprints instead. A document a
///   near-duplicate replaced under [`Policy::Replace`] is `Exists` too when added again
///   with its key and text, while its replacement is indexed and its key has no document
///   of its own ([`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD)).
///
/// ```
/// use tantivy::schema::Schema;
/// use tantivy::{doc, Index};
/// use tantivy_dedup::plugin::{text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy};
///
/// let settings = DedupSettings::new(["body"]).key_field("url");
/// let mut schema = Schema::builder();
/// let body = schema.add_text_field("body", text_field_options());
/// settings.add_fields(&mut schema)?;
/// let schema = schema.build();
/// let url = schema.get_field("url")?;
/// let index = DedupIndex::create(Index::create_in_ram(schema), settings)?;
/// let writer = index.writer(Policy::Reject, 15_000_000)?;
///
/// let text = "Tantivy is a full-text search engine library inspired by Apache Lucene and written in Rust. \
///             It builds inverted indexes, scores documents with BM25 and answers phrase queries.";
/// let first = writer.add(doc!(url => "a.example/1", body => text))?;
/// assert!(matches!(first, AddOutcome::Added { .. }));
/// let copy = text.to_uppercase().replace(". ", ".\n\n"); // other case and layout
/// let second = writer.add(doc!(url => "b.example/9", body => copy))?;
/// let duplicate = second.duplicate_of().expect("a near-duplicate");
/// assert_eq!(duplicate.key.as_deref(), Some("a.example/1"));
/// writer.commit()?;
/// assert_eq!(writer.searcher().num_docs(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DedupWriter {
    index: DedupIndex,
    policy: Policy,
    matcher: Matcher,
    reader: IndexReader,
    state: Mutex<State>,
    /// The near-duplicate space shared with other writers, if it joined one.
    #[cfg(feature = "cluster")]
    pub(super) shared: Option<crate::shared::SharedRegistry>,
}

pub(super) struct State {
    pub(super) writer: IndexWriter,
    pub(super) view: WriterView,
    /// The references an add judged near-duplicates (a buffer reused by every add).
    judged: Vec<Judged>,
    /// What the writer holds to decide records again when a document they were judged
    /// against changes.
    pub(super) dependents: Dependents,
    /// A delete by query happened since the last commit: which documents it deletes is known
    /// only once committed, so the view is read again then.
    stale: bool,
}

impl State {
    /// Tantivy's writer, apart from what the plugin keeps beside it (borrowed together by a
    /// prepared commit).
    fn split(&mut self) -> (&mut IndexWriter, Books<'_>) {
        let State {
            writer,
            view,
            dependents,
            stale,
            ..
        } = self;
        let books = Books {
            view,
            dependents,
            stale,
        };
        (writer, books)
    }
}

/// What the writer keeps beside tantivy's writer that a commit or a rollback changes: one
/// place for `commit`, `rollback` and a prepared commit's two ends.
pub(super) struct Books<'a> {
    view: &'a mut WriterView,
    dependents: &'a mut Dependents,
    stale: &'a mut bool,
}

impl Books<'_> {
    /// Before tantivy's commit: what must outlive it is written (the ledger of rejected
    /// records).
    /// Returns the payload the commit is to carry (see `commit_payload`), the caller's
    /// `payload` inside.
    pub(super) fn persist(&mut self, payload: Option<&str>) -> Result<Option<String>> {
        let tip = self.dependents.persist()?;
        Ok(super::commit_payload::encode(tip, payload))
    }

    /// Tantivy committed: the view takes the new commit as its base, and what was held for
    /// the batch is let go.
    pub(super) fn committed(self, reader: &IndexReader, matcher: &Matcher) -> Result<()> {
        reader.reload()?;
        let (searcher, _pins) = segment_values::pinned_searcher(reader)?;
        self.view.commit(searcher, matcher)?;
        self.dependents.commit()?;
        if *self.stale {
            // A delete by query or of every document: which documents went is known now.
            self.view.rebuild(matcher)?;
            *self.stale = false;
        }
        Ok(())
    }

    /// Tantivy rolled back: the view is read again from the last commit.
    pub(super) fn rolled_back(self, matcher: &Matcher) -> Result<()> {
        self.dependents.rollback();
        self.view.rebuild(matcher)?;
        *self.stale = false;
        Ok(())
    }
}

/// How a document is decided (see [`DedupWriter::decide_as`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// A document sent to the writer (or a rejected one decided again): by the writer's
    /// policy, its key's latest word.
    Sent,
    /// A text the index kept (a holder of records written again without some, a replaced
    /// record decided again): by the writer's policy, but no new word of its key: a later
    /// text of its key rejected (held, or watched) stays its latest word.
    Older,
    /// A flagged copy written again because its original changed: as
    /// [`Policy::Flag`] decides, whatever the writer's policy, its key's other texts held
    /// or watched as they are.
    FlaggedCopy,
}

/// What a lookup of a new document found.
enum Lookup<'k> {
    /// A document of this key and text is indexed already.
    Exists(&'k str),
    /// The near-duplicates are in the writer's `judged`; `update` is the key of the
    /// version this document would replace.
    Judged { update: Option<&'k str> },
}

/// A document measured by [`DedupWriter::prepare`] (its fingerprint, signature, version and
/// the plugin's fields set), ready for [`DedupWriter::add_prepared`]: the part of an add
/// that needs no lock, done on any thread, and its values at hand before the add decides
/// (to decide it elsewhere first, as `ingest --cluster` does in a shared space).
#[derive(Clone, Debug)]
pub struct PreparedDocument {
    pub(super) document: TantivyDocument,
    pub(super) fingerprint: Option<Fingerprint>,
    pub(super) signature: Option<Signature>,
    pub(super) version: Option<u64>,
    pub(super) key: Option<String>,
    pub(super) scope: Option<u64>,
    pub(super) records: Vec<String>,
}

impl PreparedDocument {
    /// Its fingerprint; `None` for a text without features.
    #[must_use]
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        self.fingerprint
    }

    /// Its key, when the index has a key field and the document a value in it.
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Its signature's values, when the index verifies candidates with signatures.
    #[must_use]
    pub fn signature_values(&self) -> Option<&[u32]> {
        self.signature.as_ref().map(Signature::values)
    }
}

impl DedupWriter {
    /// Wraps `writer`, a writer of `index`'s tantivy index, and reads the fingerprints of its
    /// last commit. The near-duplicate distance is the settings' default.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the policy needs a field the settings lack (flagging
    /// for [`Policy::Flag`], a key field for [`Policy::Replace`]); [`Error::Tantivy`] when
    /// the index cannot be read.
    pub fn new(index: DedupIndex, writer: IndexWriter, policy: Policy) -> Result<DedupWriter> {
        match policy {
            Policy::Flag if index.fields().flag.is_none() => {
                return Err(Error::InvalidSetting {
                    name: "policy",
                    reason: "Flag needs the flag fields: set DedupSettings::flagging(true)".into(),
                })
            }
            Policy::Replace if index.fields().key.is_none() => {
                return Err(Error::InvalidSetting {
                    name: "policy",
                    reason: "Replace deletes by key: set DedupSettings::key_field".into(),
                })
            }
            _ => {}
        }
        // A commit killed before its `meta.json` leaves files no commit names (a
        // `<segment>.<opstamp>.del` among them); the same operations run again reach the
        // same opstamp, and tantivy refuses to create a file that exists. They go first.
        writer.garbage_collect_files().wait()?;
        let reader = index
            .index()
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let (searcher, _pins) = segment_values::pinned_searcher(&reader)?;
        let matcher = index.matcher(index.distance());
        // The add order goes on after every document this writer sees, and after those
        // the index's handle numbered already (`fill_document`).
        index.reserve_sequences(next_sequence(&searcher)?);
        let view = WriterView::build(index.clone(), searcher, &matcher)?;
        // Only Reject rejects, but a writer of any policy watches the rejections of earlier
        // Reject runs: a change it makes to their duplicates reports them lost.
        let (named, _) = decode_payload(index.index().load_metas()?.payload.as_deref());
        let watches = Watches::open(Box::new(index.index().directory().clone()), named)?;
        Ok(DedupWriter {
            matcher,
            index,
            policy,
            reader,
            state: Mutex::new(State {
                writer,
                view,
                judged: Vec::new(),
                dependents: Dependents::watching(watches),
                stale: false,
            }),
            #[cfg(feature = "cluster")]
            shared: None,
        })
    }

    /// The same writer with another near-duplicate distance.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when `k` is above 64.
    pub fn with_distance(mut self, k: u32) -> Result<DedupWriter> {
        check_distance("distance", k)?;
        self.matcher = self.index.matcher(k);
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        state.view.retable(&self.matcher)?;
        Ok(self)
    }

    /// The rule near-duplicates are judged by.
    pub(super) fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// The index written to: the plugin's, whose tantivy `Index` is
    /// [`DedupIndex::index`] (tantivy's `IndexWriter::index` gives the `Index` itself).
    pub fn index(&self) -> &DedupIndex {
        &self.index
    }

    /// The policy for near-duplicates.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The near-duplicate distance (beyond which, with a
    /// [verification](crate::matching::Verification), its candidate distance reaches).
    pub fn distance(&self) -> u32 {
        self.matcher.distance()
    }

    /// A searcher on the last commit (the one [`Duplicate::address`](crate::plugin::Duplicate)
    /// refers to).
    pub fn searcher(&self) -> Searcher {
        self.lock().view.searcher().clone()
    }

    /// Number of documents new ones are compared with: alive, with a fingerprint, not
    /// flagged, committed or not.
    pub fn references(&self) -> usize {
        self.lock().view.len()
    }

    /// What [`add`](Self::add) would do with `document` now, without doing it: whether it
    /// is new, the same as an indexed document, or a near-duplicate of some (every one the
    /// rule finds, nearest first, which the policy would reject it for, flag it as or
    /// replace). Nothing is written and nothing is remembered: a document checked and then
    /// added is judged again, against what the index holds then.
    ///
    /// # Errors
    /// [`Error::KeyTooLong`] for a key tantivy would not index whole; [`Error::Tantivy`]
    /// when the index cannot be read.
    pub fn check(&self, document: &TantivyDocument) -> Result<Check> {
        let (fingerprint, signature, version) = self.measure(document);
        let key = self.index.fields().checked_key_of(document)?;
        let scope = self.index.fields().scope_of(document);
        let mut state = self.lock();
        let State { view, judged, .. } = &mut *state;
        let update = match self.look_up(
            view,
            judged,
            key,
            version,
            (fingerprint, signature.as_ref(), scope),
        )? {
            Lookup::Exists(key) => {
                return Ok(Check::Exists {
                    key: key.to_owned(),
                })
            }
            Lookup::Judged { update } => update.is_some(),
        };
        match fingerprint {
            Some(fingerprint) if !judged.is_empty() => Ok(Check::Duplicate {
                fingerprint,
                of: judged
                    .iter()
                    .map(|&found| view.describe(found))
                    .collect::<Result<_>>()?,
            }),
            _ => Ok(Check::New {
                fingerprint,
                update,
            }),
        }
    }

    /// A document's fingerprint, signature and version (see `DedupFields::version_of`),
    /// from its text fields, outside the lock: what `add` and `check` look up.
    fn measure(
        &self,
        document: &TantivyDocument,
    ) -> (Option<Fingerprint>, Option<Signature>, Option<u64>) {
        let fields = self.index.fields();
        let text = fields.text_of(document);
        let (fingerprint, signature) = self.index.fingerprint_and_signature(&text);
        let version = fields.version_of(&text, fingerprint);
        (fingerprint, signature, version)
    }

    /// The lookup `add` and `check` share: the key's indexed versions (the same text there
    /// already, or another one this document would replace), then the near-duplicates of
    /// the fingerprint in `judged` (none without one), the version replaced left out.
    fn look_up<'k>(
        &self,
        view: &mut WriterView,
        judged: &mut Vec<Judged>,
        key: Option<&'k str>,
        version: Option<u64>,
        (fingerprint, signature, scope): (Option<Fingerprint>, Option<&Signature>, Option<u64>),
    ) -> Result<Lookup<'k>> {
        let mut update = None;
        if let Some(key) = key {
            let versions = view.versions_of(key)?;
            if versions.contains(&version) {
                return Ok(Lookup::Exists(key));
            }
            if !versions.is_empty() {
                update = Some(key);
            } else if let Some(version) = version {
                // Replaced by a near-duplicate that is still indexed: already accounted for.
                if view.was_replaced(key, version)? {
                    return Ok(Lookup::Exists(key));
                }
            }
        }
        judged.clear();
        if let Some(fingerprint) = fingerprint {
            view.near((fingerprint, signature, scope), &self.matcher, judged)?;
            if let Some(old) = update {
                // The version being replaced is no reference for its successor.
                judged.retain(|found| !view.has_key(found, old));
            }
        }
        Ok(Lookup::Judged { update })
    }

    /// Fingerprints `document`, checks it against the index and applies the policy. The
    /// plugin's fields (fingerprint, flag) are set here; the caller sets the key.
    /// [`add_batch`](Self::add_batch) and [`add_all`](Self::add_all) do the same for many
    /// documents, fingerprinting them on every core.
    ///
    /// Not named `add_document` as [`IndexWriter::add_document`] is: it returns what became
    /// of the document ([`AddOutcome`]), which may be that it was not indexed, not an opstamp.
    ///
    /// # Errors
    /// [`Error::KeyTooLong`] for a key tantivy would not index whole (nothing is written:
    /// the next document goes on); [`Error::Tantivy`] when the index cannot be read or
    /// written (the writer was killed by
    /// an earlier error, for one).
    pub fn add(&self, document: TantivyDocument) -> Result<AddOutcome> {
        self.add_prepared(self.prepare(document)?)
    }

    /// [`add`](Self::add) of a document [`prepare`](Self::prepare) measured: `add` is the
    /// two in turn. The document must have been prepared by this writer (or one of the same
    /// index), whose settings its values are of. Decided in the shared space first when the
    /// writer joined one (`shared`, cargo feature `cluster`), then against the index.
    ///
    /// # Errors
    /// As [`add`](Self::add).
    pub fn add_prepared(&self, prepared: PreparedDocument) -> Result<AddOutcome> {
        #[cfg(feature = "cluster")]
        if let Some(registry) = &self.shared {
            return self.decide_shared(registry, prepared);
        }
        self.decide(prepared)
    }

    /// The part of an add that reads `document` alone: its fingerprint, signature and
    /// version computed, the plugin's fields set. Needs no lock, so that threads (and
    /// [`add_batch`](Self::add_batch)'s pool) do it in parallel; [`add_prepared`](Self::add_prepared)
    /// does the rest.
    ///
    /// # Errors
    /// [`Error::KeyTooLong`] for a key longer than tantivy indexes.
    pub fn prepare(&self, mut document: TantivyDocument) -> Result<PreparedDocument> {
        let fields = self.index.fields();
        let (fingerprint, signature, version) = self.measure(&document);
        let key = fields.checked_key_of(&document)?.map(str::to_owned);
        let scope = fields.scope_of(&document);
        fields.set_fingerprint(&mut document, fingerprint, signature.as_ref());
        fields.set_version(&mut document, version);
        fields.set_scope(&mut document, scope);
        // Records of replaced documents the document brings along (a copy, in a reindex).
        let records = fields.records_in(&document);
        fields.add_record_keys(&mut document, &records);
        Ok(PreparedDocument {
            document,
            fingerprint,
            signature,
            version,
            key,
            scope,
            records,
        })
    }

    /// The part of an add that needs the index: the lookup and the policy, under the lock,
    /// then the records judged against a document it changed decided again.
    /// Its outcome depends on what was added before, never on when `prepared` was made.
    pub(super) fn decide(&self, prepared: PreparedDocument) -> Result<AddOutcome> {
        let mut state = self.lock();
        let outcome = self.decide_in(&mut state, prepared);
        // Whatever the outcome, the work it left is done before the lock is let go.
        let settled = self.settle(&mut state);
        let outcome = outcome?;
        settled?;
        Ok(outcome)
    }

    /// The lookup and the policy for one document; the changes it makes are queued in the
    /// state's dependents for [`settle`](Self::settle).
    pub(super) fn decide_in(
        &self,
        state: &mut State,
        prepared: PreparedDocument,
    ) -> Result<AddOutcome> {
        self.decide_as(state, prepared, Decision::Sent)
    }

    /// [`decide_in`](Self::decide_in), or, for a flagged copy written again because its
    /// original changed ([`Decision::FlaggedCopy`]), decided as [`Policy::Flag`] decides
    /// whatever the writer's policy: a document of the index, unflagged or flagged against
    /// another, never rejected nor replacing one.
    pub(super) fn decide_as(
        &self,
        state: &mut State,
        prepared: PreparedDocument,
        decision: Decision,
    ) -> Result<AddOutcome> {
        let fields = self.index.fields();
        let policy = match decision {
            Decision::Sent | Decision::Older => self.policy,
            Decision::FlaggedCopy => Policy::Flag,
        };
        // A document written again is no new word of its key: what is held or watched of
        // its other texts (a later text rejected, say) stays.
        if let Some(key) = prepared.key.as_deref() {
            let record = prepared.version.and_then(|v| fields.record_of(key, v));
            let (dependents, version) = (&mut state.dependents, prepared.version);
            match decision {
                Decision::Sent => dependents.forget(key, version, record.as_deref()),
                Decision::Older => dependents.forget_texts(key, record.as_deref()),
                Decision::FlaggedCopy => {}
            }
        }
        // A key in the index already: the same text is there (a resumed run), or this is a
        // new version of it, which replaces it.
        let found = (
            prepared.fingerprint,
            prepared.signature.as_ref(),
            prepared.scope,
        );
        let update = {
            let State { view, judged, .. } = &mut *state;
            match self.look_up(
                view,
                judged,
                prepared.key.as_deref(),
                prepared.version,
                found,
            )? {
                Lookup::Exists(key) => {
                    return Ok(AddOutcome::Exists {
                        key: key.to_owned(),
                    })
                }
                Lookup::Judged { update } => update.map(str::to_owned),
            }
        };
        // A new word of its key, whatever the policy: what other documents hold of the
        // key's older texts goes (else a later change of a holder could not tell which of
        // two texts of the key is the newer one).
        if let Some(key) = prepared.key.as_deref() {
            self.let_go_records_of(state, key)?;
        }
        let nearest = state.judged.first().copied();
        let reference =
            prepared.fingerprint.is_some() && (nearest.is_none() || policy == Policy::Replace);
        // What is held to decide it again, as it is before this decision marks it.
        let held = match (policy, nearest, prepared.fingerprint) {
            (Policy::Flag, Some(_), Some(_)) => Some(prepared.clone()),
            _ => None,
        };
        // Under Replace, each keyed document added, which a later one may replace (a flagged
        // copy written again, now a reference, too); under any policy, one holding records
        // (brought along, or kept from the version it updates), which a change of their
        // keys writes again without them.
        let held_added = match (self.policy, prepared.key.is_some()) {
            (_, false) => None,
            (Policy::Replace, true) => Some(prepared.clone()),
            (_, true) => {
                let holds_records = !prepared.records.is_empty()
                    || match update.as_deref() {
                        Some(old) => !state.view.holdings_of(old)?.is_empty(),
                        None => false,
                    };
                holds_records.then(|| prepared.clone())
            }
        };
        let PreparedDocument {
            mut document,
            fingerprint,
            signature,
            version,
            key,
            scope,
            mut records,
        } = prepared;
        if let (Policy::Reject, Some(_), Some(fingerprint)) = (policy, nearest, fingerprint) {
            // A rejected new version leaves the indexed one as it is.
            let State {
                view,
                judged,
                dependents,
                ..
            } = &mut *state;
            let duplicate_of = view.describe(nearest.expect("matched"))?;
            let mut against = Vec::new();
            for &found in judged.iter() {
                if let Some(reference) = view.describe(found)?.key {
                    against.push(reference);
                }
            }
            let rejected = PreparedDocument {
                document,
                fingerprint: Some(fingerprint),
                signature,
                version,
                key,
                scope,
                records,
            };
            dependents.hold_rejected(against, rejected);
            return Ok(AddOutcome::Rejected {
                fingerprint,
                duplicate_of,
            });
        }
        if let Some(key) = key.as_deref() {
            state.dependents.written_over(key, version);
        }
        let key_field = fields.key;
        // The version being replaced goes: its records that this document still covers
        // stay with it, the others are decided again.
        if let Some(old) = update.as_deref() {
            let new = fingerprint
                .filter(|_| reference)
                .map(|fingerprint| (fingerprint, signature.as_ref(), scope));
            let kept = self.release_records(state, old, new)?;
            fields.add_records(&mut document, &kept);
            let schema = self.index.index().schema();
            (state.dependents).write_texts(&schema, fields, &mut document, &kept);
            records.extend(kept);
        }
        let State {
            writer,
            view,
            judged,
            dependents,
            ..
        } = &mut *state;
        // Deletes the version being replaced, as a part of this add: tantivy commits the
        // delete and the add together or neither.
        let replace_old_version = |writer: &mut IndexWriter,
                                   view: &mut WriterView,
                                   dependents: &mut Dependents| {
            match (update.as_deref(), key_field) {
                (Some(old), Some(field)) => {
                    writer.delete_term(Term::from_field_text(field, old));
                    dependents.changed(old);
                    view.delete_key(old)
                }
                _ => Ok(()),
            }
        };
        if let (Some(key), Some(held_added)) = (key.as_deref(), held_added) {
            dependents.hold_added(key.to_owned(), held_added);
        }
        // Numbered under the lock, so that the numbers follow the order of the decisions.
        fields.set_sequence(&mut document, self.index.take_sequence()?);
        let update = update.as_deref();
        let Some(fingerprint) = fingerprint else {
            replace_old_version(writer, view, dependents)?;
            fields.set_flag(&mut document, None);
            view.note_added_key(key.as_deref(), version);
            view.note_records(key.as_deref(), records);
            let opstamp = writer.add_document(document)?;
            return Ok(added(update, None, opstamp));
        };
        let Some(nearest) = nearest else {
            replace_old_version(writer, view, dependents)?;
            fields.set_flag(&mut document, None);
            view.insert((fingerprint, signature, scope), (key.as_deref(), version));
            view.note_records(key.as_deref(), records);
            let opstamp = writer.add_document(document)?;
            return Ok(added(update, Some(fingerprint), opstamp));
        };
        match policy {
            Policy::Reject => unreachable!("decided above"),
            Policy::Flag => {
                let duplicate_of = view.describe(nearest)?;
                let of = duplicate_of
                    .key
                    .clone()
                    .unwrap_or_else(|| duplicate_of.fingerprint.to_string());
                replace_old_version(writer, view, dependents)?;
                if let (Some(original), Some(held)) = (&duplicate_of.key, held) {
                    dependents.hold_flagged(original.clone(), held);
                }
                fields.set_flag(&mut document, Some((duplicate_of.distance, &of)));
                view.note_added_key(key.as_deref(), version);
                view.note_records(key.as_deref(), records);
                let opstamp = writer.add_document(document)?;
                Ok(AddOutcome::Flagged {
                    fingerprint,
                    duplicate_of,
                    opstamp,
                })
            }
            Policy::Replace => {
                let key_field = key_field.expect("checked in DedupWriter::new");
                let schema = self.index.index().schema();
                let mut replaced = Vec::with_capacity(judged.len());
                // What each replaced document stood for: itself, then its own records.
                let mut taken_over = Vec::with_capacity(judged.len());
                for &found in judged.iter() {
                    let duplicate = view.describe(found)?;
                    // A reference without a key cannot be deleted by key: it stays.
                    if let Some(old_key) = &duplicate.key {
                        let (own, held) = view.records_of(&duplicate)?;
                        // Its text, held until the commit in case this document changes.
                        let text = match duplicate.address {
                            Some(address) => {
                                let stored = view.doc_at(address)?;
                                // The texts of its records, which this document takes over.
                                for (record, text) in fields.texts_in(&schema, &stored) {
                                    if !dependents.holds_text(&record) {
                                        dependents.load_text(record, self.prepare(text)?);
                                    }
                                }
                                Some(self.prepare(fields.unmarked(&stored))?)
                            }
                            // As it was sent: the records it held then are taken over
                            // below, not brought back with its text.
                            None => dependents.take_added(old_key).map(|mut held| {
                                held.document = fields.unmarked(&held.document);
                                held.records.clear();
                                held
                            }),
                        };
                        if let (Some(record), Some(text)) = (&own, text) {
                            dependents.hold_text(record.clone(), text);
                        }
                        taken_over.push((own, held));
                        writer.delete_term(Term::from_field_text(key_field, old_key));
                        // Copies a Flag run flagged against it are judged again.
                        dependents.changed(old_key);
                        view.delete_key(old_key)?;
                    }
                    replaced.push(duplicate);
                }
                let carried = records.len();
                take_over(&mut records, taken_over);
                fields.add_records(&mut document, &records[carried..]);
                dependents.write_texts(&schema, fields, &mut document, &records[carried..]);
                replace_old_version(writer, view, dependents)?;
                fields.set_flag(&mut document, None);
                view.insert((fingerprint, signature, scope), (key.as_deref(), version));
                view.note_records(key.as_deref(), records);
                let opstamp = writer.add_document(document)?;
                Ok(AddOutcome::Replaced {
                    fingerprint,
                    replaced,
                    opstamp,
                })
            }
        }
    }

    /// Deletes every document whose key is `key`, and forgets them at once: a document added
    /// next is not compared with them.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the settings have no key field; [`Error::Tantivy`]
    /// when the index cannot be read.
    pub fn delete_key(&self, key: &str) -> Result<Opstamp> {
        let Some(field) = self.index.fields().key else {
            return Err(Error::InvalidSetting {
                name: "key_field",
                reason: "deleting by key needs DedupSettings::key_field".into(),
            });
        };
        let mut state = self.lock();
        state.dependents.deleted(key);
        let let_go = self.let_go_records_of(&mut state, key);
        let released = let_go.and_then(|()| self.release_records(&mut state, key, None));
        state.dependents.changed(key);
        let deleted = (state.view.delete_key(key))
            .map(|()| state.writer.delete_term(Term::from_field_text(field, key)));
        let settled = released.and_then(|_| self.settle(&mut state));
        let opstamp = deleted?;
        settled?;
        Ok(opstamp)
    }

    /// Deletes every document matching `query`. Which documents those are is known once
    /// committed: until the next [`commit`](Self::commit), new documents are still compared
    /// with them; the commit reads the index's fingerprints again.
    ///
    /// # Errors
    /// As [`IndexWriter::delete_query`].
    pub fn delete_query(&self, query: Box<dyn Query>) -> Result<Opstamp> {
        let mut state = self.lock();
        let opstamp = state.writer.delete_query(query)?;
        state.stale = true;
        Ok(opstamp)
    }

    /// Deletes every document holding `term`, as [`IndexWriter::delete_term`]: by key
    /// ([`delete_key`](Self::delete_key)) when `term` is of the key field, so that the
    /// writer forgets them at once and decides again what was judged against them; else as
    /// [`delete_query`](Self::delete_query) of a term query. It returns a `Result` where
    /// tantivy's returns the opstamp alone, since deleting by key reads the index.
    ///
    /// # Errors
    /// As `delete_key` or `delete_query`.
    pub fn delete_term(&self, term: Term) -> Result<Opstamp> {
        if Some(term.field()) == self.index.fields().key {
            if let Some(key) = term.value().as_str() {
                return self.delete_key(key);
            }
        }
        let query = tantivy::query::TermQuery::new(term, tantivy::schema::IndexRecordOption::Basic);
        self.delete_query(Box::new(query))
    }

    /// Deletes every document of the index, as [`IndexWriter::delete_all_documents`]; the
    /// next [`commit`](Self::commit) (or [`rollback`](Self::rollback)) reads the writer's
    /// view again.
    ///
    /// # Errors
    /// As `IndexWriter::delete_all_documents`.
    pub fn delete_all_documents(&self) -> Result<Opstamp> {
        let mut state = self.lock();
        let opstamp = state.writer.delete_all_documents()?;
        state.stale = true;
        Ok(opstamp)
    }

    /// Commits every document added and deleted so far; the writer's view keeps them.
    ///
    /// It takes `&self` where [`IndexWriter::commit`] takes `&mut self`: the writer locks its
    /// own state, so a writer shared in an `Arc` commits between the adds of other threads.
    ///
    /// # Errors
    /// As [`IndexWriter::commit`].
    pub fn commit(&self) -> Result<Opstamp> {
        let mut state = self.lock();
        let (writer, mut books) = state.split();
        let payload = books.persist(None)?;
        let mut prepared = writer.prepare_commit()?;
        if let Some(payload) = payload {
            prepared.set_payload(&payload);
        }
        let opstamp = prepared.commit()?;
        books.committed(&self.reader, &self.matcher)?;
        Ok(opstamp)
    }

    /// Drops every document added and deleted since the last commit; the writer's view is
    /// read again from the last commit.
    ///
    /// It takes `&self` where [`IndexWriter::rollback`] takes `&mut self`, as
    /// [`commit`](Self::commit) does.
    ///
    /// # Errors
    /// As [`IndexWriter::rollback`].
    pub fn rollback(&self) -> Result<Opstamp> {
        let mut state = self.lock();
        let (writer, books) = state.split();
        let opstamp = writer.rollback()?;
        books.rolled_back(&self.matcher)?;
        Ok(opstamp)
    }

    /// The first step of a two-phase commit, as [`IndexWriter::prepare_commit`]: the
    /// documents added so far are written to their segments, and the returned
    /// [`DedupPreparedCommit`] commits or aborts them, with the writer's view of the index.
    ///
    /// It takes the writer exclusively (`&mut self`), as tantivy's does: no document can be
    /// decided between the prepare and the commit, so what the commit makes visible is what
    /// the view holds. A writer shared in an `Arc` commits with [`commit`](Self::commit).
    ///
    /// # Errors
    /// As [`IndexWriter::prepare_commit`].
    pub fn prepare_commit(&mut self) -> Result<DedupPreparedCommit<'_>> {
        let DedupWriter {
            state,
            reader,
            matcher,
            ..
        } = self;
        let state = state.get_mut().unwrap_or_else(PoisonError::into_inner);
        let (writer, books) = state.split();
        let prepared = writer.prepare_commit()?;
        Ok(DedupPreparedCommit::new(prepared, books, reader, matcher))
    }

    /// Merges the committed segments `segment_ids` into one and waits for it, as
    /// [`IndexWriter::merge`]: the documents keep their fingerprints, flags and keys, and the
    /// writer finds its references at their new addresses from the next
    /// [`commit`](Self::commit) on (until then [`searcher`](Self::searcher) still shows the
    /// old segments). Adds from other threads go on during the merge. Unlike tantivy's, which
    /// takes `&mut self` and returns a `FutureResult`, it takes `&self` and returns the merge's
    /// result once it is done, so that a writer shared in an `Arc` merges.
    ///
    /// # Errors
    /// As [`IndexWriter::merge`] (a segment that is not committed, or already being merged).
    pub fn merge(&self, segment_ids: &[SegmentId]) -> Result<Option<SegmentMeta>> {
        let merging = self.lock().writer.merge(segment_ids);
        Ok(merging.wait()?)
    }

    /// Waits for the background merges and ends the writer (tantivy's writer lock is
    /// released), after which the index's files are final. Uncommitted documents are
    /// dropped.
    ///
    /// # Errors
    /// As [`IndexWriter::wait_merging_threads`].
    pub fn wait_merging_threads(self) -> Result<()> {
        let state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        state.writer.wait_merging_threads()?;
        Ok(())
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic under the lock leaves the view possibly behind the index writer; the
        // worst outcome is a missed near-duplicate, never a lost document, so go on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for DedupWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupWriter")
            .field("policy", &self.policy)
            .field("matcher", &self.matcher)
            .finish_non_exhaustive()
    }
}

/// The outcome of a document indexed as no near-duplicate: added, or, when it replaced an
/// earlier version of its key, updated.
fn added(update: Option<&str>, fingerprint: Option<Fingerprint>, opstamp: Opstamp) -> AddOutcome {
    match update {
        Some(_) => AddOutcome::Updated {
            fingerprint,
            opstamp,
        },
        None => AddOutcome::Added {
            fingerprint,
            opstamp,
        },
    }
}

/// Appends to `records` what a replacing document takes over from the documents it
/// replaced (`taken_over`, nearest first: each one's own record and the ones it held): their
/// own records first, then theirs in order, one of each key (the first, the newer: a
/// document's own text is newer than the records it holds of its key, so that a later
/// word of that key is never ordered behind an older one), up to [`MAX_REPLACED_RECORDS`].
fn take_over(records: &mut Vec<String>, taken_over: Vec<(Option<String>, Vec<String>)>) {
    // A record is its text digest (16 hex digits), then its key.
    let key = |record: &str| record.get(16..).unwrap_or(record).to_owned();
    let mut seen: HashSet<String> = records.iter().map(|record| key(record)).collect();
    let (own, held): (Vec<_>, Vec<_>) = taken_over.into_iter().unzip();
    let candidates = own.into_iter().flatten().chain(held.into_iter().flatten());
    for record in candidates {
        if records.len() >= MAX_REPLACED_RECORDS {
            break;
        }
        if seen.insert(key(&record)) {
            records.push(record);
        }
    }
}
