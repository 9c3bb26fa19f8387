//! What handing tantivy a body already tokenized costs: the documents of
//! `benches/ingest.rs` indexed by a plain `IndexWriter` (2 indexing threads), the body as
//! text (tantivy's threads run the index's tokenizer) and as a `PreTokenizedString` of the
//! same tokenizer's tokens, made on the calling thread. The question behind it: whether
//! the plugin, which tokenizes every body already, could spare tantivy its own pass.
//!
//! ```sh
//! TANTIVY_DEDUP_INGEST_DOCS=data/reuters.jsonl cargo run --release --example pretokenized_cost
//! ```
//!
//! Prints the medians of 11 rounds (after one to warm up) of the wall time and of the
//! process's CPU time (`/proc/self/stat`, Linux only, in ticks of 1/100 s).

use std::time::Instant;

use anyhow::Context;
use tantivy::schema::Schema;
use tantivy::tokenizer::{PreTokenizedString, TokenStream, Tokenizer};
use tantivy::{Index, IndexWriter, TantivyDocument};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::plugin::{register_tokenizer, text_field_options, DedupSettings};
use tantivy_dedup::text::MixedTokenizer;

#[path = "../benches/support/ingest_docs.rs"]
mod ingest_docs;

const ROUNDS: usize = 11;

/// CPU seconds of this process (all threads, living and ended), from `/proc/self/stat`.
fn process_cpu() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')').context("malformed /proc/self/stat")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Ok((fields[11].parse::<f64>()? + fields[12].parse::<f64>()?) / 100.0)
}

/// One ingest of `docs`, the body pre-tokenized or not; (wall, CPU) seconds.
fn ingest(docs: &[(String, String)], schema: &Schema, pre: bool) -> anyhow::Result<(f64, f64)> {
    let index = Index::create_in_ram(schema.clone());
    register_tokenizer(&index, MixedTokenizer::new());
    let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);
    let mut writer: IndexWriter = index.writer_with_num_threads(2, 100_000_000)?;
    let mut tokenizer = MixedTokenizer::new();
    let (wall, cpu) = (Instant::now(), process_cpu()?);
    for (id, text) in docs {
        let mut document = TantivyDocument::new();
        document.add_text(url, id);
        if pre {
            let mut stream = tokenizer.token_stream(text);
            let mut tokens = Vec::new();
            while stream.advance() {
                tokens.push(stream.token().clone());
            }
            let text = text.clone();
            document.add_pre_tokenized_text(body, PreTokenizedString { text, tokens });
        } else {
            document.add_text(body, text);
        }
        writer.add_document(document)?;
    }
    writer.commit()?;
    Ok((wall.elapsed().as_secs_f64(), process_cpu()? - cpu))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let (docs, source) = ingest_docs::documents();
    let settings = DedupSettings::new(["body"])
        .key_field("url")
        .matching(MatchingSettings::default().verification(None));
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema)?;
    let schema = schema.build();
    println!(
        "{} documents from {source}; medians of {ROUNDS} rounds",
        docs.len()
    );
    let mut samples = [Vec::new(), Vec::new()];
    for round in 0..=ROUNDS {
        for (pre, sample) in samples.iter_mut().enumerate() {
            let measured = ingest(&docs, &schema, pre == 1)?;
            if round > 0 {
                sample.push(measured);
            }
        }
    }
    for (name, sample) in ["body as text", "body pre-tokenized"].iter().zip(samples) {
        let wall = median(sample.iter().map(|s| s.0).collect());
        let cpu = median(sample.iter().map(|s| s.1).collect());
        println!("{name}: wall {wall:.3} s, CPU {cpu:.2} s");
    }
    Ok(())
}
