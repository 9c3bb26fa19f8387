//! The decision: given a prepared document and what the index holds, what happens to it.
//!
//! [`decide`] takes the steps in order, each one rule, named after the outcome it decides
//! ([`AddOutcome`]) or the word of the writer it keeps:
//!
//! 1. [`policy`]: the policy applied (a flagged copy written again is decided as `Flag`);
//! 2. [`supersede`]: a text sent is its key's latest word: what is held of the key's
//!    other texts is superseded;
//! 3. [`exists`]: the same key and text indexed already is [`AddOutcome::Exists`]; another
//!    text of the key is the version this document updates;
//! 4. [`duplicates`]: the near-duplicates among the references, nearest first;
//! 5. a new word of its key: the records other documents hold of the key are let go
//!    ([`let_go_records_of`]);
//! 6. [`held_copies`]: the copies held to decide the document again later;
//! 7. [`reject`]: a near-duplicate under `Reject` is [`AddOutcome::Rejected`], held with the
//!    keys it was judged near;
//! 8. from here on the document is written: [`updated`], the version it updates releases
//!    its records (those it still covers are carried over);
//! 9. [`added`] ([`AddOutcome::Added`], or [`AddOutcome::Updated`]): near nothing, or no
//!    fingerprint; [`flag`] ([`AddOutcome::Flagged`]) or [`replace`]
//!    ([`AddOutcome::Replaced`]): a near-duplicate under `Flag` or `Replace`. Each ends in
//!    [`delete_updated`] and [`write()`].
//!
//! A step changes the state only through the view, the dependents (whose queued work
//! `rejudge` does once the decision is taken) and tantivy's writer; the order of those
//! changes is the order of the steps.

use tantivy::schema::Schema;
use tantivy::{Opstamp, Term};

use super::dependents::Dependents;
use super::outcome::{AddOutcome, Duplicate, Policy};
use super::prepared_document::{Decision, PreparedDocument};
use super::records::{let_go_records_of, release_records};
use super::state::{Rules, State};
use super::view::{Judged, WriterView};
use crate::error::Result;
use crate::fingerprint::{Fingerprint, Signature};
use crate::matching::Matcher;
use crate::plugin::MAX_REPLACED_RECORDS;

/// What the index holds of a document's key (see [`exists`]).
pub(super) enum Lookup<'k> {
    /// A document of this key and text is indexed already.
    Exists(&'k str),
    /// A new text: `update` is the key of the version it would replace, when the index holds
    /// another text of its key.
    New { update: Option<&'k str> },
}

/// Decides `prepared` as `decision` says, against what the index holds: the steps of the
/// module's documentation, in order. The changes it makes are queued in the state's
/// dependents, for `rejudge::settle`.
pub(super) fn decide(
    rules: &Rules,
    state: &mut State,
    mut prepared: PreparedDocument,
    decision: Decision,
) -> Result<AddOutcome> {
    let policy = policy(rules, decision);
    supersede(rules, &mut state.dependents, &prepared, decision);
    let update = match exists(&state.view, prepared.key.as_deref(), prepared.version)? {
        Lookup::Exists(key) => {
            return Ok(AddOutcome::Exists {
                key: key.to_owned(),
            })
        }
        Lookup::New { update } => update.map(str::to_owned),
    };
    let State { view, judged, .. } = &mut *state;
    duplicates(
        &rules.matcher,
        view,
        judged,
        prepared.values(),
        update.as_deref(),
    )?;
    // A new word of its key, whatever the policy: what other documents hold of the key's
    // older texts goes (else a later change of a holder could not tell which of two texts
    // of the key is the newer one).
    if let Some(key) = prepared.key.as_deref() {
        let_go_records_of(rules, state, key)?;
    }
    let nearest = state.judged.first().copied();
    let (held, held_added) = held_copies(rules, state, &prepared, policy, update.as_deref())?;
    if let (Policy::Reject, Some(nearest), Some(fingerprint)) =
        (policy, nearest, prepared.fingerprint)
    {
        return reject(state, prepared, nearest, fingerprint);
    }
    if let Some(key) = prepared.key.as_deref() {
        state.dependents.written_over(key, prepared.version);
    }
    if let Some(old) = update.as_deref() {
        // Whether this document takes its key's place as a reference.
        let reference =
            prepared.fingerprint.is_some() && (nearest.is_none() || policy == Policy::Replace);
        updated(rules, state, &mut prepared, old, reference)?;
    }
    if let (Some(key), Some(held_added)) = (prepared.key.as_deref(), held_added) {
        state.dependents.hold_added(key.to_owned(), held_added);
    }
    // Numbered under the lock, so that the numbers follow the order of the decisions.
    let sequence = rules.index.take_sequence()?;
    (rules.index.fields()).set_sequence(&mut prepared.document, sequence);
    let update = update.as_deref();
    match (prepared.fingerprint, nearest) {
        (Some(fingerprint), Some(nearest)) => match policy {
            Policy::Reject => unreachable!("decided above"),
            Policy::Flag => flag(rules, state, prepared, update, (fingerprint, nearest), held),
            Policy::Replace => replace(rules, state, prepared, update, fingerprint),
        },
        (fingerprint, _) => added(rules, state, prepared, update, fingerprint),
    }
}

/// The policy a decision applies: the writer's, but a flagged copy written again because
/// its original changed ([`Decision::FlaggedCopy`]) is decided as [`Policy::Flag`] decides
/// whatever the writer's policy: a document of the index, unflagged or flagged against
/// another, never rejected nor replacing one.
fn policy(rules: &Rules, decision: Decision) -> Policy {
    match decision {
        Decision::Sent | Decision::Older => rules.policy,
        Decision::FlaggedCopy => Policy::Flag,
    }
}

/// A text sent ([`Decision::Sent`]) is its key's latest word: what is held of the key with
/// another text (a rejected text held or watched, a report of it lost) is superseded, and so
/// are the records of its other texts. A text the index kept, written again
/// ([`Decision::Older`]), is no new word of its key: a later text of it rejected stays its
/// latest word, only the records of its other texts are superseded. A flagged copy written
/// again changes nothing held of its key.
fn supersede(
    rules: &Rules,
    dependents: &mut Dependents,
    prepared: &PreparedDocument,
    decision: Decision,
) {
    let Some(key) = prepared.key.as_deref() else {
        return;
    };
    let record = || (prepared.version).and_then(|v| rules.index.fields().record_of(key, v));
    match decision {
        Decision::Sent => dependents.forget(key, prepared.version, record().as_deref()),
        Decision::Older => dependents.forget_texts(key, record().as_deref()),
        Decision::FlaggedCopy => {}
    }
}

/// [`Lookup::Exists`] when a document of `key` with this text (`version`) is indexed already
/// (a resumed run), or was, and a near-duplicate that is still indexed replaced it (already
/// accounted for). Else a new text, which updates the key's indexed version if there is
/// one.
pub(super) fn exists<'k>(
    view: &WriterView,
    key: Option<&'k str>,
    version: Option<u64>,
) -> Result<Lookup<'k>> {
    let Some(key) = key else {
        return Ok(Lookup::New { update: None });
    };
    let versions = view.versions_of(key)?;
    if versions.contains(&version) {
        return Ok(Lookup::Exists(key));
    }
    if !versions.is_empty() {
        return Ok(Lookup::New { update: Some(key) });
    }
    if let Some(version) = version {
        if view.was_replaced(key, version)? {
            return Ok(Lookup::Exists(key));
        }
    }
    Ok(Lookup::New { update: None })
}

/// The near-duplicates of a document's values among the view's references, nearest first,
/// in `judged` (none without a fingerprint). The version it updates (`update`) is no
/// reference for its successor: left out.
pub(super) fn duplicates(
    matcher: &Matcher,
    view: &mut WriterView,
    judged: &mut Vec<Judged>,
    (fingerprint, signature, scope): (Option<Fingerprint>, Option<&Signature>, Option<u64>),
    update: Option<&str>,
) -> Result<()> {
    judged.clear();
    if let Some(fingerprint) = fingerprint {
        view.near((fingerprint, signature, scope), matcher, judged)?;
        if let Some(old) = update {
            judged.retain(|found| !view.has_key(found, old));
        }
    }
    Ok(())
}

/// The copies of the document held to decide something again later, taken as it is before
/// the decision marks it: under `Flag` (`policy`), a near-duplicate, which is unflagged or
/// flagged again when its original changes; and, under a `Replace` writer, each keyed
/// document (a later one may replace it, a flagged copy written again, now a reference,
/// too), under any policy one holding records (brought along, or kept from the version it
/// updates), which a change of their keys writes again without them.
fn held_copies(
    rules: &Rules,
    state: &State,
    prepared: &PreparedDocument,
    policy: Policy,
    update: Option<&str>,
) -> Result<(Option<PreparedDocument>, Option<PreparedDocument>)> {
    let near = !state.judged.is_empty();
    let held = match (policy, near, prepared.fingerprint) {
        (Policy::Flag, true, Some(_)) => Some(prepared.clone()),
        _ => None,
    };
    let held_added = match (rules.policy, prepared.key.is_some()) {
        (_, false) => None,
        (Policy::Replace, true) => Some(prepared.clone()),
        (_, true) => {
            let holds_records = !prepared.records.is_empty()
                || match update {
                    Some(old) => !state.view.holdings_of(old)?.is_empty(),
                    None => false,
                };
            holds_records.then(|| prepared.clone())
        }
    };
    Ok((held, held_added))
}

/// [`AddOutcome::Rejected`]: a near-duplicate under `Reject` is not indexed (a rejected new
/// version leaves the indexed one as it is). It is held with the keys of the references it
/// was judged near, to be decided again when one of them changes.
fn reject(
    state: &mut State,
    prepared: PreparedDocument,
    nearest: Judged,
    fingerprint: Fingerprint,
) -> Result<AddOutcome> {
    let State {
        view,
        judged,
        dependents,
        ..
    } = state;
    let duplicate_of = view.describe(nearest)?;
    let mut against = Vec::new();
    for &found in judged.iter() {
        if let Some(reference) = view.describe(found)?.key {
            against.push(reference);
        }
    }
    dependents.hold_rejected(against, prepared);
    Ok(AddOutcome::Rejected {
        fingerprint,
        duplicate_of,
    })
}

/// The version of its key this document updates (`old`) goes: the records it holds that
/// this document still covers (when it is a reference: `reference`) are carried over to it,
/// with their texts; the others are decided again.
fn updated(
    rules: &Rules,
    state: &mut State,
    prepared: &mut PreparedDocument,
    old: &str,
    reference: bool,
) -> Result<()> {
    let fields = rules.index.fields();
    let new = (prepared.fingerprint)
        .filter(|_| reference)
        .map(|fingerprint| (fingerprint, prepared.signature.as_ref(), prepared.scope));
    let kept = release_records(rules, state, old, new)?;
    fields.add_records(&mut prepared.document, &kept);
    let schema = rules.index.index().schema();
    (state.dependents).write_texts(&schema, fields, &mut prepared.document, &kept);
    prepared.records.extend(kept);
    Ok(())
}

/// [`AddOutcome::Added`], or [`AddOutcome::Updated`] when it replaces an earlier version of
/// its key: a document near no reference (or without a fingerprint, never one's duplicate)
/// is indexed, a reference when it has a fingerprint.
fn added(
    rules: &Rules,
    state: &mut State,
    prepared: PreparedDocument,
    update: Option<&str>,
    fingerprint: Option<Fingerprint>,
) -> Result<AddOutcome> {
    delete_updated(rules, state, update)?;
    let opstamp = write(rules, state, prepared, None)?;
    Ok(match update {
        Some(_) => AddOutcome::Updated {
            fingerprint,
            opstamp,
        },
        None => AddOutcome::Added {
            fingerprint,
            opstamp,
        },
    })
}

/// [`AddOutcome::Flagged`]: a near-duplicate under `Flag` is indexed, flagged against the
/// nearest reference (by its key, else its fingerprint), and is no reference. Its copy
/// `held` unflagged is held against that original's key, to be decided again when it
/// changes.
fn flag(
    rules: &Rules,
    state: &mut State,
    prepared: PreparedDocument,
    update: Option<&str>,
    (fingerprint, nearest): (Fingerprint, Judged),
    held: Option<PreparedDocument>,
) -> Result<AddOutcome> {
    let duplicate_of = state.view.describe(nearest)?;
    let of = (duplicate_of.key.clone()).unwrap_or_else(|| duplicate_of.fingerprint.to_string());
    delete_updated(rules, state, update)?;
    if let (Some(original), Some(held)) = (&duplicate_of.key, held) {
        state.dependents.hold_flagged(original.clone(), held);
    }
    let opstamp = write(rules, state, prepared, Some((duplicate_of.distance, &of)))?;
    Ok(AddOutcome::Flagged {
        fingerprint,
        duplicate_of,
        opstamp,
    })
}

/// [`AddOutcome::Replaced`]: under `Replace`, every near-duplicate with a key is deleted (a
/// reference without one cannot be deleted by key: it stays) and the document, indexed as
/// a reference, takes their records over: each one's own (its key and text, the text held
/// in case this document changes) and those it held. Copies flagged against them are
/// decided again.
fn replace(
    rules: &Rules,
    state: &mut State,
    mut prepared: PreparedDocument,
    update: Option<&str>,
    fingerprint: Fingerprint,
) -> Result<AddOutcome> {
    let fields = rules.index.fields();
    let key_field = fields.key.expect("checked in DedupWriter::new");
    let schema = rules.index.index().schema();
    let State {
        writer,
        view,
        judged,
        dependents,
        ..
    } = &mut *state;
    let mut replaced = Vec::with_capacity(judged.len());
    // What each replaced document stood for: itself, then its own records.
    let mut taken_over = Vec::with_capacity(judged.len());
    for &found in judged.iter() {
        let duplicate = view.describe(found)?;
        if let Some(old_key) = &duplicate.key {
            let (own, held) = view.records_of(&duplicate)?;
            let text = replaced_text(rules, &schema, view, dependents, &duplicate, old_key)?;
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
    let carried = prepared.records.len();
    take_over(&mut prepared.records, taken_over);
    let taken = &prepared.records[carried..];
    fields.add_records(&mut prepared.document, taken);
    dependents.write_texts(&schema, fields, &mut prepared.document, taken);
    delete_updated(rules, state, update)?;
    let opstamp = write(rules, state, prepared, None)?;
    Ok(AddOutcome::Replaced {
        fingerprint,
        replaced,
        opstamp,
    })
}

/// The text of `duplicate` (of key `old_key`), replaced now, to be held until the commit in
/// case the document replacing it changes: read from the index, the texts of its own
/// records (which the replacing document takes over) held too; or, added since the commit,
/// as it was sent: the records it held then are taken over by the caller, not brought back
/// with its text.
fn replaced_text(
    rules: &Rules,
    schema: &Schema,
    view: &WriterView,
    dependents: &mut Dependents,
    duplicate: &Duplicate,
    old_key: &str,
) -> Result<Option<PreparedDocument>> {
    let fields = rules.index.fields();
    Ok(match duplicate.address {
        Some(address) => {
            let stored = view.doc_at(address)?;
            for (record, text) in fields.texts_in(schema, &stored) {
                if !dependents.holds_text(&record) {
                    dependents.load_text(record, rules.prepare(text)?);
                }
            }
            Some(rules.prepare(fields.unmarked(&stored))?)
        }
        None => dependents.take_added(old_key).map(|mut held| {
            held.document = fields.unmarked(&held.document);
            held.records.clear();
            held
        }),
    })
}

/// The version of its key a written document updates (`update`) is deleted, as a part of
/// this add: tantivy commits the delete and the add together or neither. What was judged
/// against it is decided again.
fn delete_updated(rules: &Rules, state: &mut State, update: Option<&str>) -> Result<()> {
    match (update, rules.index.fields().key) {
        (Some(old), Some(field)) => {
            state.writer.delete_term(Term::from_field_text(field, old));
            state.dependents.changed(old);
            state.view.delete_key(old)
        }
        _ => Ok(()),
    }
}

/// The end of every outcome that indexes the document: its flag set (`flag`: the distance
/// and the original it is flagged against), the view told (a reference inserted, when it
/// has a fingerprint and no flag; else its key noted), its records noted, the document
/// added.
fn write(
    rules: &Rules,
    state: &mut State,
    prepared: PreparedDocument,
    flag: Option<(u32, &str)>,
) -> Result<Opstamp> {
    let PreparedDocument {
        mut document,
        fingerprint,
        signature,
        version,
        key,
        scope,
        records,
    } = prepared;
    rules.index.fields().set_flag(&mut document, flag);
    let key = key.as_deref();
    match fingerprint {
        Some(fingerprint) if flag.is_none() => {
            (state.view).insert((fingerprint, signature, scope), (key, version));
        }
        _ => state.view.note_added_key(key, version),
    }
    state.view.note_records(key, records);
    Ok(state.writer.add_document(document)?)
}

/// Appends to `records` what a replacing document takes over from the documents it
/// replaced (`taken_over`, nearest first: each one's own record and the ones it held): their
/// own records first, then theirs in order, one of each key (the first, the newer: a
/// document's own text is newer than the records it holds of its key, so that a later
/// word of that key is never ordered behind an older one), up to [`MAX_REPLACED_RECORDS`].
fn take_over(records: &mut Vec<String>, taken_over: Vec<(Option<String>, Vec<String>)>) {
    // A record is its text digest (16 hex digits), then its key.
    let key = |record: &str| record.get(16..).unwrap_or(record).to_owned();
    let mut seen: std::collections::HashSet<String> =
        records.iter().map(|record| key(record)).collect();
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
