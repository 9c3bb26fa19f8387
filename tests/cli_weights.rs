//! `ingest --idf-from SAMPLE`: shingle weights learned at creation, kept with the index,
//! and refused where they cannot apply.

mod support;

use std::path::Path;

use support::cli::{lines, run, stderr};

const SAMPLES: &str = "samples/corpus.jsonl";

fn ingest(index: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "ingest",
        "--index",
        index.to_str().unwrap(),
        "--report",
        "-",
    ];
    args.extend_from_slice(extra);
    args.push(SAMPLES);
    run(&args, b"")
}

fn settings(index: &Path) -> serde_json::Value {
    let json = std::fs::read(index.join(".tantivy-dedup.json")).unwrap();
    serde_json::from_slice(&json).unwrap()
}

#[test]
fn weights_are_learned_at_creation_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("weighted");
    let output = ingest(&index, &["--idf-from", SAMPLES]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("shingle weights learned from 65 records"),
        "{}",
        stderr(&output)
    );
    assert_eq!(lines(&output).len(), 65);
    let named = settings(&index)["verification"]["weights"].clone();
    assert!(named.as_str().unwrap().starts_with("idf-65-"), "{named}");
    assert!(index.join(".tantivy-dedup-shingle-weights.bin").is_file());
    assert_eq!(
        settings(&index)["version"],
        tantivy_dedup::matching::SETTINGS_VERSION
    );
    // Run again, with or without the option: the index keeps its table, and the run
    // decides as the first did (a record is there already, or a duplicate again).
    let first: Vec<_> = lines(&output)
        .iter()
        .map(|l| l["status"] == "duplicate")
        .collect();
    for extra in [&["--idf-from", SAMPLES][..], &[]] {
        let again = ingest(&index, extra);
        assert!(again.status.success(), "{}", stderr(&again));
        let statuses: Vec<_> = lines(&again).iter().map(|l| l["status"].clone()).collect();
        for (duplicate, status) in first.iter().zip(&statuses) {
            assert_eq!(status, if *duplicate { "duplicate" } else { "exists" });
        }
        assert_eq!(settings(&index)["verification"]["weights"], named);
    }
}

#[test]
fn weights_are_refused_where_they_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    // An index made without them cannot take them later.
    let plain = dir.path().join("plain");
    assert!(ingest(&plain, &[]).status.success());
    let refused = ingest(&plain, &["--idf-from", SAMPLES]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("created without shingle weights"),
        "{}",
        stderr(&refused)
    );
    // A missing sample, or no signatures: refused before anything is created.
    for (extra, said) in [
        (&["--idf-from", "no/such/sample.jsonl"][..], "no such file"),
        (
            &["--idf-from", SAMPLES, "--no-verify"][..],
            "cannot be used with",
        ),
        (
            &["--idf-from", SAMPLES, "--score", "containment"][..],
            "containment",
        ),
    ] {
        let index = dir.path().join("new");
        let output = ingest(&index, extra);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{extra:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(said),
            "{extra:?}: {}",
            stderr(&output)
        );
        assert!(!index.join("meta.json").exists(), "{extra:?} made an index");
    }
    // An index whose table is gone says how to mend it.
    let weighted = dir.path().join("weighted");
    assert!(ingest(&weighted, &["--idf-from", SAMPLES]).status.success());
    std::fs::remove_file(weighted.join(".tantivy-dedup-shingle-weights.bin")).unwrap();
    let broken = ingest(&weighted, &[]);
    assert_eq!(broken.status.code(), Some(2), "{}", stderr(&broken));
    assert!(
        stderr(&broken).contains("--idf-from SAMPLE"),
        "{}",
        stderr(&broken)
    );
}
