//! `FingerprintIndex`: the permuted block tables over fingerprints by id.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::lookup;

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

    /// The groups of ids whose fingerprints are linked by steps within `k` bits (default:
    /// the index's distance): the connected components of the pairs `all_pairs_bytes`
    /// lists, found without listing them. Ids of equal fingerprints join at once; each
    /// distinct fingerprint is queried once, a few thousand at a time, so memory is that of
    /// the ids and of one chunk's matches, whatever the number of pairs. Little-endian u32
    /// ids, grouped, each group ascending and the groups by their least id, singletons
    /// left out unless `singletons`; and the little-endian u64 offsets of the groups in
    /// them, one more than the groups.
    #[pyo3(signature = (k=None, singletons=false))]
    fn groups_bytes<'py>(
        &self,
        py: Python<'py>,
        k: Option<u32>,
        singletons: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let k = k.unwrap_or_else(|| self.0.max_distance());
        let (ids, offsets) = py
            .allow_threads(|| groups(&self.0, k, singletons))
            .map_err(error)?;
        Ok((
            PyBytes::new(py, &column(&ids, |id| id.to_le_bytes())),
            PyBytes::new(py, &column(&offsets, |o| o.to_le_bytes())),
        ))
    }

    /// Every pair of stored fingerprints within `k` bits (default: the index's distance),
    /// as little-endian u32 bytes of `a`, `b` and `distance`, `a < b`. Every pair is held
    /// at once, three times over: `n` equal fingerprints make `n (n - 1) / 2` pairs
    /// (`groups_bytes` finds their groups in the memory of the ids).
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

/// Distinct fingerprints queried at a time by [`groups`]: bounds the matches held at once.
const GROUP_QUERY_CHUNK: usize = 4096;

/// The groups of [`FingerprintIndex::groups_bytes`]: the ids, grouped, and the offsets of
/// the groups in them.
fn groups(
    index: &lookup::FingerprintIndex,
    k: u32,
    singletons: bool,
) -> tantivy_dedup::Result<(Vec<u32>, Vec<u64>)> {
    // Ids by fingerprint: equal fingerprints are one vertex of the graph.
    let mut entries: Vec<(u64, u32)> = index.iter().map(|(id, f)| (f.bits(), id)).collect();
    entries.par_sort_unstable();
    let mut starts: Vec<usize> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if i == 0 || entries[i - 1].0 != entry.0 {
            starts.push(i);
        }
    }
    let distinct: Vec<Fingerprint> = starts.iter().map(|&i| Fingerprint(entries[i].0)).collect();
    let vertex_id = |v: usize| u32::try_from(v).expect("fewer fingerprints than u32 ids");
    // Tables for `k` where it has them; beyond, every query scans.
    let options = index
        .options()
        .clone()
        .max_distance(k.min(lookup::MAX_TABLE_DISTANCE));
    let table = options.build_from(distinct.iter().enumerate().map(|(v, &f)| (vertex_id(v), f)))?;
    let mut parent: Vec<usize> = (0..distinct.len()).collect();
    let find = |parent: &mut Vec<usize>, mut i: usize| {
        while parent[i] != i {
            // Path halving: each step also shortens the path for the next search.
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    };
    for (chunk, fingerprints) in distinct.chunks(GROUP_QUERY_CHUNK).enumerate() {
        let first = chunk * GROUP_QUERY_CHUNK;
        let edges: Vec<(usize, usize)> = (fingerprints.par_iter().enumerate())
            .map_init(Vec::new, |hits, (i, &f)| {
                table.query_into(f, k, hits);
                let v = first + i;
                (hits.iter())
                    .map(|m| m.id as usize)
                    .filter(|&w| w > v)
                    .map(|w| (v, w))
                    .collect::<Vec<_>>()
            })
            .flatten_iter()
            .collect();
        for (v, w) in edges {
            let (x, y) = (find(&mut parent, v), find(&mut parent, w));
            if x != y {
                parent[x.max(y)] = x.min(y);
            }
        }
    }
    // Members by root vertex, then each group's ids ascending, the groups by least id.
    let mut members: Vec<(usize, u32)> = Vec::with_capacity(entries.len());
    for (v, &start) in starts.iter().enumerate() {
        let root = find(&mut parent, v);
        let end = starts.get(v + 1).copied().unwrap_or(entries.len());
        members.extend(entries[start..end].iter().map(|&(_, id)| (root, id)));
    }
    drop(entries);
    members.par_sort_unstable();
    let mut grouped: Vec<&[(usize, u32)]> = members
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|group| singletons || group.len() > 1)
        .collect();
    grouped.sort_unstable_by_key(|group| group[0].1);
    let mut ids = Vec::with_capacity(grouped.iter().map(|g| g.len()).sum());
    let mut offsets = Vec::with_capacity(grouped.len() + 1);
    offsets.push(0);
    for group in grouped {
        ids.extend(group.iter().map(|&(_, id)| id));
        offsets.push(ids.len() as u64);
    }
    Ok((ids, offsets))
}
