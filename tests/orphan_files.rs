//! What a commit killed after it wrote its files and before `meta.json` was renamed leaves:
//! files no commit names, among them the `<segment>.<opstamp>.del` of its deletes. A re-run
//! repeats the same operations, reaches the same opstamp, and tantivy refuses to create a
//! file that exists. The state is made by restoring the `meta.json` of before the commit
//! (`.managed.json` already lists the new files, as it does when the process dies there),
//! which is what a SIGKILL at that moment leaves (`tests/kill_points.rs` kills for real).

use std::path::Path;

use tantivy::schema::{Schema, STORED, STRING, TEXT};
use tantivy::{doc, Index, IndexWriter, Term};
use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy};

mod support;

/// Runs `commit` against the index in `dir`, then puts back the `meta.json` of before it:
/// the index is as if the process had been killed just before tantivy's commit point.
fn killed_before_meta(dir: &Path, commit: impl FnOnce()) {
    let meta = std::fs::read(dir.join("meta.json")).unwrap();
    commit();
    std::fs::write(dir.join("meta.json"), meta).unwrap();
}

fn del_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = (std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".del"))
        .collect();
    names.sort();
    names
}

/// The plain tantivy case, as a reproduction to report upstream: tantivy 0.27's
/// `IndexWriter` does not collect a killed commit's files when it opens, and its re-run
/// collides with them. `garbage_collect_files` before the first operation avoids it.
#[test]
fn a_plain_tantivy_rerun_collides_with_the_killed_commits_delete_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = Schema::builder();
    let id = schema.add_text_field("id", STRING | STORED);
    let body = schema.add_text_field("body", TEXT);
    let index = Index::create_in_dir(dir.path(), schema.build()).unwrap();
    let run = |index: &Index| -> tantivy::Result<()> {
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
        writer.delete_term(Term::from_field_text(id, "a"));
        writer.add_document(doc!(id => "a", body => "second text"))?;
        writer.commit()?;
        Ok(())
    };
    {
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        // Two documents: a segment whose documents are all deleted is dropped, not given
        // a delete file.
        for key in ["a", "b"] {
            (writer.add_document(doc!(id => key, body => "first text"))).unwrap();
        }
        writer.commit().unwrap();
    }
    killed_before_meta(dir.path(), || run(&index).unwrap());
    assert_eq!(del_files(dir.path()).len(), 1, "the killed commit's file");

    let index = Index::open_in_dir(dir.path()).unwrap();
    let error = run(&index).expect_err("tantivy 0.27 collides with the orphan");
    assert!(
        format!("{error:?}").contains("FileAlreadyExists"),
        "{error:?}"
    );
    // Every further try fails the same way: the index is wedged until the file goes.
    assert!(run(&Index::open_in_dir(dir.path()).unwrap()).is_err());

    // Collecting the files no commit names first: the re-run goes through.
    let index = Index::open_in_dir(dir.path()).unwrap();
    {
        let writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.garbage_collect_files().wait().unwrap();
    }
    run(&index).unwrap();
}

#[test]
fn a_dedup_writer_collects_a_killed_commits_files_when_it_opens() {
    let dir = tempfile::tempdir().unwrap();
    let settings = DedupSettings::new(["body"]).key_field("url");
    let index = support::index::create(dir.path(), settings);
    let first = "The city council met on Tuesday evening to discuss the new budget for public \
        transport, and agreed to add two bus lines.";
    let second = "A storm closed the mountain pass for three days; the road crews cleared the \
        snow and reopened it on Sunday morning.";
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        (writer.add(support::index::page(&index, "a", first))).unwrap();
        let other = support::index::random_text(7, 60);
        (writer.add(support::index::page(&index, "b", &other))).unwrap();
        writer.commit().unwrap();
    }
    let update = |index: &DedupIndex| -> tantivy_dedup::Result<AddOutcome> {
        let writer = index.writer_with_num_threads(Policy::Reject, 1, 15_000_000)?;
        let outcome = writer.add(support::index::page(index, "a", second))?;
        writer.commit()?;
        Ok(outcome)
    };
    killed_before_meta(dir.path(), || {
        update(&index).unwrap();
    });
    assert_eq!(del_files(dir.path()).len(), 1, "the killed commit's file");

    let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let outcome = update(&index).expect("the re-run goes through");
    assert!(matches!(outcome, AddOutcome::Updated { .. }), "{outcome:?}");
    let again = update(&index).unwrap();
    assert!(matches!(again, AddOutcome::Exists { .. }), "{again:?}");
}
