//! The ledger as versions before the commit point wrote it (format 1): a base file,
//! [`LEGACY_FILE`], and chunks numbered after it, none named by a commit. Read once by the
//! first writer of this version, which writes its entries as a new ledger and deletes these
//! files once a commit names that one.
//!
//! A file is an 8-byte header (`tdrej`, format 1, the file's kind, 0), for the base two
//! `u64` (its first chunk, and the first chunk a compaction left to delete), then entries
//! as [`Entry::encode`] writes them.

use std::path::{Path, PathBuf};

use tantivy::Directory;

use super::{damaged, decode, read, Entry, MAGIC};
use crate::error::Result;

/// The base file of a format-1 ledger; its chunks are this name, a dot and a number.
pub(super) const LEGACY_FILE: &str = ".tantivy-dedup-rejections";
const FORMAT: u8 = 1;
const HEADER: usize = 8;
const BASE: u8 = 0;
const CHUNK: u8 = 1;

/// A format-1 ledger's entries, in the order written, and every file of it (to delete once
/// a commit names the new ledger); `None` when there is none.
///
/// # Errors
/// [`Error::Ledger`](crate::Error::Ledger) for a damaged file, as the format-1 reader did: an
/// entry cut short at the end of a file is the one thing left out.
pub(super) fn read_legacy(directory: &dyn Directory) -> Result<Option<(Vec<Entry>, Vec<PathBuf>)>> {
    let base = Path::new(LEGACY_FILE);
    let Some(bytes) = read(directory, base)? else {
        return Ok(None);
    };
    let mut entries = Vec::new();
    let body = header(&bytes, BASE, base)?;
    let numbers = (body.get(..16)).ok_or_else(|| damaged(base, "short"))?;
    let number = |at: usize| u64::from_le_bytes(numbers[at..at + 8].try_into().expect("8 bytes"));
    decode(&body[16..], base, &mut entries, true)?;
    let (first, stale_from) = (number(0), number(8));
    let mut files = vec![base.to_owned()];
    files.extend((stale_from..first).map(chunk_name));
    let mut next = first;
    while let Some(bytes) = read(directory, &chunk_name(next))? {
        let name = chunk_name(next);
        if bytes.len() >= HEADER {
            decode(header(&bytes, CHUNK, &name)?, &name, &mut entries, true)?;
        }
        files.push(name);
        next += 1;
    }
    Ok(Some((entries, files)))
}

fn chunk_name(number: u64) -> PathBuf {
    PathBuf::from(format!("{LEGACY_FILE}.{number}"))
}

fn header<'b>(bytes: &'b [u8], kind: u8, path: &Path) -> Result<&'b [u8]> {
    match bytes.get(..HEADER) {
        Some(head) if &head[..5] == MAGIC && head[5] == FORMAT && head[6] == kind => {
            Ok(&bytes[HEADER..])
        }
        _ => Err(damaged(path, "not a ledger file of tantivy-dedup")),
    }
}
