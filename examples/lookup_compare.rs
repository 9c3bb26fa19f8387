//! Measures `FingerprintIndex` against the brute-force `LinearScan` on the same queries and
//! prints a Markdown table (the lookup section of `docs/BENCHMARKS.md`).
//!
//! ```text
//! cargo run --release --example lookup_compare                 # N = 1M and 10M
//! cargo run --release --example lookup_compare -- --n 2000000  # one size
//! cargo run --release --example lookup_compare -- --two-level  # also Manku's 16 tables
//! ```
//!
//! Other flags: `--queries Q` (default 10000), `--scan-queries S` (default 100),
//! `--inserts I` (one-by-one inserts into the largest random index, default 200000; at
//! least 1M are also inserted into an empty index; 0 skips both),
//! `--no-adversarial`.

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::lookup::{FingerprintIndex, LinearScan, LookupOptions, Match, TablePlan};

const K: u32 = 3;

struct Args {
    sizes: Vec<usize>,
    queries: usize,
    scan_queries: usize,
    inserts: usize,
    two_level: bool,
    adversarial: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        sizes: vec![1_000_000, 10_000_000],
        queries: 10_000,
        scan_queries: 100,
        inserts: 200_000,
        two_level: false,
        adversarial: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| -> anyhow::Result<usize> {
            let v = it.next().with_context(|| format!("{name} needs a value"))?;
            v.replace('_', "")
                .parse()
                .with_context(|| format!("{name}: not a number: {v}"))
        };
        match flag.as_str() {
            "--n" => args.sizes = vec![value("--n")?],
            "--queries" => args.queries = value("--queries")?,
            "--scan-queries" => args.scan_queries = value("--scan-queries")?.max(1),
            "--inserts" => args.inserts = value("--inserts")?,
            "--two-level" => args.two_level = true,
            "--no-adversarial" => args.adversarial = false,
            other => bail!("unknown flag {other}"),
        }
    }
    Ok(args)
}

#[path = "../benches/support/data.rs"]
mod data;

use data::{clustered, random, Rng};

/// Every fingerprint has the same lowest 16-bit block; the other 48 bits are random.
fn shared_block(n: usize, rng: &mut Rng) -> Vec<u64> {
    (0..n).map(|_| (rng.next() & !0xffff) | 0xbeef).collect()
}

/// `cluster` near-identical fingerprints (within 2 bits of one base) among random ones;
/// returns them and the base.
fn big_cluster(n: usize, cluster: usize, rng: &mut Rng) -> (Vec<u64>, u64) {
    let base = rng.next();
    let data = (0..n)
        .map(|i| {
            if i < cluster {
                let flips = rng.below(3) as u32;
                rng.flip(base, flips)
            } else {
                rng.next()
            }
        })
        .collect();
    (data, base)
}

/// Half planted near neighbours (a stored fingerprint with 0 to 3 bits flipped), half random.
fn make_queries(data: &[u64], count: usize, rng: &mut Rng) -> Vec<u64> {
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                let fp = data[rng.below(data.len() as u64) as usize];
                let flips = rng.below(4) as u32;
                rng.flip(fp, flips)
            } else {
                rng.next()
            }
        })
        .collect()
}

struct Timings {
    median: Duration,
    p99: Duration,
    max: Duration,
    mean_matches: f64,
}

fn time_queries(queries: &[u64], mut run: impl FnMut(u64, &mut Vec<Match>)) -> Timings {
    let mut out = Vec::new();
    let mut times = Vec::with_capacity(queries.len());
    let mut matches = 0usize;
    // Warm-up: page in the index and train the branch predictors.
    for &q in queries.iter().take(100) {
        run(q, &mut out);
    }
    for &q in queries {
        let start = Instant::now();
        run(q, &mut out);
        times.push(start.elapsed());
        matches += out.len();
    }
    times.sort_unstable();
    let at = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    Timings {
        median: at(0.5),
        p99: at(0.99),
        max: *times.last().expect("at least one query"),
        mean_matches: matches as f64 / queries.len() as f64,
    }
}

struct Row {
    data: String,
    n: usize,
    plan: &'static str,
    build: Duration,
    bytes_per_fp: f64,
    index: Timings,
    scan_median: Duration,
    worst_case: usize,
}

fn us(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e6)
}

/// Builds the index over `data`, times `queries` (by default half planted near neighbours,
/// half random) on it and on a scan of the same data.
fn measure(
    name: &str,
    data: &[u64],
    plan: TablePlan,
    args: &Args,
    rng: &mut Rng,
    queries: Option<Vec<u64>>,
) -> (Row, FingerprintIndex) {
    let entries = data
        .iter()
        .enumerate()
        .map(|(i, &fp)| (i as u32, Fingerprint(fp)));
    let start = Instant::now();
    let index = LookupOptions::new()
        .plan(plan)
        .build_from(entries)
        .expect("default options are valid");
    let build = start.elapsed();
    let queries = queries.unwrap_or_else(|| make_queries(data, args.queries, rng));
    let timings = time_queries(&queries, |q, out| index.query_into(Fingerprint(q), K, out));

    // The scan, on the first queries of the same list, on the same data.
    let scan: LinearScan = data
        .iter()
        .enumerate()
        .map(|(i, &fp)| (i as u32, Fingerprint(fp)))
        .collect();
    let scan_queries = &queries[..args.scan_queries.min(queries.len())];
    let scan_timings = time_queries(scan_queries, |q, out| {
        scan.query_into(Fingerprint(q), K, out)
    });
    for &q in scan_queries.iter().take(20) {
        assert_eq!(
            index.query(Fingerprint(q), K),
            scan.query(Fingerprint(q), K),
            "index and scan disagree on {q:016x}"
        );
    }
    let row = Row {
        data: name.to_owned(),
        n: data.len(),
        plan: match plan {
            TablePlan::TwoLevel => "two-level (16 tables)",
            _ => "flat (4 tables)",
        },
        build,
        bytes_per_fp: index.memory_usage().bytes_per_fingerprint,
        index: timings,
        scan_median: scan_timings.median,
        worst_case: index.stats().worst_case_candidates,
    };
    eprintln!(
        "{name} n={} {}: median {} us, p99 {} us, scan {} us, {:.1} B/fp, stats {:?}",
        row.n,
        row.plan,
        us(row.index.median),
        us(row.index.p99),
        us(row.scan_median),
        row.bytes_per_fp,
        index.stats()
    );
    (row, index)
}

/// Inserts `count` fresh fingerprints one at a time into `index`, querying before each
/// insert as an ingesting writer does; returns (mean insert, max insert, query timings).
fn ingest(
    index: &mut FingerprintIndex,
    count: usize,
    rng: &mut Rng,
) -> (Duration, Duration, Timings) {
    let first_id = index.len() as u32;
    let mut out = Vec::new();
    let mut query_times = Vec::with_capacity(count);
    let mut insert_total = Duration::ZERO;
    let mut insert_max = Duration::ZERO;
    for i in 0..count {
        let fp = Fingerprint(rng.next());
        let start = Instant::now();
        index.query_into(fp, K, &mut out);
        let queried = Instant::now();
        index.insert(first_id + i as u32, fp);
        let inserted = queried.elapsed();
        query_times.push(queried - start);
        insert_total += inserted;
        insert_max = insert_max.max(inserted);
    }
    query_times.sort_unstable();
    let at =
        |p: f64| query_times[((query_times.len() as f64 * p) as usize).min(query_times.len() - 1)];
    let timings = Timings {
        median: at(0.5),
        p99: at(0.99),
        max: *query_times.last().unwrap_or(&Duration::ZERO),
        mean_matches: 0.0,
    };
    (insert_total / count.max(1) as u32, insert_max, timings)
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let mut rng = Rng(0x5eed);
    let mut rows = Vec::new();
    let mut largest: Option<FingerprintIndex> = None;
    let plans: &[TablePlan] = if args.two_level {
        &[TablePlan::Flat, TablePlan::TwoLevel]
    } else {
        &[TablePlan::Flat]
    };
    for &n in &args.sizes {
        let data = random(n, &mut rng);
        for &plan in plans {
            let (row, index) = measure("random", &data, plan, &args, &mut rng, None);
            rows.push(row);
            if plan == TablePlan::Flat {
                largest = Some(index);
            }
        }
        drop(data);
        let data = clustered(n, &mut rng);
        let (row, _) = measure("clustered", &data, TablePlan::Flat, &args, &mut rng, None);
        rows.push(row);
    }
    if args.adversarial {
        let n = 1_000_000;
        let data = shared_block(n, &mut rng);
        let name = "1M share one 16-bit block";
        rows.push(measure(name, &data, TablePlan::Flat, &args, &mut rng, None).0);
        let (data, base) = big_cluster(n, 100_000, &mut rng);
        let name = "100k within 2 bits of one base + 900k random";
        rows.push(measure(name, &data, TablePlan::Flat, &args, &mut rng, None).0);
        // Queries 6 bits from the base: at least 4 from every cluster member, so no answer
        // comes from the cluster, but the cluster fills the buckets they probe.
        let near_misses = (0..args.queries).map(|_| rng.flip(base, 6)).collect();
        let name = "same, queries 6 bits from the base (near misses)";
        rows.push(
            measure(
                name,
                &data,
                TablePlan::Flat,
                &args,
                &mut rng,
                Some(near_misses),
            )
            .0,
        );
    }

    println!("| data | N | tables | build (s) | bytes/fp | median (µs) | p99 (µs) | max (µs) | matches/query | scan median (µs) | scan / index | worst-case candidates |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.2} | {:.1} | {} | {} | {} | {:.1} | {} | {:.0}x | {} |",
            r.data,
            r.n,
            r.plan,
            r.build.as_secs_f64(),
            r.bytes_per_fp,
            us(r.index.median),
            us(r.index.p99),
            us(r.index.max),
            r.index.mean_matches,
            us(r.scan_median),
            r.scan_median.as_secs_f64() / r.index.median.as_secs_f64(),
            r.worst_case,
        );
    }

    if args.inserts > 0 {
        println!();
        println!("| ingest: query, then insert, one at a time | inserts | mean insert (µs) | max insert (ms) | query median (µs) | query p99 (µs) | runs after | bytes/fp after |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        let mut report = |name: String, index: &mut FingerprintIndex, count: usize| {
            let (mean, max, queries) = ingest(index, count, &mut rng);
            println!(
                "| {name} | {count} | {} | {:.1} | {} | {} | {} | {:.1} |",
                us(mean),
                max.as_secs_f64() * 1e3,
                us(queries.median),
                us(queries.p99),
                index.stats().runs,
                index.memory_usage().bytes_per_fingerprint,
            );
        };
        let mut empty = FingerprintIndex::new();
        report(
            "into an empty index".to_owned(),
            &mut empty,
            args.inserts.max(1_000_000),
        );
        drop(empty);
        if let Some(mut index) = largest {
            let name = format!("into the random index of {}", index.len());
            report(name, &mut index, args.inserts);
        }
    }
    Ok(())
}
