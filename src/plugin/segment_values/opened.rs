//! The values files opened in this process, by segment, while anything holds them.
//!
//! tantivy opens its own components when it opens a segment reader, so a searcher keeps
//! reading a segment after a merge and the garbage collection that follows delete its
//! files. A plugin's file is opened by path when first read, which fails once the file is
//! deleted. So a file, once opened, is shared through this registry: a searcher whose
//! segments are pinned (`pin`, as the writer pins the commit it compares with) reads
//! them for as long as the pins live, whatever became of the files.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use tantivy::directory::error::OpenReadError;
use tantivy::index::{SegmentComponent, SegmentId};
use tantivy::{IndexReader, Searcher, SegmentReader, TantivyError};

use super::file::Layout;
use super::{SegmentValues, EXTENSION};
use crate::error::{Error, Result};

static OPENED: LazyLock<Mutex<HashMap<SegmentId, Weak<Layout>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The values of `reader`'s segment: the ones held elsewhere in the process, else read
/// from its file.
///
/// # Errors
/// [`Error::Tantivy`](crate::Error::Tantivy) when the file cannot be read (a segment of an
/// index without the component has none); [`Error::Decode`](crate::Error::Decode) when it
/// is damaged.
pub(crate) fn open(reader: &SegmentReader) -> Result<SegmentValues> {
    let id = reader.segment_id();
    if let Some(layout) = lock().get(&id).and_then(Weak::upgrade) {
        return Ok(SegmentValues(layout));
    }
    let component = SegmentComponent::Custom(EXTENSION.to_owned());
    let bytes = reader
        .open_read(component)
        .map_err(TantivyError::from)?
        .read_bytes()
        .map_err(TantivyError::from)?;
    let values = SegmentValues::open(bytes, reader.max_doc())?;
    let mut opened = lock();
    // Entries nothing holds any more go as new ones come.
    opened.retain(|_, layout| layout.strong_count() > 0);
    let layout = opened
        .entry(id)
        .or_insert_with(|| Arc::downgrade(&values.0))
        .upgrade();
    Ok(layout.map_or(values, SegmentValues))
}

/// The values of every segment of `searcher`, held so that the searcher reads them as long
/// as they are; `None` when a file is gone already (a merge and its garbage collection came
/// between the searcher's opening and this call: a searcher opened again has other
/// segments). Empty for an index without the component.
///
/// # Errors
/// As [`open`], for other failures.
pub(crate) fn pin(searcher: &Searcher) -> Result<Option<Vec<SegmentValues>>> {
    let mut pinned = Vec::with_capacity(searcher.segment_readers().len());
    for reader in searcher.segment_readers() {
        if !crate::plugin::columns::fingerprint::has_segment_values(reader.schema()) {
            return Ok(Some(Vec::new()));
        }
        match open(reader) {
            Ok(values) => pinned.push(values),
            Err(Error::Tantivy(TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(
                _,
            )))) => return Ok(None),
            Err(error) => return Err(error),
        }
    }
    Ok(Some(pinned))
}

/// A searcher of `reader` whose segments are pinned ([`pin`]), reloaded while a file is
/// gone (a few times: a file that stays gone is a damaged index).
///
/// # Errors
/// As [`pin`], and tantivy's when the reader cannot reload; the missing file's when a
/// searcher opened again still lacks it.
pub(crate) fn pinned_searcher(reader: &IndexReader) -> Result<(Searcher, Vec<SegmentValues>)> {
    const ATTEMPTS: usize = 8;
    for _ in 0..ATTEMPTS {
        let searcher = reader.searcher();
        if let Some(pins) = pin(&searcher)? {
            return Ok((searcher, pins));
        }
        // The segments are those of an older commit: the next searcher has the merge's.
        reader.reload()?;
    }
    let searcher = reader.searcher();
    let pins = (searcher.segment_readers().iter())
        .map(open)
        .collect::<Result<Vec<_>>>()?;
    Ok((searcher, pins))
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<SegmentId, Weak<Layout>>> {
    OPENED.lock().unwrap_or_else(PoisonError::into_inner)
}
