//! `tantivy-dedup review`: the near-duplicate decisions of an index or of an ingest report,
//! as self-contained HTML pages (or JSON lines) to check them by eye.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use tantivy_dedup::review::{page_name, Review, DECISIONS_PER_PAGE};

use crate::cli::index_dir::IndexArg;
use crate::cli::opened::OpenedIndex;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::report::check_apart;
use crate::cli::same_file::resolved;

/// Write a page to review the near-duplicate decisions, the least similar first.
///
/// Each decision shows the kept document and the other side by side with what differs
/// marked (words; characters in Chinese), the Hamming distance, the signatures' agreement,
/// the rule's reason and the rule. From the index: every group as `clusters` finds them
/// (flagged or not) and the records of replaced documents. With --report: the `duplicate`
/// lines of that ingest report, read with the index the ingest wrote; a rejected or
/// replaced record's text is not in the index, and is read from the ingest's JSON-lines
/// inputs given with --input.
///
/// The page is one HTML file with no outside resources, 1,000 decisions a file
/// (`review.html`, `review-2.html`, ... linked to each other), texts cut at 2,000
/// characters. Prints the path of each file written. With --json: one JSON line per
/// decision instead, no page.
#[derive(Args, Debug)]
pub struct ReviewCommand {
    #[command(flatten)]
    index: IndexArg,
    /// An ingest report (`ingest --report FILE`): review its decisions instead of the
    /// index's groups.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// With --report: the ingest's JSON-lines inputs, for the texts of rejected and
    /// replaced records (repeat the option, or give several files).
    #[arg(long = "input", value_name = "FILE", num_args = 1.., requires = "report")]
    inputs: Vec<PathBuf>,
    /// The first page's path; further pages are written beside it.
    #[arg(long, value_name = "PATH", default_value = "review.html")]
    out: PathBuf,
    /// Print one JSON line per decision instead of writing pages.
    #[arg(long)]
    json: bool,
    /// Write the page of the decision about this record alone and print where it is
    /// (`FILE#ANCHOR`), or with --json print its line only. An error when no decision
    /// names it.
    #[arg(long, value_name = "ID")]
    id: Option<String>,
}

impl ReviewCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        if !self.json {
            self.check_out()?;
        }
        let opened = OpenedIndex::open(
            &self.index.index,
            &FingerprintOptions::default(),
            None,
            &VerifyOptions::default(),
        )?;
        let index = &opened.index;
        let searcher = opened.searcher.clone();
        let review = match &self.report {
            Some(report) => Review::of_report(index, searcher, report, &self.inputs)
                .with_context(|| format!("cannot review the report {}", report.display()))?,
            None => {
                let source = format!("index {}", self.index.index.display());
                Review::of_index(index, searcher, &source).context("cannot read the index")?
            }
        };
        if self.report.is_some() {
            warn_of_gaps(&review, &self.index.index, !self.inputs.is_empty())?;
        }
        let rank = match &self.id {
            Some(id) => Some(
                (review.rank_of(id).context("cannot read the index")?)
                    .with_context(|| format!("no decision names the record {id:?}"))?,
            ),
            None => None,
        };
        if self.json {
            let mut out = std::io::stdout().lock();
            let mut write = |decision: tantivy_dedup::review::Decision| -> anyhow::Result<()> {
                serde_json::to_writer(&mut out, &decision.to_json(review.rule()))
                    .context("cannot write to standard output")?;
                out.write_all(b"\n")
                    .context("cannot write to standard output")
            };
            match rank {
                Some(rank) => {
                    let decision = (review.decision_at(rank, &self.out))
                        .context("cannot read the index")?
                        .expect("the rank is a decision's");
                    write(decision)?;
                }
                None => {
                    for decision in review.decisions(&self.out) {
                        write(decision.context("cannot read the index")?)?;
                    }
                }
            }
            out.flush().context("cannot write to standard output")?;
            return Ok(true);
        }
        let cannot_write = || format!("cannot write the review to {}", self.out.display());
        if let Some(rank) = rank {
            // The decision's page alone: at a million decisions, the others are a thousand
            // pages, which a look at one decision should not wait for.
            let page = (rank - 1) / DECISIONS_PER_PAGE;
            let path = review
                .write_page(&self.out, page)
                .with_context(cannot_write)?;
            let decision = (review.decision_at(rank, &self.out))
                .context("cannot read the index")?
                .expect("the rank is a decision's");
            crate::cli::print(&format!("{}#{}\n", path.display(), decision.anchor))?;
            if review.pages() > 1 {
                note!(
                    "wrote page {} of {} alone: `review` without --id writes them all",
                    page + 1,
                    review.pages()
                );
            }
            return Ok(true);
        }
        let written = review.write_html(&self.out).with_context(cannot_write)?;
        let lines: String = (written.iter())
            .map(|path| format!("{}\n", path.display()))
            .collect();
        crate::cli::print(&lines)?;
        note!(
            "{} decisions in {} page{} from {}",
            review.len(),
            written.len(),
            if written.len() == 1 { "" } else { "s" },
            review.source()
        );
        Ok(true)
    }
}

impl ReviewCommand {
    /// Refuses an `--out` that would overwrite the report or an input (by path, links
    /// resolved, or as a hard link), or lie inside the index folder. The later pages
    /// (`review-2.html`, ...) are written beside the first: a source there named as one
    /// of them is refused too.
    fn check_out(&self) -> anyhow::Result<()> {
        let report = self
            .report
            .iter()
            .map(|path| (path.as_path(), "the report"));
        let inputs = self.inputs.iter().map(|path| (path.as_path(), "the input"));
        let sources: Vec<(&Path, &str)> = report.chain(inputs).collect();
        check_apart(
            ("--out", "a page"),
            &self.out,
            sources.iter().copied(),
            &self.index.index,
        )?;
        let out = resolved(&self.out);
        for (source, kind) in sources {
            let source_path = resolved(source);
            let is_page = |page: usize| source_path == out.with_file_name(page_name(&out, page));
            if source_path.parent() == out.parent() && (1..MAX_PAGES_CHECKED).any(is_page) {
                anyhow::bail!(
                    "--out {} would write a later page over {kind} {}: name a page apart from \
                     the report and inputs",
                    self.out.display(),
                    source.display()
                );
            }
        }
        Ok(())
    }
}

/// Pages whose names are checked against the sources: ten million decisions.
const MAX_PAGES_CHECKED: usize = 10_000;

/// Says on standard error what the review of a report cannot show, and why that may be.
fn warn_of_gaps(review: &Review, index: &Path, inputs: bool) -> anyhow::Result<()> {
    let gaps = review.gaps().context("cannot read the index")?;
    if gaps.kept_missing > 0 {
        note!(
            "warning: {} of the {} documents the report names as kept are not in the index {}{}",
            gaps.kept_missing,
            gaps.kept_named,
            index.display(),
            if gaps.kept_missing == gaps.kept_named {
                ": is it the report of another index?"
            } else {
                " (deleted or updated since)"
            }
        );
    }
    if gaps.texts_missing > 0 {
        let unreadable = match gaps.unreadable_lines {
            0 => String::new(),
            n => format!(" ({n} lines there are no JSON records: invalid UTF-8 or JSON)"),
        };
        note!(
            "warning: {} of the {} rejected or replaced texts are {}{unreadable}: shown as not kept",
            gaps.texts_missing,
            gaps.texts_wanted,
            if inputs { "not in the --input files" } else { "not in the index (give the ingest's inputs with --input)" }
        );
    }
    Ok(())
}
