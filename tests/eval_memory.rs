//! `tantivy-dedup eval` in memory linear in the documents: many copies of one page (every
//! pair of them a candidate of two-stage matching) must not cost memory per pair. The peak
//! resident memory of the command is measured by the kernel on 200 and on 5,000 copies,
//! and the growth between them is bounded per document (docs/RELIABILITY.md states it).
//!
//! A file of its own: the measure is of one child process.

#![cfg(target_os = "linux")]

mod support;

use std::fs::File;
use std::path::{Path, PathBuf};

use support::cli::{assert_linear_peak, peak_memory};

/// Growth allowed per added document, in bytes: its text, fingerprint and signatures (a
/// list of candidate pairs, as `eval` used to build, costs 16 bytes a pair: 200 MB for
/// 5,000 copies).
const BYTES_PER_DOCUMENT: u64 = 4 << 10;
/// Allowed besides: allocator noise between two runs.
const SLACK_BYTES: u64 = 48 << 20;

/// An evaluation set of `copies` copies of one page, one group (every pair a near-duplicate).
fn set_of_copies(dir: &Path, copies: usize) -> PathBuf {
    let set = dir.join(format!("copies-{copies}"));
    std::fs::create_dir(&set).unwrap();
    let lines: String = (0..copies)
        .map(|i| {
            format!(
                "{{\"id\":\"page-{i}\",\"group\":\"g\",\"text\":\"the same page about rivers \
                 and the mountains they come down from, copied once more\"}}\n"
            )
        })
        .collect();
    std::fs::write(set.join("docs.jsonl"), lines).unwrap();
    std::fs::write(set.join("pairs.jsonl"), "").unwrap();
    std::fs::write(
        set.join("set.json"),
        format!(r#"{{"name":"copies-{copies}","unlisted":"group"}}"#),
    )
    .unwrap();
    set
}

/// Runs `eval` on `set` with the two-stage variants (the default): its peak resident
/// memory in bytes, and the candidate pairs its report counts at the first loose distance.
fn eval_peak(dir: &Path, set: &Path) -> (u64, u64) {
    let out = set.with_extension("out");
    let args = [
        "eval",
        "--out",
        out.to_str().unwrap(),
        set.to_str().unwrap(),
    ];
    let peak = peak_memory(dir, &args, File::create(dir.join("eval.log")).unwrap());
    let name = set.file_name().unwrap().to_str().unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(format!("{name}.json"))).unwrap()).unwrap();
    let candidates = report["verify"][0]["candidates"]
        .as_u64()
        .unwrap_or_else(|| panic!("candidates in {report}"));
    (peak, candidates)
}

#[test]
fn eval_of_many_copies_takes_memory_linear_in_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let (small, large) = (200u64, 5_000u64);
    let (small_peak, small_pairs) = eval_peak(dir.path(), &set_of_copies(dir.path(), 200));
    let (large_peak, large_pairs) = eval_peak(dir.path(), &set_of_copies(dir.path(), 5_000));
    // Every pair is counted, as many as before.
    assert_eq!(small_pairs, small * (small - 1) / 2);
    assert_eq!(large_pairs, large * (large - 1) / 2);
    assert_linear_peak(
        "eval",
        (small, small_peak),
        (large, large_peak),
        (BYTES_PER_DOCUMENT, SLACK_BYTES),
    );
}
