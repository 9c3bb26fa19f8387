//! Lookup benchmarks: `FingerprintIndex` queries with the brute-force `LinearScan` as the
//! baseline in the same run, the same 1M fingerprints split into 10 to 100 tables (a lookup
//! per segment) against one, inserts, and bulk builds, at N = 1M, k = 3; and the candidate
//! stage of two-stage matching, `BandIndex` against the scan at 16 bits it replaces.
//!
//! `cargo bench --bench lookup` (about three minutes). For 10M and the adversarial cases, see
//! `examples/lookup_compare.rs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::lookup::{BandIndex, FingerprintIndex, LinearScan, LookupOptions, Match};

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

/// One query against 1M fingerprints split into S tables, as a lookup that probes each
/// segment's own structures would: S = 1 is one global table, the baseline of the same run.
/// The figure that decides whether per-segment tables need a global summary.
fn bench_segments(c: &mut Criterion) {
    let mut rng = Rng(5);
    let data = random(N, &mut rng);
    let queries = queries(&data, &mut rng);
    let mut group = c.benchmark_group("query_1M_k3_by_segments");
    group.throughput(Throughput::Elements(1));
    let mut out: Vec<Match> = Vec::new();
    for segments in [1usize, 10, 30, 100] {
        let tables: Vec<FingerprintIndex> = data
            .chunks(N.div_ceil(segments))
            .map(|chunk| entries(chunk).collect())
            .collect();
        let mut i = 0;
        group.bench_with_input(
            BenchmarkId::from_parameter(segments),
            &tables,
            |b, tables| {
                b.iter(|| {
                    i = (i + 1) % queries.len();
                    let mut found = 0;
                    for table in tables {
                        table.query_into(black_box(queries[i]), K, &mut out);
                        found += out.len();
                    }
                    found
                })
            },
        );
    }
    group.finish();
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

/// The 128-value signature of document `id`: random values, as MinHash gives unrelated
/// documents.
fn signature(id: u32) -> Vec<u32> {
    let mut rng = Rng(u64::from(id) << 8 | 0x5a);
    (0..128).map(|_| rng.next() as u32).collect()
}

/// The candidate stage at N = 1M: `BandIndex` (32 bands of 4 values) against the scan of
/// every fingerprint within 16 bits that `CandidateStage::Scan` does. Half the queries are a
/// stored document with 40% of its values changed (Jaccard about 0.6), half unrelated.
fn bench_candidates(c: &mut Criterion) {
    let mut rng = Rng(4);
    let fingerprints = random(N, &mut rng);
    let mut bands = BandIndex::new(32, 4).expect("valid");
    let all: Vec<(u32, Vec<u32>)> = (0..N as u32).map(|id| (id, signature(id))).collect();
    let mut build = c.benchmark_group("bands_build");
    build.sample_size(10);
    build.throughput(Throughput::Elements(N as u64));
    build.bench_function("extend_1M", |b| {
        b.iter(|| {
            let mut index = BandIndex::new(32, 4).expect("valid");
            index.extend(all.iter().map(|(id, s)| (*id, s.as_slice())));
            index
        })
    });
    build.finish();
    bands.extend(all.iter().map(|(id, s)| (*id, s.as_slice())));
    drop(all);
    let scan: LinearScan = entries(&fingerprints).collect();
    let queries: Vec<(Fingerprint, Vec<u32>)> = (0..1024)
        .map(|i| {
            if i % 2 == 0 {
                let id = rng.below(N as u64) as u32;
                let mut s = signature(id);
                for v in &mut s {
                    if rng.below(10) < 4 {
                        *v = rng.next() as u32;
                    }
                }
                (Fingerprint(rng.flip(fingerprints[id as usize], 10)), s)
            } else {
                (Fingerprint(rng.next()), signature(u32::MAX - i))
            }
        })
        .collect();
    let mut group = c.benchmark_group("candidates_1M");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    let mut ids = Vec::new();
    group.bench_function("bands", |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            bands.candidates_into(black_box(&queries[i].1), &mut ids);
            ids.len()
        })
    });
    let mut out: Vec<Match> = Vec::new();
    group.sample_size(10);
    group.bench_function("scan_16_bits", |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            scan.query_into(black_box(queries[i].0), 16, &mut out);
            out.len()
        })
    });
    group.finish();
    eprintln!(
        "BandIndex of 1M signatures: {:.0} bytes per document",
        bands.memory_bytes() as f64 / N as f64
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_queries, bench_segments, bench_insert, bench_build, bench_candidates
}
criterion_main!(benches);
