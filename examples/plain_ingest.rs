//! The baseline of `tantivy-dedup ingest`: a JSON-lines file indexed by a plain tantivy
//! `IndexWriter`, no fingerprints and no lookups, into a tantivy index of the schema
//! `ingest` makes (the corpus fields and the plugin's, left empty) with the crate's
//! tokenizer, without the crate's segment plugin, committed every N documents. What `ingest` costs beyond it is the price of deduplicating.
//!
//! ```sh
//! cargo run --release --example plain_ingest -- INDEX_DIR FILE.jsonl [COMMIT_EVERY] [MEMORY_MB]
//! ```
//!
//! `INDEX_DIR` must be missing or empty. `COMMIT_EVERY` defaults to 10,000 documents and
//! `MEMORY_MB` (tantivy's indexing budget, MiB) to 200, `ingest`'s defaults. A line holds
//! a record as `ingest` reads it: `"id"` (a string or a number), `"text"` or `"body"`, and
//! the optional `"title"`, `"url"` and `"tags"`; blank lines are skipped, any other line is
//! an error that ends the run. The last line printed (on standard error) counts the
//! documents, commits and seconds.

use std::io::BufRead;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::Value;
use tantivy::{Index, IndexWriter};
use tantivy_dedup::corpus::{corpus_schema, corpus_settings, CorpusFields, CorpusRecord};
use tantivy_dedup::plugin::register_tokenizer;
use tantivy_dedup::text::MixedTokenizer;

/// The record of one JSON line, with `ingest`'s field names.
fn record(line: &str) -> anyhow::Result<CorpusRecord> {
    let value: Value = serde_json::from_str(line)?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let id = match value.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        _ => bail!("no \"id\""),
    };
    let Some(body) = text("text").or_else(|| text("body")) else {
        bail!("no \"text\" or \"body\"");
    };
    let tags = match value.get("tags") {
        Some(Value::Array(tags)) => tags
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    Ok(CorpusRecord {
        id,
        text: body,
        title: text("title"),
        url: text("url"),
        tags,
    })
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: plain_ingest INDEX_DIR FILE.jsonl [COMMIT_EVERY] [MEMORY_MB]";
    let dir = PathBuf::from(args.next().context(usage)?);
    let file = PathBuf::from(args.next().context(usage)?);
    let commit_every: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let memory_mb: usize = args.next().map_or(Ok(200), |a| a.parse())?;
    anyhow::ensure!(commit_every > 0, "COMMIT_EVERY must be at least 1");
    if dir.join("meta.json").exists() {
        bail!(
            "{} holds an index already: give a new folder",
            dir.display()
        );
    }
    let start = Instant::now();
    // The schema `ingest` makes and the tokenizer of its settings, in a plain tantivy
    // index: no segment plugin, and no plugin field filled.
    let settings = corpus_settings();
    std::fs::create_dir_all(&dir)?;
    let index = Index::create_in_dir(&dir, corpus_schema(&settings)?)?;
    let tokenizer =
        MixedTokenizer::from_config(settings.get_matching().get_fingerprint().get_tokenizer())?;
    register_tokenizer(&index, tokenizer);
    let fields = CorpusFields::of(&index.schema())?;
    let mut writer: IndexWriter = index.writer(memory_mb << 20)?;
    let input = std::io::BufReader::with_capacity(
        1 << 20,
        std::fs::File::open(&file).with_context(|| format!("cannot open {}", file.display()))?,
    );
    let (mut documents, mut commits, mut pending) = (0usize, 0usize, 0usize);
    for (number, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", file.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = record(&line).with_context(|| format!("{}:{}", file.display(), number + 1))?;
        writer.add_document(fields.document(&record))?;
        documents += 1;
        pending += 1;
        if pending == commit_every {
            writer.commit()?;
            commits += 1;
            pending = 0;
        }
    }
    if pending > 0 || commits == 0 {
        writer.commit()?;
        commits += 1;
    }
    // Like `ingest`, the process ends after its last commit, without waiting for merges.
    eprintln!(
        "plain_ingest: {documents} documents, {commits} commits, {:.2} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
