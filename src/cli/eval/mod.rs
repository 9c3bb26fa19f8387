//! The `eval` command: detection quality on labeled sets, written as JSON, Markdown tables
//! and an SVG plot.
//!
//! * `command`: the options and the run.
//! * `set_files`: reading a set's documents, labeled pairs and rule from files.
//! * `outputs`: the files written per set, named and checked before any is written.
//! * `markdown`: the report's tables.
//! * `plot`: the SVG plot of the distances of near-duplicate and distinct pairs.

mod command;
mod markdown;
mod outputs;
mod plot;
mod set_files;

pub use command::EvalCommand;
