//! `local_roots`: the connected components of a set of edges, as stars, for jobs that
//! contract a graph a partition at a time.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{column, signed_words, DedupError};

/// The components of the edges `(a[i], b[i])` (little-endian i64 vertices) as stars: for
/// every vertex that is not the least of its component, the vertex and that least vertex
/// (its root), as little-endian i64 `vertices` and `roots`, in order of vertex.
#[pyfunction]
pub(crate) fn local_roots<'py>(
    py: Python<'py>,
    a: &[u8],
    b: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (a, b) = (signed_words(a, "a")?, signed_words(b, "b")?);
    if a.len() != b.len() {
        return Err(DedupError::new_err(format!(
            "local_roots: {} vertices a for {} vertices b",
            a.len(),
            b.len()
        )));
    }
    let stars = py.allow_threads(|| roots(&a, &b));
    Ok((
        PyBytes::new(py, &column(&stars, |star| star.0.to_le_bytes())),
        PyBytes::new(py, &column(&stars, |star| star.1.to_le_bytes())),
    ))
}

/// `(vertex, root)` for every vertex of the edges but the roots, the root being the least
/// vertex of the vertex's component: a union-find over the vertices numbered in order, so
/// that the least index of a set is its least vertex.
fn roots(a: &[i64], b: &[i64]) -> Vec<(i64, i64)> {
    let mut vertices: Vec<i64> = a.iter().chain(b).copied().collect();
    vertices.sort_unstable();
    vertices.dedup();
    let index = |v: i64| vertices.binary_search(&v).expect("a vertex of the edges");
    let mut parent: Vec<usize> = (0..vertices.len()).collect();
    let find = |parent: &mut Vec<usize>, mut i: usize| {
        while parent[i] != i {
            // Path halving: each step also shortens the path for the next search.
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    };
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (find(&mut parent, index(x)), find(&mut parent, index(y)));
        // The lesser index becomes the root, so a set's root is its least vertex.
        let (low, high) = if x < y { (x, y) } else { (y, x) };
        parent[high] = low;
    }
    (0..vertices.len())
        .filter_map(|i| {
            let root = find(&mut parent, i);
            (root != i).then(|| (vertices[i], vertices[root]))
        })
        .collect()
}
