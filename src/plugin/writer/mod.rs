//! The index-time path: [`DedupWriter`] fingerprints each document, looks for its
//! near-duplicates among the index's references, and rejects, flags or replaces them by
//! [`Policy`], reporting an [`AddOutcome`]. The equivalent of Solr's
//! `SignatureUpdateProcessorFactory` with `overwriteDupes`, for near-duplicates.
//!
//! The files, lowest first: each imports only files above it in this list (the writer's
//! words are in `docs/ARCHITECTURE.md`, "The writer's words").
//!
//! What is reported, asked and kept:
//! * `outcome`: [`Policy`], [`AddOutcome`], [`Check`] (a dry run's answer), [`Duplicate`]
//!   and [`Rejudged`].
//! * `prepared_document`: [`PreparedDocument`], a document measured outside the lock, and
//!   the `Decision` it is decided as.
//! * `ledger`, `commit_payload`: the index's ledger of rejected records, which a later
//!   writer reads, and the commit payload naming it.
//!
//! What the writer holds:
//! * `band_filter`, `slots`, `segment_refs`: the band keys the segments may hold; the
//!   references' signatures, in memory or read from the index on demand, and the committed
//!   references found again in the writer's searcher; the committed references, probed in
//!   the segments' tables where the segment component keeps them.
//! * `view`: the references new documents are compared with: the block tables of their
//!   fingerprints, the bands of their signatures, the keys added and deleted since the last
//!   commit.
//! * `watches`: the records rejected under [`Policy::Reject`] in a commit, watched until a
//!   document they were judged near changes.
//! * `dependents`: what the writer holds to decide records again when a document they were
//!   judged against changes, and the work a change leaves.
//! * `state`: the rules a decision reads, the state under the writer's lock, and the part of
//!   it a commit or a rollback changes.
//!
//! What the writer decides:
//! * `records`: the records a holder holds, released when it changes, let go when their key
//!   changes.
//! * `decision`: given a prepared document and what the index holds, what happens, in named
//!   steps.
//! * `rejudge`: the records judged against a document that changed, decided again.
//!
//! The writer:
//! * `prepared_commit`: [`DedupPreparedCommit`], a two-phase commit
//!   ([`DedupWriter::prepare_commit`]) that the writer's state follows.
//! * `dedup_writer`: [`DedupWriter`], the lock around tantivy's `IndexWriter` and the
//!   writer's state; its adds, checks, deletes and commits.
//! * `parallel`: [`DedupWriter::add_batch`] and [`DedupWriter::add_all`] ([`AddAll`]):
//!   documents fingerprinted on rayon's threads, decided in input order.
//! * `reports`: [`DedupWriter::take_rejudged`] and [`DedupWriter::deliver_reports`], the
//!   reports of records decided again.
//! * `shared` (cargo feature `cluster`): [`DedupWriter::shared`], a writer whose documents
//!   are decided in a near-duplicate space shared with other writers first.

mod band_filter;
mod commit_payload;
mod decision;
mod dedup_writer;
mod dependents;
mod ledger;
mod outcome;
mod parallel;
mod prepared_commit;
mod prepared_document;
mod records;
mod rejudge;
mod reports;
mod segment_refs;
#[cfg(feature = "cluster")]
mod shared;
mod slots;
mod state;
mod view;
mod watches;

pub(crate) use commit_payload::decode as decode_payload;
pub use dedup_writer::DedupWriter;
pub use outcome::{AddOutcome, Check, Duplicate, Policy, Rejudged};
pub use parallel::AddAll;
pub use prepared_commit::DedupPreparedCommit;
pub use prepared_document::PreparedDocument;
