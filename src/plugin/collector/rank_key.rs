//! `RankKey`: every ranking the collector offers (by score, or by a fast field ascending or
//! descending) as one integer order, so that the heaps, the packing and the merge have one
//! comparison whatever the ranking.
//!
//! A greater key ranks first; equal keys rank by address ascending. A key is 0 for a
//! document without a value in the sort field (it ranks last in both orders, as with
//! `TopDocs::order_by_fast_field`) and holds bit 64 otherwise, with the value's
//! order-preserving `u64` form (tantivy's own, for fast fields; the IEEE order for scores)
//! below it, inverted for an ascending order.

use tantivy::{Order, Score};

/// A hit's place in the ranking: greater ranks first (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(crate) struct RankKey(u128);

/// Set in every key of a document with a value.
const PRESENT: u128 = 1 << 64;

/// The bits a key uses: [`PRESENT`] and the value below it (the merge packs a key and an
/// address into one `u128` on this bound).
pub(crate) const KEY_BITS: u32 = 65;

impl RankKey {
    /// The key of a document without a value: below every other.
    pub(crate) const MISSING: RankKey = RankKey(0);

    /// The key of a score; `-0.0` and `0.0` are one key.
    #[inline]
    pub(crate) fn of_score(score: Score) -> RankKey {
        let bits = normalize(score).to_bits();
        // IEEE order as unsigned order (as `f32::total_cmp` orders): negative values
        // inverted, positive ones above them.
        let ordered = if bits & 0x8000_0000 == 0 {
            bits | 0x8000_0000
        } else {
            !bits
        };
        RankKey(PRESENT | u128::from(ordered))
    }

    /// The score this key was made of by [`of_score`](Self::of_score); [`Score::MIN`] for
    /// [`MISSING`](Self::MISSING).
    #[inline]
    pub(crate) fn score(self) -> Score {
        if self.0 & PRESENT == 0 {
            return Score::MIN;
        }
        let ordered = self.0 as u32;
        let bits = if ordered & 0x8000_0000 != 0 {
            ordered & 0x7FFF_FFFF
        } else {
            !ordered
        };
        Score::from_bits(bits)
    }

    /// The key of a fast-field value (its `u64` form) in `order`.
    #[inline]
    pub(crate) fn of_value(value: Option<u64>, order: Order) -> RankKey {
        match (value, order) {
            (None, _) => RankKey::MISSING,
            (Some(value), Order::Desc) => RankKey(PRESENT | u128::from(value)),
            (Some(value), Order::Asc) => RankKey(PRESENT | u128::from(!value)),
        }
    }

    /// The `u64` form of the value this key was made of by [`of_value`](Self::of_value).
    pub(crate) fn value(self, order: Order) -> Option<u64> {
        if self.0 & PRESENT == 0 {
            return None;
        }
        let value = self.0 as u64;
        Some(match order {
            Order::Desc => value,
            Order::Asc => !value,
        })
    }

    /// The key of the hit at `position` of a list ranked by the caller (0 first).
    pub(crate) fn of_position(position: usize) -> RankKey {
        RankKey(PRESENT | u128::from(u64::MAX - position as u64))
    }

    /// The key as an integer of [`KEY_BITS`] bits, greater ranking first.
    #[inline]
    pub(crate) fn bits(self) -> u128 {
        self.0
    }

    /// The key of [`bits`](Self::bits).
    #[inline]
    pub(crate) fn from_bits(bits: u128) -> RankKey {
        RankKey(bits)
    }
}

/// Turns `-0.0` into `0.0`, so that the key order agrees with `>` on every score.
#[inline]
pub(crate) fn normalize(score: Score) -> Score {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_keep_their_order_and_come_back() {
        let scores = [
            Score::NEG_INFINITY,
            -3.5,
            -1e-30,
            0.0,
            1e-30,
            1.0,
            2.5,
            Score::MAX,
            Score::INFINITY,
        ];
        for pair in scores.windows(2) {
            assert!(
                RankKey::of_score(pair[0]) < RankKey::of_score(pair[1]),
                "{pair:?}"
            );
        }
        for score in scores {
            assert_eq!(RankKey::of_score(score).score().to_bits(), score.to_bits());
            assert!(RankKey::of_score(score) > RankKey::MISSING);
        }
        assert_eq!(RankKey::of_score(-0.0), RankKey::of_score(0.0));
    }

    #[test]
    fn values_rank_by_order_and_missing_last() {
        for order in [Order::Asc, Order::Desc] {
            for value in [0, 1, u64::MAX] {
                let key = RankKey::of_value(Some(value), order);
                assert!(key > RankKey::MISSING, "{value} {order:?}");
                assert_eq!(key.value(order), Some(value));
            }
        }
        let desc = |v| RankKey::of_value(Some(v), Order::Desc);
        let asc = |v| RankKey::of_value(Some(v), Order::Asc);
        assert!(desc(5) > desc(4));
        assert!(asc(4) > asc(5));
        assert_eq!(RankKey::of_value(None, Order::Asc), RankKey::MISSING);
        assert_eq!(RankKey::MISSING.value(Order::Desc), None);
    }

    #[test]
    fn positions_rank_in_list_order() {
        assert!(RankKey::of_position(0) > RankKey::of_position(1));
        assert!(RankKey::of_position(usize::MAX) > RankKey::MISSING);
        assert!(RankKey::of_position(0).bits() < 1 << KEY_BITS);
    }
}
