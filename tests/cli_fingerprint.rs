//! `tantivy-dedup fingerprint` end to end: inputs, the output format, exit codes, bad input.

mod support;

use support::cli::{lines, run};

#[test]
fn sample_corpus_gets_one_line_per_document() {
    let output = run(&["fingerprint", "samples/corpus.jsonl"], b"");
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines.len(), 65);
    for line in &lines {
        let fingerprint = line["fingerprint"].as_str().unwrap();
        assert_eq!(fingerprint.len(), 16);
        assert!(fingerprint.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    assert_eq!(lines[0]["id"], "en-license-gpl1-nowarranty");
}

#[test]
fn folders_and_plain_text_files_use_their_path_as_id() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("a.txt"), "我爱北京天安门").unwrap();
    std::fs::write(dir.path().join("sub/b.txt"), "我愛北京天安門").unwrap();
    let output = run(&["fingerprint", dir.path().to_str().unwrap()], b"");
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["id"].as_str().unwrap().ends_with("a.txt"));
    assert!(lines[1]["id"].as_str().unwrap().ends_with("sub/b.txt"));
    assert_eq!(
        lines[0]["fingerprint"], lines[1]["fingerprint"],
        "folded scripts agree"
    );
}

#[test]
fn bad_records_are_reported_and_the_rest_goes_on() {
    let input = b"{\"id\":\"a\",\"text\":\"first document\"}\n{broken\n{\"text\":\"\xff\xfe\"}\n{\"id\":\"empty\",\"text\":\" ,. \"}\n{\"id\":\"b\",\"text\":\"last document\"}\n";
    let output = run(&["fingerprint", "-"], input);
    assert_eq!(
        output.status.code(),
        Some(1),
        "record errors give exit code 1"
    );
    let lines = lines(&output);
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["id"], "a");
    assert_eq!(lines[1]["id"], "-:2");
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("malformed JSON"));
    assert!(lines[2]["error"]
        .as_str()
        .unwrap()
        .contains("invalid UTF-8"));
    assert_eq!(lines[3]["fingerprint"], serde_json::Value::Null);
    assert_eq!(lines[4]["id"], "b");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("-:2"));
}

#[test]
fn lossy_utf8_replaces_instead_of_failing() {
    let output = run(&["fingerprint", "--lossy-utf8", "-"], b"plain \xff text");
    assert!(output.status.success());
    assert_eq!(lines(&output)[0]["id"], "-");
}

#[test]
fn missing_files_and_bad_options_are_clear_errors() {
    let output = run(&["fingerprint", "no/such/file.jsonl"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(lines(&output)[0]["error"]
        .as_str()
        .unwrap()
        .contains("cannot open"));
    let output = run(&["fingerprint", "--n", "0", "-"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("1..=16"));
    let output = run(&["fingerprint", "--features", "sentences", "-"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn options_change_the_fingerprint() {
    let text = b"The quick brown fox jumps over the lazy dog near the river bank";
    let a = lines(&run(&["fingerprint", "-"], text));
    let b = lines(&run(
        &["fingerprint", "--features", "chargrams", "--n", "4", "-"],
        text,
    ));
    let c = lines(&run(&["fingerprint", "--seed", "1", "-"], text));
    assert_ne!(a[0]["fingerprint"], b[0]["fingerprint"]);
    assert_ne!(a[0]["fingerprint"], c[0]["fingerprint"]);
}

#[test]
fn no_input_reads_standard_input() {
    let output = run(
        &["fingerprint"],
        b"{\"id\":\"s\",\"text\":\"from standard input\"}\n",
    );
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["id"], "s");
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom.jsonl");
    std::fs::write(&file, b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"first\"}\n").unwrap();
    for output in [
        run(&["fingerprint", file.to_str().unwrap()], b""),
        run(
            &["fingerprint", "-"],
            b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"first\"}\n",
        ),
    ] {
        assert!(output.status.success());
        assert_eq!(lines(&output)[0]["id"], "a");
    }
}

/// Files saved as "Unicode" by Windows editors (UTF-16 with a byte order mark), JSON lines
/// and plain text, from a file or standard input, read as their UTF-8 versions are.
#[test]
fn utf16_with_a_byte_order_mark_reads_as_utf8_does() {
    let dir = tempfile::tempdir().unwrap();
    let lines_utf8 =
        "{\"id\":\"a\",\"text\":\"crème brûlée 和 水\"}\n{\"id\":\"b\",\"text\":\"second\"}\n";
    let utf16 = |text: &str, little: bool| -> Vec<u8> {
        let bom: [u8; 2] = if little { [0xFF, 0xFE] } else { [0xFE, 0xFF] };
        bom.into_iter()
            .chain(text.encode_utf16().flat_map(move |unit| {
                if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                }
            }))
            .collect()
    };
    let plain = dir.path().join("utf8.jsonl");
    std::fs::write(&plain, lines_utf8).unwrap();
    let expected = lines(&run(&["fingerprint", plain.to_str().unwrap()], b""));
    assert_eq!(expected.len(), 2);
    for little in [true, false] {
        let file = dir.path().join(format!("utf16-{little}.jsonl"));
        std::fs::write(&file, utf16(lines_utf8, little)).unwrap();
        let output = run(&["fingerprint", file.to_str().unwrap()], b"");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            lines(&output),
            expected,
            "from a file, little endian {little}"
        );
        let output = run(&["fingerprint", "-"], &utf16(lines_utf8, little));
        assert_eq!(
            lines(&output),
            expected,
            "from standard input, little endian {little}"
        );
    }
    let text = dir.path().join("note.txt");
    std::fs::write(&text, utf16("a plain note", true)).unwrap();
    let utf8_text = dir.path().join("note8.txt");
    std::fs::write(&utf8_text, "a plain note").unwrap();
    let fingerprint = |path: &std::path::Path| {
        lines(&run(&["fingerprint", path.to_str().unwrap()], b""))[0]["fingerprint"].clone()
    };
    assert_eq!(fingerprint(&text), fingerprint(&utf8_text));
}

#[test]
fn folders_skip_hidden_entries_and_index_folders() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a document").unwrap();
    std::fs::write(dir.path().join(".hidden.txt"), "not a document").unwrap();
    let index = dir.path().join("index");
    std::fs::create_dir(&index).unwrap();
    std::fs::write(index.join("meta.json"), "{}").unwrap();
    std::fs::write(index.join(".managed.json"), "[]").unwrap();
    std::fs::write(index.join("segment.idx"), [0xFFu8, 0, 1]).unwrap();
    let output = run(&["fingerprint", dir.path().to_str().unwrap()], b"");
    assert!(
        output.status.success(),
        "an index met in a walk is no failed record"
    );
    let lines = lines(&output);
    assert_eq!(lines.len(), 1, "a.txt only");
    assert!(lines[0]["id"].as_str().unwrap().ends_with("a.txt"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("a tantivy index"));

    // Named on the command line, an index folder is an error; a hidden file is read.
    let named = run(
        &[
            "fingerprint",
            index.to_str().unwrap(),
            dir.path().join(".hidden.txt").to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(named.status.code(), Some(1));
    let named = support::cli::lines(&named);
    assert!(named[0]["error"]
        .as_str()
        .unwrap()
        .contains("a tantivy index"));
    assert!(named[1]["fingerprint"].is_string());
}

/// `eprintln!` panics (exit 101) when standard error is a pipe whose reader has gone; the
/// tool's messages must not. Standard error's read end is closed before the child writes
/// its error lines (were the child faster, the pipe would take the lines and the test would
/// pass without showing anything, never fail wrongly).
#[test]
fn a_closed_standard_error_is_no_panic() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"))
        .args(["fingerprint", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let bad_lines = "{broken\n".repeat(1000);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bad_lines.as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "bad records, no panic");
}

/// In a folder walk: a FIFO is an error line, never read (it hung the run); symbolic links
/// are skipped with a note, or with `--follow-links` followed with every folder read once
/// (a `self -> .` link read every file 41 times).
#[cfg(unix)]
#[test]
fn walks_read_regular_files_once_and_follow_links_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("a.txt"), "a document about rivers").unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("b.txt"), "a document about mountains").unwrap();
    std::os::unix::fs::symlink(".", corpus.join("self")).unwrap();
    std::os::unix::fs::symlink(&outside, corpus.join("elsewhere")).unwrap();
    let fifo = corpus.join("pipe.txt");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());

    // The file names of the output's ids, in output order.
    let names = |got: &[serde_json::Value]| -> Vec<String> {
        got.iter()
            .map(|line| {
                line["id"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let output = run(&["fingerprint", corpus.to_str().unwrap()], b"");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let got = lines(&output);
    assert_eq!(names(&got), ["a.txt", "pipe.txt"], "{stderr}");
    assert!(got[1]["error"]
        .as_str()
        .unwrap()
        .contains("not a regular file"));
    assert!(stderr.contains("a symbolic link"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "the FIFO is an error line");

    let output = run(
        &["fingerprint", "--follow-links", corpus.to_str().unwrap()],
        b"",
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let mut ids = names(&lines(&output));
    ids.sort();
    assert_eq!(
        ids,
        ["a.txt", "b.txt", "pipe.txt"],
        "each file once: {stderr}"
    );
    assert!(stderr.contains("already read"), "{stderr}");
}

/// A JSON-lines file of 3,000 lines (more than a window of records holds), ids `big-N`,
/// with malformed lines, invalid UTF-8, empty texts, texts without words, blank lines and
/// lines without an id among them: the file, and the ids (or places) its output lines have,
/// in order.
fn many_records(dir: &std::path::Path) -> (std::path::PathBuf, Vec<String>) {
    let path = dir.join("a-many.jsonl");
    let place = path.to_str().unwrap().to_owned();
    let mut bytes = Vec::new();
    let mut ids = Vec::new();
    let words = [
        "river",
        "mountain",
        "北京",
        "天安门",
        "ocean",
        "désert",
        "forest",
    ];
    for n in 0..3000usize {
        let line_number = n + 1;
        match n % 100 {
            // Malformed JSON.
            7 => {
                bytes.extend_from_slice(b"{\"id\":\"broken\",\"text\":\n");
                ids.push(format!("{place}:{line_number}"));
            }
            // Invalid UTF-8 in the text.
            13 => {
                bytes.extend_from_slice(b"{\"id\":\"bad-utf8\",\"text\":\"caf\xe9 au lait\"}\n");
                ids.push(format!("{place}:{line_number}"));
            }
            // An empty text, and one without words: fingerprints of null.
            21 => {
                bytes.extend_from_slice(
                    format!("{{\"id\":\"big-{n}\",\"text\":\"\"}}\n").as_bytes(),
                );
                ids.push(format!("big-{n}"));
            }
            22 => {
                bytes.extend_from_slice(
                    format!("{{\"id\":\"big-{n}\",\"text\":\" ,. \"}}\n").as_bytes(),
                );
                ids.push(format!("big-{n}"));
            }
            // A blank line is no record.
            30 => bytes.push(b'\n'),
            // No id: the line's place.
            44 => {
                bytes.extend_from_slice(format!("{{\"body\":\"no id {n}\"}}\n").as_bytes());
                ids.push(format!("{place}:{line_number}"));
            }
            _ => {
                let text = format!(
                    "record {n} is about the {} and the {} ({})",
                    words[n % words.len()],
                    words[(n / 7) % words.len()],
                    "x".repeat(n % 50)
                );
                let line = serde_json::json!({"id": format!("big-{n}"), "text": text});
                bytes.extend_from_slice(format!("{line}\n").as_bytes());
                ids.push(format!("big-{n}"));
            }
        }
    }
    std::fs::write(&path, bytes).unwrap();
    (path, ids)
}

/// The same bytes on standard output and the same error notes on standard error, with one
/// thread, two, three and the default, over several files (JSON lines with more records
/// than a window holds and bad lines among them, records large enough to close windows by
/// size, plain text, HTML, invalid UTF-8) and standard input: every record in input order.
#[test]
fn threads_do_not_change_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let (many, many_ids) = many_records(dir.path());
    let mut expected = many_ids.clone();
    // Records of 300 KB: a few fill a window by size.
    let sub = dir.path().join("b-sub");
    std::fs::create_dir(&sub).unwrap();
    let large = sub.join("large.jsonl");
    let mut bytes = Vec::new();
    for n in 0..8 {
        let text = format!("large record {n} ").repeat(20_000);
        bytes.extend_from_slice(
            format!(
                "{}\n",
                serde_json::json!({"id": format!("large-{n}"), "text": text})
            )
            .as_bytes(),
        );
        expected.push(format!("large-{n}"));
    }
    std::fs::write(&large, bytes).unwrap();
    let note = sub.join("note.txt");
    std::fs::write(&note, "a plain note, read whole").unwrap();
    expected.push(note.to_str().unwrap().to_owned());
    let page = sub.join("page.html");
    std::fs::write(
        &page,
        "<html><head><title>A page</title></head><body><nav>menu</nav><article><p>The main \
         text of the page, long enough to be the page's content for the extractor to keep \
         it.</p></article></body></html>",
    )
    .unwrap();
    expected.push(page.to_str().unwrap().to_owned());
    let latin1 = sub.join("z-latin1.txt");
    std::fs::write(&latin1, b"caf\xe9").unwrap();
    expected.push(latin1.to_str().unwrap().to_owned());
    let stdin =
        b"{\"id\":\"in-1\",\"text\":\"from standard input\"}\n{broken\n{\"text\":\"third line\"}\n";
    expected.extend(["in-1".to_owned(), "-:2".to_owned(), "-:3".to_owned()]);

    let inputs = [
        many.to_str().unwrap(),
        sub.to_str().unwrap(),
        "-",
        many.to_str().unwrap(),
    ];
    expected.extend(many_ids);
    let run_with = |threads: Option<&str>| {
        let mut args = vec!["fingerprint"];
        if let Some(threads) = threads {
            args.extend(["--threads", threads]);
        }
        args.extend(inputs);
        run(&args, stdin)
    };
    let one = run_with(Some("1"));
    assert_eq!(one.status.code(), Some(1), "bad records give exit code 1");
    let got = lines(&one);
    let ids: Vec<&str> = got
        .iter()
        .map(|line| line["id"].as_str().unwrap())
        .collect();
    // The first difference, not two lists of 6,000 ids.
    let differ = ids.iter().zip(&expected).position(|(got, id)| got != id);
    assert_eq!(
        differ.map(|at| (at, ids[at], &expected[at])),
        None,
        "every record once, in input order"
    );
    assert_eq!(ids.len(), expected.len());
    let errors = |output: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .filter(|line| line.starts_with("error: "))
            .map(str::to_owned)
            .collect()
    };
    let error_lines = got
        .iter()
        .filter(|line| line.get("error").is_some())
        .count();
    assert_eq!(errors(&one).len(), error_lines, "one note per error line");
    assert_eq!(error_lines, 2 * (2 * 30) + 1 + 1, "{:?}", errors(&one));
    assert!(got.iter().any(|line| line["fingerprint"].is_null()));
    for threads in [Some("2"), Some("3"), None] {
        let other = run_with(threads);
        assert_eq!(other.status.code(), Some(1), "{threads:?}");
        assert!(
            other.stdout == one.stdout,
            "--threads {threads:?}: the output of --threads 1"
        );
        assert_eq!(errors(&other), errors(&one), "--threads {threads:?}");
    }
}

#[test]
fn zero_threads_is_a_usage_error() {
    let output = run(&["fingerprint", "--threads", "0", "-"], b"");
    assert_eq!(output.status.code(), Some(2));
}
