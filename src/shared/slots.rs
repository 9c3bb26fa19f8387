//! Where the space's keys live: every document's record, its candidate keys' lists and
//! its writer's set are spread over [`GROUPS`] groups, each one hash tag (so one Redis
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

/// The hash of the records of group `group`: a field per id.
pub(super) fn records_key(ns: &str, group: u64) -> String {
    format!("{}:d", tag(ns, group))
}

/// The list hash `bucket` of group `group`: a field per candidate key.
pub(super) fn list_key(ns: &str, group: u64, bucket: u64) -> String {
    format!("{}:l:{bucket:x}", tag(ns, group))
}

/// The set of the ids of group `group` that the writer `node` registered and that were
/// not rejected.
pub(super) fn node_set_key(ns: &str, group: u64, node: &str) -> String {
    format!("{}:n:{node}", tag(ns, group))
}

/// The group and list bucket of the candidate key `field`: its bits mixed, since a
/// fingerprint's block values lean (SimHash's bits do, for texts of one language).
pub(super) fn place_of_field(field: u64) -> (u64, u64) {
    let mixed = mix(field);
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
        for key in [
            records_key("ns", group),
            list_key("ns", group, 3),
            node_set_key("ns", group, "w1"),
        ] {
            assert!(key.starts_with(&tag), "{key}");
        }
        // Stable: every writer places an id alike.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
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
