//! Pigeonhole block tables (Manku, Jain, Das Sarma 2007) with overflow re-bucketing.
//!
//! Split the 64 bits into `k + 1` disjoint blocks. Two fingerprints that differ in at most
//! `k` bits cannot differ in every block, so they agree exactly on at least one: a table per
//! block, keyed by that block, finds every near neighbour of a query among the entries of
//! `k + 1` buckets. A [`Node`] is such a set of tables over the bits still free at its level.
//!
//! When a bucket overflows (more than `(1 + mu)` times the average and more than
//! `split_min` entries; the re-bucketing of Wang and Wang 2019), it becomes a child node:
//! every entry in it agrees with the query on the bucket's block, so the query's `k` or fewer
//! differing bits all lie in the remaining bits, and `k + 1` sub-blocks of those are again a
//! complete pigeonhole. Children nest while they make the bucket cheaper to search.
//!
//! # Reporting each match once, without a hash set
//!
//! A table accepts a verified match only if the match's *first* agreeing block, at every
//! level from the root down, is the block of the path that led to this table. Each table
//! stores that rule as two masks: `must_agree` (the blocks on its path) and `must_differ`
//! (the blocks of earlier siblings on its path). A match reached through any other table
//! fails the rule there, so it is reported exactly once.
//!
//! # Table layout
//!
//! Keys are a hash of the block's bits into `dir_bits` bits ([`KeyFn`]), so blocks of any
//! width and shape (the sub-blocks of a child are not contiguous) use one code path; a
//! collision only adds a candidate that the `must_agree` mask rejects. Entries are
//! `(window, slot)` pairs in two parallel `u32` vectors, grouped by key (a CSR directory of
//! `2^dir_bits + 1` offsets): 8 bytes per entry and table. The window is 32 bits of the
//! fingerprint outside the block; its distance to the query's window is a lower bound of
//! the full distance, so scanning windows rejects nearly every non-match without touching
//! the full fingerprint, which is read from the run by slot only for the survivors.

use rayon::prelude::*;

use super::keys::{radix_sort_high, KeyFn};
use super::results::Match;
use super::scan::for_each_within;

/// Average bucket population the directory is sized for: small enough that a bucket is a
/// cache line or two of windows, large enough that the directory (4 bytes a bucket) costs
/// under a quarter of a byte per entry and table.
const TARGET_BUCKET: usize = 16;

/// Directories never exceed 2^26 buckets (256 MiB), whatever the block width.
const MAX_DIR_BITS: u32 = 26;

/// Deepest level of re-bucketing below the root (each level stores its entries `k + 1`
/// more times, so depth is bounded to bound memory).
const MAX_SPLIT_DEPTH: usize = 3;

/// Sub-blocks narrower than this separate too little to be worth a child node.
const MIN_SUB_BLOCK_BITS: u32 = 3;

/// Windows scanned from one bucket before moving to the next table's (four cache lines).
const STEP: usize = 64;

/// Nodes with at least this many entries build their tables in parallel.
const PARALLEL_MIN: usize = 1 << 16;

/// The rule a table is built by: which bits key it, and which matches it may report.
#[derive(Clone, Debug)]
pub(crate) struct TableSpec {
    /// Bits the key is computed from.
    block: u64,
    /// A reported match must agree with the query on all these bits (the blocks on the path).
    must_agree: u64,
    /// ... and differ from it somewhere in each of these (earlier siblings on the path).
    must_differ: Vec<u64>,
    /// Bits still free below this table: what a child node splits again.
    free_after: u64,
    /// The window is `fp.rotate_right(rot) as u32`.
    rot: u32,
}

/// Settings that shape how a node is built.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildParams {
    pub(crate) k: u32,
    pub(crate) mu: f64,
    pub(crate) split_min: usize,
}

/// What a probe needs from the run it searches, and the query.
pub(crate) struct Probe<'a> {
    pub(crate) query: u64,
    pub(crate) k: u32,
    pub(crate) fps: &'a [u64],
    pub(crate) ids: &'a [u32],
    /// Keeps a candidate slot that passed the distance test (dead slots, removed ids).
    pub(crate) keep: &'a dyn Fn(usize, u32) -> bool,
}

/// `k + 1` tables over one set of entries.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    tables: Vec<Table>,
}

/// One block table: a CSR directory of buckets, plus child nodes for split buckets.
#[derive(Clone, Debug)]
struct Table {
    spec: TableSpec,
    key: KeyFn,
    offsets: Vec<u32>,
    windows: Vec<u32>,
    slots: Vec<u32>,
    /// Keys of split buckets, sorted; `children[i]` holds the entries of `child_keys[i]`.
    child_keys: Vec<u32>,
    children: Vec<Node>,
    /// Most entries one probe of this table can examine, children included.
    worst: usize,
}

/// Partitions the set bits of `free` into `parts` groups of consecutive set bits whose sizes
/// differ by at most one (the wider groups first).
pub(crate) fn split_bits(free: u64, parts: u32) -> Vec<u64> {
    let total = free.count_ones();
    let mut remaining = free;
    (0..parts)
        .map(|i| {
            let width = total / parts + u32::from(i < total % parts);
            let mut block = 0;
            for _ in 0..width {
                let bit = remaining & remaining.wrapping_neg();
                block |= bit;
                remaining &= !bit;
            }
            block
        })
        .collect()
}

/// The tables of a node over `free` bits, below a path already constrained by
/// `must_agree` / `must_differ`.
pub(crate) fn node_specs(
    free: u64,
    k: u32,
    must_agree: u64,
    must_differ: &[u64],
) -> Vec<TableSpec> {
    let blocks = split_bits(free, k + 1);
    blocks
        .iter()
        .enumerate()
        .map(|(j, &block)| {
            let mut differ = must_differ.to_vec();
            differ.extend_from_slice(&blocks[..j]);
            TableSpec::new(block, must_agree | block, differ, free & !block)
        })
        .collect()
}

/// Manku's two-level plan as one node of `(k + 1)^2` tables, keyed by a first-level block
/// together with one sub-block of the remaining bits.
pub(crate) fn two_level_specs(k: u32) -> Vec<TableSpec> {
    let first = split_bits(u64::MAX, k + 1);
    let mut specs = Vec::with_capacity(((k + 1) * (k + 1)) as usize);
    for (j, &block) in first.iter().enumerate() {
        for sub in node_specs(!block, k, block, &first[..j]) {
            specs.push(TableSpec::new(
                block | sub.block,
                sub.must_agree,
                sub.must_differ,
                sub.free_after,
            ));
        }
    }
    specs
}

impl TableSpec {
    fn new(block: u64, must_agree: u64, must_differ: Vec<u64>, free_after: u64) -> Self {
        // The window should see the bits a candidate may still differ in: those outside the
        // path. Among the 64 rotations, take the one whose 32 bits cover most of them.
        let useful = !must_agree;
        let rot = (0..64)
            .max_by_key(|&r| (u64::from(u32::MAX).rotate_left(r) & useful).count_ones())
            .unwrap_or(0);
        TableSpec {
            block,
            must_agree,
            must_differ,
            free_after,
            rot,
        }
    }

    #[inline]
    fn window(&self, fp: u64) -> u32 {
        fp.rotate_right(self.rot) as u32
    }

    /// True when a match at xor-difference `diff` from the query belongs to this table.
    #[inline]
    fn accepts(&self, diff: u64) -> bool {
        diff & self.must_agree == 0 && self.must_differ.iter().all(|&m| diff & m != 0)
    }
}

impl Node {
    /// Builds the tables of `specs` over the entries `slots` of `fps`.
    pub(crate) fn build(
        specs: Vec<TableSpec>,
        fps: &[u64],
        slots: &[u32],
        params: BuildParams,
        depth: usize,
    ) -> Node {
        let tables = if slots.len() >= PARALLEL_MIN {
            specs
                .into_par_iter()
                .map(|spec| Table::build(spec, fps, slots, params, depth))
                .collect()
        } else {
            specs
                .into_iter()
                .map(|spec| Table::build(spec, fps, slots, params, depth))
                .collect()
        };
        Node { tables }
    }

    /// Appends every accepted match of the probe.
    pub(crate) fn probe(&self, probe: &Probe<'_>, out: &mut Vec<Match>) {
        // First the bucket of every table, then the scans, taking a block of windows from
        // each bucket in turn: the reads of different tables do not depend on each other, so
        // their cache misses overlap instead of queueing one behind the other. At 10M
        // fingerprints this halves the query time.
        const GROUP: usize = 8;
        for group in self.tables.chunks(GROUP) {
            let mut buckets = [(0, 0, 0); GROUP];
            let mut longest = 0;
            for (table, bucket) in group.iter().zip(&mut buckets) {
                *bucket = table.bucket(probe.query);
                longest = longest.max(bucket.2 - bucket.1);
            }
            let mut step = 0;
            while step < longest {
                for (table, &(_, lo, hi)) in group.iter().zip(&buckets) {
                    let start = lo + step;
                    if start < hi {
                        table.scan(probe, start..hi.min(start + STEP), out);
                    }
                }
                step += STEP;
            }
            for (table, &(key, lo, hi)) in group.iter().zip(&buckets) {
                if lo == hi {
                    table.probe_children(probe, key, out);
                }
            }
        }
    }

    /// Most table entries one query can examine in this node.
    pub(crate) fn worst(&self) -> usize {
        self.tables.iter().map(|t| t.worst).sum()
    }

    /// Heap bytes of all tables, children included.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(|t| {
                4 * (t.offsets.capacity()
                    + t.windows.capacity()
                    + t.slots.capacity()
                    + t.child_keys.capacity())
                    + 8 * t.spec.must_differ.capacity()
                    + std::mem::size_of::<(u32, u64, u32)>() * t.key.runs.capacity()
                    + std::mem::size_of::<Table>()
                    + t.children.iter().map(Node::heap_bytes).sum::<usize>()
            })
            .sum()
    }

    /// Adds this node's tables, split buckets and depth to the counters.
    pub(crate) fn count(
        &self,
        depth: usize,
        tables: &mut usize,
        splits: &mut usize,
        max_depth: &mut usize,
    ) {
        *tables += self.tables.len();
        *max_depth = (*max_depth).max(depth);
        for table in &self.tables {
            *splits += table.children.len();
            for child in &table.children {
                child.count(depth + 1, tables, splits, max_depth);
            }
        }
    }
}

impl Table {
    fn build(
        spec: TableSpec,
        fps: &[u64],
        slots: &[u32],
        params: BuildParams,
        depth: usize,
    ) -> Table {
        let n = slots.len();
        let dir_bits = directory_bits(n, spec.block.count_ones());
        let key_fn = KeyFn::new(spec.block, dir_bits);
        let buckets = 1usize << dir_bits;

        // Sort the entries by key: `(key, slot)` words and their windows, computed reading
        // the fingerprints in slot order (sequential at the root), are radix sorted together,
        // so that nothing is gathered from random places afterwards.
        let mut words = Vec::with_capacity(n);
        let mut windows = Vec::with_capacity(n);
        for &slot in slots {
            let fp = fps[slot as usize];
            words.push((key_fn.key(fp) as u64) << 32 | u64::from(slot));
            windows.push(spec.window(fp));
        }
        let mut offsets = vec![0u32; buckets + 1];
        for &word in &words {
            offsets[(word >> 32) as usize + 1] += 1;
        }
        for b in 0..buckets {
            offsets[b + 1] += offsets[b];
        }
        radix_sort_high(&mut words, &mut windows, dir_bits);
        let mut sorted: Vec<u32> = words.iter().map(|&w| w as u32).collect();
        drop(words);
        let bucket = |b: usize| offsets[b] as usize..offsets[b + 1] as usize;

        // Overflowing buckets become child nodes, if that makes them cheaper to search.
        let mut child_keys = Vec::new();
        let mut children = Vec::new();
        if can_split(&spec, params.k, depth) {
            let average = n as f64 / buckets as f64;
            let threshold = (((1.0 + params.mu) * average).ceil() as usize).max(params.split_min);
            for b in 0..buckets {
                let members = &sorted[bucket(b)];
                if members.len() > threshold {
                    let specs = node_specs(
                        spec.free_after,
                        params.k,
                        spec.must_agree,
                        &spec.must_differ,
                    );
                    let child = Node::build(specs, fps, members, params, depth + 1);
                    if child.worst() < members.len() {
                        child_keys.push(b as u32);
                        children.push(child);
                    }
                }
            }
        }

        let worst_flat = (0..buckets)
            .filter(|b| child_keys.binary_search(&(*b as u32)).is_err())
            .map(|b| bucket(b).len())
            .max()
            .unwrap_or(0);
        let worst = children
            .iter()
            .map(Node::worst)
            .fold(worst_flat, usize::max);
        if !child_keys.is_empty() {
            // Drop the entries of split buckets from the flat arrays: their child has them.
            let mut kept_offsets = Vec::with_capacity(buckets + 1);
            let mut kept_windows = Vec::new();
            let mut kept_slots = Vec::new();
            kept_offsets.push(0);
            for b in 0..buckets {
                if child_keys.binary_search(&(b as u32)).is_err() {
                    kept_windows.extend_from_slice(&windows[bucket(b)]);
                    kept_slots.extend_from_slice(&sorted[bucket(b)]);
                }
                kept_offsets.push(kept_slots.len() as u32);
            }
            kept_windows.shrink_to_fit();
            kept_slots.shrink_to_fit();
            (offsets, windows, sorted) = (kept_offsets, kept_windows, kept_slots);
        }
        Table {
            spec,
            key: key_fn,
            offsets,
            windows,
            slots: sorted,
            child_keys,
            children,
            worst,
        }
    }

    /// The key of `query`'s bucket and the range of its flat entries.
    #[inline]
    fn bucket(&self, query: u64) -> (usize, usize, usize) {
        let key = self.key.key(query);
        (
            key,
            self.offsets[key] as usize,
            self.offsets[key + 1] as usize,
        )
    }

    /// Verifies the entries in `range` whose window is within `k` of the query's.
    #[inline]
    fn scan(&self, probe: &Probe<'_>, range: std::ops::Range<usize>, out: &mut Vec<Match>) {
        let slots = &self.slots[range.clone()];
        let query_window = self.spec.window(probe.query);
        for_each_within(&self.windows[range], query_window, probe.k, |i| {
            let slot = slots[i] as usize;
            let diff = probe.fps[slot] ^ probe.query;
            let distance = diff.count_ones();
            if distance <= probe.k && self.spec.accepts(diff) {
                let id = probe.ids[slot];
                if (probe.keep)(slot, id) {
                    out.push(Match { id, distance });
                }
            }
        });
    }

    /// Probes the child node of bucket `key`, if that bucket was split.
    fn probe_children(&self, probe: &Probe<'_>, key: usize, out: &mut Vec<Match>) {
        if !self.child_keys.is_empty() {
            if let Ok(i) = self.child_keys.binary_search(&(key as u32)) {
                self.children[i].probe(probe, out);
            }
        }
    }
}

/// Directory size for `n` entries keyed by a block of `block_bits` bits: about
/// [`TARGET_BUCKET`] entries a bucket, never more buckets than block values.
fn directory_bits(n: usize, block_bits: u32) -> u32 {
    let wanted = (n / TARGET_BUCKET).max(1).ilog2();
    wanted.min(block_bits).min(MAX_DIR_BITS)
}

/// True when a bucket of this table may become a child node.
fn can_split(spec: &TableSpec, k: u32, depth: usize) -> bool {
    depth < MAX_SPLIT_DEPTH && spec.free_after.count_ones() / (k + 1) >= MIN_SUB_BLOCK_BITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_partition_the_free_bits() {
        for k in 0..=8 {
            let blocks = split_bits(u64::MAX, k + 1);
            assert_eq!(blocks.len() as u32, k + 1);
            assert_eq!(blocks.iter().fold(0, |acc, b| acc | b), u64::MAX);
            assert_eq!(blocks.iter().map(|b| b.count_ones()).sum::<u32>(), 64);
            let widths: Vec<u32> = blocks.iter().map(|b| b.count_ones()).collect();
            assert!(widths.iter().max().unwrap() - widths.iter().min().unwrap() <= 1);
        }
        // k = 3: the four 16-bit quarters.
        assert_eq!(split_bits(u64::MAX, 4)[1], 0xFFFF_0000);
        // A child's free bits are not contiguous, and are split all the same.
        let free = !0xFFFF_0000u64;
        let sub = split_bits(free, 4);
        assert_eq!(sub.iter().fold(0, |acc, b| acc | b), free);
        assert!(sub.iter().all(|b| b.count_ones() == 12));
    }

    #[test]
    fn windows_avoid_the_key_block() {
        let spec = &node_specs(u64::MAX, 3, 0, &[])[0];
        let window_bits = u64::from(u32::MAX).rotate_left(spec.rot);
        assert_eq!(window_bits & spec.block, 0);
    }

    #[test]
    fn directories_follow_the_number_of_entries() {
        assert_eq!(directory_bits(3, 16), 0);
        assert_eq!(directory_bits(1 << 20, 16), 16);
        assert_eq!(directory_bits(1 << 20, 64), 16);
        assert_eq!(directory_bits(1 << 30, 64), MAX_DIR_BITS);
    }

    #[test]
    fn two_level_plan_is_sixteen_tables_keyed_on_28_bits() {
        let specs = two_level_specs(3);
        assert_eq!(specs.len(), 16);
        assert!(specs.iter().all(|s| s.block.count_ones() == 28));
        // Table (j, s) must differ from the query on j earlier blocks and s earlier sub-blocks.
        assert_eq!(specs[0].must_differ.len(), 0);
        assert_eq!(specs[15].must_differ.len(), 6);
    }
}
