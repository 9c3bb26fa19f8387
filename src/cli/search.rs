//! `tantivy-dedup search`: a query, with near-duplicates of better hits hidden.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;
use tantivy::collector::{Collector, TopDocs};
use tantivy::query::Query;
use tantivy::{DocAddress, Score, Searcher};
use tantivy_dedup::corpus::PageRequest;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::plugin::collector::{ShardStatistics, ShardedTopDocs};
use tantivy_dedup::plugin::{DedupHit, DedupTopDocs, FINGERPRINT_FIELD};
use tantivy_dedup::Error;

use crate::cli::index_dir::{CliIndex, DEFAULT_INDEX};
use crate::cli::opened::OpenedIndex;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::print;
use crate::cli::same_file::same_file;

/// Search the index; a hit within --distance bits of a better hit is hidden under it.
///
/// The query language is tantivy's: words (all fields: title and body), "a phrase",
/// +required -excluded, title:word. Documents flagged at ingest (--policy flag) are hidden
/// under a better-ranked near-duplicate (their original, when it matches) like any other,
/// or left out with --skip-flagged. With --json:
/// {"hits":[{"id":..,"score":..,"fingerprint":"<16 hex>","title":..,"hidden":[ids],
/// "hidden_details":[{"id":..,"distance":..,"jaccard":..}]}],"hidden_total":N}
/// ("jaccard" with verification: the signatures' agreement).
///
/// Several --index folders (shards of one corpus, made with the same settings, distance
/// and two-stage matching; each folder once) are searched as one index: one ranking, near-duplicates hidden across them; each hit and
/// hidden hit then says which (the folder's position, from 0: "index" in the JSON).
#[derive(Args, Debug)]
#[cfg_attr(
    feature = "cluster",
    command(
        mut_arg("cluster", |arg| arg.help(
            "The shared space of `ingest --cluster` the shards belong to (its seed addresses, \
             comma-separated): each shard is checked against the space's fingerprint settings \
             and rule first, and refused, naming the differing setting, when it differs"
        )),
        mut_arg("cluster_namespace", |arg| arg.help(
            "The shared space's name, as given to `ingest --cluster-namespace`"
        )),
    )
)]
pub struct SearchCommand {
    /// The query.
    query: String,
    /// The index folder; repeat it to search several as one.
    #[arg(long = "index", value_name = "DIR", default_value = DEFAULT_INDEX)]
    indexes: Vec<PathBuf>,
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
    #[cfg(feature = "cluster")]
    #[command(flatten)]
    cluster: crate::cli::shared::SpaceArgs,
}

impl SearchCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        self.check_folders_apart()?;
        let opened = (self.indexes.iter())
            .map(|dir| {
                OpenedIndex::open(dir, &self.options, self.distance, &VerifyOptions::default())
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        #[cfg(feature = "cluster")]
        if !self.cluster.cluster.is_empty() {
            for (shard, dir) in opened.iter().zip(&self.indexes) {
                let matching = crate::cli::shared::matching_of(&shard.index);
                let namespace = &self.cluster.cluster_namespace;
                (tantivy_dedup::shared::SharedRegistry::check_settings(
                    &self.cluster.cluster,
                    namespace,
                    &matching,
                ))
                .with_context(|| format!("{} does not fit the shared space", dir.display()))?;
            }
        }
        let index = &opened[0].index;
        for (other, dir) in opened.iter().zip(&self.indexes).skip(1) {
            let differences = other
                .index
                .dedup
                .settings()
                .differences(index.dedup.settings());
            if !differences.is_empty() {
                bail!(
                    "{} cannot be searched with {}: {}",
                    dir.display(),
                    self.indexes[0].display(),
                    Error::SettingsMismatch { differences }
                );
            }
            self.check_same_rule(index, &self.indexes[0], &other.index, dir)?;
        }
        let query = (index.parse_query(&self.query))
            .with_context(|| format!("cannot parse the query {}", shortened(&self.query)))?;
        let limit = usize::try_from(self.limit)?;
        let offset = usize::try_from(self.offset)?;
        let hits = if let [one] = opened.as_slice() {
            let page = self.page(index, &one.searcher, &*query, limit, offset)?;
            index.page(&one.searcher, &page)
        } else {
            let searchers: Vec<Searcher> = opened.iter().map(|o| o.searcher.clone()).collect();
            let page = self.sharded_page(index, &searchers, &*query, limit, offset)?;
            index.sharded_page(&searchers, &page)
        };
        let hits = hits.context("cannot read a stored document")?;
        if self.json {
            print(&format!("{}\n", serde_json::to_string(&hits)?))?;
        } else {
            let mut out = String::new();
            for (n, hit) in hits.hits.iter().enumerate() {
                let shard = hit.index.map(|i| format!("[{i}] ")).unwrap_or_default();
                writeln!(
                    out,
                    "{:>3}. {:7.3}  {shard}{}  {}",
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
            if hits.unverified > 0 {
                note!(
                    "{} hits have no signature and were judged by their fingerprints alone \
                     (documents added without the plugin's fields: ingest them again to mend them)",
                    hits.unverified
                );
            }
        }
        Ok(true)
    }

    /// Refuses a folder given twice (by any path to it): its hits would be counted twice.
    fn check_folders_apart(&self) -> anyhow::Result<()> {
        for (at, dir) in self.indexes.iter().enumerate() {
            if let Some(earlier) =
                (self.indexes[..at].iter()).find(|earlier| same_file(earlier, dir))
            {
                bail!(
                    "the index folder {} is given twice (also as {}): name each shard once",
                    dir.display(),
                    earlier.display()
                );
            }
        }
        Ok(())
    }

    /// Refuses shards whose matching rules differ (the distance, the two-stage matching):
    /// the search would take the first folder's, and its hits would depend on the order of
    /// the folders. `--distance` given sets one distance for all.
    fn check_same_rule(
        &self,
        first: &CliIndex,
        first_dir: &std::path::Path,
        other: &CliIndex,
        dir: &std::path::Path,
    ) -> anyhow::Result<()> {
        let (a, b) = (first.dedup.settings(), other.dedup.settings());
        if a.get_matching().get_distance() != b.get_matching().get_distance() {
            bail!(
                "{} was made with --distance {} and {} with --distance {}: shards searched \
                 together need one rule (give --distance to search them all with one)",
                first_dir.display(),
                a.get_matching().get_distance(),
                dir.display(),
                b.get_matching().get_distance()
            );
        }
        if a.get_matching().get_verification() != b.get_matching().get_verification() {
            let shown = |settings: &tantivy_dedup::plugin::DedupSettings| {
                serde_json::to_string(&settings.get_matching().get_verification())
                    .unwrap_or_default()
            };
            bail!(
                "{} and {} were made with other two-stage matching ({} and {}): shards \
                 searched together need one rule",
                first_dir.display(),
                dir.display(),
                shown(a),
                shown(b)
            );
        }
        Ok(())
    }

    fn request(&self, limit: usize, offset: usize) -> PageRequest {
        PageRequest {
            limit,
            offset,
            skip_flagged: self.skip_flagged,
        }
    }

    /// The page of one index.
    fn page(
        &self,
        index: &CliIndex,
        searcher: &Searcher,
        query: &dyn Query,
        limit: usize,
        offset: usize,
    ) -> anyhow::Result<DedupTopDocs> {
        if !self.no_dedup {
            return (index.page_collector(self.request(limit, offset)))
                .search(searcher, query)
                .context("search failed");
        }
        if past_the_end(std::slice::from_ref(searcher), offset) {
            return Ok(DedupTopDocs::default());
        }
        let top = (searcher.search(query, &top_docs(limit, offset))).context("search failed")?;
        let hits = (top.into_iter())
            .map(|(score, address)| plain_hit(searcher, score, address, address))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(DedupTopDocs {
            hits,
            ..DedupTopDocs::default()
        })
    }

    /// The page of several indexes searched as one.
    fn sharded_page(
        &self,
        index: &CliIndex,
        shards: &[Searcher],
        query: &dyn Query,
        limit: usize,
        offset: usize,
    ) -> anyhow::Result<ShardedTopDocs> {
        if !self.no_dedup {
            return (index.page_collector(self.request(limit, offset)))
                .search_shards(shards, query)
                .context("search failed");
        }
        let mut page = ShardedTopDocs::new(shards);
        if past_the_end(shards, offset) {
            return Ok(page);
        }
        // Each shard's best `offset + limit`, scored as one index, then merged: ties by
        // shard, then address, as the deduplicating search ranks them.
        let statistics = ShardStatistics(shards);
        let collector = top_docs(limit.saturating_add(offset), 0);
        let mut ranked: Vec<(Score, usize, DocAddress)> = Vec::new();
        for (shard, searcher) in shards.iter().enumerate() {
            let top = searcher
                .search_with_statistics_provider(query, &collector, &statistics)
                .context("search failed")?;
            ranked.extend(
                top.into_iter()
                    .map(|(score, address)| (score, shard, address)),
            );
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        page.page.hits = (ranked.into_iter().skip(offset).take(limit))
            .map(|(score, shard, address)| {
                let global = page.global(shard, address);
                plain_hit(&shards[shard], score, address, global)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(page)
    }
}

/// True when `offset` is past the documents of `searchers`: tantivy's `TopDocs` allocates
/// for `offset + limit` hits, and there is nothing to find.
fn past_the_end(searchers: &[Searcher], offset: usize) -> bool {
    let documents: u64 = searchers.iter().map(Searcher::num_docs).sum();
    offset >= usize::try_from(documents).unwrap_or(usize::MAX)
}

fn top_docs(limit: usize, offset: usize) -> impl Collector<Fruit = Vec<(Score, DocAddress)>> {
    TopDocs::with_limit(limit)
        .and_offset(offset)
        .order_by_score()
}

/// A hit of a search without deduplication: the document at `address` of `searcher`,
/// reported at `reported` (its address in the page).
fn plain_hit(
    searcher: &Searcher,
    score: Score,
    address: DocAddress,
    reported: DocAddress,
) -> anyhow::Result<DedupHit> {
    Ok(DedupHit {
        score,
        sort_value: None,
        address: reported,
        fingerprint: fingerprint_at(searcher, address)?,
        hidden: Vec::new(),
    })
}

fn fingerprint_at(searcher: &Searcher, address: DocAddress) -> anyhow::Result<Option<Fingerprint>> {
    let column = searcher
        .segment_reader(address.segment_ord)
        .fast_fields()
        .u64(FINGERPRINT_FIELD)
        .context("the index has no fingerprint column")?;
    Ok(column.first(address.doc_id).map(Fingerprint))
}

/// `query` quoted for a message, its middle left out past 200 characters: a refused query
/// of 24,000 characters is not echoed whole.
fn shortened(query: &str) -> String {
    const KEPT: usize = 100;
    let chars = query.chars().count();
    if chars <= 2 * KEPT {
        return format!("{query:?}");
    }
    let head: String = query.chars().take(KEPT).collect();
    let tail: String = query.chars().skip(chars - KEPT).collect();
    format!("{head:?} ... {tail:?} ({chars} characters)")
}
