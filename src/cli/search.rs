//! `tantivy-dedup search`: a query, with near-duplicates of better hits hidden.

use anyhow::Context;
use clap::Args;
use tantivy::collector::TopDocs;
use tantivy::{DocAddress, Searcher};
use tantivy_dedup::corpus::PageRequest;
use tantivy_dedup::plugin::{DedupHit, DedupTopDocs, FINGERPRINT_FIELD};
use tantivy_dedup::Fingerprint;

use std::fmt::Write as _;

use crate::cli::index_dir::IndexArg;
use crate::cli::opened::OpenedIndex;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::print;

/// Search the index; a hit within --distance bits of a better hit is hidden under it.
///
/// The query language is tantivy's: words (all fields: title and body), "a phrase",
/// +required -excluded, title:word. Documents flagged at ingest (--policy flag) are hidden
/// under a better-ranked near-duplicate (their original, when it matches) like any other,
/// or left out with --skip-flagged. With --json:
/// {"hits":[{"id":..,"score":..,"fingerprint":"<16 hex>","title":..,"hidden":[ids],
/// "hidden_details":[{"id":..,"distance":..,"jaccard":..}]}],"hidden_total":N}
/// ("jaccard" with verification: the signatures' agreement).
#[derive(Args, Debug)]
pub struct SearchCommand {
    /// The query.
    query: String,
    #[command(flatten)]
    index: IndexArg,
    /// The index's fingerprint options, checked against it: an index keeps the options it
    /// was created with.
    #[command(flatten)]
    options: FingerprintOptions,
    /// Hits to show.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    limit: u64,
    /// Hits to skip (the page starts after them).
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Show every hit, near-duplicates and flagged documents included.
    #[arg(long)]
    no_dedup: bool,
    /// Leave out documents flagged at ingest (--policy flag) instead of hiding them under
    /// their originals.
    #[arg(long, conflicts_with = "no_dedup")]
    skip_flagged: bool,
    /// Largest Hamming distance between near-duplicates [default: the index's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=64))]
    distance: Option<u32>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

impl SearchCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        let opened = OpenedIndex::open(
            &self.index.index,
            &self.options,
            self.distance,
            &VerifyOptions::default(),
        )?;
        let (index, searcher) = (&opened.index, &opened.searcher);
        let query = (index.parse_query(&self.query))
            .with_context(|| format!("cannot parse the query {:?}", self.query))?;
        let limit = usize::try_from(self.limit)?;
        let offset = usize::try_from(self.offset)?;
        // tantivy's TopDocs allocates for `offset + limit` hits: past the last document
        // there is nothing to find, and nothing to allocate for.
        let past_the_end = offset >= usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX);
        let page = if self.no_dedup && past_the_end {
            DedupTopDocs::default()
        } else if self.no_dedup {
            let top = searcher
                .search(
                    &query,
                    &TopDocs::with_limit(limit)
                        .and_offset(offset)
                        .order_by_score(),
                )
                .context("search failed")?;
            let hits = top
                .into_iter()
                .map(|(score, address)| {
                    Ok(DedupHit {
                        score,
                        sort_value: None,
                        address,
                        fingerprint: fingerprint_at(searcher, address)?,
                        hidden: Vec::new(),
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            DedupTopDocs {
                hits,
                hidden_total: 0,
                has_more: false,
            }
        } else {
            let request = PageRequest {
                limit,
                offset,
                skip_flagged: self.skip_flagged,
            };
            (index.page_collector(request))
                .search(searcher, &*query)
                .context("search failed")?
        };
        let hits = (index.page(searcher, &page)).context("cannot read a stored document")?;
        if self.json {
            print(&format!("{}\n", serde_json::to_string(&hits)?))?;
        } else {
            let mut out = String::new();
            for (n, hit) in hits.hits.iter().enumerate() {
                writeln!(
                    out,
                    "{:>3}. {:7.3}  {}  {}",
                    offset + n + 1,
                    hit.score,
                    hit.id,
                    hit.title.as_deref().unwrap_or("")
                )?;
                if !hit.hidden.is_empty() {
                    writeln!(out, "       hides {}", hit.hidden.join(", "))?;
                }
            }
            if hits.hits.is_empty() {
                out.push_str("no hits\n");
            }
            print(&out)?;
            note!("{} near-duplicates hidden", hits.hidden_total);
        }
        Ok(true)
    }
}

fn fingerprint_at(searcher: &Searcher, address: DocAddress) -> anyhow::Result<Option<Fingerprint>> {
    let column = searcher
        .segment_reader(address.segment_ord)
        .fast_fields()
        .u64(FINGERPRINT_FIELD)
        .context("the index has no fingerprint column")?;
    Ok(column.first(address.doc_id).map(Fingerprint))
}
