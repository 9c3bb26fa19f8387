//! The greedy suppression walk: down the ranking, a hit is hidden when a higher-ranked shown
//! hit is its near-duplicate (within distance *k*, or verified by the index's
//! [`Matcher`]), and shown otherwise — the "similar results omitted" of web
//! search engines, or field collapsing keyed by fingerprint distance instead of equal values.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use tantivy::columnar::ColumnType;
use tantivy::{DocAddress, DocId, Order, SegmentOrdinal};

use super::rank_key::{RankKey, KEY_BITS};
use super::results::{DedupHit, DedupTopDocs, HiddenHit};
use super::segment_hits::{RankedHit, SegmentHits};
use super::sort_value::SortValue;
use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::matching::Matcher;

/// Which page to cut from the walk, and the rule that hides a hit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Page {
    pub(crate) offset: usize,
    pub(crate) limit: usize,
    pub(crate) matcher: Matcher,
    /// With hits ranked by a fast field: its order, and the type of its values (which
    /// [`merge`] finds in the segments' columns when it is `None`).
    pub(crate) sort: Option<(Order, Option<ColumnType>)>,
    /// Whether a group whose best-ranked member was flagged at index time is led by its
    /// best-ranked unflagged member on the page (its original) instead.
    pub(crate) originals_first: bool,
}

/// Appends the signature of the hit at an address to a buffer; false (the buffer as it
/// was) when the hit has none.
pub(crate) type ReadSignature<'a> = dyn Fn(DocAddress, &mut Vec<u32>) -> Result<bool> + 'a;

/// Merges the segments' hits and walks the exact prefix of the global ranking they cover
/// (see the module docs of `segment_hits`), reading fingerprints, scopes and signatures from
/// the segments' columns.
///
/// The kept hits are ranked lazily ([`best_first`]) as the walk takes them: the walk stops
/// at the page's end, so most hits of a segment that gave all of its hits are never ranked
/// nor read.
///
/// # Errors
/// As [`SegmentColumns::append_signature`](crate::plugin::columns::segment::SegmentColumns).
pub(crate) fn merge(segments: &[SegmentHits], page: Page) -> Result<DedupTopDocs> {
    merge_walked(segments, page).map(|merged| merged.top)
}

/// A merge's page, and where its walk stopped.
pub(crate) struct Merged {
    pub(crate) top: DedupTopDocs,
    /// The shown hit after the page that ended the walk; `None` when the walk went
    /// through every hit it was given.
    stop: Option<Entry>,
}

impl Merged {
    /// How many of `segment`'s hits rank at or above the hit that ended the walk: all it
    /// gave, when no hit ended it.
    pub(crate) fn reached(&self, segment: &SegmentHits) -> usize {
        match self.stop {
            Some(stop) => Entry::all(segment).filter(|&entry| entry >= stop).count(),
            None => segment.hits.len(),
        }
    }
}

/// [`merge`], with where the walk stopped.
///
/// # Errors
/// As [`merge`].
pub(crate) fn merge_walked(segments: &[SegmentHits], mut page: Page) -> Result<Merged> {
    if let Some((_, column_type @ None)) = &mut page.sort {
        *column_type = segments
            .iter()
            .find_map(|segment| segment.columns.sort_type());
    }
    // The highest-ranked of the cut segments' lowest-ranked kept hits: hits ranked below
    // it may be missing from that segment, so the walk must not go past it. Under
    // `Searcher::search` it stops above it anyway (the packing of that segment guarantees
    // enough shown hits); under `DedupCollector::search` a walk that reaches it without
    // ending the page makes the cut segments collect again.
    let boundary = segments.iter().filter_map(Entry::boundary).max();
    let entries = KeptEntries { segments, boundary };
    let ranked_entries = best_first(entries, page.offset.saturating_add(page.limit));
    let by_score = page.sort.is_none();
    // Segments arrive in any order: find each hit's columns by its segment ordinal.
    let columns_of = |segment_ord: SegmentOrdinal| {
        segments
            .iter()
            .find(|segment| segment.segment_ord == segment_ord)
            .map(|segment| &segment.columns)
    };
    let ranked = ranked_entries.map(|entry| {
        let (key, address) = entry.unpack();
        let columns = columns_of(address.segment_ord).expect("an entry comes from a segment");
        RankedHit {
            key,
            score: if by_score { key.score() } else { 0.0 },
            address,
            fingerprint: columns.fingerprint(address.doc_id),
            scope: columns.scope(address.doc_id),
            flagged: columns.flagged(address.doc_id),
        }
    });
    let read = |address: DocAddress, values: &mut Vec<u32>| match columns_of(address.segment_ord) {
        Some(columns) => columns.append_signature(address.doc_id, values),
        None => Ok(false),
    };
    let verifies = page.matcher.verifies();
    let (mut top, stop) = walk_to_stop(ranked, page, &read)?;
    if verifies {
        let mut scratch = Vec::new();
        top.count_unverified(|address| match columns_of(address.segment_ord) {
            Some(columns) => columns.has_signature(address.doc_id, &mut scratch),
            None => Ok(false),
        })?;
    }
    let stop = stop.map(|hit| Entry::pack(hit.key, hit.address));
    Ok(Merged { top, stop })
}

/// The entries `entries` passes on, best first, ranked lazily: the walk usually stops
/// within its first page's worth, so the best `2 × (end + 1)` are kept in a bounded heap as
/// the entries stream by (no list of them all, no selection over it) and sorted, and the
/// rest are gathered into a heap, from a second pass, only if the walk goes past them.
/// Entries are distinct (each holds its address).
fn best_first(entries: impl Entries, end: usize) -> impl Iterator<Item = Entry> {
    let head_len = end.saturating_add(1).saturating_mul(2);
    // The best `head_len` so far, the worst of them on top and, once full, in `worst`: most
    // entries rank below it and cost one comparison.
    let mut best: BinaryHeap<Reverse<Entry>> = BinaryHeap::new();
    let mut worst = None;
    entries.for_each(|entry| {
        if worst.is_some_and(|worst| entry < worst) {
            return;
        }
        if best.len() < head_len {
            best.push(Reverse(entry));
        } else if let Some(mut top) = best.peek_mut() {
            *top = Reverse(entry);
        }
        if best.len() == head_len {
            worst = best.peek().map(|top| top.0);
        }
    });
    // Ascending by `Reverse`: best first.
    let head: Vec<Reverse<Entry>> = best.into_sorted_vec();
    // Only a full head can have entries ranked below it.
    let below = worst;
    let mut taken = 0;
    let mut rest: Option<BinaryHeap<Entry>> = None;
    std::iter::from_fn(move || {
        if taken < head.len() {
            taken += 1;
            return Some(head[taken - 1].0);
        }
        let below = below?;
        rest.get_or_insert_with(|| {
            let mut rest = BinaryHeap::new();
            entries.for_each(|entry| {
                if entry < below {
                    rest.push(entry);
                }
            });
            rest
        })
        .pop()
    })
}

/// Entries the merge can go through more than once.
trait Entries {
    /// Calls `f` with each entry.
    fn for_each(&self, f: impl FnMut(Entry));
}

/// The segments' kept hits at or above the boundary (see [`merge`]).
struct KeptEntries<'a> {
    segments: &'a [SegmentHits],
    boundary: Option<Entry>,
}

impl Entries for KeptEntries<'_> {
    #[inline]
    fn for_each(&self, mut f: impl FnMut(Entry)) {
        for segment in self.segments {
            let segment_ord = segment.segment_ord;
            for &(key, doc) in &segment.hits {
                let entry = Entry::pack(key, DocAddress::new(segment_ord, doc));
                if self.boundary.is_none_or(|boundary| entry >= boundary) {
                    f(entry);
                }
            }
        }
    }
}

/// A kept hit in the merge's ranking, its key and address packed in one integer so that the
/// ranking compares and moves 16 bytes: a greater entry ranks first (key descending, then
/// address ascending).
///
/// The key takes the high [`KEY_BITS`] bits; the address, inverted, the low 63: its segment
/// ordinal (32 bits) above its doc id (31 bits: tantivy's doc ids are below `i32::MAX`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

/// The bits of a doc id in an [`Entry`].
const DOC_BITS: u32 = 31;
/// The bits of an address in an [`Entry`].
const ADDRESS_BITS: u32 = 32 + DOC_BITS;
const ADDRESS_MASK: u128 = (1 << ADDRESS_BITS) - 1;
const _: () = assert!(KEY_BITS + ADDRESS_BITS == u128::BITS);

impl Entry {
    fn pack(key: RankKey, address: DocAddress) -> Entry {
        debug_assert!(key.bits() >> KEY_BITS == 0 && address.doc_id >> DOC_BITS == 0);
        let address = (u128::from(address.segment_ord) << DOC_BITS) | u128::from(address.doc_id);
        Entry((key.bits() << ADDRESS_BITS) | (!address & ADDRESS_MASK))
    }

    fn unpack(self) -> (RankKey, DocAddress) {
        let address = !self.0 & ADDRESS_MASK;
        let address = DocAddress::new(
            (address >> DOC_BITS) as SegmentOrdinal,
            (address & ((1 << DOC_BITS) - 1)) as DocId,
        );
        (RankKey::from_bits(self.0 >> ADDRESS_BITS), address)
    }

    /// The entries of `segment`.
    fn all(segment: &SegmentHits) -> impl Iterator<Item = Entry> + '_ {
        let segment_ord = segment.segment_ord;
        (segment.hits.iter())
            .map(move |&(key, doc)| Entry::pack(key, DocAddress::new(segment_ord, doc)))
    }

    /// The lowest-ranked entry down to which `segment` holds every hit: its lowest kept hit
    /// when it was cut, else the last entry of its floor's key when a floor kept hits below
    /// that from it; `None` when it holds all of its hits.
    fn boundary(segment: &SegmentHits) -> Option<Entry> {
        let cut = (!segment.complete)
            .then(|| Entry::all(segment).min())
            .flatten();
        // The lowest-ranked address of the floor's key: all its bits set, inverted.
        let floor = segment.floor.map(|key| Entry(key.bits() << ADDRESS_BITS));
        cut.max(floor)
    }
}

/// A hit of a page's group, as [`lead_by_original`] needs it.
struct Member {
    address: DocAddress,
    score: tantivy::Score,
    sort_value: Option<SortValue>,
    fingerprint: Option<Fingerprint>,
    flagged: bool,
}

impl Member {
    fn of(hit: &RankedHit, page: &Page) -> Member {
        Member {
            address: hit.address,
            score: hit.score,
            sort_value: page.sort.and_then(|(order, column_type)| {
                SortValue::of(hit.key.value(order)?, column_type?)
            }),
            fingerprint: hit.fingerprint,
            flagged: hit.flagged,
        }
    }
}

/// A shown hit of the page and the members reported hidden under it, in ranking order.
struct Group {
    leader: Member,
    members: Vec<Member>,
}

/// Makes the best-ranked unflagged member of `group` the shown hit of `hit` when its
/// leader was flagged at index time: an original leads its group whatever the ranking, its
/// copy hidden under it. The group keeps its place in the page and its members; distances
/// and similarities are reported against the new leader.
///
/// # Errors
/// What `read` returns.
fn lead_by_original(
    hit: &mut DedupHit,
    group: &Group,
    matcher: &Matcher,
    read: &ReadSignature,
) -> Result<()> {
    if !group.leader.flagged {
        return Ok(());
    }
    let Some(at) = group.members.iter().position(|member| !member.flagged) else {
        return Ok(());
    };
    let original = &group.members[at];
    let Some(leader_bits) = original.fingerprint.map(Fingerprint::bits) else {
        return Ok(());
    };
    let mut leader_signature = Vec::new();
    let signed = matcher.verifies() && read(original.address, &mut leader_signature)?;
    let mut values = Vec::new();
    let mut hidden = Vec::with_capacity(group.members.len());
    let others = std::iter::once(&group.leader).chain(
        group
            .members
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != at)
            .map(|(_, m)| m),
    );
    for member in others {
        let Some(bits) = member.fingerprint.map(Fingerprint::bits) else {
            continue;
        };
        values.clear();
        let jaccard = (signed && read(member.address, &mut values)?)
            .then(|| matcher.jaccard(&leader_signature, &values));
        hidden.push(HiddenHit {
            address: member.address,
            distance: (leader_bits ^ bits).count_ones(),
            jaccard,
        });
    }
    *hit = DedupHit {
        score: original.score,
        sort_value: original.sort_value,
        address: original.address,
        fingerprint: original.fingerprint,
        hidden,
    };
    Ok(())
}

/// A shown hit as the walk compares later hits with it.
struct Shown {
    bits: u64,
    scope: Option<u64>,
    signature: LazySignature,
    /// Its number among the shown hits.
    ordinal: usize,
}

/// A hit's signature, read at most once, when a pair first needs it (most pairs are too far
/// apart to need it), into the walk's [`Signatures`].
enum LazySignature {
    /// Not read yet: the hit's address.
    Unread(DocAddress),
    /// Read: where its values are in [`Signatures`], if it has a signature.
    Read(Option<Range<usize>>),
}

impl LazySignature {
    fn get(
        &mut self,
        signatures: &mut Signatures,
        read: &ReadSignature,
    ) -> Result<Option<Range<usize>>> {
        if let LazySignature::Unread(address) = *self {
            let start = signatures.0.len();
            let found = read(address, &mut signatures.0)?;
            if start == 0 {
                // A walk reads a handful: room for them now, not a doubling each.
                signatures
                    .0
                    .reserve(signatures.0.len() * SIGNATURES_RESERVED);
            }
            *self = LazySignature::Read(found.then_some(start..signatures.0.len()));
        }
        match self {
            LazySignature::Read(range) => Ok(range.clone()),
            LazySignature::Unread(_) => unreachable!("read above"),
        }
    }
}

/// Hits a walk's page makes room for before the first (at most the limit).
const PAGE_RESERVED: usize = 64;

/// Signatures a walk's buffer makes room for after its first read.
const SIGNATURES_RESERVED: usize = 16;

/// The signatures a walk read, one after the other in one buffer: a read allocates nothing
/// once the buffer has grown (a walk reads a handful).
#[derive(Default)]
struct Signatures(Vec<u32>);

impl Signatures {
    /// The values of a signature [`LazySignature::get`] placed.
    fn values(&self, range: Option<Range<usize>>) -> Option<&[u32]> {
        range.map(|range| &self.0[range])
    }
}

/// The greedy walk over `ranked` (best first), cut to `page`.
///
/// Stops at the first shown hit after the page; when `ranked` is a prefix of the ranking it
/// must hold that hit, or be the whole ranking. Signatures are needed only for pairs beyond
/// *k* and within the candidate distance: a hit's is read by `read`, once, when such a pair
/// first comes up.
///
/// # Errors
/// What `read` returns.
pub(crate) fn walk(
    ranked: impl IntoIterator<Item = RankedHit>,
    page: Page,
    read: &ReadSignature,
) -> Result<DedupTopDocs> {
    walk_to_stop(ranked, page, read).map(|(top, _)| top)
}

/// [`walk`], with the shown hit after the page that ended it (`None` when none did).
///
/// # Errors
/// What `read` returns.
fn walk_to_stop(
    ranked: impl IntoIterator<Item = RankedHit>,
    page: Page,
    read: &ReadSignature,
) -> Result<(DedupTopDocs, Option<RankedHit>)> {
    let matcher = page.matcher;
    let end = page.offset.saturating_add(page.limit);
    // The shown hits so far, in ranking order.
    let mut shown: Vec<Shown> = Vec::new();
    let mut shown_count = 0usize;
    // Room for the page up to a bound (a limit may be far above the hits there are).
    let mut hits: Vec<DedupHit> = Vec::with_capacity(page.limit.min(PAGE_RESERVED));
    let mut stop = None;
    let mut signatures = Signatures::default();
    // What the page's groups are made of, parallel to `hits` when groups are led by their
    // originals (`Page::originals_first`; else empty, nothing copied): each leader's and its
    // reported members' flags, fingerprints, scores and sort values.
    let mut groups: Vec<Group> = Vec::new();
    for hit in ranked {
        let mut signature = LazySignature::Unread(hit.address);
        if let Some(fingerprint) = hit.fingerprint {
            let bits = fingerprint.bits();
            let mut owner = None;
            for (at, other) in shown.iter_mut().enumerate() {
                if other.scope != hit.scope {
                    continue;
                }
                let distance = (other.bits ^ bits).count_ones();
                let near = if matcher.needs_signatures(distance) {
                    let theirs = other.signature.get(&mut signatures, read)?;
                    let ours = signature.get(&mut signatures, read)?;
                    let (theirs, ours) = (signatures.values(theirs), signatures.values(ours));
                    matcher.judge(distance, theirs, ours)
                } else {
                    matcher.judge(distance, None, None)
                };
                if near.is_some() {
                    owner = Some((at, distance));
                    break;
                }
            }
            if let Some((at, distance)) = owner {
                let other = &mut shown[at];
                if let Some(shown_hit) = (other.ordinal)
                    .checked_sub(page.offset)
                    .and_then(|index| hits.get_mut(index))
                {
                    // Reported hits carry their similarity: read here for a pair within k,
                    // which the rule judged without signatures.
                    let jaccard = if matcher.verifies() {
                        let theirs = other.signature.get(&mut signatures, read)?;
                        let ours = signature.get(&mut signatures, read)?;
                        (signatures.values(theirs))
                            .zip(signatures.values(ours))
                            .map(|(a, b)| matcher.jaccard(a, b))
                    } else {
                        None
                    };
                    shown_hit.hidden.push(HiddenHit {
                        address: hit.address,
                        distance,
                        jaccard,
                    });
                    if page.originals_first {
                        let index = other.ordinal - page.offset;
                        groups[index].members.push(Member::of(&hit, &page));
                    }
                }
                continue;
            }
        }
        if shown_count == end {
            stop = Some(hit);
            break;
        }
        if let Some(fingerprint) = hit.fingerprint {
            shown.push(Shown {
                bits: fingerprint.bits(),
                scope: hit.scope,
                signature,
                ordinal: shown_count,
            });
        }
        if shown_count >= page.offset {
            let sort_value = page.sort.and_then(|(order, column_type)| {
                SortValue::of(hit.key.value(order)?, column_type?)
            });
            if page.originals_first {
                groups.push(Group {
                    leader: Member::of(&hit, &page),
                    members: Vec::new(),
                });
            }
            hits.push(DedupHit {
                score: hit.score,
                sort_value,
                address: hit.address,
                fingerprint: hit.fingerprint,
                hidden: Vec::new(),
            });
        }
        shown_count += 1;
    }
    if page.originals_first {
        for (hit, group) in hits.iter_mut().zip(&groups) {
            lead_by_original(hit, group, &matcher, read)?;
        }
    }
    let hidden_total = hits.iter().map(|hit| hit.hidden.len()).sum();
    let top = DedupTopDocs {
        hits,
        hidden_total,
        has_more: stop.is_some(),
        unverified: 0,
    };
    Ok((top, stop))
}

#[cfg(test)]
mod tests {
    use tantivy::{DocAddress, Order};

    use super::*;
    use crate::fingerprint::Fingerprint;
    use crate::plugin::collector::rank_key::RankKey;

    fn hit(score: f32, doc: u32, fingerprint: Option<u64>) -> RankedHit {
        RankedHit {
            key: RankKey::of_score(score),
            scope: None,
            score,
            address: DocAddress::new(0, doc),
            fingerprint: fingerprint.map(Fingerprint),
            flagged: false,
        }
    }

    fn page(offset: usize, limit: usize) -> Page {
        Page {
            offset,
            limit,
            matcher: Matcher::new(3, None),
            sort: None,
            originals_first: true,
        }
    }

    fn docs(top: &DedupTopDocs) -> Vec<(u32, Vec<u32>)> {
        top.hits
            .iter()
            .map(|h| {
                let hidden = h
                    .hidden
                    .iter()
                    .map(|hidden| hidden.address.doc_id)
                    .collect();
                (h.address.doc_id, hidden)
            })
            .collect()
    }

    #[test]
    fn chain_hides_only_what_a_shown_hit_is_near() {
        // 0 ~ 1 (3 bits), 1 ~ 2 (3 bits), 0 !~ 2 (6 bits): 1 is hidden by 0, so 2 is shown.
        let ranked = [
            hit(3.0, 0, Some(0)),
            hit(2.0, 1, Some(0b111)),
            hit(1.0, 2, Some(0b111_111)),
        ];
        let top = walk(ranked, page(0, 10), &|_, _| Ok(false)).unwrap();
        assert_eq!(docs(&top), [(0, vec![1]), (2, vec![])]);
        assert_eq!(top.hidden_total, 1);
        assert!(!top.has_more);
    }

    #[test]
    fn hidden_goes_to_the_highest_ranked_shown_hit_within_k() {
        // 2 is within 3 of both 0 and 1 (which are 4 apart, so both shown).
        let ranked = [
            hit(3.0, 0, Some(0b0000_0011)),
            hit(2.0, 1, Some(0b0011_0000)),
            hit(1.0, 2, Some(0b0001_0001)),
        ];
        let top = walk(ranked, page(0, 10), &|_, _| Ok(false)).unwrap();
        assert_eq!(docs(&top), [(0, vec![2]), (1, vec![])]);
    }

    #[test]
    fn hits_without_fingerprint_never_hide_nor_are_hidden() {
        let ranked = [hit(3.0, 0, None), hit(2.0, 1, None), hit(1.0, 2, Some(0))];
        let top = walk(ranked, page(0, 10), &|_, _| Ok(false)).unwrap();
        assert_eq!(docs(&top), [(0, vec![]), (1, vec![]), (2, vec![])]);
    }

    #[test]
    fn page_ends_before_the_next_shown_hit() {
        let ranked = [
            hit(5.0, 0, Some(0)),
            hit(4.0, 1, Some(u64::MAX)),
            hit(3.0, 2, Some(1)),           // hidden by 0, before the page's end
            hit(2.0, 3, Some(0xF0F0_F0F0)), // shown: ends the page of 2
            hit(1.0, 4, Some(3)),           // hidden by 0, after the end: not reported
        ];
        let top = walk(ranked.clone(), page(0, 2), &|_, _| Ok(false)).unwrap();
        assert_eq!(docs(&top), [(0, vec![2]), (1, vec![])]);
        assert!(top.has_more);
        // Page 2 shows 3 alone; 4 was hidden by a hit of page 1.
        let top = walk(ranked.clone(), page(2, 2), &|_, _| Ok(false)).unwrap();
        assert_eq!(docs(&top), [(3, vec![])]);
        assert_eq!(top.hidden_total, 0);
        assert!(!top.has_more);
        assert!(walk(ranked, page(3, 2), &|_, _| Ok(false))
            .unwrap()
            .hits
            .is_empty());
    }

    #[test]
    fn packed_entries_rank_by_key_then_address_and_unpack() {
        let keys = [
            RankKey::MISSING,
            RankKey::of_score(-1.0),
            RankKey::of_score(2.5),
            RankKey::of_value(Some(u64::MAX), Order::Desc),
            RankKey::of_position(0),
        ];
        let last_doc = (i32::MAX - 1) as DocId;
        let addresses = [
            DocAddress::new(SegmentOrdinal::MAX, last_doc),
            DocAddress::new(1, 0),
            DocAddress::new(0, last_doc),
            DocAddress::new(0, 0),
        ];
        let mut entries = Vec::new();
        for key in keys {
            for address in addresses {
                let entry = Entry::pack(key, address);
                assert_eq!(entry.unpack(), (key, address));
                entries.push((key, std::cmp::Reverse(address), entry));
            }
        }
        // The packed order is the (key, address descending) order, on every pair.
        for a in &entries {
            for b in &entries {
                assert_eq!(a.2.cmp(&b.2), (a.0, a.1).cmp(&(b.0, b.1)), "{a:?} {b:?}");
            }
        }
    }

    impl Entries for &[Entry] {
        fn for_each(&self, f: impl FnMut(Entry)) {
            self.iter().copied().for_each(f);
        }
    }

    #[test]
    fn best_first_ranks_past_its_bounded_head() {
        // Entries in a scrambled order, ties included: every prefix is the sorted one,
        // through the selected head and the heap after it.
        let entries: Vec<Entry> = (0..200u32)
            .map(|i| {
                let score = ((i * 7919) % 61) as f32;
                Entry::pack(RankKey::of_score(score), DocAddress::new(i % 3, i))
            })
            .collect();
        let mut sorted = entries.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for end in [0, 1, 9, 99, 150, 500] {
            let ranked: Vec<Entry> = best_first(entries.as_slice(), end).collect();
            assert_eq!(ranked, sorted, "end {end}");
        }
        assert_eq!(best_first(&[][..], 3).count(), 0);
    }

    #[test]
    fn merge_walks_only_the_exact_prefix() {
        let scored = |hits: &[(f32, u32)]| -> Vec<(RankKey, u32)> {
            hits.iter()
                .map(|&(score, doc)| (RankKey::of_score(score), doc))
                .collect()
        };
        let cut = SegmentHits {
            hits: scored(&[(3.0, 1), (5.0, 0)]),
            segment_ord: 0,
            complete: false,
            floor: None,
            columns: Default::default(),
        };
        let whole = SegmentHits {
            hits: scored(&[(2.0, 1), (4.0, 0)]),
            segment_ord: 1,
            complete: true,
            floor: None,
            columns: Default::default(),
        };
        let top = merge(&[whole.clone(), cut.clone()], page(0, 2)).unwrap();
        let scores: Vec<f32> = top.hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, [5.0, 4.0]);
        assert!(
            top.has_more,
            "the hit at 3.0 ends the page; 2.0 is below the boundary"
        );
        // A page past the boundary ends there: the hit at 2.0, which a cut segment may
        // rank below a missing hit, is not walked.
        let top = merge(&[whole.clone(), cut.clone()], page(2, 5)).unwrap();
        let scores: Vec<f32> = top.hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, [3.0]);
        assert!(!top.has_more);
        // Two cut segments: the walk stops at the higher of their lowest kept hits (3.0),
        // not at the lowest of all (1.0).
        let lower = SegmentHits {
            hits: scored(&[(1.0, 0), (4.5, 1)]),
            segment_ord: 2,
            complete: false,
            floor: None,
            columns: Default::default(),
        };
        let top = merge(&[lower, whole, cut], page(0, 10)).unwrap();
        let scores: Vec<f32> = top.hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, [5.0, 4.5, 4.0, 3.0]);
    }
}
