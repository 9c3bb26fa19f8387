//! What a lookup returns: matches, pairs, and reports on the index itself.

use serde::{Deserialize, Serialize};

/// One stored fingerprint within the query distance: its id and how many bits it differs in.
///
/// Ids are the `u32`s the caller gave to [`FingerprintIndex::insert`](super::FingerprintIndex::insert);
/// keep the mapping to your own keys (document addresses, URLs) outside the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Match {
    /// The id the fingerprint was stored under.
    pub id: u32,
    /// Hamming distance to the query, in `0..=k`.
    pub distance: u32,
}

/// Two stored ids within the distance asked for, reported once with `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pair {
    /// The smaller id.
    pub a: u32,
    /// The larger id.
    pub b: u32,
    /// Hamming distance between the two fingerprints.
    pub distance: u32,
}

/// Bytes held by a [`FingerprintIndex`](super::FingerprintIndex), from
/// [`memory_usage`](super::FingerprintIndex::memory_usage).
///
/// Counts allocated capacity, not just the used length, of every buffer the index owns:
/// block tables and their directories, the stored fingerprints and ids, the insert buffer and
/// the id bitmaps (whose size is estimated by their serialized size).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryUsage {
    /// Everything together.
    pub total_bytes: usize,
    /// `total_bytes` divided by the number of live fingerprints (0 for an empty index).
    pub bytes_per_fingerprint: f64,
    /// Block tables: bucket directories, table entries and overflow sub-tables.
    pub table_bytes: usize,
    /// The stored fingerprints and their ids (in runs and in the insert buffer).
    pub fingerprint_bytes: usize,
    /// Id bitmaps: present ids, removed ids awaiting compaction, dead slots.
    pub bitmap_bytes: usize,
}

/// Internal shape of a [`FingerprintIndex`](super::FingerprintIndex), from
/// [`stats`](super::FingerprintIndex::stats): for tests, tuning and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Live fingerprints (the same as [`len`](super::FingerprintIndex::len)).
    pub len: usize,
    /// Immutable runs, each with its own block tables.
    pub runs: usize,
    /// Fingerprints in the insert buffer, which queries scan linearly.
    pub buffered: usize,
    /// Stored slots that a later insert of the same id replaced; dropped by the next merge
    /// or [`compact`](super::FingerprintIndex::compact).
    pub dead_slots: usize,
    /// Removed ids still stored (filtered at query time until compaction).
    pub removed_pending: u64,
    /// Tables in all runs, overflow sub-tables included.
    pub tables: usize,
    /// Buckets that overflowed and were split again on further bits (re-bucketing).
    pub split_buckets: usize,
    /// Deepest level of re-bucketing (0 when no bucket was split).
    pub max_depth: usize,
    /// Largest number of table entries a single query can be made to examine, summed over
    /// runs (the insert buffer is not included): the query bound.
    pub worst_case_candidates: usize,
}
