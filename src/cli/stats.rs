//! `tantivy-dedup stats`: what an index holds and how it fingerprints.

use clap::Args;
use serde::Serialize;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::Term;
use tantivy_dedup::plugin::DedupSettings;

use crate::cli::index_dir::IndexArg;
use crate::cli::opened::OpenedIndex;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::print;

/// Print what the index holds: documents, flagged documents, segments, settings.
///
/// With --json: {"num_docs":..,"flagged":..,"segments":..,"settings":{..}}, where settings
/// are the fingerprint config, fields and distance stored in the index.
#[derive(Args, Debug)]
pub struct StatsCommand {
    #[command(flatten)]
    index: IndexArg,
    /// The index's fingerprint options, checked against it: an index keeps the options it
    /// was created with.
    #[command(flatten)]
    options: FingerprintOptions,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Stats<'a> {
    num_docs: u64,
    flagged: u64,
    deleted: u64,
    segments: usize,
    settings: &'a DedupSettings,
}

impl StatsCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        let OpenedIndex { index, searcher } = OpenedIndex::open(
            &self.index.index,
            &self.options,
            None,
            &VerifyOptions::default(),
        )?;
        let flagged = match index.dedup.fields().flag {
            Some((flag, _)) => {
                let originals =
                    TermQuery::new(Term::from_field_u64(flag, 0), IndexRecordOption::Basic);
                searcher.num_docs() - searcher.search(&originals, &Count)? as u64
            }
            None => 0,
        };
        let segments = searcher.segment_readers();
        let stats = Stats {
            num_docs: searcher.num_docs(),
            flagged,
            deleted: segments
                .iter()
                .map(|s| u64::from(s.num_deleted_docs()))
                .sum(),
            segments: segments.len(),
            settings: index.dedup.settings(),
        };
        if self.json {
            print(&format!("{}\n", serde_json::to_string(&stats)?))?;
        } else {
            print(&format!(
                "index       {}\n\
                 documents   {}\n\
                 flagged     {}\n\
                 deleted     {} (not yet merged away)\n\
                 segments    {}\n\
                 settings    {}\n",
                self.index.index.display(),
                stats.num_docs,
                stats.flagged,
                stats.deleted,
                stats.segments,
                serde_json::to_string_pretty(stats.settings)?.replace('\n', "\n            ")
            ))?;
        }
        Ok(true)
    }
}
