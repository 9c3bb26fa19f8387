//! `ColumnCache`: the fast-field columns a [`DedupCollector`](crate::plugin::DedupCollector) reads,
//! kept across searches.
//!
//! Opening a column looks its name up in the segment's columnar directory, a cost per
//! segment and search that `TopDocs` does not pay (`docs/BENCHMARKS.md`). Segments are
//! immutable (deletes live in a separate bitset), so a segment's columns, once opened, serve
//! every later search of it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
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
/// [`DedupIndex::collector`](crate::plugin::DedupIndex::collector) does. Each segment's
/// columns also keep what the searches learned of how many hits the segment must give for
/// a page to end in one pass.
#[derive(Clone, Default)]
pub struct ColumnCache {
    // FxHash: a lookup per segment and search, on keys no outsider chooses.
    columns: Arc<Mutex<FxHashMap<(SegmentId, u64), SegmentColumns>>>,
}

/// What the searches of an index learned of how many hits one segment must give for the
/// merged walk to end a page in one pass, in sixteenths of the page's need (0: nothing
/// learned). The best hits of a query may crowd in one segment (a segment of templated
/// mail, or of one day's news), where an equal share for every segment would make every
/// segment give as many as that one does, or collect them all twice. Only the cost depends
/// on it, never a page. Kept with the segment's columns (`SegmentColumns::learned`).
pub(crate) struct CapacityHint<'a>(pub(crate) &'a AtomicUsize);

impl CapacityHint<'_> {
    /// The hits the segment gives first for a page of `needed`: what the last searches
    /// needed of it, else `default`.
    pub(crate) fn start(&self, needed: usize, default: usize) -> usize {
        match self.0.load(Ordering::Relaxed) {
            0 => default,
            sixteenths => (needed.saturating_mul(sixteenths) / 16).max(1),
        }
    }

    /// Learns from a search whose page of `needed` needed `hits` of the segment (those
    /// ranked at or above where its walk stopped, and one more): the next search starts
    /// there, or a sixteenth lower than this one did if that is more, so that a query
    /// which needed more is forgotten slowly.
    pub(crate) fn learn(&self, needed: usize, hits: usize) {
        let sixteenths = hits.saturating_mul(16).div_ceil(needed.max(1)).max(1);
        let decayed = self.0.load(Ordering::Relaxed) * 15 / 16;
        self.0.store(sixteenths.max(decayed), Ordering::Relaxed);
    }
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

#[cfg(test)]
mod capacity_tests {
    use std::sync::atomic::AtomicUsize;

    use super::CapacityHint;

    #[test]
    fn a_segment_starts_where_the_last_searches_needed_it() {
        let learned = AtomicUsize::new(0);
        let hint = CapacityHint(&learned);
        assert_eq!(hint.start(11, 6), 6, "nothing learned: the default");
        // A page of 11 that needed 12 hits of the segment: the next starts there.
        hint.learn(11, 12);
        assert_eq!(hint.start(11, 6), 12);
        // One that needed 2: down a sixteenth a search, not below what was needed.
        hint.learn(11, 2);
        let next = hint.start(11, 6);
        assert!((11..12).contains(&next), "{next}");
        for _ in 0..200 {
            hint.learn(11, 2);
        }
        assert_eq!(
            hint.start(11, 6),
            2,
            "below the default when that is enough"
        );
        // In proportion to the page.
        assert_eq!(hint.start(22, 6), 4);
    }
}
