//! The keys under which a document is found as a candidate: every document near it shares
//! at least one.
//!
//! Two kinds: the `k + 1` blocks of its fingerprint, and its signature's bands. Each is a
//! field (a number: Redis keeps a field that reads as an integer in a few bytes) of one of
//! a group's list hashes ([`slots`](super::slots)), whose value lists the documents under
//! that key, one [`list_entry`] after another: many keys a hash, so that a window's keys are
//! written and read with one command per hash, and a few tens of bytes a key in a hash's
//! compact encoding (docs/SCALING.md, "Keys and memory").

use crate::error::{Error, Result};
use crate::lookup::band_keys;
use crate::matching::Matcher;
use crate::Fingerprint;

use super::slots::place_of_field;

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
    pub(super) field: u64,
}

impl ListKey {
    /// Whether the key is a fingerprint block's, whose entries carry their documents'
    /// fingerprints: a block value is shared by many documents beyond the rule's reach,
    /// which a reader drops before reading their records. A band value is nearly always
    /// shared by near-duplicates only: its entries keep just the ids, 8 bytes fewer each.
    pub(super) fn holds_fingerprints(&self) -> bool {
        self.field >= BLOCK_FIELDS
    }

    fn of_field(field: u64) -> ListKey {
        let (group, bucket) = place_of_field(field);
        ListKey {
            group,
            bucket,
            field,
        }
    }
}

/// A band key is 32 bits; a block's field is above them: `2^40`, its block's number, its value.
const BLOCK_FIELDS: u64 = 1 << 40;

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
            ListKey::of_field(BLOCK_FIELDS | u64::from(block) << 32 | value)
        })
        .collect();
    if let (Some((_, rows)), Some(signature)) = (matcher.bands(), signature) {
        lists.extend(band_keys(signature, rows).map(|key| ListKey::of_field(u64::from(key))));
    }
    CandidateKeys { lists }
}

/// The bit range `start..end` of block `block` of `blocks` over 64 bits, as even as can be.
fn block_bits(block: u32, blocks: u32) -> (u32, u32) {
    let start = 64 * block / blocks;
    let end = 64 * (block + 1) / blocks;
    (start, end)
}

/// A document as listed under its keys: its fingerprint (8 bytes, little-endian), then its
/// id. The fingerprint lets a reader drop the many documents that share a 16-bit block
/// but lie beyond the rule's reach before reading any record: SimHash's bits lean the same
/// way for texts of one language, so a block value can be shared by thousands.
///
/// # Errors
/// [`Error::KeyTooLong`] for an id longer than tantivy indexes a key
/// ([`MAX_TOKEN_LEN`](tantivy::tokenizer::MAX_TOKEN_LEN)), as the index would refuse it.
pub(super) fn member(id: &str, fingerprint: Fingerprint) -> Result<Vec<u8>> {
    use tantivy::tokenizer::MAX_TOKEN_LEN;
    if id.len() > MAX_TOKEN_LEN {
        return Err(Error::KeyTooLong {
            length: id.len(),
            max: MAX_TOKEN_LEN,
        });
    }
    let mut member = Vec::with_capacity(8 + id.len());
    member.extend_from_slice(&fingerprint.bits().to_le_bytes());
    member.extend_from_slice(id.as_bytes());
    Ok(member)
}

/// A [`member`] as an entry of the list of `key`: its id's length in two bytes
/// (big-endian), then the fingerprint's 8 bytes when the key
/// [holds fingerprints](ListKey::holds_fingerprints), then the id's.
pub(super) fn list_entry(member: &[u8], key: &ListKey) -> Vec<u8> {
    let length = u16::try_from(member.len() - 8).expect("member checks the id's length");
    let kept = if key.holds_fingerprints() {
        member
    } else {
        &member[8..]
    };
    let mut entry = Vec::with_capacity(2 + kept.len());
    entry.extend_from_slice(&length.to_be_bytes());
    entry.extend_from_slice(kept);
    entry
}

/// The fingerprint and id of a [`member`]; `None` when it is not one.
pub(super) fn parse_member(member: &[u8]) -> Option<(Fingerprint, String)> {
    let (fingerprint, id) = member.split_first_chunk::<8>()?;
    let id = String::from_utf8(id.to_vec()).ok()?;
    Some((Fingerprint(u64::from_le_bytes(*fingerprint)), id))
}

/// The members of the value of `key`'s list, [`list_entry`] after entry (a fingerprint
/// when the key holds them); `None` when it is not such a list.
pub(super) fn parse_list(
    mut value: &[u8],
    key: &ListKey,
) -> Option<Vec<(Option<Fingerprint>, String)>> {
    let mut members = Vec::new();
    while !value.is_empty() {
        let (length, rest) = value.split_first_chunk::<2>()?;
        let id_length = usize::from(u16::from_be_bytes(*length));
        if key.holds_fingerprints() {
            let length = 8 + id_length;
            let (fingerprint, id) = parse_member(rest.get(..length)?)?;
            members.push((Some(fingerprint), id));
            value = &rest[length..];
        } else {
            let id = String::from_utf8(rest.get(..id_length)?.to_vec()).ok()?;
            members.push((None, id));
            value = &rest[id_length..];
        }
    }
    Some(members)
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
    fn members_read_back_from_lists() {
        let ids = ["", "a", "grown-1", "ü/€", &"x".repeat(300)];
        let members: Vec<Vec<u8>> = (ids.iter().enumerate())
            .map(|(i, id)| member(id, Fingerprint(u64::MAX - i as u64)).unwrap())
            .collect();
        let block = ListKey::of_field(BLOCK_FIELDS | 7);
        let band = ListKey::of_field(7);
        for key in [block, band] {
            let value: Vec<u8> = members.iter().flat_map(|m| list_entry(m, &key)).collect();
            let read = parse_list(&value, &key).unwrap();
            assert_eq!(read.len(), ids.len());
            for (i, (fingerprint, id)) in read.iter().enumerate() {
                let kept = key
                    .holds_fingerprints()
                    .then_some(Fingerprint(u64::MAX - i as u64));
                assert_eq!((*fingerprint, id.as_str()), (kept, ids[i]));
            }
            assert_eq!(parse_list(&value[..value.len() - 1], &key), None);
        }
        assert_eq!(parse_member(b"short"), None);
        assert!(matches!(
            member(&"x".repeat(70_000), Fingerprint(0)),
            Err(Error::KeyTooLong {
                length: 70_000,
                max: 65_530
            })
        ));
        // The longest key tantivy indexes fits an entry.
        let longest = "y".repeat(65_530);
        let value = list_entry(&member(&longest, Fingerprint(7)).unwrap(), &block);
        assert_eq!(
            parse_list(&value, &block).unwrap(),
            [(Some(Fingerprint(7)), longest)]
        );
    }
}
