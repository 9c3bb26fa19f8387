//! Where the space's keys live: every document's record and its candidate keys' lists are
//! spread over [`GROUPS`] groups, each one hash tag (so one Redis
//! Cluster slot, and one node), so that a window of documents is registered, numbered and
//! read with one script (or one command) per group and key, rather than one per document
//! and key: Redis counts and serves commands, and a command with many fields costs it
//! little more than one with one.

/// The groups of a space: enough for its slots to spread over a few masters, few enough
/// that a window of documents touches each group's keys many times.
pub(super) const GROUPS: u64 = 16;

/// The list hashes of a group. A window of `w` documents (18 candidate keys each) touches
/// up to `min(18 w, 1,024)` list hashes, with one `HMGET` and one `HSET` to register and
/// one `HMGET` to read each: at 512 documents a window, about 6 commands a document. A
/// list hash stays in Redis's compact encoding (listpack) up to
/// `hash-max-listpack-entries` fields (512 in `scripts/redis-cluster.sh`), up to about
/// 29,000 documents in all; beyond, Redis keeps it as a hash table, at about twice the
/// bytes a key. Smaller list hashes also cost Redis less: a listpack's field is found by
/// a scan (docs/SCALING.md, "Keys and memory").
pub(super) const LIST_BUCKETS: u64 = 64;

/// The hash tag of group `group` of the space `ns`: every key of the group has it.
pub(super) fn tag(ns: &str, group: u64) -> String {
    format!("{{{ns}/{group:x}}}")
}

/// The group of the record of `id`.
pub(super) fn group_of_id(id: &str) -> u64 {
    mix(fnv1a(id.as_bytes())) % GROUPS
}

/// The bits of a record's slot in its group: a [`Handle`] is the group's 4 bits and these.
pub(super) const SLOT_BITS: u32 = 28;

/// The slots of a group: a slot is a field of the group's records hash.
pub(super) const SLOTS: u32 = 1 << SLOT_BITS;

/// The slot where the record of `id` is looked for first: its hash's bits above the
/// group's. Two ids may share it (about one pair in 2^28 of a group): the later one takes
/// the next free slot (the claim script probes, reading each record's id), so that a
/// record's slot is fixed once written (records are never removed).
pub(super) fn first_slot_of_id(id: &str) -> u32 {
    ((mix(fnv1a(id.as_bytes())) / GROUPS) % u64::from(SLOTS)) as u32
}

/// A document's handle in the space: its record's group and slot in 4 bytes, as lists name
/// it (an id may be hundreds of bytes; its record holds it once).
pub(super) type Handle = u32;

/// The handle of the record at `slot` of group `group`.
pub(super) fn handle(group: u64, slot: u32) -> Handle {
    (group as u32) << SLOT_BITS | (slot & (SLOTS - 1))
}

/// The group and slot of `handle`.
pub(super) fn place_of_handle(handle: Handle) -> (u64, u32) {
    (u64::from(handle >> SLOT_BITS), handle & (SLOTS - 1))
}

/// The slot after `slot`, where a record whose slot is taken by another id is looked for.
pub(super) fn next_slot(slot: u32) -> u32 {
    (slot + 1) % SLOTS
}

/// The hash of the records of group `group`: a field per slot.
pub(super) fn records_key(ns: &str, group: u64) -> String {
    format!("{}:d", tag(ns, group))
}

/// The list hash `bucket` of group `group`: a field per candidate key.
pub(super) fn list_key(ns: &str, group: u64, bucket: u64) -> String {
    format!("{}:l:{bucket:x}", tag(ns, group))
}

/// The bits of a band key that choose its group and list bucket.
pub(super) const PLACE_BITS: u32 = (GROUPS * LIST_BUCKETS).trailing_zeros();
const _: () = assert!((GROUPS * LIST_BUCKETS).is_power_of_two());

/// The group, list bucket and field of the band key `key`: a band key is a hash, so its
/// low bits choose the place and the others are the field (22 bits, which Redis keeps in
/// 4 bytes of a list hash's compact encoding; the whole key would take 5 to 9).
pub(super) fn place_of_band(key: u32) -> (u64, u64, i64) {
    let low = u64::from(key) % (GROUPS * LIST_BUCKETS);
    (low % GROUPS, low / GROUPS, i64::from(key >> PLACE_BITS))
}

/// The group and list bucket of the block field `field`: its bits mixed, since a
/// fingerprint's block values lean (SimHash's bits do, for texts of one language).
pub(super) fn place_of_field(field: i64) -> (u64, u64) {
    let mixed = mix(field as u64);
    (mixed % GROUPS, (mixed / GROUPS) % LIST_BUCKETS)
}

/// FNV-1a over `bytes`: stable across builds and machines, as every writer must agree.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64's finaliser: every bit of `x` moves every bit of the result.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_a_group_share_its_hash_tag() {
        let group = group_of_id("reuters/00001");
        assert!(group < GROUPS);
        let tag = tag("ns", group);
        for key in [records_key("ns", group), list_key("ns", group, 3)] {
            assert!(key.starts_with(&tag), "{key}");
        }
        // Stable: every writer places an id alike.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn handles_keep_group_and_slot() {
        for (group, slot) in [(0, 0), (GROUPS - 1, SLOTS - 1), (7, 12_345)] {
            assert_eq!(place_of_handle(handle(group, slot)), (group, slot));
        }
        assert_eq!(next_slot(SLOTS - 1), 0);
        assert!(first_slot_of_id("reuters/00001") < SLOTS);
        // tests/shared_registry.rs's pair of ids that share a first slot.
        let [a, b] = ["collide-2983", "collide-28156"];
        assert_eq!(
            (group_of_id(a), first_slot_of_id(a)),
            (group_of_id(b), first_slot_of_id(b))
        );
    }

    #[test]
    fn ids_spread_over_the_groups() {
        let mut counts = [0u32; GROUPS as usize];
        for n in 0..16_000 {
            counts[group_of_id(&format!("doc-{n}")) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
