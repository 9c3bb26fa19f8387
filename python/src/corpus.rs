//! `CorpusIndex`: an index folder of the command-line tool (create, open, ingest with a
//! policy and per-record reports, search with hidden hits, clusters), shared with the CLI.

use std::path::{Path, PathBuf};

use std::io::Write;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use tantivy::{IndexReader, ReloadPolicy};
use tantivy_dedup::corpus::{self, corpus_settings, CorpusRecord, PageRequest, ReportLine};
use tantivy_dedup::plugin::Policy;
use tantivy_dedup::review;

use crate::settings::MatchingSettings;
use crate::{error, DedupError};

/// Bytes of indexing memory of an ingest's writer.
const WRITER_MEMORY: usize = 200_000_000;

/// An index folder of the command-line tool: what `tantivy-dedup ingest` makes, searched
/// and extended from Python.
#[pyclass(module = "tantivy_dedup._native", frozen)]
pub(crate) struct CorpusIndex {
    index: corpus::CorpusIndex,
    /// Reloaded after each ingest: searches see every committed document.
    reader: IndexReader,
}

/// One record of an ingest, or why it cannot be indexed.
enum Input {
    Record(CorpusRecord),
    Error(ReportLine),
}

/// The record of a Python mapping `item` (the `n`th of an ingest): `id` a string or an
/// integer of 64 bits (written in decimal, as the command-line tool writes a JSON number
/// id), `text` (or `body`) a string, `title` and `url` strings or `None`, `tags` a list of
/// strings. A record that breaks these rules, or holds a str that is not valid Unicode (a
/// lone surrogate), is an error line naming it; the others go on.
fn input_of(n: usize, item: &Bound<'_, PyAny>) -> PyResult<Input> {
    let place = format!("#{n}");
    let Ok(map) = item.downcast::<PyDict>() else {
        let reason = format!("not a dict but {}", item.get_type().name()?);
        return Ok(Input::Error(ReportLine::error(place, reason)));
    };
    let text_of = |key: &str| -> PyResult<Result<Option<String>, String>> {
        Ok(match map.get_item(key)? {
            None => Ok(None),
            Some(value) if value.is_none() => Ok(None),
            Some(value) => string_of(key, &value).map(Some),
        })
    };
    let id = match map.get_item("id")? {
        None => None,
        Some(value) if value.is_none() => None,
        Some(value) => match id_of(&value) {
            Ok(id) => Some(id),
            Err(reason) => return Ok(Input::Error(ReportLine::error(place, reason))),
        },
    };
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return Ok(Input::Error(ReportLine::error(place, "no `id`".into())));
    };
    let fields = (|| -> PyResult<Result<_, String>> {
        let text = match text_of("text")? {
            Ok(None) => text_of("body")?,
            other => other,
        };
        let tags: Result<Vec<String>, String> = match map.get_item("tags")? {
            None => Ok(Vec::new()),
            Some(value) if value.is_none() => Ok(Vec::new()),
            Some(value) => tags_of(&value),
        };
        let (title, url) = (text_of("title")?, text_of("url")?);
        Ok((|| Ok((text?, title?, url?, tags?)))())
    })()?;
    let (text, title, url, tags) = match fields {
        Ok(fields) => fields,
        Err(reason) => {
            let reason = format!("record {place} (id {id:?}): {reason}");
            return Ok(Input::Error(ReportLine::error(place, reason)));
        }
    };
    match text {
        Some(text) if !text.trim().is_empty() => Ok(Input::Record(CorpusRecord {
            id,
            text,
            title,
            url,
            tags,
        })),
        _ => Ok(Input::Error(ReportLine::error(
            id,
            format!("empty document at {place}: no text"),
        ))),
    }
}

/// A record's id as the command-line tool reads a JSON line's: a string as it is, an
/// integer of 64 bits (`-2**63` to `2**64 - 1`) in decimal; anything else is the reason it
/// is refused.
fn id_of(value: &Bound<'_, PyAny>) -> Result<String, String> {
    if value.is_instance_of::<PyString>() {
        return string_of("id", value);
    }
    // A bool is an int to Python, but `true` is no id to the tool.
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        if let Ok(id) = value.extract::<i64>() {
            return Ok(id.to_string());
        }
        if let Ok(id) = value.extract::<u64>() {
            return Ok(id.to_string());
        }
        return Err(format!(
            "`id` {value} is not an integer of 64 bits, which cannot be kept exactly: write \
             it as a string"
        ));
    }
    if value.is_instance_of::<PyFloat>() {
        return Err(format!(
            "`id` {value} is not an integer of 64 bits, which cannot be kept exactly: write \
             it as a string"
        ));
    }
    Err(format!(
        "`id` must be a string or an integer, not {}",
        type_name(value)
    ))
}

/// The str `value` of field `key`, or why it is not one: another type, or a str holding a
/// lone surrogate (half of a UTF-16 pair, which UTF-8 cannot hold).
fn string_of(key: &str, value: &Bound<'_, PyAny>) -> Result<String, String> {
    let Ok(text) = value.downcast::<PyString>() else {
        return Err(format!("`{key}` is not a string but {}", type_name(value)));
    };
    text.to_str().map(str::to_owned).map_err(|e| {
        // The error's `start` is the character's index in the str.
        let py = value.py();
        let at = (e.value(py).getattr("start").ok()).and_then(|s| s.extract::<usize>().ok());
        let unit = at.and_then(|at| text.get_item(at).ok()).and_then(|c| {
            let ord = py.import("builtins").and_then(|b| b.getattr("ord")).ok()?;
            ord.call1((c,)).and_then(|o| o.extract::<u32>()).ok()
        });
        match (at, unit) {
            (Some(at), Some(unit)) => format!(
                "`{key}` holds a lone surrogate \\u{unit:04X} at character {at}: half of a \
                 UTF-16 pair, not a character"
            ),
            _ => format!("`{key}` is not valid Unicode: {e}"),
        }
    })
}

/// The tags of a record: a list (or tuple) of strings, or why not.
fn tags_of(value: &Bound<'_, PyAny>) -> Result<Vec<String>, String> {
    if value.is_instance_of::<PyString>() {
        return Err("`tags` is not a list of strings but one string".to_owned());
    }
    let Ok(items) = value.try_iter() else {
        return Err(format!(
            "`tags` is not a list of strings but {}",
            type_name(value)
        ));
    };
    let mut tags = Vec::new();
    for item in items {
        let item = item.map_err(|e| format!("`tags`: {e}"))?;
        tags.push(string_of("tags", &item)?);
    }
    Ok(tags)
}

/// The name of `value`'s type, for messages.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    (value.get_type().name())
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "an object of unknown type".to_owned())
}

/// `DedupError` saying what `path` is when it can hold no index: a missing folder, a
/// file, or a folder without an index's `meta.json` (`created`: after `open_or_create`
/// left its files as they were, so it is not empty).
fn no_index_error(path: &Path, created: bool) -> PyResult<()> {
    let shown = path.display();
    if !path.exists() {
        return Err(DedupError::new_err(format!(
            "no index at {shown}: the folder does not exist (CorpusIndex.open_or_create \
             creates one)"
        )));
    }
    if !path.is_dir() {
        return Err(DedupError::new_err(format!(
            "no index at {shown}: it is a file, not a folder"
        )));
    }
    if path.join("meta.json").is_file() {
        return Ok(());
    }
    let mut names: Vec<String> = (std::fs::read_dir(path).into_iter().flatten())
        .filter_map(|entry| {
            entry
                .ok()
                .map(|e| e.file_name().to_string_lossy().into_owned())
        })
        // The creation lock is the library's, left by `open_or_create`.
        .filter(|name| !name.starts_with(".tantivy-dedup-create"))
        .collect();
    if names.is_empty() {
        return Err(DedupError::new_err(format!(
            "no index at {shown}: the folder is empty (CorpusIndex.open_or_create creates \
             one there)"
        )));
    }
    names.sort();
    let n = names.len();
    let listed = format!(
        " ({}{})",
        names[..n.min(3)].join(", "),
        if n > 3 { ", ..." } else { "" }
    );
    let what = if created {
        "so no index was created there"
    } else {
        "it has no meta.json"
    };
    Err(DedupError::new_err(format!(
        "{shown} holds no tantivy-dedup index: the folder exists and is not empty, holding \
         files of its own{listed}, {what}; choose an empty or new folder"
    )))
}

/// The counts of an ingest's report lines: records, and records of each status (by their
/// own line), and records reported lost.
#[derive(Debug, Default)]
struct Tally {
    records: u64,
    added: u64,
    updated: u64,
    exists: u64,
    duplicate: u64,
    error: u64,
    lost: u64,
}

impl Tally {
    /// Counts `line`.
    fn count(&mut self, line: &ReportLine) {
        // A record decided again is counted by its own line; one lost, apart.
        if line.rejudged_after.is_some() {
            self.lost += u64::from(line.status == "lost");
            return;
        }
        self.records += 1;
        match line.status {
            "added" => self.added += 1,
            "updated" => self.updated += 1,
            "exists" => self.exists += 1,
            "duplicate" => self.duplicate += 1,
            _ => self.error += 1,
        }
    }

    /// The counts as a dict: `records`, then one key per status.
    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("records", self.records)?;
        dict.set_item("added", self.added)?;
        dict.set_item("updated", self.updated)?;
        dict.set_item("exists", self.exists)?;
        dict.set_item("duplicate", self.duplicate)?;
        dict.set_item("error", self.error)?;
        dict.set_item("lost", self.lost)?;
        Ok(dict)
    }
}

/// The policy named `name`: `reject`, `flag` or `replace`.
fn policy_of(name: &str) -> PyResult<Policy> {
    match name {
        "reject" => Ok(Policy::Reject),
        "flag" => Ok(Policy::Flag),
        "replace" => Ok(Policy::Replace),
        other => Err(PyValueError::new_err(format!(
            "policy {other:?}: expected \"reject\", \"flag\" or \"replace\""
        ))),
    }
}

impl CorpusIndex {
    /// The review of the index, or of the ingest report `report` read with it.
    fn review_of(
        &self,
        searcher: tantivy::Searcher,
        report: Option<&Path>,
        inputs: &[PathBuf],
    ) -> PyResult<review::Review<'_>> {
        match report {
            Some(report) => review::Review::of_report(&self.index, searcher, report, inputs),
            None => review::Review::of_index(&self.index, searcher, "the index"),
        }
        .map_err(error)
    }

    fn of(index: corpus::CorpusIndex) -> PyResult<Self> {
        let reader = (index.dedup.index().reader_builder())
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e: tantivy::TantivyError| error(e.into()))?;
        Ok(CorpusIndex { index, reader })
    }

    /// Ingests `records`, deciding each by `policy` (a name of [`policy_of`]), committing
    /// every `commit_every` records and at the end; `sink` takes each window's report
    /// lines, in order, with the GIL released. The counts of the lines.
    fn ingest_with(
        &self,
        py: Python<'_>,
        records: &Bound<'_, PyAny>,
        policy: &str,
        commit_every: usize,
        sink: &mut (dyn FnMut(&[ReportLine]) -> std::io::Result<()> + Send),
    ) -> PyResult<Tally> {
        let policy = policy_of(policy)?;
        if commit_every == 0 {
            return Err(PyValueError::new_err("commit_every must be at least 1"));
        }
        let writer = py
            .allow_threads(|| self.index.dedup.writer(policy, WRITER_MEMORY))
            .map_err(error)?;
        let mut tally = Tally::default();
        let mut window = Vec::with_capacity(commit_every.min(10_000));
        // Records an earlier ingest decided again (or reported lost) and stopped before it
        // was known to have recorded: reported again (`repeated`), with the first window.
        let mut again: Vec<ReportLine> = (writer.take_rejudged().iter())
            .map(ReportLine::of_rejudged)
            .collect();
        let mut flush = |py: Python<'_>, window: Vec<Input>| -> PyResult<()> {
            let written = py.allow_threads(|| {
                let mut lines = std::mem::take(&mut again);
                lines.extend(self.ingest_window(&writer, window).map_err(error)?);
                writer.commit().map_err(error)?;
                lines.iter().for_each(|line| tally.count(line));
                sink(&lines)
                    .map_err(|e| PyOSError::new_err(format!("cannot write the report: {e}")))
            });
            written
        };
        for (n, item) in records.try_iter()?.enumerate() {
            window.push(input_of(n, &item?)?);
            if window.len() >= commit_every {
                flush(py, std::mem::take(&mut window))?;
            }
        }
        flush(py, window)?;
        // The sink holds the last window's lost records now: a commit says so, or the next
        // ingest would report them again.
        py.allow_threads(|| writer.deliver_reports())
            .map_err(error)?;
        self.reader
            .reload()
            .map_err(|e| error(tantivy_dedup::Error::Tantivy(e)))?;
        Ok(tally)
    }

    /// Ingests one window of inputs with the GIL released; their report lines in order.
    fn ingest_window(
        &self,
        writer: &tantivy_dedup::plugin::DedupWriter,
        inputs: Vec<Input>,
    ) -> tantivy_dedup::Result<Vec<ReportLine>> {
        let fields = &self.index.fields;
        let documents: Vec<_> = (inputs.iter())
            .filter_map(|input| match input {
                Input::Record(record) => Some(fields.document(record)),
                Input::Error(_) => None,
            })
            .collect();
        let window = documents.len().max(1);
        let mut outcomes = writer.add_all(documents).window(window);
        let mut lines = Vec::with_capacity(inputs.len());
        for input in inputs {
            let mut rejudged = Vec::new();
            lines.push(match input {
                Input::Error(line) => line,
                Input::Record(record) => {
                    let outcome = outcomes.next().expect("one per document");
                    // Records judged against a document this one changed, decided again (or
                    // lost): their lines follow this record's, as `ingest --report` writes
                    // them, so that a record's last line is its outcome.
                    rejudged = writer.take_rejudged();
                    match outcome {
                        Ok(outcome) => ReportLine::of_outcome(record.id, &outcome),
                        Err(e @ tantivy_dedup::Error::KeyTooLong { .. }) => {
                            ReportLine::error(record.id, format!("`id`: {e}"))
                        }
                        Err(e) => return Err(e),
                    }
                }
            });
            lines.extend(rejudged.iter().map(ReportLine::of_rejudged));
        }
        Ok(lines)
    }
}

#[pymethods]
impl CorpusIndex {
    /// Opens the index in `path` with the settings it was created with.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        no_index_error(&path, false)?;
        let index = py
            .allow_threads(|| corpus::CorpusIndex::open(&path))
            .map_err(error)?;
        CorpusIndex::of(index)
    }

    /// Opens the index in `path`, or creates it there with `settings` (the library's
    /// defaults when `None`) when the folder is missing or empty.
    #[staticmethod]
    #[pyo3(signature = (path, settings=None))]
    fn open_or_create(
        py: Python<'_>,
        path: PathBuf,
        settings: Option<&MatchingSettings>,
    ) -> PyResult<Self> {
        let matching = settings.map(|s| s.0.clone());
        // As the library's `open_or_create`: a whole index opens without the creation lock
        // (which a read-only index could not take).
        if !corpus::CorpusIndex::exists(&path) {
            py.allow_threads(|| {
                corpus::CorpusIndex::create(&path, || match &matching {
                    Some(matching) => corpus_settings().matching(matching.clone()),
                    None => corpus_settings(),
                })
            })
            .map_err(error)?;
        }
        // A folder of other files is left as it is by `create`.
        no_index_error(&path, true)?;
        let index = py
            .allow_threads(|| corpus::CorpusIndex::open(&path))
            .map_err(error)?;
        CorpusIndex::of(index)
    }

    /// The index's matching settings.
    #[getter]
    fn settings(&self) -> MatchingSettings {
        MatchingSettings(self.index.dedup.settings().get_matching().clone())
    }

    /// Documents in the index, as of the last ingest or open.
    fn __len__(&self) -> usize {
        usize::try_from(self.reader.searcher().num_docs()).unwrap_or(usize::MAX)
    }

    /// Ingests `records` (dicts), deciding each by `policy`, committing every
    /// `commit_every` records and at the end; the report, one JSON line per record.
    #[pyo3(signature = (records, policy="reject", commit_every=10_000))]
    fn ingest_json(
        &self,
        py: Python<'_>,
        records: &Bound<'_, PyAny>,
        policy: &str,
        commit_every: usize,
    ) -> PyResult<Vec<String>> {
        let mut report = Vec::new();
        self.ingest_with(py, records, policy, commit_every, &mut |lines| {
            for line in lines {
                report.push(serde_json::to_string(line).expect("a report line serializes"));
            }
            Ok(())
        })?;
        Ok(report)
    }

    /// Ingests `records` as [`ingest_json`](Self::ingest_json) does, writing the report to
    /// the file `report` (created or truncated; one JSON line per record, as `ingest
    /// --report` writes them) a window at a time rather than keeping it; the count of
    /// records and of each status (`added`, `updated`, `exists`, `duplicate`, `error`), by
    /// their own lines, and of records reported `lost`.
    #[pyo3(signature = (records, report, policy="reject", commit_every=10_000))]
    fn ingest_to_file<'py>(
        &self,
        py: Python<'py>,
        records: &Bound<'_, PyAny>,
        report: PathBuf,
        policy: &str,
        commit_every: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        policy_of(policy)?;
        if commit_every == 0 {
            return Err(PyValueError::new_err("commit_every must be at least 1"));
        }
        let file = std::fs::File::create(&report).map_err(|e| {
            PyOSError::new_err(format!(
                "cannot create the report {}: {e}",
                report.display()
            ))
        })?;
        let mut out = std::io::BufWriter::new(file);
        let tally = self.ingest_with(py, records, policy, commit_every, &mut |lines| {
            for line in lines {
                serde_json::to_writer(&mut out, line).map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
            }
            Ok(())
        });
        let flushed = out.flush();
        let tally = tally?;
        flushed.map_err(|e| {
            PyOSError::new_err(format!("cannot write the report {}: {e}", report.display()))
        })?;
        tally.into_dict(py)
    }
    /// A page of hits for `query` (tantivy's query syntax over title and body) with
    /// near-duplicates hidden, as JSON (`tantivy-dedup search --json`'s form).
    #[pyo3(signature = (query, limit=10, offset=0, skip_flagged=false))]
    fn search_json(
        &self,
        py: Python<'_>,
        query: &str,
        limit: usize,
        offset: usize,
        skip_flagged: bool,
    ) -> PyResult<String> {
        let request = PageRequest {
            limit,
            offset,
            skip_flagged,
        };
        let searcher = self.reader.searcher();
        let page = py
            .allow_threads(|| self.index.search(&searcher, query, request))
            .map_err(error)?;
        Ok(serde_json::to_string(&page).expect("a page serializes"))
    }

    /// Writes the review pages of the index's decisions (or of the ingest report `report`,
    /// with the JSON-lines `inputs` for rejected texts) at `out` and beside it: the paths
    /// written, the number of decisions, and `FILE#ANCHOR` of the decision about `id`.
    #[pyo3(signature = (out, report=None, inputs=Vec::new(), id=None))]
    fn review(
        &self,
        py: Python<'_>,
        out: PathBuf,
        report: Option<PathBuf>,
        inputs: Vec<PathBuf>,
        id: Option<String>,
    ) -> PyResult<(Vec<String>, usize, Option<String>)> {
        let searcher = self.reader.searcher();
        py.allow_threads(|| {
            let review = self.review_of(searcher, report.as_deref(), &inputs)?;
            let files = review.write_html(&out).map_err(error)?;
            let at = match id {
                Some(id) => {
                    let rank = review.rank_of(&id).map_err(error)?.ok_or_else(|| {
                        PyValueError::new_err(format!("no decision names the record {id:?}"))
                    })?;
                    let decision = (review.decision_at(rank, &out).map_err(error)?)
                        .expect("the rank is a decision's");
                    let page = review::page_path(&out, (rank - 1) / review::DECISIONS_PER_PAGE);
                    Some(format!("{}#{}", page.display(), decision.anchor))
                }
                None => None,
            };
            let files = files
                .iter()
                .map(|path| path.display().to_string())
                .collect();
            Ok((files, review.len(), at))
        })
    }

    /// The review's decisions as JSON lines, as `tantivy-dedup review --json` prints them.
    #[pyo3(signature = (report=None, inputs=Vec::new()))]
    fn review_json(
        &self,
        py: Python<'_>,
        report: Option<PathBuf>,
        inputs: Vec<PathBuf>,
    ) -> PyResult<Vec<String>> {
        let searcher = self.reader.searcher();
        py.allow_threads(|| {
            let review = self.review_of(searcher, report.as_deref(), &inputs)?;
            let out = Path::new("review.html");
            (review.decisions(out))
                .map(|decision| Ok(decision.map_err(error)?.to_json(review.rule()).to_string()))
                .collect()
        })
    }

    /// Every group of near-duplicates, by id, leader first, as `tantivy-dedup clusters`
    /// lists them.
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let searcher = self.reader.searcher();
        let clusters = py
            .allow_threads(|| self.index.clusters(&searcher))
            .map_err(error)?;
        PyList::new(py, clusters)
    }
}
