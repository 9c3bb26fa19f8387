//! `DedupWriter::add_batch`, `add_all` and `prepare` then `add_prepared` against `add` one
//! document at a time: on random streams with planted near-duplicates, repeated and updated
//! keys, texts without features and keys too long to index, with commits and deletes
//! between documents, the outcomes and the index left behind are the same, whatever the
//! batch boundaries and windows.

mod support;

use proptest::prelude::*;
use tantivy::collector::DocSetCollector;
use tantivy::indexer::NoMergePolicy;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, Value};
use tantivy::{doc, Index, TantivyDocument};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, DedupIndex, DedupSettings, DedupWriter, Policy,
};
use tantivy_dedup::Error;

use support::index::random_text;

/// What happens at one step of a stream.
#[derive(Clone, Debug)]
enum Step {
    /// Add a document with this key and text.
    Add(String, String),
    /// Commit.
    Commit,
    /// Delete the documents of this key.
    Delete(String),
}

/// A stream of `adds` documents: new texts, near-duplicates (a word or two changed) and
/// exact copies of earlier ones under new keys, earlier keys again with their text (exists)
/// or a new one (an update), texts without features, and a key longer than tantivy indexes;
/// with commits and deletes between them, chosen by `choices`.
fn stream(choices: &[(u8, u8)]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for (n, &(kind, pick)) in choices.iter().enumerate() {
        let earlier =
            |texts: &Vec<(String, String)>| texts[usize::from(pick) % texts.len()].clone();
        let key = format!("k{n}");
        let (key, text) = match kind % 16 {
            _ if texts.is_empty() => (key, random_text(n as u64, 60)),
            0..=4 => (
                key,
                random_text(1_000 + n as u64, 40 + usize::from(pick % 40)),
            ),
            5..=7 => {
                let (_, text) = earlier(&texts);
                let mut words: Vec<&str> = text.split(' ').collect();
                let at = usize::from(pick) % words.len();
                words[at] = "changed";
                (key, words.join(" "))
            }
            8 => (key, earlier(&texts).1),
            9 => earlier(&texts),
            10 => (earlier(&texts).0, random_text(5_000 + n as u64, 50)),
            11 => (key, "... !!!".to_owned()),
            12 => ("x".repeat(70_000), random_text(9_000 + n as u64, 30)),
            13 => {
                steps.push(Step::Commit);
                continue;
            }
            14 => {
                steps.push(Step::Delete(earlier(&texts).0));
                continue;
            }
            _ => (key, random_text(n as u64 / 2, 60)),
        };
        texts.push((key.clone(), text.clone()));
        steps.push(Step::Add(key, text));
    }
    steps
}

fn open(policy: Policy) -> DedupWriter {
    let settings = DedupSettings::new(["body"])
        .key_field("url")
        .flagging(policy == Policy::Flag);
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    // One indexing thread and no merges: the same operations give the same segments and
    // opstamps on every side (a merge takes an opstamp when it starts).
    let writer = index
        .index()
        .writer_with_num_threads(1, 15_000_000)
        .unwrap();
    writer.set_merge_policy(Box::new(NoMergePolicy));
    DedupWriter::new(index, writer, policy).unwrap()
}

fn document(writer: &DedupWriter, key: &str, text: &str) -> TantivyDocument {
    let schema = writer.index().index().schema();
    let url = schema.get_field("url").unwrap();
    let body = schema.get_field("body").unwrap();
    doc!(url => key, body => text)
}

/// An outcome as both sides must agree on it: a committed duplicate's address depends on
/// segment ids (random), so it is left out.
fn comparable(outcome: Result<AddOutcome, Error>) -> Result<AddOutcome, String> {
    let mut outcome = outcome.map_err(|e| e.to_string())?;
    match &mut outcome {
        AddOutcome::Rejected { duplicate_of, .. } | AddOutcome::Flagged { duplicate_of, .. } => {
            duplicate_of.address = None;
        }
        AddOutcome::Replaced { replaced, .. } => {
            replaced.iter_mut().for_each(|d| d.address = None);
        }
        _ => {}
    }
    Ok(outcome)
}

fn apply(writer: &DedupWriter, step: &Step) {
    match step {
        Step::Commit => {
            writer.commit().unwrap();
        }
        Step::Delete(key) => {
            writer.delete_key(key).unwrap();
        }
        Step::Add(..) => unreachable!("adds are the caller's"),
    }
}

/// The stored keys and texts of the index after a last commit, sorted.
fn contents(writer: &DedupWriter) -> Vec<(String, String)> {
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let schema = searcher.schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let text = |document: &TantivyDocument, field| {
        let value = document.get_first(field).and_then(|v| v.as_str());
        value.unwrap_or_default().to_owned()
    };
    let mut all: Vec<(String, String)> = searcher
        .search(&AllQuery, &DocSetCollector)
        .unwrap()
        .into_iter()
        .map(|address| {
            let document: TantivyDocument = searcher.doc(address).unwrap();
            (text(&document, url), text(&document, body))
        })
        .collect();
    all.sort();
    all
}

type Outcomes = Vec<Result<AddOutcome, String>>;

fn one_by_one(policy: Policy, steps: &[Step]) -> (Outcomes, Vec<(String, String)>) {
    let writer = open(policy);
    let mut outcomes = Vec::new();
    for step in steps {
        match step {
            Step::Add(key, text) => {
                outcomes.push(comparable(writer.add(document(&writer, key, text))));
            }
            other => apply(&writer, other),
        }
    }
    (outcomes, contents(&writer))
}

/// `add_batch` on the runs of adds between other steps, each run cut where `cuts` says.
fn in_batches(policy: Policy, steps: &[Step], cuts: &[usize]) -> (Outcomes, Vec<(String, String)>) {
    let writer = open(policy);
    let mut outcomes = Vec::new();
    let mut batch = Vec::new();
    let mut cuts = cuts.iter().cycle();
    let mut until_cut = *cuts.next().unwrap();
    for step in steps {
        if let Step::Add(key, text) = step {
            batch.push(document(&writer, key, text));
            until_cut = until_cut.saturating_sub(1);
            if until_cut > 0 {
                continue;
            }
            until_cut = *cuts.next().unwrap();
        }
        outcomes.extend(
            writer
                .add_batch(batch.drain(..))
                .into_iter()
                .map(comparable),
        );
        if !matches!(step, Step::Add(..)) {
            apply(&writer, step);
        }
    }
    outcomes.extend(writer.add_batch(batch).into_iter().map(comparable));
    (outcomes, contents(&writer))
}

/// `add_all` over the whole stream's documents in windows of `window`, the other steps
/// taken between the outcomes of the documents they follow: inside a window.
fn streamed(policy: Policy, steps: &[Step], window: usize) -> (Outcomes, Vec<(String, String)>) {
    let writer = open(policy);
    // The steps after the n-th document (and before the first one).
    let mut between: Vec<Vec<&Step>> = vec![Vec::new()];
    let mut documents = Vec::new();
    for step in steps {
        match step {
            Step::Add(key, text) => {
                documents.push(document(&writer, key, text));
                between.push(Vec::new());
            }
            other => between.last_mut().unwrap().push(other),
        }
    }
    between[0].iter().for_each(|step| apply(&writer, step));
    let mut outcomes = Vec::new();
    for (n, outcome) in writer.add_all(documents).window(window).enumerate() {
        outcomes.push(comparable(outcome));
        between[n + 1].iter().for_each(|step| apply(&writer, step));
    }
    (outcomes, contents(&writer))
}

/// Every document of the stream prepared first, on threads (`DedupWriter::prepare`), then
/// each added with `add_prepared` in turn, the other steps between: what `ingest
/// --cluster` does, which decides each document in a shared space before adding it.
fn prepared_first(policy: Policy, steps: &[Step]) -> (Outcomes, Vec<(String, String)>) {
    use rayon::prelude::*;
    let writer = open(policy);
    let documents: Vec<TantivyDocument> = (steps.iter())
        .filter_map(|step| match step {
            Step::Add(key, text) => Some(document(&writer, key, text)),
            _ => None,
        })
        .collect();
    let mut prepared = (documents.into_par_iter())
        .map(|document| writer.prepare(document))
        .collect::<Vec<_>>()
        .into_iter();
    let mut outcomes = Vec::new();
    for step in steps {
        match step {
            Step::Add(..) => {
                let outcome = prepared.next().unwrap().and_then(|p| {
                    // Its values are at hand before the add: those the outcome reports.
                    let fingerprint = p.fingerprint();
                    let outcome = writer.add_prepared(p)?;
                    if let Some(reported) = reported_fingerprint(&outcome) {
                        assert_eq!(reported, fingerprint);
                    }
                    Ok(outcome)
                });
                outcomes.push(comparable(outcome));
            }
            other => apply(&writer, other),
        }
    }
    (outcomes, contents(&writer))
}

/// The fingerprint an outcome reports (`None` inside for a text without features); `None`
/// for `Exists`, which reports none.
fn reported_fingerprint(
    outcome: &AddOutcome,
) -> Option<Option<tantivy_dedup::fingerprint::Fingerprint>> {
    match outcome {
        AddOutcome::Added { fingerprint, .. } | AddOutcome::Updated { fingerprint, .. } => {
            Some(*fingerprint)
        }
        AddOutcome::Rejected { fingerprint, .. }
        | AddOutcome::Flagged { fingerprint, .. }
        | AddOutcome::Replaced { fingerprint, .. } => Some(Some(*fingerprint)),
        AddOutcome::Exists { .. } => None,
        other => panic!("an outcome this test does not know: {other:?}"),
    }
}

/// Where two runs first part, said in a line or two: the runs are long and a whole-run
/// comparison's message buries the one outcome that differs.
fn first_difference(
    got: &(Outcomes, Vec<(String, String)>),
    expected: &(Outcomes, Vec<(String, String)>),
) -> Option<String> {
    let outcomes = got.0.iter().zip(&expected.0).enumerate();
    if let Some((n, (got, expected))) = outcomes.into_iter().find(|(_, (g, e))| g != e) {
        return Some(format!("outcome {n}: {got:?}, one by one {expected:?}"));
    }
    if got.0.len() != expected.0.len() {
        return Some(format!(
            "{} outcomes, one by one {}",
            got.0.len(),
            expected.0.len()
        ));
    }
    let contents = got.1.iter().zip(&expected.1);
    if let Some((got, expected)) = contents.into_iter().find(|(g, e)| g != e) {
        return Some(format!("index holds {got:?}, one by one {expected:?}"));
    }
    (got.1.len() != expected.1.len())
        .then(|| format!("{} documents, one by one {}", got.1.len(), expected.1.len()))
}

fn policy(n: u8) -> Policy {
    [Policy::Reject, Policy::Flag, Policy::Replace][usize::from(n % 3)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn batches_and_streams_decide_as_adds_one_by_one(
        choices in prop::collection::vec((any::<u8>(), any::<u8>()), 1..120),
        cuts in prop::collection::vec(1usize..40, 1..6),
        window in 1usize..50,
        policy_choice in any::<u8>(),
    ) {
        let policy = policy(policy_choice);
        let steps = stream(&choices);
        let expected = one_by_one(policy, &steps);
        let sides = [
            (format!("add_batch, cuts {cuts:?}"), in_batches(policy, &steps, &cuts)),
            (format!("add_all, window {window}"), streamed(policy, &steps, window)),
            ("prepare, then add_prepared".to_owned(), prepared_first(policy, &steps)),
        ];
        for (side, got) in &sides {
            if let Some(difference) = first_difference(got, &expected) {
                return Err(TestCaseError::fail(format!("{side}, {policy:?}: {difference}")));
            }
        }
    }
}

/// The planted near-duplicates are found: the comparison above is of streams that exercise
/// every outcome, not of streams where everything is added.
#[test]
fn the_streams_hold_every_outcome() {
    let choices: Vec<(u8, u8)> = (0..200u32)
        .map(|n| ((n * 7 % 16) as u8, (n * 13 % 251) as u8))
        .collect();
    let steps = stream(&choices);
    for policy in [Policy::Reject, Policy::Flag, Policy::Replace] {
        let (outcomes, _) = in_batches(policy, &steps, &[7, 30, 2]);
        let count = |f: fn(&AddOutcome) -> bool| {
            outcomes.iter().filter(|o| o.as_ref().is_ok_and(f)).count()
        };
        assert!(
            count(|o| matches!(o, AddOutcome::Added { .. })) > 10,
            "{policy:?}"
        );
        assert!(count(|o| o.duplicate_of().is_some()) > 10, "{policy:?}");
        assert!(
            count(|o| matches!(o, AddOutcome::Exists { .. })) > 0,
            "{policy:?}"
        );
        assert!(
            count(|o| matches!(o, AddOutcome::Updated { .. })) > 0,
            "{policy:?}"
        );
        let errors = outcomes.iter().filter(|o| o.is_err()).count();
        assert!(
            errors > 0,
            "{policy:?}: a key too long is an error of its document"
        );
        assert_eq!(
            in_batches(policy, &steps, &[200]),
            one_by_one(policy, &steps)
        );
    }
}
