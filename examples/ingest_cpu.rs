//! Where the CPU of an ingest goes: the documents of `benches/ingest.rs` indexed by a plain
//! `IndexWriter` and by a `DedupWriter` (fingerprints only, and the default two-stage
//! matching), with the wall time, the CPU time of the whole process and that of the calling
//! thread, which is where `DedupWriter::add` fingerprints and signs.
//!
//! ```sh
//! cargo run --release --example ingest_cpu            # 2 indexing threads, as the bench
//! cargo run --release --example ingest_cpu -- 1 9     # 1 indexing thread, 9 rounds
//! cargo run --release --example ingest_cpu -- 8 5 8   # 8 indexing threads, add_all on 8
//! ```
//!
//! The arguments are the indexing threads, the rounds, and the threads of the rayon pool
//! that `DedupWriter::add_all` fingerprints on (default: one per core). The `add_all` rows
//! show where the ceiling moves when the fingerprints leave the calling thread: on a
//! machine with more cores than indexing threads they run beside the indexing.
//!
//! When tantivy's indexing threads keep every core busy, the caller's work `F` is added to
//! theirs, `W`, and the ingest ratio is at most `W / (W + F)`; with a core to spare, `F`
//! runs beside `W`. The table gives the medians of the rounds (the writers take turns
//! round by round) and both ratios. Linux only: process CPU from `/proc/self/stat` in clock
//! ticks of 1/100 s (`USER_HZ`, 100 on Linux's common configurations), the calling
//! thread's from `/proc/thread-self/schedstat` (kernels with scheduler statistics).

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use tantivy::schema::Schema;
use tantivy::{doc, Index, IndexWriter};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::matching::TextMatcher;
use tantivy_dedup::plugin::{
    register_tokenizer, text_field_options, DedupIndex, DedupSettings, DedupWriter, Policy,
};
use tantivy_dedup::text::MixedTokenizer;

#[path = "../benches/support/ingest_docs.rs"]
mod ingest_docs;

const MEMORY: usize = 100_000_000;

/// CPU seconds of this process (all threads, living and ended), from `/proc/self/stat`.
fn process_cpu() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')').context("malformed /proc/self/stat")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    // utime and stime are in clock ticks, 100 a second on Linux.
    Ok(ticks / 100.0)
}

/// CPU seconds of the calling thread, from `/proc/thread-self/schedstat` (nanoseconds).
fn thread_cpu() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")?;
    let ns: f64 = stat
        .split_whitespace()
        .next()
        .context("empty schedstat")?
        .parse()?;
    Ok(ns / 1e9)
}

/// How documents go in.
#[derive(Clone, Copy, PartialEq)]
enum Path {
    /// `IndexWriter::add_document`.
    Plain,
    /// `DedupWriter::add`, one at a time from the calling thread.
    Add,
    /// `DedupWriter::add_all`: fingerprints on the rayon pool.
    AddAll,
}

/// The writers compared: the name, the settings and the path; shingle weights are
/// learned from `docs` themselves (as `ingest --idf-from` the input learns them).
fn writers(docs: &[(String, String)]) -> anyhow::Result<Vec<(&'static str, DedupSettings, Path)>> {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let fingerprints = settings
        .clone()
        .matching(MatchingSettings::default().verification(None));
    let weights = TextMatcher::new(settings.get_matching())?
        .learn_weights(docs.iter().map(|(_, text)| text.as_str()))?;
    let weighted = settings.clone().shingle_weights(Arc::new(weights));
    Ok(vec![
        ("plain IndexWriter", fingerprints.clone(), Path::Plain),
        ("fingerprints only, add", fingerprints.clone(), Path::Add),
        ("fingerprints only, add_all", fingerprints, Path::AddAll),
        ("default (verified), add", settings.clone(), Path::Add),
        ("default (verified), add_all", settings, Path::AddAll),
        ("shingle weights, add_all", weighted, Path::AddAll),
    ])
}

fn schema(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings
        .add_fields(&mut schema)
        .expect("a new schema takes the plugin fields");
    schema.build()
}

/// One ingest of `docs` by the path given (`DedupWriter` with `Reject`).
fn ingest(
    docs: &[(String, String)],
    settings: &DedupSettings,
    path: Path,
    threads: usize,
) -> anyhow::Result<()> {
    if path != Path::Plain {
        let index = DedupIndex::create(Index::create_in_ram(schema(settings)), settings.clone())?;
        let schema = index.index().schema();
        let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);
        let writer: IndexWriter = index.index().writer_with_num_threads(threads, MEMORY)?;
        let writer = DedupWriter::new(index.clone(), writer, Policy::Reject)?;
        let documents = docs
            .iter()
            .map(|(id, text)| doc!(url => id.as_str(), body => text.as_str()));
        if path == Path::AddAll {
            for outcome in writer.add_all(documents) {
                outcome?;
            }
        } else {
            for document in documents {
                writer.add(document)?;
            }
        }
        writer.commit()?;
    } else {
        let index = Index::create_in_ram(schema(settings));
        register_tokenizer(&index, MixedTokenizer::new());
        let schema = index.schema();
        let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);
        let mut writer: IndexWriter = index.writer_with_num_threads(threads, MEMORY)?;
        for (id, text) in docs {
            writer.add_document(doc!(url => id.as_str(), body => text.as_str()))?;
        }
        writer.commit()?;
    }
    Ok(())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().map_or(Ok(2), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(5), |a| a.parse())?;
    anyhow::ensure!(rounds > 0, "ROUNDS must be at least 1");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool: usize = args.next().map_or(Ok(cores), |a| a.parse())?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(pool)
        .build_global()
        .context("cannot start the rayon pool")?;
    let (docs, source) = ingest_docs::documents();
    let bytes: usize = docs.iter().map(|(_, t)| t.len()).sum();
    println!(
        "{} documents, {:.1} MB, from {source}; {threads} indexing thread(s), {cores} core(s), \
         add_all on {pool} thread(s), medians of {rounds} rounds",
        docs.len(),
        bytes as f64 / 1e6,
    );
    let writers = writers(&docs)?;
    // [writer][round] = (wall, process CPU, caller CPU)
    let mut samples = vec![Vec::new(); writers.len()];
    // A first round to load the dictionaries and warm the allocator, not counted.
    for round in 0..=rounds {
        for (i, (_, settings, path)) in writers.iter().enumerate() {
            let (wall, cpu, caller) = (Instant::now(), process_cpu()?, thread_cpu()?);
            ingest(&docs, settings, *path, threads)?;
            let sample = (
                wall.elapsed().as_secs_f64(),
                process_cpu()? - cpu,
                thread_cpu()? - caller,
            );
            if round > 0 {
                samples[i].push(sample);
            }
        }
    }
    let medians: Vec<[f64; 3]> = samples
        .iter()
        .map(|s| {
            [
                median(&mut s.iter().map(|x| x.0).collect::<Vec<_>>()),
                median(&mut s.iter().map(|x| x.1).collect::<Vec<_>>()),
                median(&mut s.iter().map(|x| x.2).collect::<Vec<_>>()),
            ]
        })
        .collect();
    let [plain_wall, plain_cpu, plain_caller] = medians[0];
    println!();
    println!(
        "| writer | wall s | CPU s | caller CPU s | ratio by wall | ratio by CPU | W / (W + F) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for ((name, _, _), [wall, cpu, caller]) in writers.iter().zip(&medians) {
        // W: the plain ingest's CPU; F: what the caller spends beyond the plain caller's.
        let f = (caller - plain_caller).max(0.0);
        println!(
            "| {name} | {wall:.3} | {cpu:.2} | {caller:.3} | {:.2} | {:.2} | {:.2} |",
            plain_wall / wall,
            plain_cpu / cpu,
            plain_cpu / (plain_cpu + f),
        );
    }
    Ok(())
}
