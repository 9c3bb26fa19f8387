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
/// [`DedupIndex::collector`](crate::plugin::DedupIndex::collector) does.
#[derive(Clone, Default)]
pub struct ColumnCache {
    // FxHash: a lookup per segment and search, on keys no outsider chooses.
    columns: Arc<Mutex<FxHashMap<(SegmentId, u64), SegmentColumns>>>,
    /// The hits per segment, as a multiple of the page's need, with which the last searches
    /// ended their pages in one pass: where the next search starts (see
    /// [`CapacityHint`]).
    capacity: Arc<CapacityHint>,
}

/// What the searches of an index learned of how many hits a segment must give for the
/// merged walk to end a page in one pass, in 1/16 of the page's need a segment: an index
/// full of near-duplicates hides many hits, and a search that starts too low collects every
/// segment twice. Only the cost depends on it, never a page.
#[derive(Default)]
pub(crate) struct CapacityHint(AtomicUsize);

impl CapacityHint {
    /// The hits a segment gives first: `default`, or more when searches needed more.
    pub(crate) fn start(&self, needed: usize, default: usize) -> usize {
        let sixteenths = self.0.load(Ordering::Relaxed);
        default.max(needed.saturating_mul(sixteenths) / 16)
    }

    /// Learns from a search that began with `first` hits a segment and ended its page with
    /// `last`: a search that needed more starts the next ones there; one that ended in one
    /// pass brings them a sixteenth of the way back down.
    pub(crate) fn learn(&self, needed: usize, first: usize, last: usize) {
        let needed = needed.max(1);
        let sixteenths = |hits: usize| hits.saturating_mul(16) / needed;
        let next = if last > first {
            sixteenths(last)
        } else {
            self.0.load(Ordering::Relaxed) * 15 / 16
        };
        self.0.store(next, Ordering::Relaxed);
    }
}

impl ColumnCache {
    /// An empty cache.
    pub fn new() -> ColumnCache {
        ColumnCache::default()
    }

    /// What the searches through this cache learned of the hits a segment must give.
    pub(crate) fn capacity(&self) -> &CapacityHint {
        &self.capacity
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
    use super::CapacityHint;

    #[test]
    fn a_search_that_needed_more_raises_the_start_and_one_pass_brings_it_down() {
        let hint = CapacityHint::default();
        assert_eq!(hint.start(11, 6), 6, "nothing learned: the default");
        // Began with 6 a segment, ended with 96: the next starts there (to a sixteenth of
        // the need).
        hint.learn(11, 6, 96);
        assert!(
            (95..=96).contains(&hint.start(11, 6)),
            "{}",
            hint.start(11, 6)
        );
        // Ended in one pass: down a sixteenth, never under the default.
        hint.learn(11, 96, 96);
        let next = hint.start(11, 6);
        assert!((85..95).contains(&next), "{next}");
        for _ in 0..200 {
            hint.learn(11, 6, 6);
        }
        assert_eq!(hint.start(11, 6), 6);
    }
}
