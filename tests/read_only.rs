//! An index on storage the process cannot write (a read-only mount, another user's folder):
//! `search`, `stats` and `clusters` read it, and `ingest` says it cannot write there instead
//! of blaming another writer.
//!
//! The folder is made unwritable with `chmod 0555`; where that does not stop this process
//! (it runs as root), with a read-only bind mount. Where neither is possible the tests say
//! so on standard error and pass: no unwritable folder can be had there.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::cli::{run, stderr};
use tantivy::Index;
use tantivy_dedup::plugin::{DedupIndex, Policy, ReadOnlyTolerantDirectory};
use tantivy_dedup::Error;

/// A view of a folder this process cannot write; undone on drop.
struct Unwritable {
    /// Where to read the index.
    path: PathBuf,
    mounted: bool,
    original: PathBuf,
}

impl Unwritable {
    /// `dir` (holding the index in `index/`) made unwritable, or `None` where that cannot be
    /// done.
    fn of(dir: &Path) -> Option<Unwritable> {
        use std::os::unix::fs::PermissionsExt;
        let index = dir.join("index");
        let mode = |path: &Path, mode: u32| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        mode(&index, 0o555);
        if !can_write(&index) {
            return Some(Unwritable {
                path: index.clone(),
                mounted: false,
                original: index,
            });
        }
        mode(&index, 0o755);
        let mount_point = dir.join("read-only");
        std::fs::create_dir(&mount_point).unwrap();
        let bind = |args: &[&str]| {
            Command::new("mount")
                .args(args)
                .output()
                .is_ok_and(|output| output.status.success())
        };
        let (source, target) = (index.to_str().unwrap(), mount_point.to_str().unwrap());
        if !bind(&["--bind", source, target]) {
            return None;
        }
        let view = Unwritable {
            path: mount_point.clone(),
            mounted: true,
            original: index,
        };
        if !bind(&["-o", "remount,ro,bind", target]) || can_write(&mount_point) {
            return None;
        }
        Some(view)
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.mounted {
            let _ = Command::new("umount").arg(&self.path).output();
        } else {
            let _ =
                std::fs::set_permissions(&self.original, std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// True when a file can be created in `dir`.
fn can_write(dir: &Path) -> bool {
    let probe = dir.join(".write-probe");
    let created = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    created
}

/// An index of three documents in `dir/index`.
fn indexed(dir: &Path) {
    let records = "{\"id\":\"a\",\"body\":\"the spring tea harvest started early in the hills\"}\n\
                   {\"id\":\"b\",\"body\":\"the spring tea harvest started early in the hills!\"}\n\
                   {\"id\":\"c\",\"body\":\"prices at the first auction were higher this year\"}\n";
    let index = dir.join("index");
    let out = run(
        &["ingest", "--index", index.to_str().unwrap(), "-"],
        records.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

/// An index of three documents in a folder this process cannot write (the temporary folder
/// holding it must outlive the view), or `None` where no such folder can be made.
fn unwritable_index() -> Option<(tempfile::TempDir, Unwritable)> {
    let dir = tempfile::tempdir().unwrap();
    indexed(dir.path());
    let view = Unwritable::of(dir.path())?;
    Some((dir, view))
}

#[test]
fn an_unwritable_index_is_read_and_refuses_writes_for_what_they_are() {
    let Some((_dir, view)) = unwritable_index() else {
        eprintln!("no unwritable folder can be made here: test skipped");
        return;
    };
    let index = view.path.to_str().unwrap();
    for args in [
        vec!["search", "--index", index, "tea"],
        vec!["stats", "--index", index],
        vec!["clusters", "--index", index],
    ] {
        let out = run(&args, b"");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let out = run(&["search", "--index", index, "--json", "tea"], b"");
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.contains("\"a\""), "{shown}");

    let out = run(
        &["ingest", "--index", index, "-"],
        b"{\"id\":\"d\",\"body\":\"x\"}\n",
    );
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("cannot be written from here"), "{message}");
    assert!(!message.contains("IndexWriter"), "{message}");
}

#[test]
fn the_library_opens_it_and_types_the_writer_error() {
    let Some((_dir, view)) = unwritable_index() else {
        eprintln!("no unwritable folder can be made here: test skipped");
        return;
    };
    let directory = ReadOnlyTolerantDirectory::open(&view.path).unwrap();
    let index = DedupIndex::open(Index::open(directory).unwrap()).unwrap();
    let searcher = index.index().reader().unwrap().searcher();
    assert_eq!(searcher.num_docs(), 2, "a, and c (b is a's near-duplicate)");
    match index.writer(Policy::Reject, 15_000_000) {
        Err(Error::NotWritable { .. }) => {}
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a writer on an unwritable index"),
    }
}
