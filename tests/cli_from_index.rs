//! `tantivy-dedup ingest --from-index`: every document of the source ends as one report
//! line, and what the source knows of replaced versions comes along.

mod support;

use std::path::Path;

use serde_json::Value;
use support::cli::{lines, run, stderr};
use tantivy::schema::{Schema, STORED, STRING, TEXT};
use tantivy::TantivyDocument;

/// `ingest --index INDEX --report - ARGS...`.
fn ingest(index: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut all = vec![
        "ingest",
        "--index",
        index.to_str().unwrap(),
        "--report",
        "-",
    ];
    all.extend_from_slice(args);
    run(&all, stdin)
}

/// The report's `(id, status)` pairs.
fn statuses(output: &std::process::Output) -> Vec<(String, String)> {
    lines(output)
        .iter()
        .map(|line| {
            let field = |name: &str| line[name].as_str().unwrap_or_default().to_owned();
            (field("id"), field("status"))
        })
        .collect()
}

/// A plain tantivy index in `dir` (fields `id` and `text`, stored), a segment per slice of
/// `(id, text)` documents (`None`: no id).
fn source(dir: &Path, segments: &[&[(Option<&str>, &str)]]) {
    std::fs::create_dir(dir).unwrap();
    let mut schema = Schema::builder();
    schema.add_text_field("id", STRING | STORED);
    schema.add_text_field("text", TEXT | STORED);
    tantivy::Index::create_in_dir(dir, schema.build()).unwrap();
    for documents in segments {
        add_segment(dir, documents);
    }
}

/// Adds a segment of `(id, text)` documents to the index of [`source`] in `dir`.
fn add_segment(dir: &Path, documents: &[(Option<&str>, &str)]) {
    let index = tantivy::Index::open_in_dir(dir).unwrap();
    let schema = index.schema();
    let (id, text) = (
        schema.get_field("id").unwrap(),
        schema.get_field("text").unwrap(),
    );
    let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 20_000_000).unwrap();
    writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
    for &(key, body) in documents {
        let mut document = TantivyDocument::new();
        if let Some(key) = key {
            document.add_text(id, key);
        }
        document.add_text(text, body);
        writer.add_document(document).unwrap();
    }
    writer.commit().unwrap();
}

/// A text of `words` distinct words, the `changed`th replaced.
fn text(words: usize, changed: Option<usize>) -> String {
    (0..words)
        .map(|n| match changed {
            Some(at) if at == n => "changed".to_owned(),
            _ => format!("word{n}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const REPLACE: [&str; 3] = ["--policy", "replace", "-"];

/// A JSON line of `id` and `text`.
fn line(id: &str, text: &str) -> String {
    format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n")
}

/// Runs a replace job of `v1` then its near-duplicate `v2` (which replaces it) into `prod`
/// in `dir`, then rebuilds `prod` into `rebuilt` with --from-index; returns the job and
/// the rebuilt index.
fn rebuilt_after_replace(dir: &Path) -> (String, std::path::PathBuf) {
    let prod = dir.join("prod");
    let job = line("v1", &text(300, None)) + &line("v2", &text(300, Some(150)));
    let output = ingest(&prod, &REPLACE, job.as_bytes());
    assert_eq!(
        statuses(&output),
        [
            ("v1".into(), "added".into()),
            ("v2".into(), "duplicate".into())
        ],
        "{}",
        stderr(&output)
    );
    let rebuilt = dir.join("rebuilt");
    let prod_arg = prod.to_str().unwrap();
    let output = ingest(
        &rebuilt,
        &["--from-index", prod_arg, "--id-field", "id"],
        b"",
    );
    assert_eq!(statuses(&output), [("v2".into(), "added".into())]);
    (job, rebuilt)
}

/// `job` run on `index` reports every record `exists`.
fn assert_all_exist(index: &Path, job: &str) {
    let again = ingest(index, &REPLACE, job.as_bytes());
    assert_eq!(
        statuses(&again),
        [
            ("v1".into(), "exists".into()),
            ("v2".into(), "exists".into())
        ],
        "{}",
        stderr(&again)
    );
}

/// A replace job run again on an index rebuilt with --from-index finds the versions the
/// source's documents replaced: `exists`, not added back over their successors.
#[test]
fn the_records_of_replaced_versions_come_along() {
    let dir = tempfile::tempdir().unwrap();
    let (job, rebuilt) = rebuilt_after_replace(dir.path());
    assert_all_exist(&rebuilt, &job);
}

/// The replaced versions' texts come along too: when the document holding one changes in
/// the rebuilt index to a text that no longer covers it, it comes back as a document, as it
/// would have in the source (not reported lost).
#[test]
fn the_texts_of_replaced_versions_come_back_after_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let (_, rebuilt) = rebuilt_after_replace(dir.path());
    let other: Vec<String> = (0..300).map(|n| format!("other{n}")).collect();
    let changed = line("v2", &other.join(" "));
    let report = lines(&ingest(&rebuilt, &REPLACE, changed.as_bytes()));
    let v1: Vec<_> = report.iter().filter(|line| line["id"] == "v1").collect();
    assert_eq!(v1.len(), 1, "{report:?}");
    assert_eq!(v1[0]["status"], "added", "{report:?}");
    assert_eq!(v1[0]["rejudged_after"], "v2", "{report:?}");
    assert_all_exist(&rebuilt, &(line("v1", &text(300, None)) + &changed));
}

/// Empty and repeated ids of the source are error lines naming their place; the other
/// documents are ingested.
#[test]
fn empty_and_repeated_ids_are_error_lines_not_merged() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("source");
    source(
        &src,
        &[&[
            (Some("a"), "the first document, about rivers"),
            (
                Some("a"),
                "a second document with the same id, about mountains",
            ),
            (Some(""), "a third document with an empty id, about forests"),
            (None, "a fourth document without an id, about deserts"),
            (Some("b"), "the last document, about oceans and their tides"),
        ]],
    );
    let index = dir.path().join("index");
    let src_arg = src.to_str().unwrap();
    let output = ingest(&index, &["--from-index", src_arg, "--id-field", "id"], b"");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = lines(&output);
    let status: Vec<&str> = report
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["added", "error", "error", "error", "added"]);
    assert_eq!(report[1]["id"], format!("{src_arg}:2"));
    let repeated = report[1]["error"].as_str().unwrap();
    assert!(repeated.contains(&format!("{src_arg}:1")), "{repeated}");
    assert_eq!(report[2]["id"], format!("{src_arg}:3"));
    assert!(report[2]["error"].as_str().unwrap().contains("no id"));
    assert_eq!(report[3]["id"], format!("{src_arg}:4"));
    assert_eq!(report[4]["id"], "b");
}

/// A stored document over --max-record-mb is an error line, not read; a damaged block of
/// one segment is error lines naming the segment, and the other segments are read.
#[test]
fn large_and_unreadable_stored_documents_are_error_lines() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("source");
    let large = "word ".repeat(300_000); // 1.5 MB
    let damaged: Vec<(String, String)> = (0..200)
        .map(|n| {
            (
                format!("d{n}"),
                format!("document {n}: {}", text(40, Some(n % 40))),
            )
        })
        .collect();
    let damaged: Vec<(Option<&str>, &str)> = (damaged.iter())
        .map(|(id, text)| (Some(id.as_str()), text.as_str()))
        .collect();
    // The segment to damage first, alone: its store is the only one.
    source(&src, &[&damaged]);
    let store = std::fs::read_dir(&src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "store"))
        .unwrap();
    add_segment(
        &src,
        &[(Some("large"), &large), (Some("small"), "a small document")],
    );
    let index = dir.path().join("index");
    let src_arg = src.to_str().unwrap();
    let output = ingest(
        &index,
        &[
            "--from-index",
            src_arg,
            "--id-field",
            "id",
            "--max-record-mb",
            "1",
        ],
        b"",
    );
    let report = lines(&output);
    assert_eq!(report.len(), 202, "{}", stderr(&output));
    let status = |report: &[Value], id: &str| {
        let line = report.iter().find(|l| l["id"] == id);
        line.map(|l| l["status"].as_str().unwrap().to_owned())
    };
    let errors: Vec<&str> = (report.iter())
        .filter_map(|l| l["error"].as_str())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("--max-record-mb"), "{}", errors[0]);
    assert_eq!(status(&report, "small").as_deref(), Some("added"));

    // The first segment's store damaged in its blocks.
    let mut bytes = std::fs::read(&store).unwrap();
    for byte in &mut bytes[..64] {
        *byte = 0xFF;
    }
    std::fs::write(&store, bytes).unwrap();
    let index = dir.path().join("after-damage");
    let output = ingest(&index, &["--from-index", src_arg, "--id-field", "id"], b"");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = lines(&output);
    assert_eq!(
        report.len(),
        202,
        "one line per document: {}",
        stderr(&output)
    );
    let unreadable: Vec<&Value> = report.iter().filter(|l| l["status"] == "error").collect();
    assert!(!unreadable.is_empty());
    for line in unreadable {
        let reason = line["error"].as_str().unwrap();
        assert!(
            reason.contains("cannot read the stored document (segment "),
            "{reason}"
        );
    }
    for id in ["large", "small"] {
        assert_eq!(
            status(&report, id).as_deref(),
            Some("added"),
            "the other segment is read"
        );
    }
}

/// A run refused for its source's fields leaves no index behind, which a corrected run
/// would take with the refused run's options.
#[test]
fn a_refused_run_leaves_no_index() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("source");
    source(&src, &[&[(Some("a"), "one document")]]);
    let index = dir.path().join("index");
    let src_arg = src.to_str().unwrap();
    let output = ingest(
        &index,
        &[
            "--from-index",
            src_arg,
            "--text-field",
            "txet",
            "--features",
            "words",
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no field \"txet\""),
        "{}",
        stderr(&output)
    );
    assert!(!index.exists(), "no index made");
}
