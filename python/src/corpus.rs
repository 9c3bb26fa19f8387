//! `CorpusIndex`: an index folder of the command-line tool (create, open, ingest with a
//! policy and per-record reports, search with hidden hits, clusters), shared with the CLI.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tantivy::{IndexReader, ReloadPolicy};
use tantivy_dedup::corpus::{self, corpus_settings, CorpusRecord, PageRequest, ReportLine};
use tantivy_dedup::plugin::Policy;

use crate::error;
use crate::settings::MatchingSettings;

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

/// The record of a Python mapping `item` (the `n`th of an ingest): `id` and `text` (or
/// `body`) strings, `title` and `url` strings or `None`, `tags` a list of strings.
fn input_of(n: usize, item: &Bound<'_, PyAny>) -> PyResult<Input> {
    let Ok(map) = item.downcast::<PyDict>() else {
        let reason = format!("not a dict but {}", item.get_type().name()?);
        return Ok(Input::Error(ReportLine::error(format!("#{n}"), reason)));
    };
    let text_of = |key: &str| -> PyResult<Option<String>> {
        match map.get_item(key)? {
            None => Ok(None),
            Some(value) if value.is_none() => Ok(None),
            Some(value) => value.extract::<String>().map(Some).map_err(|_| {
                PyValueError::new_err(format!("record #{n}: `{key}` is not a string"))
            }),
        }
    };
    let place = format!("#{n}");
    let fields = (|| -> PyResult<_> {
        let id = text_of("id")?;
        let text = match text_of("text")? {
            Some(text) => Some(text),
            None => text_of("body")?,
        };
        let tags: Vec<String> = match map.get_item("tags")? {
            None => Vec::new(),
            Some(value) if value.is_none() => Vec::new(),
            Some(value) => value.extract().map_err(|_| {
                PyValueError::new_err(format!("record #{n}: `tags` is not a list of strings"))
            })?,
        };
        Ok((id, text, text_of("title")?, text_of("url")?, tags))
    })();
    let (id, text, title, url, tags) = match fields {
        Ok(fields) => fields,
        Err(e) => return Ok(Input::Error(ReportLine::error(place, e.to_string()))),
    };
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return Ok(Input::Error(ReportLine::error(place, "no `id`".into())));
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
    fn of(index: corpus::CorpusIndex) -> PyResult<Self> {
        let reader = (index.dedup.index().reader_builder())
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e: tantivy::TantivyError| error(e.into()))?;
        Ok(CorpusIndex { index, reader })
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
            lines.push(match input {
                Input::Error(line) => line,
                Input::Record(record) => match outcomes.next().expect("one per document") {
                    Ok(outcome) => ReportLine::of_outcome(record.id, &outcome),
                    Err(e @ tantivy_dedup::Error::KeyTooLong { .. }) => {
                        ReportLine::error(record.id, format!("`id`: {e}"))
                    }
                    Err(e) => return Err(e),
                },
            });
        }
        Ok(lines)
    }
}

#[pymethods]
impl CorpusIndex {
    /// Opens the index in `path` with the settings it was created with.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
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
        let index = py
            .allow_threads(|| {
                corpus::CorpusIndex::open_or_create(&path, || match &matching {
                    Some(matching) => corpus_settings().with_matching(matching),
                    None => corpus_settings(),
                })
            })
            .map_err(error)?;
        CorpusIndex::of(index)
    }

    /// The index's matching settings.
    #[getter]
    fn settings(&self) -> MatchingSettings {
        MatchingSettings(self.index.dedup.settings().matching())
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
        let policy = policy_of(policy)?;
        if commit_every == 0 {
            return Err(PyValueError::new_err("commit_every must be at least 1"));
        }
        let writer = py
            .allow_threads(|| self.index.dedup.writer(policy, WRITER_MEMORY))
            .map_err(error)?;
        let mut report = Vec::new();
        let mut window = Vec::with_capacity(commit_every.min(10_000));
        let mut flush = |py: Python<'_>, window: Vec<Input>| -> PyResult<()> {
            let lines = py
                .allow_threads(|| {
                    let lines = self.ingest_window(&writer, window)?;
                    writer.commit()?;
                    Ok::<_, tantivy_dedup::Error>(lines)
                })
                .map_err(error)?;
            for line in lines {
                report.push(serde_json::to_string(&line).expect("a report line serializes"));
            }
            Ok(())
        };
        for (n, item) in records.try_iter()?.enumerate() {
            window.push(input_of(n, &item?)?);
            if window.len() >= commit_every {
                flush(py, std::mem::take(&mut window))?;
            }
        }
        flush(py, window)?;
        self.reader
            .reload()
            .map_err(|e| error(tantivy_dedup::Error::Tantivy(e)))?;
        Ok(report)
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

    /// Every group of near-duplicates, by id, leader first.
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let searcher = self.reader.searcher();
        let clusters = py
            .allow_threads(|| self.index.clusters(&searcher))
            .map_err(error)?;
        PyList::new(py, clusters)
    }
}
