//! The ledger of rejected records: an append-only log, in the index folder, of what a writer
//! under [`Policy::Reject`](super::Policy) watches (a record rejected near a document, by
//! key and text version) and stops watching, so that a later writer knows it. A database's
//! write-ahead log, for one table, replayed whole when a writer opens.
//!
//! tantivy's [`Directory`] cannot append to a file, and the index may be in RAM: the log is
//! a base file ([`REJECTIONS_FILE`]) and numbered chunks (`REJECTIONS_FILE.<n>`), each
//! written whole by [`Directory::atomic_write`] at a commit, then the directory synced. A
//! compaction writes the live entries as a new base that names its first chunk, then
//! deletes the chunks it folded in; a crash between the two leaves chunks the base no
//! longer reads, which the next writer deletes.
//!
//! A file is an 8-byte header (`tdrej`, the format version, the file's kind, 0), for the
//! base two `u64` (its first chunk, and the first chunk a compaction left to delete), then
//! entries: a tag byte, keys as a `u32` length and UTF-8 bytes, a version as a presence
//! byte and a `u64`, all little-endian. An entry cut short at the end of a file (no atomic
//! rename on the file system, a copy cut short) is ignored, and the next write rewrites the
//! ledger.

use std::path::{Path, PathBuf};

use tantivy::directory::error::{DeleteError, OpenReadError};
use tantivy::Directory;

use crate::error::{Error, Result};
use crate::plugin::REJECTIONS_FILE;

/// The format written; a ledger of another is refused.
const FORMAT: u8 = 1;
const MAGIC: &[u8; 5] = b"tdrej";
const HEADER: usize = 8;
const BASE: u8 = 0;
const CHUNK: u8 = 1;
/// Chunks before a compaction, whatever the dead entries: a commit that watches anything
/// writes one, and a folder of thousands of them is slow to open.
const MAX_CHUNKS: u64 = 64;

const WATCH: u8 = 1;
const UNWATCH: u8 = 2;
const DROP: u8 = 3;

/// One change of the watches.
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
        }
    }
}

/// The ledger's files, as a writer last read or wrote them.
pub(super) struct Ledger {
    directory: Box<dyn Directory>,
    /// The first chunk the base names.
    first: u64,
    /// The next chunk to write.
    next: u64,
    /// Entries in the base and the chunks, live or not.
    written: usize,
    /// A file ended in an entry cut short: the next write rewrites the ledger.
    torn: bool,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("first", &self.first)
            .field("next", &self.next)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl Ledger {
    /// Reads the ledger of `directory` (none yet: empty), in the order it was written, and
    /// deletes the chunks a compaction left behind.
    ///
    /// # Errors
    /// [`Error::Ledger`] for a damaged file; [`Error::Io`] when one cannot be read.
    pub fn open(directory: Box<dyn Directory>) -> Result<(Ledger, Vec<Entry>)> {
        let mut entries = Vec::new();
        let mut torn = false;
        let (first, stale_from) = match read(&*directory, Path::new(REJECTIONS_FILE))? {
            Some(bytes) => {
                let body = header(&bytes, BASE, Path::new(REJECTIONS_FILE))?;
                let numbers = body
                    .get(..16)
                    .ok_or_else(|| damaged(REJECTIONS_FILE, "short"))?;
                let number = |at: usize| {
                    u64::from_le_bytes(numbers[at..at + 8].try_into().expect("8 bytes"))
                };
                torn |= decode(&body[16..], Path::new(REJECTIONS_FILE), &mut entries)?;
                (number(0), number(8))
            }
            None => (0, 0),
        };
        for stale in stale_from..first {
            remove(&*directory, &chunk_name(stale));
        }
        let mut next = first;
        while let Some(bytes) = read(&*directory, &chunk_name(next))? {
            let name = chunk_name(next);
            // An atomic write leaves no chunk shorter than its header: one is cut short.
            match bytes.len() < HEADER {
                true => torn = true,
                false => torn |= decode(header(&bytes, CHUNK, &name)?, &name, &mut entries)?,
            }
            next += 1;
        }
        let written = entries.len();
        let ledger = Ledger {
            directory,
            first,
            next,
            written,
            torn,
        };
        Ok((ledger, entries))
    }

    /// Appends `entries` as a new chunk, synced before it returns.
    ///
    /// # Errors
    /// [`Error::Io`] when the chunk cannot be written.
    pub fn append(&mut self, entries: &[Entry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::with_capacity(HEADER + 64 * entries.len());
        push_header(&mut bytes, CHUNK);
        for entry in entries {
            entry.encode(&mut bytes);
        }
        let name = chunk_name(self.next);
        write(&*self.directory, &name, &bytes)?;
        self.next += 1;
        self.written += entries.len();
        Ok(())
    }

    /// Whether a file ended in an entry cut short (the next write rewrites the ledger).
    pub fn is_torn(&self) -> bool {
        self.torn
    }

    /// Whether the ledger is due for a rewrite with `live` entries: more dead ones than
    /// live, too many chunks, or a file cut short.
    pub fn due(&self, live: usize) -> bool {
        self.torn || self.written > 2 * live || self.next - self.first > MAX_CHUNKS
    }

    /// Rewrites the ledger as `live` (a new base, synced), then deletes the chunks it
    /// replaces.
    ///
    /// # Errors
    /// [`Error::Io`] when the base cannot be written.
    pub fn compact(&mut self, live: impl Iterator<Item = Entry>) -> Result<()> {
        let mut bytes = Vec::new();
        push_header(&mut bytes, BASE);
        // Chunks from `next` on are the new base's; the old ones, from `first`, are to
        // delete (by the next writer, if this one stops before it does).
        bytes.extend_from_slice(&self.next.to_le_bytes());
        bytes.extend_from_slice(&self.first.to_le_bytes());
        let mut written = 0;
        for entry in live {
            entry.encode(&mut bytes);
            written += 1;
        }
        write(&*self.directory, Path::new(REJECTIONS_FILE), &bytes)?;
        for stale in self.first..self.next {
            remove(&*self.directory, &chunk_name(stale));
        }
        self.first = self.next;
        self.written = written;
        self.torn = false;
        Ok(())
    }
}

/// The name of chunk `number`.
fn chunk_name(number: u64) -> PathBuf {
    PathBuf::from(format!("{REJECTIONS_FILE}.{number}"))
}

fn push_header(bytes: &mut Vec<u8>, kind: u8) {
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[FORMAT, kind, 0]);
}

/// The bytes after `bytes`' header, checked to be of a ledger file of `kind`.
fn header<'b>(bytes: &'b [u8], kind: u8, path: &Path) -> Result<&'b [u8]> {
    let name = path.to_string_lossy();
    match bytes.get(..HEADER) {
        Some(head) if &head[..5] == MAGIC && head[5] == FORMAT && head[6] == kind => {
            Ok(&bytes[HEADER..])
        }
        Some(head) if &head[..5] == MAGIC && head[5] > FORMAT => Err(damaged(
            &name,
            &format!(
                "format {} is a later tantivy-dedup's (this one reads {FORMAT})",
                head[5]
            ),
        )),
        _ => Err(damaged(&name, "not a ledger file of tantivy-dedup")),
    }
}

/// Decodes the entries of `bytes` into `entries`; whether the last was cut short (and left
/// out).
fn decode<'b>(mut bytes: &'b [u8], path: &'b Path, entries: &mut Vec<Entry>) -> Result<bool> {
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
                    Some(_) => return Err(damaged(&path.to_string_lossy(), "a bad version")),
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
            other => {
                return Err(damaged(
                    &path.to_string_lossy(),
                    &format!("an entry of unknown kind {other}"),
                ))
            }
        };
        let Some(entry) = entry else {
            return Ok(true);
        };
        entries.push(entry);
        bytes = reader.bytes;
    }
    Ok(false)
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
            Err(_) => Err(damaged(
                &self.path.to_string_lossy(),
                "a key that is not UTF-8",
            )),
        }
    }
}

fn damaged(name: &str, reason: &str) -> Error {
    Error::Ledger {
        path: PathBuf::from(name),
        reason: reason.to_owned(),
    }
}

fn read(directory: &dyn Directory, path: &Path) -> Result<Option<Vec<u8>>> {
    match directory.atomic_read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(OpenReadError::FileDoesNotExist(_)) => Ok(None),
        Err(error) => Err(Error::Io {
            path: path.to_owned(),
            source: std::io::Error::other(error),
        }),
    }
}

/// Writes `bytes` as `path` whole, and syncs the directory so that the new name outlives a
/// crash: the ledger is written before tantivy's commit, which it must not trail.
fn write(directory: &dyn Directory, path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    directory.atomic_write(path, bytes).map_err(io)?;
    directory.sync_directory().map_err(io)
}

/// Deletes a chunk no longer read, if it is there; a failure leaves a file no one reads.
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
        ]
    }

    #[test]
    fn entries_come_back_in_the_order_written_across_chunks_and_a_compaction() {
        let directory = RamDirectory::create();
        let (mut ledger, read) = Ledger::open(Box::new(directory.clone())).unwrap();
        assert!(read.is_empty());
        let written = entries();
        ledger.append(&written[..2]).unwrap();
        ledger.append(&written[2..]).unwrap();
        let (_, read) = Ledger::open(Box::new(directory.clone())).unwrap();
        assert_eq!(read, written);
        ledger.compact(written[1..2].iter().cloned()).unwrap();
        assert!(!directory.exists(&chunk_name(0)).unwrap(), "folded in");
        ledger.append(&written[..1]).unwrap();
        let (reopened, read) = Ledger::open(Box::new(directory)).unwrap();
        assert_eq!(read, [written[1].clone(), written[0].clone()]);
        assert_eq!((reopened.first, reopened.next, reopened.written), (2, 3, 2));
    }

    #[test]
    fn an_entry_cut_short_is_ignored_and_the_next_write_rewrites() {
        // The last entry (a drop of "j") is 6 bytes.
        for cut in 1..6 {
            let directory = RamDirectory::create();
            let (mut ledger, _) = Ledger::open(Box::new(directory.clone())).unwrap();
            ledger.append(&entries()[1..]).unwrap();
            let name = chunk_name(0);
            let bytes = directory.atomic_read(&name).unwrap();
            directory
                .atomic_write(&name, &bytes[..bytes.len() - cut])
                .unwrap();
            let (ledger, read) = Ledger::open(Box::new(directory)).unwrap();
            assert_eq!(read, entries()[1..3], "cut {cut}");
            assert!(ledger.torn && ledger.due(usize::MAX / 4), "cut {cut}");
        }
    }

    #[test]
    fn a_damaged_ledger_is_an_error_naming_the_file() {
        let directory = RamDirectory::create();
        let name = Path::new(REJECTIONS_FILE);
        directory
            .atomic_write(name, b"not a ledger at all")
            .unwrap();
        let error = Ledger::open(Box::new(directory.clone())).unwrap_err();
        assert!(matches!(error, Error::Ledger { .. }), "{error:?}");
        assert!(error.to_string().contains(REJECTIONS_FILE), "{error}");
        let mut bytes = Vec::new();
        push_header(&mut bytes, BASE);
        bytes.extend_from_slice(&[0; 16]);
        bytes.push(9);
        directory.atomic_write(name, &bytes).unwrap();
        let error = Ledger::open(Box::new(directory.clone())).unwrap_err();
        assert!(error.to_string().contains("unknown kind 9"), "{error}");
        bytes[5] = FORMAT + 1;
        directory.atomic_write(name, &bytes).unwrap();
        let error = Ledger::open(Box::new(directory)).unwrap_err();
        assert!(error.to_string().contains("later tantivy-dedup"), "{error}");
    }

    #[test]
    fn chunks_a_compaction_left_are_deleted_by_the_next_writer() {
        let directory = RamDirectory::create();
        let (mut ledger, _) = Ledger::open(Box::new(directory.clone())).unwrap();
        ledger.append(&entries()).unwrap();
        // The base as a compaction writes it, before it deletes the chunk it folded in.
        let mut bytes = Vec::new();
        push_header(&mut bytes, BASE);
        bytes.extend_from_slice(&1u64.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        (directory.atomic_write(Path::new(REJECTIONS_FILE), &bytes)).unwrap();
        let (_, read) = Ledger::open(Box::new(directory.clone())).unwrap();
        assert!(read.is_empty());
        assert!(!directory.exists(&chunk_name(0)).unwrap());
    }
}
