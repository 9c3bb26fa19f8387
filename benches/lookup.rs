//! Lookup benchmarks: `FingerprintIndex` queries with the brute-force `LinearScan` as the
//! baseline in the same run, inserts, and bulk builds, at N = 1M, k = 3.
//!
//! `cargo bench --bench lookup` (about two minutes). For 10M and the adversarial cases, see
//! `examples/lookup_compare.rs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use tantivy_dedup::lookup::{FingerprintIndex, LinearScan, LookupOptions, Match};
use tantivy_dedup::Fingerprint;

const N: usize = 1_000_000;
const K: u32 = 3;

#[path = "support/data.rs"]
mod data;

use data::{clustered, random, Rng};

fn entries(data: &[u64]) -> impl Iterator<Item = (u32, Fingerprint)> + '_ {
    data.iter()
        .enumerate()
        .map(|(i, &fp)| (i as u32, Fingerprint(fp)))
}

/// Half planted near neighbours (a stored value with up to 3 bits flipped), half random.
fn queries(data: &[u64], rng: &mut Rng) -> Vec<Fingerprint> {
    (0..4096)
        .map(|i| {
            if i % 2 == 0 {
                let fp = data[rng.below(data.len() as u64) as usize];
                let flips = rng.below(4) as u32;
                Fingerprint(rng.flip(fp, flips))
            } else {
                Fingerprint(rng.next())
            }
        })
        .collect()
}

fn bench_queries(c: &mut Criterion) {
    let mut rng = Rng(1);
    for (name, data) in [
        ("random", random(N, &mut rng)),
        ("clustered", clustered(N, &mut rng)),
    ] {
        let index: FingerprintIndex = entries(&data).collect();
        let scan: LinearScan = entries(&data).collect();
        let queries = queries(&data, &mut rng);
        let mut group = c.benchmark_group(format!("query_1M_k3/{name}"));
        group.throughput(Throughput::Elements(1));
        let mut out: Vec<Match> = Vec::new();
        let mut i = 0;
        group.bench_function("index", |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                index.query_into(black_box(queries[i]), K, &mut out);
                out.len()
            })
        });
        // The baseline: same data, same queries, same run.
        group.sample_size(10);
        group.bench_function("scan", |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                scan.query_into(black_box(queries[i]), K, &mut out);
                out.len()
            })
        });
        group.finish();
    }
}

fn bench_insert(c: &mut Criterion) {
    let mut rng = Rng(2);
    let data = random(N, &mut rng);
    let mut index: FingerprintIndex = entries(&data).collect();
    let mut group = c.benchmark_group("insert_into_1M");
    group.throughput(Throughput::Elements(1));
    // One insert at a time, amortized over buffer flushes and run merges (the index grows
    // by the number of iterations, far less than N).
    let mut id = N as u32;
    group.bench_function("insert", |b| {
        b.iter(|| {
            id += 1;
            index.insert(id, Fingerprint(rng.next()))
        })
    });
    group.finish();
}

fn bench_build(c: &mut Criterion) {
    let mut rng = Rng(3);
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for n in [100_000, N] {
        let data = random(n, &mut rng);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("bulk", n), &data, |b, data| {
            b.iter_batched(
                || entries(data).collect::<Vec<_>>(),
                |batch| LookupOptions::new().build_from(batch).expect("valid"),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_queries, bench_insert, bench_build
}
criterion_main!(benches);
