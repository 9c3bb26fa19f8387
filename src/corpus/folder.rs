//! A corpus index in a folder: created once, whatever number of processes try at once and
//! wherever one of them was killed, and opened with its fields.

use std::io;
use std::path::{Path, PathBuf};

use tantivy::Index;

use super::fields::{corpus_schema, CorpusFields};
use crate::error::{Error, Result};
use crate::plugin::{DedupIndex, DedupSettings, ReadOnlyTolerantDirectory, SETTINGS_FILE};

/// The lock creators of an index in a folder take, in the folder itself.
const CREATION_LOCK: &str = ".tantivy-dedup-create.lock";

/// Present while an index is being created in its folder: a folder holding it holds a
/// creation that did not finish, whose files are all the creator's.
const CREATING_MARKER: &str = ".tantivy-dedup-creating";

/// A corpus index opened from its folder: the index set up for deduplication, and its
/// fields.
pub struct CorpusIndex {
    /// The index, set up for deduplication.
    pub dedup: DedupIndex,
    /// The corpus fields.
    pub fields: CorpusFields,
}

impl std::fmt::Debug for CorpusIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorpusIndex")
            .field("settings", self.dedup.settings())
            .finish_non_exhaustive()
    }
}

impl CorpusIndex {
    /// Opens the corpus index in `dir`, or creates it there with `settings()` (see
    /// [`corpus_settings`](super::corpus_settings)) when the folder is missing or empty.
    ///
    /// Creation is safe against any number of processes creating the same index at once
    /// (an exclusive lock on a file in `dir`: the later ones find the index made), and
    /// against one killed while creating (a marker file says a creation is under way: the
    /// next creator removes what the killed one left, every file but the lock, and
    /// creates again). The index is made in place, so nothing outside `dir` is touched
    /// and `dir` keeps its owner and permissions (a mount point, `.`). A folder holding
    /// files of its own (another tantivy index, documents) is left as it is.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be made, locked or read; what
    /// [`open`](Self::open) returns.
    pub fn open_or_create(
        dir: &Path,
        settings: impl FnOnce() -> DedupSettings,
    ) -> Result<CorpusIndex> {
        // A whole index opens without the creation lock (which a read-only index could not
        // take).
        if !is_complete(dir) {
            CorpusIndex::create(dir, settings)?;
        }
        CorpusIndex::open(dir)
    }

    /// Creates the corpus index in `dir` (made if missing) with `settings()`, unless it is
    /// there already or the folder holds files of its own: the creating half of
    /// [`open_or_create`](Self::open_or_create), for a caller that opens with settings of
    /// its own ([`open`](Self::open), then [`with_settings`](Self::with_settings)).
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be made, locked or read; what creating the
    /// index returns.
    pub fn create(dir: &Path, settings: impl FnOnce() -> DedupSettings) -> Result<()> {
        create(dir, settings)
    }

    /// Opens the corpus index in `dir` with the settings it was created with.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when `dir` holds no tantivy index; [`Error::MissingSettings`]
    /// when it is not set up for deduplication; [`Error::Schema`] when it lacks a corpus
    /// field.
    pub fn open(dir: &Path) -> Result<CorpusIndex> {
        let index = open_tantivy(dir)?;
        let fields = CorpusFields::of(&index.schema())?;
        let dedup = DedupIndex::open(index)?;
        Ok(CorpusIndex { dedup, fields })
    }

    /// The same index with `settings` for this run: the fingerprint settings must be the
    /// index's, the distance and matching may differ (see [`DedupIndex::open_with`]). The
    /// folder is not opened again.
    ///
    /// # Errors
    /// [`Error::SettingsMismatch`] and what [`DedupIndex::open_with`] returns.
    pub fn with_settings(&self, settings: &DedupSettings) -> Result<CorpusIndex> {
        let dedup = DedupIndex::open_with(self.dedup.index().clone(), settings)?;
        Ok(CorpusIndex {
            dedup,
            fields: self.fields,
        })
    }

    /// True when `dir` holds an index whose creation finished.
    pub fn exists(dir: &Path) -> bool {
        is_complete(dir)
    }
}

/// The tantivy index in `dir`, also on storage this process cannot write (see
/// [`ReadOnlyTolerantDirectory`]).
///
/// # Errors
/// [`Error::Tantivy`] when the folder cannot be opened or holds no index.
pub fn open_tantivy(dir: &Path) -> Result<Index> {
    let directory = ReadOnlyTolerantDirectory::open(dir).map_err(tantivy::TantivyError::from)?;
    Ok(Index::open(directory)?)
}

/// True when `dir` holds an index whose creation finished.
fn is_complete(dir: &Path) -> bool {
    dir.join("meta.json").is_file()
        && dir.join(SETTINGS_FILE).is_file()
        && !dir.join(CREATING_MARKER).exists()
}

/// An I/O error on `path`.
fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// Creates the index in `dir` (made if missing) unless another process has, or the folder
/// holds files of its own (see [`CorpusIndex::open_or_create`]).
fn create(dir: &Path, settings: impl FnOnce() -> DedupSettings) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let lock_path = dir.join(CREATION_LOCK);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_error(&lock_path))?;
    lock.lock().map_err(io_error(&lock_path))?;
    if is_complete(dir) {
        return Ok(());
    }
    let marker = dir.join(CREATING_MARKER);
    let entries = || -> Result<Vec<PathBuf>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
            let path = entry.map_err(io_error(dir))?.path();
            if path != lock_path {
                paths.push(path);
            }
        }
        Ok(paths)
    };
    if marker.exists() {
        // A creator killed half-way: everything here is its.
        for path in entries()? {
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.map_err(io_error(&path))?;
        }
    } else if !entries()?.is_empty() {
        // Files of someone else's: left as they are, for `open` to say what the folder is.
        return Ok(());
    }
    std::fs::write(&marker, b"").map_err(io_error(&marker))?;
    {
        let settings = settings();
        let index = Index::create_in_dir(dir, corpus_schema(&settings)?)?;
        DedupIndex::create(index, settings)?;
    }
    std::fs::remove_file(&marker).map_err(io_error(&marker))
}
