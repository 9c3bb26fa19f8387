//! `pairs_sharing_keys`: the pairs of documents that share a grouping key (a block-table key
//! or a band key) within a range of Hamming distances, for jobs that group on such keys.

use std::ops::RangeInclusive;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{column, signed_words, words, DedupError};

/// The pairs of rows that share a `(kind, key)` whose fingerprints lie `min_distance` to
/// `max_distance` bits apart, each pair once: little-endian i64 `a` and `b` (the rows'
/// orders, `a` before `b`) and u32 distances. The inputs are little-endian u32 kinds, u64
/// keys, i64 orders and u64 fingerprints, one of each a row; a document has at most one
/// row of a kind.
#[pyfunction]
pub(crate) fn pairs_sharing_keys<'py>(
    py: Python<'py>,
    kinds: &[u8],
    keys: &[u8],
    orders: &[u8],
    fingerprints: &[u8],
    min_distance: u32,
    max_distance: u32,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let rows = Rows {
        kinds: words(kinds, 4, "kinds")?,
        keys: words(keys, 8, "keys")?,
        orders: signed_words(orders, "orders")?,
        fingerprints: words(fingerprints, 8, "fingerprints")?,
    };
    let n = rows.kinds.len();
    if [rows.keys.len(), rows.orders.len(), rows.fingerprints.len()] != [n; 3] {
        return Err(DedupError::new_err(format!(
            "pairs_sharing_keys: {n} kinds, {} keys, {} orders and {} fingerprints: one of \
             each a row",
            rows.keys.len(),
            rows.orders.len(),
            rows.fingerprints.len()
        )));
    }
    let pairs = py.allow_threads(|| rows.pairs(min_distance..=max_distance));
    Ok((
        PyBytes::new(py, &column(&pairs, |pair| pair.0.to_le_bytes())),
        PyBytes::new(py, &column(&pairs, |pair| pair.1.to_le_bytes())),
        PyBytes::new(py, &column(&pairs, |pair| pair.2.to_le_bytes())),
    ))
}

/// Grouping rows, column by column.
struct Rows {
    kinds: Vec<u64>,
    keys: Vec<u64>,
    orders: Vec<i64>,
    fingerprints: Vec<u64>,
}

impl Rows {
    /// The distinct pairs `(a, b, distance)`, `a` before `b`, of rows sharing a kind and a
    /// key, at a distance in `within`, sorted.
    fn pairs(&self, within: RangeInclusive<u32>) -> Vec<(i64, i64, u32)> {
        let mut sorted: Vec<usize> = (0..self.kinds.len()).collect();
        // Sorted by order within a group, so that each pair comes out as (earlier, later).
        sorted.sort_unstable_by_key(|&i| (self.kinds[i], self.keys[i], self.orders[i]));
        let mut pairs = Vec::new();
        let same_group =
            |&i: &usize, &j: &usize| self.kinds[i] == self.kinds[j] && self.keys[i] == self.keys[j];
        for group in sorted.chunk_by(same_group) {
            for (at, &i) in group.iter().enumerate() {
                for &j in &group[at + 1..] {
                    let distance = (self.fingerprints[i] ^ self.fingerprints[j]).count_ones();
                    if within.contains(&distance) && self.orders[i] < self.orders[j] {
                        pairs.push((self.orders[i], self.orders[j], distance));
                    }
                }
            }
        }
        // A pair that shares keys of several kinds (tables, bands) comes out once.
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}
