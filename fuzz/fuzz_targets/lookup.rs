//! Inserts, removes, compactions and queries on `FingerprintIndex`, each query checked
//! against the brute-force `LinearScan` of the same entries.
#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::lookup::{FingerprintIndex, LinearScan};

#[derive(Arbitrary, Debug)]
enum Op {
    Insert {
        id: u8,
        fingerprint: u64,
    },
    /// A fingerprint a few bits from an earlier one: the clustered case block tables find hard.
    InsertNear {
        id: u8,
        of: u8,
        flips: u64,
    },
    Remove {
        id: u8,
    },
    Compact,
    Query {
        fingerprint: u64,
        k: u8,
    },
}

fuzz_target!(|ops: Vec<Op>| {
    let mut index = FingerprintIndex::new();
    let mut model: BTreeMap<u32, u64> = BTreeMap::new();
    for op in ops {
        match op {
            Op::Insert { id, fingerprint } => {
                index.insert(u32::from(id), Fingerprint(fingerprint));
                model.insert(u32::from(id), fingerprint);
            }
            Op::InsertNear { id, of, flips } => {
                let base = model.get(&u32::from(of)).copied().unwrap_or(0);
                // At most three bits flipped.
                let mask = (1u64 << (flips % 64))
                    | (1u64 << ((flips >> 8) % 64))
                    | (1u64 << ((flips >> 16) % 64));
                index.insert(u32::from(id), Fingerprint(base ^ mask));
                model.insert(u32::from(id), base ^ mask);
            }
            Op::Remove { id } => {
                assert_eq!(
                    index.remove(u32::from(id)),
                    model.remove(&u32::from(id)).is_some()
                );
            }
            Op::Compact => index.compact(),
            Op::Query { fingerprint, k } => {
                let k = u32::from(k % 8);
                let mut scan = LinearScan::new();
                for (&id, &fp) in &model {
                    scan.push(id, Fingerprint(fp));
                }
                let mut expected: Vec<(u32, u32)> = scan
                    .query(Fingerprint(fingerprint), k)
                    .iter()
                    .map(|m| (m.id, m.distance))
                    .collect();
                let mut got: Vec<(u32, u32)> = index
                    .query(Fingerprint(fingerprint), k)
                    .iter()
                    .map(|m| (m.id, m.distance))
                    .collect();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, expected);
            }
        }
        assert_eq!(index.len(), model.len());
    }
});
