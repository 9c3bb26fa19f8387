//! `tantivy-dedup clusters` in memory linear in the documents: many copies of one page
//! (every pair of them near) must not cost memory per pair. The peak resident memory of the
//! command is measured by the kernel (`wait4`'s `ru_maxrss`) on 200 and on 20,000 copies,
//! and the growth between them is bounded per document (docs/RELIABILITY.md states it).
//!
//! A file of its own: the measure is of one child process, and no other test's children
//! share this test binary.

#![cfg(target_os = "linux")]

mod support;

use std::fs::File;
use std::path::Path;
use support::cli::{assert_linear_peak, peak_memory, run, stderr};

/// Growth allowed per added document, in bytes: its fingerprint and place in the lookup, its
/// id read and printed, and its share of tantivy's readers. (A list of pairs, as `clusters`
/// used to build, costs 12 bytes per pair: 2.4 GB for 20,000 copies.)
const BYTES_PER_DOCUMENT: u64 = 4 << 10;
/// Allowed besides: allocator and page-cache noise between two runs.
const SLACK_BYTES: u64 = 48 << 20;

/// An index of `copies` copies of one page, ingested under `--policy flag` (every copy is
/// kept and flagged against the first).
fn index_of_copies(dir: &Path, copies: usize) -> std::path::PathBuf {
    let index = dir.join(format!("copies-{copies}"));
    let lines: String = (0..copies)
        .map(|i| {
            format!(
                "{{\"id\":\"page-{i}\",\"text\":\"the same page about rivers and the mountains \
                 they come down from, copied once more\"}}\n"
            )
        })
        .collect();
    let input = dir.join(format!("copies-{copies}.jsonl"));
    std::fs::write(&input, lines).unwrap();
    let output = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--policy",
            "flag",
            "--commit-every",
            "100000",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    index
}

/// Runs `clusters --json` on `index`: its peak resident memory in bytes, and the sizes of
/// the clusters it printed.
fn clusters_peak(dir: &Path, index: &Path) -> (u64, Vec<usize>) {
    let out_path = index.with_extension("clusters.json");
    let args = ["clusters", "--json", "--index", index.to_str().unwrap()];
    let peak = peak_memory(dir, &args, File::create(&out_path).unwrap());
    let printed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let sizes = printed["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cluster| cluster["ids"].as_array().unwrap().len())
        .collect();
    (peak, sizes)
}

#[test]
fn clusters_of_many_copies_take_memory_linear_in_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let (small, large) = (200usize, 20_000usize);
    let small_index = index_of_copies(dir.path(), small);
    let large_index = index_of_copies(dir.path(), large);
    let (small_peak, small_sizes) = clusters_peak(dir.path(), &small_index);
    let (large_peak, large_sizes) = clusters_peak(dir.path(), &large_index);
    assert_eq!(small_sizes, [small], "one cluster of every copy");
    assert_eq!(large_sizes, [large], "one cluster of every copy");
    assert_linear_peak(
        "clusters",
        (small as u64, small_peak),
        (large as u64, large_peak),
        (BYTES_PER_DOCUMENT, SLACK_BYTES),
    );
}
