//! `ingest` loses no input text when a document changes: the records judged against its old
//! text are decided again, under each policy, and a finished run repeated changes nothing.

mod support;

use std::path::Path;

use serde_json::Value;
use support::cli::{lines, run, stderr};
use support::index::random_text;

/// Runs `ingest --report -` with `policy` on `records` (id, text), committing every
/// `commit_every`; the report.
fn ingest(index: &Path, policy: &str, commit_every: &str, records: &[(&str, &str)]) -> Vec<Value> {
    let options = ["--policy", policy, "--commit-every", commit_every];
    ingest_with(index, &options, records)
}

/// Runs `ingest --report -` with `options` on `records` (id, text); the report.
fn ingest_with(index: &Path, options: &[&str], records: &[(&str, &str)]) -> Vec<Value> {
    let input: String = records
        .iter()
        .map(|(id, text)| serde_json::json!({ "id": id, "text": text }).to_string() + "\n")
        .collect();
    let mut args = vec!["ingest", "--index", index.to_str().unwrap()];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--report", "-", "-"]);
    let output = run(&args, input.as_bytes());
    assert!(output.status.success(), "{}", stderr(&output));
    lines(&output)
}

/// The last line of `id` in `report`: its outcome.
fn last<'r>(report: &'r [Value], id: &str) -> &'r Value {
    report
        .iter()
        .rev()
        .find(|line| line["id"] == id)
        .unwrap_or_else(|| panic!("no line of {id}: {report:?}"))
}

fn statuses(report: &[Value]) -> Vec<(String, String)> {
    report
        .iter()
        .map(|line| {
            (
                line["id"].as_str().unwrap().to_owned(),
                line["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `search --json` hits' ids for `query`, with `extra` options.
fn search(index: &Path, query: &str, extra: &[&str]) -> Vec<String> {
    let index = index.to_str().unwrap();
    let mut args = vec!["search", "--index", index, "--json", "--limit", "100"];
    args.extend_from_slice(extra);
    args.push(query);
    let output = run(&args, b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut ids: Vec<String> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// `clusters --json`: the ids of each group, sorted.
fn clusters(index: &Path) -> Vec<Vec<String>> {
    let output = run(
        &["clusters", "--index", index.to_str().unwrap(), "--json"],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let clusters: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut groups: Vec<Vec<String>> = clusters["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| {
            let mut ids: Vec<String> = (group["ids"].as_array().unwrap().iter())
                .map(|id| id.as_str().unwrap().to_owned())
                .collect();
            ids.sort();
            ids
        })
        .collect();
    groups.sort();
    groups
}

#[test]
fn a_record_rejected_against_a_page_that_changes_in_the_run_is_decided_again() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, x, n) = (
        random_text(1, 120),
        random_text(2, 120),
        random_text(3, 120),
    );
    ingest(&index, "reject", "1000", &[("j", &a), ("i", &x)]);
    // `i` takes `j`'s text, then `j` moves on: `i` is rejected, then admitted with it.
    let second = [("i", a.as_str()), ("j", n.as_str())];
    let report = ingest(&index, "reject", "1000", &second);
    assert_eq!(report[0]["status"], "duplicate", "{report:?}");
    assert_eq!(report[1]["status"], "updated");
    assert_eq!(last(&report, "i")["status"], "updated", "{report:?}");
    assert_eq!(last(&report, "i")["rejudged_after"], "j");
    // The finished run again changes nothing.
    let again = ingest(&index, "reject", "1000", &second);
    assert_eq!(
        statuses(&again),
        [("i".into(), "exists".into()), ("j".into(), "exists".into())]
    );
    // Committed between the two: `i`'s text is no longer held, and is reported lost.
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    ingest(&index, "reject", "1000", &[("j", &a), ("i", &x)]);
    let report = ingest(&index, "reject", "1", &second);
    assert_eq!(last(&report, "i")["status"], "lost", "{report:?}");
    assert_eq!(last(&report, "i")["rejudged_after"], "j");
}

#[test]
fn copies_flagged_against_a_page_that_changes_are_unflagged_or_pointed_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, n) = (random_text(4, 120), random_text(5, 120));
    let copy = format!("{a} copied");
    // `c1` is flagged in the first run, `c2` in the second; then `j` changes.
    ingest(&index, "flag", "1000", &[("j", &a), ("c1", &copy)]);
    let report = ingest(&index, "flag", "1000", &[("c2", &a), ("j", &n)]);
    assert_eq!(report[0]["action"], "flagged", "{report:?}");
    // The first copy left is the original now, the other flagged against it.
    let c1 = last(&report, "c1");
    let c2 = last(&report, "c2");
    assert_eq!(c1["rejudged_after"], "j", "{report:?}");
    assert_eq!(c2["rejudged_after"], "j", "{report:?}");
    let mut outcomes = [c1["status"].as_str(), c2["status"].as_str()];
    outcomes.sort();
    assert_eq!(outcomes, [Some("added"), Some("duplicate")], "{report:?}");
    // Its text is found with --skip-flagged: one of the copies is no longer flagged.
    let word = a.split(' ').next().unwrap();
    assert_eq!(search(&index, word, &["--skip-flagged"]).len(), 1);
    // `clusters` groups the two copies, and `j`'s new text alone.
    assert_eq!(clusters(&index), [["c1", "c2"]]);
    let again = ingest(&index, "flag", "1000", &[("c2", &a), ("j", &n)]);
    assert!(
        again.iter().all(|line| line["status"] == "exists"),
        "{again:?}"
    );
}

/// A copy a `--policy flag` run flagged is judged again, as Flag judges it, by a later run
/// of another policy that changes its original: the default (reject), or replace.
#[test]
fn copies_flagged_in_a_flag_run_are_judged_again_by_a_run_of_another_policy() {
    let (a, n) = (random_text(14, 120), random_text(15, 120));
    let copy = format!("{a} copied");
    let word = a.split(' ').next().unwrap();
    let default: &[&str] = &[];
    for options in [default, &["--policy", "replace"]] {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        let flagged = ingest(&index, "flag", "1000", &[("j", &a), ("c", &copy)]);
        assert_eq!(last(&flagged, "c")["action"], "flagged", "{flagged:?}");
        assert!(!search(&index, word, &["--skip-flagged"]).contains(&"c".into()));
        assert_eq!(clusters(&index), [["c", "j"]]);
        // `j` moves on to a far text: `c` is near nothing now, and unflagged.
        let report = ingest_with(&index, options, &[("j", &n)]);
        assert_eq!(
            last(&report, "j")["status"],
            "updated",
            "{options:?}: {report:?}"
        );
        let c = last(&report, "c");
        assert_eq!(c["rejudged_after"], "j", "{options:?}: {report:?}");
        assert_eq!(c["status"], "added", "{options:?}: {report:?}");
        assert!(search(&index, word, &["--skip-flagged"]).contains(&"c".into()));
        assert!(clusters(&index).is_empty(), "{options:?}");
        let again = ingest_with(&index, options, &[("j", &n)]);
        assert_eq!(
            statuses(&again),
            [("j".into(), "exists".into())],
            "{options:?}"
        );
    }
    // A page replacing `j` (which it deletes) under replace: `c` is flagged against it now.
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    ingest(&index, "flag", "1000", &[("j", &a), ("c", &copy)]);
    let report = ingest(&index, "replace", "1000", &[("r", &a)]);
    assert_eq!(last(&report, "r")["action"], "replaced", "{report:?}");
    let c = last(&report, "c");
    assert_eq!(c["rejudged_after"], "j", "{report:?}");
    assert_eq!(c["action"], "flagged", "{report:?}");
    assert_eq!(c["duplicate_of"], "r", "{report:?}");
    assert_eq!(clusters(&index), [["c", "r"]]);
    let again = ingest(&index, "replace", "1000", &[("r", &a)]);
    assert_eq!(statuses(&again), [("r".into(), "exists".into())]);
}

#[test]
fn documents_a_page_had_replaced_come_back_when_it_no_longer_covers_them() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, b, n) = (
        random_text(6, 120),
        random_text(7, 120),
        random_text(8, 120),
    );
    let edited = format!("{b} edited");
    // `r` is replaced by `j`, then `j` changes to a text far from `r`'s: `r` comes back.
    let report = ingest(
        &index,
        "replace",
        "1000",
        &[("r", &a), ("j", &a), ("j", &n)],
    );
    assert_eq!(report[1]["action"], "replaced", "{report:?}");
    assert_eq!(last(&report, "r")["status"], "added", "{report:?}");
    assert_eq!(last(&report, "r")["rejudged_after"], "j");
    let word = a.split(' ').next().unwrap();
    assert_eq!(search(&index, word, &[]), ["r"]);
    let again = ingest(&index, "replace", "1000", &[("r", &a), ("j", &n)]);
    assert_eq!(
        statuses(&again),
        [("r".into(), "exists".into()), ("j".into(), "exists".into())]
    );
    // `s` replaced by `k`, which changes to a text that still covers it: it stays a record.
    let report = ingest(
        &index,
        "replace",
        "1000",
        &[("s", &b), ("k", &b), ("k", &edited)],
    );
    assert_eq!(report.len(), 3, "nothing decided again: {report:?}");
    let again = ingest(&index, "replace", "1000", &[("s", &b), ("k", &edited)]);
    assert_eq!(
        statuses(&again),
        [("s".into(), "exists".into()), ("k".into(), "exists".into())]
    );
    // Replaced in a batch committed before `m` changes: its text is kept with its record
    // (dedup_replaced_text), and it comes back.
    let c = random_text(9, 120);
    let report = ingest(&index, "replace", "1", &[("q", &c), ("m", &c), ("m", &n)]);
    assert_eq!(last(&report, "q")["status"], "added", "{report:?}");
    assert_eq!(last(&report, "q")["rejudged_after"], "m");
    assert_eq!(search(&index, c.split(' ').next().unwrap(), &[]), ["q"]);
    // And replaced in an earlier run: the same.
    let (d, e) = (random_text(10, 120), random_text(11, 120));
    ingest(&index, "replace", "1000", &[("t", &d), ("p", &d)]);
    let report = ingest(&index, "replace", "1000", &[("p", &e)]);
    assert_eq!(last(&report, "t")["status"], "added", "{report:?}");
    assert_eq!(last(&report, "t")["rejudged_after"], "p");
    assert_eq!(search(&index, d.split(' ').next().unwrap(), &[]), ["t"]);
    let again = ingest(&index, "replace", "1000", &[("t", &d), ("p", &e)]);
    assert_eq!(
        statuses(&again),
        [("t".into(), "exists".into()), ("p".into(), "exists".into())]
    );
}

/// A record rejected in an earlier run is reported lost by a later run that changes its
/// duplicate: the index's ledger of rejected records outlives the writer that rejected it.
#[test]
fn a_record_rejected_in_an_earlier_run_is_reported_lost_by_a_later_one() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, n) = (random_text(12, 120), random_text(13, 120));
    ingest(&index, "reject", "1000", &[("j", &a)]);
    let rejected = ingest(&index, "reject", "1000", &[("i", &a)]);
    assert_eq!(last(&rejected, "i")["status"], "duplicate", "{rejected:?}");
    assert_eq!(last(&rejected, "i")["duplicate_of"], "j", "{rejected:?}");
    // Kept in the index folder (a base file, or its numbered chunks).
    let ledger = std::fs::read_dir(&index).unwrap().any(|file| {
        let name = file.unwrap().file_name();
        (name.to_string_lossy()).starts_with(tantivy_dedup::plugin::LEDGER_FILE)
    });
    assert!(ledger, "no ledger in {}", index.display());
    let changed = ingest(&index, "reject", "1000", &[("j", &n)]);
    assert_eq!(
        statuses(&changed),
        [("j".into(), "updated".into()), ("i".into(), "lost".into())],
        "{changed:?}"
    );
    assert_eq!(last(&changed, "i")["rejudged_after"], "j", "{changed:?}");
    let word = a.split(' ').next().unwrap();
    assert!(search(&index, word, &[]).is_empty(), "a's text is nowhere");
    // The later run again changes nothing, and reports no second loss.
    let again = ingest(&index, "reject", "1000", &[("j", &n)]);
    assert_eq!(statuses(&again), [("j".into(), "exists".into())]);
    let changed_again = ingest(&index, "reject", "1000", &[("j", &a)]);
    assert_eq!(statuses(&changed_again), [("j".into(), "updated".into())]);
    // Fetched again (as the report asks), it is judged as any record.
    let fetched = ingest(&index, "reject", "1000", &[("i", &a)]);
    assert_eq!(last(&fetched, "i")["status"], "duplicate", "{fetched:?}");
}
