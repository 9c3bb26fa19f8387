//! `ColumnCache`: the fast-field columns a [`DedupCollector`](crate::plugin::DedupCollector) reads,
//! kept across searches.
//!
//! Opening a column looks its name up in the segment's columnar directory, a cost per
//! segment and search that `TopDocs` does not pay (`docs/BENCHMARKS.md`). Segments are
//! immutable (deletes live in a separate bitset), so a segment's columns, once opened, serve
//! every later search of it.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use tantivy::index::SegmentId;
use tantivy::Searcher;

use crate::plugin::columns::segment::SegmentColumns;

/// Entries kept at most when searches bypass
/// [`DedupCollector::search`](crate::plugin::DedupCollector::search), which drops the segments its
/// searcher no longer has: more than a large index has segments across a few reloads. When
/// full, the cache is emptied (segments merged away are never asked for again).
const CAPACITY: usize = 1024;

/// A cache of opened fast-field columns by segment, shared by clones (an `Arc`): give one to
/// every [`DedupCollector`](crate::plugin::DedupCollector) of an index with
/// [`column_cache`](crate::plugin::DedupCollector::column_cache), as
/// [`DedupIndex::collector`](crate::plugin::DedupIndex::collector) does.
#[derive(Clone, Default)]
pub struct ColumnCache {
    // FxHash: a lookup per segment and search, on keys no outsider chooses.
    columns: Arc<Mutex<FxHashMap<(SegmentId, u64), SegmentColumns>>>,
}

impl ColumnCache {
    /// An empty cache.
    pub fn new() -> ColumnCache {
        ColumnCache::default()
    }

    /// The columns of `segment` for the fields identified by `fields`, opened with `open`
    /// on a miss.
    pub(crate) fn get_or_open<E>(
        &self,
        segment: SegmentId,
        fields: u64,
        open: impl FnOnce() -> Result<SegmentColumns, E>,
    ) -> Result<SegmentColumns, E> {
        let key = (segment, fields);
        if let Some(columns) = self.lock().get(&key) {
            return Ok(columns.clone());
        }
        let columns = open()?;
        let mut cache = self.lock();
        if cache.len() >= CAPACITY {
            cache.clear();
        }
        cache.insert(key, columns.clone());
        Ok(columns)
    }

    /// Drops the columns of segments none of `searchers` has: merged away, their files
    /// deleted, and kept from the disk only by the open columns' memory maps.
    pub(crate) fn retain_segments_of(&self, searchers: &[Searcher]) {
        let readers = || searchers.iter().flat_map(Searcher::segment_readers);
        let mut cache = self.lock();
        // Searchers of the same generation leave nothing to drop: the common case, checked
        // without building a set (a few segments, a few collectors sharing the cache).
        let is_live = |segment: &SegmentId| readers().any(|r| r.segment_id() == *segment);
        if cache.keys().all(|(segment, _)| is_live(segment)) {
            return;
        }
        let live: HashSet<SegmentId> = readers().map(|r| r.segment_id()).collect();
        cache.retain(|(segment, _), _| live.contains(segment));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<(SegmentId, u64), SegmentColumns>> {
        // The map holds no invariant a panic could break.
        self.columns.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for ColumnCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnCache")
            .field("segments", &self.lock().len())
            .finish()
    }
}
