//! The collector's advanced types: what a search that goes beyond one
//! [`DedupCollector`](super::DedupCollector) page of one index needs. Most users need none of
//! them: [`DedupCollector`](super::DedupCollector), [`DedupTopDocs`](super::DedupTopDocs),
//! [`DedupHit`](super::DedupHit), [`HiddenHit`](super::HiddenHit) and
//! [`SortValue`](super::SortValue) are in [`plugin`](super).
//!
//! - Several indexes searched as one: [`ShardStatistics`] (BM25 statistics summed over the
//!   shards) and [`ShardedTopDocs`], the page
//!   [`DedupCollector::search_shards`](crate::plugin::DedupCollector::search_shards) returns.
//! - Shards on other machines: each sends a [`ShardPage`] of [`ShardHit`]s, a coordinator
//!   merges them with [`DedupCollector::merge_shard_pages`](crate::plugin::DedupCollector::merge_shard_pages)
//!   into a [`ShardMerge`]: the page, or the shards to ask for more.
//! - Searches that come often: [`ColumnCache`], the segments' opened columns kept across
//!   searches.
//! - tantivy's `Collector` machinery: [`DedupSegmentCollector`], the per-segment collector of
//!   [`DedupCollector`](super::DedupCollector) under `Searcher::search`, and its
//!   [`SegmentHits`].

// The module's layout.
//
// The query-time path: [`DedupCollector`], a tantivy `Collector` that ranks matches like
// `TopDocs` and hides every hit a higher-ranked shown hit is a near-duplicate of: field
// collapsing (Elasticsearch's `collapse`, Solr's `{!collapse}`) keyed by near-equality of
// fingerprints instead of equal values. It returns a [`DedupTopDocs`] page of
// [`DedupHit`]s, each listing the hits it hid.
//
// * `dedup_collector`: [`DedupCollector`] and its settings; the two ways a search runs
//   (its own `search`, or tantivy's `Searcher::search`).
// * `segment_hits`: one segment's best hits, cut to the shortest ranking prefix that
//   proves the page (a packing of fingerprints), [`SegmentHits`].
// * `carried_floor`: the score floor one search under `Searcher::search` carries from a
//   segment cut at a packing to the segments after it.
// * `suppression`: the greedy walk down the merged ranking that shows and hides hits.
// * `results`: [`DedupTopDocs`], [`DedupHit`].
// * `sort_value`: [`SortValue`], a hit's value in the fast field it was ranked by.
// * `column_cache`: [`ColumnCache`], the segments' opened columns kept across searches.
// * `shards`: several indexes searched as one ([`DedupCollector::search_shards`],
//   [`ShardedTopDocs`]).
// * `shard_pages`: shards on other machines: each sends a [`ShardPage`], a coordinator
//   merges them ([`DedupCollector::merge_shard_pages`]).

mod carried_floor;
mod column_cache;
pub(super) mod dedup_collector;
mod rank_key;
pub(super) mod results;
mod segment_hits;
mod shard_pages;
mod shards;
pub(super) mod sort_value;
mod suppression;
mod top_hits;

pub use column_cache::ColumnCache;
pub use dedup_collector::DedupSegmentCollector;
pub use segment_hits::SegmentHits;
pub use shard_pages::{ShardHit, ShardMerge, ShardPage};
pub use shards::{ShardStatistics, ShardedTopDocs};
