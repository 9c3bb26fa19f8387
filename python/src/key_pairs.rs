//! The pairs of documents that share a grouping key (a block-table key or a band key)
//! within a range of Hamming distances, for jobs that group on such keys: the key rows of
//! documents packed by bucket (`pack_key_rows`), and the pairs of a bucket's rows
//! (`packed_pairs`, or `pairs_sharing_keys` over columns).

use std::ops::RangeInclusive;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::packing::{bucket_of, Packed};
use crate::{packed_bytes, pair_columns, signed_words, words, Columns3, DedupError};

/// One document's key of one kind (a table or a band).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KeyRow {
    kind: u32,
    key: u64,
    order: i64,
    fp: u64,
}

impl KeyRow {
    /// The bytes of a packed row: little-endian `kind` (u16), `order` (i64), `fp` (u64) and
    /// a band's key (u32). A table's key is the fingerprint's bits under the table's mask:
    /// it is read back from the fingerprint, not from the row.
    const BYTES: usize = 22;

    /// The row packed in `bytes`, the kinds below `masks.len()` being tables whose keys
    /// hold the bits `masks[kind]` of a fingerprint.
    fn read(bytes: &[u8], masks: &[u64]) -> KeyRow {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let kind = u32::from(u16::from_le_bytes(bytes[..2].try_into().expect("2 bytes")));
        let fp = word(10);
        let key = match masks.get(kind as usize) {
            Some(mask) => fp & mask,
            None => u64::from(u32::from_le_bytes(
                bytes[18..22].try_into().expect("4 bytes"),
            )),
        };
        KeyRow {
            kind,
            key,
            order: word(2) as i64,
            fp,
        }
    }

    /// Packs the row (a band's key in 32 bits; a table's key slot is not read back).
    fn write(&self, out: &mut [u8]) {
        out[..2].copy_from_slice(&(self.kind as u16).to_le_bytes());
        out[2..10].copy_from_slice(&self.order.to_le_bytes());
        out[10..18].copy_from_slice(&self.fp.to_le_bytes());
        out[18..22].copy_from_slice(&(self.key as u32).to_le_bytes());
    }
}

/// The key rows of documents packed by bucket: for each document (little-endian i64
/// `orders`, u64 `fingerprints`), a row per table of `tables` (kind `t`; its key the
/// fingerprint's bits in the table's `(shift, width)` blocks, the others cleared) and, for a
/// document whose `has_bands` byte is 1, a row per band (kinds after the tables; its key
/// the document's u32 in `bands`, `width` a document). Returns the buckets that hold rows
/// (little-endian i32, ascending), where each one's rows start and end in `rows` (i32
/// byte offsets, one more than the buckets), and the rows (22 bytes each: kind u16, order
/// i64, fingerprint u64, band key u32), in order of bucket, then of input.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_key_rows<'py>(
    py: Python<'py>,
    orders: &[u8],
    fingerprints: &[u8],
    bands: &[u8],
    has_bands: &[u8],
    width: usize,
    tables: Vec<Vec<(u32, u32)>>,
    buckets: u32,
) -> PyResult<Columns3<'py>> {
    let orders = signed_words(orders, "orders")?;
    let fingerprints = words(fingerprints, 8, "fingerprints")?;
    let bands = words(bands, 4, "bands")?;
    let n = orders.len();
    if fingerprints.len() != n || has_bands.len() != n || bands.len() != n * width {
        return Err(DedupError::new_err(format!(
            "pack_key_rows: {n} orders, {} fingerprints, {} has_bands and {} band keys ({width} a \
             document)",
            fingerprints.len(),
            has_bands.len(),
            bands.len()
        )));
    }
    if buckets == 0 || tables.len() + width > usize::from(u16::MAX) {
        return Err(DedupError::new_err(format!(
            "pack_key_rows: {buckets} buckets, {} tables and {width} bands: at least one \
             bucket and fewer than 65,535 kinds",
            tables.len()
        )));
    }
    let masks = table_masks(&tables, "pack_key_rows")?;
    let packed = py.allow_threads(|| {
        let mut rows = Vec::with_capacity(n * (tables.len() + width));
        for (i, (&order, &fp)) in orders.iter().zip(&fingerprints).enumerate() {
            for (kind, mask) in masks.iter().enumerate() {
                rows.push(KeyRow {
                    kind: kind as u32,
                    key: fp & mask,
                    order,
                    fp,
                });
            }
            if has_bands[i] != 0 {
                for (band, &key) in bands[i * width..(i + 1) * width].iter().enumerate() {
                    let kind = (tables.len() + band) as u32;
                    rows.push(KeyRow {
                        kind,
                        key,
                        order,
                        fp,
                    });
                }
            }
        }
        let of: Vec<u32> = (rows.iter())
            .map(|row| bucket_of(row.kind, row.key, buckets))
            .collect();
        Packed::by_bucket(&of, buckets, KeyRow::BYTES, |i, out| rows[i].write(out))
    });
    packed_bytes(py, &packed)
}

/// The pairs of packed key rows (`pack_key_rows`'s, any number concatenated) that share a
/// `(kind, key)`: within `k` bits for the kinds of `tables` (near), `k + 1` to `reach`
/// bits apart for the others (candidates). Returns little-endian i64 `a` and `b` (the
/// rows' orders, `a` before `b`), u32 distances and a byte per pair, 1 for a candidate;
/// each pair once, sorted.
///
/// A near pair comes only from the first of `tables` whose key its two fingerprints
/// share, so across all the buckets of a job it comes out once: two near documents share
/// most tables' keys (identical fingerprints all of them), and each bucket pairing them
/// again made pairs for a shuffle to drop. Candidates come from every band they share.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn packed_pairs<'py>(
    py: Python<'py>,
    rows: &[u8],
    tables: Vec<Vec<(u32, u32)>>,
    k: u32,
    reach: u32,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    if !rows.len().is_multiple_of(KeyRow::BYTES) {
        return Err(DedupError::new_err(format!(
            "packed_pairs: {} bytes is not a whole number of {}-byte rows",
            rows.len(),
            KeyRow::BYTES
        )));
    }
    let masks = table_masks(&tables, "packed_pairs")?;
    let (pairs, near) = py.allow_threads(|| {
        let rows: Vec<KeyRow> = (rows.chunks_exact(KeyRow::BYTES))
            .map(|bytes| KeyRow::read(bytes, &masks))
            .collect();
        let (near, candidates): (Vec<KeyRow>, Vec<KeyRow>) =
            (rows.into_iter()).partition(|row| (row.kind as usize) < masks.len());
        let mut pairs = pairs_of(near, 0..=k, &masks);
        let near = pairs.len();
        if k < reach {
            pairs.extend(pairs_of(candidates, k + 1..=reach, &[]));
        }
        (pairs, near)
    });
    // The near pairs first, then the candidates.
    let candidate: Vec<u8> = (0..pairs.len()).map(|i| u8::from(i >= near)).collect();
    let (a, b, distance) = pair_columns(py, &pairs);
    Ok((a, b, distance, PyBytes::new(py, &candidate)))
}

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
) -> PyResult<Columns3<'py>> {
    let kinds = words(kinds, 4, "kinds")?;
    let keys = words(keys, 8, "keys")?;
    let orders = signed_words(orders, "orders")?;
    let fingerprints = words(fingerprints, 8, "fingerprints")?;
    let n = kinds.len();
    if [keys.len(), orders.len(), fingerprints.len()] != [n; 3] {
        return Err(DedupError::new_err(format!(
            "pairs_sharing_keys: {n} kinds, {} keys, {} orders and {} fingerprints: one of \
             each a row",
            keys.len(),
            orders.len(),
            fingerprints.len()
        )));
    }
    let rows: Vec<KeyRow> = (0..n)
        .map(|i| KeyRow {
            kind: kinds[i] as u32,
            key: keys[i],
            order: orders[i],
            fp: fingerprints[i],
        })
        .collect();
    let pairs = py.allow_threads(|| pairs_of(rows, min_distance..=max_distance, &[]));
    Ok(pair_columns(py, &pairs))
}

/// The bits of a fingerprint that each table's key holds (`pack_key_rows`'s `tables`).
///
/// # Errors
/// `DedupError` naming `function` for a block outside the 64 bits of a fingerprint.
fn table_masks(tables: &[Vec<(u32, u32)>], function: &str) -> PyResult<Vec<u64>> {
    let block = |&(shift, bits): &(u32, u32)| {
        (bits != 0 && shift + bits <= 64).then(|| (u64::MAX >> (64 - bits)) << shift)
    };
    (tables.iter())
        .map(|blocks| {
            blocks
                .iter()
                .map(block)
                .try_fold(0, |mask, b| Some(mask | b?))
        })
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| {
            DedupError::new_err(format!(
                "{function}: a block outside the 64 bits of a fingerprint"
            ))
        })
}

/// The distinct pairs `(a, b, distance)`, `a` before `b`, of rows sharing a kind and a
/// key, at a distance in `within`, sorted. A pair of rows of kind `t` below `masks.len()`
/// (a table whose key holds the bits `masks[t]`) is left out when the two fingerprints
/// agree on the bits of an earlier table: that table's group gives it.
fn pairs_of(
    mut rows: Vec<KeyRow>,
    within: RangeInclusive<u32>,
    masks: &[u64],
) -> Vec<(i64, i64, u32)> {
    // The rows themselves sorted (not indices into columns: a comparison reads one place),
    // by order within a group, so that each pair comes out as (earlier, later).
    rows.sort_unstable_by_key(|row| (row.kind, row.key, row.order));
    let mut pairs = Vec::new();
    let same_group = |x: &KeyRow, y: &KeyRow| x.kind == y.kind && x.key == y.key;
    for group in rows.chunk_by(same_group) {
        // The tables before the group's: the same for every pair in it.
        let earlier = masks.get(..group[0].kind as usize).unwrap_or_default();
        for (at, x) in group.iter().enumerate() {
            for y in &group[at + 1..] {
                let differ = x.fp ^ y.fp;
                let distance = differ.count_ones();
                if within.contains(&distance)
                    && x.order < y.order
                    && !earlier.iter().any(|mask| differ & mask == 0)
                {
                    pairs.push((x.order, y.order, distance));
                }
            }
        }
    }
    // A pair that shares keys of several kinds (tables, bands) comes out once.
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}
