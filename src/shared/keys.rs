//! The keys under which a document is found as a candidate: every document near it shares
//! at least one.

use crate::lookup::band_keys;
use crate::matching::Matcher;
use crate::Fingerprint;

/// The candidate keys of a document with `fingerprint` and `signature`, under the
/// namespace `ns`: the `t + 1` blocks of its fingerprint for the table distance `t` (two
/// fingerprints within `t` bits agree on at least one block, by the pigeonhole principle),
/// and, when the rule takes candidates from bands, the keys of its signature's bands.
pub(super) fn candidate_keys(
    ns: &str,
    matcher: &Matcher,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> Vec<String> {
    let blocks = matcher.table_distance() + 1;
    let mut keys: Vec<String> = (0..blocks)
        .map(|block| {
            let (start, end) = block_bits(block, blocks);
            let width = end - start;
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let value = (fingerprint.bits() >> start) & mask;
            format!("{ns}:b:{block}:{value:x}")
        })
        .collect();
    if let (Some((_, rows)), Some(signature)) = (matcher.bands(), signature) {
        keys.extend(band_keys(signature, rows).map(|key| format!("{ns}:s:{key:x}")));
    }
    keys
}

/// The bit range `start..end` of block `block` of `blocks` over 64 bits, as even as can be.
fn block_bits(block: u32, blocks: u32) -> (u32, u32) {
    let start = 64 * block / blocks;
    let end = 64 * (block + 1) / blocks;
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_within_the_distance_share_a_block_key() {
        let matcher = Matcher::new(3, None);
        let a = Fingerprint(0x0123_4567_89AB_CDEF);
        // Three bits flipped, one in each of three blocks: the fourth block agrees.
        let b = Fingerprint(a.bits() ^ (1 | 1 << 20 | 1 << 40));
        let (ka, kb) = (
            candidate_keys("t", &matcher, a, None),
            candidate_keys("t", &matcher, b, None),
        );
        assert_eq!(ka.len(), 4);
        assert!(ka.iter().any(|k| kb.contains(k)));
        let far = Fingerprint(!a.bits());
        assert!(!candidate_keys("t", &matcher, far, None)
            .iter()
            .any(|k| ka.contains(k)));
    }

    #[test]
    fn blocks_cover_the_64_bits() {
        for blocks in 1..=17 {
            let ranges: Vec<(u32, u32)> = (0..blocks).map(|b| block_bits(b, blocks)).collect();
            assert_eq!(ranges[0].0, 0);
            assert_eq!(ranges[ranges.len() - 1].1, 64);
            assert!(ranges
                .windows(2)
                .all(|w| w[0].1 == w[1].0 && w[0].0 < w[0].1));
        }
    }
}
