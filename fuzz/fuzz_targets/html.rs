//! Any bytes as an HTML page through main-content extraction, then fingerprinted: no panic
//! (a parser failure is the typed `Error::HtmlExtraction`), and no page whose cost grows
//! faster than its size.
//!
//! The HTML parser's slow shapes are small patterns repeated (an open `<div>`, an
//! attribute), which an input of a few kilobytes cannot make slow. So the input is also
//! extracted repeated to [`AMPLIFIED`] bytes: run with libFuzzer's `-timeout`, a pattern
//! that costs seconds at that size is a finding (`docs/RELIABILITY.md`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::{html, Error};

/// The size the input is repeated to: 256 KiB, a large real page, which extraction reads in
/// a few milliseconds.
const AMPLIFIED: usize = 256 * 1024;

fuzz_target!(|bytes: &[u8]| {
    static HASHER: OnceLock<SimHasher> = OnceLock::new();
    let hasher = HASHER.get_or_init(|| SimHasher::new(&FingerprintConfig::default()).unwrap());
    let page = String::from_utf8_lossy(bytes);
    extract(hasher, &page);
    if !page.is_empty() {
        extract(hasher, &page.repeat(AMPLIFIED.div_ceil(page.len())));
    }
});

fn extract(hasher: &SimHasher, page: &str) {
    match html::extract(page) {
        Ok(extracted) => {
            let _ = hasher.fingerprint(&extracted.to_text());
        }
        Err(Error::HtmlExtraction { .. }) => {}
        Err(other) => panic!("unexpected error {other}"),
    }
}
