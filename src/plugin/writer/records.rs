//! The records a holder holds (under [`Policy::Replace`], the keys and texts of the documents
//! it replaced, in [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD)), when something
//! changes: the holder's own key ([`release_records`]: those its new text still covers stay
//! its records, the others are decided again or reported lost), or the key of a record
//! ([`let_go_records_of`]: its holders are written again without it).

use std::collections::HashSet;

use super::dependents::Work;
#[cfg(doc)]
use super::outcome::Policy;
use super::prepared_document::{Decision, PreparedDocument};
use super::state::{Rules, State};
use crate::error::Result;
use crate::fingerprint::{Fingerprint, Signature};

/// Whether two documents' values make them near-duplicates by `rules`' rule.
fn covers(
    rules: &Rules,
    (fingerprint, signature, scope): (Fingerprint, Option<&Signature>, Option<u64>),
    other: &PreparedDocument,
) -> bool {
    let Some(theirs) = other.fingerprint else {
        return false;
    };
    if rules.index.settings().get_scope_field().is_some() && scope != other.scope {
        return false;
    }
    let distance = (fingerprint.bits() ^ theirs.bits()).count_ones();
    (rules.matcher)
        .judge(
            distance,
            signature.map(Signature::values),
            other.signature.as_ref().map(Signature::values),
        )
        .is_some()
}

/// The records the document of `old` holds, now that it goes: those whose text the writer
/// holds and `new` (the values of the document taking its key's place, when it is a
/// reference) covers are returned, to be its records; the others with a text are decided
/// again, and those without one reported lost.
pub(super) fn release_records(
    rules: &Rules,
    state: &mut State,
    old: &str,
    new: Option<(Fingerprint, Option<&Signature>, Option<u64>)>,
) -> Result<Vec<String>> {
    let held = state.view.holdings_of(old)?;
    let mut kept = Vec::new();
    let fields = rules.index.fields();
    // The texts a committed version keeps of its records, held like the batch's own.
    let schema = rules.index.index().schema();
    for stored in state.view.committed_docs_of(old)? {
        for (record, text) in fields.texts_in(&schema, &stored) {
            if !state.dependents.holds_text(&record) {
                state.dependents.load_text(record, rules.prepare(text)?);
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
            Some(text) if new.is_some_and(|new| covers(rules, new, &text)) => {
                kept.push(record.clone());
                state.dependents.texts.insert(record, text);
            }
            // Another document holds a record of its key too, and which is the later
            // text is not known: reported lost rather than an older text brought back.
            Some(_) if key.is_some_and(|key| other_holders(state, key, old, &record)) => {
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

/// Lets go of the records of `key` that other documents hold, now that `key` is deleted or
/// decided again (its latest word is elsewhere): their holders are written again without
/// them, so that no later change of a holder brings an older text of `key` back.
pub(super) fn let_go_records_of(rules: &Rules, state: &mut State, key: &str) -> Result<()> {
    let fields = rules.index.fields();
    if fields.replaced_key.is_none() {
        return Ok(());
    }
    let schema = rules.index.index().schema();
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
                        state.dependents.load_text(record, rules.prepare(text)?);
                    }
                }
                let mut document = fields.unmarked(&stored);
                fields.add_records(&mut document, &records);
                (state.dependents).write_texts(&schema, fields, &mut document, &records);
                rules.prepare(document)?
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

/// Whether a document other than `old` holds a record of `key`, and `record` is not known as
/// `key`'s latest text.
fn other_holders(state: &State, key: &str, old: &str, record: &str) -> bool {
    if (state.dependents.latest.get(key)).is_some_and(|latest| latest.as_deref() == Some(record)) {
        return false;
    }
    (state.view.holders_of_records_of(key)).map_or(true, |holders| {
        holders.iter().any(|(holder, _)| holder != old)
    })
}
