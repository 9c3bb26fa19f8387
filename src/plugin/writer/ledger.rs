//! The writer's ledger: an append-only log, in the index folder, of what it keeps across
//! runs: the records a writer under [`Policy::Reject`](super::Policy) rejected and watches
//! (by key and text version, with the document they were rejected near), and the records
//! reported lost whose report is not known to have been recorded yet. A database's
//! write-ahead log for one table, replayed whole when a writer opens.
//!
//! **One commit point.** tantivy's commit is the one moment the ledger changes: its files
//! are numbered ([`LEDGER_FILE`]`.<n>`), each written whole by [`Directory::atomic_write`]
//! before tantivy's commit, and the commit's payload names the last one (the tip,
//! [`commit_payload`](super::commit_payload)). Each file names the one before it and holds
//! a checksum of its entries; a compaction starts a new chain with a base. So a file
//! written for a commit that never happened is named by no commit, and the next writer
//! deletes it before it writes its own; a file a commit names that is missing, cut short
//! or changed stops the writer, with an error naming it.
//!
//! A commit made by another program (a plain tantivy `IndexWriter`) carries no payload of
//! ours: the tip is then the one [`LEDGER_FILE`] itself names (written after each of our
//! commits), followed as far as the chain goes.
//!
//! A file is a 24-byte header (`tdrej`, the format, the file's kind, 0, the number of the
//! file before it or `u64::MAX` for a base, the xxh3 of the entries), then entries: a tag
//! byte, keys as a `u32` length and UTF-8 bytes, a version as a presence byte and a `u64`,
//! all little-endian.

mod legacy;

use std::path::{Path, PathBuf};

use tantivy::directory::error::{DeleteError, OpenReadError};
use tantivy::Directory;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{read_error, Error, Result};
use crate::plugin::LEDGER_FILE;

/// The format written; a ledger of a later one is refused.
const FORMAT: u8 = 2;
const MAGIC: &[u8; 5] = b"tdrej";
const HEADER: usize = 24;
const BASE: u8 = 0;
const CHUNK: u8 = 1;
/// [`LEDGER_FILE`] itself: the tip of the last commit of ours, for an index whose last
/// commit was made without this crate.
const HINT: u8 = 2;
/// The "file before" of a base.
const NONE: u64 = u64::MAX;
/// Files in a chain before a compaction, whatever the dead entries: a commit that changes
/// anything writes one, and a folder of thousands of them is slow to open.
const MAX_CHUNKS: u64 = 64;

const WATCH: u8 = 1;
const UNWATCH: u8 = 2;
const DROP: u8 = 3;
const LOST: u8 = 4;
const DELIVERED: u8 = 5;
const DECIDED: u8 = 6;

/// One change of what the ledger keeps.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Entry {
    /// `rejected`'s text `version` was rejected near the document of `reference`.
    Watch {
        reference: String,
        rejected: String,
        version: Option<u64>,
    },
    /// `rejected` is watched no more (decided again with another text, deleted, or reported
    /// lost).
    Unwatch { rejected: String },
    /// The document of `reference` changed: its watches are done with.
    Drop { reference: String },
    /// `rejected` was reported lost after `after` changed; kept until its report is
    /// delivered, so that a writer killed before it was recorded leaves it to the next.
    Lost { rejected: String, after: String },
    /// `rejected` was decided again after `after` changed, to `outcome` (an
    /// [`AddOutcome`](super::AddOutcome) as JSON); kept until its report is delivered.
    Decided {
        rejected: String,
        after: String,
        outcome: String,
    },
    /// The report of `rejected` (lost, or decided again) was handed out and recorded: done.
    Delivered { rejected: String },
}

impl Entry {
    fn encode(&self, out: &mut Vec<u8>) {
        let key = |out: &mut Vec<u8>, key: &str| {
            // Keys are tantivy terms, far below 4 GiB.
            out.extend_from_slice(&(key.len() as u32).to_le_bytes());
            out.extend_from_slice(key.as_bytes());
        };
        match self {
            Entry::Watch {
                reference,
                rejected,
                version,
            } => {
                out.push(WATCH);
                key(out, reference);
                key(out, rejected);
                match version {
                    Some(version) => {
                        out.push(1);
                        out.extend_from_slice(&version.to_le_bytes());
                    }
                    None => out.push(0),
                }
            }
            Entry::Unwatch { rejected } => {
                out.push(UNWATCH);
                key(out, rejected);
            }
            Entry::Drop { reference } => {
                out.push(DROP);
                key(out, reference);
            }
            Entry::Lost { rejected, after } => {
                out.push(LOST);
                key(out, rejected);
                key(out, after);
            }
            Entry::Delivered { rejected } => {
                out.push(DELIVERED);
                key(out, rejected);
            }
            Entry::Decided {
                rejected,
                after,
                outcome,
            } => {
                out.push(DECIDED);
                key(out, rejected);
                key(out, after);
                key(out, outcome);
            }
        }
    }
}

/// The ledger's files, as a writer last read or wrote them.
pub(super) struct Ledger {
    directory: Box<dyn Directory>,
    /// The last file written (named by the last commit, once it is made).
    tip: Option<u64>,
    /// The tip [`LEDGER_FILE`] names.
    hinted: Option<u64>,
    /// Files in the chain since its base.
    chained: u64,
    /// Entries in the chain, live or not.
    written: usize,
    /// Files to delete once a commit names the tip: an earlier chain's, or a format-1
    /// ledger's.
    garbage: Vec<PathBuf>,
    /// The entries were read from a format-1 ledger: the next write starts a chain.
    legacy: bool,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("tip", &self.tip)
            .field("chained", &self.chained)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

/// What the index's last commit says of the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    /// A commit of ours, naming the tip (`None`: no ledger yet).
    Tip(Option<u64>),
    /// A commit made without this crate (or before the commit point): no word of it.
    Unknown,
}

impl Ledger {
    /// Reads the ledger the last commit names (`named`), in the order it was written, and
    /// deletes the files no commit names: those of a commit that never happened, and those
    /// a compaction replaced. Only a writer, holding tantivy's writer lock, may call it.
    ///
    /// # Errors
    /// [`Error::Ledger`] for a file the commit names that is missing or damaged;
    /// [`Error::Io`] when one cannot be read.
    pub fn open(directory: Box<dyn Directory>, named: Named) -> Result<(Ledger, Vec<Entry>)> {
        let hinted = read_hint(&*directory)?;
        let tip = match named {
            Named::Tip(tip) => tip,
            // Our last commit's tip, and what later files chain on to it (a commit of ours
            // killed before it wrote the hint).
            Named::Unknown => match hinted {
                Some(mut tip) => {
                    while let Some(bytes) = read(&*directory, &file_name(tip + 1))? {
                        match parse(&bytes, &file_name(tip + 1)) {
                            Ok((_, before, _)) if before == tip => tip += 1,
                            _ => break,
                        }
                    }
                    Some(tip)
                }
                None => None,
            },
        };
        let mut ledger = Ledger {
            directory,
            tip,
            hinted,
            chained: 0,
            written: 0,
            garbage: Vec::new(),
            legacy: false,
        };
        let mut entries = Vec::new();
        match tip {
            Some(tip) => {
                let mut chain = Vec::new();
                let mut at = tip;
                loop {
                    let name = file_name(at);
                    let Some(bytes) = read(&*ledger.directory, &name)? else {
                        return Err(damaged(
                            &name,
                            "missing, and the index's last commit names it (restore the \
                             index folder from a copy, or rebuild the index with `ingest \
                             --from-index`)",
                        ));
                    };
                    let (kind, before, body) = parse(&bytes, &name)?;
                    if kind != BASE && (before != at.wrapping_sub(1) || at == 0) {
                        return Err(damaged(&name, "it names a file out of its chain"));
                    }
                    let skip = bytes.len() - body.len();
                    chain.push((name, bytes, skip));
                    if kind == BASE {
                        break;
                    }
                    at = before;
                }
                ledger.chained = chain.len() as u64;
                for (name, bytes, skip) in chain.into_iter().rev() {
                    decode(&bytes[skip..], &name, &mut entries, false)?;
                }
                // A compaction's earlier chain, not all deleted before a crash (the lowest
                // numbers go first, so what is left lies right below the base).
                let mut below = at;
                while below > 0 && exists(&*ledger.directory, &file_name(below - 1))? {
                    below -= 1;
                }
                ledger.garbage.extend((below..at).map(file_name));
                ledger.collect();
            }
            None => {
                if let Some((legacy, files)) = legacy::read_legacy(&*ledger.directory)? {
                    entries = legacy;
                    ledger.legacy = true;
                    ledger.garbage = files;
                }
            }
        }
        // Files of commits that never happened: the next commit writes their names again.
        let mut after = tip.map_or(0, |tip| tip + 1);
        while exists(&*ledger.directory, &file_name(after))? {
            remove(&*ledger.directory, &file_name(after));
            after += 1;
        }
        ledger.written = entries.len();
        Ok((ledger, entries))
    }

    /// The file the next commit is to name (`None`: no ledger).
    pub fn tip(&self) -> Option<u64> {
        self.tip
    }

    /// Appends `entries` as a new file of the chain, before tantivy's commit.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub fn append(&mut self, entries: &[Entry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let before = self.tip.unwrap_or(NONE);
        let kind = if before == NONE { BASE } else { CHUNK };
        self.write_file(kind, before, entries.iter())?;
        self.chained += 1;
        self.written += entries.len();
        Ok(())
    }

    /// Whether the entries were read from a format-1 ledger, which the next commit rewrites.
    pub fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// Whether the ledger is due for a rewrite with `live` entries: more dead ones than
    /// live, too many files, or read from a format-1 ledger.
    pub fn due(&self, live: usize) -> bool {
        self.legacy || self.written > 2 * live || self.chained > MAX_CHUNKS
    }

    /// Starts a new chain: `live` as a base, before tantivy's commit. The files it replaces
    /// are deleted once a commit names it.
    ///
    /// # Errors
    /// [`Error::Io`] when the base cannot be written.
    pub fn compact<'e>(&mut self, live: impl Iterator<Item = &'e Entry>) -> Result<()> {
        let replaced = match self.tip {
            Some(tip) => (tip + 1 - self.chained..=tip).map(file_name).collect(),
            None => Vec::new(),
        };
        self.written = self.write_file(BASE, NONE, live)?;
        self.garbage.extend(replaced);
        self.chained = 1;
        self.legacy = false;
        Ok(())
    }

    /// tantivy committed, naming [`tip`](Self::tip): the files it replaced go, and
    /// [`LEDGER_FILE`] names the tip for a reader of a later commit made without us.
    ///
    /// # Errors
    /// [`Error::Io`] when the hint cannot be written.
    pub fn committed(&mut self) -> Result<()> {
        if self.tip != self.hinted {
            if let Some(tip) = self.tip {
                let mut bytes = Vec::with_capacity(HEADER);
                push_header(&mut bytes, HINT, tip, 0);
                let path = Path::new(LEDGER_FILE);
                (self.directory.atomic_write(path, &bytes)).map_err(|source| Error::Io {
                    path: path.to_owned(),
                    source,
                })?;
                self.hinted = self.tip;
            }
        }
        // A format-1 ledger's files go once a chain holds their entries.
        if !self.legacy {
            self.collect();
        }
        Ok(())
    }

    /// Writes file `tip + 1` of `kind`; the number of entries written.
    fn write_file<'e>(
        &mut self,
        kind: u8,
        before: u64,
        entries: impl Iterator<Item = &'e Entry>,
    ) -> Result<usize> {
        let mut body = Vec::new();
        let mut count = 0;
        for entry in entries {
            entry.encode(&mut body);
            count += 1;
        }
        let mut bytes = Vec::with_capacity(HEADER + body.len());
        push_header(&mut bytes, kind, before, xxh3_64(&body));
        bytes.extend_from_slice(&body);
        let number = self.tip.map_or(0, |tip| tip + 1);
        let path = file_name(number);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        // Synced (the file by the atomic write, its name by the folder's sync) before the
        // commit that names it.
        self.directory.atomic_write(&path, &bytes).map_err(io)?;
        self.directory.sync_directory().map_err(io)?;
        self.tip = Some(number);
        Ok(count)
    }

    /// Deletes the files no commit names any more, in the order listed (a chain's lowest
    /// number first: a crash midway leaves the files right below the new base, where the
    /// next writer looks); a failure leaves a file no one reads.
    fn collect(&mut self) {
        for path in self.garbage.drain(..) {
            remove(&*self.directory, &path);
        }
    }
}

/// The name of ledger file `number`.
pub(super) fn file_name(number: u64) -> PathBuf {
    PathBuf::from(format!("{LEDGER_FILE}.{number}"))
}

fn push_header(bytes: &mut Vec<u8>, kind: u8, before: u64, checksum: u64) {
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[FORMAT, kind, 0]);
    bytes.extend_from_slice(&before.to_le_bytes());
    bytes.extend_from_slice(&checksum.to_le_bytes());
}

/// A ledger file's kind, the number of the file before it, and its entries' bytes, checked
/// whole.
fn parse<'b>(bytes: &'b [u8], path: &Path) -> Result<(u8, u64, &'b [u8])> {
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    match bytes.get(..8) {
        Some(head) if &head[..5] == MAGIC && head[5] > FORMAT => Err(damaged(
            path,
            &format!(
                "format {} is a later tantivy-dedup's (this one reads {FORMAT})",
                head[5]
            ),
        )),
        Some(head) if &head[..5] == MAGIC && head[5] == FORMAT && bytes.len() >= HEADER => {
            let (kind, before, body) = (head[6], word(8), &bytes[HEADER..]);
            if !matches!((kind, before == NONE), (BASE, true) | (CHUNK, false)) {
                return Err(damaged(path, "not a file of the ledger's chain"));
            }
            if xxh3_64(body) != word(16) {
                return Err(damaged(path, "its entries do not match their checksum"));
            }
            Ok((kind, before, body))
        }
        _ => Err(damaged(
            path,
            "not a ledger file of tantivy-dedup, or cut short",
        )),
    }
}

/// The tip [`LEDGER_FILE`] names, if it is there.
fn read_hint(directory: &dyn Directory) -> Result<Option<u64>> {
    let path = Path::new(LEDGER_FILE);
    let Some(bytes) = read(directory, path)? else {
        return Ok(None);
    };
    match bytes.get(..8) {
        Some(head) if &head[..5] == MAGIC && head[5] == FORMAT && head[6] == HINT => {
            let tip = (bytes.get(8..16)).ok_or_else(|| damaged(path, "cut short"))?;
            Ok(Some(u64::from_le_bytes(tip.try_into().expect("8 bytes"))))
        }
        _ => Err(damaged(
            path,
            "not the ledger's pointer file of tantivy-dedup",
        )),
    }
}

/// Decodes the entries of `bytes` into `entries`. An entry cut short is damage, but in a
/// format-1 file (`tolerant`), whose last entry may be cut short and is left out.
fn decode<'b>(
    mut bytes: &'b [u8],
    path: &'b Path,
    entries: &mut Vec<Entry>,
    tolerant: bool,
) -> Result<()> {
    let cut = || damaged(path, "an entry is cut short");
    while let Some((&tag, rest)) = bytes.split_first() {
        let mut reader = Reader { bytes: rest, path };
        let entry = match tag {
            WATCH => (|| {
                let reference = reader.key()?;
                let rejected = reader.key()?;
                let version = match reader.take(1) {
                    Some([0]) => Some(None),
                    Some([1]) => (reader.take(8))
                        .map(|v| Some(u64::from_le_bytes(v.try_into().expect("8 bytes")))),
                    Some(_) => return Err(damaged(path, "a bad version")),
                    None => None,
                };
                Ok(match (reference, rejected, version) {
                    (Some(reference), Some(rejected), Some(version)) => Some(Entry::Watch {
                        reference,
                        rejected,
                        version,
                    }),
                    _ => None,
                })
            })()?,
            UNWATCH => (reader.key()?).map(|rejected| Entry::Unwatch { rejected }),
            DROP => (reader.key()?).map(|reference| Entry::Drop { reference }),
            LOST if !tolerant => match (reader.key()?, reader.key()?) {
                (Some(rejected), Some(after)) => Some(Entry::Lost { rejected, after }),
                _ => None,
            },
            DELIVERED if !tolerant => (reader.key()?).map(|rejected| Entry::Delivered { rejected }),
            DECIDED if !tolerant => match (reader.key()?, reader.key()?, reader.key()?) {
                (Some(rejected), Some(after), Some(outcome)) => Some(Entry::Decided {
                    rejected,
                    after,
                    outcome,
                }),
                _ => None,
            },
            other => {
                return Err(damaged(path, &format!("an entry of unknown kind {other}")));
            }
        };
        let Some(entry) = entry else {
            return if tolerant { Ok(()) } else { Err(cut()) };
        };
        entries.push(entry);
        bytes = reader.bytes;
    }
    Ok(())
}

/// The bytes left of an entry; `None` from a read past the end (the entry is cut short).
struct Reader<'b> {
    bytes: &'b [u8],
    path: &'b Path,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        if self.bytes.len() < n {
            self.bytes = &[];
            return None;
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(taken)
    }

    fn key(&mut self) -> Result<Option<String>> {
        let Some(length) = self.take(4) else {
            return Ok(None);
        };
        let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
        let Some(bytes) = self.take(length) else {
            return Ok(None);
        };
        match std::str::from_utf8(bytes) {
            Ok(key) => Ok(Some(key.to_owned())),
            Err(_) => Err(damaged(self.path, "a key that is not UTF-8")),
        }
    }
}

fn damaged(path: &Path, reason: &str) -> Error {
    Error::Ledger {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

fn read(directory: &dyn Directory, path: &Path) -> Result<Option<Vec<u8>>> {
    match directory.atomic_read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(OpenReadError::FileDoesNotExist(_)) => Ok(None),
        Err(error) => Err(read_error(path, error)),
    }
}

fn exists(directory: &dyn Directory, path: &Path) -> Result<bool> {
    (directory.exists(path)).map_err(|error| Error::Io {
        path: path.to_owned(),
        source: std::io::Error::other(error),
    })
}

/// Deletes a file no longer read, if it is there; a failure leaves a file no one reads.
fn remove(directory: &dyn Directory, path: &Path) {
    match directory.delete(path) {
        Ok(()) | Err(DeleteError::FileDoesNotExist(_)) => {}
        Err(DeleteError::IoError { .. }) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::directory::RamDirectory;

    fn entries() -> Vec<Entry> {
        vec![
            Entry::Watch {
                reference: "j".into(),
                rejected: "é\n\"r\"".repeat(10_000),
                version: Some(u64::MAX),
            },
            Entry::Watch {
                reference: String::new(),
                rejected: "r2".into(),
                version: None,
            },
            Entry::Unwatch {
                rejected: "r2".into(),
            },
            Entry::Drop {
                reference: "j".into(),
            },
            Entry::Lost {
                rejected: "r3".into(),
                after: "j".into(),
            },
            Entry::Delivered {
                rejected: "r3".into(),
            },
            Entry::Decided {
                rejected: "r4".into(),
                after: "k".into(),
                outcome: "{}".into(),
            },
        ]
    }

    fn open(directory: &RamDirectory, named: Named) -> Result<(Ledger, Vec<Entry>)> {
        Ledger::open(Box::new(directory.clone()), named)
    }

    /// Appends and commits as a writer does; the tip the commit names.
    fn commit(ledger: &mut Ledger, entries: &[Entry]) -> Option<u64> {
        ledger.append(entries).unwrap();
        ledger.committed().unwrap();
        ledger.tip()
    }

    #[test]
    fn entries_come_back_in_the_order_written_across_files_and_a_compaction() {
        let directory = RamDirectory::create();
        let (mut ledger, read) = open(&directory, Named::Tip(None)).unwrap();
        assert!(read.is_empty());
        let written = entries();
        commit(&mut ledger, &written[..2]);
        let tip = commit(&mut ledger, &written[2..]);
        assert_eq!(open(&directory, Named::Tip(tip)).unwrap().1, written);
        ledger.compact(written[1..2].iter()).unwrap();
        ledger.append(&written[..1]).unwrap();
        ledger.committed().unwrap();
        assert!(!directory.exists(&file_name(0)).unwrap(), "replaced");
        let (reopened, read) = open(&directory, Named::Tip(ledger.tip())).unwrap();
        assert_eq!(read, [written[1].clone(), written[0].clone()]);
        assert_eq!(
            (reopened.tip, reopened.chained, reopened.written),
            (Some(3), 2, 2)
        );
    }

    #[test]
    fn files_of_a_commit_that_never_happened_are_ignored_and_deleted() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = open(&directory, Named::Tip(None)).unwrap();
        let tip = commit(&mut ledger, &entries()[..1]);
        // Written, then killed before tantivy's commit: the commit names file 0 still.
        ledger.append(&entries()[1..]).unwrap();
        ledger.compact(entries()[1..2].iter()).unwrap();
        let (mut reopened, read) = open(&directory, Named::Tip(tip)).unwrap();
        assert_eq!(read, entries()[..1]);
        assert!(!directory.exists(&file_name(1)).unwrap());
        assert!(!directory.exists(&file_name(2)).unwrap());
        // The re-run writes the same names again, and they are read.
        let tip = commit(&mut reopened, &entries()[1..]);
        assert_eq!(open(&directory, Named::Tip(tip)).unwrap().1, entries());
    }

    #[test]
    fn a_file_the_commit_names_missing_or_changed_stops_the_writer_naming_it() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = open(&directory, Named::Tip(None)).unwrap();
        for entry in entries() {
            commit(&mut ledger, &[entry]);
        }
        let tip = ledger.tip();
        let middle = file_name(2);
        let bytes = directory.atomic_read(&middle).unwrap();
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let mut length = bytes.clone();
        length[HEADER + 1] ^= 1;
        for (what, damaged) in [
            ("a byte flipped", Some(flipped)),
            ("a key's length changed", Some(length)),
            ("cut short", Some(bytes[..bytes.len() - 3].to_vec())),
            ("empty", Some(Vec::new())),
            ("missing", None),
        ] {
            match damaged {
                Some(damaged) => directory.atomic_write(&middle, &damaged).unwrap(),
                None => directory.delete(&middle).unwrap(),
            }
            let error = open(&directory, Named::Tip(tip)).unwrap_err();
            assert!(matches!(error, Error::Ledger { .. }), "{what}: {error:?}");
            assert!(
                error.to_string().contains(".tantivy-dedup-ledger.2"),
                "{what}: {error}"
            );
            directory.atomic_write(&middle, &bytes).unwrap();
        }
        // The tip itself, and the base.
        for number in [0, tip.unwrap()] {
            let name = file_name(number);
            let bytes = directory.atomic_read(&name).unwrap();
            directory.delete(&name).unwrap();
            assert!(open(&directory, Named::Tip(tip)).is_err(), "file {number}");
            directory.atomic_write(&name, &bytes).unwrap();
        }
        assert_eq!(open(&directory, Named::Tip(tip)).unwrap().1, entries());
    }

    #[test]
    fn a_chain_a_compaction_replaced_is_deleted_whole_even_after_a_crash_midway() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = open(&directory, Named::Tip(None)).unwrap();
        for entry in entries() {
            commit(&mut ledger, &[entry]);
        }
        ledger.compact(entries()[..1].iter()).unwrap();
        let tip = ledger.tip();
        let files = entries().len() as u64;
        assert_eq!(tip, Some(files), "the base follows the chain");
        // Committed, then killed after the first deletion: the lowest number went first.
        directory.delete(&file_name(0)).unwrap();
        let (_, read) = open(&directory, Named::Tip(tip)).unwrap();
        assert_eq!(read, entries()[..1]);
        for number in 0..6 {
            assert!(
                !directory.exists(&file_name(number)).unwrap(),
                "file {number}"
            );
        }
    }

    #[test]
    fn a_later_format_is_refused() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = open(&directory, Named::Tip(None)).unwrap();
        let tip = commit(&mut ledger, &entries());
        let mut bytes = directory.atomic_read(&file_name(0)).unwrap();
        bytes[5] = FORMAT + 1;
        directory.atomic_write(&file_name(0), &bytes).unwrap();
        let error = open(&directory, Named::Tip(tip)).unwrap_err();
        assert!(error.to_string().contains("later tantivy-dedup"), "{error}");
    }

    #[test]
    fn after_a_commit_made_without_us_the_pointer_file_names_the_tip() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = open(&directory, Named::Tip(None)).unwrap();
        commit(&mut ledger, &entries()[..3]);
        // Killed after tantivy's commit, before the pointer file was written again.
        ledger.append(&entries()[3..]).unwrap();
        assert_eq!(open(&directory, Named::Unknown).unwrap().1, entries());
    }

    #[test]
    fn a_format_one_ledger_is_read_then_replaced_by_a_chain() {
        let directory = RamDirectory::create();
        let mut bytes = b"tdrej\x01\x00\x00".to_vec();
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        entries()[0].encode(&mut bytes);
        // Its last entry cut short, as format 1 allowed.
        bytes.extend_from_slice(&[DROP, 9, 0]);
        (directory.atomic_write(Path::new(legacy::LEGACY_FILE), &bytes)).unwrap();
        let (mut ledger, read) = open(&directory, Named::Unknown).unwrap();
        assert_eq!(read, entries()[..1]);
        assert!(ledger.due(usize::MAX / 4));
        ledger.compact(read.iter()).unwrap();
        ledger.committed().unwrap();
        assert!(!directory.exists(Path::new(legacy::LEGACY_FILE)).unwrap());
        assert_eq!(open(&directory, Named::Tip(ledger.tip())).unwrap().1, read);
    }
}
