//! Fingerprinting throughput on JSON-lines corpora, single-threaded, for the side-by-side
//! comparison with the Python peers (`scripts/compare-throughput.sh`).
//!
//! ```sh
//! cargo run --release --example throughput -- data/english.jsonl data/chinese.jsonl
//! ```
//!
//! Prints one JSON object per configuration and corpus:
//! `{"tool":"tantivy-dedup","config":"words/tf","corpus":"english","docs":..,"bytes":..,"seconds":..,"mb_per_s":..}`.
//! `seconds` is the best of eight runs of fingerprinting only (the corpus is loaded first),
//! the configurations taking turns round by round; `cpu_seconds` is the best on-CPU time of
//! this thread (Linux `schedstat`), which time stolen by other jobs does not inflate.
//! The `jieba-cut-only` row is jieba-rs segmentation alone on the same texts: the baseline
//! for the cost of fingerprinting Chinese.

use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use tantivy_dedup::fingerprint::SimHasher;

#[path = "../benches/support/configs.rs"]
mod configs;

fn load(path: &Path) -> anyhow::Result<Vec<String>> {
    let file = std::fs::File::open(path).with_context(|| format!("open {}", path.display()))?;
    let mut texts = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("read {}:{}", path.display(), number + 1))?;
        let value: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("parse {}:{}", path.display(), number + 1))?;
        if let Some(text) = value.get("text").and_then(|t| t.as_str()) {
            texts.push(text.to_owned());
        }
    }
    Ok(texts)
}

/// Rounds: every configuration is timed once per round, so that a slow moment of the machine
/// (seen here: the same work twice as slow for seconds at a time) hits all of them alike.
const ROUNDS: usize = 8;

/// Nanoseconds this thread has spent on a CPU, where Linux tells (`/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// One timed job: fingerprinting (or segmenting) a text, returning something to keep.
type Work<'a> = Box<dyn FnMut(&str) -> u64 + 'a>;

/// The best wall time and on-CPU time seen so far for one configuration.
#[derive(Clone, Copy)]
struct Best {
    seconds: f64,
    cpu_seconds: Option<f64>,
}

impl Best {
    const NONE: Best = Best {
        seconds: f64::INFINITY,
        cpu_seconds: None,
    };

    /// Times one run of `work` over every text and keeps the better times.
    fn run(&mut self, texts: &[String], work: &mut dyn FnMut(&str) -> u64) {
        let cpu_start = thread_cpu_ns();
        let start = Instant::now();
        let sink = texts
            .iter()
            .fold(0u64, |sink, text| sink.wrapping_add(work(text)));
        self.seconds = self.seconds.min(start.elapsed().as_secs_f64());
        std::hint::black_box(sink);
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu_ns()) {
            let cpu = (b - a) as f64 / 1e9;
            self.cpu_seconds = Some(self.cpu_seconds.map_or(cpu, |c| c.min(cpu)));
        }
    }
}

fn report(config: &str, corpus: &str, texts: &[String], best: Best) {
    let Best {
        seconds,
        cpu_seconds,
    } = best;
    let bytes: usize = texts.iter().map(String::len).sum();
    let line = serde_json::json!({
        "tool": "tantivy-dedup",
        "config": config,
        "corpus": corpus,
        "docs": texts.len(),
        "bytes": bytes,
        "seconds": seconds,
        "mb_per_s": bytes as f64 / 1e6 / seconds,
        "cpu_seconds": cpu_seconds,
        "mb_per_s_cpu": cpu_seconds.map(|s| bytes as f64 / 1e6 / s),
    });
    println!("{line}");
}

fn main() -> anyhow::Result<()> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(!paths.is_empty(), "usage: throughput FILE.jsonl...");
    let configs = configs::configs();
    let jieba = jieba_rs::Jieba::new();
    let hashers = configs
        .iter()
        .map(|(name, config)| Ok((*name, SimHasher::new(config)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for path in &paths {
        let path = Path::new(path);
        let corpus = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("corpus")
            .to_owned();
        let texts = load(path)?;
        let mut workers: Vec<(&str, Work<'_>)> = hashers
            .iter()
            .map(|(name, hasher)| {
                // Warm the lazily loaded tables outside the timed runs.
                let _ = hasher.fingerprint("预热 warm-up 預熱");
                let work = move |t: &str| hasher.fingerprint(t).map_or(0, |f| f.bits());
                (*name, Box::new(work) as Work<'_>)
            })
            .collect();
        workers.push((
            "jieba-cut-only",
            Box::new(|t: &str| jieba.cut(t, true).len() as u64),
        ));
        let mut best = vec![Best::NONE; workers.len()];
        for _ in 0..ROUNDS {
            for ((_, work), best) in workers.iter_mut().zip(&mut best) {
                best.run(&texts, work.as_mut());
            }
        }
        for ((name, _), best) in workers.iter().zip(best) {
            report(name, &corpus, &texts, best);
        }
    }
    Ok(())
}
