//! Opening an index that lives on storage this process cannot write: a read-only mount, a
//! folder of another user's, a snapshot.
//!
//! tantivy's reader takes the *meta lock* while it opens the segments (so that a writer's
//! garbage collection does not delete them halfway), and taking it creates a file in the
//! index folder: on read-only storage every search fails with "Failed to acquire
//! Lockfile". [`ReadOnlyTolerantDirectory`] lets readers go on without that lock when its
//! file cannot be created for want of write access. Nothing can write the index through that
//! storage either, so there is no garbage collection to guard against; a writer elsewhere
//! (another user with write access) still renames its files into place atomically.

use std::io;
use std::path::Path;
use std::sync::Arc;

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle,
    WritePtr, META_LOCK,
};

/// An [`MmapDirectory`] whose readers open without the meta lock where its file cannot be
/// created for want of write access; everything else is the `MmapDirectory`'s own.
///
/// tantivy's reader takes the meta lock while it opens the segments, so that a writer's
/// garbage collection does not delete them halfway; taking it creates a file in the index
/// folder, which fails on read-only storage. Nothing can write the index through that
/// storage, so there is no garbage collection to guard against. Writers still need the
/// writer's lock, and fail without it
/// ([`DedupIndex::writer`](crate::plugin::DedupIndex::writer) with
/// [`Error::NotWritable`](crate::Error::NotWritable)).
///
/// ```no_run
/// use tantivy::Index;
/// use tantivy_dedup::plugin::{DedupIndex, ReadOnlyTolerantDirectory};
///
/// let directory = ReadOnlyTolerantDirectory::open("/mnt/snapshot/index")?;
/// let index = DedupIndex::open(Index::open(directory)?)?;
/// let searcher = index.index().reader()?.searcher();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReadOnlyTolerantDirectory {
    inner: MmapDirectory,
}

impl ReadOnlyTolerantDirectory {
    /// The index folder at `path`.
    ///
    /// # Errors
    /// As [`MmapDirectory::open`]: the folder is missing or not a folder.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OpenDirectoryError> {
        Ok(ReadOnlyTolerantDirectory {
            inner: MmapDirectory::open(path)?,
        })
    }
}

/// True for the errors of creating a file where this process may not write.
pub(crate) fn lacks_write_access(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied
    )
}

impl Directory for ReadOnlyTolerantDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        match self.inner.acquire_lock(lock) {
            Err(LockError::IoError(error))
                if lock.filepath == META_LOCK.filepath && lacks_write_access(&error) =>
            {
                // Readers only: nothing writes this index through storage we cannot write.
                Ok(DirectoryLock::from(Box::new(())))
            }
            other => other,
        }
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}
