//! `tantivy-dedup ingest` killed with SIGKILL at a random moment, in several rounds over one
//! corpus with planted near-duplicates: after each kill the index opens, every document the
//! report called committed is in it, and no rejected document names an original that is not;
//! running the same command again gives exactly the index of a run never interrupted.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::Value as _;
use tantivy::{Index, TantivyDocument};

/// 400 originals of 40 words from a 400-word vocabulary, each followed later by a copy that
/// differs in case and punctuation only (a near-duplicate at any distance) and one with its
/// last word changed.
fn corpus_text() -> String {
    let vocabulary: Vec<String> = (0..400)
        .map(|i| format!("w{i}x{}", i * 7919 % 1000))
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let originals: Vec<Vec<String>> = (0..400)
        .map(|_| {
            (0..40)
                .map(|_| vocabulary[(next() % 400) as usize].clone())
                .collect()
        })
        .collect();
    let mut lines = Vec::new();
    for (i, words) in originals.iter().enumerate() {
        lines.push((format!("o{i}"), words.join(" ")));
        if i >= 3 {
            let earlier = &originals[i - 3];
            lines.push((
                format!("o{}-shouted", i - 3),
                earlier.join(", ").to_uppercase(),
            ));
            let mut edited = earlier.clone();
            edited[39] = "changed".to_owned();
            lines.push((format!("o{}-edited", i - 3), edited.join(" ")));
        }
    }
    lines
        .iter()
        .map(|(id, text)| serde_json::json!({"id": id, "text": text}).to_string() + "\n")
        .collect()
}

fn ingest(index: &Path, report: &Path, corpus: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"));
    command
        .args(["ingest", "--commit-every", "40", "--index"])
        .arg(index)
        .arg("--report")
        .arg(report)
        .arg(corpus)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// The ids of the documents in the index at `dir`, through tantivy alone.
fn indexed_ids(dir: &Path) -> BTreeSet<String> {
    let index = Index::open_in_dir(dir).expect("the index opens");
    let searcher = index.reader().unwrap().searcher();
    let id = index.schema().get_field("id").unwrap();
    searcher
        .search(&AllQuery, &DocSetCollector)
        .unwrap()
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            doc.get_first(id).unwrap().as_str().unwrap().to_owned()
        })
        .collect()
}

fn report_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        // A kill can cut the last line short: it was never promised.
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[test]
fn killed_runs_lose_nothing_and_resume_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    std::fs::write(&corpus, corpus_text()).unwrap();

    let reference = dir.path().join("reference");
    let started_reference = Instant::now();
    let status = ingest(&reference, &dir.path().join("reference.jsonl"), &corpus)
        .status()
        .unwrap();
    assert!(status.success());
    let expected = indexed_ids(&reference);
    // Each original is in and each case-and-punctuation copy rejected; a copy with its last
    // word changed lands either side of the default distance.
    assert!((0..400).all(|i| expected.contains(&format!("o{i}"))));
    assert!(!expected.iter().any(|id| id.ends_with("-shouted")));

    let reference_time = started_reference.elapsed();
    let started = Instant::now();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut kills = 0;
    for round in 0..6 {
        // A fresh index each round, killed once somewhere in its run, then resumed.
        let index = dir.path().join(format!("index-{round}"));
        let report = dir.path().join(format!("round-{round}.jsonl"));
        let mut child = ingest(&index, &report, &corpus).spawn().unwrap();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Somewhere in the first 90% of an uninterrupted run.
        let at = reference_time.mul_f64((state % 900) as f64 / 1000.0);
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
        if index.join("meta.json").exists() {
            let present = indexed_ids(&index);
            for line in report_lines(&report) {
                let id = line["id"].as_str().unwrap();
                match line["status"].as_str().unwrap() {
                    "added" => assert!(present.contains(id), "round {round}: {id} lost"),
                    "duplicate" => {
                        let of = line["duplicate_of"].as_str().unwrap();
                        assert!(
                            present.contains(of),
                            "round {round}: {id} rejected for {of}, which is not in the index"
                        );
                        assert!(!present.contains(id), "round {round}: rejected {id} is in");
                    }
                    other => panic!("round {round}: {id} {other}"),
                }
            }
            assert!(
                present.is_subset(&expected),
                "round {round}: an index no uninterrupted run makes"
            );
        }
        // Running the same command again finishes the job, as an uninterrupted run would.
        let resumed = dir.path().join(format!("resumed-{round}.jsonl"));
        let output = ingest(&index, &resumed, &corpus)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "round {round}: the resumed run failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(indexed_ids(&index), expected, "round {round}");
        for line in report_lines(&resumed) {
            assert_ne!(line["status"], "error", "round {round}: {line}");
        }
    }
    assert!(
        kills >= 4,
        "only {kills} of 6 runs were killed before finishing"
    );
    eprintln!(
        "{kills} kills in 6 rounds, {:.1} s (an uninterrupted run: {:.1} s)",
        started.elapsed().as_secs_f64(),
        reference_time.as_secs_f64()
    );
}
