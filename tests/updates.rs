//! Updates by key, as a crawler meets them: a page crawled again with other text replaces
//! the indexed version in one step (against other threads and against a crash), checked
//! against every other document as any addition is; the same text again is `Exists`, so a
//! resumed ingest stays cheap. Public API only, as a downstream crate uses it.

mod support;

use std::sync::Arc;

use support::index::{create, page, random_text};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Index, Searcher, TantivyDocument, Term};
use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy, Rejudged};

const MEMORY: usize = 15_000_000;

/// The bodies of the alive documents with key `url`.
fn bodies(index: &DedupIndex, searcher: &Searcher, url: &str) -> Vec<String> {
    let schema = index.index().schema();
    let url_field = schema.get_field("url").unwrap();
    let body_field = schema.get_field("body").unwrap();
    let query = TermQuery::new(
        Term::from_field_text(url_field, url),
        IndexRecordOption::Basic,
    );
    let hits = searcher
        .search(&query, &TopDocs::with_limit(10).order_by_score())
        .unwrap();
    hits.into_iter()
        .map(|(_, address)| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            doc.get_first(body_field)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url")
}

#[test]
fn a_page_crawled_again_replaces_its_old_text() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let (v1, v2, v3) = (random_text(1, 80), random_text(2, 80), random_text(3, 80));
    assert!(matches!(
        writer.add(page(&index, "a", &v1)).unwrap(),
        AddOutcome::Added { .. }
    ));
    let same = writer.add(page(&index, "a", &v1)).unwrap();
    assert!(matches!(same, AddOutcome::Exists { .. }), "{same:?}");
    // Before the commit: the pending version is replaced.
    let update = writer.add(page(&index, "a", &v2)).unwrap();
    assert!(matches!(update, AddOutcome::Updated { .. }), "{update:?}");
    assert!(update.is_indexed());
    writer.commit().unwrap();
    assert_eq!(bodies(&index, &writer.searcher(), "a"), [v2.as_str()]);
    // After it: the committed version is compared and replaced.
    let same = writer.add(page(&index, "a", &v2)).unwrap();
    assert!(matches!(same, AddOutcome::Exists { .. }), "{same:?}");
    let update = writer.add(page(&index, "a", &v3)).unwrap();
    assert!(matches!(update, AddOutcome::Updated { .. }), "{update:?}");
    writer.commit().unwrap();
    let searcher = writer.searcher();
    assert_eq!(bodies(&index, &searcher, "a"), [v3.as_str()]);
    assert_eq!(searcher.num_docs(), 1);
    // A reopened writer tells the same text from a new one.
    drop(writer);
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let same = writer.add(page(&index, "a", &v3)).unwrap();
    assert!(matches!(same, AddOutcome::Exists { .. }), "{same:?}");
}

#[test]
fn a_small_edit_of_a_page_is_an_update_not_a_duplicate_of_itself() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let v1 = random_text(7, 200);
    let v2 = format!("{v1} updated");
    writer.add(page(&index, "a", &v1)).unwrap();
    writer.commit().unwrap();
    let update = writer.add(page(&index, "a", &v2)).unwrap();
    assert!(matches!(update, AddOutcome::Updated { .. }), "{update:?}");
    writer.commit().unwrap();
    assert_eq!(bodies(&index, &writer.searcher(), "a"), [v2]);
}

#[test]
fn a_new_version_is_checked_against_the_others_by_the_policy() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings().flagging(true));
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let (original, other) = (random_text(11, 120), random_text(12, 120));
    writer.add(page(&index, "original", &original)).unwrap();
    writer.add(page(&index, "b", &other)).unwrap();
    writer.commit().unwrap();
    // b's new text copies the original: rejected, and b keeps its indexed text.
    let copy = writer.add(page(&index, "b", &original)).unwrap();
    let duplicate = copy.duplicate_of().expect("a near-duplicate");
    assert_eq!(duplicate.key.as_deref(), Some("original"));
    assert!(!copy.is_indexed());
    writer.commit().unwrap();
    assert_eq!(bodies(&index, &writer.searcher(), "b"), [other.as_str()]);
    drop(writer);
    // Under Flag the copy replaces b's old version, flagged.
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    let flagged = writer.add(page(&index, "b", &original)).unwrap();
    assert!(matches!(flagged, AddOutcome::Flagged { .. }), "{flagged:?}");
    writer.commit().unwrap();
    assert_eq!(bodies(&index, &writer.searcher(), "b"), [original]);
}

/// An original with copies flagged against it in segments of their own is given a new
/// text: its copies are decided again in the order they were added, the first becoming the
/// group's original and the later ones flagged against it. Segments are ordered by random
/// ids; eight fresh indexes make an order that follows them fail all but once in 256 runs.
#[test]
fn copies_of_a_changed_original_are_decided_again_in_add_order() {
    for round in 0..8 {
        let dir = tempfile::tempdir().unwrap();
        let index = create(dir.path(), settings().flagging(true));
        let writer = index.writer(Policy::Flag, MEMORY).unwrap();
        let text = random_text(21, 120);
        for key in ["original", "first copy", "second copy", "third copy"] {
            writer.add(page(&index, key, &text)).unwrap();
            writer.commit().unwrap();
        }
        let update = writer.add(page(&index, "original", &random_text(22, 120)));
        assert!(matches!(update.unwrap(), AddOutcome::Updated { .. }));
        let decided: Vec<(String, Option<String>)> = (writer.take_rejudged().into_iter())
            .filter_map(|rejudged| match rejudged {
                Rejudged::Decided {
                    key: Some(key),
                    outcome,
                    ..
                } => Some((key, outcome.duplicate_of().and_then(|d| d.key.clone()))),
                _ => None,
            })
            .collect();
        let of_first = Some("first copy".to_owned());
        assert_eq!(
            decided,
            [
                ("first copy".to_owned(), None),
                ("second copy".to_owned(), of_first.clone()),
                ("third copy".to_owned(), of_first),
            ],
            "round {round}"
        );
    }
}

#[test]
fn an_update_lost_before_its_commit_leaves_the_old_version() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (v1, v2) = (random_text(21, 80), random_text(22, 80));
    {
        let writer = index.writer(Policy::Reject, MEMORY).unwrap();
        writer.add(page(&index, "a", &v1)).unwrap();
        writer.commit().unwrap();
        let update = writer.add(page(&index, "a", &v2)).unwrap();
        assert!(matches!(update, AddOutcome::Updated { .. }));
        // The process dies here: no commit.
    }
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let searcher = reopened.index().reader().unwrap().searcher();
    assert_eq!(bodies(&reopened, &searcher, "a"), [v1]);
    assert_eq!(searcher.num_docs(), 1, "neither lost nor doubled");
}

/// Threads update their own pages, add copies of them and of each other's first versions,
/// and commit, all at once: under Reject the index never holds two near-duplicates, and
/// every page ends with its last version.
#[test]
fn concurrent_updates_and_adds_lose_nothing_and_let_no_duplicate_in() {
    const THREADS: u64 = 4;
    const PAGES: u64 = 6;
    const VERSIONS: u64 = 4;
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = Arc::new(index.writer(Policy::Reject, MEMORY).unwrap());
    let version =
        |thread: u64, page: u64, v: u64| random_text(1000 + thread * 100 + page * 10 + v, 60);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let writer = Arc::clone(&writer);
            let index = &index;
            scope.spawn(move || {
                for v in 0..VERSIONS {
                    for page_no in 0..PAGES {
                        let url = format!("t{thread}-p{page_no}");
                        let outcome = writer
                            .add(page(index, &url, &version(thread, page_no, v)))
                            .unwrap();
                        // A first version may meet another thread's copy of it first.
                        assert!(v == 0 || outcome.is_indexed(), "{url} v{v}: {outcome:?}");
                        // A copy of the page as it is now, under a new key: rejected.
                        let copy = format!("copy-{thread}-{page_no}-{v}");
                        let current = version(thread, page_no, v);
                        let outcome = writer.add(page(index, &copy, &current)).unwrap();
                        assert!(!outcome.is_indexed(), "{copy}: {outcome:?}");
                        // A copy of another thread's first version: in, or not, by the race.
                        let other = (thread + 1) % THREADS;
                        let url = format!("first-{thread}-{page_no}-{v}");
                        writer
                            .add(page(index, &url, &version(other, page_no, 0)))
                            .unwrap();
                    }
                    if v % 2 == 1 {
                        writer.commit().unwrap();
                    }
                }
            });
        }
    });
    writer.commit().unwrap();
    let searcher = writer.searcher();
    for thread in 0..THREADS {
        for page_no in 0..PAGES {
            let url = format!("t{thread}-p{page_no}");
            let last = version(thread, page_no, VERSIONS - 1);
            assert_eq!(bodies(&index, &searcher, &url), [last], "{url}");
        }
    }
    let groups = index.duplicate_groups(&searcher, index.distance()).unwrap();
    assert!(groups.is_empty(), "near-duplicates got in: {groups:?}");
    let all = searcher.search(&AllQuery, &Count).unwrap() as u64;
    // The pages, and at most one document of each text: a copy of a version the page
    // moved on from before the commit is decided again, and comes back.
    assert!(
        (THREADS * PAGES..=THREADS * PAGES * VERSIONS).contains(&all),
        "{all}"
    );
}

/// tantivy drops a term longer than `MAX_TOKEN_LEN` from the index: such a key could be
/// neither deleted nor updated, and a re-run would add the page again. The writer refuses it
/// (the writer goes on); a key of the longest length works as any.
#[test]
fn a_key_tantivy_cannot_index_whole_is_refused() {
    use tantivy::tokenizer::MAX_TOKEN_LEN;
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let too_long = "u".repeat(MAX_TOKEN_LEN + 1);
    let refused = writer.add(page(&index, &too_long, &random_text(31, 80)));
    assert!(
        matches!(refused, Err(tantivy_dedup::Error::KeyTooLong { length, max })
            if length == MAX_TOKEN_LEN + 1 && max == MAX_TOKEN_LEN),
        "{refused:?}"
    );
    assert!(writer
        .check(&page(&index, &too_long, &random_text(31, 80)))
        .is_err());
    let longest = "u".repeat(MAX_TOKEN_LEN);
    let body = random_text(32, 80);
    assert!(writer
        .add(page(&index, &longest, &body))
        .unwrap()
        .is_indexed());
    writer.commit().unwrap();
    let again = writer.add(page(&index, &longest, &body)).unwrap();
    assert!(matches!(again, AddOutcome::Exists { .. }), "{again:?}");
    let update = writer
        .add(page(&index, &longest, &random_text(33, 80)))
        .unwrap();
    assert!(matches!(update, AddOutcome::Updated { .. }), "{update:?}");
    writer.commit().unwrap();
    assert_eq!(
        writer.searcher().num_docs(),
        1,
        "updated in place, by its key"
    );
}
