//! `tantivy_dedup._native`: the Rust side of the Python package. Texts are fingerprinted
//! and signed on rayon's pool with the GIL released; arrays cross as little-endian bytes,
//! which the Python side views as numpy arrays without copying them again. Index folders of
//! the command-line tool open as `CorpusIndex`.

mod components;
mod corpus;
mod digests;
mod fingerprint_index;
mod key_pairs;
mod leaders;
mod matcher;
mod packing;
mod settings;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

create_exception!(
    _native,
    DedupError,
    PyException,
    "An error of tantivy-dedup, with its message."
);

/// The library's error as a `DedupError`, its message followed by its causes'.
pub(crate) fn error(e: tantivy_dedup::Error) -> PyErr {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    DedupError::new_err(message)
}

/// Little-endian u64 or u32 values of `bytes`, `width` bytes each.
pub(crate) fn words(bytes: &[u8], width: usize, what: &str) -> PyResult<Vec<u64>> {
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

/// Little-endian i64 values of `bytes`, 8 bytes each (orders and vertices of Spark's longs).
pub(crate) fn signed_words(bytes: &[u8], what: &str) -> PyResult<Vec<i64>> {
    Ok(words(bytes, 8, what)?
        .into_iter()
        .map(|v| v as i64)
        .collect())
}

/// One little-endian column of `rows`: `field`'s bytes of each row, in order.
pub(crate) fn column<T, const N: usize>(rows: &[T], field: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
    rows.iter().flat_map(field).collect()
}

/// Three byte columns handed to Python.
pub(crate) type Columns3<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// Pairs `(a, b, distance)` as Python reads them: little-endian i64 `a` and `b`, u32
/// distances.
pub(crate) fn pair_columns<'py>(py: Python<'py>, pairs: &[(i64, i64, u32)]) -> Columns3<'py> {
    (
        PyBytes::new(py, &column(pairs, |pair| pair.0.to_le_bytes())),
        PyBytes::new(py, &column(pairs, |pair| pair.1.to_le_bytes())),
        PyBytes::new(py, &column(pairs, |pair| pair.2.to_le_bytes())),
    )
}

/// Rows packed by bucket as Python reads them: the buckets (little-endian i32), the byte
/// offset where each one's rows start and the end (i32: a batch's rows stay under 2 GB),
/// and the rows.
pub(crate) fn packed_bytes<'py>(
    py: Python<'py>,
    packed: &packing::Packed,
) -> PyResult<Columns3<'py>> {
    let bounds = (packed.bounds.iter())
        .map(|&bound| i32::try_from(bound).map(i32::to_le_bytes))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| DedupError::new_err("a batch's packed rows outgrow 2 GB"))?;
    Ok((
        PyBytes::new(py, &column(&packed.buckets, |b| (*b as i32).to_le_bytes())),
        PyBytes::new(py, &bounds.concat()),
        PyBytes::new(py, &packed.rows),
    ))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<settings::MatchingSettings>()?;
    m.add_class::<matcher::TextMatcher>()?;
    m.add_class::<fingerprint_index::FingerprintIndex>()?;
    m.add_class::<corpus::CorpusIndex>()?;
    m.add_function(wrap_pyfunction!(key_pairs::pairs_sharing_keys, m)?)?;
    m.add_function(wrap_pyfunction!(key_pairs::pack_key_rows, m)?)?;
    m.add_function(wrap_pyfunction!(key_pairs::packed_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(digests::pack_by_order, m)?)?;
    m.add_function(wrap_pyfunction!(digests::pack_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(digests::attach_digests, m)?)?;
    m.add_function(wrap_pyfunction!(digests::agreeing_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(digests::kept_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(components::local_roots, m)?)?;
    m.add_function(wrap_pyfunction!(leaders::leader_rows, m)?)?;
    m.add("DedupError", m.py().get_type::<DedupError>())?;
    Ok(())
}
