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
//! What is held to do so is in `dependents`; the records a holder holds are released or let
//! go by `records`. Here is the work a change leaves, done once a decision is taken
//! ([`settle`]).

use std::collections::HashMap;

use super::decision::decide;
use super::dependents::Work;
#[cfg(doc)]
use super::outcome::Policy;
use super::outcome::Rejudged;
use super::prepared_document::Decision;
use super::state::{Rules, State};
use crate::error::Result;

/// Does the work changes left: decides again what was judged against a changed
/// document, and what that changes in turn.
pub(super) fn settle(rules: &Rules, state: &mut State) -> Result<()> {
    while let Some(work) = state.dependents.queue.pop_front() {
        match work {
            Work::Changed(key) => changed(rules, state, &key)?,
            Work::Decide {
                prepared,
                after,
                decision,
                quiet,
            } => {
                let key = prepared.key.clone();
                let rewrite = decision == Decision::FlaggedCopy;
                if let (true, Some(key), Some(field)) =
                    (rewrite, key.as_deref(), rules.index.fields().key)
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
                let outcome = decide(rules, state, prepared, decision)?;
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
                let (Some(key), Some(field)) = (prepared.key.clone(), rules.index.fields().key)
                else {
                    continue;
                };
                // Replaced or updated since it was queued: nothing to write again.
                if state.view.versions_of(&key)? != [prepared.version] {
                    continue;
                }
                (state.writer).delete_term(tantivy::Term::from_field_text(field, &key));
                state.view.delete_key(&key)?;
                decide(rules, state, prepared, Decision::Older)?;
            }
        }
    }
    Ok(())
}

/// Queues what was judged against the document of `key`, which changed.
fn changed(rules: &Rules, state: &mut State, key: &str) -> Result<()> {
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
        let unmarked = rules.index.fields().unmarked(&stored);
        again.push((rules.prepare(unmarked)?, Decision::FlaggedCopy));
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
        let other = |key: &str| (rejected_words.get(key)).is_some_and(|v| *v != prepared.version);
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
