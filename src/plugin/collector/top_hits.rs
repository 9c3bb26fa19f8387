//! `TopHits`: the best `capacity` hits of one segment in a heap whose top is the worst kept
//! hit, so that block-WAND prunes at the exact `capacity`-th best score from the first full
//! heap on. (A buffer cut by `select_nth_unstable` whenever it fills, as tantivy's
//! `TopNComputer` keeps a `TopDocs` page, pushes for less but prunes at the last cut's
//! threshold: a common term took 1.4 to 1.5 times as long with it.)

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use tantivy::{DocId, Score};

use super::rank_key::RankKey;
use super::segment_hits::Hits;

/// The best `capacity` hits of a segment by (key descending, doc ascending), for docs
/// pushed in increasing id.
pub(crate) struct TopHits {
    heap: BinaryHeap<Worst>,
    capacity: usize,
    /// The worst kept key once the heap is full: a hit with a key at most this ranks below
    /// every kept hit (docs come in increasing id, so a tie ranks below too), and costs one
    /// comparison.
    floor: Option<RankKey>,
}

/// A heap entry ordered so that the worst-ranked hit is the greatest.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Worst {
    key: RankKey,
    doc: DocId,
}

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        rank_order(&(self.key, self.doc), &(other.key, other.doc))
    }
}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl TopHits {
    /// An empty heap keeping `capacity` hits; `max_doc` bounds the allocation.
    pub(crate) fn new(capacity: usize, max_doc: u32) -> TopHits {
        TopHits {
            heap: BinaryHeap::with_capacity(capacity.min(max_doc as usize)),
            capacity,
            floor: None,
        }
    }

    /// The heap `push` would hold after `hits` (in increasing doc id) were pushed one by one:
    /// their best `capacity`, chosen by one selection and one heapify instead of a heap
    /// operation each (a segment's first hits, gathered before it was known to have many).
    pub(crate) fn from_hits(capacity: usize, hits: Vec<(RankKey, DocId)>) -> TopHits {
        // The ranking as one integer (greater first: the key above the inverted doc id),
        // so that the selection compares integers instead of calling `rank_order`.
        let mut packed: Vec<u128> = (hits.iter())
            .map(|&(key, doc)| key.bits() << 32 | u128::from(!doc))
            .collect();
        if packed.len() > capacity {
            if capacity > 0 {
                packed.select_nth_unstable_by(capacity - 1, |a, b| b.cmp(a));
            }
            packed.truncate(capacity);
        }
        let heap: BinaryHeap<Worst> = (packed.into_iter())
            .map(|hit| Worst {
                key: RankKey::from_bits(hit >> 32),
                doc: !(hit as DocId),
            })
            .collect();
        let floor = (heap.len() >= capacity)
            .then(|| heap.peek().map(|worst| worst.key))
            .flatten();
        TopHits {
            heap,
            capacity,
            floor,
        }
    }

    /// The score a hit must exceed to enter, when hits rank by score: the worst kept score
    /// when full, else [`Score::MIN`] (what `for_each_pruning` expects).
    #[inline]
    pub(crate) fn score_threshold(&self) -> Score {
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.capacity => worst.key.score(),
            _ => Score::MIN,
        }
    }

    /// Offers a hit.
    #[inline]
    pub(crate) fn push(&mut self, key: RankKey, doc: DocId) {
        if self.floor.is_some_and(|floor| key <= floor) {
            return;
        }
        let entry = Worst { key, doc };
        if self.heap.len() < self.capacity {
            self.heap.push(entry);
        } else if let Some(mut worst) = self.heap.peek_mut() {
            *worst = entry;
        }
        if self.heap.len() >= self.capacity {
            self.floor = self.heap.peek().map(|worst| worst.key);
        }
    }

    /// The kept hits, unordered, and whether others may be missing: true once the heap
    /// was full, since from then on block-WAND may skip hits unseen.
    pub(crate) fn into_hits(self) -> (Vec<(RankKey, DocId)>, bool) {
        let truncated = self.heap.len() >= self.capacity;
        let hits = self.heap.into_iter().map(|w| (w.key, w.doc)).collect();
        (hits, truncated)
    }
}

impl Hits for TopHits {
    #[inline]
    fn push(&mut self, key: RankKey, doc: DocId) {
        TopHits::push(self, key, doc);
    }

    #[inline]
    fn score_threshold(&self) -> Score {
        TopHits::score_threshold(self)
    }
}

/// Best first: key descending, then doc ascending.
pub(crate) fn rank_order(a: &(RankKey, DocId), b: &(RankKey, DocId)) -> Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn keeps_the_best_and_the_lowest_doc_on_ties() {
        let mut top = TopHits::new(3, 100);
        let mut push = |score: Score, doc| {
            top.push(RankKey::of_score(score), doc);
            top.score_threshold()
        };
        assert_eq!(push(1.0, 0), Score::MIN);
        push(2.0, 1);
        assert_eq!(push(1.0, 2), 1.0, "full: the threshold is the worst score");
        assert_eq!(push(1.0, 3), 1.0, "a tie with a later doc ranks below");
        assert_eq!(push(3.0, 4), 1.0, "evicts doc 2, keeps doc 0 at 1.0");
        let (mut hits, dropped) = top.into_hits();
        hits.sort_by_key(|&(_, doc)| doc);
        let expected: Vec<(RankKey, DocId)> = [(1.0, 0), (2.0, 1), (3.0, 4)]
            .iter()
            .map(|&(score, doc)| (RankKey::of_score(score), doc))
            .collect();
        assert_eq!(hits, expected);
        assert!(dropped);
    }

    #[test]
    fn a_full_heap_is_truncated() {
        let mut top = TopHits::new(3, 100);
        top.push(RankKey::of_score(1.0), 0);
        top.push(RankKey::of_score(2.0), 1);
        assert!(!TopHits::into_hits(top).1);
        let mut top = TopHits::new(2, 100);
        top.push(RankKey::of_score(1.0), 0);
        top.push(RankKey::of_score(2.0), 1);
        // Full: block-WAND may skip what follows without offering it.
        assert!(top.into_hits().1);
    }

    #[test]
    fn zero_capacity_keeps_nothing() {
        let mut top = TopHits::new(0, 10);
        top.push(RankKey::of_score(1.0), 0);
        let (hits, truncated) = top.into_hits();
        assert!(hits.is_empty());
        assert!(truncated);
    }

    proptest! {
        /// `from_hits` keeps what pushing the same hits one by one keeps, and goes on alike.
        #[test]
        fn from_hits_is_pushing_them(
            scores in prop::collection::vec(0u8..20, 0..100),
            later in prop::collection::vec(0u8..20, 0..20),
            capacity in 0usize..30,
        ) {
            let hits: Vec<(RankKey, DocId)> = (scores.iter().enumerate())
                .map(|(doc, &score)| (RankKey::of_score(Score::from(score)), doc as DocId))
                .collect();
            let mut pushed = TopHits::new(capacity, 1_000);
            for &(key, doc) in &hits {
                pushed.push(key, doc);
            }
            let mut built = TopHits::from_hits(capacity, hits.clone());
            prop_assert_eq!(built.score_threshold(), pushed.score_threshold());
            for (at, &score) in later.iter().enumerate() {
                let doc = (hits.len() + at) as DocId;
                built.push(RankKey::of_score(Score::from(score)), doc);
                pushed.push(RankKey::of_score(Score::from(score)), doc);
            }
            let (mut a, truncated_a) = built.into_hits();
            let (mut b, truncated_b) = pushed.into_hits();
            a.sort_by(rank_order);
            b.sort_by(rank_order);
            prop_assert_eq!(a, b);
            prop_assert_eq!(truncated_a, truncated_b);
        }

        /// Against a sort of every hit: the kept hits are the best `capacity`, and a hit at
        /// or below the threshold (which block-WAND may skip) is never among them.
        #[test]
        fn keeps_exactly_the_best(
            scores in prop::collection::vec(0u8..20, 0..200),
            capacity in 0usize..30,
        ) {
            let mut top = TopHits::new(capacity, 1_000);
            let mut skippable = Vec::new();
            for (doc, &score) in scores.iter().enumerate() {
                let score = Score::from(score);
                let doc = doc as DocId;
                if score <= top.score_threshold() {
                    // What `for_each_pruning` is allowed to drop unseen.
                    skippable.push(doc);
                    continue;
                }
                top.push(RankKey::of_score(score), doc);
            }
            let mut all: Vec<(RankKey, DocId)> = scores
                .iter()
                .enumerate()
                .map(|(doc, &score)| (RankKey::of_score(Score::from(score)), doc as DocId))
                .collect();
            all.sort_by(rank_order);
            all.truncate(capacity);
            let (mut hits, dropped) = top.into_hits();
            hits.sort_by(rank_order);
            prop_assert_eq!(&hits, &all);
            prop_assert_eq!(dropped, scores.len() >= capacity);
            prop_assert!(skippable.iter().all(|doc| !all.iter().any(|hit| hit.1 == *doc)));
        }
    }
}
