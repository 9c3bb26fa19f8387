//! `FingerprintIndex`: the permuted block tables over fingerprints by id.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tantivy_dedup::lookup;
use tantivy_dedup::Fingerprint;

use crate::{column, error, words, DedupError};

/// Fingerprints by id, for lookups within a Hamming distance: Manku et al.'s permuted
/// block tables, exact (a query beyond the tables' distance scans).
#[pyclass(module = "tantivy_dedup._native")]
pub(crate) struct FingerprintIndex(lookup::FingerprintIndex);

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
        (
            PyBytes::new(py, &column(&pairs, |p| p.a.min(p.b).to_le_bytes())),
            PyBytes::new(py, &column(&pairs, |p| p.a.max(p.b).to_le_bytes())),
            PyBytes::new(py, &column(&pairs, |p| p.distance.to_le_bytes())),
        )
    }
}
