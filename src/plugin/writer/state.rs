//! The writer's state: what every decision reads and none changes ([`Rules`]), what the
//! writer holds under its lock ([`State`]), and the part of it a commit or a rollback
//! changes ([`Books`]).

use tantivy::schema::TantivyDocument;
use tantivy::{IndexReader, IndexWriter};

use super::commit_payload;
use super::dependents::Dependents;
use super::outcome::Policy;
use super::prepared_document::{self, PreparedDocument};
use super::view::{Judged, WriterView};
use crate::error::Result;
use crate::matching::Matcher;
use crate::plugin::{segment_values, DedupIndex};

/// What a decision reads besides the state: the index written to (its fields and
/// settings), the writer's policy, and the rule near-duplicates are judged by.
pub(super) struct Rules {
    pub index: DedupIndex,
    pub policy: Policy,
    pub matcher: Matcher,
}

impl Rules {
    /// `document` measured and the plugin's fields set, as
    /// [`DedupWriter::prepare`](super::DedupWriter::prepare) does.
    pub fn prepare(&self, document: TantivyDocument) -> Result<PreparedDocument> {
        prepared_document::prepare(&self.index, document)
    }
}

/// What the writer holds under its lock.
pub(super) struct State {
    pub writer: IndexWriter,
    pub view: WriterView,
    /// The references an add judged near-duplicates (a buffer reused by every add).
    pub judged: Vec<Judged>,
    /// What the writer holds to decide records again when a document they were judged
    /// against changes.
    pub dependents: Dependents,
    /// A delete by query happened since the last commit: which documents it deletes is known
    /// only once committed, so the view is read again then.
    pub stale: bool,
}

impl State {
    /// Tantivy's writer, apart from what the plugin keeps beside it (borrowed together by a
    /// prepared commit).
    pub fn split(&mut self) -> (&mut IndexWriter, Books<'_>) {
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
    pub fn persist(&mut self, payload: Option<&str>) -> Result<Option<String>> {
        let tip = self.dependents.persist()?;
        Ok(commit_payload::encode(tip, payload))
    }

    /// Tantivy committed: the view takes the new commit as its base, and what was held for
    /// the batch is let go.
    pub fn committed(self, reader: &IndexReader, matcher: &Matcher) -> Result<()> {
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
    pub fn rolled_back(self, matcher: &Matcher) -> Result<()> {
        self.dependents.rollback();
        self.view.rebuild(matcher)?;
        *self.stale = false;
        Ok(())
    }
}
