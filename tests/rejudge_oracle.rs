//! No input text ends up nowhere, under every policy: random runs of adds, updates, deletes
//! and commits, each followed by the same run again, checked against a brute-force model.
//! Each run has a policy of its own: one for all of them, or (`policies_mixed_lose_no_text`)
//! each drawn among the three, as runs of `ingest` with other `--policy` options on one index.
//!
//! Texts come in families: the variants of a family differ in case and layout only, so the
//! writer's rule finds them near-duplicates of one another (checked below), and texts of two
//! families are unrelated. The model knows every text's family, and after each run checks:
//!
//! * **Nothing lost.** Every text a run's input leaves as its key's last word is in the
//!   index under its key; or, under Reject, kept out because of a document of its family
//!   that is still there (the one its last outcome names), and under Replace, a document of
//!   its family is there; or, under Reject, it was reported [`Rejudged::Lost`] (a replaced
//!   text comes back, whenever it was replaced); or, replaced by a Replace run and sent
//!   again under another policy, it is `Exists`, a record of an alive document. And so is, after every run, each key's
//!   last word of every earlier run: a text rejected in one run and left out by a change in
//!   a later one (each run has a writer of its own, of any policy) is reported lost by the
//!   later one; a text indexed stays there until its key changes or a Replace run replaces
//!   it (a document of its family is there then).
//! * **Judged again.** Every flagged document points at an alive, unflagged document of its
//!   family, also when a run of another policy changed the one it was flagged against;
//!   every record a document holds ([`REPLACED_FIELD`]) is of its family; no two references
//!   (unflagged documents) are of one family.
//! * **Run again, nothing changes.** The run's net input (each key's last add or delete, in
//!   order) run again indexes nothing (every add `Exists`, or is rejected again under
//!   Reject), decides nothing again, and leaves the index as it was.

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use support::index::random_text;
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, Value};
use tantivy::{doc, Index, TantivyDocument};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, Check, DedupIndex, DedupSettings, DedupWriter, Policy,
    Rejudged, DUPLICATE_OF_FIELD, FLAG_FIELD, REPLACED_FIELD,
};

const FAMILIES: usize = 3;
const VARIANTS: usize = 3;
const KEYS: usize = 5;

/// The text of `variant` of `family`: the same words, in another case or layout.
fn text(family: usize, variant: usize) -> String {
    let base = random_text(7_000 + family as u64, 60);
    match variant {
        0 => base,
        1 => base.to_uppercase(),
        _ => base.replace(' ', "\n"),
    }
}

/// Every text's family, by text.
fn families() -> HashMap<String, usize> {
    let mut families = HashMap::new();
    for family in 0..FAMILIES {
        for variant in 0..VARIANTS {
            families.insert(text(family, variant), family);
        }
    }
    families
}

#[derive(Clone, Debug)]
enum Op {
    Add {
        key: usize,
        family: usize,
        variant: usize,
    },
    Delete(usize),
    Commit,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        7 => (0..KEYS, 0..FAMILIES, 0..VARIANTS)
            .prop_map(|(key, family, variant)| Op::Add { key, family, variant }),
        2 => (0..KEYS).prop_map(Op::Delete),
        1 => Just(Op::Commit),
    ]
}

fn runs() -> impl Strategy<Value = Vec<Vec<Op>>> {
    prop::collection::vec(prop::collection::vec(op(), 1..9), 1..5)
}

/// Runs, each with a policy drawn among the three (the fixture's index has a key field and
/// the flag fields: every policy can write it).
fn mixed_runs() -> impl Strategy<Value = Vec<(Policy, Vec<Op>)>> {
    let policy = prop_oneof![
        Just(Policy::Reject),
        Just(Policy::Flag),
        Just(Policy::Replace)
    ];
    prop::collection::vec((policy, prop::collection::vec(op(), 1..9)), 1..5)
}

fn key(key: usize) -> String {
    format!("k{key}")
}

struct Fixture {
    index: DedupIndex,
    /// The policy of the current run.
    policy: Policy,
    /// The writer of the current run (a run of `ingest` is a process: a writer of its own).
    writer: Option<DedupWriter>,
    url: tantivy::schema::Field,
    body: tantivy::schema::Field,
}

fn fixture(policy: Policy) -> Fixture {
    let settings = DedupSettings::new(["body"]).key_field("url").flagging(true);
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let schema = schema.build();
    let url = schema.get_field("url").unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let inner = index
        .index()
        .writer_with_num_threads(1, 15_000_000)
        .unwrap();
    let writer = DedupWriter::new(index.clone(), inner, policy).unwrap();
    Fixture {
        index,
        policy,
        writer: Some(writer),
        url,
        body,
    }
}

impl Fixture {
    fn w(&self) -> &DedupWriter {
        self.writer.as_ref().expect("a writer")
    }

    /// A new run under `policy`: the writer goes (what it held in memory with it) and
    /// another opens the index, as a new `ingest` process would.
    fn reopen(&mut self, policy: Policy) {
        drop(self.writer.take());
        let inner = (self.index.index())
            .writer_with_num_threads(1, 15_000_000)
            .unwrap();
        self.policy = policy;
        self.writer = Some(DedupWriter::new(self.index.clone(), inner, policy).unwrap());
    }
}

/// An alive document as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Stored {
    key: String,
    body: String,
    flagged_against: Option<String>,
    records: BTreeSet<String>,
}

/// Every alive document of the last commit.
fn contents(f: &Fixture) -> BTreeSet<Stored> {
    let searcher = f.w().searcher();
    let schema = f.index.index().schema();
    let flag = schema.get_field(FLAG_FIELD).unwrap();
    let of = schema.get_field(DUPLICATE_OF_FIELD).unwrap();
    let replaced = schema.get_field(REPLACED_FIELD).unwrap();
    let addresses = searcher.search(&AllQuery, &DocSetCollector).unwrap();
    addresses
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            let text = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            };
            let flagged = doc.get_first(flag).and_then(|v| v.as_u64()).unwrap_or(0) > 0;
            Stored {
                key: text(f.url).unwrap(),
                body: text(f.body).unwrap(),
                flagged_against: if flagged { text(of) } else { None },
                records: doc
                    .get_all(replaced)
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            }
        })
        .collect()
}

/// Adds `variant` of `family` as the text of key `k`.
fn add(f: &Fixture, k: usize, family: usize, variant: usize) -> AddOutcome {
    let document = doc!(f.url => key(k), f.body => text(family, variant));
    f.w().add(document).unwrap()
}

/// Each key's last word over every run so far, but for the rejected texts reported lost: a
/// crawler would fetch those again.
#[derive(Default)]
struct Words(BTreeMap<String, Word>);

/// A key's last word.
struct Word {
    family: usize,
    variant: usize,
    /// Rejected since it was sent (an outcome, or a decision again): a loss reported of it
    /// is that of a rejected text.
    rejected: bool,
    /// Known to be in the index: indexed by a run of Reject or Flag, or there after a
    /// run; only a Replace run (which replaces references) takes it out.
    indexed: bool,
}

/// What a run's record came to: its last outcome, or lost.
#[derive(Clone, Debug)]
enum Fate {
    Outcome(AddOutcome),
    Lost,
}

/// Runs `ops`; each key's fate (from outcomes and records decided again), in the run,
/// and the last words of `words` updated.
fn run(f: &Fixture, ops: &[Op], words: &mut Words) -> HashMap<String, Fate> {
    let mut fates = HashMap::new();
    let note = |fates: &mut HashMap<String, Fate>, words: &mut Words, f: &Fixture| {
        for event in f.w().take_rejudged() {
            match event {
                Rejudged::Decided { key, outcome, .. } => {
                    let key = key.unwrap();
                    if let Some(word) = words.0.get_mut(&key) {
                        word.rejected |= matches!(outcome, AddOutcome::Rejected { .. });
                    }
                    fates.insert(key, Fate::Outcome(outcome));
                }
                Rejudged::Lost { key, .. } => {
                    // A rejected text, reported lost (by a writer of any policy, in this
                    // run or a later one): fetched again, it is a new word.
                    if words.0.get(&key).is_some_and(|word| word.rejected) {
                        words.0.remove(&key);
                    }
                    fates.insert(key, Fate::Lost);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    if f.policy == Policy::Replace {
        for word in words.0.values_mut() {
            word.indexed = false;
        }
    }
    for op in ops {
        match *op {
            Op::Add {
                key: k,
                family,
                variant,
            } => {
                let outcome = add(f, k, family, variant);
                let word = Word {
                    family,
                    variant,
                    rejected: matches!(outcome, AddOutcome::Rejected { .. }),
                    indexed: f.policy != Policy::Replace
                        && matches!(
                            outcome,
                            AddOutcome::Added { .. }
                                | AddOutcome::Updated { .. }
                                | AddOutcome::Flagged { .. }
                        ),
                };
                fates.insert(key(k), Fate::Outcome(outcome));
                words.0.insert(key(k), word);
            }
            Op::Delete(k) => {
                f.w().delete_key(&key(k)).unwrap();
                fates.remove(&key(k));
                words.0.remove(&key(k));
            }
            Op::Commit => {
                f.w().commit().unwrap();
            }
        }
        note(&mut fates, words, f);
    }
    f.w().commit().unwrap();
    // The run's reports are recorded (`fates`): a commit says so, as `ingest` makes it, or
    // the next run's writer would report its lost records again.
    f.w().deliver_reports().unwrap();
    note(&mut fates, words, f);
    fates
}

/// The run's net input: each key's last add or delete, in the order of those.
fn net(ops: &[Op]) -> Vec<Op> {
    let mut last: BTreeMap<usize, (usize, Op)> = BTreeMap::new();
    for (at, op) in ops.iter().enumerate() {
        match *op {
            Op::Add { key, .. } | Op::Delete(key) => {
                last.insert(key, (at, op.clone()));
            }
            Op::Commit => {}
        }
    }
    let mut net: Vec<(usize, Op)> = last.into_values().collect();
    net.sort_by_key(|(at, _)| *at);
    net.into_iter().map(|(_, op)| op).collect()
}

/// The family of the record `record` (a text digest in hex, then the key).
fn family_of_record(record: &str, digests: &HashMap<u64, usize>) -> usize {
    let digest = u64::from_str_radix(&record[..16], 16).unwrap();
    digests[&digest]
}

/// [`check_mixed`] of `runs`, each under `policy`.
fn check(policy: Policy, runs: &[Vec<Op>]) -> Result<(), TestCaseError> {
    let runs: Vec<_> = runs.iter().map(|ops| (policy, ops.clone())).collect();
    check_mixed(&runs)
}

/// Runs `runs` (each with its policy) on one index, checking the model after each.
fn check_mixed(runs: &[(Policy, Vec<Op>)]) -> Result<(), TestCaseError> {
    let families = families();
    let digests: HashMap<u64, usize> = (families.iter())
        .map(|(text, &family)| (xxhash_rust::xxh3::xxh3_64(text.as_bytes()), family))
        .collect();
    let mut f = fixture(Policy::Reject);
    let mut words = Words::default();
    for (policy, ops) in runs {
        let policy = *policy;
        f.reopen(policy);
        let fates = run(&f, ops, &mut words);
        let contents = contents(&f);
        let alive: HashMap<&str, &Stored> = contents.iter().map(|s| (s.key.as_str(), s)).collect();
        prop_assert_eq!(
            alive.len(),
            contents.len(),
            "one document a key: {:?}",
            contents
        );
        // Judged again: flags, records and references agree with the families now.
        let mut references = HashMap::new();
        for stored in &contents {
            let family = families[&stored.body];
            match &stored.flagged_against {
                Some(original) => {
                    let original = alive.get(original.as_str());
                    prop_assert!(
                        original.is_some_and(
                            |o| o.flagged_against.is_none() && families[&o.body] == family
                        ),
                        "{} flagged against {:?}: {:?}",
                        stored.key,
                        original,
                        contents
                    );
                }
                None => {
                    let other = references.insert(family, &stored.key);
                    prop_assert!(
                        other.is_none(),
                        "two references of {}: {:?}",
                        family,
                        contents
                    );
                }
            }
            for record in &stored.records {
                prop_assert_eq!(
                    family_of_record(record, &digests),
                    family,
                    "{} holds {}: {:?}",
                    &stored.key,
                    record,
                    contents
                );
            }
        }
        // Nothing lost.
        for op in net(ops) {
            let Op::Add {
                key: k,
                family,
                variant,
            } = op
            else {
                continue;
            };
            let (k, body) = (key(k), text(family, variant));
            if alive.get(k.as_str()).is_some_and(|s| s.body == body) {
                continue;
            }
            let fate = fates.get(&k);
            let kept = match (policy, fate) {
                // A replaced text comes back, also when replaced in an earlier commit or
                // run: only a rejected one can be lost.
                (Policy::Reject, Some(Fate::Lost)) => true,
                (
                    Policy::Reject,
                    Some(Fate::Outcome(AddOutcome::Rejected { duplicate_of, .. })),
                ) => {
                    let by = duplicate_of.key.as_deref().unwrap();
                    alive
                        .get(by)
                        .is_some_and(|s| s.flagged_against.is_none() && families[&s.body] == family)
                }
                (Policy::Replace, _) => references.contains_key(&family),
                // Replaced by a Replace run, sent again under another policy: `Exists`, a
                // record of the document that replaced it (its text comes back with it).
                (_, Some(Fate::Outcome(AddOutcome::Exists { .. }))) => {
                    let digest = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
                    let record = format!("{digest:016x}{k}");
                    contents.iter().any(|s| s.records.contains(&record))
                }
                _ => false,
            };
            prop_assert!(
                kept,
                "{} = {:?} is nowhere ({:?}): {:?}",
                k,
                (family, variant),
                fate,
                contents
            );
        }
        // Nothing lost of earlier runs either: each key's last word is there, or (but for
        // a text known to be indexed, which only a Replace run takes out) a document of its
        // family is.
        for (k, word) in &mut words.0 {
            let (family, variant) = (word.family, word.variant);
            let there = alive
                .get(k.as_str())
                .is_some_and(|s| s.body == text(family, variant));
            let near = !word.indexed && references.contains_key(&family);
            prop_assert!(
                there || near,
                "{} = {:?}, an earlier run's, is nowhere: {:?}",
                k,
                (family, variant),
                contents
            );
            word.indexed |= there;
        }
        // Run again: nothing changes. A run that reported records lost is the exception:
        // run again, it adds them (as a crawler fetching them again would), which may change
        // what was judged against the texts they replace; the next run changes nothing.
        let lost: BTreeSet<String> = (fates.iter())
            .filter(|(_, fate)| matches!(fate, Fate::Lost))
            .map(|(k, _)| k.clone())
            .collect();
        let again = net(ops);
        let before = if lost.is_empty() {
            contents
        } else {
            f.reopen(policy);
            run(&f, &again, &mut words);
            self::contents(&f)
        };
        f.reopen(policy);
        run_again(&f, policy, &again)?;
        prop_assert_eq!(before, self::contents(&f), "run again: {:?}", again);
    }
    Ok(())
}

/// Runs `again` (a run's net input) again: every add `Exists` (or is rejected again under
/// Reject) and nothing is decided again.
fn run_again(f: &Fixture, policy: Policy, again: &[Op]) -> Result<(), TestCaseError> {
    for op in again {
        match *op {
            Op::Add {
                key: k,
                family,
                variant,
            } => {
                let outcome = add(f, k, family, variant);
                let unchanged = match outcome {
                    AddOutcome::Exists { .. } => true,
                    AddOutcome::Rejected { .. } => policy == Policy::Reject,
                    _ => false,
                };
                prop_assert!(unchanged, "{} again: {:?}", key(k), outcome);
            }
            Op::Delete(k) => {
                f.w().delete_key(&key(k)).unwrap();
            }
            Op::Commit => {}
        }
        let rejudged = f.w().take_rejudged();
        prop_assert!(rejudged.is_empty(), "{:?}", rejudged);
    }
    f.w().commit().unwrap();
    Ok(())
}

/// The model's premise: variants of a family are near-duplicates by the writer's rule,
/// texts of two families are not.
#[test]
fn families_are_what_the_writer_judges_near() {
    let f = fixture(Policy::Reject);
    for family in 0..FAMILIES {
        let document = doc!(f.url => format!("f{family}"), f.body => text(family, 0));
        assert!(matches!(
            f.w().add(document).unwrap(),
            AddOutcome::Added { .. }
        ));
    }
    for family in 0..FAMILIES {
        for variant in 1..VARIANTS {
            let document = doc!(f.url => "probe", f.body => text(family, variant));
            match f.w().check(&document).unwrap() {
                Check::Duplicate { of, .. } => {
                    let keys: Vec<_> = of.iter().map(|d| d.key.clone().unwrap()).collect();
                    assert_eq!(keys, [format!("f{family}")], "{family}/{variant}");
                }
                other => panic!("{family}/{variant}: {other:?}"),
            }
        }
    }
}

/// Cases the proptest found, kept: each failed once.
#[test]
fn cases_found_before() {
    let add = |key, family, variant| Op::Add {
        key,
        family,
        variant,
    };
    // A delete of the reference a record was rejected against, after the commit: reported
    // lost, and a run again adds it.
    let rejected = vec![vec![add(2, 1, 0), add(3, 1, 0), Op::Commit, Op::Delete(2)]];
    check(Policy::Reject, &rejected).unwrap();
    // A copy sent twice (`Exists` the second time) is still judged again.
    let flagged = vec![
        vec![add(4, 1, 0)],
        vec![add(1, 1, 2), add(1, 1, 2), add(4, 0, 0)],
    ];
    check(Policy::Flag, &flagged).unwrap();
    // A page deleted, then replaced: its record comes back when its holder goes.
    let deleted = vec![vec![
        Op::Delete(4),
        add(4, 2, 0),
        add(1, 2, 0),
        Op::Delete(1),
    ]];
    check(Policy::Replace, &deleted).unwrap();
    // A record whose page has a document of its own again is let go with its holder.
    let own = vec![
        vec![add(0, 1, 0)],
        vec![add(1, 1, 0), add(0, 0, 0), add(1, 1, 0), add(1, 2, 0)],
    ];
    check(Policy::Replace, &own).unwrap();
    // Of two records of one page, the newer comes back.
    let two = vec![
        vec![add(3, 0, 0)],
        vec![add(0, 0, 0), add(3, 0, 1), add(0, 0, 1), add(0, 1, 0)],
    ];
    check(Policy::Replace, &two).unwrap();
    // A page replaced, sent again with another text, replaced again, then sent with its
    // first text: that record is its text again.
    let back = vec![vec![
        add(3, 1, 1),
        add(1, 1, 0),
        add(3, 2, 0),
        add(2, 2, 0),
        add(3, 1, 1),
        add(1, 2, 0),
    ]];
    check(Policy::Replace, &back).unwrap();
    // A rejected record is held against its reference's key, which is deleted and then
    // rejected itself.
    let chain = vec![
        vec![add(2, 0, 0)],
        vec![
            add(0, 2, 0),
            add(2, 2, 0),
            Op::Commit,
            Op::Delete(0),
            add(0, 0, 0),
        ],
    ];
    check(Policy::Reject, &chain).unwrap();
    // Rejected in one run, its reference changed or deleted in a later one (each run has a
    // writer of its own): reported lost there.
    let later_run = vec![vec![add(0, 1, 0)], vec![add(1, 1, 1)], vec![add(0, 2, 0)]];
    check(Policy::Reject, &later_run).unwrap();
    let deleted_later_run = vec![vec![add(0, 1, 0)], vec![add(1, 1, 1)], vec![Op::Delete(0)]];
    check(Policy::Reject, &deleted_later_run).unwrap();
    // A record replaced in an earlier run comes back when its holder changes (it was
    // reported lost when the writer held the texts of its own batch only).
    let earlier = vec![vec![add(0, 1, 0)], vec![add(1, 1, 0)], vec![add(1, 2, 0)]];
    check(Policy::Replace, &earlier).unwrap();
    // A page deleted in a later run than its record was made: the record goes with it.
    let deleted_later = vec![
        vec![add(0, 1, 0)],
        vec![add(2, 1, 0), Op::Delete(0), Op::Commit, add(2, 2, 0)],
    ];
    check(Policy::Replace, &deleted_later).unwrap();
    // A holder written again without a deleted page's record keeps the others' texts.
    let kept_texts = vec![
        vec![add(0, 1, 0), add(3, 1, 2)],
        vec![add(4, 1, 0)],
        vec![add(3, 1, 2), Op::Delete(0), add(4, 2, 0)],
    ];
    check(Policy::Replace, &kept_texts).unwrap();
    // A holder written again, then replaced: its text comes back without the records it
    // held (one of them of a page deleted since).
    let rewritten = vec![
        vec![add(2, 2, 0), add(1, 2, 0), add(0, 2, 0)],
        vec![add(1, 0, 0), add(2, 2, 1), Op::Delete(2), add(1, 0, 0)],
    ];
    check(Policy::Replace, &rewritten).unwrap();
    // Two records of one page taken over by one document: the older, sent again and found
    // `exists`, was then let go in a later commit in favour of the newer.
    let two_taken = vec![
        vec![add(3, 0, 1), add(0, 0, 0), add(3, 0, 2)],
        vec![add(4, 0, 0), add(3, 0, 1), Op::Commit, add(4, 0, 1)],
    ];
    check(Policy::Replace, &two_taken).unwrap();
    let replaced = vec![
        vec![add(0, 0, 0)],
        vec![add(4, 0, 0), add(0, 1, 0), add(1, 1, 0), add(4, 1, 0)],
    ];
    check(Policy::Replace, &replaced).unwrap();
    // Policies mixed. Copies a Flag run flagged, their original deleted by a Replace run
    // and added again (replacing the copy left unflagged), then changed under Reject: the
    // copy's text comes back from the record.
    let (flag, reject, replace) = (Policy::Flag, Policy::Reject, Policy::Replace);
    let copy_replaced = vec![
        (flag, vec![add(0, 1, 0), add(4, 1, 0)]),
        (replace, vec![Op::Delete(0), add(0, 1, 0)]),
        (reject, vec![add(0, 0, 0)]),
    ];
    check_mixed(&copy_replaced).unwrap();
    // A flagged copy sent with a new text under Reject (rejected), then its original
    // changed: the copy's indexed text is flagged again, and its key's report stays the
    // rejection.
    let copy_rejected = vec![
        (flag, vec![add(2, 1, 0), add(1, 1, 0)]),
        (reject, vec![add(1, 1, 1), add(2, 1, 1)]),
    ];
    check_mixed(&copy_rejected).unwrap();
    // Replaced by a Replace run, sent again under Reject: `Exists`, a record.
    let record = vec![
        (replace, vec![add(1, 2, 2), add(0, 2, 0)]),
        (reject, vec![add(1, 2, 2)]),
    ];
    check_mixed(&record).unwrap();
    // A holder of two records written again under Reject without the first's (its page
    // deleted), then without the second's: the second delete finds it held.
    let holder = vec![
        (replace, vec![add(3, 1, 0), add(2, 1, 0), add(0, 1, 0)]),
        (reject, vec![Op::Delete(2), Op::Delete(3)]),
    ];
    check_mixed(&holder).unwrap();
    // A holder's new text rejected under Reject, then the holder written again without a
    // deleted page's record: the rejected text stays held, and is judged again.
    let holder_rejected = vec![
        (replace, vec![add(1, 1, 0), add(0, 1, 0)]),
        (reject, vec![add(1, 2, 0), add(0, 2, 0), Op::Delete(1)]),
    ];
    check_mixed(&holder_rejected).unwrap();
    // A page's older text, indexed while its newer one was rejected (watched), replaced
    // and given back as a record: the newer text stays watched, and is reported lost when
    // its duplicate changes.
    let older = vec![
        (flag, vec![add(4, 2, 1)]),
        (reject, vec![add(3, 0, 0), add(3, 2, 0)]),
        (replace, vec![add(0, 0, 0), Op::Delete(0), add(4, 0, 0)]),
    ];
    check_mixed(&older).unwrap();
    // A flagged copy's newer text rejected, committed, then its original changed: the
    // rejected text is reported lost, and the copy written again unreported after it.
    let lost_then_copy = vec![
        (flag, vec![add(4, 1, 0), add(3, 1, 1)]),
        (reject, vec![add(3, 1, 0), Op::Commit, add(4, 0, 0)]),
    ];
    check_mixed(&lost_then_copy).unwrap();
    // A copy written again under Reject (flagged against a record admitted), its new text
    // rejected, then that record deleted: the copy, still indexed, is judged again.
    let held_copy = vec![
        (flag, vec![add(0, 0, 0), add(4, 2, 0), add(1, 0, 0)]),
        (
            reject,
            vec![add(3, 0, 0), Op::Delete(0), add(1, 2, 0), Op::Delete(3)],
        ),
    ];
    check_mixed(&held_copy).unwrap();
    // A holder updated under Reject (keeping a record), its next text rejected, then the
    // record's page deleted: the holder, still indexed and held, is written without it.
    let holder_held = vec![
        (replace, vec![add(4, 2, 0), add(3, 2, 0)]),
        (
            reject,
            vec![
                add(3, 2, 1),
                add(0, 0, 0),
                add(1, 0, 0),
                add(3, 0, 0),
                Op::Delete(4),
            ],
        ),
    ];
    check_mixed(&holder_held).unwrap();
    // A page's rejected text reported lost, then an older text of it given back as a
    // record in the same batch: unreported, its last line stays `lost`.
    let lost_then_record = vec![
        (reject, vec![add(1, 0, 0)]),
        (replace, vec![add(3, 2, 0), add(4, 2, 0)]),
        (
            reject,
            vec![add(3, 0, 0), Op::Commit, add(1, 0, 1), add(4, 1, 0)],
        ),
    ];
    check_mixed(&lost_then_record).unwrap();
    // A page replaced, then given a text of its own, which a page added and deleted in
    // the next run replaced: the page's text comes back.
    let replaced_then_own = vec![
        (replace, vec![add(1, 2, 0), add(0, 2, 0)]),
        (reject, vec![add(1, 1, 0)]),
        (replace, vec![add(3, 1, 0), Op::Delete(3)]),
    ];
    check_mixed(&replaced_then_own).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn reject_loses_no_text(runs in runs()) {
        check(Policy::Reject, &runs)?;
    }

    #[test]
    fn flag_loses_no_text(runs in runs()) {
        check(Policy::Flag, &runs)?;
    }

    #[test]
    fn replace_loses_no_text(runs in runs()) {
        check(Policy::Replace, &runs)?;
    }

    #[test]
    fn policies_mixed_lose_no_text(runs in mixed_runs()) {
        check_mixed(&runs)?;
    }
}

/// Cases per test: `REJUDGE_CASES` when set, else 300 (about a minute in a debug build
/// on two cores; thousands were run with `REJUDGE_CASES`).
fn cases() -> u32 {
    std::env::var("REJUDGE_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(300)
}
