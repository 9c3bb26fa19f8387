//! Deterministic fingerprint data for the lookup benchmarks, `examples/lookup_compare.rs` and
//! the integration tests (included by each with `#[path]`), so that every run measures the
//! same data.

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `fp` with `flips` distinct random bits flipped.
    pub fn flip(&mut self, fp: u64, flips: u32) -> u64 {
        let mut mask = 0u64;
        while mask.count_ones() < flips {
            mask |= 1 << self.below(64);
        }
        fp ^ mask
    }
}

/// `n` random fingerprints.
pub fn random(n: usize, rng: &mut Rng) -> Vec<u64> {
    (0..n).map(|_| rng.next()).collect()
}

/// Groups of 1 to 15 near-duplicates (8 on average): a random base, each member with 0 to 3
/// of its bits flipped, so members are within 6 bits of each other.
pub fn clustered(n: usize, rng: &mut Rng) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let base = rng.next();
        let size = 1 + rng.below(15) as usize;
        for _ in 0..size.min(n - out.len()) {
            let flips = rng.below(4) as u32;
            out.push(rng.flip(base, flips));
        }
    }
    out
}
