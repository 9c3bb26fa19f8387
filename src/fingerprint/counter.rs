//! The SimHash accumulator for unit weights (term-frequency weighting): counts, not sums.
//!
//! When every feature weighs 1, the sum for bit `i` is the number of features whose hash has
//! bit `i` set: a positional population count over the hashes. The counts are kept
//! bit-sliced, as in carry-save popcount (Harley and Seal): four `u64` planes hold a 4-bit
//! counter for each of the 64 positions, and adding a hash is a ripple-carry of seven logic
//! operations, in registers. Every 15 hashes the planes are spread into byte lanes (eight
//! `u64`, eight positions each, through a 256-entry table), and every 255 hashes the byte
//! lanes into 64 `u32` counts. The counts are exact integers, as the `f32` sums of
//! [`SimHashAccumulator`](super::SimHashAccumulator) are for fewer than 2^24 features (any
//! text under 16 MiB): both give the same bits.

use crate::fingerprint::Fingerprint;

/// `SPREAD[b]`: byte `i` is bit `i` of `b`, so that adding it to a `u64` of eight byte lanes
/// counts the set bits of `b` position by position.
static SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte] |= 1 << (8 * bit);
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// Hashes the 4-bit plane counters take before they are spread into byte lanes.
const PER_PLANES: u32 = 15;
/// Spreads of the planes the byte lanes take (at most 15 each) before they spill into the
/// `u32` counts: 17 x 15 = 255.
const PER_LANES: u32 = 17;

/// Counts feature hashes bit position by bit position; see the module documentation.
#[derive(Clone, Debug)]
pub struct SimHashCounter {
    /// Bit-sliced counters: bit `i` of `planes[p]` is bit `p` of position `i`'s count since
    /// the last spread.
    planes: [u64; 4],
    in_planes: u32,
    /// `lanes[j]`, byte `i`: position `8j + i`'s count since the last spill.
    lanes: [u64; 8],
    in_lanes: u32,
    /// Position `i`'s count up to the last spill. u32: overflowing one would take 2^32
    /// features, a text of more than 4 GiB.
    counts: [u32; 64],
    total: u64,
}

impl Default for SimHashCounter {
    fn default() -> Self {
        SimHashCounter {
            planes: [0; 4],
            in_planes: 0,
            lanes: [0; 8],
            in_lanes: 0,
            counts: [0; 64],
            total: 0,
        }
    }
}

impl SimHashCounter {
    /// An empty counter.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one feature occurrence by its 64-bit hash. For many hashes in a row,
    /// [`extend`](Extend::extend) is faster.
    #[inline]
    pub fn add(&mut self, hash: u64) {
        self.total += 1;
        add_to_planes(&mut self.planes, hash);
        self.in_planes += 1;
        if self.in_planes == PER_PLANES {
            self.spread();
        }
    }

    /// Moves the planes' counts into the byte lanes (and those into the counts when full).
    fn spread(&mut self) {
        let planes = std::mem::take(&mut self.planes);
        self.in_planes = 0;
        spread_into(&planes, &mut self.lanes);
        self.in_lanes += 1;
        if self.in_lanes == PER_LANES {
            spill_into(&std::mem::take(&mut self.lanes), &mut self.counts);
            self.in_lanes = 0;
        }
    }

    /// The fingerprint: bit `i` is set when more than half of the features have it set.
    /// `None` when nothing was added.
    #[must_use]
    pub fn finish(&self) -> Option<Fingerprint> {
        if self.total == 0 {
            return None;
        }
        let bits = self
            .counts()
            .iter()
            .enumerate()
            .fold(0u64, |bits, (i, &ones)| {
                bits | (u64::from(2 * u64::from(ones) > self.total) << i)
            });
        Some(Fingerprint(bits))
    }
}

/// Counts the hashes in order, as [`add`](SimHashCounter::add) does one by one, with the
/// planes in registers between spreads: through `&mut self`, each `add` loads and stores
/// the four planes, the most of its cost in the loops over n-grams.
impl Extend<u64> for SimHashCounter {
    #[inline]
    fn extend<I: IntoIterator<Item = u64>>(&mut self, hashes: I) {
        let mut hashes = hashes.into_iter();
        loop {
            let room = PER_PLANES - self.in_planes;
            let mut planes = self.planes;
            let mut taken = 0;
            for hash in hashes.by_ref().take(room as usize) {
                add_to_planes(&mut planes, hash);
                taken += 1;
            }
            self.planes = planes;
            self.in_planes += taken;
            self.total += u64::from(taken);
            if self.in_planes == PER_PLANES {
                self.spread();
            }
            if taken < room {
                return;
            }
        }
    }
}

/// Adds one to the 4-bit count of each position where `hash` has a bit set: a
/// ripple-carry across the planes.
#[inline]
fn add_to_planes(planes: &mut [u64; 4], hash: u64) {
    let [c0, c1, c2, c3] = planes;
    let carry0 = *c0 & hash;
    *c0 ^= hash;
    let carry1 = *c1 & carry0;
    *c1 ^= carry0;
    let carry2 = *c2 & carry1;
    *c2 ^= carry1;
    // No carry out of the fourth plane: the planes hold at most 15 when spread.
    *c3 ^= carry2;
}

impl SimHashCounter {
    /// Each position's count: the features whose hash has that bit set.
    fn counts(&self) -> [u32; 64] {
        let mut lanes = self.lanes;
        spread_into(&self.planes, &mut lanes);
        let mut counts = self.counts;
        spill_into(&lanes, &mut counts);
        counts
    }
}

/// Adds each position's count in `planes` to its byte lane.
#[inline]
fn spread_into(planes: &[u64; 4], lanes: &mut [u64; 8]) {
    for (j, lane) in lanes.iter_mut().enumerate() {
        let byte = |plane: u64| SPREAD[((plane >> (8 * j)) & 0xFF) as usize];
        *lane += byte(planes[0])
            + (byte(planes[1]) << 1)
            + (byte(planes[2]) << 2)
            + (byte(planes[3]) << 3);
    }
}

/// Adds each byte lane to its position's count.
#[inline]
fn spill_into(lanes: &[u64; 8], counts: &mut [u32; 64]) {
    for (j, &lane) in lanes.iter().enumerate() {
        for (i, count) in counts[8 * j..8 * j + 8].iter_mut().enumerate() {
            *count += ((lane >> (8 * i)) & 0xFF) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::SimHashAccumulator;
    use proptest::prelude::*;

    #[test]
    fn nothing_added_is_no_fingerprint() {
        assert_eq!(SimHashCounter::new().finish(), None);
    }

    #[test]
    fn a_tie_leaves_the_bit_clear() {
        let mut counter = SimHashCounter::new();
        counter.add(0b01);
        counter.add(0b10);
        // Each of bits 0 and 1 is set in exactly half the features: not more than half.
        assert_eq!(counter.finish(), Some(Fingerprint(0)));
        counter.add(0b01);
        assert_eq!(counter.finish(), Some(Fingerprint(0b01)));
    }

    proptest! {
        /// The same bits as the f32 accumulator with every weight 1, on hashes that share
        /// bytes often (few distinct values) and on arbitrary ones.
        #[test]
        fn agrees_with_the_weighted_accumulator(
            hashes in prop::collection::vec(
                prop_oneof![any::<u64>(), (0u64..4).prop_map(|x| x * 0x0101_0101_0101_0101)],
                0..600,
            )
        ) {
            let mut counter = SimHashCounter::new();
            let mut accumulator = SimHashAccumulator::new();
            for &hash in &hashes {
                counter.add(hash);
                accumulator.add(hash, 1.0);
            }
            prop_assert_eq!(counter.finish(), accumulator.finish());
        }

        /// `extend` counts as `add` one by one does, whatever the runs the hashes come in
        /// and wherever the planes stand when a run starts.
        #[test]
        fn extend_is_add_in_order(
            runs in prop::collection::vec(
                (prop::collection::vec(any::<u64>(), 0..40), any::<bool>()),
                0..30,
            )
        ) {
            let mut one_by_one = SimHashCounter::new();
            let mut in_runs = SimHashCounter::new();
            for (hashes, by_add) in &runs {
                hashes.iter().for_each(|&hash| one_by_one.add(hash));
                if *by_add {
                    hashes.iter().for_each(|&hash| in_runs.add(hash));
                } else {
                    in_runs.extend(hashes.iter().copied());
                }
            }
            prop_assert_eq!(in_runs.counts(), one_by_one.counts());
            prop_assert_eq!(in_runs.total, one_by_one.total);
            prop_assert_eq!(in_runs.finish(), one_by_one.finish());
        }

        /// Exact counts, position by position, across spreads and spills (1,200 hashes is
        /// four spills), with all-ones hashes to fill every counter to its limit.
        #[test]
        fn counts_every_position_exactly(
            hashes in prop::collection::vec(
                prop_oneof![any::<u64>(), Just(u64::MAX), Just(0u64), Just(1u64 << 63)],
                0..1200,
            )
        ) {
            let mut counter = SimHashCounter::new();
            let mut expected = [0u32; 64];
            for &hash in &hashes {
                counter.add(hash);
                for (bit, count) in expected.iter_mut().enumerate() {
                    *count += u32::from(hash >> bit & 1 == 1);
                }
            }
            prop_assert_eq!(counter.counts(), expected);
        }
    }
}
