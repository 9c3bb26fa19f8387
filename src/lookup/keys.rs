//! Bucket keys for the block tables, and the radix sort that groups entries by key.

/// Odd multiplier of the key hash (2^64 / golden ratio, Knuth's Fibonacci hashing).
const KEY_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// How a table turns a fingerprint into a bucket number: the block's bits, gathered into
/// a `b`-bit value, multiplied by an odd constant modulo `2^b` (a bijection), of which the
/// top `dir_bits` are the key.
///
/// A plain multiplicative hash of the masked fingerprint is not enough: bits high in the
/// word only reach the top of the product through few carries, and on random data one of
/// the four 16-bit blocks left 88% of its buckets empty. Gathering first keeps the key
/// uniform for any block position and a bijection when the directory is as wide as the
/// block, so equal-sized buckets stay equal-sized.
#[derive(Clone, Debug)]
pub(crate) struct KeyFn {
    /// The block's contiguous runs of bits: `(source shift, width mask, destination shift)`.
    pub(crate) runs: Vec<(u32, u64, u32)>,
    /// `2^b - 1`.
    value_mask: u64,
    /// `b - dir_bits`.
    shift: u32,
}

impl KeyFn {
    pub(crate) fn new(block: u64, dir_bits: u32) -> KeyFn {
        let width = block.count_ones();
        debug_assert!(dir_bits <= width);
        let mut runs = Vec::new();
        let (mut rest, mut dst) = (block, 0);
        while rest != 0 {
            let src = rest.trailing_zeros();
            let len = (rest >> src).trailing_ones();
            let mask = low_bits(len);
            runs.push((src, mask, dst));
            rest &= !(mask << src);
            dst += len;
        }
        KeyFn {
            runs,
            value_mask: low_bits(width),
            shift: width - dir_bits,
        }
    }

    #[inline]
    pub(crate) fn key(&self, fp: u64) -> usize {
        let value = self
            .runs
            .iter()
            .fold(0, |v, &(src, mask, dst)| v | ((fp >> src) & mask) << dst);
        // `checked_shr` turns the single-bucket case of a 64-bit block (shift 64) into key 0.
        (value.wrapping_mul(KEY_MULTIPLIER) & self.value_mask)
            .checked_shr(self.shift)
            .unwrap_or(0) as usize
    }
}

/// The lowest `n` bits set, for `n` in `0..=64`.
fn low_bits(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n).unwrap_or(0)
}

/// Sorts `words` by their high 32 bits, of which only the low `bits` may be set, moving
/// `payload[i]` along with `words[i]`: a stable LSD radix sort of at most 11 bits a pass.
///
/// One counting sort over all 2^16 keys would be simpler, but its scatter writes to 65,536
/// places at once, which misses the TLB on every write: at 10M entries it made the build
/// several times slower than two passes over 256 places each.
pub(crate) fn radix_sort_high(words: &mut Vec<u64>, payload: &mut Vec<u32>, bits: u32) {
    if bits == 0 {
        return;
    }
    let passes = bits.div_ceil(11);
    let width = bits.div_ceil(passes);
    let mut scratch_words = vec![0u64; words.len()];
    let mut scratch_payload = vec![0u32; payload.len()];
    for pass in 0..passes {
        let shift = 32 + pass * width;
        let mask = low_bits(width);
        let digit = |w: u64| ((w >> shift) & mask) as usize;
        let mut starts = vec![0usize; (1 << width) + 1];
        for &w in words.iter() {
            starts[digit(w) + 1] += 1;
        }
        for d in 0..1 << width {
            starts[d + 1] += starts[d];
        }
        for (&w, &p) in words.iter().zip(payload.iter()) {
            let at = &mut starts[digit(w)];
            scratch_words[*at] = w;
            scratch_payload[*at] = p;
            *at += 1;
        }
        std::mem::swap(words, &mut scratch_words);
        std::mem::swap(payload, &mut scratch_payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_uniform_for_every_block_position() {
        // A full-width directory is a bijection of the block's values: every bucket is hit
        // exactly once by the 2^16 values of each 16-bit quarter.
        for block in [0xFFFF, 0xFFFF << 16, 0xFFFF << 32, 0xFFFF << 48] {
            let key = KeyFn::new(block, 16);
            let lo = block.trailing_zeros();
            let mut seen = vec![false; 1 << 16];
            for v in 0..1u64 << 16 {
                seen[key.key(v << lo)] = true;
            }
            assert!(seen.iter().all(|&s| s), "block {block:016x}");
        }
        // Non-contiguous blocks too.
        let block = 0xF000_0000_0000_000F;
        let key = KeyFn::new(block, 8);
        let mut seen = vec![false; 256];
        for v in 0..256u64 {
            seen[key.key((v & 0xF) | (v >> 4) << 60)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn radix_sort_is_a_stable_sort_on_the_high_bits() {
        for bits in [0, 3, 11, 16, 19, 26] {
            let mut words: Vec<u64> = (0..5000u64)
                .map(|i| ((i.wrapping_mul(0x9E37_79B9) % (1 << bits)) << 32) | i)
                .collect();
            let mut payload: Vec<u32> = words.iter().map(|&w| w as u32 ^ 0xabc).collect();
            let mut expected = words.clone();
            expected.sort_by_key(|w| w >> 32);
            radix_sort_high(&mut words, &mut payload, bits);
            assert_eq!(words, expected, "bits {bits}");
            assert!(words
                .iter()
                .zip(&payload)
                .all(|(&w, &p)| p == w as u32 ^ 0xabc));
        }
    }

    #[test]
    fn single_bucket_directories_have_key_zero() {
        assert_eq!(KeyFn::new(u64::MAX, 0).key(u64::MAX), 0);
        assert_eq!(KeyFn::new(0xFF00, 0).key(u64::MAX), 0);
        assert_eq!(low_bits(0), 0);
        assert_eq!(low_bits(64), u64::MAX);
    }
}
