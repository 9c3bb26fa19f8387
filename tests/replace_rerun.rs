//! A replace job run again changes nothing: a record that a near-duplicate replaced, added
//! again with the same key and text, is `Exists` while its replacement is indexed. Public
//! API only, as a downstream crate uses it.

mod support;

use std::collections::BTreeSet;

use support::index::{create, page, random_text};
use support::rng::Rng;
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, Value};
use tantivy::{Index, Searcher, TantivyDocument};
use tantivy_dedup::plugin::{
    reindex, text_field_options, AddOutcome, DedupIndex, DedupSettings, DedupWriter, Policy,
    Rejudged, MAX_REPLACED_RECORDS, REPLACED_FIELD,
};

const MEMORY: usize = 15_000_000;

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url")
}

/// Records of a crawl: 120 pages, 40 of them with one to four mirrors (exact copies, or a
/// word added), shuffled so that mirrors come before and after their original.
fn stream() -> Vec<(String, String)> {
    let mut records = Vec::new();
    for page in 0..120u64 {
        let body = random_text(page, 150);
        records.push((format!("site/{page}"), body.clone()));
        if page % 3 == 0 {
            for mirror in 0..=page % 4 {
                let copy = if mirror % 2 == 0 {
                    body.clone()
                } else {
                    format!("{body} mirrored")
                };
                records.push((format!("mirror{mirror}/{page}"), copy));
            }
        }
    }
    let mut rng = Rng(42);
    for i in (1..records.len()).rev() {
        records.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    records
}

/// Adds `records` in order, committing every `commit_every`; the outcomes.
fn run(
    index: &DedupIndex,
    writer: &DedupWriter,
    records: &[(String, String)],
    commit_every: usize,
) -> Vec<AddOutcome> {
    let mut outcomes = Vec::new();
    for (i, (url, body)) in records.iter().enumerate() {
        outcomes.push(writer.add(page(index, url, body)).unwrap());
        if (i + 1) % commit_every == 0 {
            writer.commit().unwrap();
        }
    }
    outcomes
}

/// Every alive document's key and body.
fn contents(searcher: &Searcher) -> BTreeSet<(String, String)> {
    let schema = searcher.schema();
    let url = schema.get_field("url").unwrap();
    let body = schema.get_field("body").unwrap();
    let addresses = searcher.search(&AllQuery, &DocSetCollector).unwrap();
    addresses
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            let text = |field| doc.get_first(field).unwrap().as_str().unwrap().to_owned();
            (text(url), text(body))
        })
        .collect()
}

fn is_exists(outcome: &AddOutcome) -> bool {
    matches!(outcome, AddOutcome::Exists { .. })
}

#[test]
fn a_finished_replace_job_run_again_is_exists_throughout() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let records = stream();
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    let first = run(&index, &writer, &records, 17);
    writer.commit().unwrap();
    let replaced = first
        .iter()
        .filter(|outcome| matches!(outcome, AddOutcome::Replaced { .. }))
        .count();
    assert!(replaced >= 40, "the stream has replaces: {replaced}");
    let kept = contents(&writer.searcher());
    drop(writer);

    // Reopened, with commits at other places.
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    let again = run(&index, &writer, &records, 23);
    let churn: Vec<_> = records
        .iter()
        .zip(&again)
        .filter(|(_, outcome)| !is_exists(outcome))
        .collect();
    assert!(churn.is_empty(), "{} not exists: {churn:?}", churn.len());
    writer.commit().unwrap();
    assert_eq!(contents(&writer.searcher()), kept);

    // Under another policy too: the records are accounted for.
    drop(writer);
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    assert!(run(&index, &writer, &records, usize::MAX)
        .iter()
        .all(is_exists));
}

#[test]
fn the_same_records_again_before_a_commit_are_exists() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let records = stream();
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    run(&index, &writer, &records, usize::MAX);
    let again = run(&index, &writer, &records, usize::MAX);
    assert!(again.iter().all(is_exists), "{again:?}");
    writer.commit().unwrap();
    // Committed halfway through the second time: the records are read from the index then.
    let again = run(&index, &writer, &records, records.len() / 2);
    assert!(again.iter().all(is_exists), "{again:?}");
}

#[test]
fn a_changed_record_or_a_deleted_replacement_is_judged_again() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    let body = random_text(1, 150);
    writer.add(page(&index, "a", &body)).unwrap();
    writer.commit().unwrap();
    let copy = writer.add(page(&index, "b", &body)).unwrap();
    assert!(matches!(copy, AddOutcome::Replaced { .. }), "{copy:?}");
    writer.commit().unwrap();
    assert!(is_exists(&writer.add(page(&index, "a", &body)).unwrap()));
    // Another text of "a", still a near-duplicate of "b": the newest version wins again.
    let edited = format!("{body} edited");
    let changed = writer.add(page(&index, "a", &edited)).unwrap();
    assert!(
        matches!(changed, AddOutcome::Replaced { .. }),
        "{changed:?}"
    );
    writer.commit().unwrap();
    // "a" holds b's record now: b's text again is exists, and "a" is indexed by its own key.
    assert!(is_exists(&writer.add(page(&index, "b", &body)).unwrap()));
    // A deleted holder gives its records back: "b" (replaced a commit earlier) comes back
    // as a document from the text its record keeps, and is indexed when sent again.
    writer.delete_key("a").unwrap();
    let back = writer.take_rejudged();
    assert!(
        matches!(&back[..], [Rejudged::Decided { key: Some(key), outcome: AddOutcome::Added { .. }, .. }] if key == "b"),
        "{back:?}"
    );
    let after_delete = writer.add(page(&index, "b", &body)).unwrap();
    assert!(is_exists(&after_delete), "{after_delete:?}");
    writer.commit().unwrap();
    assert_eq!(
        contents(&writer.searcher()),
        BTreeSet::from([("b".to_owned(), body)])
    );
}

#[test]
fn a_long_chain_keeps_the_nearest_records() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    let body = random_text(5, 100);
    let copies = MAX_REPLACED_RECORDS + 20;
    for copy in 0..copies {
        writer
            .add(page(&index, &format!("c{copy}"), &body))
            .unwrap();
        if copy % 50 == 0 {
            writer.commit().unwrap();
        }
    }
    writer.commit().unwrap();
    let searcher = writer.searcher();
    assert_eq!(searcher.num_docs(), 1, "each copy replaced the one before");
    let holder: TantivyDocument = searcher
        .doc(
            *searcher
                .search(&AllQuery, &DocSetCollector)
                .unwrap()
                .iter()
                .next()
                .unwrap(),
        )
        .unwrap();
    let field = searcher.schema().get_field(REPLACED_FIELD).unwrap();
    assert_eq!(holder.get_all(field).count(), MAX_REPLACED_RECORDS);
    // The nearest copies are accounted for; the oldest, beyond the bound, replace again.
    let nearest = format!("c{}", copies - 2);
    assert!(is_exists(
        &writer.add(page(&index, &nearest, &body)).unwrap()
    ));
    let oldest = writer.add(page(&index, "c0", &body)).unwrap();
    assert!(matches!(oldest, AddOutcome::Replaced { .. }), "{oldest:?}");
}

#[test]
fn records_survive_a_reindex() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["source", "target"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    let source = create(&dir.path().join("source"), settings());
    let records = stream();
    let writer = source.writer(Policy::Replace, MEMORY).unwrap();
    run(&source, &writer, &records, 50);
    writer.commit().unwrap();
    drop(writer);

    let schema = settings().extend_schema(&source.index().schema()).unwrap();
    let target = Index::create_in_dir(dir.path().join("target"), schema).unwrap();
    let target = DedupIndex::create(target, settings()).unwrap();
    reindex(source.index(), &target, Policy::Replace, MEMORY).unwrap();
    let writer = target.writer(Policy::Replace, MEMORY).unwrap();
    let again = run(&target, &writer, &records, 50);
    assert!(again.iter().all(is_exists), "{again:?}");
}

/// An index made before [`REPLACED_FIELD`] existed opens, and replaces again on a re-run
/// (nothing lost: the newest version wins, as it did).
#[test]
fn an_index_without_the_field_replaces_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings().add_fields(&mut schema).unwrap();
    let mut older = Schema::builder();
    for (_, entry) in schema.build().fields() {
        if entry.name() != REPLACED_FIELD {
            older.add_field(entry.clone());
        }
    }
    let index = Index::create_in_dir(dir.path(), older.build()).unwrap();
    let index = DedupIndex::create(index, settings()).unwrap();
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    let body = random_text(9, 120);
    writer.add(page(&index, "a", &body)).unwrap();
    writer.add(page(&index, "b", &body)).unwrap();
    writer.commit().unwrap();
    let again = writer.add(page(&index, "a", &body)).unwrap();
    assert!(matches!(again, AddOutcome::Replaced { .. }), "{again:?}");
}
