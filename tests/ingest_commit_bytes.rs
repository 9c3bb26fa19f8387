//! `ingest` commits once 128 MiB of text are pending, whatever `--commit-every` says:
//! tantivy's writer queues up to 10,000 documents whatever their size until a commit waits
//! for them, so that large records piled up there (120 records of 15 MiB peaked at 3.6 GB).
//! Seen from outside: records streamed on standard input, which stays open, are reported
//! (their batch committed) once they come to 128 MiB, before the input ends.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// Records of 15 MiB: nine come to 135 MiB, past the bound.
const RECORD_BYTES: usize = 15 << 20;
const RECORDS: usize = 9;

#[test]
fn large_records_are_committed_by_their_size_before_the_input_ends() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let args = [
        "ingest",
        "--index",
        index.to_str().unwrap(),
        "--report",
        "-",
    ];
    let streams = [Stdio::piped(), Stdio::piped(), Stdio::null()];
    let mut child = support::cli::spawn(None, &args, streams);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if lines.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    for n in 0..RECORDS {
        // Texts of words of their own, far apart, so that every record is added.
        let word = format!("record{n}word{} ", n * 7919);
        let text = word.repeat(RECORD_BYTES / word.len());
        let line = serde_json::json!({ "id": format!("r{n}"), "text": text }).to_string();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    // Standard input stays open: only a commit by size reports the records now.
    let mut reported = Vec::new();
    while reported.len() < RECORDS {
        match received.recv_timeout(Duration::from_secs(600)) {
            Ok(line) => reported.push(line),
            Err(_) => break,
        }
    }
    let committed = reported.len();
    drop(stdin);
    let status = child.wait().unwrap();
    reported.extend(received.iter());
    assert!(status.success(), "{status:?}");
    assert_eq!(
        committed, RECORDS,
        "reported before the input ended: {reported:?}"
    );
    assert!(
        reported.iter().all(|line| line.contains("\"added\"")),
        "{reported:?}"
    );
}
