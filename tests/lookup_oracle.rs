//! `FingerprintIndex` against the brute-force `LinearScan`: the same set of `(id, distance)`
//! for every query, through random, clustered and adversarial fingerprints and through
//! interleaved inserts, removes, re-inserts, bulk loads and compactions.
//!
//! Indexes here use tiny `buffer_len` and `split_min`, so that runs, merges and overflow
//! re-bucketing all happen on sets of a few hundred fingerprints.

use std::collections::BTreeMap;

use proptest::prelude::*;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::lookup::{FingerprintIndex, LinearScan, LookupOptions, Match, TablePlan};
use tantivy_dedup::Error;

/// The model: what the index should hold.
type Model = BTreeMap<u32, u64>;

fn scan_of(model: &Model) -> LinearScan {
    model
        .iter()
        .map(|(&id, &fp)| (id, Fingerprint(fp)))
        .collect()
}

fn pairs(matches: &[Match]) -> Vec<(u32, u32)> {
    matches.iter().map(|m| (m.id, m.distance)).collect()
}

/// Asserts that the index answers `query` at distance `k` exactly as `scan` (a scan of what
/// the index should hold), in the documented order `(distance, id)`, and that the
/// non-allocating form agrees.
fn assert_same(index: &FingerprintIndex, scan: &LinearScan, query: u64, k: u32) {
    let expected = pairs(&scan.query(Fingerprint(query), k));
    let got = index.query(Fingerprint(query), k);
    assert_eq!(
        pairs(&got),
        expected,
        "query {query:016x} k={k} max={} stats={:?}",
        index.max_distance(),
        index.stats()
    );
    let mut reused = vec![Match { id: 0, distance: 0 }; 3];
    index.query_into(Fingerprint(query), k, &mut reused);
    assert_eq!(reused, got);
}

/// Fingerprints near a few shared values, so that buckets overflow and clusters form.
fn fingerprint() -> impl Strategy<Value = u64> {
    let base = prop_oneof![
        Just(0u64),
        Just(u64::MAX),
        Just(0x0123_4567_89ab_cdef),
        Just(!0x0123_4567_89ab_cdefu64), // the complement of the previous base
        Just(0xffff_0000_0000_0000),
        any::<u64>(),
    ];
    let flips = prop::collection::vec(0u32..64, 0..5);
    prop_oneof![
        // Random.
        2 => any::<u64>(),
        // Clustered: a base with up to four bits flipped.
        3 => (base, flips).prop_map(|(b, flips)| flips.iter().fold(b, |f, &i| f ^ (1 << i))),
        // Adversarial skew: the low 16 bits shared by all, the rest random.
        2 => any::<u64>().prop_map(|r| (r & !0xffff) | 0x5a5a),
        // Two blocks shared: sub-tables overflow too.
        1 => any::<u32>().prop_map(|r| (u64::from(r) << 32) | 0x00c0_ffee),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u64),
    Remove(u32),
    Extend(Vec<(u32, u64)>),
    Compact,
    Query(u64),
}

fn op() -> impl Strategy<Value = Op> {
    // Few ids, so that inserts replace, removes hit, and removed ids come back.
    let id = 0u32..200;
    prop_oneof![
        12 => (id.clone(), fingerprint()).prop_map(|(id, fp)| Op::Insert(id, fp)),
        3 => id.clone().prop_map(Op::Remove),
        1 => prop::collection::vec((id, fingerprint()), 0..80).prop_map(Op::Extend),
        1 => Just(Op::Compact),
        3 => fingerprint().prop_map(Op::Query),
    ]
}

fn options() -> impl Strategy<Value = LookupOptions> {
    (
        0u32..=6,
        1usize..40,
        1usize..48,
        prop_oneof![Just(0.0), Just(0.85), Just(3.0)],
        prop_oneof![3 => Just(TablePlan::Flat), 1 => Just(TablePlan::TwoLevel)],
    )
        .prop_map(|(k, buffer, split, mu, plan)| {
            LookupOptions::new()
                .max_distance(k)
                .buffer_len(buffer)
                .split_min(split)
                .mu(mu)
                .plan(plan)
                .expected_len(64)
        })
}

/// Applies `op` to both the index and the model, checking the return values.
fn apply(index: &mut FingerprintIndex, model: &mut Model, op: &Op) {
    match *op {
        Op::Insert(id, fp) => {
            let previous = index.insert(id, Fingerprint(fp));
            assert_eq!(previous.map(|f| f.0), model.insert(id, fp), "insert {id}");
        }
        Op::Remove(id) => assert_eq!(index.remove(id), model.remove(&id).is_some(), "remove {id}"),
        Op::Extend(ref entries) => {
            index.extend(entries.iter().map(|&(id, fp)| (id, Fingerprint(fp))));
            model.extend(entries.iter().copied());
        }
        Op::Compact => {
            index.compact();
            assert_eq!(index.stats().removed_pending, 0);
            assert_eq!(index.stats().dead_slots, 0);
        }
        Op::Query(_) => {}
    }
}

/// Queries at the tables' distance, below it and above it (a scan), at the query
/// fingerprint itself and near stored values.
fn check_queries(index: &FingerprintIndex, model: &Model, query: u64) {
    let scan = scan_of(model);
    let max = index.max_distance();
    // Up to three bits picked by `query`, flipped in stored values: matches at distances 1
    // to 3 whose first agreeing block varies from query to query.
    let flips = (1 << (query % 64)) | (1 << ((query >> 6) % 64)) | (1 << ((query >> 12) % 64));
    let mut queries = vec![query, query ^ 0b101];
    for &fp in model.values().step_by(model.len() / 3 + 1) {
        queries.push(fp ^ flips);
    }
    for q in queries {
        assert_same(index, &scan, q, max);
        assert_same(index, &scan, q, max.saturating_sub(2));
        assert_same(index, &scan, q, max + 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn index_equals_scan_through_any_history(
        options in options(),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let mut index = options.build().unwrap();
        let mut model = Model::new();
        for op in &ops {
            apply(&mut index, &mut model, op);
            if let Op::Query(q) = *op {
                check_queries(&index, &model, q);
            }
        }
        prop_assert_eq!(index.len(), model.len());
        for id in 0..200 {
            prop_assert_eq!(index.get(id).map(|f| f.0), model.get(&id).copied());
            prop_assert_eq!(index.contains(id), model.contains_key(&id));
        }
        let mut stored: Vec<(u32, u64)> = index.iter().map(|(id, fp)| (id, fp.0)).collect();
        stored.sort_unstable();
        prop_assert_eq!(stored, model.iter().map(|(&id, &fp)| (id, fp)).collect::<Vec<_>>());
        check_queries(&index, &model, 0);
        index.compact();
        check_queries(&index, &model, u64::MAX);
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn bulk_build_equals_scan(
        options in options(),
        entries in prop::collection::vec((0u32..5000, fingerprint()), 0..500),
        queries in prop::collection::vec(fingerprint(), 1..4),
    ) {
        let index = options.build_from(entries.iter().map(|&(id, fp)| (id, Fingerprint(fp)))).unwrap();
        // Of repeated ids, the last one wins.
        let model: Model = entries.iter().copied().collect();
        prop_assert_eq!(index.len(), model.len());
        for q in queries {
            check_queries(&index, &model, q);
        }
    }

    #[test]
    fn all_pairs_and_batches_equal_brute_force(
        options in options(),
        entries in prop::collection::vec((0u32..400, fingerprint()), 0..250),
        removals in prop::collection::vec(0u32..400, 0..30),
        queries in prop::collection::vec(fingerprint(), 0..10),
    ) {
        let mut index = options.build().unwrap();
        let mut model = Model::new();
        for &(id, fp) in &entries {
            index.insert(id, Fingerprint(fp));
            model.insert(id, fp);
        }
        for id in removals {
            index.remove(id);
            model.remove(&id);
        }
        let scan = scan_of(&model);
        let max = index.max_distance();
        for k in [max, max.saturating_sub(1), max + 1] {
            prop_assert_eq!(index.all_pairs(k), scan.all_pairs(k), "k={}", k);
        }
        let queries: Vec<Fingerprint> = queries.into_iter().map(Fingerprint).collect();
        let batch = index.query_batch(&queries, max);
        prop_assert_eq!(batch.len(), queries.len());
        for (q, answer) in queries.iter().zip(batch) {
            prop_assert_eq!(answer, index.query(*q, max));
        }
    }
}

/// A deterministic pseudo-random sequence (splitmix64), so the fixed tests need no RNG crate.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn overflowing_buckets_are_split_and_stay_exact() {
    // 3000 fingerprints whose lowest 16-bit block is the same, then 1000 random ones: the
    // shared block's bucket overflows and is split on the remaining 48 bits.
    let mut state = 7;
    let mut model = Model::new();
    for id in 0..4000u32 {
        let r = splitmix(&mut state);
        model.insert(id, if id < 3000 { (r & !0xffff) | 0x1234 } else { r });
    }
    let index = LookupOptions::new()
        .split_min(64)
        .build_from(model.iter().map(|(&id, &fp)| (id, Fingerprint(fp))))
        .unwrap();
    let stats = index.stats();
    assert!(stats.split_buckets >= 1, "{stats:?}");
    assert!(stats.max_depth >= 1, "{stats:?}");
    // A query in the skewed bucket examines a few hundred entries, not 3000 of them.
    assert!(stats.worst_case_candidates < 3000, "{stats:?}");
    // Queries 3 bits from a stored value, one bit in each of three of the four 12-bit
    // sub-blocks of the split bucket (bits 16..64), so that each sub-table is the only one
    // to find some match.
    let scan = scan_of(&model);
    let centres = [22, 34, 46, 58];
    for (i, &fp) in model.values().enumerate().step_by(37) {
        let skip = centres[i % 4];
        let flips = centres
            .iter()
            .filter(|&&c| c != skip)
            .fold(0u64, |f, &c| f | 1 << c);
        for k in 0..=3 {
            assert_same(&index, &scan, fp ^ (1 << (i % 64)), k);
            assert_same(&index, &scan, fp ^ flips, k);
        }
    }
    // With split_min above the bucket's size, nothing is split.
    let unsplit = LookupOptions::new()
        .split_min(5000)
        .build_from(model.iter().map(|(&id, &fp)| (id, Fingerprint(fp))))
        .unwrap();
    assert_eq!(unsplit.stats().split_buckets, 0);
}

#[test]
fn identical_and_complementary_fingerprints() {
    let mut model = Model::new();
    for id in 0..300u32 {
        model.insert(id, 0);
        model.insert(1000 + id, u64::MAX);
        model.insert(2000 + id, 1 << (id % 64));
    }
    for k in 0..=6 {
        let index = LookupOptions::new()
            .max_distance(k)
            .split_min(8)
            .buffer_len(100)
            .build_from(model.iter().map(|(&id, &fp)| (id, Fingerprint(fp))))
            .unwrap();
        let scan = scan_of(&model);
        for q in [0, u64::MAX, 1, !1, 0b11, u64::MAX >> 32] {
            assert_same(&index, &scan, q, k);
        }
    }
}

#[test]
fn replacing_and_reinserting_ids() {
    let mut index = LookupOptions::new().buffer_len(4).build().unwrap();
    for id in 0..20 {
        index.insert(id, Fingerprint(u64::from(id) << 40));
    }
    // Replacing returns the old fingerprint; the old one is no longer found.
    assert_eq!(index.insert(3, Fingerprint(7)), Some(Fingerprint(3 << 40)));
    assert!(index.query(Fingerprint(3 << 40), 0).is_empty());
    assert_eq!(pairs(&index.query(Fingerprint(7), 0)), [(3, 0)]);
    // Removing hides at once; re-inserting before compaction stores only the new value.
    assert!(index.remove(5));
    assert!(!index.remove(5));
    assert_eq!(index.len(), 19);
    assert_eq!(index.stats().removed_pending, 1);
    assert!(index.query(Fingerprint(5 << 40), 0).is_empty());
    assert_eq!(index.insert(5, Fingerprint(9)), None);
    assert_eq!(index.stats().removed_pending, 0);
    assert!(!index
        .query(Fingerprint(5 << 40), 3)
        .iter()
        .any(|m| m.id == 5));
    assert_eq!(pairs(&index.query(Fingerprint(9), 0)), [(5, 0)]);
    assert_eq!(index.get(5), Some(Fingerprint(9)));
    index.remove(6);
    index.compact();
    assert_eq!(index.stats().removed_pending, 0);
    assert_eq!(index.stats().dead_slots, 0);
    assert_eq!(index.len(), 19);
    assert_eq!(index.get(6), None);
}

#[test]
fn queries_beyond_64_bits_match_everything() {
    let index: FingerprintIndex = (0..50)
        .map(|id| (id, Fingerprint(u64::from(id) * 0x0101_0101)))
        .collect();
    assert_eq!(index.query(Fingerprint(0), 64).len(), 50);
    assert_eq!(index.query(Fingerprint(0), u32::MAX).len(), 50);
    assert_eq!(index.all_pairs(64).len(), 50 * 49 / 2);
}

#[test]
fn invalid_options_are_errors() {
    for options in [
        LookupOptions::new().max_distance(65),
        LookupOptions::new().mu(f64::INFINITY),
        LookupOptions::new().split_min(0),
        LookupOptions::new().buffer_len(0),
    ] {
        assert!(matches!(options.build(), Err(Error::InvalidSetting { .. })));
    }
}

#[test]
fn large_distances_without_tables_are_exact() {
    let mut state = 3;
    let model: Model = (0..500).map(|id| (id, splitmix(&mut state))).collect();
    let index = LookupOptions::new()
        .max_distance(20)
        .build_from(model.iter().map(|(&id, &fp)| (id, Fingerprint(fp))))
        .unwrap();
    let scan = scan_of(&model);
    for &fp in model.values().take(5) {
        assert_same(&index, &scan, fp, 20);
        assert_same(&index, &scan, fp, 24);
    }
    assert_eq!(index.all_pairs(22), scan_of(&model).all_pairs(22));
}
