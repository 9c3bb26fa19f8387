//! `tantivy-dedup clusters`: every group of near-duplicates in an index.

use anyhow::Context;
use clap::Args;
use serde::Serialize;

use crate::cli::index_dir::IndexArg;
use crate::cli::opened::OpenedIndex;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::print;

/// Print every group of near-duplicates in the index.
///
/// Two documents are near within --distance bits (or, in an index with two-stage matching,
/// the default, within --candidate-distance bits with signatures sharing a band and
/// agreeing): the rule `ingest` applies. Groups are formed from all the near pairs, not in
/// index order: the document near the most others, and the nearest, leads (ties: the
/// lesser fingerprint, then the earlier document), and in that order each document joins
/// the nearest leader whose whole group it is near, or leads; under a --threshold below 0.5
/// (--preset rewrites), the nearest leader it is near. Exact copies are judged once. So a
/// source leads the texts derived from it wherever it stands, and the groups need not be
/// the decisions `ingest` made in arrival order (its --report says near what each record
/// was rejected or flagged). docs/PARAMETERS.md, "How groups are formed", has what each
/// rule measures. With --json: {"clusters":[{"ids":[leader, member, ..]}, ..]}, members in
/// index order.
#[derive(Args, Debug)]
pub struct ClustersCommand {
    #[command(flatten)]
    index: IndexArg,
    /// The index's fingerprint options, checked against it: an index keeps the options it
    /// was created with.
    #[command(flatten)]
    options: FingerprintOptions,
    /// Largest Hamming distance between near-duplicates [default: the index's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=64))]
    distance: Option<u32>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    verify: VerifyOptions,
}

#[derive(Serialize)]
struct Cluster {
    ids: Vec<String>,
}

#[derive(Serialize)]
struct Clusters {
    clusters: Vec<Cluster>,
}

impl ClustersCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        let opened = OpenedIndex::open(
            &self.index.index,
            &self.options,
            self.distance,
            &self.verify,
        )?;
        let dedup = &opened.index.dedup;
        let clusters: Vec<Cluster> = (opened.index.clusters(&opened.searcher))
            .context("cannot read the index")?
            .into_iter()
            .map(|ids| Cluster { ids })
            .collect();
        if self.json {
            print(&format!(
                "{}\n",
                serde_json::to_string(&Clusters { clusters })?
            ))?;
        } else {
            let lines: String = clusters
                .iter()
                .enumerate()
                .map(|(n, cluster)| format!("{}\t{}\n", n + 1, cluster.ids.join("\t")))
                .collect();
            print(&lines)?;
            note!(
                "{} clusters at distance {} in {}",
                clusters.len(),
                dedup.distance(),
                self.index.index.display()
            );
        }
        Ok(true)
    }
}
