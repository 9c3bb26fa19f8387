//! Several indexes searched as one: the shards of a corpus too large for one index, each
//! with the same schema and deduplication settings. Their segments are ranked and walked
//! together, as the segments of one index are, so that a page shows one member of each
//! near-duplicate group across all the shards; scores use BM25 statistics summed over the
//! shards (Elasticsearch's `dfs_query_then_fetch`), so that a shard's ranking does not
//! depend on how documents were spread.

use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::Field;
use tantivy::{DocAddress, Searcher, SegmentOrdinal, Term};

use super::dedup_collector::DedupCollector;
use super::results::DedupTopDocs;
use crate::error::{Error, Result};

/// The BM25 statistics of several shards (searchers of indexes with one schema): the sums
/// of theirs, so that a query scores a document as it would in one index holding every
/// shard's documents. Pass it to `Searcher::search_with_statistics_provider` to rank
/// several shards' `TopDocs` as one.
#[derive(Debug, Clone, Copy)]
pub struct ShardStatistics<'a>(pub &'a [Searcher]);

impl Bm25StatisticsProvider for ShardStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.0.iter().map(|s| s.total_num_tokens(field)).sum()
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(Bm25StatisticsProvider::total_num_docs)
            .sum()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.0.iter().map(|s| s.doc_freq(term)).sum()
    }
}

/// A page over several shards: a [`DedupTopDocs`] whose addresses number the segments of
/// all the shards in order ([`locate`](Self::locate) says which shard's document each is).
#[derive(Debug, Clone, PartialEq)]
pub struct ShardedTopDocs {
    /// The page. Its [`DocAddress`]es are global: pass them to [`locate`](Self::locate).
    pub page: DedupTopDocs,
    /// The shard and local segment ordinal of each global segment ordinal.
    segments: Vec<(usize, SegmentOrdinal)>,
}

impl ShardedTopDocs {
    /// An empty page over `shards`, whose segments it numbers in order: the page of a
    /// search that found nothing, for a caller to fill with hits at
    /// [`global`](Self::global) addresses.
    #[must_use]
    pub fn new(shards: &[Searcher]) -> ShardedTopDocs {
        let segments = (shards.iter().enumerate())
            .flat_map(|(shard, searcher)| {
                (0..searcher.segment_readers().len()).map(move |segment| {
                    let segment = SegmentOrdinal::try_from(segment).expect("ordinals fit in u32");
                    (shard, segment)
                })
            })
            .collect();
        ShardedTopDocs {
            page: DedupTopDocs::default(),
            segments,
        }
    }

    /// An empty page whose global segment ordinals are the positions in `segments` (in
    /// (shard, segment) order) of the (shard, segment) pairs.
    pub(super) fn from_segments(segments: Vec<(usize, SegmentOrdinal)>) -> ShardedTopDocs {
        ShardedTopDocs {
            page: DedupTopDocs::default(),
            segments,
        }
    }

    /// The global address of the document at `address` in shard `shard`'s searcher.
    ///
    /// # Panics
    /// When `shard` or its segment is not one of this page's search.
    #[must_use]
    pub fn global(&self, shard: usize, address: DocAddress) -> DocAddress {
        // `segments` is in (shard, segment) order, however it was made.
        let segment = (self.segments)
            .binary_search(&(shard, address.segment_ord))
            .expect("a segment of one of the shards");
        let segment = SegmentOrdinal::try_from(segment).expect("ordinals fit in u32");
        DocAddress::new(segment, address.doc_id)
    }

    /// The shard (its position in the searchers given) of a global address of
    /// [`page`](Self::page), and the document's address in that shard's searcher.
    ///
    /// # Panics
    /// When `address` is not an address of this page's search.
    #[must_use]
    pub fn locate(&self, address: DocAddress) -> (usize, DocAddress) {
        let (shard, segment_ord) = self.segments[address.segment_ord as usize];
        (shard, DocAddress::new(segment_ord, address.doc_id))
    }
}

impl DedupCollector {
    /// Runs `query` over the shards `shards` (searchers of indexes with one schema and one
    /// deduplication rule) as over one index: one ranking (BM25 statistics summed over the
    /// shards; ties by shard, then address), walked by the collector's rule, so that a hit
    /// is hidden under a better-ranked near-duplicate of any shard. The page is exact, as
    /// [`search`](Self::search)'s is: each segment of each shard keeps its share of the page
    /// and is collected again with more while the merged walk falls short.
    ///
    /// ```
    /// use tantivy::query::AllQuery;
    /// use tantivy::schema::{Schema, FAST, INDEXED};
    /// use tantivy::{doc, Index};
    /// use tantivy_dedup::plugin::DedupCollector;
    ///
    /// let mut schema = Schema::builder();
    /// let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
    /// let schema = schema.build();
    /// let shard = |fingerprints: &[u64]| -> tantivy::Result<tantivy::Searcher> {
    ///     let index = Index::create_in_ram(schema.clone());
    ///     let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
    ///     for &value in fingerprints {
    ///         writer.add_document(doc!(fingerprint => value))?;
    ///     }
    ///     writer.commit()?;
    ///     Ok(index.reader()?.searcher())
    /// };
    /// // The same page crawled by two nodes, one bit apart, in two shards.
    /// let shards = [shard(&[0b1011, u64::MAX])?, shard(&[0b1001])?];
    /// let top = DedupCollector::new("fingerprint", 10).search_shards(&shards, &AllQuery)?;
    /// assert_eq!(top.page.hits.len(), 2);
    /// assert_eq!(top.page.hidden_total, 1);
    /// let hidden = top.page.hits[0].hidden[0].address;
    /// assert_eq!(top.locate(hidden).0, 1, "the copy in the second shard is hidden");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ShardSchema`] when a shard's schema differs from the first's; otherwise as
    /// [`search`](Self::search).
    pub fn search_shards(&self, shards: &[Searcher], query: &dyn Query) -> Result<ShardedTopDocs> {
        self.validate()?;
        if let Some(first) = shards.first() {
            if let Some(shard) = (shards.iter()).position(|s| s.schema() != first.schema()) {
                return Err(Error::ShardSchema { shard });
            }
        }
        Ok(ShardedTopDocs {
            page: self.search_merged(shards, query)?,
            ..ShardedTopDocs::new(shards)
        })
    }
}
