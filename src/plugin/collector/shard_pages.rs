//! Shards on other machines: each shard sends its best hits with what the merge needs
//! (rank, fingerprint, scope, signature), and a coordinator walks them as one ranking, the
//! scatter-gather of Elasticsearch's query phase. A shard that sent fewer than all of its
//! matches bounds how far down the merged ranking is exact; when the walk reaches that
//! bound before the page ends, the coordinator asks those shards for more.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tantivy::collector::Collector;
use tantivy::query::{Bm25StatisticsProvider, EnableScoring, Query};
use tantivy::{DocAddress, Score, Searcher, SegmentOrdinal};

use super::dedup_collector::{top_hits, DedupCollector};
use super::rank_key::RankKey;
use super::segment_hits::{RankedHit, Ranking};
use super::shards::ShardedTopDocs;
use super::sort_value::SortValue;
use super::suppression::{walk, Page};
use super::top_hits::TopHits;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;

/// One shard's best hits for a coordinator ([`DedupCollector::shard_page`]): serializable,
/// so that it can cross the network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardPage {
    /// The shard's best matches, best first.
    pub hits: Vec<ShardHit>,
    /// True when `hits` are all of the shard's matches.
    pub complete: bool,
}

/// A hit of a [`ShardPage`]: its rank and what the rule judges it by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardHit {
    /// Its place in the ranking (greater first), comparable across shards of one search.
    pub rank: u128,
    /// The query's score (0 when ranked by a fast field).
    pub score: Score,
    /// Its value in the field the collector ranks by, if it does and the hit has one.
    pub sort_value: Option<SortValue>,
    /// Its address in the shard's searcher.
    pub address: DocAddress,
    /// Its fingerprint.
    pub fingerprint: Option<Fingerprint>,
    /// Its scope's hash, with a scoped collector.
    pub scope: Option<u64>,
    /// Its signature, when the collector verifies and the hit has one.
    pub signature: Option<Vec<u32>>,
    /// Whether it was flagged at index time, when the collector takes flagged hits in and
    /// leads their groups by their originals.
    #[serde(default)]
    pub flagged: bool,
}

/// What a coordinator's merge of shard pages ([`DedupCollector::merge_shard_pages`]) gives.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ShardMerge {
    /// The page, exact.
    Page(ShardedTopDocs),
    /// The walk reached the end of what these shards sent before the page ended: ask
    /// them again with a larger depth (and keep the other pages).
    Deeper(Vec<usize>),
}

impl DedupCollector {
    /// A shard's part of a search over shards on other machines: its best `depth` matches
    /// of `query` (all of them when it has fewer), ranked as the collector ranks, scored
    /// with `statistics` (the summed statistics of every shard, for scores comparable
    /// across shards: see [`ShardStatistics`](super::ShardStatistics)), each with its
    /// fingerprint, scope and, when the collector verifies, signature. Nothing is hidden
    /// here: [`merge_shard_pages`](Self::merge_shard_pages) walks every shard's hits as one
    /// ranking.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] (`depth`) for a depth of 0; otherwise as
    /// [`search`](Self::search).
    pub fn shard_page(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        statistics: &dyn Bm25StatisticsProvider,
        depth: usize,
    ) -> Result<ShardPage> {
        self.validate()?;
        if depth == 0 {
            return Err(Error::InvalidSetting {
                name: "depth",
                reason: "must be at least 1".to_owned(),
            });
        }
        self.check_schema(searcher.schema())?;
        let ranking = self.ranking();
        let scoring = match ranking {
            Ranking::Score => EnableScoring::enabled_from_statistics_provider(statistics, searcher),
            Ranking::Field(_) => EnableScoring::disabled_from_searcher(searcher),
        };
        let weight = query.weight(scoring)?;
        let columns = self.open_all_columns(std::slice::from_ref(searcher))?;
        let mut ranked: Vec<(RankKey, DocAddress)> = Vec::new();
        let mut complete = true;
        for (ord, (reader, columns)) in searcher.segment_readers().iter().zip(&columns).enumerate()
        {
            let top = TopHits::new(depth, reader.max_doc());
            let (hits, truncated) =
                top_hits(weight.as_ref(), reader, columns, top, ranking)?.into_hits();
            complete &= !truncated;
            let ord = SegmentOrdinal::try_from(ord).expect("segment ordinals fit in u32");
            ranked.extend(
                hits.into_iter()
                    .map(|(key, doc)| (key, DocAddress::new(ord, doc))),
            );
        }
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        complete &= ranked.len() <= depth;
        ranked.truncate(depth);
        let sort = self.page().sort.map(|(order, _)| order);
        let hits = (ranked.into_iter())
            .map(|(key, address)| {
                let columns = &columns[address.segment_ord as usize];
                let doc = address.doc_id;
                let mut values = Vec::new();
                let signature = columns
                    .append_signature(doc, &mut values)?
                    .then_some(values);
                let sort_value =
                    sort.and_then(|order| SortValue::of(key.value(order)?, columns.sort_type()?));
                Ok(ShardHit {
                    rank: key.bits(),
                    score: if sort.is_none() { key.score() } else { 0.0 },
                    sort_value,
                    address,
                    fingerprint: columns.fingerprint(doc),
                    scope: columns.scope(doc),
                    signature,
                    flagged: columns.flagged(doc),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ShardPage { hits, complete })
    }

    /// A coordinator's merge of the pages of every shard of a search (`pages[i]` from shard
    /// `i`'s [`shard_page`](Self::shard_page), with this collector's settings): the page of
    /// the shards searched as one ([`ShardMerge::Page`], addresses as in
    /// [`search_shards`](Self::search_shards)), or the shards to ask again with a larger
    /// depth ([`ShardMerge::Deeper`]) when the walk ran past what they sent.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for invalid settings.
    pub fn merge_shard_pages(&self, pages: &[ShardPage]) -> Result<ShardMerge> {
        self.validate()?;
        // A page without hits that is not all of its shard's says nothing of where the
        // shard's ranking stands.
        let blind: Vec<usize> = (pages.iter().enumerate())
            .filter(|(_, page)| !page.complete && page.hits.is_empty())
            .map(|(shard, _)| shard)
            .collect();
        if !blind.is_empty() {
            return Ok(ShardMerge::Deeper(blind));
        }
        // Global segment ordinals: the segments the pages name, by shard, then segment.
        let mut segments: Vec<(usize, SegmentOrdinal)> = (pages.iter().enumerate())
            .flat_map(|(shard, page)| {
                (page.hits.iter()).map(move |hit| (shard, hit.address.segment_ord))
            })
            .collect();
        segments.sort_unstable();
        segments.dedup();
        let mut sharded = ShardedTopDocs::from_segments(segments);
        let global = |shard: usize, address: DocAddress| sharded.global(shard, address);
        let mut ranked: Vec<(RankKey, DocAddress, &ShardHit)> = (pages.iter().enumerate())
            .flat_map(|(shard, page)| {
                let global = &global;
                (page.hits.iter()).map(move |hit| {
                    (
                        RankKey::from_bits(hit.rank),
                        global(shard, hit.address),
                        hit,
                    )
                })
            })
            .collect();
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // An incomplete page may miss hits ranked below its last: the walk stops at the
        // highest such last hit.
        let boundary = (pages.iter().enumerate())
            .filter(|(_, page)| !page.complete)
            .filter_map(|(shard, page)| {
                let last = page.hits.last()?;
                Some((RankKey::from_bits(last.rank), global(shard, last.address)))
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let above = |&(key, address, _): &(RankKey, DocAddress, &ShardHit)| {
            boundary.is_none_or(|(bound, at)| key > bound || (key == bound && address <= at))
        };
        let walked: Vec<_> = ranked.into_iter().take_while(above).collect();
        let by_address: HashMap<DocAddress, &ShardHit> = walked
            .iter()
            .map(|&(_, address, hit)| (address, hit))
            .collect();
        let hits = walked.iter().map(|&(key, address, hit)| RankedHit {
            key,
            score: hit.score,
            address,
            fingerprint: hit.fingerprint,
            scope: hit.scope,
            flagged: hit.flagged,
        });
        let read = |address: DocAddress, values: &mut Vec<u32>| {
            let signature = by_address
                .get(&address)
                .and_then(|hit| hit.signature.as_ref());
            values.extend(signature.into_iter().flatten());
            Ok(signature.is_some())
        };
        let sort = self.page().sort;
        let mut page = walk(
            hits,
            Page {
                sort: None,
                ..self.page()
            },
            &read,
        )?;
        let incomplete: Vec<usize> = (pages.iter().enumerate())
            .filter(|(_, page)| !page.complete)
            .map(|(shard, _)| shard)
            .collect();
        if !page.has_more && !incomplete.is_empty() {
            return Ok(ShardMerge::Deeper(incomplete));
        }
        if sort.is_some() {
            for hit in &mut page.hits {
                hit.sort_value = by_address[&hit.address].sort_value;
            }
        }
        if self.page().matcher.verifies() {
            page.count_unverified(|address| {
                Ok(by_address
                    .get(&address)
                    .is_some_and(|hit| hit.signature.is_some()))
            })?;
        }
        sharded.page = page;
        Ok(ShardMerge::Page(sharded))
    }
}
