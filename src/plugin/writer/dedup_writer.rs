//! `DedupWriter`: an [`IndexWriter`] that fingerprints each document and rejects, flags or
//! replaces near-duplicates before they are indexed.

use std::sync::{Mutex, MutexGuard, PoisonError};

use tantivy::index::SegmentId;
use tantivy::query::Query;
use tantivy::schema::TantivyDocument;
use tantivy::{IndexReader, IndexWriter, Opstamp, ReloadPolicy, Searcher, SegmentMeta, Term};

use super::commit_payload;
use super::decision::{self, duplicates, exists, Lookup};
use super::dependents::Dependents;
use super::outcome::{AddOutcome, Check, Policy};
use super::prepared_commit::DedupPreparedCommit;
use super::prepared_document::{self, Decision, PreparedDocument};
use super::records::{let_go_records_of, release_records};
use super::rejudge::settle;
use super::state::{Rules, State};
use super::view::WriterView;
use super::watches::Watches;
use crate::error::{Error, Result};
use crate::matching::check_distance;
use crate::plugin::columns::stored::next_sequence;
use crate::plugin::segment_values;
use crate::plugin::DedupIndex;

/// Wraps an [`IndexWriter`]: [`add`](Self::add) computes the document's fingerprint from the
/// settings' text fields, looks for a near-duplicate among every alive document of the index
/// and every document added since the last commit, and applies the [`Policy`].
///
/// - **Shared by threads.** Every method takes `&self`; put the writer in an `Arc`.
///   Fingerprints are computed in the calling threads, in parallel; the check and the insert
///   are one step under a lock, so two near-duplicates added at once never both get in.
/// - **True to the commits.** The writer compares with the last commit's alive documents,
///   probed in the segments' files where the segment plugin keeps them (an open builds
///   nothing then; `docs/BENCHMARKS.md`, "Writer open"). Deletes by key
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
    /// The index, the policy and the matcher: what every decision reads.
    rules: Rules,
    reader: IndexReader,
    state: Mutex<State>,
    /// The near-duplicate space shared with other writers, if it joined one.
    #[cfg(feature = "cluster")]
    pub(super) shared: Option<crate::shared::SharedRegistry>,
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
        let (named, _) = commit_payload::decode(index.index().load_metas()?.payload.as_deref());
        let watches = Watches::open(Box::new(index.index().directory().clone()), named)?;
        Ok(DedupWriter {
            rules: Rules {
                index,
                policy,
                matcher,
            },
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
        self.rules.matcher = self.rules.index.matcher(k);
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        state.view.retable(&self.rules.matcher)?;
        Ok(self)
    }

    /// The index written to: the plugin's, whose tantivy `Index` is
    /// [`DedupIndex::index`] (tantivy's `IndexWriter::index` gives the `Index` itself).
    pub fn index(&self) -> &DedupIndex {
        &self.rules.index
    }

    /// The policy for near-duplicates.
    pub fn policy(&self) -> Policy {
        self.rules.policy
    }

    /// The near-duplicate distance (beyond which, with a
    /// [verification](crate::matching::Verification), its candidate distance reaches).
    pub fn distance(&self) -> u32 {
        self.rules.matcher.distance()
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
        let index = &self.rules.index;
        let (fingerprint, signature, version) = prepared_document::measure(index, document);
        let key = index.fields().checked_key_of(document)?;
        let scope = index.fields().scope_of(document);
        let mut state = self.lock();
        let State { view, judged, .. } = &mut *state;
        let update = match exists(view, key, version)? {
            Lookup::Exists(key) => {
                return Ok(Check::Exists {
                    key: key.to_owned(),
                })
            }
            Lookup::New { update } => update,
        };
        let found = (fingerprint, signature.as_ref(), scope);
        duplicates(&self.rules.matcher, view, judged, found, update)?;
        let update = update.is_some();
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
    pub fn prepare(&self, document: TantivyDocument) -> Result<PreparedDocument> {
        self.rules.prepare(document)
    }

    /// The part of an add that needs the index: the lookup and the policy, under the lock
    /// (`decision`), then the records judged against a document it changed decided again
    /// (`rejudge`). Its outcome depends on what was added before, never on when `prepared`
    /// was made.
    pub(super) fn decide(&self, prepared: PreparedDocument) -> Result<AddOutcome> {
        let mut state = self.lock();
        let outcome = decision::decide(&self.rules, &mut state, prepared, Decision::Sent);
        // Whatever the outcome, the work it left is done before the lock is let go.
        let settled = settle(&self.rules, &mut state);
        let outcome = outcome?;
        settled?;
        Ok(outcome)
    }

    /// Deletes every document whose key is `key`, and forgets them at once: a document added
    /// next is not compared with them.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the settings have no key field; [`Error::Tantivy`]
    /// when the index cannot be read.
    pub fn delete_key(&self, key: &str) -> Result<Opstamp> {
        let Some(field) = self.rules.index.fields().key else {
            return Err(Error::InvalidSetting {
                name: "key_field",
                reason: "deleting by key needs DedupSettings::key_field".into(),
            });
        };
        let mut state = self.lock();
        state.dependents.deleted(key);
        let let_go = let_go_records_of(&self.rules, &mut state, key);
        let released = let_go.and_then(|()| release_records(&self.rules, &mut state, key, None));
        state.dependents.changed(key);
        let deleted = (state.view.delete_key(key))
            .map(|()| state.writer.delete_term(Term::from_field_text(field, key)));
        let settled = released.and_then(|_| settle(&self.rules, &mut state));
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
        if Some(term.field()) == self.rules.index.fields().key {
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
        books.committed(&self.reader, &self.rules.matcher)?;
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
        books.rolled_back(&self.rules.matcher)?;
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
            rules,
            ..
        } = self;
        let state = state.get_mut().unwrap_or_else(PoisonError::into_inner);
        let (writer, books) = state.split();
        let prepared = writer.prepare_commit()?;
        Ok(DedupPreparedCommit::new(
            prepared,
            books,
            reader,
            &rules.matcher,
        ))
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
            .field("policy", &self.rules.policy)
            .field("matcher", &self.rules.matcher)
            .finish_non_exhaustive()
    }
}
