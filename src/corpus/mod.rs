//! The index folder of the command-line tool, as a library: a schema of `id`, `title`,
//! `body`, `url` and `tags` with the plugin's fields, created safely in a folder, and the
//! per-record report of an ingest.
//!
//! `tantivy-dedup ingest`, `search` and `clusters` work on such folders, and so do the
//! Python package and any program that wants to read or extend an index the tool made:
//!
//! ```
//! use tantivy_dedup::corpus::{corpus_settings, CorpusIndex, CorpusRecord, ReportLine};
//! use tantivy_dedup::plugin::Policy;
//!
//! let dir = tempfile::tempdir()?;
//! let index = CorpusIndex::open_or_create(dir.path(), corpus_settings)?;
//! let writer = index.dedup.writer(Policy::Reject, 50_000_000)?;
//! let text = "the same page fetched twice by the crawler, word for word the same";
//! for (id, text) in [("a", text), ("b", text)] {
//!     let record = CorpusRecord::new(id, text);
//!     let outcome = writer.add(index.fields.document(&record))?;
//!     println!("{}", serde_json::to_string(&ReportLine::of_outcome(id.into(), &outcome))?);
//! }
//! writer.commit()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fields;
mod folder;
mod page;
mod query;
mod report;

pub use fields::{corpus_schema, corpus_settings, CorpusFields, CorpusRecord};
pub use folder::{open_tantivy, CorpusIndex};
pub use page::{HiddenDetail, Page, PageHit, PageRequest};
pub use query::{check_nesting, nesting, MAX_QUERY_NESTING};
pub use report::ReportLine;
