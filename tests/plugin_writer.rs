//! `DedupWriter` end to end on real indexes: policies, reopen, deletes, merges, rollback,
//! concurrency, settings mismatch, empty documents.

mod support;

use std::collections::HashSet;
use std::sync::Arc;
use support::rng::Rng;

use tantivy::collector::{Count, DocSetCollector};
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{AllQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TantivyDocument, Value};
use tantivy::{doc, Index, IndexWriter, Term};
use tantivy_dedup::fingerprint::FingerprintConfig;
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, DedupIndex, DedupSettings, DedupWriter, Policy,
    DUPLICATE_OF_FIELD, FLAG_FIELD,
};
use tantivy_dedup::text::{FeatureKind, IdfTableBuilder, MixedTokenizer, Weighting};
use tantivy_dedup::Error;

const MEMORY: usize = 15_000_000;

/// A text of 60 words from a vocabulary of 20,000, distinct for each `seed`.
fn text(seed: u64) -> String {
    let mut rng = Rng(seed);
    let words: Vec<String> = (0..60)
        .map(|_| format!("w{}", rng.next() % 20_000))
        .collect();
    words.join(" ")
}

/// The same words with other case and punctuation: fingerprint distance 0.
fn variant(text: &str, which: usize) -> String {
    match which % 3 {
        0 => text.to_owned(),
        1 => text.to_uppercase(),
        _ => text.replace(' ', ", "),
    }
}

struct Fixture {
    index: DedupIndex,
    body: tantivy::schema::Field,
    url: tantivy::schema::Field,
}

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url").flagging(true)
}

fn schema(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    schema.build()
}

fn fixture_in(index: Index) -> Fixture {
    let schema = index.schema();
    let index = DedupIndex::create(index, settings()).unwrap();
    Fixture {
        body: schema.get_field("body").unwrap(),
        url: schema.get_field("url").unwrap(),
        index,
    }
}

fn fixture() -> Fixture {
    fixture_in(Index::create_in_ram(schema(&settings())))
}

impl Fixture {
    fn writer(&self, policy: Policy) -> DedupWriter {
        self.index.writer(policy, MEMORY).unwrap()
    }

    fn doc(&self, url: &str, body: &str) -> TantivyDocument {
        doc!(self.url => url, self.body => body)
    }

    fn urls(&self) -> Vec<String> {
        let reader = self.index.index().reader().unwrap();
        let searcher = reader.searcher();
        let mut urls: Vec<String> = searcher
            .search(&AllQuery, &DocSetCollector)
            .unwrap()
            .into_iter()
            .map(|address| {
                let doc: TantivyDocument = searcher.doc(address).unwrap();
                doc.get_first(self.url)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        urls.sort();
        urls
    }
}

fn status(outcome: &AddOutcome) -> &'static str {
    match outcome {
        AddOutcome::Added { .. } => "added",
        AddOutcome::Updated { .. } => "updated",
        AddOutcome::Rejected { .. } => "rejected",
        AddOutcome::Flagged { .. } => "flagged",
        AddOutcome::Replaced { .. } => "replaced",
        AddOutcome::Exists { .. } => "exists",
        _ => "an outcome this test does not know",
    }
}

#[test]
fn reject_keeps_the_first_of_each_group_and_names_it() {
    let f = fixture();
    let writer = f.writer(Policy::Reject);
    let a = text(1);
    assert_eq!(status(&writer.add(f.doc("a", &a)).unwrap()), "added");
    assert_eq!(status(&writer.add(f.doc("b", &text(2))).unwrap()), "added");
    // A near-duplicate of a pending document: reported with its key, no address yet.
    let outcome = writer.add(f.doc("a2", &variant(&a, 1))).unwrap();
    let duplicate = outcome.duplicate_of().unwrap();
    assert_eq!(
        (status(&outcome), duplicate.key.as_deref()),
        ("rejected", Some("a"))
    );
    assert_eq!((duplicate.address, duplicate.distance), (None, 0));
    writer.commit().unwrap();
    // Of a committed document: with its address in the writer's searcher.
    let outcome = writer.add(f.doc("a3", &variant(&a, 2))).unwrap();
    let duplicate = outcome.duplicate_of().unwrap();
    let address = duplicate.address.expect("committed");
    let stored: TantivyDocument = writer.searcher().doc(address).unwrap();
    assert_eq!(stored.get_first(f.url).unwrap().as_str(), Some("a"));
    writer.commit().unwrap();
    assert_eq!(f.urls(), ["a", "b"]);
}

#[test]
fn flag_indexes_the_duplicate_marked_and_filterable() {
    let f = fixture();
    let writer = f.writer(Policy::Flag);
    let a = text(3);
    writer.add(f.doc("a", &a)).unwrap();
    let outcome = writer.add(f.doc("a2", &variant(&a, 1))).unwrap();
    assert_eq!(status(&outcome), "flagged");
    // A flagged document is no reference: a third copy names the original, not the copy.
    let outcome = writer.add(f.doc("a3", &variant(&a, 2))).unwrap();
    assert_eq!(outcome.duplicate_of().unwrap().key.as_deref(), Some("a"));
    writer.commit().unwrap();
    assert_eq!(f.urls(), ["a", "a2", "a3"]);

    let schema = f.index.index().schema();
    let flag = schema.get_field(FLAG_FIELD).unwrap();
    let of = schema.get_field(DUPLICATE_OF_FIELD).unwrap();
    let searcher = writer.searcher();
    let originals = TermQuery::new(Term::from_field_u64(flag, 0), IndexRecordOption::Basic);
    assert_eq!(searcher.search(&originals, &Count).unwrap(), 1);
    let flagged = TermQuery::new(Term::from_field_text(of, "a"), IndexRecordOption::Basic);
    assert_eq!(searcher.search(&flagged, &Count).unwrap(), 2);
}

/// A committed original is named (key and address) even when flagged copies with exactly its
/// fingerprint come before it in the index, and still after a merge moves it.
#[test]
fn flag_names_the_committed_original_behind_its_flagged_copies() {
    let f = fixture();
    let writer = f.writer(Policy::Flag);
    let a = text(21);
    writer.add(f.doc("first", &a)).unwrap();
    for i in 0..50 {
        let outcome = writer
            .add(f.doc(&format!("copy{i}"), &variant(&a, 0)))
            .unwrap();
        assert_eq!(status(&outcome), "flagged");
    }
    writer.commit().unwrap();
    writer.wait_merging_threads().unwrap();
    // The original goes, deleted by a query, which decides nothing again (a delete by key
    // would decide its copies again): its 50 flagged copies (same fingerprint) stay, and
    // are no references.
    let other = f.writer(Policy::Reject);
    let first = TermQuery::new(
        Term::from_field_text(f.url, "first"),
        IndexRecordOption::Basic,
    );
    other.delete_query(Box::new(first)).unwrap();
    other.commit().unwrap();
    other.wait_merging_threads().unwrap();
    let writer = f.writer(Policy::Flag);
    let outcome = writer.add(f.doc("second", &variant(&a, 1))).unwrap();
    assert_eq!(status(&outcome), "added");
    writer.commit().unwrap();
    let named = |writer: &DedupWriter, url: &str| {
        let outcome = writer.add(f.doc(url, &variant(&a, 2))).unwrap();
        assert_eq!(status(&outcome), "flagged");
        let duplicate = outcome.duplicate_of().unwrap().clone();
        assert_eq!(duplicate.key.as_deref(), Some("second"));
        let stored: TantivyDocument = writer
            .searcher()
            .doc(duplicate.address.expect("committed"))
            .unwrap();
        assert_eq!(stored.get_first(f.url).unwrap().as_str(), Some("second"));
        duplicate.address
    };
    let before = named(&writer, "later1");
    named(&writer, "later2");
    writer.commit().unwrap();
    // Merge every segment: the original's address changes, and the writer follows it.
    let segments = f.index.index().searchable_segment_ids().unwrap();
    writer.merge(&segments).unwrap();
    writer.commit().unwrap();
    let after = named(&writer, "later3");
    assert_ne!(before, after, "the merge moved the original");
}

#[test]
fn replace_deletes_the_older_version() {
    let f = fixture();
    let writer = f.writer(Policy::Replace);
    let a = text(4);
    writer.add(f.doc("old", &a)).unwrap();
    writer.commit().unwrap();
    let outcome = writer.add(f.doc("new", &variant(&a, 1))).unwrap();
    let AddOutcome::Replaced { replaced, .. } = &outcome else {
        panic!("expected a replacement, got {outcome:?}");
    };
    assert_eq!(replaced[0].key.as_deref(), Some("old"));
    // The newest version is the reference now.
    let outcome = writer.add(f.doc("newer", &variant(&a, 2))).unwrap();
    assert_eq!(outcome.duplicate_of().unwrap().key.as_deref(), Some("new"));
    writer.commit().unwrap();
    assert_eq!(f.urls(), ["newer"]);
}

#[test]
fn policies_needing_fields_are_refused_without_them() {
    let settings = DedupSettings::new(["body"]);
    let index = DedupIndex::create(Index::create_in_ram(schema(&settings)), settings).unwrap();
    for policy in [Policy::Flag, Policy::Replace] {
        let writer: IndexWriter = index.index().writer(MEMORY).unwrap();
        let error = DedupWriter::new(index.clone(), writer, policy).unwrap_err();
        assert!(
            matches!(error, Error::InvalidSetting { name: "policy", .. }),
            "{error}"
        );
    }
}

#[test]
fn a_reopened_index_remembers_its_documents_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture_in(Index::create_in_dir(dir.path(), schema(&settings())).unwrap());
    let a = text(5);
    {
        let writer = f.writer(Policy::Reject);
        writer.add(f.doc("a", &a)).unwrap();
        writer.add(f.doc("b", &text(6))).unwrap();
        writer.commit().unwrap();
        writer.wait_merging_threads().unwrap();
    }
    drop(f);
    let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let f = Fixture {
        body: index.fields().text[0],
        url: index.fields().key.unwrap(),
        index,
    };
    let writer = f.writer(Policy::Reject);
    assert_eq!(writer.references(), 2);
    // Ingesting the same documents again is recognized, not reported as near-duplicates.
    assert_eq!(status(&writer.add(f.doc("a", &a)).unwrap()), "exists");
    assert_eq!(
        status(&writer.add(f.doc("a-copy", &variant(&a, 1))).unwrap()),
        "rejected"
    );
    // The tokenizer is registered again on open: search works.
    let searcher = writer.searcher();
    let parser = tantivy::query::QueryParser::for_index(f.index.index(), vec![f.body]);
    let query = parser.parse_query(a.split(' ').next().unwrap()).unwrap();
    assert_eq!(searcher.search(&query, &Count).unwrap(), 1);
}

#[test]
fn deletes_by_key_free_the_near_duplicate_at_once() {
    let f = fixture();
    let writer = f.writer(Policy::Reject);
    let a = text(7);
    writer.add(f.doc("a", &a)).unwrap();
    writer.commit().unwrap();
    writer.delete_key("a").unwrap();
    // Before the commit of the delete, the copy is no longer a duplicate.
    assert_eq!(
        status(&writer.add(f.doc("a2", &variant(&a, 1))).unwrap()),
        "added"
    );
    // And a pending document deleted by key is forgotten too.
    writer.delete_key("a2").unwrap();
    assert_eq!(
        status(&writer.add(f.doc("a3", &variant(&a, 2))).unwrap()),
        "added"
    );
    writer.commit().unwrap();
    assert_eq!(f.urls(), ["a3"]);
    assert_eq!(writer.references(), 1);
}

#[test]
fn deletes_by_query_are_seen_after_the_commit() {
    let f = fixture();
    let writer = f.writer(Policy::Reject);
    let a = text(8);
    writer.add(f.doc("a", &a)).unwrap();
    writer.add(f.doc("b", &text(9))).unwrap();
    writer.commit().unwrap();
    let query = TermQuery::new(Term::from_field_text(f.url, "a"), IndexRecordOption::Basic);
    writer.delete_query(Box::new(query)).unwrap();
    writer.commit().unwrap();
    assert_eq!(writer.references(), 1);
    assert_eq!(status(&writer.add(f.doc("a2", &a)).unwrap()), "added");
}

#[test]
fn rollback_forgets_pending_documents_and_deletes() {
    let f = fixture();
    let writer = f.writer(Policy::Reject);
    let a = text(10);
    let b = text(11);
    writer.add(f.doc("a", &a)).unwrap();
    writer.commit().unwrap();
    writer.add(f.doc("b", &b)).unwrap();
    writer.delete_key("a").unwrap();
    writer.rollback().unwrap();
    assert_eq!(writer.references(), 1);
    // "b" vanished with the rollback; "a" is back.
    assert_eq!(
        status(&writer.add(f.doc("b2", &variant(&b, 1))).unwrap()),
        "added"
    );
    assert_eq!(
        status(&writer.add(f.doc("a2", &variant(&a, 1))).unwrap()),
        "rejected"
    );
    writer.commit().unwrap();
    assert_eq!(f.urls(), ["a", "b2"]);
}

#[test]
fn merges_change_nothing_the_writer_sees() {
    let f = fixture();
    let plain: IndexWriter = f.index.index().writer(MEMORY).unwrap();
    plain.set_merge_policy(Box::new(NoMergePolicy));
    let writer = DedupWriter::new(f.index.clone(), plain, Policy::Reject).unwrap();
    let texts: Vec<String> = (100..130).map(text).collect();
    for (i, t) in texts.iter().enumerate() {
        writer.add(f.doc(&format!("d{i}"), t)).unwrap();
        if i % 5 == 4 {
            writer.commit().unwrap();
        }
    }
    writer.wait_merging_threads().unwrap();
    // Merge every segment into one, then look again from a fresh writer.
    let mut merger: IndexWriter = f.index.index().writer(MEMORY).unwrap();
    let ids = f.index.index().searchable_segment_ids().unwrap();
    assert!(ids.len() > 1);
    merger.merge(&ids).wait().unwrap();
    merger.wait_merging_threads().unwrap();
    assert_eq!(f.index.index().searchable_segment_ids().unwrap().len(), 1);
    let writer = f.writer(Policy::Reject);
    assert_eq!(writer.references(), 30);
    for (i, t) in texts.iter().enumerate() {
        let outcome = writer
            .add(f.doc(&format!("copy{i}"), &variant(t, 1)))
            .unwrap();
        let duplicate = outcome.duplicate_of().expect("every copy is caught");
        assert_eq!(duplicate.key.as_deref(), Some(format!("d{i}").as_str()));
    }
}

#[test]
fn documents_without_features_are_indexed_and_never_duplicates() {
    let f = fixture();
    let writer = f.writer(Policy::Reject);
    for (i, body) in ["", "   ", "!!! ... ???", ""].iter().enumerate() {
        let outcome = writer.add(f.doc(&format!("e{i}"), body)).unwrap();
        assert_eq!(
            outcome,
            AddOutcome::Added {
                fingerprint: None,
                opstamp: outcome_opstamp(&outcome)
            }
        );
    }
    writer.commit().unwrap();
    assert_eq!(f.urls().len(), 4);
    assert_eq!(status(&writer.add(f.doc("e0", "")).unwrap()), "exists");
}

fn outcome_opstamp(outcome: &AddOutcome) -> u64 {
    match outcome {
        AddOutcome::Added { opstamp, .. } => *opstamp,
        other => panic!("not added: {other:?}"),
    }
}

#[test]
fn other_settings_on_open_are_a_typed_error_naming_them() {
    let f = fixture();
    let other = settings().matching(
        MatchingSettings::default()
            .fingerprint(FingerprintConfig::default().weighting(Weighting::TfIdf)),
    );
    let error = DedupIndex::open_with(f.index.index().clone(), &other).unwrap_err();
    let Error::SettingsMismatch { differences } = &error else {
        panic!("expected a mismatch, got {error}");
    };
    assert_eq!(differences[0].field, "fingerprint.weighting");
    assert!(
        error.to_string().contains("fingerprint.weighting"),
        "{error}"
    );
    // The same settings, or another distance only, open fine.
    assert!(DedupIndex::open_with(
        f.index.index().clone(),
        &settings().matching(MatchingSettings::default().distance(5))
    )
    .is_ok());
    // An index never set up is told apart.
    let plain = Index::create_in_ram(schema(&settings()));
    assert!(matches!(
        DedupIndex::open(plain).unwrap_err(),
        Error::MissingSettings { .. }
    ));
    // A schema without the plugin's fields is refused before anything is written.
    let mut bare = Schema::builder();
    bare.add_text_field("body", text_field_options());
    let error = DedupIndex::create(Index::create_in_ram(bare.build()), settings()).unwrap_err();
    assert!(matches!(error, Error::Schema { .. }), "{error}");
}

#[test]
fn an_idf_table_is_frozen_into_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut builder = IdfTableBuilder::new(MixedTokenizer::new(), FeatureKind::Words);
    for seed in 0..50 {
        builder.add_document(&text(seed));
    }
    let table = Arc::new(builder.build());
    let settings = settings()
        .matching(
            MatchingSettings::default()
                .fingerprint(FingerprintConfig::default().weighting(Weighting::TfIdf)),
        )
        .idf_table(Arc::clone(&table));
    let index = Index::create_in_dir(dir.path(), schema(&settings)).unwrap();
    let created = DedupIndex::create(index, settings).unwrap();
    let probe = doc!(created.fields().text[0] => text(1));
    let expected = created.fingerprint_of(&probe);
    drop(created);
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    assert_eq!(reopened.fingerprint_of(&probe), expected);
    assert_eq!(
        reopened
            .settings()
            .get_matching()
            .get_fingerprint()
            .get_idf(),
        table_identity(&table)
    );
}

fn table_identity(table: &tantivy_dedup::text::IdfTable) -> &str {
    use tantivy_dedup::text::IdfSource;
    table.identity()
}

/// `base` with a one-letter word added, 1 to 3 bits away from it where some letter does
/// that (on some texts every letter leaves the fingerprint as it is).
fn edited(index: &DedupIndex, base: &str) -> String {
    let original = index.hasher().fingerprint(base).unwrap();
    let candidates: Vec<(u32, String)> = ('a'..='z')
        .map(|word| {
            let edited = format!("{base} {word}");
            let distance = index
                .hasher()
                .fingerprint(&edited)
                .unwrap()
                .distance(original);
            (distance, edited)
        })
        .filter(|(distance, _)| *distance <= 3)
        .collect();
    let nearest_nonzero = candidates
        .iter()
        .filter(|(d, _)| *d > 0)
        .min_by_key(|(d, _)| *d);
    nearest_nonzero
        .or(candidates.first())
        .expect("a one-letter word moves at most 3 bits")
        .1
        .clone()
}

#[test]
fn concurrent_writers_admit_exactly_one_document_per_group() {
    const GROUPS: usize = 1_000;
    const COPIES: usize = 4;
    const THREADS: usize = 4;
    let f = fixture();
    let writer = Arc::new(f.writer(Policy::Reject));
    let bases: Vec<String> = (0..GROUPS as u64).map(|g| text(1_000 + g)).collect();
    // Copies 0-2 differ in case and punctuation (distance 0); copy 3 has a word added and
    // lies up to 3 bits away: a group is near-duplicates, not only exact ones.
    let copies: Vec<Vec<String>> = bases
        .iter()
        .map(|base| {
            let mut copies: Vec<String> = (0..3).map(|c| variant(base, c)).collect();
            copies.push(edited(&f.index, base));
            copies
        })
        .collect();
    // Every thread adds every copy of every group, in its own order.
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let writer = Arc::clone(&writer);
            let copies = &copies;
            let f = &f;
            scope.spawn(move || {
                let mut order: Vec<(usize, usize)> = (0..GROUPS)
                    .flat_map(|g| (0..COPIES).map(move |c| (g, c)))
                    .collect();
                let mut rng = Rng(thread as u64);
                for i in (1..order.len()).rev() {
                    order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
                }
                for (n, (g, c)) in order.into_iter().enumerate() {
                    let url = format!("g{g}-c{c}-t{thread}");
                    writer.add(f.doc(&url, &copies[g][c])).unwrap();
                    if n % 700 == 0 {
                        writer.commit().unwrap();
                    }
                }
            });
        }
    });
    writer.commit().unwrap();
    let urls = f.urls();
    let groups: HashSet<&str> = urls.iter().map(|u| u.split('-').next().unwrap()).collect();
    assert_eq!(groups.len(), GROUPS, "every group has a survivor");
    assert_eq!(urls.len(), GROUPS, "and only one");
}

#[test]
fn batch_helpers_find_what_the_writer_flagged() {
    let f = fixture();
    let writer = f.writer(Policy::Flag);
    let (a, b) = (text(20), text(21));
    for (url, body) in [
        ("a", a.clone()),
        ("b", b.clone()),
        ("a2", variant(&a, 1)),
        ("c", text(22)),
        ("b2", variant(&b, 2)),
        ("a3", variant(&a, 2)),
    ] {
        writer.add(f.doc(url, &body)).unwrap();
    }
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let url_of = |address| {
        let doc: TantivyDocument = searcher.doc(address).unwrap();
        doc.get_first(f.url).unwrap().as_str().unwrap().to_owned()
    };
    let groups: Vec<(String, Vec<String>)> = f
        .index
        .duplicate_groups(&searcher, 3)
        .unwrap()
        .into_iter()
        .map(|g| {
            (
                url_of(g.leader),
                g.members.into_iter().map(url_of).collect(),
            )
        })
        .collect();
    let expected = [
        ("a".to_owned(), vec!["a2".to_owned(), "a3".to_owned()]),
        ("b".to_owned(), vec!["b2".to_owned()]),
    ];
    assert_eq!(groups, expected);

    let near = f.index.near_duplicates_of_text(&searcher, &a, 3).unwrap();
    let mut urls: Vec<String> = near.iter().map(|n| url_of(n.address)).collect();
    urls.sort();
    assert_eq!(urls, ["a", "a2", "a3"]);
    let of_b = f
        .index
        .near_duplicates_of(&searcher, near_address(&f, &searcher, "b"), 3)
        .unwrap();
    assert_eq!(
        of_b.iter().map(|n| url_of(n.address)).collect::<Vec<_>>(),
        ["b2"]
    );
}

fn near_address(f: &Fixture, searcher: &tantivy::Searcher, url: &str) -> tantivy::DocAddress {
    let query = TermQuery::new(Term::from_field_text(f.url, url), IndexRecordOption::Basic);
    let found = searcher.search(&query, &DocSetCollector).unwrap();
    *found.iter().next().unwrap()
}
