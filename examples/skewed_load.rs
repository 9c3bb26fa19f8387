//! The worst corpus for a near-duplicate index: every document a near-duplicate of every
//! other. Times `DedupWriter` ingest under Reject and Flag, and the deduplicating collector
//! on a query that matches every document, with and without skipping flagged documents.
//!
//! ```sh
//! cargo run --release --example skewed_load -- [DOCUMENTS]   # default 100,000
//! ```
//!
//! Figures: `docs/RELIABILITY.md`, "Skewed data". CI runs it on 20,000 documents: an ingest
//! that turned quadratic again (as Flag once did) would not finish.

use std::time::Instant;

use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Schema};
use tantivy::{doc, Index, Term};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings, Policy};

fn main() -> anyhow::Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let base = "the same press release sent to every site on the web with a different \
                greeting line and otherwise the same three paragraphs about the product launch \
                and its price and where to buy it";
    for (policy, flagging) in [(Policy::Reject, false), (Policy::Flag, true)] {
        let settings = DedupSettings::new(["body"])
            .key_field("url")
            .flagging(flagging);
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", text_field_options());
        settings.add_fields(&mut schema)?;
        let schema = schema.build();
        let url = schema.get_field("url")?;
        let index = DedupIndex::create(Index::create_in_ram(schema), settings)?;
        let writer = index.writer(policy, 200_000_000)?;
        let started = Instant::now();
        let mut slowest = 0f64;
        for i in 0..n {
            // Case and punctuation variants, and a greeting word: all within a few bits.
            let text = match i % 3 {
                0 => format!("{base} hello"),
                1 => format!("{base} hello").to_uppercase(),
                _ => format!("{}, hi", base.replace(' ', ", ")),
            };
            let one = Instant::now();
            writer.add(doc!(url => format!("page-{i}"), body => text))?;
            slowest = slowest.max(one.elapsed().as_secs_f64());
            if i % 10_000 == 9_999 {
                writer.commit()?;
            }
        }
        writer.commit()?;
        let seconds = started.elapsed().as_secs_f64();
        let searcher = writer.searcher();
        let expected = if flagging { n as u64 } else { 1 };
        anyhow::ensure!(
            searcher.num_docs() == expected,
            "{policy:?} kept {} documents, not {expected}",
            searcher.num_docs()
        );
        println!(
            "{policy:?}: {n} near-identical documents ingested in {seconds:.2} s \
             ({:.1} us a document, slowest add {:.2} ms incl. commits); {} in the index",
            seconds * 1e6 / n as f64,
            slowest * 1e3,
            searcher.num_docs()
        );
        let query = TermQuery::new(
            Term::from_field_text(body, "press"),
            IndexRecordOption::WithFreqs,
        );
        let mut collectors = vec![("collector", index.collector(10))];
        if flagging {
            collectors.push((
                "collector, flagged not skipped",
                tantivy_dedup::plugin::DedupCollector::new(
                    tantivy_dedup::plugin::FINGERPRINT_FIELD,
                    10,
                ),
            ));
        }
        for (name, collector) in collectors {
            let mut best = f64::MAX;
            let mut page = None;
            for _ in 0..5 {
                let one = Instant::now();
                page = Some(collector.search(&searcher, &query)?);
                best = best.min(one.elapsed().as_secs_f64());
            }
            let page = page.expect("five searches ran");
            anyhow::ensure!(page.hits.len() == 1, "{name}: one group, one hit shown");
            println!(
                "  {name}: best of 5 {:.2} ms for {} matches: {} shown, {} hidden",
                best * 1e3,
                searcher.num_docs(),
                page.hits.len(),
                page.hidden_total
            );
        }
    }
    Ok(())
}
