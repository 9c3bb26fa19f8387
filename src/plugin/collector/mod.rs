//! The query-time path: [`DedupCollector`], a tantivy `Collector` that ranks matches like
//! `TopDocs` and hides every hit a higher-ranked shown hit is a near-duplicate of: field
//! collapsing (Elasticsearch's `collapse`, Solr's `{!collapse}`) keyed by near-equality of
//! fingerprints instead of equal values. It returns a [`DedupTopDocs`] page of
//! [`DedupHit`]s, each listing the hits it hid.
//!
//! * `dedup_collector`: [`DedupCollector`] and its settings; the two ways a search runs
//!   (its own `search`, or tantivy's `Searcher::search`).
//! * `segment_hits`: one segment's best hits, cut to the shortest ranking prefix that
//!   proves the page (a packing of fingerprints), [`SegmentHits`].
//! * `carried_floor`: the score floor one search under `Searcher::search` carries from a
//!   segment cut at a packing to the segments after it.
//! * `suppression`: the greedy walk down the merged ranking that shows and hides hits.
//! * `results`: [`DedupTopDocs`], [`DedupHit`].
//! * `sort_value`: [`SortValue`], a hit's value in the fast field it was ranked by.
//! * `column_cache`: [`ColumnCache`], the segments' opened columns kept across searches.
//! * `shards`: several indexes searched as one ([`DedupCollector::search_shards`],
//!   [`ShardedTopDocs`]).
//! * `shard_pages`: shards on other machines: each sends a [`ShardPage`], a coordinator
//!   merges them ([`DedupCollector::merge_shard_pages`]).

mod carried_floor;
mod column_cache;
mod dedup_collector;
mod rank_key;
mod results;
mod segment_hits;
mod shard_pages;
mod shards;
mod sort_value;
mod suppression;
mod top_hits;

pub use column_cache::ColumnCache;
pub use dedup_collector::{DedupCollector, DedupSegmentCollector};
pub use results::{DedupHit, DedupTopDocs, HiddenHit};
pub use segment_hits::SegmentHits;
pub use shard_pages::{ShardHit, ShardMerge, ShardPage};
pub use shards::{ShardStatistics, ShardedTopDocs};
pub use sort_value::SortValue;
