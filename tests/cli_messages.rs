//! Messages of the command line that must say what is wrong and what to do: each case was
//! found saying something else (a misleading option, a cap read as a count, a whole query
//! echoed, serde's "line 1 column 1" for a byte order mark).

mod support;

use std::path::Path;

use support::cli::{lines, run, stderr};
use tantivy_dedup::matching::MatchingSettings;

const PAGE: &str = "The council met on Monday to discuss the budget for the libraries and parks \
    of the city, and agreed to publish the minutes of the meeting before the end of the month.";

fn ingest(index: &Path, extra: &[&str], input: &Path) -> std::process::Output {
    let mut args = vec![
        "ingest",
        "--index",
        index.to_str().unwrap(),
        "--report",
        "-",
    ];
    args.extend_from_slice(extra);
    args.push(input.to_str().unwrap());
    run(&args, b"")
}

fn records(dir: &Path, name: &str, texts: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let lines: String = (texts.iter().enumerate())
        .map(|(i, text)| {
            format!(
                "{}\n",
                serde_json::json!({"id": format!("r{i}"), "text": text})
            )
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

#[test]
fn a_byte_order_mark_on_a_later_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("joined.jsonl");
    let first = serde_json::json!({"id": "a", "text": PAGE});
    let second = serde_json::json!({"id": "b", "text": "Another page, of another subject."});
    std::fs::write(&path, format!("\u{feff}{first}\n\u{feff}{second}\n")).unwrap();
    let output = ingest(&dir.path().join("index"), &[], &path);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines = lines(&output);
    assert_eq!(
        lines[0]["status"], "added",
        "the first line's mark is skipped"
    );
    let error = lines[1]["error"].as_str().unwrap();
    assert!(error.contains("byte order mark"), "{error}");
}

#[test]
fn a_refused_long_query_is_not_echoed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let input = records(dir.path(), "in.jsonl", &[PAGE]);
    assert!(ingest(&index, &[], &input).status.success());
    let query = format!("{}x{}", "(".repeat(12_000), ")".repeat(12_000));
    let output = run(&["search", "--index", index.to_str().unwrap(), &query], b"");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.len() < 2_000, "{} bytes: {}", said.len(), &said[..300]);
    assert!(said.contains("24001 characters"), "{said}");
}

#[test]
fn weights_from_one_record_are_refused_and_a_full_table_says_it_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let sample = records(dir.path(), "one.jsonl", &[PAGE]);
    let input = records(dir.path(), "in.jsonl", &[PAGE]);
    let index = dir.path().join("index");
    let output = ingest(&index, &["--idf-from", sample.to_str().unwrap()], &input);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("two at least"),
        "{}",
        stderr(&output)
    );
    assert!(!index.join("meta.json").exists(), "nothing created");
}

#[test]
fn a_settings_file_at_odds_with_the_index_is_named_not_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let input = records(dir.path(), "in.jsonl", &[PAGE]);
    assert!(ingest(&index, &[], &input).status.success());
    let settings = dir.path().join("plain.json");
    MatchingSettings::default()
        .verification(None)
        .write(&settings)
        .unwrap();
    let output = ingest(&index, &["--settings", settings.to_str().unwrap()], &input);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("drop --settings"), "{said}");
    assert!(!said.contains("drop --verify"), "{said}");
}

#[test]
fn a_ledger_file_that_is_a_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let copy = PAGE.to_uppercase();
    let input = records(dir.path(), "in.jsonl", &[PAGE, &copy]);
    assert!(ingest(&index, &[], &input).status.success());
    let ledger: Vec<_> = (std::fs::read_dir(&index).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".tantivy-dedup-ledger."))
        .collect();
    assert_eq!(ledger.len(), 1, "{ledger:?}");
    std::fs::remove_file(&ledger[0]).unwrap();
    std::fs::create_dir(&ledger[0]).unwrap();
    let output = ingest(&index, &[], &input);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    let name = ledger[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(said.contains(&name), "{said}");
    assert!(!said.contains("Os {"), "{said}");
}

#[test]
fn no_input_and_an_empty_standard_input_say_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let output = run(&["ingest", "--index", index.to_str().unwrap()], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("standard input gave no record"), "{said}");
    assert!(said.contains("samples/corpus.jsonl"), "{said}");
    // Records piped in: nothing said of it.
    let line = serde_json::json!({"id": "a", "text": PAGE}).to_string();
    let output = run(
        &["ingest", "--index", index.to_str().unwrap()],
        line.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("gave no record"),
        "{}",
        stderr(&output)
    );
}
