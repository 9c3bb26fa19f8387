//! A column the collector cannot read is an error, never "no fingerprint" or "no signature":
//! an index whose fast-field files fail to read (a disk error, a network file system gone
//! away) must not quietly show near-duplicates it would have hidden.
//!
//! The directory here is tantivy's `RamDirectory` with a switch: once on, every read of a
//! `.fast` file fails, as a real disk error would under an open index. (tantivy reads a
//! column's bytes when it opens the column, so that is where the error comes: a collector
//! that opens its columns per search meets it; one whose [`ColumnCache`] holds them open
//! does not read the file again.)

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, FileHandle, OwnedBytes, RamDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::query::TermQuery;
use tantivy::schema::{BytesOptions, IndexRecordOption, Schema, FAST, INDEXED, TEXT};
use tantivy::{doc, HasLen, Index, TantivyError, Term};
use tantivy_dedup::matching::Verification;
use tantivy_dedup::plugin::collector::ColumnCache;
use tantivy_dedup::plugin::DedupCollector;
use tantivy_dedup::Error;

#[derive(Clone, Debug, Default)]
struct FailingDirectory {
    inner: RamDirectory,
    failing: Arc<AtomicBool>,
}

#[derive(Debug)]
struct FailingHandle {
    inner: Arc<dyn FileHandle>,
    failing: Arc<AtomicBool>,
}

impl HasLen for FailingHandle {
    fn len(&self) -> usize {
        self.inner.len()
    }
}

impl FileHandle for FailingHandle {
    fn read_bytes(&self, range: Range<usize>) -> std::io::Result<OwnedBytes> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(std::io::Error::other("the disk went away"));
        }
        self.inner.read_bytes(range)
    }
}

impl Directory for FailingDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let inner = self.inner.get_file_handle(path)?;
        if path.extension().is_some_and(|e| e == "fast") {
            return Ok(Arc::new(FailingHandle {
                inner,
                failing: Arc::clone(&self.failing),
            }));
        }
        Ok(inner)
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
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.inner.atomic_write(path, data)
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.inner.sync_directory()
    }
    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }
}

/// 128 values, 4 bytes each: the default verification's signature.
fn signature(seed: u32) -> Vec<u8> {
    (0..128u32).flat_map(|i| (seed ^ i).to_le_bytes()).collect()
}

#[test]
fn an_unreadable_column_fails_the_search() -> tantivy::Result<()> {
    let directory = FailingDirectory::default();
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", TEXT);
    let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
    let signatures = schema.add_bytes_field("signature", BytesOptions::default() | FAST);
    let index = Index::open_or_create(directory.clone(), schema.build())?;
    let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
    // 8 bits apart: beyond k = 3, within the candidate distance, so the pair is judged by
    // its signatures (equal: near-duplicates).
    writer
        .add_document(doc!(body => "rust rust", fingerprint => 0u64, signatures => signature(1)))?;
    writer
        .add_document(doc!(body => "rust", fingerprint => 0xFFu64, signatures => signature(1)))?;
    writer.commit()?;
    let searcher = index.reader()?.searcher();
    let query = TermQuery::new(
        Term::from_field_text(body, "rust"),
        IndexRecordOption::WithFreqs,
    );
    let collector =
        DedupCollector::new("fingerprint", 10).verification("signature", Verification::default());
    let cached = collector.clone().column_cache(ColumnCache::new());

    let top = collector.search(&searcher, &query).expect("readable");
    assert_eq!(
        top.hidden_total, 1,
        "the signatures agree: the copy is hidden"
    );
    assert_eq!(searcher.search(&query, &collector)?.hidden_total, 1);
    assert_eq!(cached.search(&searcher, &query).expect("readable"), top);

    // Now the files' reads fail: the cached columns were read already, the others must be
    // read again.
    directory.failing.store(true, Ordering::SeqCst);
    assert_eq!(cached.search(&searcher, &query).expect("in memory"), top);
    match collector.search(&searcher, &query) {
        Err(Error::Tantivy(error)) => {
            assert!(error.to_string().contains("disk went away"), "{error}")
        }
        other => panic!("expected the read error, got {other:?}"),
    }
    match searcher.search(&query, &collector) {
        Err(TantivyError::IoError(error)) => assert!(error.to_string().contains("disk went away")),
        other => panic!("expected the read error, got {other:?}"),
    }
    Ok(())
}
