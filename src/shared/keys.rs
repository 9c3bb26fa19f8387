//! The keys under which a document is found as a candidate: every document near it shares
//! at least one.
//!
//! Two kinds, stored two ways. A fingerprint block of 16 bits has 65,536 values, so each
//! is shared by many documents: a Redis set per block value. A band value is nearly always
//! one document's own: a set per band value took about 200 bytes of Redis memory for one
//! id, 32 times a document. Band values are therefore fields of hashes that each hold many
//! (a bucket per high bits of the band key), whose values list the ids: a few tens of bytes
//! an entry in a hash's compact encoding (docs/SCALING.md, "Keys and memory").

use crate::error::{Error, Result};
use crate::lookup::band_keys;
use crate::matching::Matcher;
use crate::Fingerprint;

/// The high bits of a band key that name its bucket: 2^20 buckets hold 32 band values
/// each at a million documents, well within Redis's compact encoding of a hash
/// (`hash-max-listpack-entries`, 128 by default; its `hash-max-listpack-value`, 64 bytes
/// by default, is below most URLs' entries: docs/SCALING.md says what to set).
pub(super) const BUCKET_BITS: u32 = 20;

/// A document's candidate keys in the shared space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CandidateKeys {
    /// The sets of its fingerprint's blocks.
    pub(super) blocks: Vec<String>,
    /// Its signature's bands, as fields of bucket hashes.
    pub(super) bands: Vec<BandEntry>,
}

/// Where one band value's ids are: the field `field` of the hash `bucket`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BandEntry {
    pub(super) bucket: String,
    /// The band key's low bits: Redis stores a field that reads as an integer in a few bytes.
    pub(super) field: u32,
}

/// The candidate keys of a document with `fingerprint` and `signature`, under the
/// namespace `ns`: the `t + 1` blocks of its fingerprint for the table distance `t` (two
/// fingerprints within `t` bits agree on at least one block, by the pigeonhole principle),
/// and, when the rule takes candidates from bands, the keys of its signature's bands.
pub(super) fn candidate_keys(
    ns: &str,
    matcher: &Matcher,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> CandidateKeys {
    let blocks = matcher.table_distance() + 1;
    let block_keys = (0..blocks)
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
    let bands = match (matcher.bands(), signature) {
        (Some((_, rows)), Some(signature)) => band_keys(signature, rows)
            .map(|key| BandEntry {
                bucket: format!("{ns}:s:{:x}", key >> (32 - BUCKET_BITS)),
                field: key & ((1 << (32 - BUCKET_BITS)) - 1),
            })
            .collect(),
        _ => Vec::new(),
    };
    CandidateKeys {
        blocks: block_keys,
        bands,
    }
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

/// A [`member`] as an entry of a band field: its id's length in two bytes (big-endian),
/// then its bytes (the fingerprint's 8, then the id's).
pub(super) fn band_entry(member: &[u8]) -> Vec<u8> {
    let length = u16::try_from(member.len() - 8).expect("member checks the id's length");
    let mut entry = Vec::with_capacity(2 + member.len());
    entry.extend_from_slice(&length.to_be_bytes());
    entry.extend_from_slice(member);
    entry
}

/// The fingerprint and id of a [`member`]; `None` when it is not one.
pub(super) fn parse_member(member: &[u8]) -> Option<(Fingerprint, String)> {
    let (fingerprint, id) = member.split_first_chunk::<8>()?;
    let id = String::from_utf8(id.to_vec()).ok()?;
    Some((Fingerprint(u64::from_le_bytes(*fingerprint)), id))
}

/// The members of a band field's value, as [`ADD_MEMBER`] wrote them; `None` when it is
/// not such a list.
pub(super) fn parse_band(mut value: &[u8]) -> Option<Vec<(Fingerprint, String)>> {
    let mut members = Vec::new();
    while !value.is_empty() {
        let (length, rest) = value.split_first_chunk::<2>()?;
        let length = 8 + usize::from(u16::from_be_bytes(*length));
        members.push(parse_member(rest.get(..length)?)?);
        value = &rest[length..];
    }
    Some(members)
}

/// Adds the entry `ARGV[2]` (a [`band_entry`]) to the field `ARGV[1]` of the hash
/// `KEYS[1]` unless the field lists it already (a retried step, or a resumed run,
/// registers an id again): Redis has no append to a hash field, and the script is atomic
/// on its node. Entries of another length are stepped over without a copy.
pub(super) const ADD_MEMBER: &str = "
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
local i, size = 1, #ARGV[2]
while i + 1 < #v do
  local span = 10 + string.byte(v, i) * 256 + string.byte(v, i + 1)
  if span == size and string.sub(v, i, i + span - 1) == ARGV[2] then return 0 end
  i = i + span
end
redis.call('HSET', KEYS[1], ARGV[1], v .. ARGV[2])
return 1
";

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
            candidate_keys("t", &matcher, a, None).blocks,
            candidate_keys("t", &matcher, b, None).blocks,
        );
        assert_eq!(ka.len(), 4);
        assert!(ka.iter().any(|k| kb.contains(k)));
        let far = Fingerprint(!a.bits());
        assert!(!candidate_keys("t", &matcher, far, None)
            .blocks
            .iter()
            .any(|k| ka.contains(k)));
    }

    #[test]
    fn signatures_that_share_a_band_share_a_band_entry() {
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
        let ka = candidate_keys("t", &matcher, fingerprint, Some(&a)).bands;
        let kb = candidate_keys("t", &matcher, fingerprint, Some(&b)).bands;
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
    fn members_read_back_from_band_fields() {
        let ids = ["", "a", "grown-1", "ü/€", &"x".repeat(300)];
        let members: Vec<Vec<u8>> = (ids.iter().enumerate())
            .map(|(i, id)| member(id, Fingerprint(u64::MAX - i as u64)).unwrap())
            .collect();
        let value: Vec<u8> = members.iter().flat_map(|m| band_entry(m)).collect();
        let read = parse_band(&value).unwrap();
        assert_eq!(read.len(), ids.len());
        for (i, (fingerprint, id)) in read.iter().enumerate() {
            assert_eq!(
                (fingerprint.bits(), id.as_str()),
                (u64::MAX - i as u64, ids[i])
            );
        }
        assert_eq!(parse_band(&value[..value.len() - 1]), None);
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
        let value = band_entry(&member(&longest, Fingerprint(7)).unwrap());
        assert_eq!(parse_band(&value).unwrap(), [(Fingerprint(7), longest)]);
    }
}
