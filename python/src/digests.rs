//! Candidate pairs met with their signatures' digests (a byte a value), for jobs that drop
//! the candidates whose signatures cannot agree enough before they join whole signatures:
//! pairs packed by the bucket of their first document (`pack_pairs`), each given the
//! digest of its first and packed by the bucket of its second (`attach_digests`), then
//! kept when the digests may agree enough (`agreeing_pairs`); the digest rows are packed
//! by the bucket of their document (`pack_by_order`). Or, where every document's digest
//! fits a broadcast, candidates kept by a table of them all (`kept_candidates`).
//!
//! A digest row is `order` (i64), `usable` (a byte: the document has a signature) and the
//! digest (`len` bytes); a pair row is `a`, `b` (i64) and `distance` (u32); a carried row
//! is a pair row, then the first document's `usable` and digest. All little-endian.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::packing::{bucket_of, Packed};
use crate::{packed_bytes, pair_columns, signed_words, words, Columns3, DedupError};

/// The bytes of a pair row.
const PAIR: usize = 20;

/// The bytes of a digest row with digests of `len` bytes.
fn digest_row(len: usize) -> usize {
    8 + 1 + len
}

/// The bytes of a carried row with digests of `len` bytes.
fn carried_row(len: usize) -> usize {
    PAIR + 1 + len
}

/// One pair row.
fn pair_at(rows: &[u8], i: usize) -> (i64, i64, u32) {
    let row = &rows[i * PAIR..(i + 1) * PAIR];
    (
        i64::from_le_bytes(row[..8].try_into().expect("8 bytes")),
        i64::from_le_bytes(row[8..16].try_into().expect("8 bytes")),
        u32::from_le_bytes(row[16..20].try_into().expect("4 bytes")),
    )
}

/// The bucket of a document's order among `count` (kind 0).
fn order_bucket(order: i64, count: u32) -> u32 {
    bucket_of(0, order as u64, count)
}

/// Rows of `width` bytes whose first 8 are an order, by order (each order once).
fn by_order(table: &[u8], width: usize) -> PyResult<HashMap<i64, &[u8]>> {
    if width < 8 || !table.len().is_multiple_of(width) {
        return Err(DedupError::new_err(format!(
            "digest rows: {} bytes is not a whole number of {width}-byte rows",
            table.len()
        )));
    }
    Ok(table
        .chunks_exact(width)
        .map(|row| {
            (
                i64::from_le_bytes(row[..8].try_into().expect("8 bytes")),
                row,
            )
        })
        .collect())
}

/// Rows of `width` bytes packed by the bucket among `buckets` of the order (little-endian
/// i64) at byte `at` of each.
fn by_order_bucket(rows: &[u8], width: usize, at: usize, buckets: u32) -> Packed {
    let order = |row: &[u8]| i64::from_le_bytes(row[at..at + 8].try_into().expect("8 bytes"));
    let of: Vec<u32> = (rows.chunks_exact(width))
        .map(|row| order_bucket(order(row), buckets))
        .collect();
    Packed::by_bucket(&of, buckets, width, |i, out| {
        out.copy_from_slice(&rows[i * width..(i + 1) * width]);
    })
}

/// Rows of `width` bytes whose first 8 are a document's order (little-endian i64), such as
/// digest rows, packed by the bucket of that order among `buckets`: the buckets, their byte
/// offsets and the end, and the rows.
#[pyfunction]
pub(crate) fn pack_by_order<'py>(
    py: Python<'py>,
    rows: &[u8],
    width: usize,
    buckets: u32,
) -> PyResult<Columns3<'py>> {
    if width < 8 || !rows.len().is_multiple_of(width) || buckets == 0 {
        return Err(DedupError::new_err(format!(
            "pack_by_order: {} bytes of {width}-byte rows into {buckets} buckets",
            rows.len()
        )));
    }
    let packed = py.allow_threads(|| by_order_bucket(rows, width, 0, buckets));
    packed_bytes(py, &packed)
}

/// Pairs (little-endian i64 `a` and `b`, u32 distances) as pair rows packed by the bucket
/// of `a` among `buckets`: the buckets, their byte offsets and the end, and the rows (see
/// the module).
#[pyfunction]
pub(crate) fn pack_pairs<'py>(
    py: Python<'py>,
    a: &[u8],
    b: &[u8],
    distance: &[u8],
    buckets: u32,
) -> PyResult<Columns3<'py>> {
    let (a, b) = (signed_words(a, "a")?, signed_words(b, "b")?);
    let distance = words(distance, 4, "distance")?;
    if b.len() != a.len() || distance.len() != a.len() || buckets == 0 {
        return Err(DedupError::new_err(format!(
            "pack_pairs: {} a, {} b and {} distances into {buckets} buckets",
            a.len(),
            b.len(),
            distance.len()
        )));
    }
    let packed = py.allow_threads(|| {
        let mut rows = vec![0u8; a.len() * PAIR];
        for (i, row) in rows.chunks_exact_mut(PAIR).enumerate() {
            row[..8].copy_from_slice(&a[i].to_le_bytes());
            row[8..16].copy_from_slice(&b[i].to_le_bytes());
            row[16..20].copy_from_slice(&(distance[i] as u32).to_le_bytes());
        }
        by_order_bucket(&rows, PAIR, 0, buckets)
    });
    packed_bytes(py, &packed)
}

/// Each pair row of `pairs` followed by the `usable` byte and digest of its first
/// document's row in `table` (digest rows of `len` bytes of digest), packed by the bucket
/// of its second document among `buckets`.
///
/// # Errors
/// `DedupError` when a pair's first document has no row in `table`.
#[pyfunction]
pub(crate) fn attach_digests<'py>(
    py: Python<'py>,
    table: &[u8],
    pairs: &[u8],
    len: usize,
    buckets: u32,
) -> PyResult<Columns3<'py>> {
    let digests = by_order(table, digest_row(len))?;
    if !pairs.len().is_multiple_of(PAIR) || buckets == 0 {
        return Err(DedupError::new_err(
            "attach_digests: pair rows are 20 bytes each",
        ));
    }
    let count = pairs.len() / PAIR;
    let mut found = Vec::with_capacity(count);
    for i in 0..count {
        let (a, _, _) = pair_at(pairs, i);
        let row = digests.get(&a).ok_or_else(|| {
            DedupError::new_err(format!("attach_digests: document {a} has no digest row"))
        })?;
        found.push(&row[8..]);
    }
    let width = carried_row(len);
    let packed = py.allow_threads(|| {
        let mut carried = vec![0u8; count * width];
        for (i, row) in carried.chunks_exact_mut(width).enumerate() {
            row[..PAIR].copy_from_slice(&pairs[i * PAIR..(i + 1) * PAIR]);
            row[PAIR..].copy_from_slice(found[i]);
        }
        // By the bucket of the second document, whose order follows the first's.
        by_order_bucket(&carried, width, 8, buckets)
    });
    packed_bytes(py, &packed)
}

/// The pairs of `carried` rows (`attach_digests`'s) whose digests may agree on `least`
/// positions or more with the digest of their second document's row in `table`, or where
/// either document has no signature (`usable` 0): little-endian i64 `a` and `b`, and u32
/// distances.
///
/// # Errors
/// `DedupError` when a pair's second document has no row in `table`.
#[pyfunction]
pub(crate) fn agreeing_pairs<'py>(
    py: Python<'py>,
    table: &[u8],
    carried: &[u8],
    len: usize,
    least: usize,
) -> PyResult<Columns3<'py>> {
    let digests = by_order(table, digest_row(len))?;
    let width = carried_row(len);
    if !carried.len().is_multiple_of(width) {
        return Err(DedupError::new_err(format!(
            "agreeing_pairs: carried rows are {width} bytes each"
        )));
    }
    let mut kept = Vec::new();
    for row in carried.chunks_exact(width) {
        let (a, b, distance) = pair_at(row, 0);
        let other = digests.get(&b).ok_or_else(|| {
            DedupError::new_err(format!("agreeing_pairs: document {b} has no digest row"))
        })?;
        if may_agree(
            (row[PAIR], &row[PAIR + 1..]),
            (other[8], &other[9..]),
            least,
        ) {
            kept.push((a, b, distance));
        }
    }
    Ok(pair_columns(py, &kept))
}

/// Whether two documents, each its `usable` byte and digest, may agree on `least`
/// signature values or more, or either has no signature (`usable` 0, for the judge to
/// rule on).
fn may_agree(
    (usable, digest): (u8, &[u8]),
    (other_usable, other_digest): (u8, &[u8]),
    least: usize,
) -> bool {
    // Where two bytes differ the values do: the equal bytes bound the equal values.
    let bound = digest
        .iter()
        .zip(other_digest)
        .filter(|(x, y)| x == y)
        .count();
    usable == 0 || other_usable == 0 || bound >= least
}

/// Which pairs `a`, `b` (little-endian i64) to keep, a byte each (1 to keep), by a table of
/// every document's digest: `orders` (little-endian i64, ascending), `usable` (a byte a
/// document) and `digests` (`len` bytes a document), in one order. A pair that is no
/// `candidate` (a byte a pair, 0) is kept; a candidate is kept when its documents may agree
/// on `least` values (the rule of `agreeing_pairs`).
///
/// # Errors
/// `DedupError` for columns of unequal lengths, or a candidate's document without a row.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn kept_candidates<'py>(
    py: Python<'py>,
    orders: &[u8],
    usable: &[u8],
    digests: &[u8],
    len: usize,
    a: &[u8],
    b: &[u8],
    candidate: &[u8],
    least: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let documents = usable.len();
    let pairs = candidate.len();
    if orders.len() != 8 * documents || digests.len() != len * documents {
        return Err(DedupError::new_err(format!(
            "kept_candidates: {documents} documents need {} bytes of orders and {} of digests",
            8 * documents,
            len * documents
        )));
    }
    if a.len() != 8 * pairs || b.len() != 8 * pairs {
        return Err(DedupError::new_err(format!(
            "kept_candidates: {pairs} pairs need {} bytes of a and of b",
            8 * pairs
        )));
    }
    // The `i`th little-endian i64 of a column of them.
    let nth = |column: &[u8], i: usize| {
        i64::from_le_bytes(column[8 * i..8 * i + 8].try_into().expect("8 bytes"))
    };
    let order_at = |i: usize| nth(orders, i);
    // The candidates' documents, sorted: the table is then read forward once, each
    // document found by a galloping search from the last one. A binary search from the
    // top of the table for each side of each pair took a fifth of the pairing stage's
    // time at a million documents.
    let mut wanted: Vec<(i64, usize)> = (0..pairs)
        .filter(|&i| candidate[i] != 0)
        .flat_map(|i| [(nth(a, i), 2 * i), (nth(b, i), 2 * i + 1)])
        .collect();
    wanted.sort_unstable();
    let mut row = vec![0usize; 2 * pairs];
    let mut from = 0;
    for (order, slot) in wanted {
        // Every row before `from` is of an earlier order; the first of `order` or after
        // lies within `bound` of it, found by doubling `bound`, then by bisection.
        let mut bound = 1;
        while from + bound < documents && order_at(from + bound) < order {
            bound *= 2;
        }
        let (mut low, mut high) = (from + bound / 2, (from + bound + 1).min(documents));
        while low < high {
            let middle = low + (high - low) / 2;
            if order_at(middle) < order {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        from = low;
        if from == documents || order_at(from) != order {
            return Err(DedupError::new_err(format!(
                "kept_candidates: document {order} has no digest row"
            )));
        }
        row[slot] = from;
    }
    let document = |i: usize| (usable[i], &digests[i * len..(i + 1) * len]);
    let mut keep = vec![1u8; pairs];
    for (i, kept) in keep.iter_mut().enumerate() {
        if candidate[i] != 0 {
            *kept = u8::from(may_agree(
                document(row[2 * i]),
                document(row[2 * i + 1]),
                least,
            ));
        }
    }
    Ok(PyBytes::new(py, &keep))
}
