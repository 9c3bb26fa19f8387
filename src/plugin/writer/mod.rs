//! The index-time path: [`DedupWriter`] fingerprints each document, looks for its
//! near-duplicates among the index's references, and rejects, flags or replaces them by
//! [`Policy`], reporting an [`AddOutcome`]. The equivalent of Solr's
//! `SignatureUpdateProcessorFactory` with `overwriteDupes`, for near-duplicates.
//!
//! * `dedup_writer`: [`DedupWriter`], the lock around tantivy's `IndexWriter` and the view.
//! * `parallel`: [`DedupWriter::add_batch`] and [`DedupWriter::add_all`] ([`AddAll`]):
//!   documents fingerprinted on rayon's threads, decided in input order.
//! * `view`: the references new documents are compared with: the block tables of their
//!   fingerprints, the bands of their signatures, the keys added and deleted since the last
//!   commit.
//! * `segment_refs`: the committed references, probed in the segments' tables where the
//!   segment component keeps them; `band_filter`, the band keys the segments may hold.
//! * `slots`: the references' signatures, in memory or read from the index on demand, and
//!   the committed references found again in the writer's searcher.
//! * `rejudge`: [`Rejudged`], the records judged against a document that changed, decided
//!   again ([`DedupWriter::take_rejudged`]).
//! * `watches`, `ledger`: the records rejected under [`Policy::Reject`] in a commit, watched
//!   until a document they were judged near changes, and the index's ledger of them, which
//!   a later writer reads.
//! * `prepared_commit`: [`DedupPreparedCommit`], a two-phase commit
//!   ([`DedupWriter::prepare_commit`]) that the writer's view follows.
//! * `outcome`: [`Policy`], [`AddOutcome`], [`Check`] (a dry run's answer) and [`Duplicate`].
//! * `shared` (cargo feature `cluster`): [`DedupWriter::shared`], a writer whose documents
//!   are decided in a near-duplicate space shared with other writers first.

mod band_filter;
mod commit_payload;
mod dedup_writer;
mod ledger;
mod outcome;
mod parallel;
mod prepared_commit;
mod rejudge;
mod segment_refs;
#[cfg(feature = "cluster")]
mod shared;
mod slots;
mod view;
mod watches;

pub(crate) use commit_payload::decode as decode_payload;
pub use dedup_writer::{DedupWriter, PreparedDocument};
pub use outcome::{AddOutcome, Check, Duplicate, Policy};
pub use parallel::AddAll;
pub use prepared_commit::DedupPreparedCommit;
pub use rejudge::Rejudged;
