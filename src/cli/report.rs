//! The per-record report of `ingest` and its summary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use tantivy_dedup::corpus::ReportLine;

use crate::cli::same_file::{resolved, same_file};

/// Where report lines go: held back until [`flush`](Report::flush), which follows each
/// commit, so that a line saying "added" means the document is committed.
pub struct Report {
    out: Option<BufWriter<Box<dyn Write>>>,
    held: Vec<ReportLine>,
}

impl Report {
    /// Checks that a report can be written to `path` without touching what is there: an
    /// existing file is opened for appending (not truncated), a new one is created and
    /// removed. For the checks that must pass before a run changes anything.
    pub fn check(path: Option<&Path>) -> anyhow::Result<()> {
        let Some(path) = path.filter(|path| path.as_os_str() != "-") else {
            return Ok(());
        };
        let cannot = || format!("cannot create the report file {}", path.display());
        if path.exists() {
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .with_context(cannot)?;
        } else {
            File::create_new(path).with_context(cannot)?;
            std::fs::remove_file(path).with_context(cannot)?;
        }
        Ok(())
    }

    /// Refuses a report file that would harm the run: one that is an input or the
    /// `--settings` file (by its path, links resolved, or as a hard link to it), or lies
    /// inside an input folder (it would be emptied before it is read, or read as a
    /// document), or lies inside the index folder (tantivy would find a file it does not
    /// know there, and the report would be lost with the index). `sources` are the inputs
    /// and the `--from-index` folder.
    pub fn check_apart(
        path: Option<&Path>,
        sources: &[PathBuf],
        settings: Option<&Path>,
        index: &Path,
    ) -> anyhow::Result<()> {
        let Some(path) = path.filter(|path| path.as_os_str() != "-") else {
            return Ok(());
        };
        let settings = settings.map(|settings| (settings, "the settings file"));
        let sources = sources.iter().map(|source| (source.as_path(), "the input"));
        check_apart(
            ("the report file", "a report file"),
            path,
            settings.into_iter().chain(sources),
            index,
        )
    }

    /// A report to `path` (`-` for standard output), or none.
    pub fn create(path: Option<&Path>) -> anyhow::Result<Report> {
        let out: Option<Box<dyn Write>> = match path {
            None => None,
            Some(path) if path.as_os_str() == "-" => Some(Box::new(std::io::stdout())),
            Some(path) => Some(Box::new(File::create(path).with_context(|| {
                format!("cannot create the report file {}", path.display())
            })?)),
        };
        Ok(Report {
            out: out.map(BufWriter::new),
            held: Vec::new(),
        })
    }

    /// Holds `line` until the next flush.
    pub fn push(&mut self, line: ReportLine) {
        if self.out.is_some() {
            self.held.push(line);
        }
    }

    /// Writes the lines held.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        let Some(out) = &mut self.out else {
            return Ok(());
        };
        for line in self.held.drain(..) {
            serde_json::to_writer(&mut *out, &line).context("cannot write the report")?;
            out.write_all(b"\n").context("cannot write the report")?;
        }
        out.flush().context("cannot write the report")
    }
}

/// Counts of what became of the records.
#[derive(Debug, Default)]
pub struct Tally {
    /// Records read.
    pub read: u64,
    /// Documents added.
    pub added: u64,
    /// Near-duplicates (rejected, flagged or replacing).
    pub duplicates: u64,
    /// Documents that replaced an earlier version with the same id.
    pub updated: u64,
    /// Documents already in the index.
    pub exists: u64,
    /// Records that were errors.
    pub errors: u64,
    /// Records decided again because a document they were judged against changed.
    pub rejudged: u64,
    /// Of those, records whose text is kept nowhere (`lost`).
    pub lost: u64,
}

impl Tally {
    /// Counts `line`.
    pub fn count(&mut self, line: &ReportLine) {
        self.read += 1;
        match line.status {
            "added" => self.added += 1,
            "duplicate" => self.duplicates += 1,
            "updated" => self.updated += 1,
            "exists" => self.exists += 1,
            _ => self.errors += 1,
        }
    }

    /// Counts the line of a record decided again (not a record read).
    pub fn count_rejudged(&mut self, line: &ReportLine) {
        self.rejudged += 1;
        if line.status == "lost" {
            self.lost += 1;
        }
    }

    /// One line for people: counts, time and rate.
    pub fn summary(&self, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64();
        let rejudged = if self.rejudged > 0 {
            format!(
                ", {} decided again ({} lost: fetch them again)",
                self.rejudged, self.lost
            )
        } else {
            String::new()
        };
        format!(
            "{} read, {} added, {} updated, {} duplicates, {} already indexed, {} errors{rejudged}; {:.1} s ({:.0} documents/s)",
            self.read,
            self.added,
            self.updated,
            self.duplicates,
            self.exists,
            self.errors,
            seconds,
            self.read as f64 / seconds.max(1e-9)
        )
    }
}

/// Refuses an output file (`what`, and the `noun` to name another) that is one of `sources`
/// (each with what it is; by its path, links resolved, or as a hard link to it), lies
/// inside a source folder, or lies inside the index folder: writing it would destroy what
/// the run reads, or put a file tantivy does not know into the index.
pub fn check_apart<'s>(
    (what, noun): (&str, &str),
    path: &Path,
    sources: impl IntoIterator<Item = (&'s Path, &'s str)>,
    index: &Path,
) -> anyhow::Result<()> {
    let output = resolved(path);
    for (source, kind) in sources {
        if source.as_os_str() == "-" {
            continue;
        }
        let source_path = resolved(source);
        if same_file(path, source) || output == source_path {
            anyhow::bail!(
                "{what} {} is {kind} {}: name {noun} apart from it",
                path.display(),
                source.display()
            );
        }
        if output.starts_with(&source_path) {
            anyhow::bail!(
                "{what} {} is inside the input folder {}: name {noun} outside the inputs",
                path.display(),
                source.display()
            );
        }
    }
    if output.starts_with(resolved(index)) {
        anyhow::bail!(
            "{what} {} is inside the index folder {}: name {noun} outside it",
            path.display(),
            index.display()
        );
    }
    Ok(())
}
