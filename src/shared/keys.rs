//! The keys under which a document is found as a candidate: every document near it shares
//! at least one.
//!
//! Two kinds: the `k + 1` blocks of its fingerprint, and its signature's bands. Each is a
//! field (a number: Redis keeps a field that reads as an integer in a few bytes) of one of
//! a group's list hashes ([`slots`](super::slots)), whose value lists the documents under
//! that key, one [`list_entry`] (a document's 4-byte handle) after another: many keys a hash,
//! so that a window's keys are written and read with one command per hash, and a few bytes
//! an entry in a hash's compact encoding (docs/SCALING.md, "Keys and memory").

use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::lookup::band_keys;
use crate::matching::Matcher;

use super::slots::{place_of_band, place_of_field, Handle, PLACE_BITS};

/// A document's candidate keys in the shared space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CandidateKeys {
    /// Its fingerprint's blocks, then its signature's bands.
    pub(super) lists: Vec<ListKey>,
}

/// Where the documents under one candidate key are: the field `field` of the list hash
/// `bucket` of group `group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct ListKey {
    pub(super) group: u64,
    pub(super) bucket: u64,
    pub(super) field: i64,
    /// A block's: the bytes `from..to` of a fingerprint (little-endian) that lie within the
    /// block, which every document under the key shares (its entries leave them out), and
    /// the block's value from its first bit `start` on.
    fixed: Option<Fixed>,
}

/// The bytes of a fingerprint a block key fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Fixed {
    from: usize,
    to: usize,
    start: u32,
    value: u64,
}

impl ListKey {
    /// Whether the key is a fingerprint block's, whose entries carry their documents'
    /// fingerprints: a block value is shared by many documents beyond the rule's reach,
    /// which a reader drops before reading their records. A band value is nearly always
    /// shared by near-duplicates only: its entries keep just the handles.
    #[cfg(test)]
    pub(super) fn holds_fingerprints(&self) -> bool {
        self.fixed.is_some()
    }

    /// The bytes of one entry of this key's list.
    fn entry_len(&self) -> usize {
        match self.fixed {
            Some(fixed) => 4 + 8 - (fixed.to - fixed.from),
            None => 4,
        }
    }

    /// The key of the fingerprint block of bits `start..end` whose field is `field`
    /// ([`BLOCK_FIELDS`] and up, with the block's value, `value`, up to 32 bits of it).
    fn block(field: i64, start: u32, end: u32, value: u64) -> ListKey {
        let (group, bucket) = place_of_field(field);
        let from = start.div_ceil(8) as usize;
        // Only the bits the field holds are fixed (a block of 64 bits keeps 32).
        let to = ((end.min(start + 32) / 8) as usize).max(from);
        ListKey {
            group,
            bucket,
            field,
            fixed: Some(Fixed {
                from,
                to,
                start,
                value,
            }),
        }
    }

    /// The key of the band key `key`.
    fn band(key: u32) -> ListKey {
        let (group, bucket, field) = place_of_band(key);
        ListKey {
            group,
            bucket,
            field,
            fixed: None,
        }
    }
}

/// A band's field is its key's bits above those that place it (22 bits); a block's field
/// is above them: `2^22`, then its block's number and value (`2^22 + 4 * 2^16` at most for
/// the default distance, so that Redis keeps it in 4 bytes, as a band's).
const BLOCK_FIELDS: i64 = 1 << (32 - PLACE_BITS);

/// The candidate keys of a document with `fingerprint` and `signature`: the `t + 1` blocks
/// of its fingerprint for the table distance `t` (two fingerprints within `t` bits agree on
/// at least one block, by the pigeonhole principle), and, when the rule takes candidates
/// from bands, the keys of its signature's bands.
pub(super) fn candidate_keys(
    matcher: &Matcher,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> CandidateKeys {
    let blocks = matcher.table_distance() + 1;
    let mut lists: Vec<ListKey> = (0..blocks)
        .map(|block| {
            let (start, end) = block_bits(block, blocks);
            let width = end - start;
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            // A block is 32 bits at most (k >= 1): its value fits below its number.
            let value = (fingerprint.bits() >> start) & mask & 0xFFFF_FFFF;
            // The widest block's values, as the fields keep them (32 bits at most).
            let widest = 64u32.div_ceil(blocks).min(32);
            let field = BLOCK_FIELDS + ((i64::from(block) << widest) | value as i64);
            ListKey::block(field, start, end, value)
        })
        .collect();
    if let (Some((_, rows)), Some(signature)) = (matcher.bands(), signature) {
        lists.extend(band_keys(signature, rows).map(ListKey::band));
    }
    CandidateKeys { lists }
}

/// The bit range `start..end` of block `block` of `blocks` over 64 bits, as even as can be.
fn block_bits(block: u32, blocks: u32) -> (u32, u32) {
    let start = 64 * block / blocks;
    let end = 64 * (block + 1) / blocks;
    (start, end)
}

/// Checks that `id` can be a document of the space.
///
/// # Errors
/// [`Error::KeyTooLong`] for an id longer than tantivy indexes a key
/// ([`MAX_TOKEN_LEN`](tantivy::tokenizer::MAX_TOKEN_LEN)), as the index would refuse it.
pub(super) fn check_id(id: &str) -> Result<()> {
    use tantivy::tokenizer::MAX_TOKEN_LEN;
    if id.len() > MAX_TOKEN_LEN {
        return Err(Error::KeyTooLong {
            length: id.len(),
            max: MAX_TOKEN_LEN,
        });
    }
    Ok(())
}

/// A document as listed under `key`: its [`Handle`] (4 bytes, big-endian), then, when the
/// key is a block's, its fingerprint (little-endian) but the bytes within the block, which
/// the key gives (6 bytes at the default distance). The fingerprint lets a reader drop the
/// many documents that share a 16-bit block but lie beyond the rule's reach before reading
/// any record: SimHash's bits lean the same way for texts of one language, so a block value
/// can be shared by thousands. Fixed widths: a list is its entries one after another.
pub(super) fn list_entry(handle: Handle, fingerprint: Fingerprint, key: &ListKey) -> Vec<u8> {
    let mut entry = Vec::with_capacity(key.entry_len());
    entry.extend_from_slice(&handle.to_be_bytes());
    if let Some(fixed) = key.fixed {
        let bytes = fingerprint.bits().to_le_bytes();
        entry.extend_from_slice(&bytes[..fixed.from]);
        entry.extend_from_slice(&bytes[fixed.to..]);
    }
    entry
}

/// The documents of the value of `key`'s list, [`list_entry`] after entry (a fingerprint
/// when the key holds them); `None` when it is not such a list.
pub(super) fn parse_list(
    value: &[u8],
    key: &ListKey,
) -> Option<Vec<(Option<Fingerprint>, Handle)>> {
    let width = key.entry_len();
    if !value.len().is_multiple_of(width) {
        return None;
    }
    Some(
        (value.chunks_exact(width))
            .map(|entry| {
                let handle = Handle::from_be_bytes([entry[0], entry[1], entry[2], entry[3]]);
                let fingerprint = key.fixed.map(|fixed| {
                    let kept = &entry[4..];
                    let mut bytes = [0; 8];
                    bytes[..fixed.from].copy_from_slice(&kept[..fixed.from]);
                    bytes[fixed.to..].copy_from_slice(&kept[fixed.from..]);
                    for (at, byte) in bytes.iter_mut().enumerate().take(fixed.to).skip(fixed.from) {
                        *byte = (fixed.value >> (8 * at as u32 - fixed.start)) as u8;
                    }
                    Fingerprint(u64::from_le_bytes(bytes))
                });
                (fingerprint, handle)
            })
            .collect(),
    )
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
            candidate_keys(&matcher, a, None).lists,
            candidate_keys(&matcher, b, None).lists,
        );
        assert_eq!(ka.len(), 4);
        assert!(ka.iter().any(|k| kb.contains(k)));
        let far = Fingerprint(!a.bits());
        assert!(!candidate_keys(&matcher, far, None)
            .lists
            .iter()
            .any(|k| ka.contains(k)));
    }

    #[test]
    fn signatures_that_share_a_band_share_a_list_entry() {
        let verification = crate::matching::Verification::default();
        let (bands, rows) = verification.get_bands().unwrap();
        let matcher = Matcher::new(3, Some(&verification));
        let a: Vec<u32> = (0..verification.get_hashes() as u32).collect();
        let mut b = a.clone();
        // Every band differs but the first.
        for value in b.iter_mut().skip(rows).step_by(rows) {
            *value += 1000;
        }
        let fingerprint = Fingerprint(0);
        let blocks = matcher.table_distance() as usize + 1;
        let ka = candidate_keys(&matcher, fingerprint, Some(&a)).lists[blocks..].to_vec();
        let kb = candidate_keys(&matcher, fingerprint, Some(&b)).lists[blocks..].to_vec();
        assert_eq!(ka.len(), bands);
        assert_eq!(ka[0], kb[0]);
        assert!(ka[1..].iter().all(|entry| !kb.contains(entry)));
    }

    #[test]
    fn default_block_fields_stay_in_24_bits() {
        let keys = candidate_keys(&Matcher::new(3, None), Fingerprint(u64::MAX), None).lists;
        assert_eq!(keys.len(), 4);
        assert!(keys
            .iter()
            .all(|key| key.holds_fingerprints() && key.field < 1 << 23));
        let ones = candidate_keys(&Matcher::new(1, None), Fingerprint(u64::MAX), None).lists;
        assert_ne!(ones[0], ones[1]);
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

    #[test]
    fn entries_read_back_from_lists() {
        let handles: [Handle; 4] = [0, 1, 0x1234_5678, u32::MAX];
        let band = ListKey::band(u32::MAX);
        assert_eq!(band.field, (1 << 22) - 1);
        // Fingerprints that share their first block at each distance, blocks of 64 to 8
        // bits, aligned on bytes or not: each reads back whole.
        let fingerprints = |i: u64| Fingerprint(0x0123_4567_89AB_CDEF ^ (i * 0x1111) << 50);
        for distance in [0, 1, 3, 4, 6, 7] {
            // (Distance 0: one block of 64 bits, whose field keeps 32 of them.)
            let keys = candidate_keys(&Matcher::new(distance, None), fingerprints(0), None);
            for key in [keys.lists[0], band] {
                let value: Vec<u8> = (handles.iter().enumerate())
                    .flat_map(|(i, &h)| list_entry(h, fingerprints(i as u64), &key))
                    .collect();
                let read = parse_list(&value, &key).unwrap();
                assert_eq!(read.len(), handles.len());
                for (i, (fingerprint, handle)) in read.iter().enumerate() {
                    let kept = key.holds_fingerprints().then_some(fingerprints(i as u64));
                    assert_eq!((*fingerprint, *handle), (kept, handles[i]));
                }
                assert_eq!(parse_list(&value[..value.len() - 1], &key), None);
            }
            if distance == 3 {
                assert_eq!(keys.lists[0].entry_len(), 10);
            }
        }
        assert!(!band.holds_fingerprints());
        assert!(check_id(&"y".repeat(65_530)).is_ok());
        assert!(matches!(
            check_id(&"x".repeat(70_000)),
            Err(Error::KeyTooLong {
                length: 70_000,
                max: 65_530
            })
        ));
    }
}
