//! A `DedupWriter` stopped mid-commit inside a process that goes on: a panic in the user's
//! code between `prepare_commit` and `commit`, or storage failing at any one write of a
//! commit. The next `DedupWriter` of the index opens, writes, and ends where an
//! uninterrupted writer ends. (A process killed at every file event: `kill_points.rs`.)
//! From a downstream crate's point of view: public API only.

mod support;

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use support::index::{page, random_text, schema_of};
use tantivy::collector::DocSetCollector;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    DirectoryLock, FileHandle, Lock, RamDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::query::AllQuery;
use tantivy::schema::Value;
use tantivy::{Directory, Index, TantivyDocument};
use tantivy_dedup::plugin::{DedupIndex, DedupSettings, Policy};

/// A directory whose `fail_at`th write (an `open_write`, an `atomic_write`, a delete)
/// fails, counted from when `fail_at` is set.
#[derive(Clone, Debug)]
struct Failing {
    inner: RamDirectory,
    writes: Arc<AtomicUsize>,
    fail_at: Arc<AtomicUsize>,
}

impl Failing {
    fn write(&self) -> io::Result<()> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        match n == self.fail_at.load(Ordering::SeqCst) {
            true => Err(io::Error::other("storage failed")),
            false => Ok(()),
        }
    }
}

impl Directory for Failing {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }
    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        (self.write()).map_err(|e| DeleteError::IoError {
            io_error: Arc::new(e),
            filepath: path.to_owned(),
        })?;
        self.inner.delete(path)
    }
    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        (self.write()).map_err(|e| OpenWriteError::wrap_io_error(e, path.to_owned()))?;
        self.inner.open_write(path)
    }
    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.write()?;
        self.inner.atomic_write(path, data)
    }
    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }
    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }
    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }
}

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url")
}

/// The texts: `j` and `k` first; then a copy of each (rejected, and watched), then `j`
/// and `k` again with new texts (the copies reported lost), and a new page.
/// Records by key and text, in the order they are sent.
type Records = Vec<(&'static str, String)>;

fn texts() -> (Records, Records) {
    let (j, k) = (random_text(41, 120), random_text(42, 120));
    let first = vec![("j", j.clone()), ("k", k.clone())];
    let second = vec![
        ("cj", j.to_uppercase()),
        ("ck", k.to_uppercase()),
        ("j", random_text(43, 120)),
        ("k", random_text(44, 120)),
        ("n", random_text(45, 120)),
    ];
    (first, second)
}

/// Writes `records`, committing after each two; the keys reported lost go to `lost` as
/// they are taken (a caller's report, which outlives a failure).
fn session(
    index: &DedupIndex,
    records: &[(&str, String)],
    lost: &mut Vec<String>,
) -> tantivy_dedup::Result<()> {
    let writer = index.writer_with_num_threads(Policy::Reject, 1, 15_000_000)?;
    let mut take = |writer: &tantivy_dedup::plugin::DedupWriter| {
        for rejudged in writer.take_rejudged() {
            if let tantivy_dedup::plugin::Rejudged::Lost { key, .. } = rejudged {
                lost.push(key);
            }
        }
    };
    take(&writer);
    for (n, (key, text)) in records.iter().enumerate() {
        writer.add(page(index, key, text))?;
        take(&writer);
        if n % 2 == 1 {
            writer.commit()?;
        }
    }
    writer.commit()?;
    writer.deliver_reports()?;
    Ok(())
}

/// Every document, as its key and body.
fn documents(index: &DedupIndex) -> Vec<(String, String)> {
    let searcher = index.index().reader().unwrap().searcher();
    let schema = index.index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let mut all: Vec<(String, String)> = (searcher.search(&AllQuery, &DocSetCollector).unwrap())
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            let text = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap()
                    .to_owned()
            };
            (text(url), text(body))
        })
        .collect();
    all.sort();
    all
}

/// A new index of the first texts, committed, on a directory that fails where told.
fn base() -> (RamDirectory, Failing) {
    let inner = RamDirectory::create();
    let index = Index::create(inner.clone(), schema_of(&settings()), Default::default()).unwrap();
    let index = DedupIndex::create(index, settings()).unwrap();
    session(&index, &texts().0, &mut Vec::new()).unwrap();
    let failing = Failing {
        inner: inner.clone(),
        writes: Arc::new(AtomicUsize::new(0)),
        fail_at: Arc::new(AtomicUsize::new(0)),
    };
    (inner, failing)
}

fn open(directory: impl Directory) -> DedupIndex {
    DedupIndex::open(Index::open(directory).unwrap()).unwrap()
}

#[test]
fn a_writer_failing_at_any_write_leaves_an_index_the_next_writer_finishes() {
    // What a session and the same session again make (the second adds the texts the first
    // reported lost, as a crawler fetching them again does): where every interrupted
    // session, run again twice, ends.
    let (expected, expected_lost) = {
        let (inner, _) = base();
        let mut lost = Vec::new();
        session(&open(inner.clone()), &texts().1, &mut lost).unwrap();
        session(&open(inner.clone()), &texts().1, &mut Vec::new()).unwrap();
        (documents(&open(inner)), lost)
    };
    assert_eq!(expected_lost, ["cj", "ck"]);
    let mut failures = 0;
    for fail_at in 1.. {
        let (inner, failing) = base();
        failing.fail_at.store(fail_at, Ordering::SeqCst);
        let index = open(failing.clone());
        let mut lost = Vec::new();
        let outcome = catch_unwind(AssertUnwindSafe(|| session(&index, &texts().1, &mut lost)));
        drop(index);
        match outcome {
            // Past the session's last write: every point was tried.
            Ok(Ok(())) if failing.writes.load(Ordering::SeqCst) < fail_at => break,
            Ok(Ok(())) => {}
            // Failed (or panicked) at that write.
            _ => failures += 1,
        }
        // The next writer, on storage that works: it opens and writes, and every loss
        // the uninterrupted session reports is reported by one of the two.
        let again = |lost: &mut Vec<String>| {
            session(&open(inner.clone()), &texts().1, lost)
                .unwrap_or_else(|e| panic!("failed at write {fail_at}; the next writer: {e}"))
        };
        again(&mut lost);
        for key in &expected_lost {
            assert!(
                lost.contains(key),
                "failed at write {fail_at}: {key} never reported"
            );
        }
        again(&mut Vec::new());
        assert_eq!(
            documents(&open(inner)),
            expected,
            "failed at write {fail_at}"
        );
    }
    eprintln!("{failures} write points failed at, each finished by the next writer");
    assert!(failures > 10, "{failures} failures");
}

#[test]
fn a_panic_between_prepare_and_commit_leaves_an_index_the_next_writer_finishes() {
    let (inner, _) = base();
    let index = open(inner.clone());
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        let mut writer = index.writer(Policy::Reject, 15_000_000).unwrap();
        for (key, text) in texts().1 {
            writer.add(page(&index, key, &text)).unwrap();
        }
        let _prepared = writer.prepare_commit().unwrap();
        panic!("the user's code panics");
    }));
    assert!(panicked.is_err());
    let index = open(inner.clone());
    let mut lost = Vec::new();
    session(&index, &texts().1, &mut lost).unwrap();
    assert_eq!(lost, ["cj", "ck"], "nothing was committed: decided anew");
    assert_eq!(documents(&index).len(), 3);
}
