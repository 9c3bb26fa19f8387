//! The `tantivy-dedup` command-line tool: thin commands over the library.

pub mod clusters;
pub mod eval;
pub mod eval_markdown;
pub mod eval_plot;
pub mod eval_set;
pub mod fingerprint;
pub mod index_dir;
pub mod ingest;
pub mod input;
pub mod options;
pub mod progress;
pub mod report;
pub mod search;
pub mod stats;
