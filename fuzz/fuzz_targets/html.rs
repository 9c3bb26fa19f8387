//! Any bytes as an HTML page through main-content extraction, then fingerprinted: no panic
//! (a parser failure is the typed `Error::HtmlExtraction`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tantivy_dedup::{html, Error, FingerprintConfig, SimHasher};

fuzz_target!(|bytes: &[u8]| {
    static HASHER: OnceLock<SimHasher> = OnceLock::new();
    let hasher = HASHER.get_or_init(|| SimHasher::new(&FingerprintConfig::default()).unwrap());
    let page = String::from_utf8_lossy(bytes);
    match html::extract(&page) {
        Ok(extracted) => {
            let _ = hasher.fingerprint(&extracted.to_text());
        }
        Err(Error::HtmlExtraction { .. }) => {}
        Err(other) => panic!("unexpected error {other}"),
    }
});
