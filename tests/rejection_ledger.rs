//! A record rejected under Reject by one writer is known to the next writers of the index
//! (through its ledger of rejected records, `LEDGER_FILE`): when the document it was
//! rejected near changes in a later writer's life, that writer reports it
//! [`Rejudged::Lost`], once. Seen from a downstream crate: the public API only.

mod support;

use std::path::Path;

use support::index::{create, page, random_text};
use tantivy::Index;
use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy, Rejudged, LEDGER_FILE};
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
        repeated: false,
    }
}

/// The ledger's files in `dir`, by name.
fn ledger_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = (std::fs::read_dir(dir).unwrap())
        .map(|file| file.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(LEDGER_FILE))
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
        // Dropped here, the next writer would report it again (the report line may not
        // be recorded); once it is, a commit says so.
        assert!(writer.deliver_reports().unwrap());
        assert!(!writer.deliver_reports().unwrap(), "delivered");
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
fn a_ledger_file_the_commit_names_cut_short_or_missing_stops_every_writer() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings().flagging(true));
    let (a, b) = (random_text(26, 120), random_text(27, 120));
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
    // The files hold whole entries, written before the commit that names them: one cut
    // short or gone is damage, never a shorter ledger.
    let files = ledger_files(dir.path());
    assert!(files.len() >= 3, "{files:?}");
    for name in &files[1..] {
        let path = dir.path().join(name);
        let bytes = std::fs::read(&path).unwrap();
        for damaged in [Some(&bytes[..bytes.len() - 3]), Some(&[][..]), None] {
            match damaged {
                Some(damaged) => std::fs::write(&path, damaged).unwrap(),
                None => std::fs::remove_file(&path).unwrap(),
            }
            for policy in [Policy::Reject, Policy::Flag, Policy::Replace] {
                match reopen(dir.path()).writer(policy, 15_000_000) {
                    Err(error @ Error::Ledger { .. }) => {
                        assert!(error.to_string().contains(name.as_str()), "{error}");
                    }
                    other => panic!("{name} {damaged:?}: expected a ledger error, got {other:?}"),
                }
            }
        }
        std::fs::write(&path, &bytes).unwrap();
    }
    let index = reopen(dir.path());
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    writer
        .add(page(&index, "k", &random_text(28, 120)))
        .unwrap();
    assert_eq!(writer.take_rejudged(), [lost("h", "k")]);
}

#[test]
fn a_damaged_ledger_is_an_error_of_a_writer_of_any_policy() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings().flagging(true));
    std::fs::write(dir.path().join(LEDGER_FILE), b"not a ledger").unwrap();
    // Every writer watches the rejections of earlier Reject runs, and reads it.
    for policy in [Policy::Reject, Policy::Flag, Policy::Replace] {
        match index.writer(policy, 15_000_000) {
            Err(error @ Error::Ledger { .. }) => {
                assert!(error.to_string().contains(LEDGER_FILE), "{error}");
            }
            other => panic!("{policy:?}: expected a ledger error, got {other:?}"),
        }
    }
    // Deleted, as the error says: every writer opens.
    std::fs::remove_file(dir.path().join(LEDGER_FILE)).unwrap();
    let writer = index.writer(Policy::Flag, 15_000_000).unwrap();
    writer.add(page(&index, "j", "some text")).unwrap();
    writer.commit().unwrap();
}

#[test]
fn a_lost_record_whose_report_was_not_delivered_is_reported_again() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (a, n) = (random_text(31, 120), random_text(32, 120));
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &a)).unwrap();
        writer.commit().unwrap();
        writer.add(page(&index, "i", &a)).unwrap();
        writer.commit().unwrap();
    }
    {
        // The loss is committed, then the process stops before its report is recorded.
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &n)).unwrap();
        assert_eq!(writer.take_rejudged(), [lost("i", "j")]);
        writer.commit().unwrap();
    }
    let again = Rejudged::Lost {
        key: "i".into(),
        after: "j".into(),
        repeated: true,
    };
    for _ in 0..2 {
        // Taken, and not delivered (no second commit): reported again, by every writer.
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        assert_eq!(writer.take_rejudged(), std::slice::from_ref(&again));
        writer.commit().unwrap();
    }
    {
        let index = reopen(dir.path());
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        assert_eq!(writer.take_rejudged(), [again]);
        writer.commit().unwrap();
        writer.commit().unwrap();
    }
    let index = reopen(dir.path());
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    assert_eq!(writer.take_rejudged(), [], "delivered by the second commit");
}

#[test]
fn a_commit_made_by_a_plain_index_writer_keeps_the_ledger_known() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    let (a, n) = (random_text(51, 120), random_text(52, 120));
    {
        let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        writer.add(page(&index, "j", &a)).unwrap();
        writer.commit().unwrap();
        writer.add(page(&index, "i", &a)).unwrap();
        writer.commit().unwrap();
    }
    {
        // A commit of the user's own, with a payload of theirs: none of the plugin's.
        let mut plain: tantivy::IndexWriter = index.index().writer(15_000_000).unwrap();
        let mut document = page(&index, "p", &random_text(53, 120));
        index.fill_document(&mut document).unwrap();
        plain.add_document(document).unwrap();
        let mut prepared = plain.prepare_commit().unwrap();
        prepared.set_payload("the user's");
        prepared.commit().unwrap();
    }
    let index = reopen(dir.path());
    assert_eq!(
        index.commit_payload().unwrap().as_deref(),
        Some("the user's")
    );
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    writer.add(page(&index, "j", &n)).unwrap();
    assert_eq!(writer.take_rejudged(), [lost("i", "j")]);
}
