//! `TextMatcher`: fingerprints, signatures and verdicts of many texts on rayon's pool,
//! with the GIL released.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;
use tantivy_dedup::matching::{self, Reason};
use tantivy_dedup::Fingerprint;

use crate::settings::MatchingSettings;
use crate::{error, DedupError};

/// Fingerprints, signatures and verdicts of texts under one set of matching settings.
#[pyclass(module = "tantivy_dedup._native", frozen)]
pub(crate) struct TextMatcher(matching::TextMatcher);

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
