//! [`DedupPreparedCommit`]: tantivy's two-phase commit ([`PreparedCommit`]) with the
//! writer's view of the index carried along, so that the view follows what is committed or
//! aborted.

use tantivy::indexer::PreparedCommit;
use tantivy::{IndexReader, Opstamp};

use super::state::Books;
use crate::error::Result;
use crate::matching::Matcher;

/// A commit prepared by [`DedupWriter::prepare_commit`](super::DedupWriter::prepare_commit):
/// the documents are in their segments, not yet visible.
///
/// - [`commit`](Self::commit) makes them visible, and the writer compares new documents
///   with them as committed ones;
/// - [`abort`](Self::abort) drops every document added and deleted since the last commit,
///   as [`DedupWriter::rollback`](super::DedupWriter::rollback): the writer forgets them;
/// - dropped without either, nothing is committed and nothing forgotten: the next commit
///   of the writer commits them.
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
/// let mut writer = index.writer(Policy::Reject, 15_000_000)?;
///
/// let text = "Tantivy is a full-text search engine library inspired by Apache Lucene.";
/// writer.add(doc!(url => "a.example/1", body => text))?;
/// let mut prepared = writer.prepare_commit()?;
/// prepared.set_payload("crawl 7, page 12");
/// prepared.commit()?;
/// assert_eq!(index.commit_payload()?.as_deref(), Some("crawl 7, page 12"));
/// let again = writer.add(doc!(url => "a.example/1", body => text))?;
/// assert!(matches!(again, AddOutcome::Exists { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a prepared commit does nothing until `commit` or `abort`"]
pub struct DedupPreparedCommit<'a> {
    prepared: PreparedCommit<'a>,
    /// The caller's payload, carried inside the commit's (see `commit_payload`).
    payload: Option<String>,
    books: Books<'a>,
    reader: &'a IndexReader,
    matcher: &'a Matcher,
}

impl<'a> DedupPreparedCommit<'a> {
    pub(super) fn new(
        prepared: PreparedCommit<'a>,
        books: Books<'a>,
        reader: &'a IndexReader,
        matcher: &'a Matcher,
    ) -> Self {
        DedupPreparedCommit {
            prepared,
            payload: None,
            books,
            reader,
            matcher,
        }
    }

    /// The opstamp the commit will have.
    #[must_use]
    pub fn opstamp(&self) -> Opstamp {
        self.prepared.opstamp()
    }

    /// Stores `payload` in the commit's metadata, as [`PreparedCommit::set_payload`];
    /// [`DedupIndex::commit_payload`](crate::plugin::DedupIndex::commit_payload) reads it
    /// back. (`IndexMeta::payload` holds it inside the plugin's own payload when the
    /// commit names the plugin's ledger.)
    pub fn set_payload(&mut self, payload: &str) {
        self.payload = Some(payload.to_owned());
    }

    /// Commits: the documents become visible, and the writer's view takes them as
    /// committed.
    ///
    /// # Errors
    /// As [`PreparedCommit::commit`]; [`Error::Tantivy`](crate::Error::Tantivy) when the new
    /// commit cannot be read back.
    pub fn commit(mut self) -> Result<Opstamp> {
        if let Some(payload) = self.books.persist(self.payload.as_deref())? {
            self.prepared.set_payload(&payload);
        }
        let opstamp = self.prepared.commit()?;
        self.books.committed(self.reader, self.matcher)?;
        Ok(opstamp)
    }

    /// Aborts: every document added and deleted since the last commit is dropped, from the
    /// index and from the writer's view, as [`DedupWriter::rollback`](super::DedupWriter::rollback).
    ///
    /// # Errors
    /// As [`PreparedCommit::abort`]; [`Error::Tantivy`](crate::Error::Tantivy) when the last
    /// commit cannot be read again.
    pub fn abort(self) -> Result<Opstamp> {
        let opstamp = self.prepared.abort()?;
        self.books.rolled_back(self.matcher)?;
        Ok(opstamp)
    }
}

impl std::fmt::Debug for DedupPreparedCommit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupPreparedCommit")
            .field("opstamp", &self.opstamp())
            .finish_non_exhaustive()
    }
}
