//! An existing index opened for reading, as the commands that read one (`search`,
//! `clusters`, `stats`) start from it: its settings checked against the options given, and
//! a searcher on its last commit.

use std::path::Path;

use anyhow::Context;
use tantivy::Searcher;

use crate::cli::index_dir::{open_existing, CliIndex};
use crate::cli::options::{FingerprintOptions, VerifyOptions};

/// An index and a searcher on its last commit.
pub struct OpenedIndex {
    /// The index, with the settings in force.
    pub index: CliIndex,
    /// A searcher on the last commit.
    pub searcher: Searcher,
}

impl OpenedIndex {
    /// Opens the index in `dir`; fingerprint options given on the command line must agree
    /// with the index's, and the distance and two-stage matching options apply to this run.
    pub fn open(
        dir: &Path,
        options: &FingerprintOptions,
        distance: Option<u32>,
        verify: &VerifyOptions,
    ) -> anyhow::Result<OpenedIndex> {
        let index = open_existing(dir, options, distance, verify)?;
        let searcher = index
            .dedup
            .index()
            .reader()
            .context("cannot read the index")?
            .searcher();
        Ok(OpenedIndex { index, searcher })
    }
}
