//! [`DedupCollector`]: a tantivy [`Collector`] that ranks like `TopDocs` ordered by score and
//! hides near-duplicates of higher-ranked hits.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::query::{Query, Weight};
use tantivy::schema::{FieldType, Schema};
use tantivy::{DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyError};

use super::candidates::{finish, normalize, Need, SegmentCandidates, TopHits};
use super::column_cache::ColumnCache;
use super::results::DedupTopDocs;
use super::suppression::{merge, Page};
use crate::error::{Error, Result};
use crate::fingerprint::FINGERPRINT_BITS;
use crate::lookup::DEFAULT_MAX_DISTANCE;

/// A segment first keeps this many candidates per hit it must supply (`offset + limit + 1`).
pub const CANDIDATE_FACTOR: usize = 2;

/// A segment whose candidates fall short of a page collects again with this many times more.
pub const RETRY_FACTOR: usize = 4;

/// Deduplicated top documents by score: one page of the shown hits of the greedy walk
/// described in [`DedupTopDocs`].
///
/// | setting | default | accepted |
/// |---|---|---|
/// | `limit` (in [`new`](Self::new)) | none | `1..` |
/// | [`offset`](Self::offset) | 0 | any |
/// | [`distance`](Self::distance) (*k*) | [`DEFAULT_MAX_DISTANCE`] = 3 | `0..=64` |
/// | [`skip_flagged`](Self::skip_flagged) | off | a u64 fast field |
///
/// The fingerprint field must be a u64 fast field; a document without a value in it has no
/// fingerprint. Settings are checked when the search starts:
/// [`search`](Self::search) returns [`Error::InvalidSetting`], and
/// [`Searcher::search`] (whose error type cannot carry it) a
/// [`TantivyError::InvalidArgument`] with the same message.
///
/// **Exact, without collecting every match.** Each segment keeps only its best hits, with
/// block-WAND pruning as `TopDocs` does, cut where they are provably enough for the page, and
/// collects again with [`RETRY_FACTOR`] times more when they are not; `merge_fruits` walks
/// the part of the global ranking that all segments cover. Both
/// [`Searcher::search`] and [`search`](Self::search) return the exact page. Inside a tuple
/// or [`MultiCollector`](tantivy::collector::MultiCollector), tantivy feeds every matching
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
    cache: Option<ColumnCache>,
    limit: usize,
    offset: usize,
    max_distance: u32,
}

impl DedupCollector {
    /// Shows the first `limit` deduplicated hits, reading fingerprints from the u64 fast field
    /// `fingerprint_field`.
    #[must_use]
    pub fn new(fingerprint_field: impl Into<String>, limit: usize) -> DedupCollector {
        DedupCollector {
            fingerprint_field: fingerprint_field.into(),
            flag_field: None,
            cache: None,
            limit,
            offset: 0,
            max_distance: DEFAULT_MAX_DISTANCE,
        }
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
        self
    }

    /// Keeps the columns it opens in `cache`, and reads them from it: searches after the
    /// first of a segment skip opening its columns. Default: no cache.
    #[must_use]
    pub fn column_cache(mut self, cache: ColumnCache) -> DedupCollector {
        self.cache = Some(cache);
        self
    }

    /// Checks the settings: a `limit` of at least 1 and a `distance` of at most 64.
    pub fn validate(&self) -> Result<()> {
        if self.limit == 0 {
            return Err(Error::InvalidSetting {
                name: "limit",
                reason: "must be at least 1".to_owned(),
            });
        }
        if self.max_distance > FINGERPRINT_BITS {
            return Err(Error::InvalidSetting {
                name: "distance",
                reason: format!(
                    "{} is above {FINGERPRINT_BITS}, the bits in a fingerprint",
                    self.max_distance
                ),
            });
        }
        Ok(())
    }

    /// Runs `query` and returns the page: [`Searcher::search`] with this crate's error type.
    pub fn search(&self, searcher: &Searcher, query: &dyn Query) -> Result<DedupTopDocs> {
        self.validate()?;
        if let Some(cache) = &self.cache {
            cache.retain_segments_of(searcher);
        }
        Ok(searcher.search(query, self)?)
    }

    fn need(&self) -> Need {
        Need {
            needed: self.offset.saturating_add(self.limit).saturating_add(1),
            max_distance: self.max_distance,
        }
    }

    fn open_columns(&self, reader: &SegmentReader) -> tantivy::Result<SegmentColumns> {
        match &self.cache {
            Some(cache) => cache.get_or_open(reader.segment_id(), self.fields_key(), || {
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
        hasher.digest()
    }

    fn open_columns_uncached(&self, reader: &SegmentReader) -> tantivy::Result<SegmentColumns> {
        let fast_fields = reader.fast_fields();
        let flag = match &self.flag_field {
            Some(name) => fast_fields.column_opt::<u64>(name)?,
            None => None,
        };
        Ok(SegmentColumns {
            fingerprint: fast_fields.column_opt::<u64>(&self.fingerprint_field)?,
            flag,
        })
    }

    /// The segment's best candidates with pruning, collected again with more until enough.
    fn collect_pruned(
        &self,
        weight: &dyn Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentCandidates> {
        let columns = self.open_columns(reader)?;
        let need = self.need();
        let alive = reader.alive_bitset();
        let mut capacity = need.needed.saturating_mul(CANDIDATE_FACTOR);
        loop {
            let mut top = TopHits::new(capacity, reader.max_doc());
            weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                let deleted = alive.is_some_and(|bitset| bitset.is_deleted(doc));
                if deleted || columns.is_flagged(doc) {
                    return top.threshold();
                }
                top.push(score, doc)
            })?;
            let truncated = top.is_full();
            let hits = top.into_hits();
            if let Some(candidates) = finish(
                segment_ord,
                hits,
                truncated,
                columns.fingerprint.as_ref(),
                need,
            ) {
                return Ok(candidates);
            }
            capacity = capacity.saturating_mul(RETRY_FACTOR);
        }
    }
}

/// Checks that `name` is a u64 fast field of `schema`.
fn check_u64_fast_field(schema: &Schema, name: &str, role: &str) -> tantivy::Result<()> {
    let field = schema.get_field(name)?;
    match schema.get_field_entry(field).field_type() {
        FieldType::U64(options) if options.is_fast() => Ok(()),
        _ => Err(TantivyError::SchemaError(format!(
            "the {role} field `{name}` must be a u64 fast field"
        ))),
    }
}

impl Collector for DedupCollector {
    type Fruit = DedupTopDocs;
    type Child = DedupSegmentCollector;

    fn check_schema(&self, schema: &Schema) -> tantivy::Result<()> {
        self.validate()
            .map_err(|error| TantivyError::InvalidArgument(error.to_string()))?;
        check_u64_fast_field(schema, &self.fingerprint_field, "fingerprint")?;
        if let Some(flag) = &self.flag_field {
            check_u64_fast_field(schema, flag, "flag")?;
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
            columns: self.open_columns(reader)?,
            need: self.need(),
            hits: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(
        &self,
        segment_fruits: Vec<SegmentCandidates>,
    ) -> tantivy::Result<DedupTopDocs> {
        let page = Page {
            offset: self.offset,
            limit: self.limit,
            max_distance: self.max_distance,
        };
        Ok(merge(segment_fruits, page))
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentCandidates> {
        self.collect_pruned(weight, segment_ord, reader)
    }
}

/// The fast-field columns one segment is read through. A column missing from a segment (no
/// document of it has a value) reads as no value.
#[derive(Clone)]
pub(crate) struct SegmentColumns {
    fingerprint: Option<Column<u64>>,
    flag: Option<Column<u64>>,
}

impl SegmentColumns {
    #[inline]
    fn is_flagged(&self, doc: DocId) -> bool {
        self.flag
            .as_ref()
            .and_then(|column| column.first(doc))
            .is_some_and(|value| value != 0)
    }
}

/// The [`SegmentCollector`] of a [`DedupCollector`], used when tantivy feeds it every
/// matching document (inside a tuple or a `MultiCollector`); on its own the collector
/// collects segments with pruning instead.
pub struct DedupSegmentCollector {
    segment_ord: SegmentOrdinal,
    columns: SegmentColumns,
    need: Need,
    hits: Vec<(Score, DocId)>,
}

impl std::fmt::Debug for DedupSegmentCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupSegmentCollector")
            .field("segment_ord", &self.segment_ord)
            .field("hits", &self.hits.len())
            .finish_non_exhaustive()
    }
}

impl SegmentCollector for DedupSegmentCollector {
    type Fruit = SegmentCandidates;

    fn collect(&mut self, doc: DocId, score: Score) {
        if !self.columns.is_flagged(doc) {
            self.hits.push((normalize(score), doc));
        }
    }

    fn harvest(self) -> SegmentCandidates {
        // Every matching document was seen, so the hits are never short of a page.
        finish(
            self.segment_ord,
            self.hits,
            false,
            self.columns.fingerprint.as_ref(),
            self.need,
        )
        .unwrap_or_default()
    }
}
