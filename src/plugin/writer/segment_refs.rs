//! The committed references as the segments' files hold them ([`SegmentRefs`]): in an
//! index whose segments keep reference tables, a writer probes each committed segment's
//! tables in place, and holds in memory only what was added since the last commit.
//!
//! A committed reference's id is its segment's *base* (the documents of the segments
//! before it, in the searcher's order) plus its document id, valid until the next commit;
//! the writer's own references added since are numbered from the end of the last segment.

use std::collections::HashSet;

use tantivy::columnar::Column;
use tantivy::fastfield::AliveBitSet;
use tantivy::{DocAddress, DocId, Searcher};

use super::band_filter::BandFilter;
use crate::error::Result;
use crate::fingerprint::{is_empty_set, Fingerprint};
use crate::lookup::{band_keys, Match};
use crate::matching::Matcher;
use crate::plugin::columns::SCOPE_FIELD;
use crate::plugin::segment_values::{self, tables_of, BlockRun, SegmentValues, TablesAt};

/// The committed references of a writer's searcher, read from the segments' tables.
pub(super) struct SegmentRefs {
    segments: Vec<Segment>,
    /// The id of each segment's first document.
    bases: Vec<u32>,
    /// The first id after the last segment's.
    end: u32,
    /// Committed references deleted since the commit (by key).
    removed: HashSet<u32>,
    /// The band keys the segments may hold.
    filter: BandFilter,
    /// Scratch space: a query's band keys some segment may hold, a segment's band hits,
    /// and the block tables' runs the query reads in every segment.
    probe: Vec<(usize, u32)>,
    hits: Vec<DocId>,
    runs: Vec<(usize, BlockRun)>,
    segment_runs: Vec<BlockRun>,
}

struct Segment {
    values: SegmentValues,
    alive: Option<AliveBitSet>,
    /// The scope hash column, when the index has scopes.
    scopes: Option<Column<u64>>,
}

impl SegmentRefs {
    /// The references of `searcher` for a writer judging by `matcher`; `None` when a
    /// segment has no tables that serve its rule (a file of an earlier format, or a writer
    /// given a wider distance than the index's): the writer then builds its tables in
    /// memory. The band filter is `previous`'s where it still fits (the one of the view
    /// before a commit), with the keys of the segments it has not read.
    ///
    /// # Errors
    /// As [`segment_values::open`].
    pub fn open(
        searcher: &Searcher,
        matcher: &Matcher,
        scoped: bool,
        previous: Option<BandFilter>,
    ) -> Result<Option<Self>> {
        let mut segments = Vec::with_capacity(searcher.segment_readers().len());
        let mut bases = Vec::with_capacity(segments.capacity());
        let mut end = 0u32;
        for reader in searcher.segment_readers() {
            let values = segment_values::open(reader)?;
            if !serves(&values, matcher) {
                return Ok(None);
            }
            let scopes = match scoped {
                true => reader.fast_fields().column_opt(SCOPE_FIELD)?,
                false => None,
            };
            bases.push(end);
            end += reader.max_doc();
            segments.push(Segment {
                values,
                alive: reader.alive_bitset().cloned(),
                scopes,
            });
        }
        let read: Vec<_> = (searcher.segment_readers().iter())
            .zip(&segments)
            .map(|(reader, segment)| (reader, &segment.values))
            .collect();
        let filter = BandFilter::of(&read, previous);
        Ok(Some(SegmentRefs {
            segments,
            bases,
            end,
            removed: HashSet::new(),
            filter,
            probe: Vec::new(),
            hits: Vec::new(),
            runs: Vec::new(),
            segment_runs: Vec::new(),
        }))
    }

    /// The band filter, for the view after the next commit.
    pub fn into_filter(self) -> BandFilter {
        self.filter
    }

    /// Whether the segments' tables serve a writer judging by `matcher`.
    pub fn serve(&self, matcher: &Matcher) -> bool {
        (self.segments.iter()).all(|segment| serves(&segment.values, matcher))
    }

    /// The first id after the committed ones.
    pub fn end(&self) -> u32 {
        self.end
    }

    /// The segment of `id` and its document there.
    #[inline]
    fn locate(&self, id: u32) -> (usize, DocId) {
        let ord = self.bases.partition_point(|&base| base <= id) - 1;
        (ord, id - self.bases[ord])
    }

    /// Whether the reference of `doc` in segment `ord` (id `id`) still counts.
    #[inline]
    fn counts(&self, ord: usize, doc: DocId, id: u32) -> bool {
        (self.segments[ord].alive.as_ref()).is_none_or(|alive| alive.is_alive(doc))
            && !self.removed.contains(&id)
    }

    /// The references `matcher` may judge near-duplicates of a document with `fingerprint`
    /// and `signature`, appended to `found` unordered, as
    /// [`find_candidates`](crate::matching::find_candidates) finds them among references in
    /// memory: within the reach from the block tables, or within the distance from them and
    /// beyond it, within the reach, from the band tables.
    pub fn candidates(
        &mut self,
        (fingerprint, signature): (Fingerprint, Option<&[u32]>),
        matcher: &Matcher,
        found: &mut Vec<Match>,
    ) {
        let banded = matcher.bands().is_some();
        let within = if banded {
            matcher.distance()
        } else {
            matcher.reach()
        };
        // The query's band keys, computed once, that some segment may hold.
        let mut probe = std::mem::take(&mut self.probe);
        probe.clear();
        if let (Some((bands, rows)), Some(signature)) = (matcher.bands(), signature) {
            if signature.len() >= bands * rows && !is_empty_set(signature) {
                let keys = band_keys(signature, rows).take(bands).enumerate();
                probe.extend(keys.filter(|&(band, key)| self.filter.may_hold(band, key)));
            }
        }
        // Every segment's runs first, then their first entries, then the scans: the cache
        // misses of one step overlap instead of following one another.
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        for (ord, segment) in self.segments.iter().enumerate() {
            if let Some(tables) = segment.values.tables() {
                self.segment_runs.clear();
                tables.block_runs(segment.values.bytes(), fingerprint, &mut self.segment_runs);
                runs.extend(self.segment_runs.iter().map(|&run| (ord, run)));
            }
        }
        let ahead = (runs.iter())
            .map(|&(ord, run)| TablesAt::first_word(self.segments[ord].values.bytes(), run))
            .fold(0, |all, word| all ^ word);
        std::hint::black_box(ahead);
        for &(ord, run) in &runs {
            let values = &self.segments[ord].values;
            let Some(tables) = values.tables() else {
                continue;
            };
            let base = self.bases[ord];
            tables.scan(values.bytes(), run, fingerprint, within, |doc, distance| {
                if self.counts(ord, doc, base + doc) {
                    found.push(Match {
                        id: base + doc,
                        distance,
                    });
                }
            });
        }
        self.runs = runs;
        for ord in 0..self.segments.len() {
            let values = &self.segments[ord].values;
            let Some(tables) = values.tables() else {
                continue;
            };
            let base = self.bases[ord];
            if probe.is_empty() {
                continue;
            }
            let mut hits = std::mem::take(&mut self.hits);
            tables.band_hits(values.bytes(), &probe, &mut hits);
            for &doc in &hits {
                let Some(theirs) = values.fingerprint(doc) else {
                    continue;
                };
                let distance = theirs.distance(fingerprint);
                if distance > matcher.distance()
                    && distance <= matcher.reach()
                    && self.counts(ord, doc, base + doc)
                {
                    found.push(Match {
                        id: base + doc,
                        distance,
                    });
                }
            }
            self.hits = hits;
        }
        self.probe = probe;
    }

    /// The order of `id` among references at one distance: the writer's add order, then
    /// the index's order (documents added without the writer last).
    pub fn sequence(&self, id: u32) -> u64 {
        let (ord, doc) = self.locate(id);
        self.segments[ord].values.sequence(doc)
    }

    /// The fingerprint of the reference `id`.
    pub fn fingerprint(&self, id: u32) -> Fingerprint {
        let (ord, doc) = self.locate(id);
        (self.segments[ord].values.fingerprint(doc)).expect("a reference has a fingerprint")
    }

    /// The key hash of `id` (`NO_KEY` for none).
    pub fn key_hash(&self, id: u32) -> u64 {
        let (ord, doc) = self.locate(id);
        self.segments[ord].values.key_hash(doc)
    }

    /// The scope hash of `id`, if it has one.
    pub fn scope(&self, id: u32) -> Option<u64> {
        let (ord, doc) = self.locate(id);
        (self.segments[ord].scopes.as_ref()).and_then(|scopes| scopes.first(doc))
    }

    /// Reads the signature of `id` into `out` (of the index's number of values); false
    /// when it has none.
    pub fn read_signature(&self, id: u32, out: &mut [u32]) -> bool {
        let (ord, doc) = self.locate(id);
        self.segments[ord].values.read_signature(doc, out)
    }

    /// Where `id` is in the searcher.
    pub fn address(&self, id: u32) -> DocAddress {
        let (ord, doc) = self.locate(id);
        DocAddress::new(ord as u32, doc)
    }

    /// The id of the committed document at `address`, when it is a reference that counts.
    pub fn reference_at(&self, address: DocAddress) -> Option<u32> {
        let ord = address.segment_ord as usize;
        let id = self.bases.get(ord)? + address.doc_id;
        let is_reference = self.segments[ord].values.is_reference(address.doc_id);
        (is_reference == Some(true) && self.counts(ord, address.doc_id, id)).then_some(id)
    }

    /// Forgets the reference `id` (deleted since the commit).
    pub fn remove(&mut self, id: u32) {
        self.removed.insert(id);
    }

    /// The number of references that count.
    pub fn len(&self) -> usize {
        let mut count = 0;
        for (ord, segment) in self.segments.iter().enumerate() {
            let Some(tables) = segment.values.tables() else {
                continue;
            };
            count += match &segment.alive {
                None => tables.references(),
                Some(alive) => (alive.iter_alive())
                    .filter(|&doc| segment.values.is_reference(doc) == Some(true))
                    .count(),
            };
            count -= (self.removed.iter())
                .filter(|&&id| self.locate(id).0 == ord)
                .count();
        }
        count
    }
}

/// Whether the tables of `values` serve a writer judging by `matcher`: block tables of its
/// distance or wider, and its bands when its candidates come from bands.
fn serves(values: &SegmentValues, matcher: &Matcher) -> bool {
    let Some(tables) = values.tables() else {
        return false;
    };
    let (shape, wanted) = (tables.shape(), tables_of(matcher));
    shape.has_blocks()
        && shape.distance >= wanted.distance
        && (wanted.bands == 0 || (shape.bands, shape.rows) == (wanted.bands, wanted.rows))
}
