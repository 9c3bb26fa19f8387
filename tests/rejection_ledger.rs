//! A record rejected under Reject by one writer is known to the next writers of the index
//! (through its ledger of rejected records, `REJECTIONS_FILE`): when the document it was
//! rejected near changes in a later writer's life, that writer reports it
//! [`Rejudged::Lost`], once. Seen from a downstream crate: the public API only.

mod support;

use std::path::Path;

use support::index::{create, page, random_text};
use tantivy::Index;
use tantivy_dedup::plugin::{
    AddOutcome, DedupIndex, DedupSettings, Policy, Rejudged, REJECTIONS_FILE,
};
use tantivy_dedup::Error;

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url")
}

/// The index of `dir`, opened again as a new process would.
fn reopen(dir: &Path) -> DedupIndex {
    DedupIndex::open(Index::open_in_dir(dir).unwrap()).unwrap()
}

fn lost(key: &str, after: &str) -> Rejudged {
    Rejudged::Lost {
        key: key.into(),
        after: after.into(),
    }
}

/// The ledger's files in `dir`, by name.
fn ledger_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = (std::fs::read_dir(dir).unwrap())
        .map(|file| file.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(REJECTIONS_FILE))
        .collect();
    names.sort();
    names
}

#[test]
fn a_later_writer_reports_lost_a_record_an_earlier_one_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (a, n) = (random_text(21, 120), random_text(22, 120));
    {
        let mut writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &a)).unwrap();
        writer.commit().unwrap();
        let outcome = writer.add(page(&index, "i", &a)).unwrap();
        assert!(
            matches!(outcome, AddOutcome::Rejected { .. }),
            "{outcome:?}"
        );
        // A two-phase commit keeps it as well as `commit` does.
        writer.prepare_commit().unwrap().commit().unwrap();
    }
    assert!(!ledger_files(dir.path()).is_empty());
    let index = reopen(dir.path());
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        let outcome = writer.add(page(&index, "j", &n)).unwrap();
        assert!(matches!(outcome, AddOutcome::Updated { .. }), "{outcome:?}");
        assert_eq!(writer.take_rejudged(), [lost("i", "j")]);
        writer.commit().unwrap();
    }
    // Reported once: a third writer changing `j` again says nothing of `i`.
    let index = reopen(dir.path());
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    let again = writer.add(page(&index, "j", &n)).unwrap();
    assert!(matches!(again, AddOutcome::Exists { .. }), "{again:?}");
    writer.add(page(&index, "j", &a)).unwrap();
    writer.delete_key("j").unwrap();
    assert_eq!(writer.take_rejudged(), []);
}

#[test]
fn a_record_indexed_since_or_sent_with_another_text_is_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (a, b, n) = (
        random_text(23, 120),
        random_text(24, 120),
        random_text(25, 120),
    );
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &a)).unwrap();
        writer.add(page(&index, "k", &b)).unwrap();
        writer.commit().unwrap();
        writer.add(page(&index, "i", &a)).unwrap();
        writer.add(page(&index, "h", &b)).unwrap();
        writer.commit().unwrap();
    }
    {
        // `i` comes with another text (indexed); `h` is deleted.
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "i", &n)).unwrap();
        writer.delete_key("h").unwrap();
        writer.commit().unwrap();
    }
    let index = reopen(dir.path());
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    writer.delete_key("j").unwrap();
    writer.delete_key("k").unwrap();
    assert_eq!(writer.take_rejudged(), []);
}

#[test]
fn a_ledger_entry_cut_short_by_a_crash_is_ignored_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (a, b) = (random_text(26, 120), random_text(27, 120));
    let (n, m) = (random_text(28, 120), random_text(29, 120));
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &a)).unwrap();
        writer.add(page(&index, "k", &b)).unwrap();
        writer.commit().unwrap();
        writer.add(page(&index, "i", &a)).unwrap();
        writer.commit().unwrap();
        writer.add(page(&index, "h", &b)).unwrap();
        writer.commit().unwrap();
    }
    // A crash while the last entry (`h` rejected near `k`) was being written: its file ends
    // in the middle of it.
    let files = ledger_files(dir.path());
    let last = dir.path().join(files.last().unwrap());
    let bytes = std::fs::read(&last).unwrap();
    std::fs::write(&last, &bytes[..bytes.len() - 3]).unwrap();
    {
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &n)).unwrap();
        writer.add(page(&index, "k", &m)).unwrap();
        // `h`'s watch went with the crash: it is not known; `i`'s is.
        assert_eq!(writer.take_rejudged(), [lost("i", "j")]);
        writer.commit().unwrap();
    }
    // The commit rewrote the ledger: whole again, and a new rejection kept.
    {
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "g", &n)).unwrap();
        writer.commit().unwrap();
    }
    let index = reopen(dir.path());
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    writer.add(page(&index, "j", &a)).unwrap();
    assert_eq!(writer.take_rejudged(), [lost("g", "j")]);
}

#[test]
fn a_damaged_ledger_is_an_error_of_a_writer_of_any_policy() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings().flagging(true));
    std::fs::write(dir.path().join(REJECTIONS_FILE), b"not a ledger").unwrap();
    // Every writer watches the rejections of earlier Reject runs, and reads it.
    for policy in [Policy::Reject, Policy::Flag, Policy::Replace] {
        match index.writer(policy, 15_000_000) {
            Err(error @ Error::Ledger { .. }) => {
                assert!(error.to_string().contains(REJECTIONS_FILE), "{error}");
            }
            other => panic!("{policy:?}: expected a ledger error, got {other:?}"),
        }
    }
    // Deleted, as the error says: every writer opens.
    std::fs::remove_file(dir.path().join(REJECTIONS_FILE)).unwrap();
    let writer = index.writer(Policy::Flag, 15_000_000).unwrap();
    writer.add(page(&index, "j", "some text")).unwrap();
    writer.commit().unwrap();
}
