//! `tantivy-dedup ingest`, `search`, `clusters` and `stats` end to end: the report format,
//! resumed runs, every input kind, bad input, exit codes and messages.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;
use support::cli::{lines, run, run_in, stderr};

fn ingest(index: &Path, extra: &[&str], stdin: &[u8]) -> std::process::Output {
    let index = index.to_str().unwrap();
    let mut args = vec!["ingest", "--index", index, "--report", "-"];
    args.extend_from_slice(extra);
    run(&args, stdin)
}

/// The sample corpus shipped in the repository, named as an input: a test's standard input
/// is a pipe, which `ingest` without inputs reads.
const SAMPLES: &str = "samples/corpus.jsonl";

/// `ingest` of the sample corpus into `index`, with `extra` options.
fn ingest_samples(index: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = extra.to_vec();
    args.push(SAMPLES);
    ingest(index, &args, b"")
}

fn by_id(report: &[Value]) -> HashMap<String, Value> {
    report
        .iter()
        .map(|line| (line["id"].as_str().unwrap().to_owned(), line.clone()))
        .collect()
}

fn json(output: &std::process::Output) -> Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).expect("JSON on standard output")
}

/// `search --index INDEX --json ARGS...`: the page, of a run that must succeed.
fn search_json(index: &str, args: &[&str]) -> Value {
    let mut all = vec!["search", "--index", index, "--json"];
    all.extend_from_slice(args);
    json(&run(&all, b""))
}

#[test]
fn the_sample_corpus_twice_adds_nothing_the_second_time() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let first = ingest_samples(&index, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let report = lines(&first);
    assert_eq!(
        report.len(),
        65,
        "one line per document of samples/corpus.jsonl"
    );
    let statuses = by_id(&report);
    let line = &statuses["en-license-gpl2-nowarranty"];
    assert_eq!(line["status"], "duplicate");
    assert_eq!(line["duplicate_of"], "en-license-gpl1-nowarranty");
    assert!(line["distance"].as_u64().unwrap() <= 3);
    assert_eq!(statuses["en-license-gpl1-nowarranty"]["status"], "added");
    assert!(
        stderr(&first).contains("65 read"),
        "a summary: {}",
        stderr(&first)
    );
    let added = report.iter().filter(|l| l["status"] == "added").count();

    let second = ingest_samples(&index, &[]);
    assert!(second.status.success());
    let again = lines(&second);
    assert_eq!(again.len(), 65);
    assert!(
        again.iter().all(|l| l["status"] != "added"),
        "nothing is added again"
    );
    let exists = again.iter().filter(|l| l["status"] == "exists").count();
    assert_eq!(exists, added, "every indexed document is recognized");

    let stats = json(&run(
        &["stats", "--index", index.to_str().unwrap(), "--json"],
        b"",
    ));
    assert_eq!(stats["num_docs"].as_u64().unwrap() as usize, added);
    assert_eq!(stats["settings"]["distance"], 3);
}

#[test]
fn flagged_documents_form_the_clusters_and_search_hides_them() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let output = ingest_samples(&index, &["--policy", "flag"]);
    let report = lines(&output);
    let mut flagged: Vec<(String, String)> = report
        .iter()
        .filter(|l| l["status"] == "duplicate")
        .map(|l| {
            assert_eq!(l["action"], "flagged");
            (
                l["duplicate_of"].as_str().unwrap().to_owned(),
                l["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    flagged.sort();
    assert!(!flagged.is_empty());

    let index = index.to_str().unwrap();
    let clusters = json(&run(&["clusters", "--index", index, "--json"], b""));
    let mut pairs: Vec<(String, String)> = clusters["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|cluster| {
            let ids: Vec<String> = cluster["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|id| id.as_str().unwrap().to_owned())
                .collect();
            let leader = ids[0].clone();
            ids.into_iter().skip(1).map(move |id| (leader.clone(), id))
        })
        .collect();
    pairs.sort();
    // The clusters are formed from the near pairs, not replayed from ingest's decisions:
    // they hold only documents that ingest flagged or flagged others against, and most of
    // those.
    let judged: std::collections::BTreeSet<&String> =
        flagged.iter().flat_map(|(a, b)| [a, b]).collect();
    let clustered: std::collections::BTreeSet<&String> =
        pairs.iter().flat_map(|(a, b)| [a, b]).collect();
    assert!(clustered.is_subset(&judged), "{clustered:?}");
    assert!(clustered.len() * 10 >= judged.len() * 9, "{pairs:?}");

    let stats = json(&run(&["stats", "--index", index, "--json"], b""));
    assert_eq!(stats["flagged"].as_u64().unwrap() as usize, flagged.len());
    assert_eq!(stats["num_docs"], 65);

    let deduped = search_json(index, &["warranty"]);
    let all = search_json(index, &["--no-dedup", "--limit", "100", "warranty"]);
    let shown: Vec<&str> = deduped["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    // Flagged documents take part: none is shown beside its original, and they count
    // among the hidden.
    for (original, copy) in &flagged {
        assert!(
            !(shown.contains(&original.as_str()) && shown.contains(&copy.as_str())),
            "{copy} shown beside its original {original}"
        );
    }
    assert!(deduped["hidden_total"].as_u64().unwrap() > 0, "{deduped}");
    let skipping = search_json(index, &["--skip-flagged", "warranty"]);
    let flagged_ids: Vec<&str> = flagged.iter().map(|(_, id)| id.as_str()).collect();
    let hits = skipping["hits"].as_array().unwrap();
    assert!(
        hits.iter()
            .all(|h| !flagged_ids.contains(&h["id"].as_str().unwrap())),
        "--skip-flagged leaves flagged documents out"
    );
    assert!(
        hits.iter()
            .flat_map(|h| h["hidden"].as_array().unwrap())
            .all(|id| !flagged_ids.contains(&id.as_str().unwrap())),
        "--skip-flagged: nor hidden"
    );
    assert!(all["hits"].as_array().unwrap().len() > shown.len());
    let hit = &deduped["hits"][0];
    assert_eq!(hit["fingerprint"].as_str().unwrap().len(), 16);
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    assert!(hit["title"].as_str().unwrap().contains("WARRANTY"));
    assert!(deduped["hidden_total"].is_u64());
}

#[test]
fn search_hides_near_duplicates_and_pages_are_stable() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    // Ingested at distance 0 without verification, only exact copies are rejected: the
    // near-duplicates are in the index, for the search at distance 8 to hide (license
    // versions differ by whole paragraphs: at 3 the default character 3-grams keep them
    // apart).
    let output = ingest_samples(&index, &["--distance", "0", "--no-verify"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let index = index.to_str().unwrap();
    let page =
        |extra: &[&str]| search_json(index, &[&["--distance", "8"], extra, &["license"]].concat());
    let first = page(&["--limit", "4"]);
    let hidden: usize = first["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hidden"].as_array().unwrap().len())
        .sum();
    assert_eq!(first["hidden_total"].as_u64().unwrap() as usize, hidden);
    assert!(hidden > 0, "license versions hide each other: {first}");
    // Each hidden id again with its distance (at most 8), in the same order; no Jaccard
    // without verification.
    for hit in first["hits"].as_array().unwrap() {
        let ids = hit["hidden"].as_array().unwrap();
        let details = hit["hidden_details"].as_array().unwrap();
        assert_eq!(details.len(), ids.len());
        for (id, detail) in ids.iter().zip(details) {
            assert_eq!(&detail["id"], id);
            assert!(detail["distance"].as_u64().unwrap() <= 8, "{detail}");
            assert!(detail.get("jaccard").is_none(), "{detail}");
        }
    }
    let both = page(&["--limit", "8"]);
    let second = page(&["--limit", "4", "--offset", "4"]);
    let ids = |v: &Value| -> Vec<String> {
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut joined = ids(&first);
    joined.extend(ids(&second));
    assert_eq!(joined, ids(&both), "offset pages join up");
}

#[test]
fn every_input_kind_and_bad_record_gets_one_report_line() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(docs.join("sub")).unwrap();
    std::fs::write(
        docs.join("a.txt"),
        "The river rose during the night and the fields flooded.",
    )
    .unwrap();
    std::fs::write(docs.join("sub/b.html"), "<html><head><title>T</title></head><body><p>A page about tantivy and search engines in Rust.</p></body></html>").unwrap();
    std::fs::write(
        docs.join("bad.txt"),
        b"not \xff\xfe utf-8 (a UTF-16 byte order mark only counts at the start)",
    )
    .unwrap();
    std::fs::write(docs.join("empty.txt"), "  \n").unwrap();
    std::fs::write(
        docs.join("lines.jsonl"),
        "{\"id\":\"j1\",\"text\":\"first line document\",\"title\":\"One\",\"url\":\"http://x/1\",\"tags\":[\"en\"]}\n{truncated\n[1,2]\n{\"id\":\"j2\",\"text\":5}\n{\"body\":\"a line without an id\"}\n",
    )
    .unwrap();
    let index = dir.path().join("index");
    let output = ingest(
        &index,
        &[docs.to_str().unwrap(), "-"],
        b"standard input text document",
    );
    assert_eq!(output.status.code(), Some(1), "errors make the exit code 1");
    let report = lines(&output);
    let statuses: Vec<(String, String)> = report
        .iter()
        .map(|l| {
            let id = l["id"].as_str().unwrap();
            // Standard input's record has its text's digest for id.
            let name = match id.strip_prefix("-:") {
                Some(digest) if digest.len() == 16 => "-:digest".to_owned(),
                _ => id.rsplit('/').next().unwrap().to_owned(),
            };
            (name, l["status"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected = [
        ("a.txt", "added"),
        ("bad.txt", "error"),
        ("empty.txt", "error"),
        ("j1", "added"),
        ("lines.jsonl:2", "error"),
        ("lines.jsonl:3", "error"),
        ("lines.jsonl:4", "error"),
        ("lines.jsonl:5", "added"),
        ("b.html", "added"),
        ("-:digest", "added"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(statuses, expected);
    for line in report.iter().filter(|l| l["status"] == "error") {
        assert!(!line["error"].as_str().unwrap().is_empty());
    }
    let stats = json(&run(
        &["stats", "--index", index.to_str().unwrap(), "--json"],
        b"",
    ));
    assert_eq!(stats["num_docs"], 5);
}

#[test]
fn setup_errors_are_messages_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    assert!(ingest_samples(&index, &[]).status.success());
    let index = index.to_str().unwrap();

    let mismatch = run(&["ingest", "--index", index, "--features", "shingles"], b"");
    assert_eq!(mismatch.status.code(), Some(2));
    assert!(
        stderr(&mismatch).contains("fingerprint.features.kind"),
        "{}",
        stderr(&mismatch)
    );

    let missing = run(&["search", "--index", "no-such-index", "x"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no index at"),
        "{}",
        stderr(&missing)
    );

    let foreign = run(&["stats", "--index", "src"], b"");
    assert_eq!(foreign.status.code(), Some(2));
    assert!(
        stderr(&foreign).contains("not a tantivy index"),
        "{}",
        stderr(&foreign)
    );

    let unknown = run(&["ingest", "--no-such-option"], b"");
    assert_eq!(unknown.status.code(), Some(2));
    let distance = run(&["clusters", "--index", index, "--distance", "65"], b"");
    assert_eq!(distance.status.code(), Some(2));
    let limit = run(&["search", "--index", index, "--limit", "0", "x"], b"");
    assert_eq!(limit.status.code(), Some(2));
    let query = run(&["search", "--index", index, "a AND ("], b"");
    assert_eq!(query.status.code(), Some(2));
    for output in [&mismatch, &missing, &foreign, &distance, &limit, &query] {
        assert!(!stderr(output).contains("panicked"), "{}", stderr(output));
    }
}

#[test]
fn the_default_index_folder_is_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/corpus.jsonl");
    let output = run_in(Some(dir.path()), &["ingest", samples], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(dir.path().join("tantivy-dedup-index/meta.json").is_file());
    let stats = run_in(Some(dir.path()), &["stats"], b"");
    assert!(String::from_utf8_lossy(&stats.stdout).contains("documents"));
}

#[test]
fn two_stage_matching_is_chosen_at_creation_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    let verified = dir.path().join("verified");
    let plain_report = lines(&ingest_samples(&plain, &["--no-verify"]));
    let output = ingest_samples(&verified, &["--verify"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = lines(&output);
    assert_eq!(report.len(), 65);
    let duplicates =
        |report: &[Value]| report.iter().filter(|l| l["status"] == "duplicate").count();
    assert!(
        duplicates(&report) > duplicates(&plain_report),
        "verification finds more: {} against {}",
        duplicates(&report),
        duplicates(&plain_report)
    );
    // The zh_TW man page is a near-duplicate of the zh_CN one; the signatures find pairs
    // beyond 3 bits, which fingerprints alone do not.
    let line = &by_id(&report)["zh-man-echo-1-zh_TW"];
    assert_eq!(line["duplicate_of"], "zh-man-echo-1-zh_CN", "{line}");
    let beyond = report
        .iter()
        .find(|l| l["status"] == "duplicate" && l["distance"].as_u64().unwrap() > 3)
        .expect("a duplicate beyond 3 bits");
    assert!(beyond["similarity"].as_f64().unwrap() >= 0.5, "{beyond}");
    assert!(
        plain_report.iter().all(|l| l.get("similarity").is_none()),
        "no similarity without --verify"
    );

    // The threshold can change at every run; the signatures cannot be added later.
    let stricter = ingest_samples(&verified, &["--threshold", "0.95"]);
    assert!(stricter.status.success(), "{}", stderr(&stricter));
    let refused = ingest_samples(&plain, &["--verify"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("two-stage matching it was created with"),
        "{}",
        stderr(&refused)
    );
    let bad = ingest_samples(&verified, &["--threshold", "1.5"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_threshold_alone_brings_the_bands_its_s_curve_suits() {
    let dir = tempfile::tempdir().unwrap();
    let rows = |name: &str, options: &[&str]| {
        let index = dir.path().join(name);
        let output = ingest_samples(&index, options);
        assert!(output.status.success(), "{}", stderr(&output));
        let stats = run(
            &["stats", "--index", index.to_str().unwrap(), "--json"],
            b"",
        );
        let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
        stats["settings"]["verification"]["candidates"]["rows"].clone()
    };
    assert_eq!(rows("default", &[]), 9);
    assert_eq!(
        rows("low", &["--threshold", "0.2"]),
        2,
        "heavy rewrites: bands of 2"
    );
    assert_eq!(rows("default-threshold", &["--threshold", "0.55"]), 4);
    assert_eq!(
        rows("chosen", &["--threshold", "0.2", "--band-rows", "5"]),
        5
    );
}

#[test]
fn an_empty_document_is_reported_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let output = ingest(
        &dir.path().join("index"),
        &["-"],
        b"{\"id\":\"a\",\"text\":\"some text\"}\n{\"id\":\"blank\",\"text\":\" \\t \"}\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let report = lines(&output);
    assert_eq!(report[1]["status"], "error");
    assert_eq!(report[1]["error"], "empty document at -:2: no text");
}

#[test]
fn a_report_that_cannot_be_written_leaves_no_index_behind() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let report = dir.path().join("missing/report.jsonl");
    let output = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--features",
            "words",
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot create the report file"));
    assert!(
        !index.exists(),
        "no index created with the failed run's options"
    );
}

#[test]
fn every_command_takes_the_fingerprint_options_and_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    assert!(ingest_samples(&index, &[]).status.success());
    let index = index.to_str().unwrap();
    for command in [
        vec!["stats", "--index", index],
        vec!["clusters", "--index", index],
        vec!["search", "--index", index, "warranty"],
    ] {
        let mut agreeing = command.clone();
        agreeing.extend(["--features", "chargrams", "--n", "3"]);
        let output = run(&agreeing, b"");
        assert!(output.status.success(), "{command:?}: {}", stderr(&output));
        let mut other = command.clone();
        other.extend(["--features", "words"]);
        let output = run(&other, b"");
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        assert!(stderr(&output).contains("keeps the fingerprint options"));
    }
}

#[test]
fn a_run_that_cannot_open_the_index_keeps_the_last_report() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let report = dir.path().join("report.jsonl");
    let args = |features: &'static str| {
        vec![
            "ingest".to_owned(),
            "--index".to_owned(),
            index.to_str().unwrap().to_owned(),
            "--report".to_owned(),
            report.to_str().unwrap().to_owned(),
            "--features".to_owned(),
            features.to_owned(),
            SAMPLES.to_owned(),
        ]
    };
    let first: Vec<String> = args("chargrams");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    assert!(run(&first, b"").status.success());
    let written = std::fs::read(&report).unwrap();
    assert!(!written.is_empty());
    let second: Vec<String> = args("words");
    let second: Vec<&str> = second.iter().map(String::as_str).collect();
    assert_eq!(run(&second, b"").status.code(), Some(2));
    assert_eq!(
        std::fs::read(&report).unwrap(),
        written,
        "the report is untouched"
    );
}

#[test]
fn a_record_with_a_known_id_and_new_text_updates_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let first = b"{\"id\":\"page\",\"text\":\"The river rose during the night and by morning the lower fields were under water.\"}\n";
    let output = ingest(&index, &["-"], first);
    assert_eq!(lines(&output)[0]["status"], "added", "{}", stderr(&output));
    // The same record again: exists. New text under the same id: updated.
    assert_eq!(lines(&ingest(&index, &["-"], first))[0]["status"], "exists");
    let second = b"{\"id\":\"page\",\"text\":\"A committee of the city council will publish the new bus timetable on Friday.\"}\n";
    let output = ingest(&index, &["-"], second);
    let report = lines(&output);
    assert_eq!(report[0]["status"], "updated", "{}", stderr(&output));
    assert!(stderr(&output).contains("1 updated"), "{}", stderr(&output));
    assert!(output.status.success());
    let found = search_json(index.to_str().unwrap(), &["timetable"]);
    assert_eq!(found["hits"][0]["id"], "page");
    let gone = search_json(index.to_str().unwrap(), &["river"]);
    assert_eq!(
        gone["hits"].as_array().unwrap().len(),
        0,
        "the old text is gone"
    );
}

/// A tantivy index of the application's own (the sample corpus, with a body field named
/// `text` and a FAST-only field besides), taken over with `ingest --from-index`: the same
/// decisions as ingesting the corpus itself, the source left as it was, the result searchable.
#[test]
fn an_existing_tantivy_index_is_ingested_from_its_stored_fields() {
    use tantivy::doc;
    use tantivy::schema::{Schema, FAST, STORED, STRING, TEXT};
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    std::fs::create_dir(&source).unwrap();
    let mut schema = Schema::builder();
    let id = schema.add_text_field("id", STRING | STORED);
    let title = schema.add_text_field("title", TEXT | STORED);
    let text = schema.add_text_field("text", TEXT | STORED);
    let rank = schema.add_u64_field("rank", FAST);
    let index = tantivy::Index::create_in_dir(&source, schema.build()).unwrap();
    let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 20_000_000).unwrap();
    let corpus =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/corpus.jsonl"))
            .unwrap();
    for (n, line) in corpus.lines().enumerate() {
        let record: Value = serde_json::from_str(line).unwrap();
        writer
            .add_document(doc!(
                id => record["id"].as_str().unwrap(),
                title => record["title"].as_str().unwrap_or_default(),
                text => record["text"].as_str().unwrap(),
                rank => n as u64,
            ))
            .unwrap();
    }
    writer.commit().unwrap();
    drop(writer);
    let meta = std::fs::read(source.join("meta.json")).unwrap();

    let from_files = ingest_samples(&dir.path().join("files"), &[]);
    let taken = ingest(
        &dir.path().join("taken"),
        &[
            "--from-index",
            source.to_str().unwrap(),
            "--id-field",
            "id",
            "--text-field",
            "text",
        ],
        b"",
    );
    assert!(taken.status.success(), "{}", stderr(&taken));
    let decisions = |output: &std::process::Output| -> Vec<(String, String, String)> {
        lines(output)
            .iter()
            .map(|l| {
                let field = |name: &str| l[name].as_str().unwrap_or_default().to_owned();
                (field("id"), field("status"), field("duplicate_of"))
            })
            .collect()
    };
    let decided = decisions(&taken);
    assert_eq!(decided.len(), 65);
    assert_eq!(decided, decisions(&from_files));
    assert!(decided.iter().any(|(_, status, _)| status == "duplicate"));
    assert_eq!(
        std::fs::read(source.join("meta.json")).unwrap(),
        meta,
        "the source is only read"
    );
    let found = search_json(dir.path().join("taken").to_str().unwrap(), &["warranty"]);
    assert!(found["hits"][0]["title"]
        .as_str()
        .unwrap()
        .contains("WARRANTY"));

    // A field that is not stored cannot be read back: a clear error, nothing indexed.
    let unstored = ingest(
        &dir.path().join("bad"),
        &[
            "--from-index",
            source.to_str().unwrap(),
            "--text-field",
            "rank",
        ],
        b"",
    );
    assert!(!unstored.status.success());
    assert!(
        stderr(&unstored).contains("not STORED"),
        "{}",
        stderr(&unstored)
    );
}

/// A `--report` that is an input, inside an input folder or inside the index is refused
/// before anything is read or written: the input keeps its records, the index stays usable.
#[test]
fn a_report_that_would_harm_the_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    let records = "{\"id\":\"a\",\"text\":\"one record\"}\n";
    let input = inputs.join("records.jsonl");
    std::fs::write(&input, records).unwrap();
    let first = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(first.status.success(), "{}", stderr(&first));
    let cases = [
        (input.clone(), input.clone(), "the input"),
        (
            inputs.clone(),
            inputs.join("report.jsonl"),
            "inside the input folder",
        ),
        (
            input.clone(),
            index.join("report.jsonl"),
            "inside the index folder",
        ),
    ];
    for (source, report, said) in cases {
        let output = run(
            &[
                "ingest",
                "--index",
                index.to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
                source.to_str().unwrap(),
            ],
            b"",
        );
        assert!(!output.status.success(), "{said}");
        assert!(
            stderr(&output).contains(said),
            "{said}: {}",
            stderr(&output)
        );
        assert_eq!(std::fs::read_to_string(&input).unwrap(), records, "{said}");
        if report != input {
            assert!(!report.exists(), "{said}: no report file left");
        }
    }
    // Through a relative path and `..` too.
    let output = run_in(
        Some(&inputs),
        &[
            "ingest",
            "--index",
            "../index",
            "--report",
            "../inputs/records.jsonl",
            "records.jsonl",
        ],
        b"",
    );
    assert!(!output.status.success());
    assert_eq!(std::fs::read_to_string(&input).unwrap(), records);
    let stats = json(&run(
        &["stats", "--index", index.to_str().unwrap(), "--json"],
        b"",
    ));
    assert_eq!(
        stats["num_docs"], 1,
        "the index opens and holds its document"
    );
}

/// Offsets past the end are an empty page, not an allocation of the offset's size.
#[test]
fn search_past_the_end_is_an_empty_page() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    assert!(ingest_samples(&index, &[]).status.success());
    let index = index.to_str().unwrap();
    for offset in ["10000000000", "9223372036854775807", "18446744073709551615"] {
        for extra in [&["--no-dedup"][..], &[][..]] {
            let page = search_json(
                index,
                &[&["--offset", offset], extra, &["license"]].concat(),
            );
            assert_eq!(
                page["hits"].as_array().unwrap().len(),
                0,
                "{offset} {extra:?}"
            );
        }
    }
}

/// Ids that cannot identify their record exactly are error lines, never a silent `exists`:
/// integers beyond 64 bits (which serde reads as one float) and ids longer than tantivy
/// indexes a term. The records around them are indexed, and a second run says the same.
#[test]
fn ids_that_cannot_be_kept_exactly_are_error_lines() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let long = "x".repeat(70_000);
    let input = format!(
        "{{\"id\":18446744073709551616,\"text\":\"the first page about rivers\"}}\n\
         {{\"id\":18446744073709551617,\"text\":\"a second page about mountains\"}}\n\
         {{\"id\":\"{long}\",\"text\":\"a third page about the sea\"}}\n\
         {{\"id\":\"ok\",\"text\":\"a fourth page about forests\"}}\n"
    );
    for run_number in 1..=2 {
        let output = ingest(&index, &["-"], input.as_bytes());
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let report = lines(&output);
        let statuses: Vec<&str> = report
            .iter()
            .map(|line| line["status"].as_str().unwrap())
            .collect();
        let last = if run_number == 1 { "added" } else { "exists" };
        assert_eq!(
            statuses,
            ["error", "error", "error", last],
            "run {run_number}"
        );
        assert_eq!(report[2]["id"], "-:3", "the long id is named by its place");
        assert!(
            report[2]["error"].as_str().unwrap().contains("65530"),
            "{}",
            report[2]
        );
    }
}

/// Two files whose names differ only in bytes that are not UTF-8 used to share one lossy id
/// (the second was `exists`, never indexed): each is an error line naming it.
#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_error_lines() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let names: [&[u8]; 2] = [b"page-\xff.txt", b"page-\xfe.txt"];
    for (name, text) in names.iter().zip(["rivers and lakes", "mountains and snow"]) {
        let path = corpus.join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(corpus.join("plain.txt"), "forests and fields").unwrap();
    let index = dir.path().join("index");
    let output = ingest(&index, &[corpus.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = lines(&output);
    let statuses: Vec<&str> = report
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["error", "error", "added"], "{report:?}");
    assert!(report[0]["error"]
        .as_str()
        .unwrap()
        .contains("not valid UTF-8"));
    assert_ne!(
        report[0]["id"], report[1]["id"],
        "each named by its own bytes"
    );
}

/// A document that replaces several names every one it replaced (the report named only the
/// nearest).
#[test]
fn a_replace_names_every_document_it_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let first = "{\"id\":\"a\",\"text\":\"rivers and lakes of the north\"}\n\
                 {\"id\":\"b\",\"text\":\"mountains and snow in winter\"}\n";
    let output = ingest(
        &index,
        &["-", "--distance", "0", "--no-verify"],
        first.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // At distance 64 every document is a near-duplicate of every other.
    let second = "{\"id\":\"c\",\"text\":\"forests and fields in spring\"}\n";
    let output = ingest(
        &index,
        &["-", "--policy", "replace", "--distance", "64"],
        second.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report = lines(&output);
    assert_eq!(report[0]["action"], "replaced");
    let mut replaced: Vec<&str> = report[0]["replaced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    assert_eq!(replaced[0], report[0]["duplicate_of"], "the nearest first");
    replaced.sort_unstable();
    assert_eq!(replaced, ["a", "b"]);
}

/// A finished replace job run again reports every record `exists` and changes nothing
/// (it deleted and added the replaced records again, each run).
#[test]
fn a_replace_job_run_again_is_exists_throughout() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let page = "The council met on Tuesday to discuss the new bridge over the river, the budget \
                for the schools and the timetable of the buses that serve the valley towns.";
    let input: String = ["a", "b", "c"]
        .iter()
        .map(|id| format!("{{\"id\":\"{id}\",\"text\":\"{page}\"}}\n"))
        .collect();
    let replace = ["-", "--policy", "replace"];
    let first = lines(&ingest(&index, &replace, input.as_bytes()));
    let actions: Vec<&str> = first
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["added", "duplicate", "duplicate"], "{first:?}");
    let again = lines(&ingest(&index, &replace, input.as_bytes()));
    let statuses: Vec<&str> = again
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["exists", "exists", "exists"], "{again:?}");
    let search = run(
        &[
            "search",
            "--index",
            index.to_str().unwrap(),
            "--json",
            "bridge",
        ],
        b"",
    );
    let hits = json(&search);
    assert_eq!(hits["hits"][0]["id"], "c", "the last copy stays: {hits}");
}

/// Records of standard input without an id are known by their text: a second piped run of
/// other records adds them (with line numbers for ids, they replaced the first run's), and
/// the same records again are `exists`.
#[test]
fn piped_records_without_ids_are_known_by_their_text() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let first = b"{\"text\":\"The river rose during the night and flooded the fields.\"}\n";
    let second = b"{\"text\":\"A committee will publish the new bus timetable on Friday.\"}\n";
    let plain = b"Plain text from a pipe, about the harvest in the valleys.";
    for (input, status) in [
        (&first[..], "added"),
        (&second[..], "added"),
        (&plain[..], "added"),
        (&first[..], "exists"),
        (&plain[..], "exists"),
    ] {
        let output = ingest(&index, &["-"], input);
        let report = lines(&output);
        assert_eq!(report[0]["status"], status, "{}", stderr(&output));
        assert!(report[0]["id"].as_str().unwrap().starts_with("-:"));
    }
    let stats = json(&run(
        &["stats", "--index", index.to_str().unwrap(), "--json"],
        b"",
    ));
    assert_eq!(stats["num_docs"], 3, "no run lost another's records");
}

/// Many first runs into one new `--index` at once: each one ingests, or finds the index
/// made and another run writing it (tantivy's writer lock, a clean error); the index opens
/// with the records of every run that succeeded. (They shared one staging folder beside the
/// index and removed or renamed each other's half-made index.)
#[test]
fn concurrent_first_runs_create_one_index() {
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("nested").join("index");
        let runs: Vec<std::thread::JoinHandle<std::process::Output>> = (0..8)
            .map(|run_number| {
                let index = index.clone();
                std::thread::spawn(move || {
                    let record = format!(
                        "{{\"id\":\"r{run_number}\",\"text\":\"record {run_number} about \
                         {} and {}\"}}\n",
                        ["rivers", "mountains", "forests", "deserts"][run_number % 4],
                        ["winter", "spring", "summer", "autumn"][run_number / 4 % 4],
                    );
                    ingest(&index, &["-", "--distance", "0"], record.as_bytes())
                })
            })
            .collect();
        let mut succeeded = 0;
        for handle in runs {
            let output = handle.join().unwrap();
            if output.status.success() {
                succeeded += 1;
            } else {
                let message = stderr(&output);
                assert!(message.contains("LockBusy"), "round {round}: {message}");
            }
        }
        assert!(succeeded >= 1, "round {round}");
        let stats = json(&run(
            &["stats", "--index", index.to_str().unwrap(), "--json"],
            b"",
        ));
        assert_eq!(stats["num_docs"], succeeded, "round {round}");
    }
}

/// A creation killed half-way (its marker still there) is finished by the next run; a
/// folder of someone else's files is refused and left as it is; `--index .` works.
#[test]
fn creation_recovers_its_own_leftovers_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    std::fs::create_dir(&index).unwrap();
    std::fs::write(index.join(".tantivy-dedup-creating"), b"").unwrap();
    std::fs::write(index.join("meta.json"), b"{half written").unwrap();
    std::fs::write(index.join("0123.idx"), b"partial segment").unwrap();
    let output = ingest(
        &index,
        &["-"],
        b"{\"id\":\"a\",\"text\":\"after the crash\"}\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !index.join("0123.idx").exists(),
        "the killed creator's file"
    );
    assert!(!index.join(".tantivy-dedup-creating").exists());

    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), b"keep me").unwrap();
    let output = ingest(&theirs, &["-"], b"{\"id\":\"a\",\"text\":\"x y z\"}\n");
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not a tantivy index"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(theirs.join("notes.txt")).unwrap(), b"keep me");

    let here = dir.path().join("here");
    std::fs::create_dir(&here).unwrap();
    let output = run_in(
        Some(&here),
        &["ingest", "--index", ".", "-"],
        b"{\"id\":\"a\",\"text\":\"an index in the current folder\"}\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(here.join("meta.json").is_file());
}

/// Standard input is streamed: records are indexed and committed as they come, while the
/// pipe stays open. SIGTERM (a service manager stopping the run, `timeout`) is handled as
/// Ctrl-C, and ends the run even while the pipe is open and idle: it commits what it took
/// and exits with 130.
#[cfg(unix)]
#[test]
fn standard_input_is_streamed_and_a_stop_ends_an_idle_pipe() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let report = dir.path().join("report.jsonl");
    let (index_arg, report_arg) = (index.to_str().unwrap(), report.to_str().unwrap());
    let args = [
        "ingest",
        "--index",
        index_arg,
        "--commit-every",
        "1",
        "--report",
        report_arg,
        "-",
    ];
    let streams = [Stdio::piped(), Stdio::null(), Stdio::piped()];
    let mut child = support::cli::spawn(None, &args, streams);
    let mut stdin = child.stdin.take().unwrap();
    let reported = |count: usize| {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            let lines = std::fs::read_to_string(&report).unwrap_or_default();
            if lines.lines().count() >= count {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    for (at, record) in [
        "{\"id\":\"a\",\"text\":\"first page about rivers\"}\n",
        "{\"id\":\"b\",\"text\":\"second page about mountains\"}\n",
    ]
    .into_iter()
    .enumerate()
    {
        stdin.write_all(record.as_bytes()).unwrap();
        stdin.flush().unwrap();
        assert!(
            reported(at + 1),
            "record {at} committed while the pipe is open"
        );
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The pipe stays open: the run must end on its own.
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the run still waits on the idle pipe"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    let stats = json(&run(
        &["stats", "--index", index.to_str().unwrap(), "--json"],
        b"",
    ));
    assert_eq!(
        stats["num_docs"], 2,
        "both records read before the signal are kept"
    );
}

/// A record beyond --max-record-mb is an error line, and the records around it are read:
/// one JSON line of 2 MiB in a file, a plain-text file of 2 MiB, under a limit of 1 MiB.
#[test]
fn records_beyond_the_size_limit_are_error_lines() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let big = "word ".repeat(2 << 18);
    let records = format!(
        "{{\"id\":\"a\",\"text\":\"small page one\"}}\n{{\"id\":\"b\",\"text\":\"{big}\"}}\n\
         {{\"id\":\"c\",\"text\":\"small page three about other things\"}}\n"
    );
    let jsonl = dir.path().join("pages.jsonl");
    std::fs::write(&jsonl, records).unwrap();
    let text = dir.path().join("big.txt");
    std::fs::write(&text, &big).unwrap();
    let output = ingest(
        &index,
        &[
            "--max-record-mb",
            "1",
            jsonl.to_str().unwrap(),
            text.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = by_id(&lines(&output));
    assert_eq!(report["a"]["status"], "added");
    assert_eq!(report["c"]["status"], "added");
    let jsonl_place = format!("{}:2", jsonl.display());
    assert_eq!(report[&jsonl_place]["status"], "error");
    let reason = report[&jsonl_place]["error"].as_str().unwrap();
    assert!(
        reason.contains("more than a record may have (1 MiB)"),
        "{reason}"
    );
    let text_place = text.display().to_string();
    assert_eq!(report[&text_place]["status"], "error");
    assert!(report[&text_place]["error"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{} bytes", big.len())));
}

/// The metadata files tantivy renames into place at every commit (0600) get the segment
/// files' permissions, so that whoever can read the segments can open the index.
#[cfg(unix)]
#[test]
fn metadata_files_are_as_readable_as_the_segments() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    assert!(ingest_samples(&index, &["--commit-every", "10"])
        .status
        .success());
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode();
    let segment = std::fs::read_dir(&index)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    for name in ["meta.json", ".managed.json", ".tantivy-dedup.json"] {
        assert_eq!(
            mode(&index.join(name)) & 0o777,
            mode(&segment) & 0o777,
            "{name}"
        );
    }
}

/// A damaged index file makes tantivy panic deep in its readers: each command ends with one
/// clear error and exit code 2 instead of a panic's dump.
#[test]
fn a_damaged_index_file_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dir.path().join("pristine");
    assert!(ingest_samples(&pristine, &[]).status.success());
    let mut internal_errors = 0;
    for tenth in 50..100 {
        let damaged = dir.path().join(format!("damaged-{tenth}"));
        std::fs::create_dir(&damaged).unwrap();
        for entry in std::fs::read_dir(&pristine).unwrap() {
            let path = entry.unwrap().path();
            let mut bytes = std::fs::read(&path).unwrap();
            if path.extension().is_some_and(|e| e == "fast") {
                let start = bytes.len() * tenth / 100;
                let end = bytes.len().min(start + 64);
                bytes[start..end].iter_mut().for_each(|b| *b ^= 0x5A);
            }
            std::fs::write(damaged.join(path.file_name().unwrap()), bytes).unwrap();
        }
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"))
            .args(["clusters", "--index", damaged.to_str().unwrap()])
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(!message.contains("panicked"), "{tenth}: {message}");
        match output.status.code() {
            Some(0) => {}
            Some(2) if message.contains("internal error") => {
                assert!(message.contains("damaged index file"), "{message}");
                assert_eq!(message.lines().count(), 1, "one line: {message}");
                internal_errors += 1;
            }
            Some(2) => {}
            other => panic!("{tenth}: exit {other:?}: {message}"),
        }
    }
    assert!(internal_errors > 0, "some damage reaches tantivy's panics");
}

#[test]
fn score_containment_rejects_an_article_embedded_in_a_page() {
    let article: Vec<String> = (0..250)
        .map(|i| format!("a{}", i * 7919 % 20_000))
        .collect();
    let other: Vec<String> = (0..900)
        .map(|i| format!("b{}", i * 104_729 % 20_000))
        .collect();
    let article = article.join(" ");
    let page = format!(
        "{} {article} {}",
        other[..300].join(" "),
        other[300..].join(" ")
    );
    let stdin = format!(
        "{}\n{}\n",
        serde_json::json!({"id": "article", "text": article}),
        serde_json::json!({"id": "page", "text": page}),
    );
    let dir = tempfile::tempdir().unwrap();
    let status = |name: &str, options: &[&str]| {
        let output = ingest(
            &dir.path().join(name),
            &["-"].iter().chain(options).copied().collect::<Vec<_>>(),
            stdin.as_bytes(),
        );
        assert!(output.status.success(), "{}", stderr(&output));
        by_id(&lines(&output))["page"]["status"].clone()
    };
    assert_eq!(status("jaccard", &[]), "added");
    assert_eq!(
        status(
            "containment",
            &["--score", "containment", "--threshold", "0.7"]
        ),
        "duplicate"
    );
    let stats = run(
        &[
            "stats",
            "--index",
            dir.path().join("containment").to_str().unwrap(),
            "--json",
        ],
        b"",
    );
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let verification = &stats["settings"]["verification"];
    assert_eq!(verification["score"]["kind"], "containment");
    assert_eq!(verification["candidate_distance"], 64);
    assert_eq!(verification["candidates"]["rows"], 2);
    assert_eq!(verification["kept_bits"], "high");
}

#[test]
fn several_indexes_are_searched_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let record = |id: String, text: &str| format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n");
    // Lengths differ, and with them scores: no ties, whose order would depend on how the
    // reference index spread its documents over segments.
    let text = |n: u64| {
        format!(
            "topic {}",
            support::index::random_text(n, 40 + 3 * n as usize)
        )
    };
    // Shard 0 holds pages 0..12; shard 1 pages 12..20 and copies of pages 0..6 (a word
    // longer), crawled by another node. One index holding everything, copies flagged, is
    // the reference.
    let mut shard0 = String::new();
    let mut shard1 = String::new();
    for n in 0..12 {
        shard0.push_str(&record(format!("page{n}"), &text(n)));
    }
    for n in 12..20 {
        shard1.push_str(&record(format!("page{n}"), &text(n)));
    }
    for n in 0..6 {
        shard1.push_str(&record(format!("copy{n}"), &format!("{} copied", text(n))));
    }
    let paths: Vec<_> = ["a", "b", "all"]
        .iter()
        .map(|n| dir.path().join(n))
        .collect();
    for (path, records, extra) in [
        (&paths[0], shard0.clone(), &[][..]),
        (&paths[1], shard1.clone(), &[][..]),
        (&paths[2], shard0 + &shard1, &["--policy", "flag"][..]),
    ] {
        let output = ingest(path, &[&["-"], extra].concat(), records.as_bytes());
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let [a, b, all] = [0, 1, 2].map(|i| paths[i].to_str().unwrap());
    let sharded = |extra: &[&str]| {
        let mut args = vec!["search", "--index", a, "--index", b, "--json"];
        args.extend_from_slice(extra);
        json(&run(&args, b""))
    };
    let ids = |page: &Value| -> Vec<(String, Vec<String>)> {
        (page["hits"].as_array().unwrap().iter())
            .map(|hit| {
                let hidden = hit["hidden"].as_array().unwrap();
                let hidden = hidden.iter().map(|h| h.as_str().unwrap().to_owned());
                (hit["id"].as_str().unwrap().to_owned(), hidden.collect())
            })
            .collect()
    };
    let page = sharded(&["--limit", "30", "topic"]);
    // Each original shown, from the first index, hiding its copy from the second (equal
    // scores rank the first index first); the other pages shown.
    let mut expected: Vec<(String, Vec<String>)> = (0..20)
        .map(|n| {
            (
                format!("page{n}"),
                (n < 6).then(|| format!("copy{n}")).into_iter().collect(),
            )
        })
        .collect();
    let mut got = ids(&page);
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "{page}");
    // Offset pages join up.
    let later = sharded(&["--limit", "5", "--offset", "4", "topic"]);
    assert_eq!(ids(&later), ids(&page)[4..9].to_vec());
    // Scores are those of one index holding every document (statistics summed).
    let scores = |page: &Value| -> HashMap<String, f64> {
        (page["hits"].as_array().unwrap().iter())
            .map(|hit| {
                (
                    hit["id"].as_str().unwrap().to_owned(),
                    hit["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let one = scores(&search_json(all, &["--limit", "30", "--no-dedup", "topic"]));
    assert_eq!(one.len(), 26);
    for (id, score) in scores(&page) {
        assert_eq!(one[&id], score, "{id}");
    }
    assert_eq!(page["hits"].as_array().unwrap().len(), 20, "{page}");
    assert_eq!(page["hidden_total"], 6, "{page}");
    for hit in page["hits"].as_array().unwrap() {
        let page_number: u64 = hit["id"].as_str().unwrap()[4..].parse().unwrap();
        let expected = if page_number < 12 { 0 } else { 1 };
        assert_eq!(hit["index"], expected, "{hit}");
        for detail in hit["hidden_details"].as_array().unwrap() {
            assert_eq!(
                detail["index"], 1,
                "the copies are in the second index: {detail}"
            );
        }
    }
    // Without deduplication: every hit, from both, ranked as one.
    let plain = sharded(&["--limit", "30", "--no-dedup", "topic"]);
    assert_eq!(plain["hits"].as_array().unwrap().len(), 26, "{plain}");
    // The text form names each hit's index.
    let output = run(
        &[
            "search", "--index", a, "--index", b, "--limit", "30", "topic",
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("[0] page0 ") && text.contains("[1] page12 "),
        "{text}"
    );
    // Indexes of other settings are refused, naming what differs.
    let other = dir.path().join("other");
    let output = ingest(
        &other,
        &["--no-verify", "-"],
        record("x".into(), "topic x").as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let other = other.to_str().unwrap();
    let refused = run(&["search", "--index", a, "--index", other, "topic"], b"");
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("cannot be searched with"),
        "{}",
        stderr(&refused)
    );
}

/// `ingest` of standard input as `stdin` gives it, without naming `-`: its report on
/// standard output.
fn ingest_unnamed(index: &Path, stdin: Stdio) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"))
        .args([
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--report",
            "-",
        ])
        .stdin(stdin)
        .output()
        .unwrap()
}

/// Without inputs, `ingest` reads standard input when it is not a terminal: records piped
/// in by another process, nothing from `/dev/null` or a closed one; never the sample corpus.
#[test]
fn without_inputs_a_piped_or_empty_standard_input_is_read_never_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("mine.jsonl");
    std::fs::write(
        &records,
        "{\"id\":\"mine-1\",\"text\":\"the first of my own records\"}\n\
         {\"id\":\"mine-2\",\"text\":\"another record, about something else entirely\"}\n",
    )
    .unwrap();
    // `cat mine.jsonl | tantivy-dedup ingest`
    let mut cat = Command::new("cat")
        .arg(&records)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let index = dir.path().join("piped");
    let output = ingest_unnamed(&index, Stdio::from(cat.stdout.take().unwrap()));
    assert!(cat.wait().unwrap().success());
    assert!(output.status.success(), "{}", stderr(&output));
    let ids: Vec<Value> = lines(&output).iter().map(|l| l["id"].clone()).collect();
    assert_eq!(ids, ["mine-1", "mine-2"], "{}", stderr(&output));

    // `tantivy-dedup ingest < /dev/null`, and with standard input closed (`<&-`).
    let null = dir.path().join("null");
    let output = ingest_unnamed(&null, Stdio::null());
    let closed = dir.path().join("closed");
    let closed_output = Command::new("sh")
        .args(["-c", "exec \"$0\" ingest --index \"$1\" --report - <&-"])
        .arg(env!("CARGO_BIN_EXE_tantivy-dedup"))
        .arg(&closed)
        .output()
        .unwrap();
    for (index, output) in [(&null, &output), (&closed, &closed_output)] {
        assert!(output.status.success(), "{}", stderr(output));
        assert!(lines(output).is_empty(), "no record, not the samples");
        assert!(stderr(output).contains("0 read"), "{}", stderr(output));
        assert!(
            !stderr(output).contains("sample corpus"),
            "{}",
            stderr(output)
        );
        // Said, with the way to name an input.
        assert!(
            stderr(output).contains("gave no record"),
            "{}",
            stderr(output)
        );
        let stats = json(&run(
            &["stats", "--index", index.to_str().unwrap(), "--json"],
            b"",
        ));
        assert_eq!(stats["num_docs"], 0);
    }
}

/// At a terminal (a pseudo-terminal from `script`), `ingest` without inputs ingests the
/// sample corpus and says so.
#[cfg(target_os = "linux")]
#[test]
fn without_inputs_at_a_terminal_the_samples_go_into_a_new_index_only() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to make a terminal");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let command = format!(
        "'{}' ingest --index '{}'",
        env!("CARGO_BIN_EXE_tantivy-dedup"),
        index.display()
    );
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("sample corpus"), "{said}");
    assert!(said.contains("65 read"), "{said}");
    // Into an index that exists (a user's, perhaps), the samples are refused, whatever the
    // policy: a forgotten input must not replace the user's pages with the samples.
    let again = Command::new("script")
        .args(["-qec", &format!("{command} --policy replace"), "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(2), "{said}");
    assert!(said.contains("name files, or pipe records in"), "{said}");
}

/// A report file that is the --settings file, or a hard link to it or to an input, is
/// refused before anything is written: the file keeps its bytes, no index is made.
#[test]
fn a_report_file_that_is_the_settings_file_or_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("s.json");
    let kept = "settings the report must not overwrite";
    std::fs::write(&settings, kept).unwrap();
    let linked = dir.path().join("linked.json");
    std::fs::hard_link(&settings, &linked).unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, "{\"id\":\"a\",\"text\":\"one\"}\n").unwrap();
    let input_link = dir.path().join("in-link.jsonl");
    std::fs::hard_link(&input, &input_link).unwrap();
    let index = dir.path().join("index");
    let (settings, linked, input, input_link) = (
        settings.to_str().unwrap(),
        linked.to_str().unwrap(),
        input.to_str().unwrap(),
        input_link.to_str().unwrap(),
    );
    let cases: [(&[&str], &str); 3] = [
        (
            &["--report", settings, "--settings", settings, input],
            "the settings file",
        ),
        (
            &["--report", linked, "--settings", settings, input],
            "the settings file",
        ),
        (&["--report", input_link, input], "is the input"),
    ];
    for (args, said) in cases {
        let mut all = vec!["ingest", "--index", index.to_str().unwrap()];
        all.extend_from_slice(args);
        let output = run(&all, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(said),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!index.exists(), "{args:?}: no index made");
    }
    assert_eq!(std::fs::read_to_string(settings).unwrap(), kept);
    assert_eq!(
        std::fs::read_to_string(input).unwrap(),
        "{\"id\":\"a\",\"text\":\"one\"}\n"
    );
}

/// A settings file that is no small regular file (`/dev/zero`, a FIFO) or that names an IDF
/// source there is not is refused at once, before an index is made.
#[test]
fn settings_files_are_checked_whole_before_an_index_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings: Value =
        serde_json::from_str(&tantivy_dedup::matching::MatchingSettings::default().to_json())
            .unwrap();
    settings["fingerprint"]["idf"] = "bogus".into();
    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, settings.to_string()).unwrap();
    settings["fingerprint"]["weighting"] = "tf-idf".into();
    let weighted = dir.path().join("weighted.json");
    std::fs::write(&weighted, settings.to_string()).unwrap();
    let fifo = dir.path().join("fifo");
    let fifo_made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut cases = vec![
        (bogus, "fingerprint.idf"),
        (weighted, "fingerprint.idf"),
        ("/dev/zero".into(), "not a regular file"),
    ];
    if fifo_made {
        cases.push((fifo, "not a regular file"));
    }
    for (file, said) in cases {
        let index = dir.path().join("index");
        let started = std::time::Instant::now();
        let output = ingest(
            &index,
            &["--settings", file.to_str().unwrap(), SAMPLES],
            b"",
        );
        assert_eq!(output.status.code(), Some(2), "{}", file.display());
        assert!(
            stderr(&output).contains(said),
            "{}: {}",
            file.display(),
            stderr(&output)
        );
        assert!(!index.exists(), "{}: no index made", file.display());
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }
}

/// A query tantivy's parser cannot take is an error that says so: one of 10,000 nested
/// parentheses (which overflowed the parser's stack: exit 134, no message) and one that
/// does not parse ("invalid query", not a setting).
#[test]
fn queries_too_deep_or_malformed_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    assert!(ingest_samples(&index, &[]).status.success());
    let deep = format!("{}warranty{}", "(".repeat(10_000), ")".repeat(10_000));
    let output = run(&["search", "--index", index.to_str().unwrap(), &deep], b"");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("parentheses nested 10000 deep"),
        "{}",
        stderr(&output)
    );
    let nested = format!("{}warranty{}", "(".repeat(20), ")".repeat(20));
    let output = run(
        &["search", "--index", index.to_str().unwrap(), &nested],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let output = run(
        &["search", "--index", index.to_str().unwrap(), "a AND ("],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid query: "),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("setting"), "{}", stderr(&output));
}

/// Messages for people at a command line: an empty folder has no index (and `ingest`
/// makes one), a tantivy index of another program is taken in with `--from-index`; no
/// library call is named.
#[test]
fn setup_messages_name_commands_not_library_calls() {
    use tantivy::schema::{Schema, STORED, TEXT};
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    let output = run(&["search", "--index", empty, "x"], b"");
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(said.contains("no index in"), "{said}");
    assert!(
        said.contains(&format!("tantivy-dedup ingest --index {empty}")),
        "{said}"
    );
    assert!(!said.contains("choose an empty"), "{said}");

    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    let mut schema = Schema::builder();
    schema.add_text_field("body", TEXT | STORED);
    tantivy::Index::create_in_dir(&foreign, schema.build()).unwrap();
    let output = run(&["stats", "--index", foreign.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(said.contains("not one made by tantivy-dedup"), "{said}");
    assert!(said.contains("--from-index"), "{said}");
    assert!(!said.contains("DedupIndex"), "{said}");
}

/// Shards searched together need one rule, and each folder once: the hits must not
/// depend on the order of the folders, nor count one folder twice.
#[test]
fn shards_of_other_rules_or_one_folder_twice_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let near = dir.path().join("near");
    let far = dir.path().join("far");
    assert!(ingest_samples(&near, &["--distance", "3"]).status.success());
    assert!(ingest_samples(&far, &["--distance", "5"]).status.success());
    let (near, far) = (near.to_str().unwrap(), far.to_str().unwrap());
    for (a, b) in [(near, far), (far, near)] {
        let output = run(&["search", "--index", a, "--index", b, "warranty"], b"");
        assert_eq!(output.status.code(), Some(2));
        let said = stderr(&output);
        assert!(
            said.contains(&format!("{a} was made with --distance")),
            "{said}"
        );
        assert!(said.contains(&format!("{b} with --distance")), "{said}");
    }
    let one = run(
        &[
            "search",
            "--index",
            near,
            "--index",
            far,
            "--distance",
            "4",
            "warranty",
        ],
        b"",
    );
    assert!(one.status.success(), "{}", stderr(&one));
    let again = format!("{near}/.");
    let output = run(
        &["search", "--index", near, "--index", &again, "warranty"],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("given twice"),
        "{}",
        stderr(&output)
    );
}
