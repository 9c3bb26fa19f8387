//! The SimHash accumulator: the hot loop.
//!
//! Charikar's construction adds a feature's weight to every bit position where its hash has a
//! 1 and subtracts it where it has a 0, then keeps the sign. Adding only where the bit is 1
//! and comparing with half of the total weight gives the same bits with half the work. The
//! 64 additions are done eight bits at a time through a table of 0/1 lanes, a loop the
//! compiler turns into SIMD multiply-adds without `unsafe`.

use crate::fingerprint::Fingerprint;

/// `LANES[b][j]` is bit `j` of byte `b`, as 0.0 or 1.0.
static LANES: [[f32; 8]; 256] = {
    let mut table = [[0.0f32; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][bit] = 1.0;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// Sums the weights of the features of one text, bit position by bit position.
///
/// Sums are `f32` added in the order the features come in, so the same features in the same
/// order give the same bits on every platform (IEEE 754 addition is deterministic; Rust does
/// not fuse or reorder floating-point operations).
#[derive(Clone, Debug)]
pub struct SimHashAccumulator {
    /// Per byte of the hash, the sums of its 8 bit positions: fixed-size rows, which the
    /// compiler turns into two 4-lane multiply-adds per byte wherever `add` is inlined (as
    /// 64-element slices cut into chunks, it stayed scalar inside `SimHasher::fingerprint`).
    ones: [[f32; 8]; 8],
    total: f32,
}

impl Default for SimHashAccumulator {
    fn default() -> Self {
        SimHashAccumulator {
            ones: [[0.0; 8]; 8],
            total: 0.0,
        }
    }
}

impl SimHashAccumulator {
    /// An empty accumulator.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one feature occurrence: its 64-bit hash and its weight. Weights that are not
    /// positive and finite are ignored (they carry no evidence and would poison the sums).
    #[inline]
    pub fn add(&mut self, hash: u64, weight: f32) {
        if !(weight > 0.0 && weight.is_finite()) {
            return;
        }
        self.total += weight;
        for (ones, byte) in self.ones.iter_mut().zip(hash.to_le_bytes()) {
            let lanes = &LANES[usize::from(byte)];
            for bit in 0..8 {
                ones[bit] += lanes[bit] * weight;
            }
        }
    }

    /// The fingerprint: bit `i` is set when the features with bit `i` set weigh more than
    /// half of all. `None` when nothing with a positive weight was added: an empty text must
    /// not get a fingerprint that makes it a duplicate of every other empty text.
    #[must_use]
    pub fn finish(&self) -> Option<Fingerprint> {
        if self.total <= 0.0 {
            return None;
        }
        let half = self.total * 0.5;
        let bits = self
            .ones
            .as_flattened()
            .iter()
            .enumerate()
            .fold(0u64, |bits, (i, &sum)| bits | (u64::from(sum > half) << i));
        Some(Fingerprint(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Charikar's formulation, signed sums, as the reference.
    fn reference(features: &[(u64, f32)]) -> u64 {
        let mut v = [0.0f64; 64];
        for &(hash, weight) in features {
            for (i, vi) in v.iter_mut().enumerate() {
                if hash >> i & 1 == 1 {
                    *vi += f64::from(weight);
                } else {
                    *vi -= f64::from(weight);
                }
            }
        }
        v.iter()
            .enumerate()
            .fold(0, |bits, (i, &x)| bits | (u64::from(x > 0.0) << i))
    }

    #[test]
    fn agrees_with_signed_sums() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200 {
            let mut acc = SimHashAccumulator::new();
            let mut features = Vec::new();
            for _ in 0..(round % 17 + 1) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // Weights of a quarter step are exact in f32 and f64, so both sums are exact.
                let weight = ((state >> 60) as f32 + 1.0) * 0.25;
                features.push((state ^ (state >> 29), weight));
                acc.add(state ^ (state >> 29), weight);
            }
            assert_eq!(
                acc.finish().unwrap().bits(),
                reference(&features),
                "round {round}"
            );
        }
    }

    #[test]
    fn single_feature_gives_its_hash() {
        let mut acc = SimHashAccumulator::new();
        acc.add(0xdead_beef_0123_4567, 2.5);
        assert_eq!(acc.finish(), Some(Fingerprint(0xdead_beef_0123_4567)));
    }

    #[test]
    fn nothing_added_is_no_fingerprint() {
        let mut acc = SimHashAccumulator::new();
        assert_eq!(acc.finish(), None);
        acc.add(42, 0.0);
        acc.add(42, f32::NAN);
        acc.add(42, -1.0);
        assert_eq!(acc.finish(), None);
    }
}
