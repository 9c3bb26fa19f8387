//! An existing index opened for reading, as the commands that read one (`search`,
//! `clusters`, `stats`) start from it: its settings checked against the options given, and
//! a searcher on its last commit.

use std::path::Path;

use anyhow::Context;
use tantivy::schema::{TantivyDocument, Value};
use tantivy::{DocAddress, Searcher};

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

    /// The stored id of the document at `address`.
    pub fn id_of(&self, address: DocAddress) -> anyhow::Result<String> {
        let doc: TantivyDocument = self
            .searcher
            .doc(address)
            .context("cannot read a stored document")?;
        Ok(doc
            .get_first(self.index.fields.id)
            .and_then(|value| value.as_str())
            .unwrap_or_default()
            .to_owned())
    }
}
