//! Finding every stored fingerprint within Hamming distance `k` of a query: pigeonhole block
//! tables (Manku, Jain, Das Sarma 2007, "Detecting Near-Duplicates for Web Crawling") with
//! the overflow re-bucketing of Wang and Wang (2019), behind [`FingerprintIndex`].
//!
//! * [`FingerprintIndex`]: insert, remove, bulk-load and query `(id, fingerprint)` entries;
//!   exact for every `k`; [`query_batch`](FingerprintIndex::query_batch) and
//!   [`all_pairs`](FingerprintIndex::all_pairs) run in parallel.
//! * [`LookupOptions`] (with [`TablePlan`]): every setting and its default in one place.
//! * [`LinearScan`]: the brute-force popcount scan, the oracle the index is tested against.
//! * [`BandIndex`]: MinHash LSH bands over signatures, the candidate stage of the plugin's
//!   two-stage matching (see its module, `bands.rs`, for the layout and the S-curve).
//! * [`Match`], [`Pair`], [`MemoryUsage`], [`IndexStats`]: what comes back.
//!
//! ```
//! use tantivy_dedup::lookup::{FingerprintIndex, LookupOptions};
//! use tantivy_dedup::fingerprint::Fingerprint;
//!
//! // Bulk-load (sorted by id, tables built by radix sort), then query.
//! let entries = (0..10_000u32).map(|id| (id, Fingerprint(u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15))));
//! let index = LookupOptions::new().max_distance(3).build_from(entries)?;
//! let probe = Fingerprint(42u64.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0b1001);
//! let hits = index.query(probe, 3);
//! assert_eq!((hits[0].id, hits[0].distance), (42, 2));
//! # Ok::<(), tantivy_dedup::Error>(())
//! ```
//!
//! # How it works
//!
//! **Blocks.** The 64 bits are cut into `k + 1` blocks (four of 16 bits for k = 3). Two
//! fingerprints within `k` bits cannot differ in all `k + 1` blocks, so they agree exactly on
//! one: a table per block, keyed by it, finds every match among the entries of `k + 1`
//! buckets. A table entry is 8 bytes: a 32-bit *window* of the fingerprint taken outside the
//! block, and the slot of the full fingerprint. Most candidates fail on the window
//! (`popcount(window ^ query window) > k`, a lower bound of the distance) without a read of
//! the full fingerprint.
//!
//! **Each id once, without a hash set.** A match is accepted only by the table of the first
//! block it agrees on (the block masks are checked on the xor with the query, for matches
//! only), so a fingerprint agreeing on three blocks is not reported three times.
//!
//! **Overflow re-bucketing** (the seed paper's improvement of the retrieval stage). A bucket
//! holding more than `(1 + mu)` times its table's average, and more than
//! [`split_min`](LookupOptions::split_min) entries, is split again: all its entries agree with
//! the query on its block, so their `k` or fewer differences lie in the remaining bits, and
//! `k + 1` sub-blocks of those are again a complete pigeonhole. Sub-tables nest (at most
//! three levels, and only while they lower the bucket's worst case), so skewed data, such as
//! a million fingerprints sharing one 16-bit block, keeps queries bounded.
//!
//! **Dynamic inserts.** Tables are immutable and built in bulk. Inserts go to a buffer of
//! [`buffer_len`](LookupOptions::buffer_len) entries that queries scan; a full buffer becomes
//! a *run* with its own tables, and runs within a factor of 4 of each other in size are merged
//! (the logarithmic method of Bentley and Saxe, the shape of an LSM tree). Removed ids go to a
//! [`roaring`] bitmap that queries filter, until [`compact`](FingerprintIndex::compact) or a
//! merge drops them.
//!
//! # Choices, and the measurements behind them
//!
//! All figures: release build for the default `x86_64` target, 2 shared cores (see
//! `docs/BENCHMARKS.md` and `examples/lookup_compare.rs`).
//!
//! * **Flat `k + 1` tables, not Manku's 16, up to hundreds of millions.** At 10M random
//!   fingerprints and k = 3 the flat tables answer in a median 2.9 µs (4 tables, about 600
//!   windows scanned), hold 44 bytes per fingerprint and build in 2.5 s; the two-level plan
//!   ([`TablePlan::TwoLevel`], 16 tables keyed on 28 bits) takes 5.2 µs, 143 bytes and 12 s:
//!   its 16 random probes cost more than the scan of 600 contiguous windows they save. At
//!   k = 4 flat still wins (mean 9.0 against 11.6 µs, 52 against 217 bytes); at k = 5 it
//!   loses (34 against 18 µs, with 300 bytes per fingerprint). [`TablePlan::Auto`] therefore
//!   goes two-level only when flat buckets would average over [`AUTO_TWO_LEVEL_BUCKET`]
//!   entries: above 268M fingerprints for k = 3 (an extrapolation: not measured).
//! * **8-byte entries and one copy of the fingerprints: 44 bytes a fingerprint.** Four tables
//!   of `(window, slot)` are 32 bytes, the fingerprints and ids 12, directories and bitmaps
//!   under one. Entries holding all 48 remaining bits and the id (10 bytes) would verify
//!   without reading the fingerprint, but 40 bytes of tables plus a fingerprint per id for
//!   [`get`](FingerprintIndex::get) and replacement would pass 48; the window's 32 bits leave
//!   about one false candidate per million to verify.
//! * **Keys gather the block's bits, then Fibonacci-hash them.** A plain multiplicative hash
//!   of the masked word left 88% of one block's buckets empty; gathering first makes keys
//!   uniform at every block position, and a bijection when the directory is as wide as the
//!   block.
//! * **Probes interleave the tables.** The `k + 1` buckets are located first, then scanned a
//!   few cache lines from each in turn, so their cache misses overlap: at 10M the mean query
//!   went from 4.3 to 2.8 µs.
//! * **No popcount instruction is assumed.** The default `x86_64` target has none, so the
//!   scans test `popcount(x) <= k` by clearing the lowest set bit `k` times (SIMD-friendly),
//!   about twice as fast as `count_ones` there; with `-C target-cpu=native` plain popcount
//!   is used.
//! * **Radix-sorted builds.** Entries are sorted by key in two 8-bit passes, not one
//!   65,536-way scatter that misses the TLB on every write: 6.2 s to about 2.5 s at 10M.
//!
//! # Quirks
//!
//! * Ids are any `u32`, chosen by the caller; keep the mapping to your own keys outside.
//! * A query with `k` above [`max_distance`](LookupOptions::max_distance) is exact but scans.
//! * A merge into the largest run rebuilds it: an insert occasionally takes as long as a bulk
//!   build of the whole index (seconds at 10M). Bulk-load with
//!   [`extend`](FingerprintIndex::extend) where you can.
//! * Pigeonhole tables cannot separate fingerprints that agree almost everywhere: a query
//!   near a cluster of `m` near-identical fingerprints scans up to `(k + 1) * m` windows
//!   (a median of 110 µs and a p99 of 1.1 ms for `m` = 100,000), however few of them match. A deduplicating writer that
//!   stores only the first of each group of near-duplicates never builds such clusters.

mod band_layout;
mod bands;
mod blocks;
mod index;
mod keys;
mod options;
mod results;
mod run;
mod scan;
mod signature_table;

pub use band_layout::{band_probability, band_rows_for, LOST_PAIR_WEIGHT};
pub use bands::{band_keys, BandIndex, BandIndexBuilder, MIN_REBUILD};
pub(crate) use blocks::split_bits;
pub use index::FingerprintIndex;
pub use options::{
    LookupOptions, TablePlan, AUTO_TWO_LEVEL_BUCKET, DEFAULT_BUFFER_LEN, DEFAULT_MAX_DISTANCE,
    DEFAULT_OVERFLOW_MU, DEFAULT_SPLIT_MIN, MAX_TABLE_DISTANCE,
};
pub use results::{IndexStats, Match, MemoryUsage, Pair};
pub use scan::LinearScan;
pub(crate) use signature_table::SignatureTable;
