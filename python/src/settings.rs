//! `MatchingSettings`: the settings file of an index, as Python sees it.

use pyo3::prelude::*;
use tantivy_dedup::grouping::Grouping;
use tantivy_dedup::matching;

use crate::error;

/// The matching settings: fingerprint config, distance and two-stage matching, as the
/// settings file `tantivy-dedup eval --recommend` writes and `ingest --settings` reads.
#[pyclass(module = "tantivy_dedup._native", frozen)]
#[derive(Clone)]
pub(crate) struct MatchingSettings(pub(crate) matching::MatchingSettings);

#[pymethods]
impl MatchingSettings {
    /// The library's defaults.
    #[new]
    fn new() -> Self {
        MatchingSettings(matching::MatchingSettings::default())
    }

    /// Settings from their JSON text.
    #[staticmethod]
    fn from_json(json: &str) -> PyResult<Self> {
        matching::MatchingSettings::from_json(json.as_bytes())
            .map(MatchingSettings)
            .map_err(error)
    }

    /// Settings read from a file.
    #[staticmethod]
    fn read(path: std::path::PathBuf) -> PyResult<Self> {
        matching::MatchingSettings::read(&path)
            .map(MatchingSettings)
            .map_err(error)
    }

    /// The settings as JSON text.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    /// The settings with another distance.
    fn with_distance(&self, k: u32) -> PyResult<Self> {
        let settings = self.0.clone().distance(k);
        settings.validate().map_err(error)?;
        Ok(MatchingSettings(settings))
    }

    /// The distance *k*.
    #[getter]
    fn distance(&self) -> u32 {
        self.0.get_distance()
    }

    /// Values per signature; `None` without two-stage matching.
    #[getter]
    fn signature_len(&self) -> Option<usize> {
        self.0.get_verification().map(|v| v.get_hashes())
    }

    /// How `tantivy-dedup clusters` groups near pairs under these settings: `"centres"`
    /// (every two documents of a group near) or, where the signatures' threshold is below
    /// 0.5 (the `rewrites` preset), `"stars"` (every document near its group's leader).
    #[getter]
    fn grouping(&self) -> &'static str {
        match Grouping::for_settings(&self.0) {
            Grouping::Centres => "centres",
            Grouping::Stars => "stars",
            Grouping::Components => "components",
            other => unreachable!("a grouping the bindings do not name: {other:?}"),
        }
    }

    fn __repr__(&self) -> String {
        format!("MatchingSettings.from_json({:?})", self.0.to_json())
    }
}
