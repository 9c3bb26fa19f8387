//! What a [`DedupCollector`](crate::plugin::DedupCollector) returns: one page of shown hits, each with
//! the near-duplicates it hid.

use tantivy::fastfield::FastValue;
use tantivy::{DocAddress, Score};

use super::sort_value::SortValue;

use crate::fingerprint::Fingerprint;

/// One shown hit of a deduplicated page: a document of which no higher-ranked shown hit is a
/// near-duplicate (within distance *k*, or verified: see [`DedupTopDocs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DedupHit {
    /// The query's score for the document; 0 when the collector ranks by a fast field (it
    /// does not score then). [`DedupCollector::dedupe`](crate::plugin::DedupCollector::dedupe)
    /// carries the score it was given.
    pub score: Score,
    /// The document's value in the fast field the collector ranks by
    /// ([`order_by_fast_field`](crate::plugin::DedupCollector::order_by_fast_field)): `None` when
    /// it ranks by score, or the document has no value.
    /// [`sort_value_as`](Self::sort_value_as) gives it as the field's Rust type.
    pub sort_value: Option<SortValue>,
    /// Where the document is, in the searcher that ran the query.
    pub address: DocAddress,
    /// The document's fingerprint, `None` when it has none (a text without features). Hits
    /// without a fingerprint never hide and are never hidden.
    pub fingerprint: Option<Fingerprint>,
    /// The hits this one hid, in ranking order: the hidden hits for which this is the
    /// highest-ranked shown near-duplicate, among those ranked before the end of the
    /// page (see [`DedupTopDocs`]).
    pub hidden: Vec<HiddenHit>,
}

/// A hit hidden under a shown one, with how near the two are.
#[derive(Debug, Clone, PartialEq)]
pub struct HiddenHit {
    /// Where the hidden document is, in the searcher that ran the query.
    pub address: DocAddress,
    /// The Hamming distance between its fingerprint and the shown hit's.
    pub distance: u32,
    /// With [verification](crate::plugin::DedupCollector::verification), the fraction of
    /// equal values of the two signatures (the Jaccard estimate of their shingle sets, as
    /// [`Judgement::jaccard`](crate::matching::Judgement::jaccard) gives it); `None`
    /// without verification or when one of them has no signature.
    pub jaccard: Option<f64>,
}

/// One page of deduplicated search results.
///
/// The matching documents are ranked by score, descending (or by a fast field: see
/// [`order_by_fast_field`](crate::plugin::DedupCollector::order_by_fast_field)), ties broken
/// by [`DocAddress`] ascending. A greedy walk down the ranking *shows* a hit unless a higher-ranked shown hit
/// lies within distance *k* of it (or, with
/// [verification](crate::plugin::DedupCollector::verification), within the candidate distance with
/// signatures scoring at the threshold), in which case it is *hidden* and attributed to the
/// highest-ranked such shown hit. The page holds the shown hits numbered
/// `offset .. offset + limit` (from 0).
///
/// **The page ends** just before the first shown hit after it, or at the end of the ranking
/// when no shown hit follows. Each hit's [`hidden`](DedupHit::hidden) list holds the hits it
/// hid that rank before that end; hits it hid further down are not reported. A hit hidden by
/// a shown hit of an earlier page is reported with that earlier page only (if it ranks before
/// that page's end), so one page's lists may miss hits that rank within it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DedupTopDocs {
    /// The page's shown hits, best first: at most `limit`, fewer on the last page, none past
    /// the end.
    pub hits: Vec<DedupHit>,
    /// The sum of the lengths of the hits' [`hidden`](DedupHit::hidden) lists.
    pub hidden_total: usize,
    /// True when at least one more shown hit follows this page, i.e. the next page is not
    /// empty.
    pub has_more: bool,
    /// The page's hits, shown or hidden under them, that have a fingerprint and no
    /// signature although the collector verifies: judged by their fingerprints alone, as
    /// well as they can be.
    /// 0 for an index whose documents all came through a
    /// [`DedupWriter`](crate::plugin::DedupWriter) or
    /// [`fill_document`](crate::plugin::DedupIndex::fill_document);
    /// [`DedupIndex::unsigned_documents`](crate::plugin::DedupIndex::unsigned_documents)
    /// finds the others.
    pub unverified: usize,
}

impl DedupTopDocs {
    /// Sets [`unverified`](Self::unverified): the page's hits with a fingerprint for which
    /// `signed` is false (a read of its signature, for a page of a verifying collector).
    ///
    /// # Errors
    /// What `signed` returns.
    pub(crate) fn count_unverified(
        &mut self,
        mut signed: impl FnMut(DocAddress) -> crate::Result<bool>,
    ) -> crate::Result<()> {
        let shown = (self.hits.iter())
            .filter(|hit| hit.fingerprint.is_some())
            .map(|hit| hit.address);
        // A hidden hit has a fingerprint: it was near one.
        let hidden = (self.hits.iter()).flat_map(|hit| hit.hidden.iter().map(|h| h.address));
        let mut unverified = 0;
        for address in shown.chain(hidden) {
            unverified += usize::from(!signed(address)?);
        }
        self.unverified = unverified;
        Ok(())
    }

    /// The addresses of the shown hits, in page order.
    #[must_use]
    pub fn addresses(&self) -> Vec<DocAddress> {
        self.hits.iter().map(|hit| hit.address).collect()
    }
}

impl DedupHit {
    /// The [`sort_value`](Self::sort_value) as `T` (`u64`, `i64`, `f64`, `bool` or
    /// `DateTime`), the type `TopDocs::order_by_fast_field::<T>` gives for the field:
    /// `None` when the collector ranks by score, the document has no value, or the field
    /// is of another type than `T`.
    #[must_use]
    pub fn sort_value_as<T: FastValue>(&self) -> Option<T> {
        self.sort_value.and_then(SortValue::get)
    }

    /// The addresses of the hits this one hid, in ranking order.
    #[must_use]
    pub fn hidden_addresses(&self) -> Vec<DocAddress> {
        self.hidden.iter().map(|hidden| hidden.address).collect()
    }
}
