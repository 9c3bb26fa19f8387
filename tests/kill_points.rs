//! The kill harness: `tantivy-dedup ingest` killed with SIGKILL at a file event in the index
//! folder (each open for writing, write, sync, rename and delete, counted by an LD_PRELOAD
//! shim, `support/kill_shim.c`), then run again to the end. At every kill point: the index
//! opens, the re-run exits 0 and leaves the index an uninterrupted run leaves, and the
//! killed run's report and the re-run's together hold every record's outcome, `lost` lines
//! included.
//!
//! First runs and update runs (every original sent again with a new text, so that the
//! records rejected near it are lost), under each policy, with a commit every 4 records.
//! `cargo test` tries a few kill points of each, around the writes that make a commit;
//! `KILL_POINTS=all` tries every one, `KILL_POINTS=N` every Nth
//! (`scripts/kill-sweep.sh`, whose figures are in docs/RELIABILITY.md).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::document::Value as _;
use tantivy::{Index, TantivyDocument};

/// Builds the shim once, into the test's scratch folder; `None` without a C compiler.
fn shim() -> Option<PathBuf> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kill_shim.so");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/kill_shim.c");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&out)
        .arg(&source)
        .arg("-ldl")
        .status()
        .ok()?;
    status.success().then_some(out)
}

const ORIGINALS: usize = 10;

fn words(seed: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("w{}", (seed * 7919 + i * 104_729) % 50_000))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A first run: originals, each followed by an upper-cased copy (rejected, flagged or
/// replacing it, by the policy) and an unrelated page.
fn first_run() -> String {
    let mut lines = Vec::new();
    for i in 0..ORIGINALS {
        let text = words(i, 60);
        lines.push(serde_json::json!({"id": format!("o{i}"), "text": text}));
        lines.push(serde_json::json!({"id": format!("c{i}"), "text": text.to_uppercase()}));
        lines.push(serde_json::json!({"id": format!("u{i}"), "text": words(1000 + i, 60)}));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// An update run: every original with a new text, so that what was kept out near it is
/// decided again (or reported lost).
fn update_run() -> String {
    (0..ORIGINALS)
        .map(|i| {
            let line = serde_json::json!({"id": format!("o{i}"), "text": words(2000 + i, 60)});
            format!("{line}\n")
        })
        .collect()
}

struct Run<'a> {
    shim: &'a Path,
    policy: &'a str,
    corpus: &'a Path,
}

impl Run<'_> {
    /// Runs the ingest into `index`, killed before file event `kill_at` (0: never); the
    /// number of events counted when it was not killed.
    fn run(
        &self,
        index: &Path,
        report: &Path,
        kill_at: usize,
    ) -> (std::process::ExitStatus, usize) {
        let log = report.with_extension("events");
        let _ = std::fs::remove_file(&log);
        // `KILL_BIN`: a copy of the binary, so that a long sweep is not rebuilt under.
        let binary = std::env::var_os("KILL_BIN").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_tantivy-dedup")),
            PathBuf::from,
        );
        let status = Command::new(binary)
            .args([
                "ingest",
                "--commit-every",
                "4",
                "--policy",
                self.policy,
                "--index",
            ])
            .arg(index)
            .arg("--report")
            .arg(report)
            .arg(self.corpus)
            .env("LD_PRELOAD", self.shim)
            .env("KILL_DIR", index)
            .env("KILL_AT", kill_at.to_string())
            .env("KILL_LOG", &log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let events = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count();
        (status, events)
    }
}

/// Every document of the index, as its stored fields (the add order left out: a killed
/// run's numbers are not given again), through tantivy alone.
fn documents(dir: &Path) -> BTreeSet<String> {
    let index = Index::open_in_dir(dir).expect("the index opens");
    let schema = index.schema();
    let searcher = index.reader().unwrap().searcher();
    let addresses = searcher.search(&AllQuery, &DocSetCollector).unwrap();
    addresses
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (field, value) in doc.field_values() {
                let name = schema.get_field_name(field);
                if name == "dedup_sequence" {
                    continue;
                }
                let value = (value.as_value().as_str().map(str::to_owned))
                    .unwrap_or_else(|| format!("{:?}", value.as_value().as_u64()));
                fields.entry(name.to_owned()).or_default().push(value);
            }
            format!("{fields:?}")
        })
        .collect()
}

fn report(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        // A kill can cut the last line short: it was never promised.
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The records a report speaks of, and those it reports lost (with the key that lost them).
fn outcomes(lines: &[Value]) -> (BTreeSet<String>, BTreeSet<(String, String)>) {
    let mut ids = BTreeSet::new();
    let mut lost = BTreeSet::new();
    for line in lines {
        let id = line["id"].as_str().unwrap().to_owned();
        if line["status"] == "lost" {
            let after = line["rejudged_after"].as_str().unwrap().to_owned();
            lost.insert((id.clone(), after));
        }
        ids.insert(id);
    }
    (ids, lost)
}

/// The kill points `cargo test` tries: around the writes that make a commit (its ledger
/// file, a delete file, `meta.json`), a few of each, and a few others.
fn quick_points(log: &Path) -> Vec<usize> {
    let log = std::fs::read_to_string(log).unwrap();
    let events: Vec<&str> = log.lines().collect();
    let mut points = BTreeSet::new();
    // Atomic writes (`meta.json`, the ledger's files) go through a `.tmp` file.
    for pattern in [".tantivy-dedup-ledger.", ".del", ".tmp"] {
        let matching: Vec<usize> = (events.iter().enumerate())
            .filter(|(_, line)| line.contains(pattern))
            .map(|(at, _)| at + 1)
            .collect();
        let step = matching.len().div_ceil(4).max(1);
        points.extend(matching.into_iter().step_by(step));
    }
    points.extend((1..=events.len()).step_by(events.len().div_ceil(8).max(1)));
    points.into_iter().collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Kills `run` at the chosen file events of a run into a copy of `base` (none: a new
/// index), each then run again; the kill points tried.
fn sweep(name: &str, run: &Run, base: Option<&Path>, scratch: &Path) -> usize {
    let fresh = |dir: &Path| {
        let _ = std::fs::remove_dir_all(dir);
        if let Some(base) = base {
            copy_dir(base, dir);
        }
    };
    // The uninterrupted run: the index and the outcomes every kill point must reach.
    let reference = scratch.join(format!("{name}-reference"));
    fresh(&reference);
    let reference_report = scratch.join(format!("{name}-reference.jsonl"));
    let (status, events) = run.run(&reference, &reference_report, 0);
    assert!(status.success(), "{name}: the uninterrupted run failed");
    let expected = documents(&reference);
    let (expected_ids, expected_lost) = outcomes(&report(&reference_report));
    let points: Vec<usize> = match std::env::var("KILL_POINTS").as_deref() {
        Ok("all") => (1..=events).collect(),
        // Every Nth.
        Ok(n) => (1..=events)
            .step_by(n.parse().expect("KILL_POINTS: all or a number"))
            .collect(),
        Err(_) => quick_points(&reference_report.with_extension("events")),
    };
    for &at in &points {
        let index = scratch.join(format!("{name}-{at}"));
        fresh(&index);
        let killed_report = scratch.join(format!("{name}-{at}-killed.jsonl"));
        let (status, _) = run.run(&index, &killed_report, at);
        let context = format!("{name}, killed at event {at} of {events}");
        if status.success() {
            // A run whose events differ (the sync of a folder that another did not
            // have): it finished, and must have made the reference index.
            assert_eq!(documents(&index), expected, "{context}: finished");
            continue;
        }
        let killed_temporaries: Vec<String> = (std::fs::read_dir(&index).into_iter().flatten())
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".tmp"))
            .collect();
        let rerun_report = scratch.join(format!("{name}-{at}-rerun.jsonl"));
        let (status, _) = run.run(&index, &rerun_report, 0);
        assert!(status.success(), "{context}: the re-run failed ({status})");
        assert_eq!(documents(&index), expected, "{context}: the re-run's index");
        // The killed run's temporary files are gone (the re-run's own may be there: a run
        // ends during tantivy's background merges).
        let left: Vec<&String> = killed_temporaries
            .iter()
            .filter(|name| index.join(name).exists())
            .collect();
        assert!(left.is_empty(), "{context}: temporary files left: {left:?}");
        let mut killed = report(&killed_report);
        killed.extend(report(&rerun_report));
        let (ids, lost) = outcomes(&killed);
        let missing: Vec<_> = expected_ids.difference(&ids).collect();
        assert!(missing.is_empty(), "{context}: no outcome for {missing:?}");
        let unreported: Vec<_> = expected_lost.difference(&lost).collect();
        assert!(
            unreported.is_empty(),
            "{context}: lost and never reported: {unreported:?}"
        );
        // A third run changes nothing and reports no loss again.
        let third_report = scratch.join(format!("{name}-{at}-third.jsonl"));
        let (status, _) = run.run(&index, &third_report, 0);
        assert!(status.success(), "{context}: a third run failed");
        let third = report(&third_report);
        let changed: Vec<_> = (third.iter())
            .filter(|line| {
                ["added", "updated", "lost", "error"].contains(&line["status"].as_str().unwrap())
            })
            .collect();
        assert!(
            changed.is_empty(),
            "{context}: a third run did something: {changed:?}"
        );
        assert_eq!(
            documents(&index),
            expected,
            "{context}: the third run's index"
        );
        // Best effort: the figures matter, not the disk of a scratch folder.
        let _ = std::fs::remove_dir_all(&index);
    }
    eprintln!(
        "{name}: {} kill points of {events} file events, each reopened, converged, every \
         record reported ({} lost)",
        points.len(),
        expected_lost.len()
    );
    points.len()
}

#[test]
fn a_kill_at_any_file_event_leaves_an_index_the_rerun_finishes() {
    let Some(shim) = shim() else {
        panic!("the kill harness needs a C compiler (cc) to build its LD_PRELOAD shim");
    };
    let scratch = tempfile::tempdir().unwrap();
    let first = scratch.path().join("first.jsonl");
    let update = scratch.path().join("update.jsonl");
    std::fs::write(&first, first_run()).unwrap();
    std::fs::write(&update, update_run()).unwrap();
    let mut tried = 0;
    // `KILL_RUNS=first` or `update` sweeps those runs alone.
    let runs = std::env::var("KILL_RUNS").unwrap_or_default();
    for policy in ["reject", "flag", "replace"] {
        let first_run = Run {
            shim: &shim,
            policy,
            corpus: &first,
        };
        if runs != "update" {
            tried += sweep(&format!("first-{policy}"), &first_run, None, scratch.path());
        }
        if runs == "first" {
            continue;
        }
        // The base of the update runs: the first run, whole.
        let base = scratch.path().join(format!("base-{policy}"));
        let (status, _) = first_run.run(&base, &scratch.path().join("base.jsonl"), 0);
        assert!(status.success());
        let update_run = Run {
            shim: &shim,
            policy,
            corpus: &update,
        };
        tried += sweep(
            &format!("update-{policy}"),
            &update_run,
            Some(&base),
            scratch.path(),
        );
    }
    assert!(tried > 0);
}
