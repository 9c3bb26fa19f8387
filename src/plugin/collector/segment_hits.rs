//! Per-segment hits: the best-ranked hits of one segment, cut to the shortest ranking
//! prefix that is enough for a page, and the *k*-packing test that decides what is enough.
//!
//! A segment that returns only a prefix of its ranking must still let the merge find the page
//! exactly. Two facts make that possible:
//!
//! * **The kept hits are an exact prefix.** Hits are kept in a heap of the best `C` by
//!   (rank key descending, doc ascending; see `rank_key`). Tantivy's `for_each_pruning`
//!   only skips documents scoring at or below the heap's minimum, and docs arrive in
//!   increasing id, so a skipped or rejected document ranks below everything kept: the heap
//!   ends holding exactly the segment's top `C`, ties included.
//! * **A 2k-packing bounds the shown hits from below.** If a ranking prefix holds `n` hits
//!   whose fingerprints are pairwise more than `2k` apart (hits without fingerprint count
//!   too: they are always shown), the greedy walk over any ranking prefix that contains them
//!   shows at least `n` hits: each of them is shown or hidden by a shown hit within `k`
//!   ranked above it, and no shown hit is within `k` of two of them. With verification, *k*
//!   is the matcher's reach (the candidate distance): a pair further apart never matches,
//!   whatever its signatures; and two hits closer than twice the reach are still never
//!   hidden by one shown hit when their signatures agree too little for one signature to
//!   agree enough with both (`Separation::separates`), which unrelated documents' signatures
//!   do. A hit's signature is read for that test only when its distance to a member needs
//!   it.
//!
//! So a segment keeps its hits up to the one that completes a packing of `needed` (the
//! page's end plus one), or all of them. A segment with few matches gives all of them
//! ([`Gathered`]): no packing, no signature read, and the merge ranks only the hits the walk
//! reaches. The merge walks the hits ranked at or above the highest-ranked last hit of any
//! cut segment: that prefix is exact, and the cut segment it ends at brings its whole
//! packing, so the walk reaches the page's end.

use tantivy::{DocAddress, DocId, Score, SegmentOrdinal};

use super::rank_key::RankKey;
use super::top_hits::{rank_order, TopHits};
use crate::fingerprint::Fingerprint;
use crate::matching::{Matcher, Separation};
use crate::plugin::columns::segment::SegmentColumns;

/// One ranked hit: its rank key, score, address and fingerprint. Its signature, when the
/// collector verifies, is read from its segment's columns only if the walk needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RankedHit {
    pub(crate) key: RankKey,
    /// The query's score (0 when the collector ranks by a fast field, without scoring).
    pub(crate) score: Score,
    pub(crate) address: DocAddress,
    pub(crate) fingerprint: Option<Fingerprint>,
    /// Its scope: only hits of one scope hide each other.
    pub(crate) scope: Option<u64>,
    /// Whether it was flagged as a near-duplicate at index time (only known when the
    /// collector reads the flags and takes flagged hits in).
    pub(crate) flagged: bool,
}

/// How a segment's hits are ranked: by score, or by the sort column's values in an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ranking {
    Score,
    Field(tantivy::Order),
}

/// What one segment contributes to the merge (the segment collector's fruit).
///
/// Holds a prefix of the segment's ranking of hits (matching, alive, not skipped as
/// flagged) as `(key, doc)`, in no particular order: the merge ranks them, and reads a hit's
/// fingerprint and scope only when the walk reaches it. Unless
/// [`is_complete`](Self::is_complete), every hit ranked at or above the last one kept is
/// there, and the kept ones hold a 2k-packing large enough for the page (see the module docs
/// of `segment_hits`).
#[derive(Clone, Default)]
pub struct SegmentHits {
    pub(crate) hits: Vec<(RankKey, DocId)>,
    pub(crate) segment_ord: SegmentOrdinal,
    pub(crate) complete: bool,
    /// The key of the floor an earlier segment of the search set (see `carried_floor`):
    /// hits ranked below it were not offered, so the kept ones are exact only down to it.
    pub(crate) floor: Option<RankKey>,
    /// The segment's columns, where the merge reads fingerprints, scopes and signatures.
    pub(crate) columns: SegmentColumns,
}

impl std::fmt::Debug for SegmentHits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentHits")
            .field("segment_ord", &self.segment_ord)
            .field("hits", &self.hits.len())
            .field("complete", &self.complete)
            .finish_non_exhaustive()
    }
}

impl SegmentHits {
    /// Number of hits kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// True when the segment had no hit.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// True when the kept hits are all of the segment's hits (under `Searcher::search`, all
    /// of those scoring at least a floor an earlier segment of the same search proved).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }
}

/// What a page needs from every segment: a packing of `needed` hits that no shown hit can
/// hide two of, by `matcher` ([`Matcher::separation`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Need {
    /// `offset + limit + 1`: the page's shown hits, those before it, and the one after it
    /// that ends it.
    pub(crate) needed: usize,
    /// The rule that hides hits.
    pub(crate) matcher: Matcher,
    /// How hits rank.
    pub(crate) ranking: Ranking,
}

/// A member of a segment's packing: a hit's fingerprint, and its signature once read.
struct Member {
    fingerprint: Fingerprint,
    scope: Option<u64>,
    signature: SignatureRead,
}

/// A hit's signature as the packing reads it: at most once, and only for a pair whose
/// separation depends on it.
enum SignatureRead {
    Unread(DocId),
    Read(Option<Vec<u32>>),
    /// The column could not be read: the hit separates from nothing by its signature (the
    /// packing is then only larger; the walk, which reads it again, reports the error).
    Failed,
}

impl SignatureRead {
    fn get(&mut self, columns: &SegmentColumns) -> Result<Option<&[u32]>, ()> {
        if let SignatureRead::Unread(doc) = *self {
            let mut values = Vec::new();
            *self = match columns.append_signature(doc, &mut values) {
                Ok(found) => SignatureRead::Read(found.then_some(values)),
                Err(_) => SignatureRead::Failed,
            };
        }
        match self {
            SignatureRead::Read(signature) => Ok(signature.as_deref()),
            SignatureRead::Failed | SignatureRead::Unread(_) => Err(()),
        }
    }
}

/// Signature reads of a packing, bounded: a read (a signature's values bit-unpacked) costs
/// about as much as carrying this many hits through the merge, so a segment that is not
/// truncated spends at most one read per that many of its hits (beyond, a pair that needs
/// signatures counts as not separated: the packing only grows slower, and the segment
/// keeps more hits).
const HITS_PER_SIGNATURE_READ: usize = 4;

/// Whether `hit` joins `packing`: separated from every member, by distance first (no
/// signature read while a member rules it out), then by signatures where `reads` allows.
fn joins(
    separation: &Separation,
    (fingerprint, scope, signature): (Fingerprint, Option<u64>, &mut SignatureRead),
    packing: &mut [Member],
    columns: &SegmentColumns,
    reads: &mut usize,
) -> bool {
    // No shown hit hides two hits of different scopes: a hit of another scope than a
    // member is separated from it whatever their fingerprints.
    let by_distance = |member: &Member| {
        if member.scope != scope {
            return true;
        }
        let distance = fingerprint.distance(member.fingerprint);
        separation.needs_signatures(distance) || separation.separates(distance, None, None)
    };
    if !packing.iter().all(by_distance) {
        return false;
    }
    packing.iter_mut().all(|member| {
        let distance = fingerprint.distance(member.fingerprint);
        if member.scope != scope || !separation.needs_signatures(distance) {
            return true;
        }
        let unread = |read: &SignatureRead| usize::from(matches!(read, SignatureRead::Unread(_)));
        let cost = unread(signature) + unread(&member.signature);
        if cost > *reads {
            return false;
        }
        *reads -= cost;
        match (signature.get(columns), member.signature.get(columns)) {
            (Ok(ours), Ok(theirs)) => separation.separates(distance, ours, theirs),
            _ => false,
        }
    })
}

/// Sorts one segment's hits and keeps the shortest ranking prefix holding a packing of
/// `need.needed`, or all of them.
///
/// `truncated` says that `hits` may miss hits ranked below the last of them. Returns
/// `None` when it does and the hits hold no large enough packing: the caller must collect
/// more.
pub(crate) fn finish(
    segment_ord: SegmentOrdinal,
    mut hits: Vec<(RankKey, DocId)>,
    truncated: bool,
    columns: &SegmentColumns,
    need: Need,
) -> Option<SegmentHits> {
    sort_by_rank(&mut hits);
    let budget = if truncated {
        usize::MAX
    } else {
        hits.len() / HITS_PER_SIGNATURE_READ
    };
    let complete = match packing_end(&hits, columns, need, budget) {
        Some(end) => {
            let whole = end == hits.len();
            hits.truncate(end);
            !truncated && whole
        }
        None if truncated => return None,
        None => true,
    };
    Some(kept(segment_ord, hits, complete, columns))
}

/// The length of the shortest prefix of `hits` (sorted by rank) that holds a packing of
/// `need.needed`, reading at most `reads` signatures; `None` when none does.
fn packing_end(
    hits: &[(RankKey, DocId)],
    columns: &SegmentColumns,
    need: Need,
    mut reads: usize,
) -> Option<usize> {
    let separation = need.matcher.separation(columns.signature_values());
    let mut packing: Vec<Member> = Vec::new();
    let mut packed = 0usize;
    for (at, &(_, doc)) in hits.iter().enumerate() {
        // A hit without a fingerprint is always shown: a member of every packing.
        if let Some(fingerprint) = columns.fingerprint(doc) {
            let mut signature = SignatureRead::Unread(doc);
            let scope = columns.scope(doc);
            let hit = (fingerprint, scope, &mut signature);
            if !joins(&separation, hit, &mut packing, columns, &mut reads) {
                continue;
            }
            packing.push(Member {
                fingerprint,
                scope,
                signature,
            });
        }
        packed += 1;
        if packed >= need.needed {
            return Some(at + 1);
        }
    }
    None
}

/// `hits` (in any order: the merge ranks them) as a segment's fruit; `complete` when they
/// are all of its hits. (The search that proves its page on the merged ranking, and a
/// segment that gave every hit, need no packing.)
pub(crate) fn kept(
    segment_ord: SegmentOrdinal,
    hits: Vec<(RankKey, DocId)>,
    complete: bool,
    columns: &SegmentColumns,
) -> SegmentHits {
    SegmentHits {
        hits,
        segment_ord,
        complete,
        floor: None,
        columns: columns.clone(),
    }
}

/// A segment's hits as tantivy feeds them one by one (the segment collector's path):
/// bounded the way `TopDocs` bounds its own. When the buffer fills, its shortest ranking
/// prefix holding a packing of the page is kept and becomes the floor: a later hit ranked
/// below it cannot be needed (the hits above it already hold the packing), so it is not
/// kept. Without such a prefix the buffer doubles.
pub(crate) struct StreamedHits {
    hits: Vec<(RankKey, DocId)>,
    /// The last hit of a prefix that holds a packing: hits ranked below it are dropped.
    floor: Option<(RankKey, DocId)>,
    /// The buffer's length at which it is cut next.
    cap: usize,
    /// The buffer is sorted and is its own shortest prefix holding a packing: no hit came
    /// since it was cut to one.
    settled: bool,
    /// A segment with at most this many hits gives them all, uncut.
    whole: usize,
}

impl StreamedHits {
    /// An empty buffer for a page of `need`; a segment with at most `whole` hits gives
    /// them all. `max_doc` bounds the allocation.
    pub(crate) fn new(need: Need, whole: usize, max_doc: u32) -> StreamedHits {
        StreamedHits {
            // Reserved once, as `Gathered` does: growing by doubling costs a selective
            // search more than the allocation.
            hits: Vec::with_capacity(whole.saturating_add(1).min(max_doc as usize)),
            floor: None,
            cap: need.needed.saturating_mul(4).max(whole.saturating_add(1)),
            settled: false,
            whole,
        }
    }

    /// Offers a hit; hits come in document order.
    #[inline]
    pub(crate) fn push(&mut self, key: RankKey, doc: DocId, columns: &SegmentColumns, need: Need) {
        if let Some((floor_key, floor_doc)) = self.floor {
            // Documents come in increasing order: a tie with the floor ranks below it.
            if key < floor_key || (key == floor_key && doc > floor_doc) {
                return;
            }
        }
        self.hits.push((key, doc));
        self.settled = false;
        if self.hits.len() >= self.cap {
            if self.settle(columns, need) {
                self.floor = self.hits.last().copied();
            }
            self.cap = self.cap.max(self.hits.len().saturating_mul(2));
        }
    }

    /// The last hit of a prefix known to hold a packing: hits ranked below it are dropped.
    pub(crate) fn floor(&self) -> Option<(RankKey, DocId)> {
        self.floor
    }

    /// Cuts the buffer to its shortest ranking prefix holding a packing, sorted; false when
    /// none does (the buffer is then sorted, whole).
    fn settle(&mut self, columns: &SegmentColumns, need: Need) -> bool {
        if self.settled {
            return true;
        }
        // Most of a full buffer ranks far below the packing's end: select the best few, sort
        // only those, and look further only when they hold no packing.
        let mut head = need.needed.saturating_mul(2);
        loop {
            if head < self.hits.len() {
                self.hits.select_nth_unstable_by(head, rank_order);
                sort_by_rank(&mut self.hits[..head]);
            } else {
                head = self.hits.len();
                sort_by_rank(&mut self.hits);
            }
            if let Some(end) = packing_end(&self.hits[..head], columns, need, usize::MAX) {
                self.hits.truncate(end);
                self.settled = true;
                return true;
            }
            if head == self.hits.len() {
                return false;
            }
            head = head.saturating_mul(4);
        }
    }

    /// The segment's fruit: complete when no hit was dropped.
    pub(crate) fn finish(
        self,
        segment_ord: SegmentOrdinal,
        columns: &SegmentColumns,
        need: Need,
    ) -> SegmentHits {
        if self.floor.is_none() && self.hits.len() <= self.whole {
            return kept(segment_ord, self.hits, true, columns);
        }
        if self.floor.is_none() {
            return finish(segment_ord, self.hits, false, columns, need)
                .expect("a segment seen whole is never short");
        }
        // The hits ranked at or above the floor, which hold a packing. A shorter prefix may
        // too, but finding it costs more than the merge pays for carrying the rest.
        kept(segment_ord, self.hits, false, columns)
    }
}

/// Sorts one segment's `(key, doc)` hits best first (key descending, then doc ascending).
fn sort_by_rank(hits: &mut [(RankKey, DocId)]) {
    hits.sort_unstable_by(rank_order);
}

/// Where a segment's hits are offered, in increasing doc id.
pub(crate) trait Hits {
    /// Offers a hit.
    fn push(&mut self, key: RankKey, doc: DocId);

    /// The score a hit must exceed to be offered, when hits rank by score.
    fn score_threshold(&self) -> Score;
}

/// A segment's hits as [`Gathered`] kept them.
pub(crate) enum Kept {
    /// All of them: the segment had at most the whole-segment number.
    All(Vec<(RankKey, DocId)>),
    /// The best of them, as [`TopHits`] keeps them; `truncated` when others may have been
    /// dropped.
    Best {
        hits: Vec<(RankKey, DocId)>,
        truncated: bool,
    },
}

/// Every hit of a segment while they number at most `whole`, then the best `capacity` of
/// them: a small segment gives all its hits without pruning (and needs no packing), a
/// large one is pruned as `TopDocs` prunes, once past its first `whole` hits.
pub(crate) struct Gathered {
    all: Vec<(RankKey, DocId)>,
    whole: usize,
    /// Once more than `whole` came: the best `capacity`.
    top: Option<TopHits>,
    capacity: usize,
    /// The score a hit must exceed, whatever was kept (a floor carried from an earlier
    /// segment, or [`Score::MIN`]).
    floor: Score,
}

impl Gathered {
    /// Keeps every hit up to `whole`, then the best `capacity`; `max_doc` bounds the
    /// allocation.
    pub(crate) fn new(capacity: usize, whole: usize, max_doc: u32) -> Gathered {
        Gathered {
            // Reserved once: growing by doubling cost a tenth of a selective search.
            all: Vec::with_capacity(whole.saturating_add(1).min(max_doc as usize)),
            whole,
            top: (whole == 0).then(|| TopHits::new(capacity, max_doc)),
            capacity,
            floor: Score::MIN,
        }
    }

    /// The same, offered only hits scoring above `floor`.
    pub(crate) fn above(mut self, floor: Score) -> Gathered {
        self.floor = floor.max(Score::MIN);
        self
    }

    /// What was kept.
    pub(crate) fn into_hits(self) -> Kept {
        match self.top {
            None => Kept::All(self.all),
            Some(top) => {
                let (hits, truncated) = top.into_hits();
                Kept::Best { hits, truncated }
            }
        }
    }
}

impl Hits for Gathered {
    #[inline]
    fn push(&mut self, key: RankKey, doc: DocId) {
        match &mut self.top {
            None if self.all.len() < self.whole => self.all.push((key, doc)),
            Some(top) => top.push(key, doc),
            None => {
                // Past the whole-segment number: the best `capacity` from here on, starting
                // from the best of the hits so far.
                let mut all = std::mem::take(&mut self.all);
                all.push((key, doc));
                self.top = Some(TopHits::from_hits(self.capacity, all));
            }
        }
    }

    #[inline]
    fn score_threshold(&self) -> Score {
        match &self.top {
            // `floor` is at least `Score::MIN` (see `above`).
            None => self.floor,
            Some(top) => top.score_threshold().max(self.floor),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of `needed` whose hits hide those within `reach` bits.
    fn need(needed: usize, reach: u32) -> Need {
        Need {
            needed,
            matcher: Matcher::new(reach, None),
            ranking: Ranking::Score,
        }
    }

    /// Hits by score.
    fn scored(hits: &[(Score, DocId)]) -> Vec<(RankKey, DocId)> {
        hits.iter()
            .map(|&(score, doc)| (RankKey::of_score(score), doc))
            .collect()
    }

    fn finish(
        segment_ord: SegmentOrdinal,
        hits: Vec<(Score, DocId)>,
        truncated: bool,
        need: Need,
    ) -> Option<SegmentHits> {
        super::finish(
            segment_ord,
            scored(&hits),
            truncated,
            &SegmentColumns::default(),
            need,
        )
    }

    #[test]
    fn finish_without_fingerprints_keeps_needed_hits() {
        // Without a fingerprint column every hit is its own packing member.
        let hits = vec![(1.0, 5), (3.0, 1), (2.0, 2), (2.0, 0)];
        let out = finish(7, hits, false, need(2, 3)).unwrap();
        let docs: Vec<DocId> = out.hits.iter().map(|&(_, doc)| doc).collect();
        assert_eq!(docs, [1, 0], "score descending, then doc ascending");
        assert!(!out.is_complete());
        assert_eq!(out.segment_ord, 7);
    }

    #[test]
    fn finish_of_everything_is_complete() {
        let out = finish(0, vec![(1.0, 0), (2.0, 1)], false, need(5, 3)).unwrap();
        assert!(out.is_complete());
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn truncated_without_packing_asks_for_more() {
        assert!(finish(0, vec![(1.0, 0)], true, need(2, 3)).is_none());
        assert!(finish(0, vec![(1.0, 0), (1.0, 1)], true, need(2, 3)).is_some());
    }
}
