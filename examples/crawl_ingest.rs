//! Ingest crawled pages with near-duplicate rejection, in two crawl rounds, and report the
//! rejects.
//!
//! ```sh
//! cargo run --example crawl_ingest [PAGES.jsonl]
//! ```
//!
//! The pages are the sample corpus (`samples/corpus.jsonl`), real text fetched from public
//! package registries: license texts republished across versions, a spam campaign sent from
//! several senders, the same man page published in Simplified and Traditional Chinese. The
//! first round ingests the first half and commits; the second round reopens the index, as a
//! crawler restarted the next day would, and ingests everything again: pages already
//! indexed are recognized by their key (the page's `id`: the sample's URLs are not unique),
//! and new near-duplicates of old pages are rejected across the restart.

use std::io::BufRead;
use std::path::Path;

use anyhow::Context;
use tantivy::schema::{Schema, TantivyDocument};
use tantivy::Index;
use tantivy_dedup::plugin::{text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy};

struct Page {
    key: String,
    text: String,
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/samples/corpus.jsonl").to_owned());
    let pages = read_pages(Path::new(&path))?;
    let dir = tempfile::tempdir()?;
    let settings = DedupSettings::new(["body"]).key_field("key");
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema)?;
    DedupIndex::create(Index::create_in_dir(dir.path(), schema.build())?, settings)?;

    let half = pages.len() / 2;
    for (round, batch) in [&pages[..half], &pages[..]].into_iter().enumerate() {
        // Every round reopens the index: the writer's lookup is read from the last commit.
        let index = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
        let writer = index.writer(Policy::Reject, 50_000_000)?;
        let (mut added, mut updated, mut rejected, mut known) = (0, 0, 0, 0);
        println!(
            "round {}: {} pages, {} already indexed",
            round + 1,
            batch.len(),
            writer.references()
        );
        for page in batch {
            let mut document = TantivyDocument::new();
            document.add_text(index.fields().key.context("a key field")?, &page.key);
            document.add_text(index.fields().text[0], &page.text);
            match writer.add(document)? {
                AddOutcome::Added { .. } => added += 1,
                AddOutcome::Updated { .. } => updated += 1,
                AddOutcome::Exists { .. } => known += 1,
                outcome => {
                    rejected += 1;
                    let of = outcome
                        .duplicate_of()
                        .context("a reject names its original")?;
                    println!(
                        "  rejected {:<32} {} bits from {}",
                        page.key,
                        of.distance,
                        of.key.as_deref().unwrap_or("?")
                    );
                }
            }
        }
        writer.commit()?;
        println!(
            "  added {added}, updated {updated}, rejected {rejected}, already indexed {known}"
        );
        writer.wait_merging_threads()?;
    }
    Ok(())
}

/// The `id` and `text` of each JSON line (the sample pages' URLs are not unique: several
/// man pages come from one repository, so the id is the page's key).
fn read_pages(path: &Path) -> anyhow::Result<Vec<Page>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut pages = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let record: serde_json::Value = serde_json::from_str(&line?)
            .with_context(|| format!("{}:{}: not a JSON line", path.display(), number + 1))?;
        let place = || format!("{}:{}", path.display(), number + 1);
        // A page without a key would share the empty key with every other such page, and be
        // taken for one already indexed: refuse it.
        let key = record["id"]
            .as_str()
            .filter(|id| !id.is_empty())
            .with_context(|| format!("{}: no `id`", place()))?;
        let text = record["text"]
            .as_str()
            .with_context(|| format!("{}: no `text`", place()))?;
        pages.push(Page {
            key: key.to_owned(),
            text: text.to_owned(),
        });
    }
    Ok(pages)
}
