//! The reports of records decided again ([`Rejudged`]), handed out by
//! [`DedupWriter::take_rejudged`] and delivered by [`DedupWriter::deliver_reports`] (the
//! module `rejudge` says when records are decided again).

use super::dedup_writer::DedupWriter;
use super::outcome::Rejudged;
use crate::error::Result;

impl DedupWriter {
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
