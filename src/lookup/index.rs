//! [`FingerprintIndex`]: every stored fingerprint within `k` bits of a query.

use std::cmp::Reverse;
use std::fmt;

use rayon::prelude::*;
use roaring::RoaringBitmap;

use super::options::{LookupOptions, MAX_TABLE_DISTANCE};
use super::results::{IndexStats, Match, MemoryUsage, Pair};
use super::run::{merge_entries, retain_entries, Run};
use super::scan::{scan_into, sort_matches, LinearScan};
use crate::error::Result;
use crate::fingerprint::{Fingerprint, FINGERPRINT_BITS};

/// A run is merged with the next smaller one unless it is more than this many times larger:
/// at most `log4(n / buffer_len)` runs for a query to probe, and each fingerprint rewritten
/// a bounded number of times per fourfold growth of the index.
const MERGE_RATIO: usize = 4;

/// Finds every stored fingerprint within a Hamming distance of a query, exactly.
///
/// Fingerprints are stored under `u32` ids chosen by the caller (for example document
/// ordinals); map them to your own keys outside the index. Each id holds at most one
/// fingerprint, as in a map:
///
/// * [`insert`](Self::insert) of an id that is present replaces its fingerprint;
/// * [`remove`](Self::remove) hides an id at once (it is added to a bitmap of removed ids
///   that queries filter out) and [`compact`](Self::compact) later drops it physically;
/// * [`insert`](Self::insert) of a removed id before compaction stores the new fingerprint and
///   forgets the old one for good: the id is present again, once, with the new value.
///
/// Queries with `k` up to [`max_distance`](Self::max_distance) use the block tables (see the
/// [module docs](super)); a larger `k` is still answered exactly, by scanning every stored
/// fingerprint, which is about as slow as [`LinearScan`].
///
/// ```
/// use tantivy_dedup::lookup::FingerprintIndex;
/// use tantivy_dedup::fingerprint::Fingerprint;
///
/// let mut index = FingerprintIndex::new();
/// index.insert(7, Fingerprint(0xdead_beef_0000_0000));
/// index.insert(8, Fingerprint(0xdead_beef_0000_0007)); // 3 bits from 7
/// index.insert(9, Fingerprint(0x1234_5678_9abc_def0));
///
/// let hits = index.query(Fingerprint(0xdead_beef_0000_0001), 3);
/// let ids: Vec<(u32, u32)> = hits.iter().map(|m| (m.id, m.distance)).collect();
/// assert_eq!(ids, [(7, 1), (8, 2)]);
///
/// index.remove(7);
/// assert_eq!(index.query(Fingerprint(0xdead_beef_0000_0001), 3).len(), 1);
/// ```
#[derive(Clone)]
pub struct FingerprintIndex {
    options: LookupOptions,
    /// Immutable runs, largest first.
    runs: Vec<Run>,
    /// Recent inserts, scanned by queries until they become a run.
    buffer: LinearScan,
    /// Ids present (not removed).
    alive: RoaringBitmap,
    /// Ids removed but still stored; disjoint from `alive`.
    removed: RoaringBitmap,
}

impl Default for FingerprintIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl FingerprintIndex {
    /// An empty index with the default [`LookupOptions`] (k = 3).
    #[must_use]
    pub fn new() -> Self {
        Self::with_options(LookupOptions::new()).expect("the default options are valid")
    }

    /// An empty index with `options`, or [`Error::InvalidSetting`](crate::Error::InvalidSetting)
    /// naming the first setting out of range.
    pub fn with_options(options: LookupOptions) -> Result<Self> {
        options.validate()?;
        Ok(FingerprintIndex {
            buffer: LinearScan::with_capacity(options.get_buffer_len()),
            options,
            runs: Vec::new(),
            alive: RoaringBitmap::new(),
            removed: RoaringBitmap::new(),
        })
    }

    /// The options this index was built with.
    #[must_use]
    pub fn options(&self) -> &LookupOptions {
        &self.options
    }

    /// The largest `k` the block tables answer; see [`LookupOptions::max_distance`].
    #[must_use]
    pub fn max_distance(&self) -> u32 {
        self.options.get_max_distance()
    }

    /// Number of ids present (removed ones excluded).
    #[must_use]
    pub fn len(&self) -> usize {
        self.alive.len() as usize
    }

    /// True when no id is present.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.alive.is_empty()
    }

    /// True when `id` is present.
    #[must_use]
    pub fn contains(&self, id: u32) -> bool {
        self.alive.contains(id)
    }

    /// The fingerprint stored under `id`, if present. A binary search per run.
    #[must_use]
    pub fn get(&self, id: u32) -> Option<Fingerprint> {
        if !self.alive.contains(id) {
            return None;
        }
        self.locate(id).map(|(_, fp)| Fingerprint(fp))
    }

    /// Stores `fingerprint` under `id` and returns the fingerprint it replaces, if `id` was
    /// present. A removed id that was not yet compacted away counts as absent: its old
    /// fingerprint is dropped and `None` returned.
    ///
    /// Amortized cost: a push to the insert buffer; every
    /// [`buffer_len`](LookupOptions::buffer_len) inserts the buffer becomes a run, and runs
    /// of similar size are merged (a merge into the largest run is rare but rebuilds it).
    pub fn insert(&mut self, id: u32, fingerprint: Fingerprint) -> Option<Fingerprint> {
        let previous = if self.alive.contains(id) {
            self.forget(id).map(Fingerprint)
        } else {
            if self.removed.remove(id) {
                self.forget(id);
            }
            self.alive.insert(id);
            None
        };
        self.buffer.push(id, fingerprint);
        if self.buffer.len() >= self.options.get_buffer_len() {
            self.flush();
        }
        previous
    }

    /// Stores many `(id, fingerprint)` entries at once; later entries replace earlier ones
    /// with the same id, and stored ids are replaced as by [`insert`](Self::insert).
    ///
    /// Batches of at least [`buffer_len`](LookupOptions::buffer_len) entries are sorted by id
    /// (skipped when already sorted) and become one run whose tables are built by radix sort,
    /// in parallel: the way to load millions of fingerprints (10M in about 2.5 s on 2 cores).
    pub fn extend<I>(&mut self, entries: I)
    where
        I: IntoIterator<Item = (u32, Fingerprint)>,
    {
        let iter = entries.into_iter();
        let mut batch: Vec<(u32, u64)> = Vec::with_capacity(
            iter.size_hint()
                .0
                .max(self.options.get_expected_len().saturating_sub(self.len())),
        );
        batch.extend(iter.map(|(id, fp)| (id, fp.0)));
        if batch.len() < self.options.get_buffer_len() {
            for (id, fp) in batch {
                self.insert(id, Fingerprint(fp));
            }
            return;
        }
        if !batch.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable, so that of equal ids the last one given wins.
            batch.par_sort_by_key(|&(id, _)| id);
            let mut kept = 0;
            for i in 0..batch.len() {
                if i + 1 == batch.len() || batch[i + 1].0 != batch[i].0 {
                    batch[kept] = batch[i];
                    kept += 1;
                }
            }
            batch.truncate(kept);
        }
        if !self.alive.is_empty() || !self.removed.is_empty() {
            for &(id, _) in &batch {
                if self.alive.contains(id) || self.removed.remove(id) {
                    self.forget(id);
                }
            }
        }
        let (ids, fps): (Vec<u32>, Vec<u64>) = batch.into_iter().unzip();
        self.alive |= RoaringBitmap::from_sorted_iter(ids.iter().copied())
            .expect("ids are sorted and distinct");
        self.push_run(ids, fps);
    }

    /// Removes `id`; true if it was present. Cheap: the id is added to a bitmap of removed
    /// ids that queries filter out, and its fingerprint is dropped at the next
    /// [`compact`](Self::compact) (or when its run is next merged).
    pub fn remove(&mut self, id: u32) -> bool {
        let present = self.alive.remove(id);
        if present {
            self.removed.insert(id);
        }
        present
    }

    /// Drops removed ids and replaced fingerprints physically, rebuilding the runs that held
    /// any. Afterwards no removed id is pending. Costs a rebuild of the affected runs: call it
    /// after a batch of removals, not after each.
    pub fn compact(&mut self) {
        let removed = &mut self.removed;
        let pending: Vec<(u32, u64)> = self
            .buffer
            .iter()
            .filter(|&(id, _)| removed.is_empty() || !removed.remove(id))
            .map(|(id, fp)| (id, fp.0))
            .collect();
        if pending.len() != self.buffer.len() {
            self.buffer = LinearScan::with_capacity(self.options.get_buffer_len());
            for (id, fp) in pending {
                self.buffer.push(id, Fingerprint(fp));
            }
        }
        let runs = std::mem::take(&mut self.runs);
        for run in runs {
            if run.dead_count() == 0 && (self.removed.is_empty() || !run.holds_any(&self.removed)) {
                self.runs.push(run);
            } else {
                let (ids, fps) = retain_entries(&run, &mut self.removed);
                drop(run);
                self.push_run_unbalanced(ids, fps);
            }
        }
        debug_assert!(
            self.removed.is_empty(),
            "every removed id had a stored copy"
        );
        self.removed.clear();
        self.rebalance();
    }

    /// Every stored fingerprint within Hamming distance `k` of `query`, each id once, sorted
    /// by `(distance, id)`. `k` above [`max_distance`](Self::max_distance) is exact too, by a
    /// scan; `k >= 64` matches everything.
    #[must_use]
    pub fn query(&self, query: Fingerprint, k: u32) -> Vec<Match> {
        let mut out = Vec::new();
        self.query_into(query, k, &mut out);
        out
    }

    /// Like [`query`](Self::query), but reuses `out`: it is cleared, then filled. With a
    /// vector kept across calls, a query allocates nothing.
    pub fn query_into(&self, query: Fingerprint, k: u32, out: &mut Vec<Match>) {
        out.clear();
        let k = k.min(FINGERPRINT_BITS);
        let removed = (!self.removed.is_empty()).then_some(&self.removed);
        for run in &self.runs {
            run.query(query.0, k, removed, out);
        }
        scan_into(&self.buffer.ids, &self.buffer.fps, query.0, k, out, |id| {
            removed.is_none_or(|removed| !removed.contains(id))
        });
        sort_matches(out);
    }

    /// [`query`](Self::query) for each of `queries`, in parallel (rayon); the answers are in
    /// the order of the queries.
    #[must_use]
    pub fn query_batch(&self, queries: &[Fingerprint], k: u32) -> Vec<Vec<Match>> {
        queries.par_iter().map(|&fp| self.query(fp, k)).collect()
    }

    /// Every pair of present ids whose fingerprints are within `k` bits, each pair once with
    /// the smaller id first, sorted. Runs one query per stored fingerprint, in parallel.
    ///
    /// For `k` above [`max_distance`](Self::max_distance) a temporary index with tables for
    /// `k` is built first (up to `k =` [`MAX_TABLE_DISTANCE`]; beyond, a quadratic scan).
    #[must_use]
    pub fn all_pairs(&self, k: u32) -> Vec<Pair> {
        let k = k.min(FINGERPRINT_BITS);
        if k > self.max_distance() {
            if k > MAX_TABLE_DISTANCE {
                return self.iter().collect::<LinearScan>().all_pairs(k);
            }
            let options = self.options.clone().max_distance(k);
            let wider = options
                .build_from(self.iter())
                .expect("options valid for a smaller distance are valid for k <= 8");
            return wider.all_pairs(k);
        }
        let entries: Vec<(u32, Fingerprint)> = self.iter().collect();
        let mut pairs: Vec<Pair> = entries
            .par_iter()
            .map_init(Vec::new, |hits, &(a, fp)| {
                self.query_into(fp, k, hits);
                hits.iter()
                    .filter(|m| m.id > a)
                    .map(|m| Pair {
                        a,
                        b: m.id,
                        distance: m.distance,
                    })
                    .collect::<Vec<_>>()
            })
            .flatten_iter()
            .collect();
        pairs.par_sort_unstable();
        pairs
    }

    /// The present `(id, fingerprint)` entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Fingerprint)> + '_ {
        let removed = &self.removed;
        self.runs
            .iter()
            .flat_map(Run::entries)
            .chain(self.buffer.iter().map(|(id, fp)| (id, fp.0)))
            .filter(move |&(id, _)| removed.is_empty() || !removed.contains(id))
            .map(|(id, fp)| (id, Fingerprint(fp)))
    }

    /// Bytes held by the index, all buffers counted at their capacity.
    #[must_use]
    pub fn memory_usage(&self) -> MemoryUsage {
        let table_bytes: usize = self.runs.iter().map(Run::table_bytes).sum();
        let fingerprint_bytes = self.runs.iter().map(Run::fingerprint_bytes).sum::<usize>()
            + 4 * self.buffer.ids.capacity()
            + 8 * self.buffer.fps.capacity();
        let bitmap_bytes = self.alive.serialized_size()
            + self.removed.serialized_size()
            + self.runs.iter().map(Run::dead_bytes).sum::<usize>();
        let total_bytes = std::mem::size_of::<Self>()
            + self.runs.capacity() * std::mem::size_of::<Run>()
            + table_bytes
            + fingerprint_bytes
            + bitmap_bytes;
        MemoryUsage {
            total_bytes,
            bytes_per_fingerprint: if self.is_empty() {
                0.0
            } else {
                total_bytes as f64 / self.len() as f64
            },
            table_bytes,
            fingerprint_bytes,
            bitmap_bytes,
        }
    }

    /// Internal counters: runs, buffered entries, re-bucketed (split) buckets, the query
    /// bound. For tests and tuning; the figures may change between versions.
    #[must_use]
    pub fn stats(&self) -> IndexStats {
        let mut stats = IndexStats {
            len: self.len(),
            runs: self.runs.len(),
            buffered: self.buffer.len(),
            dead_slots: self.runs.iter().map(Run::dead_count).sum(),
            removed_pending: self.removed.len(),
            ..IndexStats::default()
        };
        for root in self.runs.iter().filter_map(Run::root) {
            root.count(
                0,
                &mut stats.tables,
                &mut stats.split_buckets,
                &mut stats.max_depth,
            );
            stats.worst_case_candidates += root.worst();
        }
        stats
    }

    /// Where the stored copy of `id` (present or removed) is, and its fingerprint.
    fn locate(&self, id: u32) -> Option<(Place, u64)> {
        if let Some(i) = self.buffer.ids.iter().position(|&x| x == id) {
            return Some((Place::Buffer(i), self.buffer.fps[i]));
        }
        self.runs.iter().enumerate().find_map(|(r, run)| {
            run.find(id)
                .map(|slot| (Place::Run(r, slot), run.fingerprint(slot)))
        })
    }

    /// Drops the stored copy of `id` (which must be present or removed) and returns its
    /// fingerprint. In the buffer it is removed at once; in a run, its slot is marked dead.
    fn forget(&mut self, id: u32) -> Option<u64> {
        let (place, fp) = self.locate(id)?;
        match place {
            Place::Buffer(i) => {
                self.buffer.ids.swap_remove(i);
                self.buffer.fps.swap_remove(i);
            }
            Place::Run(r, slot) => self.runs[r].kill(slot),
        }
        Some(fp)
    }

    /// Turns the insert buffer into a run.
    fn flush(&mut self) {
        let buffer = std::mem::replace(
            &mut self.buffer,
            LinearScan::with_capacity(self.options.get_buffer_len()),
        );
        let removed = &mut self.removed;
        let mut entries: Vec<(u32, u64)> = buffer
            .ids
            .into_iter()
            .zip(buffer.fps)
            .filter(|&(id, _)| removed.is_empty() || !removed.remove(id))
            .collect();
        entries.sort_unstable_by_key(|&(id, _)| id);
        let (ids, fps) = entries.into_iter().unzip();
        self.push_run(ids, fps);
    }

    fn push_run(&mut self, ids: Vec<u32>, fps: Vec<u64>) {
        self.push_run_unbalanced(ids, fps);
        self.rebalance();
    }

    fn push_run_unbalanced(&mut self, ids: Vec<u32>, fps: Vec<u64>) {
        if !ids.is_empty() {
            self.runs.push(Run::build(ids, fps, &self.options));
        }
    }

    /// Merges runs until each is more than [`MERGE_RATIO`] times the next smaller one.
    fn rebalance(&mut self) {
        loop {
            self.runs.sort_by_key(|run| Reverse(run.len()));
            let close = (1..self.runs.len())
                .find(|&i| self.runs[i - 1].len() <= MERGE_RATIO * self.runs[i].len());
            let Some(i) = close else { break };
            let smaller = self.runs.remove(i);
            let larger = self.runs.remove(i - 1);
            let (ids, fps) = merge_entries(&larger, &smaller, &mut self.removed);
            drop((larger, smaller));
            self.push_run_unbalanced(ids, fps);
        }
    }
}

/// Where a stored fingerprint is: at a position of the insert buffer, or in a run's slot.
#[derive(Clone, Copy)]
enum Place {
    Buffer(usize),
    Run(usize, usize),
}

impl fmt::Debug for FingerprintIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FingerprintIndex")
            .field("len", &self.len())
            .field("max_distance", &self.max_distance())
            .field("runs", &self.runs.len())
            .field("buffered", &self.buffer.len())
            .field("removed_pending", &self.removed.len())
            .finish_non_exhaustive()
    }
}

impl Extend<(u32, Fingerprint)> for FingerprintIndex {
    /// See [`FingerprintIndex::extend`].
    fn extend<I: IntoIterator<Item = (u32, Fingerprint)>>(&mut self, entries: I) {
        FingerprintIndex::extend(self, entries);
    }
}

impl FromIterator<(u32, Fingerprint)> for FingerprintIndex {
    /// An index with the default options, built in bulk.
    fn from_iter<I: IntoIterator<Item = (u32, Fingerprint)>>(entries: I) -> Self {
        let mut index = FingerprintIndex::new();
        index.extend(entries);
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(i: u32) -> Fingerprint {
        Fingerprint(u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    #[test]
    fn runs_stay_geometric_under_single_inserts() {
        let mut index = LookupOptions::new().buffer_len(16).build().unwrap();
        for i in 0..5000 {
            index.insert(i, fp(i));
            let sizes: Vec<usize> = index.runs.iter().map(Run::len).collect();
            assert!(
                sizes.windows(2).all(|w| w[0] > MERGE_RATIO * w[1]),
                "{sizes:?}"
            );
        }
        assert_eq!(index.len(), 5000);
        assert!(index.stats().runs <= 5, "{:?}", index.stats());
        assert_eq!(index.get(1234), Some(fp(1234)));
    }

    #[test]
    fn merges_and_compaction_drop_removed_and_replaced_entries() {
        let mut index = LookupOptions::new().buffer_len(8).build().unwrap();
        index.extend((0..100).map(|i| (i, fp(i))));
        for i in 0..10 {
            index.remove(i);
            index.insert(50 + i, fp(1000 + i));
        }
        assert_eq!(index.stats().dead_slots, 10);
        assert_eq!(index.stats().removed_pending, 10);
        index.compact();
        let stats = index.stats();
        assert_eq!(
            (stats.dead_slots, stats.removed_pending, stats.len),
            (0, 0, 90)
        );
        let stored: usize = index.runs.iter().map(Run::len).sum::<usize>() + index.buffer.len();
        assert_eq!(stored, 90);
    }

    #[test]
    fn memory_usage_counts_every_part() {
        let index: FingerprintIndex = (0..10_000).map(|i| (i, fp(i))).collect();
        let usage = index.memory_usage();
        assert!(usage.table_bytes >= 4 * 8 * 10_000);
        assert!(usage.fingerprint_bytes >= 12 * 10_000);
        assert!(usage.total_bytes > usage.table_bytes + usage.fingerprint_bytes);
        assert!(usage.bytes_per_fingerprint < 48.0, "{usage:?}");
        assert_eq!(
            FingerprintIndex::new().memory_usage().bytes_per_fingerprint,
            0.0
        );
    }
}
