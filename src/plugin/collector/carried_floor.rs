//! The score floor a search under [`Searcher::search`](tantivy::Searcher::search) carries
//! from one segment to the next.
//!
//! A segment cut at a packing (see `segment_hits`) proves that the page ends at or above
//! its lowest kept hit, whatever the other segments hold. So a later segment of the same
//! search needs only the hits scoring at least that much: block-WAND starts at that
//! threshold instead of nothing, and a segment with few such hits gives them all, with no
//! packing and no signature read. `TopDocs` starts every segment from nothing.
//!
//! tantivy gives a collector no search of its own, only calls: `check_schema` once, on the
//! caller's thread, then `collect_segment` per segment (in order, on that thread, with the
//! default single-thread executor; on other threads, in any order, with a thread pool),
//! then `merge_fruits`. The floor lives in a thread-local, opened by `check_schema`, and is
//! used only by segments collected on that thread in order right after it, with the
//! search's one weight. A segment collected any other way starts from nothing, as before.
//! The merge marks what a floor cut (see `SegmentHits::floor`), so that even a floor from
//! elsewhere could not make it walk past what it holds.

use std::cell::Cell;

use tantivy::query::Weight;
use tantivy::{Score, SegmentOrdinal};

use super::dedup_collector::DedupCollector;

thread_local! {
    static CARRIED: Cell<Option<Carried>> = const { Cell::new(None) };
}

/// One search's state on the thread that started it.
#[derive(Clone, Copy)]
struct Carried {
    /// The collector's address.
    collector: usize,
    /// The weight's address, once a segment was collected.
    weight: Option<usize>,
    /// The segment collected last.
    last: Option<SegmentOrdinal>,
    /// The lowest kept score of the highest-floored cut segment so far.
    floor: Option<Score>,
}

/// One search of one collector with one weight, as the floor knows it.
#[derive(Clone, Copy)]
pub(crate) struct Search {
    collector: usize,
    weight: usize,
}

impl Search {
    /// The search `collector` runs with `weight`.
    pub(crate) fn new(collector: &DedupCollector, weight: &dyn Weight) -> Search {
        Search {
            collector: std::ptr::from_ref(collector) as usize,
            weight: std::ptr::from_ref(weight).cast::<()>() as usize,
        }
    }

    /// Opens a search of `collector` on this thread (tantivy's `check_schema`).
    pub(crate) fn start(collector: &DedupCollector) {
        CARRIED.set(Some(Carried {
            collector: std::ptr::from_ref(collector) as usize,
            weight: None,
            last: None,
            floor: None,
        }));
    }

    /// Whether this thread's open search is this one, and `segment` comes right after the
    /// last segment it collected.
    fn continues(self, carried: &Carried, segment: SegmentOrdinal) -> bool {
        carried.collector == self.collector
            && carried.weight.is_none_or(|weight| weight == self.weight)
            && carried.last.map_or(0, |last| last.saturating_add(1)) == segment
    }

    /// The floor for `segment`: the lowest kept score of a segment collected before it in
    /// this search, cut at a packing; `None` when there is none, or the segment is not
    /// collected in order on the thread that started the search.
    pub(crate) fn floor(self, segment: SegmentOrdinal) -> Option<Score> {
        let carried = CARRIED.get()?;
        if self.continues(&carried, segment) {
            carried.floor
        } else {
            None
        }
    }

    /// Records that `segment` was collected, with the floor for the segments after it;
    /// a segment out of order ends the search's floor on this thread.
    pub(crate) fn collected(self, segment: SegmentOrdinal, floor: Option<Score>) {
        let Some(carried) = CARRIED.get() else {
            return;
        };
        if carried.collector != self.collector {
            return;
        }
        if !self.continues(&carried, segment) {
            CARRIED.set(None);
            return;
        }
        CARRIED.set(Some(Carried {
            weight: Some(self.weight),
            last: Some(segment),
            floor,
            ..carried
        }));
    }

    /// Closes this thread's open search of `collector` (tantivy's `merge_fruits`).
    pub(crate) fn end(collector: &DedupCollector) {
        let address = std::ptr::from_ref(collector) as usize;
        if CARRIED
            .get()
            .is_some_and(|carried| carried.collector == address)
        {
            CARRIED.set(None);
        }
    }
}
