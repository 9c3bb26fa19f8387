//! Any bytes as a JSON-lines input of the command-line tool: no panic; each non-blank line
//! ends as exactly one document or one error that names its line.
#![no_main]

use libfuzzer_sys::fuzz_target;

// `input.rs` notes skipped index folders with the tool's `note!` (src/cli/mod.rs); folder
// walks are not fuzzed here.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = format!($($arg)*);
    }};
}

#[allow(dead_code)]
#[path = "../../src/cli/input.rs"]
mod input;

fuzz_target!(|bytes: &[u8]| {
    for lossy in [false, true] {
        let mut records = 0;
        input::read_json_lines(std::io::Cursor::new(bytes), "fuzz", lossy, &mut |record| {
            records += 1;
            match record {
                Ok(doc) => assert!(!doc.id.is_empty()),
                Err(e) => assert!(e.place.starts_with("fuzz:"), "{}", e.place),
            }
        });
        let lines = bytes
            .split(|&b| b == b'\n')
            .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
            .count();
        assert_eq!(records, lines);
    }
});
