//! Any bytes as a JSON-lines input of the command-line tool: no panic; each non-blank line
//! (and each line over the record size limit) ends as exactly one document or one error
//! that names its line; and a document's id is exactly its line's `id` (a string as it is,
//! an integer in its digits) or, without one, its place.
#![no_main]

use libfuzzer_sys::fuzz_target;

// `input/` notes skipped index folders with the tool's `note!` (src/cli/mod.rs); folder
// walks are not fuzzed here.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = format!($($arg)*);
    }};
}

// What the tool uses and this target does not (the terminal check of standard input).
#[allow(dead_code, unused_imports)]
#[path = "../../src/cli/input/mod.rs"]
mod input;

/// A small limit, so that long lines take the bounded path too.
const SMALL_LIMIT: usize = 64;

fuzz_target!(|bytes: &[u8]| {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    for lossy in [false, true] {
        for limit in [input::DEFAULT_MAX_RECORD_BYTES, SMALL_LIMIT] {
            let options = input::ReadOptions {
                lossy,
                max_record_bytes: limit,
                ..input::ReadOptions::default()
            };
            let mut records = 0;
            input::read_json_lines(
                std::io::Cursor::new(bytes),
                "fuzz",
                &options,
                &mut |record| {
                    records += 1;
                    match record {
                        Ok(doc) => check_id(&doc, &lines),
                        Err(e) => assert!(e.place.starts_with("fuzz:"), "{}", e.place),
                    }
                },
            );
            let expected = lines
                .iter()
                .filter(|line| {
                    let length = line.len();
                    !line.iter().all(u8::is_ascii_whitespace) || length > limit
                })
                .count();
            assert_eq!(records, expected);
        }
    }
});

/// The document's id is its line's `id`, exactly, or its place when the line has none.
fn check_id(doc: &input::Document, lines: &[&[u8]]) {
    assert!(!doc.id.is_empty());
    let number: usize = doc.place.strip_prefix("fuzz:").unwrap().parse().unwrap();
    let mut line = lines[number - 1];
    if number == 1 {
        line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // Lines repaired by --lossy-utf8 (invalid bytes, lone surrogates) are not JSON as they
    // stand: their ids are checked by the lines that are.
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(line) else {
        return;
    };
    match fields.get("id") {
        None | Some(serde_json::Value::Null) => assert_eq!(doc.id, doc.place),
        Some(serde_json::Value::String(id)) => assert_eq!(&doc.id, id),
        Some(serde_json::Value::Number(id)) => {
            assert!(id.is_u64() || id.is_i64(), "{id} kept as an id");
            assert_eq!(doc.id, id.to_string());
        }
        Some(other) => panic!("a record with the id {other}"),
    }
}
