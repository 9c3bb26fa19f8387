//! What a run of `ingest` created, removed again when the run fails before any document is
//! in the new index: a corrected run must not find an index made with the failed run's
//! options and silently reuse them.
//!
//! Runs starting at once into one new folder cannot tell which of them made the index: one
//! that fails leaves it to the others while one of them writes it or once it holds
//! documents.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tantivy_dedup::corpus::CorpusIndex;

/// The index folder as it was before a run that will create the index in it.
#[derive(Debug)]
pub struct Created {
    dir: PathBuf,
    /// The names in the folder before, `None` when there was no folder.
    before: Option<HashSet<OsString>>,
}

impl Created {
    /// The folder `dir` before the run: `None` when it holds an index already (the run
    /// creates nothing).
    pub fn before(dir: &Path) -> Option<Created> {
        if CorpusIndex::exists(dir) {
            return None;
        }
        let before = std::fs::read_dir(dir).ok().map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.file_name()))
                .collect()
        });
        Some(Created {
            dir: dir.to_path_buf(),
            before,
        })
    }

    /// Removes what the run created, when the index it created holds no document (a
    /// failure before any commit of documents) and no other run writes it (its writer
    /// lock is taken for the removal): the folder if it was not there, else the entries
    /// that were not. An index with documents, one another run writes, or one that cannot
    /// be opened is left as it is.
    pub fn undo(self) -> std::io::Result<()> {
        let Ok(index) = tantivy::Index::open_in_dir(&self.dir) else {
            return Ok(());
        };
        // Held until the files are gone: a run that finds the index meanwhile cannot
        // write it.
        // The writer's lock itself: an index of the crate's segment component refuses a
        // writer of a bare `Index`.
        use tantivy::directory::Directory as _;
        let Ok(_writer) = index
            .directory()
            .acquire_lock(&tantivy::directory::INDEX_WRITER_LOCK)
        else {
            return Ok(());
        };
        let documents = (index.reader())
            .map(|reader| reader.searcher().num_docs())
            .unwrap_or(1);
        if documents > 0 {
            return Ok(());
        }
        let Some(before) = self.before else {
            return std::fs::remove_dir_all(&self.dir);
        };
        // Listed first: entries removed while a listing goes on may hide others from it.
        let entries = std::fs::read_dir(&self.dir)?.collect::<std::io::Result<Vec<_>>>()?;
        for entry in entries {
            if before.contains(&entry.file_name()) {
                continue;
            }
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy_dedup::corpus::corpus_settings;

    #[test]
    fn an_empty_index_a_run_created_is_removed_and_nothing_else() {
        let root = tempfile::tempdir().unwrap();
        // A folder that was not there goes whole.
        let new = root.path().join("new");
        let created = Created::before(&new).unwrap();
        CorpusIndex::create(&new, corpus_settings).unwrap();
        created.undo().unwrap();
        assert!(!new.exists());
        // A folder that was there (empty, as a mount point) stays, emptied.
        let mount = root.path().join("mount");
        std::fs::create_dir(&mount).unwrap();
        let created = Created::before(&mount).unwrap();
        CorpusIndex::create(&mount, corpus_settings).unwrap();
        assert!(CorpusIndex::exists(&mount));
        created.undo().unwrap();
        assert_eq!(std::fs::read_dir(&mount).unwrap().count(), 0);
        // An index that was there is no run's creation.
        CorpusIndex::create(&new, corpus_settings).unwrap();
        assert!(Created::before(&new).is_none());
    }
}
