//! The `tantivy-dedup` command-line tool: thin commands over the library.

pub mod fingerprint;
pub mod input;
pub mod options;
