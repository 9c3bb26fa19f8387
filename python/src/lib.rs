//! `tantivy_dedup._native`: the Rust side of the Python package. Texts are fingerprinted
//! and signed on rayon's pool with the GIL released; arrays cross as little-endian bytes,
//! which the Python side views as numpy arrays without copying them again.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;
use tantivy_dedup::lookup;
use tantivy_dedup::matching::{self, Reason};
use tantivy_dedup::Fingerprint;

create_exception!(
    _native,
    DedupError,
    PyException,
    "An error of tantivy-dedup, with its message."
);

fn error(e: tantivy_dedup::Error) -> PyErr {
    DedupError::new_err(e.to_string())
}

/// The matching settings: fingerprint config, distance and two-stage matching, as the
/// settings file `tantivy-dedup eval --recommend` writes and `ingest --settings` reads.
#[pyclass(module = "tantivy_dedup._native", frozen)]
#[derive(Clone)]
struct MatchingSettings(matching::MatchingSettings);

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

    fn __repr__(&self) -> String {
        format!("MatchingSettings.from_json({:?})", self.0.to_json())
    }
}

/// Fingerprints, signatures and verdicts of texts under one set of matching settings.
#[pyclass(module = "tantivy_dedup._native", frozen)]
struct TextMatcher(matching::TextMatcher);

#[pymethods]
impl TextMatcher {
    #[new]
    #[pyo3(signature = (settings=None))]
    fn new(settings: Option<&MatchingSettings>) -> PyResult<Self> {
        let settings = settings.map_or_else(matching::MatchingSettings::default, |s| s.0.clone());
        matching::TextMatcher::new(&settings)
            .map(TextMatcher)
            .map_err(error)
    }

    /// Values per signature; `None` without two-stage matching.
    #[getter]
    fn signature_len(&self) -> Option<usize> {
        self.0.signature_len()
    }

    /// The fingerprints of `texts` as little-endian u64 bytes, and one byte per text, 1
    /// where the text has a fingerprint (0 for a text without features).
    fn fingerprints<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
    ) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
        let fingerprints: Vec<Option<Fingerprint>> =
            py.allow_threads(|| texts.par_iter().map(|t| self.0.fingerprint(t)).collect());
        let mut values = Vec::with_capacity(fingerprints.len() * 8);
        let mut valid = Vec::with_capacity(fingerprints.len());
        for fingerprint in &fingerprints {
            values.extend_from_slice(&fingerprint.map_or(0, |f| f.bits()).to_le_bytes());
            valid.push(u8::from(fingerprint.is_some()));
        }
        (PyBytes::new(py, &values), PyBytes::new(py, &valid))
    }

    /// The fingerprints and signatures of `texts`: fingerprints as little-endian u64 bytes,
    /// signatures as `signature_len` little-endian u32 values per text (zeros where a text
    /// has none), and one byte per text, 1 where it has both.
    fn fingerprints_and_signatures<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let Some(len) = self.0.signature_len() else {
            return Err(DedupError::new_err(
                "these settings have no two-stage matching, so no signatures",
            ));
        };
        let pairs: Vec<(Option<Fingerprint>, Option<Vec<u32>>)> = py.allow_threads(|| {
            texts
                .par_iter()
                .map(|t| self.0.fingerprint_and_signature(t))
                .collect()
        });
        let mut fingerprints = Vec::with_capacity(pairs.len() * 8);
        let mut signatures = Vec::with_capacity(pairs.len() * len * 4);
        let mut valid = Vec::with_capacity(pairs.len());
        for (fingerprint, signature) in &pairs {
            fingerprints.extend_from_slice(&fingerprint.map_or(0, |f| f.bits()).to_le_bytes());
            match signature {
                Some(values) => {
                    for value in values {
                        signatures.extend_from_slice(&value.to_le_bytes());
                    }
                }
                None => signatures.resize(signatures.len() + len * 4, 0),
            }
            valid.push(u8::from(fingerprint.is_some() && signature.is_some()));
        }
        Ok((
            PyBytes::new(py, &fingerprints),
            PyBytes::new(py, &signatures),
            PyBytes::new(py, &valid),
        ))
    }

    /// The verdict on two texts: a dict with `near`, `distance`, `jaccard`, `reason` and,
    /// where the reason has them, `k`, `reach`, `rows`, `score` and `threshold`.
    fn judge<'py>(&self, py: Python<'py>, a: &str, b: &str) -> PyResult<Bound<'py, PyDict>> {
        let judgement = py.allow_threads(|| self.0.judge(a, b));
        let dict = PyDict::new(py);
        dict.set_item("near", judgement.near)?;
        dict.set_item("distance", judgement.distance)?;
        dict.set_item("jaccard", judgement.jaccard)?;
        let reason = match judgement.reason {
            Reason::NoFingerprint => "no-fingerprint",
            Reason::WithinDistance { k } => {
                dict.set_item("k", k)?;
                "within-distance"
            }
            Reason::BeyondReach { reach } => {
                dict.set_item("reach", reach)?;
                "beyond-reach"
            }
            Reason::NoSignature => "no-signature",
            Reason::NoSharedBand { rows } => {
                dict.set_item("rows", rows)?;
                "no-shared-band"
            }
            Reason::BelowThreshold { score, threshold } => {
                dict.set_item("score", score)?;
                dict.set_item("threshold", threshold)?;
                "below-threshold"
            }
            Reason::Verified { score, threshold } => {
                dict.set_item("score", score)?;
                dict.set_item("threshold", threshold)?;
                "verified"
            }
            _ => "other",
        };
        dict.set_item("reason", reason)?;
        Ok(dict)
    }
}

/// Fingerprints by id, for lookups within a Hamming distance: Manku et al.'s permuted
/// block tables, exact (a query beyond the tables' distance scans).
#[pyclass(module = "tantivy_dedup._native")]
struct FingerprintIndex(lookup::FingerprintIndex);

/// Little-endian u64 or u32 values of `bytes`, `width` bytes each.
fn words(bytes: &[u8], width: usize, what: &str) -> PyResult<Vec<u64>> {
    if !bytes.len().is_multiple_of(width) {
        return Err(DedupError::new_err(format!(
            "{what}: {} bytes is not a whole number of {width}-byte values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(width)
        .map(|chunk| {
            let mut value = [0u8; 8];
            value[..width].copy_from_slice(chunk);
            u64::from_le_bytes(value)
        })
        .collect())
}

#[pymethods]
impl FingerprintIndex {
    /// An index built for lookups within `max_distance` bits (larger ones scan).
    #[new]
    #[pyo3(signature = (max_distance=lookup::DEFAULT_MAX_DISTANCE))]
    fn new(max_distance: u32) -> PyResult<Self> {
        let options = lookup::LookupOptions::new().max_distance(max_distance);
        lookup::FingerprintIndex::with_options(options)
            .map(FingerprintIndex)
            .map_err(error)
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    /// Inserts (or replaces) the fingerprint of `id`; the one it replaced, if any.
    fn insert(&mut self, id: u32, fingerprint: u64) -> Option<u64> {
        self.0
            .insert(id, Fingerprint(fingerprint))
            .map(|f| f.bits())
    }

    /// Inserts many: little-endian u32 ids and u64 fingerprints, as many of each.
    fn extend_bytes(&mut self, py: Python<'_>, ids: &[u8], fingerprints: &[u8]) -> PyResult<()> {
        let ids = words(ids, 4, "ids")?;
        let fingerprints = words(fingerprints, 8, "fingerprints")?;
        if ids.len() != fingerprints.len() {
            return Err(DedupError::new_err(format!(
                "{} ids for {} fingerprints",
                ids.len(),
                fingerprints.len()
            )));
        }
        let index = &mut self.0;
        py.allow_threads(|| {
            index.extend(
                ids.iter()
                    .zip(&fingerprints)
                    .map(|(&id, &f)| (id as u32, Fingerprint(f))),
            )
        });
        Ok(())
    }

    /// Removes `id`; whether it was there.
    fn remove(&mut self, id: u32) -> bool {
        self.0.remove(id)
    }

    /// The fingerprint of `id`, if any.
    fn get(&self, id: u32) -> Option<u64> {
        self.0.get(id).map(|f| f.bits())
    }

    /// `(id, distance)` of every fingerprint within `k` bits of `fingerprint` (default: the
    /// index's distance), nearest first.
    #[pyo3(signature = (fingerprint, k=None))]
    fn query(&self, py: Python<'_>, fingerprint: u64, k: Option<u32>) -> Vec<(u32, u32)> {
        let k = k.unwrap_or_else(|| self.0.max_distance());
        let mut matches = py.allow_threads(|| self.0.query(Fingerprint(fingerprint), k));
        matches.sort_by_key(|m| (m.distance, m.id));
        matches.into_iter().map(|m| (m.id, m.distance)).collect()
    }

    /// Every pair of stored fingerprints within `k` bits (default: the index's distance),
    /// as little-endian u32 bytes of `a`, `b` and `distance`, `a < b`.
    #[pyo3(signature = (k=None))]
    fn all_pairs_bytes<'py>(
        &self,
        py: Python<'py>,
        k: Option<u32>,
    ) -> (
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    ) {
        let k = k.unwrap_or_else(|| self.0.max_distance());
        let pairs = py.allow_threads(|| self.0.all_pairs(k));
        let column = |f: &dyn Fn(&lookup::Pair) -> u32| -> Vec<u8> {
            pairs.iter().flat_map(|p| f(p).to_le_bytes()).collect()
        };
        (
            PyBytes::new(py, &column(&|p| p.a.min(p.b))),
            PyBytes::new(py, &column(&|p| p.a.max(p.b))),
            PyBytes::new(py, &column(&|p| p.distance)),
        )
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MatchingSettings>()?;
    m.add_class::<TextMatcher>()?;
    m.add_class::<FingerprintIndex>()?;
    m.add("DedupError", m.py().get_type::<DedupError>())?;
    Ok(())
}
