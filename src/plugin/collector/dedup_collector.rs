//! [`DedupCollector`]: a tantivy [`Collector`] that ranks like `TopDocs` ordered by score and
//! hides near-duplicates of higher-ranked hits.

use std::collections::HashSet;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::error::DataCorruption;
use tantivy::query::{EnableScoring, Query, Weight};
use tantivy::schema::{FieldType, Schema, Type};
use tantivy::{
    DocAddress, DocId, Order, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyError,
};

use super::carried_floor::Search;
use super::column_cache::{CapacityHint, ColumnCache};
use super::rank_key::RankKey;
use super::results::DedupTopDocs;
use super::segment_hits::{
    finish, kept, Gathered, Hits, Kept, Need, RankedHit, Ranking, SegmentHits, StreamedHits,
};
use super::shards::ShardStatistics;
use super::suppression::{merge, merge_walked, walk, Page};
use super::top_hits::TopHits;
use crate::error::{Error, Result};
use crate::lookup::DEFAULT_MAX_DISTANCE;
use crate::matching::{check_distance, Matcher, Verification};
use crate::plugin::columns::segment::{ColumnNames, SegmentColumns};
use crate::plugin::columns::signature::{in_segment_values, SignatureLayout};
use crate::plugin::columns::SCOPE_FIELD;

/// Under [`Searcher::search`], a segment first keeps this many hits per hit it must supply
/// (`offset + limit + 1`).
const CANDIDATE_FACTOR: usize = 2;

/// Under [`DedupCollector::search`], each of `S` segments first keeps
/// `ceil(SHARE_FACTOR × (offset + limit + 1) / S)` hits: its share of the page, with room
/// for the hidden ones (unless its cached columns learned how many the last pages needed
/// of it).
const SHARE_FACTOR: usize = 3;

/// A segment whose hits fall short of a page collects again with this many times more.
const RETRY_FACTOR: usize = 4;

/// Under [`Searcher::search`] and in a tuple, a segment with at most this many matches
/// gives all of them, complete, instead of a ranking prefix proved by a packing: carrying a
/// hit through the merge costs a few nanoseconds, a packing's signature reads and
/// comparisons a few microseconds a segment.
const WHOLE_SEGMENT_HITS: usize = 256;

/// Documents whose sort values are read at once (tantivy hands `for_each_no_score` blocks
/// of 64).
const SORT_VALUES_BLOCK: usize = 64;

/// Deduplicated top documents, by score or by a fast field: one page of the shown hits of
/// the greedy walk described in [`DedupTopDocs`].
///
/// | setting | default | accepted |
/// |---|---|---|
/// | `limit` (in [`new`](Self::new)) | none | `1..` |
/// | [`order_by_fast_field`](Self::order_by_fast_field) | by score | a u64, i64, f64, bool or date fast field, ascending or descending |
/// | [`offset`](Self::offset) | 0 | any |
/// | [`distance`](Self::distance) (*k*) | [`DEFAULT_MAX_DISTANCE`] = 3 | `0..=64` |
/// | [`skip_flagged`](Self::skip_flagged) | off | a u64 fast field |
/// | [`verification`](Self::verification) | off | a u64 fast field of signatures |
///
/// The fingerprint field must be a u64 fast field; a document without a value in it has no
/// fingerprint. Settings are checked when the search starts:
/// [`search`](Self::search) returns [`Error::InvalidSetting`], and
/// [`Searcher::search`] (whose error type cannot carry it) a
/// [`TantivyError::InvalidArgument`] with the same message.
///
/// **Exact, without collecting every match.** Each segment keeps only its best hits, with
/// block-WAND pruning as `TopDocs` does, and collects again with more when they may not
/// hold the page; a segment with at most 256 matches gives them all, which costs less than
/// proving that a prefix is enough. Both [`search`](Self::search) and [`Searcher::search`]
/// return the exact page; `search` is the faster (it checks the page on the merged ranking,
/// where tantivy's entry point needs each segment to prove it alone). Inside a tuple or
/// [`MultiCollector`](tantivy::collector::MultiCollector), tantivy feeds every matching
/// document to the [`DedupSegmentCollector`]: still exact, but without pruning.
///
/// ```
/// use tantivy::query::QueryParser;
/// use tantivy::schema::{Schema, FAST, INDEXED, TEXT};
/// use tantivy::{doc, Index};
/// use tantivy_dedup::plugin::DedupCollector;
///
/// let mut schema = Schema::builder();
/// let body = schema.add_text_field("body", TEXT);
/// let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
/// let index = Index::create_in_ram(schema.build());
/// let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
/// writer.add_document(doc!(body => "rust rust search", fingerprint => 0b1011_u64))?;
/// writer.add_document(doc!(body => "rust search", fingerprint => 0b1001_u64))?; // 1 bit away
/// writer.add_document(doc!(body => "rust", fingerprint => u64::MAX))?;
/// writer.commit()?;
///
/// let searcher = index.reader()?.searcher();
/// let query = QueryParser::for_index(&index, vec![body]).parse_query("rust")?;
/// let top = DedupCollector::new("fingerprint", 10).search(&searcher, &query)?;
/// // The better-scoring of the first two hides the other.
/// assert_eq!(top.hits.len(), 2);
/// assert_eq!(top.hidden_total, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct DedupCollector {
    fingerprint_field: String,
    flag_field: Option<String>,
    /// The flag field of flagged documents taken in ([`include_flagged`]), when their
    /// groups are led by their originals.
    ///
    /// [`include_flagged`]: DedupCollector::include_flagged
    kept_flag_field: Option<String>,
    originals_first: bool,
    cache: Option<ColumnCache>,
    limit: usize,
    offset: usize,
    max_distance: u32,
    verification: Option<(String, Verification)>,
    require_signatures: bool,
    /// The fast field hits rank by, and its order; `None`: by score.
    sort: Option<(String, Order)>,
    /// The u64 fast field of scopes: only hits of one scope hide each other.
    scope: ScopeChoice,
    /// Segments with at most this many matches give all of them ([`WHOLE_SEGMENT_HITS`]).
    whole_segment_hits: usize,
}

/// Which scopes a collector honours.
#[derive(Debug, Clone)]
enum ScopeChoice {
    /// [`SCOPE_FIELD`] when the schema has it.
    Auto,
    /// The u64 fast field named.
    Field(String),
    /// One scope for every hit.
    None,
}

impl DedupCollector {
    /// Shows the first `limit` deduplicated hits, reading fingerprints from the u64 fast field
    /// `fingerprint_field`.
    #[must_use]
    pub fn new(fingerprint_field: impl Into<String>, limit: usize) -> DedupCollector {
        DedupCollector {
            fingerprint_field: fingerprint_field.into(),
            flag_field: None,
            kept_flag_field: None,
            originals_first: true,
            cache: None,
            limit,
            offset: 0,
            max_distance: DEFAULT_MAX_DISTANCE,
            verification: None,
            require_signatures: false,
            sort: None,
            scope: ScopeChoice::Auto,
            whole_segment_hits: WHOLE_SEGMENT_HITS,
        }
    }

    /// Under [`Searcher::search`] and in a tuple, segments with at most `hits` matches give
    /// all of them instead of a prefix proved by a packing (default 256). Changes the cost
    /// of a search, never its page: tests set 0 to run the packing on small indexes.
    #[doc(hidden)]
    #[must_use]
    pub fn whole_segment_hits(mut self, hits: usize) -> DedupCollector {
        self.whole_segment_hits = hits;
        self
    }

    /// Hides a hit only under a shown hit of the same scope: the value of the u64 fast
    /// field `scope_field` (a site, a language, a tenant, as a hash), documents without a
    /// value sharing one scope. Default: [`SCOPE_FIELD`](crate::plugin::SCOPE_FIELD) when
    /// the schema has it as a u64 fast field (the writer fills it in an index with a
    /// [scope field](crate::plugin::DedupSettings::scope_field)), so that a collector
    /// reading such an index honours its scopes unless told otherwise
    /// ([`without_scopes`](Self::without_scopes)); else one scope.
    #[must_use]
    pub fn scope(mut self, scope_field: impl Into<String>) -> DedupCollector {
        self.scope = ScopeChoice::Field(scope_field.into());
        self
    }

    /// Lets hits of every scope hide each other, whatever the index's scopes.
    #[must_use]
    pub fn without_scopes(mut self) -> DedupCollector {
        self.scope = ScopeChoice::None;
        self
    }

    /// The scope field this collector reads in `schema`, if any.
    fn scope_in<'a>(&'a self, schema: &Schema) -> Option<&'a str> {
        match &self.scope {
            ScopeChoice::Field(name) => Some(name),
            ScopeChoice::None => None,
            ScopeChoice::Auto => schema
                .get_field(SCOPE_FIELD)
                .ok()
                .filter(|&field| {
                    matches!(
                        schema.get_field_entry(field).field_type(),
                        FieldType::U64(options) if options.is_fast()
                    )
                })
                .map(|_| SCOPE_FIELD),
        }
    }

    /// Ranks hits by the fast field `field` instead of by score, in `order`, as
    /// `TopDocs::order_by_fast_field` does: by a document's first value, documents without
    /// one last in both orders, ties by [`DocAddress`] ascending. The walk then shows the
    /// best-ranked member of each near-duplicate group in that order ("newest first,
    /// near-duplicates collapsed"), as Elasticsearch's `collapse` does under any sort.
    /// The query is run without scoring; each hit's
    /// [`sort_value`](crate::plugin::DedupHit::sort_value) holds its value, and its score is 0.
    ///
    /// The field must be a fast field of type u64, i64, f64, bool or date.
    #[must_use]
    pub fn order_by_fast_field(mut self, field: impl Into<String>, order: Order) -> DedupCollector {
        self.sort = Some((field.into(), order));
        self
    }

    /// Ranks hits by score (the default), undoing
    /// [`order_by_fast_field`](Self::order_by_fast_field).
    #[must_use]
    pub fn order_by_score(mut self) -> DedupCollector {
        self.sort = None;
        self
    }

    /// Skips the first `offset` shown hits (offset pagination). Pages are stable: the shown
    /// hits of page `n` do not depend on the page size asked for before.
    #[must_use]
    pub fn offset(mut self, offset: usize) -> DedupCollector {
        self.offset = offset;
        self
    }

    /// Hides hits within `max_distance` bits (*k*, at most 64) of a higher-ranked shown hit.
    #[must_use]
    pub fn distance(mut self, max_distance: u32) -> DedupCollector {
        self.max_distance = max_distance;
        self
    }

    /// Leaves out documents whose u64 fast field `flag_field` holds a nonzero value (flagged
    /// as near-duplicates at index time): they are neither shown nor hidden.
    #[must_use]
    pub fn skip_flagged(mut self, flag_field: impl Into<String>) -> DedupCollector {
        self.flag_field = Some(flag_field.into());
        self.kept_flag_field = None;
        self
    }

    /// Undoes [`skip_flagged`](Self::skip_flagged): flagged documents take part like any
    /// other hit, hidden under a near-duplicate that ranks above them or shown. A group
    /// whose best-ranked member is a flagged copy is led on the page by its best-ranked
    /// original (a member not flagged) when the page reports one among its hidden hits, the
    /// copy hidden under it, at the group's place in the page; see
    /// [`originals_first`](Self::originals_first).
    #[must_use]
    pub fn include_flagged(mut self) -> DedupCollector {
        self.kept_flag_field = self.flag_field.take();
        self
    }

    /// With [`include_flagged`](Self::include_flagged): whether an original leads its
    /// group whatever the ranking (default), or the group's best-ranked member does, as
    /// Elasticsearch's `collapse` and Solr's `{!collapse}` show it.
    #[must_use]
    pub fn originals_first(mut self, yes: bool) -> DedupCollector {
        self.originals_first = yes;
        self
    }

    /// Judges pairs as an index's two-stage matching does: a hit is also hidden by a
    /// higher-ranked shown hit within the candidate distance of `verification` whose
    /// signature scores at least its threshold. `signature_field` is the fast field holding
    /// the signatures (`dedup_signature` in a [`DedupIndex`](crate::plugin::DedupIndex),
    /// whose [`collector`](crate::plugin::DedupIndex::collector) sets this from its settings,
    /// and whose [`fill_document`](crate::plugin::DedupIndex::fill_document) writes them): a
    /// multi-valued u64 field holding the signature's values in order, or, in older indexes,
    /// a bytes field of 4 little-endian bytes a value. A signature of another length counts
    /// as none.
    ///
    /// Through [`search`](Self::search) a hit's signature is read only when the walk
    /// compares it with a shown hit between *k* and the candidate distance. Through
    /// [`Searcher::search`] each segment keeps hits until no shown hit can hide two of a
    /// set as large as the page (see [`DedupCollector`]): hits closer than twice the
    /// candidate distance join that set by their signatures, read for it.
    #[must_use]
    pub fn verification(
        mut self,
        signature_field: impl Into<String>,
        verification: Verification,
    ) -> DedupCollector {
        self.verification = Some((signature_field.into(), verification));
        self
    }

    /// With [verification](Self::verification): fails the search with
    /// [`Error::MissingSignatures`] (under [`Searcher::search`], a
    /// [`TantivyError::DataCorruption`] with its message) when a segment has documents with
    /// a fingerprint and no signature, instead of judging them by their fingerprints alone.
    /// [`DedupIndex::collector`](crate::plugin::DedupIndex::collector) sets it: its writer
    /// stores both, so a document without a signature came through an `IndexWriter` that
    /// did not [fill](crate::plugin::DedupIndex::fill_document) it. Default: off.
    #[must_use]
    pub fn require_signatures(mut self, yes: bool) -> DedupCollector {
        self.require_signatures = yes;
        self
    }

    /// Keeps the columns it opens in `cache`, and reads them from it: searches after the
    /// first of a segment skip opening its columns. Default: no cache.
    #[must_use]
    pub fn column_cache(mut self, cache: ColumnCache) -> DedupCollector {
        self.cache = Some(cache);
        self
    }

    /// Checks the settings: a `limit` of at least 1, a `distance` of at most 64, and a
    /// valid verification.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        if let Some((_, verification)) = &self.verification {
            verification.validate()?;
        }
        if self.limit == 0 {
            return Err(Error::InvalidSetting {
                name: "limit",
                reason: "must be at least 1".to_owned(),
            });
        }
        check_distance("distance", self.max_distance)
    }

    /// Runs `query` and returns the page, the same as [`Searcher::search`] returns, faster.
    ///
    /// It collects each segment's best hits (its share of the page, with room for hidden
    /// ones), walks their merged ranking, and collects the segments that were cut again,
    /// with more, when the part of the ranking they cover exactly ends before the page does.
    /// [`Searcher::search`] cannot collect again after the merge, so
    /// there each segment must prove that it kept enough, with a packing of the whole page
    /// or under the floor an earlier segment's packing set (see [`DedupCollector`]): more
    /// hits per segment, a lower block-WAND threshold, and, with
    /// [verification](Self::verification), signatures read for it.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for invalid settings; [`Error::Tantivy`] when a field is
    /// missing or of the wrong type, or the search fails.
    pub fn search(&self, searcher: &Searcher, query: &dyn Query) -> Result<DedupTopDocs> {
        self.validate()?;
        self.search_merged(std::slice::from_ref(searcher), query)
    }

    /// The page proved on the merged ranking: segments keep their best hits, and the walk
    /// over the exact prefix of the merged ranking (as [`merge`] cuts it) is the page once
    /// it reaches a shown hit after the page, or when no segment was cut. Until then the cut
    /// segments collect again with more (a complete segment has nothing more to give).
    pub(super) fn search_merged(
        &self,
        searchers: &[Searcher],
        query: &dyn Query,
    ) -> Result<DedupTopDocs> {
        for searcher in searchers {
            self.check_schema(searcher.schema())?;
        }
        let ranking = self.ranking();
        // Several shards score as one index: BM25 statistics summed over them.
        let statistics = ShardStatistics(searchers);
        let weights = (searchers.iter())
            .map(|searcher| {
                let scoring = match ranking {
                    Ranking::Score if searchers.len() == 1 => {
                        EnableScoring::enabled_from_searcher(searcher)
                    }
                    Ranking::Score => {
                        EnableScoring::enabled_from_statistics_provider(&statistics, searcher)
                    }
                    Ranking::Field(_) => EnableScoring::disabled_from_searcher(searcher),
                };
                query.weight(scoring)
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        // Every segment of every shard, numbered across the shards in order.
        let readers: Vec<(&dyn Weight, &SegmentReader)> = (searchers.iter().zip(&weights))
            .flat_map(|(searcher, weight)| {
                (searcher.segment_readers().iter()).map(move |reader| (weight.as_ref(), reader))
            })
            .collect();
        let columns = self.open_all_columns(searchers)?;
        let needed = self.need().needed;
        let default = needed
            .saturating_mul(SHARE_FACTOR)
            .div_ceil(readers.len().max(1));
        // Each segment starts with what the last searches needed of it (an index's hits
        // may crowd in a few segments), else its share.
        let mut capacities: Vec<usize> = (columns.iter())
            .map(|columns| CapacityHint(columns.learned()).start(needed, default))
            .collect();
        let mut segments: Vec<SegmentHits> = Vec::with_capacity(readers.len());
        loop {
            for (ord, (&(weight, reader), columns)) in readers.iter().zip(&columns).enumerate() {
                if segments.get(ord).is_some_and(SegmentHits::is_complete) {
                    continue;
                }
                let top = TopHits::new(capacities[ord], reader.max_doc());
                let top = top_hits(weight, reader, columns, top, ranking)?;
                let (hits, truncated) = top.into_hits();
                let segment_ord =
                    SegmentOrdinal::try_from(ord).expect("segment ordinals fit in u32");
                let collected = kept(segment_ord, hits, !truncated, columns);
                match segments.get_mut(ord) {
                    Some(segment) => *segment = collected,
                    None => segments.push(collected),
                }
            }
            let complete = segments.iter().all(SegmentHits::is_complete);
            let merged = merge_walked(&segments, self.page())?;
            if merged.top.has_more || complete {
                // What each segment gave above the hit that ended the walk, and one more
                // (so that its last hit ranks below that one): enough for this page in one
                // pass. (Columns opened for this search alone forget it with them.)
                for (segment, columns) in segments.iter().zip(&columns) {
                    CapacityHint(columns.learned()).learn(needed, merged.reached(segment) + 1);
                }
                return Ok(merged.top);
            }
            for (capacity, segment) in capacities.iter_mut().zip(&segments) {
                if !segment.is_complete() {
                    *capacity = capacity.saturating_mul(RETRY_FACTOR);
                }
            }
        }
    }

    /// Dedupes a list ranked by the caller: the list's order is the ranking, walked as a
    /// search's ranking is (see [`DedupTopDocs`]), cut to this collector's page, by its rule
    /// (distance, verification, flagged documents skipped or not). Each pair's score is
    /// carried to its hit unused; pass any value (`0.0`) when there is none. This is how to
    /// collapse a ranking the collector cannot make: a `TopDocs` ordered by a tweaked score
    /// or a string field, results of several queries, a re-ranker's output.
    ///
    /// Deleted documents and repeated addresses are skipped (the first occurrence ranks);
    /// the whole list is read (its fingerprints, for the addresses it holds).
    ///
    /// ```
    /// # use tantivy::collector::TopDocs;
    /// # use tantivy::query::AllQuery;
    /// # use tantivy::schema::{Schema, FAST, INDEXED, STRING};
    /// # use tantivy::{doc, Index, Order};
    /// use tantivy_dedup::plugin::DedupCollector;
    ///
    /// let mut schema = Schema::builder();
    /// let site = schema.add_text_field("site", STRING | FAST);
    /// let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
    /// let index = Index::create_in_ram(schema.build());
    /// let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
    /// writer.add_document(doc!(site => "b.org", fingerprint => 0b1011_u64))?;
    /// writer.add_document(doc!(site => "a.org", fingerprint => 0b1001_u64))?; // 1 bit away
    /// writer.add_document(doc!(site => "c.org", fingerprint => u64::MAX))?;
    /// writer.commit()?;
    ///
    /// let searcher = index.reader()?.searcher();
    /// // Ranked by a string fast field, which the collector does not sort by itself.
    /// let by_site = TopDocs::with_limit(100).order_by_string_fast_field("site", Order::Asc);
    /// let ranked = searcher.search(&AllQuery, &by_site)?;
    /// let page = DedupCollector::new("fingerprint", 10)
    ///     .dedupe(&searcher, ranked.into_iter().map(|(_, address)| (0.0, address)))?;
    /// assert_eq!(page.hits.len(), 2); // a.org hides b.org
    /// assert_eq!(page.hits[0].hidden[0].distance, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for invalid settings; [`Error::Tantivy`] when a field is
    /// missing or of the wrong type, an address is not one of `searcher`'s documents, or a
    /// column cannot be read.
    pub fn dedupe(
        &self,
        searcher: &Searcher,
        ranked: impl IntoIterator<Item = (Score, DocAddress)>,
    ) -> Result<DedupTopDocs> {
        self.validate()?;
        self.check_schema(searcher.schema())?;
        let readers = searcher.segment_readers();
        let columns = self.open_all_columns(std::slice::from_ref(searcher))?;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        for (score, address) in ranked {
            let (Some(reader), Some(segment)) = (
                readers.get(address.segment_ord as usize),
                columns.get(address.segment_ord as usize),
            ) else {
                return Err(not_a_document(address));
            };
            if address.doc_id >= reader.max_doc() {
                return Err(not_a_document(address));
            }
            let deleted = reader.is_deleted(address.doc_id);
            if deleted || segment.is_flagged(address.doc_id) || !seen.insert(address) {
                continue;
            }
            hits.push(RankedHit {
                key: RankKey::of_position(hits.len()),
                score,
                address,
                fingerprint: segment.fingerprint(address.doc_id),
                scope: segment.scope(address.doc_id),
                flagged: segment.flagged(address.doc_id),
            });
        }
        let read = |address: DocAddress, values: &mut Vec<u32>| {
            columns[address.segment_ord as usize].append_signature(address.doc_id, values)
        };
        // The list's order is the ranking: no sort values to report.
        let page = Page {
            sort: None,
            ..self.page()
        };
        let mut top = walk(hits, page, &read)?;
        if self.verification.is_some() {
            let mut scratch = Vec::new();
            top.count_unverified(|address| {
                columns[address.segment_ord as usize].has_signature(address.doc_id, &mut scratch)
            })?;
        }
        Ok(top)
    }

    pub(super) fn page(&self) -> Page {
        Page {
            offset: self.offset,
            limit: self.limit,
            matcher: self.matcher(),
            sort: self.sort.as_ref().map(|(_, order)| (*order, None)),
            originals_first: self.originals_first && self.kept_flag_field.is_some(),
        }
    }

    pub(super) fn ranking(&self) -> Ranking {
        match &self.sort {
            Some((_, order)) => Ranking::Field(*order),
            None => Ranking::Score,
        }
    }

    fn matcher(&self) -> Matcher {
        Matcher::new(
            self.max_distance,
            self.verification
                .as_ref()
                .map(|(_, verification)| verification),
        )
    }

    fn need(&self) -> Need {
        Need {
            needed: self.offset.saturating_add(self.limit).saturating_add(1),
            matcher: self.matcher(),
            ranking: self.ranking(),
        }
    }

    /// The columns of every segment of `searchers`, in order, from the cache when there is
    /// one (which then forgets the segments the searchers no longer have).
    pub(super) fn open_all_columns(&self, searchers: &[Searcher]) -> Result<Vec<SegmentColumns>> {
        if let Some(cache) = &self.cache {
            cache.retain_segments_of(searchers);
        }
        let fields = self.fields_key();
        (searchers.iter())
            .flat_map(Searcher::segment_readers)
            .map(|reader| self.open_columns_keyed(reader, fields))
            .collect()
    }

    fn open_columns(&self, reader: &SegmentReader) -> Result<SegmentColumns> {
        self.open_columns_keyed(reader, self.fields_key())
    }

    /// `fields` is [`fields_key`](Self::fields_key), computed once per search.
    fn open_columns_keyed(&self, reader: &SegmentReader, fields: u64) -> Result<SegmentColumns> {
        match &self.cache {
            Some(cache) => cache.get_or_open(reader.segment_id(), fields, || {
                self.open_columns_uncached(reader)
            }),
            None => self.open_columns_uncached(reader),
        }
    }

    /// Identifies the fields read, in the cache.
    fn fields_key(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(self.fingerprint_field.as_bytes());
        if let Some(flag) = &self.flag_field {
            hasher.update(&[0]);
            hasher.update(flag.as_bytes());
        }
        if let Some(flag) = self
            .kept_flag_field
            .as_ref()
            .filter(|_| self.originals_first)
        {
            hasher.update(&[5]);
            hasher.update(flag.as_bytes());
        }
        if let Some((signature, verification)) = &self.verification {
            hasher.update(&[1]);
            hasher.update(signature.as_bytes());
            hasher.update(&verification.get_hashes().to_le_bytes());
            hasher.update(&[u8::from(self.require_signatures)]);
        }
        if let Some((sort, _)) = &self.sort {
            hasher.update(&[2]);
            hasher.update(sort.as_bytes());
        }
        match &self.scope {
            ScopeChoice::Field(scope) => {
                hasher.update(&[3]);
                hasher.update(scope.as_bytes());
            }
            ScopeChoice::Auto => hasher.update(&[4]),
            ScopeChoice::None => {}
        }
        hasher.digest()
    }

    fn open_columns_uncached(&self, reader: &SegmentReader) -> Result<SegmentColumns> {
        let names = ColumnNames {
            fingerprint: &self.fingerprint_field,
            flag: self.flag_field.as_deref(),
            kept_flags: self
                .kept_flag_field
                .as_deref()
                .filter(|_| self.originals_first),
            signature: self
                .verification
                .as_ref()
                .map(|(field, verification)| (field.as_str(), verification.get_hashes())),
            require_signatures: self.require_signatures,
            sort: self.sort.as_ref().map(|(field, _)| field.as_str()),
            scope: self.scope_in(reader.schema()),
        };
        SegmentColumns::open(reader, &names)
    }

    /// The segment's best candidates with pruning, collected again with more until enough.
    fn collect_pruned(
        &self,
        weight: &dyn Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentHits> {
        let columns = self.open_columns(reader).map_err(tantivy_error)?;
        let need = self.need();
        let search = Search::new(self, weight);
        // Hits scoring below an earlier segment's packing cannot reach the page; a hit
        // scoring the same may (ties rank by address), so the threshold is just below it.
        let floor = match need.ranking {
            Ranking::Score => search.floor(segment_ord).filter(|floor| !floor.is_nan()),
            Ranking::Field(_) => None,
        };
        let mut capacity = need.needed.saturating_mul(CANDIDATE_FACTOR);
        let mut whole = self.whole_segment_hits;
        let mut fruit = loop {
            let mut gathered = Gathered::new(capacity, whole, reader.max_doc());
            if let Some(floor) = floor {
                gathered = gathered.above(floor.next_down());
            }
            let gathered = top_hits(weight, reader, &columns, gathered, need.ranking)?;
            let (hits, truncated) = match gathered.into_hits() {
                Kept::All(hits) => break kept(segment_ord, hits, true, &columns),
                Kept::Best { hits, truncated } => (hits, truncated),
            };
            if let Some(fruit) = finish(segment_ord, hits, truncated, &columns, need) {
                break fruit;
            }
            // Known now to have more than `whole` hits.
            whole = 0;
            capacity = capacity.saturating_mul(RETRY_FACTOR);
        };
        // A segment cut at a packing raises the floor for the segments after it.
        let cut_at = (!fruit.complete)
            .then(|| fruit.hits.iter().map(|&(key, _)| key).min())
            .flatten()
            .filter(|_| need.ranking == Ranking::Score)
            .map(RankKey::score);
        let next = match (floor, cut_at) {
            (Some(floor), Some(cut_at)) => Some(floor.max(cut_at)),
            (floor, cut_at) => floor.or(cut_at),
        };
        search.collected(segment_ord, next);
        fruit.floor = floor.map(RankKey::of_score);
        Ok(fruit)
    }
}

/// Offers `into` the segment's hits (alive, not skipped as flagged) and returns it: by score
/// with block-WAND pruning at the threshold it sets, or by the sort column, every match.
pub(super) fn top_hits<H: Hits>(
    weight: &dyn Weight,
    reader: &SegmentReader,
    columns: &SegmentColumns,
    mut into: H,
    ranking: Ranking,
) -> tantivy::Result<H> {
    let alive = reader.alive_bitset();
    let skipped =
        |doc| alive.is_some_and(|bitset| bitset.is_deleted(doc)) || columns.is_flagged(doc);
    match ranking {
        // Most segments have no deletes and no flags: a match then costs its push alone
        // (the loop runs once per match).
        Ranking::Score if alive.is_none() && !columns.has_flags() => {
            weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                into.push(RankKey::of_score(score), doc);
                into.score_threshold()
            })?
        }
        Ranking::Score => weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
            if !skipped(doc) {
                into.push(RankKey::of_score(score), doc);
            }
            into.score_threshold()
        })?,
        Ranking::Field(order) => weight.for_each_no_score(reader, &mut |docs| {
            // Values read a block at a time, as `TopDocs::order_by_fast_field` reads them.
            let mut values = [None; SORT_VALUES_BLOCK];
            for docs in docs.chunks(SORT_VALUES_BLOCK) {
                let values = &mut values[..docs.len()];
                columns.sort_values(docs, values);
                for (&doc, &value) in docs.iter().zip(values.iter()) {
                    if !skipped(doc) {
                        into.push(RankKey::of_value(value, order), doc);
                    }
                }
            }
        })?,
    }
    Ok(into)
}

/// The error of an address that is not a document of the searcher.
fn not_a_document(address: DocAddress) -> Error {
    Error::Tantivy(TantivyError::InvalidArgument(format!(
        "{address:?} is not a document of the searcher"
    )))
}

/// This crate's error as tantivy's [`Collector`] methods must return it: tantivy's own error
/// as it was; a stored value this crate cannot read (a signature of another length) as data
/// corruption, with the message and its cause.
fn tantivy_error(error: Error) -> TantivyError {
    match error {
        Error::Tantivy(error) => error,
        other => {
            let cause = std::error::Error::source(&other)
                .map(|source| format!(": {source}"))
                .unwrap_or_default();
            TantivyError::DataCorruption(DataCorruption::comment_only(format!("{other}{cause}")))
        }
    }
}

/// Checks that `name` is a fast field of `schema` holding values of type `kind`.
fn check_fast_field(schema: &Schema, name: &str, role: &str, kind: Type) -> tantivy::Result<()> {
    let entry = schema.get_field_entry(schema.get_field(name)?);
    if entry.is_fast() && entry.field_type().value_type() == kind {
        return Ok(());
    }
    Err(TantivyError::SchemaError(format!(
        "the {role} field `{name}` must be a {} fast field",
        kind.name().to_lowercase()
    )))
}

/// Checks that `name` is a fast field of `schema` the collector can rank by: one whose
/// values order the same in every segment (not text, bytes or an IP address, whose fast
/// values are per-segment ordinals or not `u64`-mapped).
fn check_sort_field(schema: &Schema, name: &str) -> tantivy::Result<()> {
    let entry = schema.get_field_entry(schema.get_field(name)?);
    let kind = entry.field_type().value_type();
    let sortable = matches!(
        kind,
        Type::U64 | Type::I64 | Type::F64 | Type::Bool | Type::Date
    );
    if entry.is_fast() && sortable {
        return Ok(());
    }
    Err(TantivyError::SchemaError(format!(
        "the sort field `{name}` must be a u64, i64, f64, bool or date fast field"
    )))
}

impl Collector for DedupCollector {
    type Fruit = DedupTopDocs;
    type Child = DedupSegmentCollector;

    fn check_schema(&self, schema: &Schema) -> tantivy::Result<()> {
        // tantivy calls this once per search, before any segment: the search's start.
        Search::start(self);
        self.validate()
            .map_err(|error| TantivyError::InvalidArgument(error.to_string()))?;
        check_fast_field(schema, &self.fingerprint_field, "fingerprint", Type::U64)?;
        if let Some(flag) = &self.flag_field {
            check_fast_field(schema, flag, "flag", Type::U64)?;
        }
        if let Some((name, _)) = &self.sort {
            check_sort_field(schema, name)?;
        }
        if let ScopeChoice::Field(scope) = &self.scope {
            check_fast_field(schema, scope, "scope", Type::U64)?;
        }
        if let Some((name, _)) = &self.verification {
            // Indexes whose segments keep the values read signatures there.
            if !in_segment_values(schema, name)
                && !SignatureLayout::fits(schema, schema.get_field(name)?)
            {
                return Err(TantivyError::SchemaError(format!(
                    "the signature field `{name}` must be a u64 fast field (or a bytes fast \
                     field, as older indexes have)"
                )));
            }
        }
        Ok(())
    }

    fn for_segment(
        &self,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<DedupSegmentCollector> {
        Ok(DedupSegmentCollector {
            segment_ord,
            columns: self.open_columns(reader).map_err(tantivy_error)?,
            need: self.need(),
            hits: StreamedHits::new(self.need(), self.whole_segment_hits, reader.max_doc()),
            score_floor: Score::NEG_INFINITY,
        })
    }

    fn requires_scoring(&self) -> bool {
        self.sort.is_none()
    }

    fn merge_fruits(&self, segment_fruits: Vec<SegmentHits>) -> tantivy::Result<DedupTopDocs> {
        Search::end(self);
        let page = merge(&segment_fruits, self.page()).map_err(tantivy_error)?;
        // A cut segment holds a packing of the page's end plus one, so the walk meets a
        // shown hit after the page; without one the fruits did not prove the page.
        let unproven = !page.has_more
            && segment_fruits
                .iter()
                .any(|fruit| !fruit.complete || fruit.floor.is_some());
        if unproven {
            return Err(TantivyError::InternalError(
                "DedupCollector: the segments' hits do not prove the page (segment fruits \
                 of another search merged?)"
                    .into(),
            ));
        }
        Ok(page)
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentHits> {
        self.collect_pruned(weight, segment_ord, reader)
    }
}

/// The [`SegmentCollector`] of a [`DedupCollector`], used when tantivy feeds it every
/// matching document (inside a tuple or a `MultiCollector`); on its own the collector
/// collects segments with pruning instead.
pub struct DedupSegmentCollector {
    segment_ord: SegmentOrdinal,
    columns: SegmentColumns,
    need: Need,
    hits: StreamedHits,
    /// The score of the buffer's floor when hits rank by score (negative infinity before
    /// there is one): a hit scoring below it is dropped by one float comparison, before its
    /// flag or key is looked at.
    score_floor: Score,
}

impl DedupSegmentCollector {
    /// Offers a hit not ruled out by the score floor.
    fn offer(&mut self, doc: DocId, score: Score) {
        if self.columns.is_flagged(doc) {
            return;
        }
        let key = match self.need.ranking {
            Ranking::Score => RankKey::of_score(score),
            Ranking::Field(order) => RankKey::of_value(self.columns.sort_value(doc), order),
        };
        self.hits.push(key, doc, &self.columns, self.need);
        if let (Ranking::Score, Some((floor, _))) = (self.need.ranking, self.hits.floor()) {
            self.score_floor = floor.score();
        }
    }
}

impl std::fmt::Debug for DedupSegmentCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupSegmentCollector")
            .field("segment_ord", &self.segment_ord)
            .finish_non_exhaustive()
    }
}

impl SegmentCollector for DedupSegmentCollector {
    type Fruit = SegmentHits;

    #[inline]
    fn collect(&mut self, doc: DocId, score: Score) {
        // Inside a tuple tantivy calls this for every match, and most of a large segment's
        // rank below the floor. (A score equal to the floor's goes on: ties rank by doc.)
        if score < self.score_floor {
            return;
        }
        self.offer(doc, score);
    }

    fn harvest(self) -> SegmentHits {
        self.hits.finish(self.segment_ord, &self.columns, self.need)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tantivy_gets_its_own_errors_back_and_ours_with_their_cause() {
        let own = TantivyError::InvalidArgument("bad".into());
        assert!(matches!(
            tantivy_error(Error::Tantivy(own)),
            TantivyError::InvalidArgument(message) if message == "bad"
        ));
        let decode = Error::Decode {
            what: "signature",
            source: "28 bytes".into(),
        };
        match tantivy_error(decode) {
            TantivyError::DataCorruption(corruption) => {
                let message = format!("{corruption:?}");
                assert!(
                    message.contains("cannot decode signature: 28 bytes"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_are_checked_before_a_search() {
        let named = |collector: DedupCollector| match collector.validate() {
            Err(Error::InvalidSetting { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(named(DedupCollector::new("f", 0)), "limit");
        assert_eq!(named(DedupCollector::new("f", 1).distance(65)), "distance");
        let verification = Verification::default().threshold(2.0);
        let collector = DedupCollector::new("f", 1).verification("s", verification);
        assert_eq!(named(collector), "verification.threshold");
        assert!(DedupCollector::new("f", 1).distance(64).validate().is_ok());
    }
}
