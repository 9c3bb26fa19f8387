//! Search results and clusters of a corpus index by document id, in the JSON form of
//! `tantivy-dedup search --json` and `clusters --json`.

use serde::Serialize;
use tantivy::query::{Query, QueryParser};
use tantivy::schema::{TantivyDocument, Value};
use tantivy::{DocAddress, Searcher};

use super::folder::CorpusIndex;
use super::query::check_nesting;
use crate::error::{Error, Result};
use crate::plugin::collector::ShardedTopDocs;
use crate::plugin::{DedupCollector, DedupHit, DedupTopDocs};

/// One shown hit of a page, by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageHit {
    /// Its id.
    pub id: String,
    /// Its score.
    pub score: f32,
    /// Its fingerprint, as 16 hexadecimal digits.
    pub fingerprint: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// The position of its index among the shards searched; `None` for a search of one
    /// index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The ids of the hits it hides.
    pub hidden: Vec<String>,
    /// The hits it hides, with how near each is.
    pub hidden_details: Vec<HiddenDetail>,
}

/// A hidden hit, by id, with its distance and (with two-stage matching) its similarity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HiddenDetail {
    /// Its id.
    pub id: String,
    /// The position of its index among the shards searched; `None` for a search of one
    /// index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Its Hamming distance to the hit that hides it.
    pub distance: u32,
    /// The similarity of their signatures, with two-stage matching.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jaccard: Option<f64>,
}

/// A page of hits by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// The shown hits, best first.
    pub hits: Vec<PageHit>,
    /// The number of hits hidden under them.
    pub hidden_total: usize,
    /// The hits, shown or hidden, judged by their fingerprints alone for want of a
    /// signature ([`DedupTopDocs::unverified`]); left out of JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub unverified: usize,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// What a corpus search shows: a page of `limit` hits after `offset`, flagged copies
/// among the hits (shown, or hidden under their original) unless `skip_flagged`.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest {
    /// Hits shown.
    pub limit: usize,
    /// Shown hits skipped.
    pub offset: usize,
    /// Leaves flagged documents out instead of listing them under their original.
    pub skip_flagged: bool,
}

impl CorpusIndex {
    /// Searches `query` (tantivy's query syntax over `title` and `body`) with
    /// near-duplicates of better hits hidden, by this index's rule, as `tantivy-dedup
    /// search` does.
    ///
    /// # Errors
    /// [`Error::InvalidQuery`] or [`Error::QueryTooNested`] for a query that does not
    /// parse, as [`parse_query`](Self::parse_query) says; [`Error::InvalidSetting`] for a
    /// limit of 0; [`Error::Tantivy`] when the index cannot be read.
    pub fn search(&self, searcher: &Searcher, query: &str, request: PageRequest) -> Result<Page> {
        let query = self.parse_query(query)?;
        let page = self.page_collector(request).search(searcher, &*query)?;
        self.page(searcher, &page)
    }

    /// `query` in tantivy's query syntax, over `title` and `body`.
    ///
    /// # Errors
    /// [`Error::QueryTooNested`] for parentheses nested deeper than
    /// [`MAX_QUERY_NESTING`](super::MAX_QUERY_NESTING) (checked before tantivy's parser,
    /// whose recursion they would overflow); [`Error::InvalidQuery`] when it does not parse.
    pub fn parse_query(&self, query: &str) -> Result<Box<dyn Query>> {
        check_nesting(query)?;
        let parser = QueryParser::for_index(
            self.dedup.index(),
            vec![self.fields.title, self.fields.body],
        );
        parser.parse_query(query).map_err(|e| Error::InvalidQuery {
            query: query.to_owned(),
            reason: e.to_string(),
        })
    }

    /// The collector of a [`search`](Self::search): the index's, cut to `request`.
    pub fn page_collector(&self, request: PageRequest) -> DedupCollector {
        let collector = self.dedup.collector(request.limit).offset(request.offset);
        if request.skip_flagged {
            collector
        } else {
            collector.include_flagged()
        }
    }

    /// A collector's page by id: each hit's stored id and title, and its hidden hits' ids.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when a stored document cannot be read.
    pub fn page(&self, searcher: &Searcher, page: &DedupTopDocs) -> Result<Page> {
        self.located_page(page, |address| (searcher, address, None))
    }

    /// The page of a search over several shards (indexes of this schema, `shards` in the
    /// order searched) by id, as [`page`](Self::page) gives one index's: each hit and hidden
    /// hit read from its shard, with the shard's position.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when a stored document cannot be read.
    pub fn sharded_page(&self, shards: &[Searcher], page: &ShardedTopDocs) -> Result<Page> {
        self.located_page(&page.page, |address| {
            let (shard, address) = page.locate(address);
            (&shards[shard], address, Some(shard))
        })
    }

    /// A page whose addresses `locate` turns into a searcher, an address in it and a shard.
    fn located_page<'a>(
        &self,
        page: &DedupTopDocs,
        locate: impl Fn(DocAddress) -> (&'a Searcher, DocAddress, Option<usize>),
    ) -> Result<Page> {
        let hits = (page.hits.iter())
            .map(|hit| self.page_hit(hit, &locate))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            hits,
            hidden_total: page.hidden_total,
            unverified: page.unverified,
        })
    }

    fn page_hit<'a>(
        &self,
        hit: &DedupHit,
        locate: impl Fn(DocAddress) -> (&'a Searcher, DocAddress, Option<usize>),
    ) -> Result<PageHit> {
        let (searcher, address, index) = locate(hit.address);
        let doc: TantivyDocument = searcher.doc(address)?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|value| value.as_str())
                .map(str::to_owned)
        };
        let details = (hit.hidden.iter())
            .map(|hidden| {
                let (searcher, address, index) = locate(hidden.address);
                Ok(HiddenDetail {
                    id: self.id_of(searcher, address)?,
                    index,
                    distance: hidden.distance,
                    jaccard: hidden.jaccard,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PageHit {
            id: text(self.fields.id).unwrap_or_default(),
            score: hit.score,
            fingerprint: hit.fingerprint.map(|f| f.to_string()),
            title: text(self.fields.title),
            index,
            hidden: details.iter().map(|detail| detail.id.clone()).collect(),
            hidden_details: details,
        })
    }

    /// The stored id of the document at `address` (empty for a document without one).
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the document cannot be read.
    pub fn id_of(&self, searcher: &Searcher, address: DocAddress) -> Result<String> {
        let doc: TantivyDocument = searcher.doc(address)?;
        Ok(doc
            .get_first(self.fields.id)
            .and_then(|value| value.as_str())
            .unwrap_or_default()
            .to_owned())
    }

    /// Every group of near-duplicates among `searcher`'s documents by id, leader first, as
    /// `tantivy-dedup clusters` lists them (see
    /// [`DedupIndex::duplicate_groups`](crate::plugin::DedupIndex::duplicate_groups)).
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the index cannot be read.
    pub fn clusters(&self, searcher: &Searcher) -> Result<Vec<Vec<String>>> {
        let groups = self
            .dedup
            .duplicate_groups(searcher, self.dedup.distance())?;
        (groups.into_iter())
            .map(|group| {
                std::iter::once(group.leader)
                    .chain(group.members)
                    .map(|address| self.id_of(searcher, address))
                    .collect()
            })
            .collect()
    }
}
