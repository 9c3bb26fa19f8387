//! [`BandIndex`]: MinHash LSH banding, the sub-linear candidate stage of two-stage matching.
//!
//! A signature of `bands × rows` MinHash values is cut into `bands` bands of `rows`
//! consecutive values; two signatures are *candidates* when they agree on every value of at
//! least one band. For sets of Jaccard similarity `J`, each value agrees with probability
//! `J`, so a pair is found with probability `1 - (1 - J^rows)^bands`: an S-curve that is
//! near 1 above its knee `(1 / bands)^(1 / rows)` and near 0 well below it (Broder 1997;
//! Leskovec, Rajaraman and Ullman, *Mining of Massive Datasets*, ch. 3). The default's 14
//! bands of 9 rows (a knee near 0.75, for a threshold of 0.8) find a pair at `J` = 0.9 with
//! probability 0.999, one at 0.8 with 0.867 and one at 0.5 with 0.027.
//!
//! Why not the fingerprints' block tables at a loose distance: edits of 5 to 10% move a
//! 64-bit SimHash 5 to 16 bits, and at 16 bits pigeonhole tables have blocks of 4 bits, so
//! every bucket holds a sixteenth of the index. Bands key each document by one key a band
//! of its signature instead, and an unrelated document lands in a query's buckets only by
//! chance.
//!
//! # Layout
//!
//! Each band holds 8-byte entries `key << 32 | id`, where `key` is a 32-bit hash of the
//! band's values: a sorted *frozen* array, found through a directory on the key's top bits
//! (about 2 entries per directory slot), and a hash map of the entries inserted since the
//! frozen arrays were last rebuilt. The map is folded into the arrays when it holds a quarter
//! as many documents as they do (and at least [`MIN_REBUILD`]), so an insert costs an
//! amortized constant number of entry moves, and a query two probes per band. Keys that
//! collide merely add candidates: the caller verifies every candidate anyway.

use std::collections::HashMap;
use std::fmt;

use rayon::prelude::*;
use roaring::RoaringBitmap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::fingerprint::{le_bytes, write_le_bytes};

/// Documents inserted since the last rebuild at which the frozen arrays may be rebuilt, at
/// the least: below it, a rebuild costs more than the map it empties.
pub const MIN_REBUILD: usize = 4096;

/// Finds every stored signature that agrees with a query on all values of some band.
///
/// Signatures are stored under `u32` ids chosen by the caller; the first
/// [`bands`](Self::bands) × [`rows`](Self::rows) values of each are banded, and any after
/// them ignored. The answer is a superset of the
/// exact one (two bands may hash to one 32-bit key, about once in four billion): callers
/// verify the candidates, as the plugin's [`Matcher`](crate::matching::Verification) does.
///
/// ```
/// use tantivy_dedup::lookup::BandIndex;
///
/// let mut index = BandIndex::new(2, 2)?;
/// index.insert(1, &[10, 11, 12, 13]);
/// index.insert(2, &[10, 11, 99, 99]); // agrees with 1 on the first band
/// index.insert(3, &[10, 99, 12, 99]); // agrees with 1 on no band
/// assert_eq!(index.candidates(&[10, 11, 12, 13]), [1, 2]);
/// index.remove(2);
/// assert_eq!(index.candidates(&[10, 11, 0, 0]), [1]);
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone)]
pub struct BandIndex {
    bands: usize,
    rows: usize,
    /// One sorted array per band.
    frozen: Vec<Frozen>,
    /// Entries since the last rebuild, one per band.
    recent: Vec<Recent>,
    /// Documents in `recent`.
    recent_len: usize,
    /// Documents in `frozen`, removed ones included.
    frozen_len: usize,
    /// Ids present.
    alive: RoaringBitmap,
    /// Ids removed whose entries are still stored; disjoint from `alive`.
    removed: RoaringBitmap,
}

/// One band's sorted entries, `key << 32 | id`, with a directory on the key's top bits.
#[derive(Clone, Default)]
struct Frozen {
    entries: Vec<u64>,
    /// `directory[p]` is the first entry whose key's top bits are `p` or more.
    directory: Vec<u32>,
    /// `32 - directory bits`: a key's directory slot is `key >> shift`.
    shift: u32,
}

impl Frozen {
    fn build(entries: Vec<u64>) -> Frozen {
        debug_assert!(entries.windows(2).all(|w| w[0] <= w[1]));
        // About two entries per slot: a probe reads one or two cache lines.
        let bits = (usize::BITS - entries.len().leading_zeros()).saturating_sub(2);
        let bits = bits.min(30);
        let shift = 32 - bits;
        let slots = 1usize << bits;
        let mut directory = Vec::with_capacity(slots + 1);
        let mut at = 0usize;
        for slot in 0..=slots {
            while at < entries.len() && ((entries[at] >> 32) >> shift) < slot as u64 {
                at += 1;
            }
            directory.push(at as u32);
        }
        Frozen {
            entries,
            directory,
            shift,
        }
    }

    /// The entries whose key's directory slot is `key`'s.
    #[inline]
    fn range(&self, key: u32) -> (usize, usize) {
        if self.entries.is_empty() {
            return (0, 0);
        }
        let slot = (u64::from(key) >> self.shift) as usize;
        (
            self.directory[slot] as usize,
            self.directory[slot + 1] as usize,
        )
    }

    /// Calls `f` with the id of every entry of `key` in `range` (from [`range`](Self::range)).
    #[inline]
    fn for_each_id_in(&self, (start, end): (usize, usize), key: u32, mut f: impl FnMut(u32)) {
        for &entry in &self.entries[start..end] {
            match ((entry >> 32) as u32).cmp(&key) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => f(entry as u32),
                std::cmp::Ordering::Greater => break,
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        self.entries.capacity() * 8 + self.directory.capacity() * 4
    }
}

/// One band's entries since the last rebuild: each key's ids in a chain, newest first. Most
/// keys hold one id, so a chain of 8-byte links under a map of heads takes a third of the
/// memory of a vector per key.
#[derive(Clone, Default)]
struct Recent {
    /// Key to the index in `links` of its newest id. Hashed by foldhash rather than std's
    /// SipHash: a writer's document looks up and inserts a key in every band (32 by
    /// default) on the calling thread. Seeded per process as SipHash is, since the pages a
    /// crawler ingests choose the keys.
    heads: HashMap<u32, u32, foldhash::fast::RandomState>,
    /// `(id, next)`, `next` being [`END`] at a chain's end.
    links: Vec<(u32, u32)>,
}

/// The end of a chain of [`Recent`] links.
const END: u32 = u32::MAX;

impl Recent {
    fn push(&mut self, key: u32, id: u32) {
        let at = self.links.len() as u32;
        let next = self.heads.insert(key, at).unwrap_or(END);
        self.links.push((id, next));
    }

    #[inline]
    fn for_each_id(&self, key: u32, mut f: impl FnMut(u32)) {
        let mut at = self.heads.get(&key).copied().unwrap_or(END);
        while at != END {
            let (id, next) = self.links[at as usize];
            f(id);
            at = next;
        }
    }

    /// Every entry as `key << 32 | id`, unordered.
    fn entries(&self) -> impl Iterator<Item = u64> + '_ {
        self.heads.iter().flat_map(move |(&key, &head)| {
            let mut at = head;
            std::iter::from_fn(move || {
                (at != END).then(|| {
                    let (id, next) = self.links[at as usize];
                    at = next;
                    entry(key, id)
                })
            })
        })
    }

    fn heap_bytes(&self) -> usize {
        // A map slot: key, value and a control byte.
        self.heads.capacity() * (4 + 4 + 1) + self.links.capacity() * 8
    }
}

impl BandIndex {
    /// An empty index of signatures cut into `bands` bands of `rows` values.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) when either is 0.
    pub fn new(bands: usize, rows: usize) -> crate::Result<BandIndex> {
        if bands == 0 || rows == 0 {
            return Err(crate::Error::InvalidSetting {
                name: "bands",
                reason: format!("{bands} bands of {rows} rows: both must be at least 1"),
            });
        }
        Ok(BandIndex {
            bands,
            rows,
            frozen: vec![Frozen::default(); bands],
            recent: vec![Recent::default(); bands],
            recent_len: 0,
            frozen_len: 0,
            alive: RoaringBitmap::new(),
            removed: RoaringBitmap::new(),
        })
    }

    /// Bands per signature.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// Values per band.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of signatures present.
    pub fn len(&self) -> usize {
        self.alive.len() as usize
    }

    /// True when no signature is present.
    pub fn is_empty(&self) -> bool {
        self.alive.is_empty()
    }

    /// True when `id` holds a signature.
    pub fn contains(&self, id: u32) -> bool {
        self.alive.contains(id)
    }

    /// Stores `signature` under `id`. An id that is present, or that was removed since the
    /// last rebuild, first has its old entries dropped by a rebuild (as costly as building
    /// the whole index: ids are meant to be inserted once).
    ///
    /// # Panics
    /// When `signature` holds fewer than `bands × rows` values.
    pub fn insert(&mut self, id: u32, signature: &[u32]) {
        self.add(id, signature);
        if self.recent_len >= MIN_REBUILD.max(self.frozen_len / 4) {
            self.rebuild();
        }
    }

    /// Stores every `(id, signature)` of `entries` with one rebuild at the end: the fast way
    /// to load an index. Ids follow the rule of [`insert`](Self::insert).
    ///
    /// # Panics
    /// When a signature holds fewer than `bands × rows` values.
    pub fn extend<'a>(&mut self, entries: impl IntoIterator<Item = (u32, &'a [u32])>) {
        // Straight into one vector per band, sorted once: no hash map on the way.
        let mut added: Vec<Vec<u64>> = vec![Vec::new(); self.bands];
        for (id, signature) in entries {
            self.add_to(&mut added, id, signature);
        }
        self.rebuild_with(added);
    }

    /// A builder of an index of `bands` bands of `rows` values, for signatures that come
    /// one at a time (read segment by segment, say): it keeps only their band keys, 8
    /// bytes per band, and sorts them once in [`build`](BandIndexBuilder::build).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) when either is 0.
    pub fn builder(bands: usize, rows: usize) -> crate::Result<BandIndexBuilder> {
        Ok(BandIndexBuilder {
            index: BandIndex::new(bands, rows)?,
            added: vec![Vec::new(); bands],
        })
    }

    /// Adds the band entries of `signature` under `id` to `added`, one vector per band, as
    /// [`extend`](Self::extend) does.
    fn add_to(&mut self, added: &mut Vec<Vec<u64>>, id: u32, signature: &[u32]) {
        let signature = self.banded(signature);
        self.make_room(id, added);
        for (band, key) in band_keys(signature, self.rows).enumerate() {
            added[band].push(entry(key, id));
        }
        self.alive.insert(id);
    }

    /// Stores `signature` under `id` in the recent maps.
    fn add(&mut self, id: u32, signature: &[u32]) {
        let signature = self.banded(signature);
        self.make_room(id, &mut Vec::new());
        for (band, key) in band_keys(signature, self.rows).enumerate() {
            self.recent[band].push(key, id);
        }
        self.alive.insert(id);
        self.recent_len += 1;
    }

    /// Before `id` is stored again: when it is present, or removed with its entries still
    /// stored, a rebuild drops its old entries (folding `added` in first, which it empties).
    fn make_room(&mut self, id: u32, added: &mut Vec<Vec<u64>>) {
        if self.alive.contains(id) || self.removed.contains(id) {
            self.alive.remove(id);
            self.removed.insert(id);
            self.rebuild_with(std::mem::replace(added, vec![Vec::new(); self.bands]));
        }
    }

    /// Removes `id`; returns whether it was present. Its entries are dropped at the next
    /// rebuild; queries skip them until then.
    pub fn remove(&mut self, id: u32) -> bool {
        let present = self.alive.remove(id);
        if present {
            self.removed.insert(id);
        }
        present
    }

    /// The ids of the stored signatures that share a band with `signature`, ascending.
    ///
    /// # Panics
    /// When `signature` holds fewer than `bands × rows` values.
    pub fn candidates(&self, signature: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        self.candidates_into(signature, &mut out);
        out
    }

    /// [`candidates`](Self::candidates) into `out` (cleared first), reusing its allocation.
    ///
    /// # Panics
    /// When `signature` holds fewer than `bands × rows` values.
    pub fn candidates_into(&self, signature: &[u32], out: &mut Vec<u32>) {
        let signature = self.banded(signature);
        out.clear();
        // In passes over the bands, keys, then directory slots, then entries, so that the
        // bands' cache misses are independent loads the processor overlaps (one band after
        // the other, each miss waited for the one before).
        let keys: Vec<u32> = band_keys(signature, self.rows).collect();
        let ranges: Vec<(usize, usize)> = self
            .frozen
            .iter()
            .zip(&keys)
            .map(|(frozen, &key)| frozen.range(key))
            .collect();
        for ((frozen, &key), &range) in self.frozen.iter().zip(&keys).zip(&ranges) {
            frozen.for_each_id_in(range, key, |id| out.push(id));
        }
        for (recent, &key) in self.recent.iter().zip(&keys) {
            recent.for_each_id(key, |id| out.push(id));
        }
        out.sort_unstable();
        out.dedup();
        if !self.removed.is_empty() {
            out.retain(|&id| !self.removed.contains(id));
        }
    }

    /// Every pair of present ids `(a, b)`, `a < b`, that share a band, ascending; in parallel
    /// over the bands (rayon). A key shared by `m` ids gives `m (m - 1) / 2` pairs.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        self.pairs_where(|_, _| true)
    }

    /// The pairs of [`pairs`](Self::pairs) for which `keep(a, b)` holds. The test runs
    /// inside each band's loop, so pairs the caller has no use for (near-identical
    /// documents it already paired otherwise) are never collected: `m` identical signatures
    /// share all bands, and would be `bands × m (m - 1) / 2` pairs before deduplication.
    pub fn pairs_where(&self, keep: impl Fn(u32, u32) -> bool + Sync) -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = (0..self.bands)
            .into_par_iter()
            .flat_map_iter(|band| {
                let mut entries = self.frozen[band].entries.clone();
                entries.extend(self.recent[band].entries());
                entries.retain(|&e| !self.removed.contains(e as u32));
                entries.sort_unstable();
                let mut pairs = Vec::new();
                for group in entries.chunk_by(|a, b| a >> 32 == b >> 32) {
                    for (i, &a) in group.iter().enumerate() {
                        for &b in &group[i + 1..] {
                            let (a, b) = (a as u32, b as u32);
                            let (a, b) = (a.min(b), a.max(b));
                            if keep(a, b) {
                                pairs.push((a, b));
                            }
                        }
                    }
                }
                pairs.sort_unstable();
                pairs.dedup();
                pairs
            })
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Bytes allocated: entries, directories, the recent maps (estimated) and the bitmaps.
    pub fn memory_bytes(&self) -> usize {
        let frozen: usize = self.frozen.iter().map(Frozen::heap_bytes).sum();
        let recent: usize = self.recent.iter().map(Recent::heap_bytes).sum();
        frozen
            + recent
            + self.alive.serialized_size()
            + self.removed.serialized_size()
            + std::mem::size_of::<Self>()
    }

    /// Folds the recent entries into the frozen arrays and drops the removed ids' entries.
    fn rebuild(&mut self) {
        self.rebuild_with(Vec::new());
    }

    /// [`rebuild`](Self::rebuild), with `added` entries (`key << 32 | id`, unordered, one
    /// vector per band or none) folded in too.
    fn rebuild_with(&mut self, mut added: Vec<Vec<u64>>) {
        added.resize_with(self.bands, Vec::new);
        let removed = &self.removed;
        let frozen: Vec<Frozen> = self
            .frozen
            .par_iter_mut()
            .zip(self.recent.par_iter_mut())
            .zip(added.into_par_iter())
            .map(|((frozen, recent), mut added)| {
                let entries = std::mem::take(&mut frozen.entries);
                added.extend(std::mem::take(recent).entries());
                added.sort_unstable();
                let mut entries = merge_sorted(entries, added);
                if !removed.is_empty() {
                    entries.retain(|&e| !removed.contains(e as u32));
                }
                entries.shrink_to_fit();
                Frozen::build(entries)
            })
            .collect();
        self.frozen = frozen;
        self.removed.clear();
        self.frozen_len = self.alive.len() as usize;
        self.recent_len = 0;
    }

    /// The banded values of `signature`, checked.
    fn banded<'s>(&self, signature: &'s [u32]) -> &'s [u32] {
        let len = self.bands * self.rows;
        assert!(
            signature.len() >= len,
            "a signature of {} bands of {} rows has at least {len} values, not {}",
            self.bands,
            self.rows,
            signature.len()
        );
        &signature[..len]
    }
}

/// Builds a [`BandIndex`] from signatures added one at a time (see
/// [`BandIndex::builder`]).
///
/// ```
/// use tantivy_dedup::lookup::BandIndex;
///
/// let mut builder = BandIndex::builder(2, 2)?;
/// builder.add(1, &[10, 11, 12, 13]);
/// builder.add(2, &[10, 11, 99, 99]);
/// let index = builder.build();
/// assert_eq!(index.candidates(&[10, 11, 0, 0]), [1, 2]);
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
pub struct BandIndexBuilder {
    index: BandIndex,
    added: Vec<Vec<u64>>,
}

impl BandIndexBuilder {
    /// Adds `signature` under `id`, by the rule of [`BandIndex::insert`].
    ///
    /// # Panics
    /// When `signature` holds fewer than `bands × rows` values.
    pub fn add(&mut self, id: u32, signature: &[u32]) {
        self.index.add_to(&mut self.added, id, signature);
    }

    /// The index of every signature added.
    pub fn build(mut self) -> BandIndex {
        self.index.rebuild_with(self.added);
        self.index
    }
}

impl fmt::Debug for BandIndexBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BandIndexBuilder")
            .field("bands", &self.index.bands)
            .field("rows", &self.index.rows)
            .field("added", &self.added.first().map_or(0, Vec::len))
            .finish()
    }
}

impl fmt::Debug for BandIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BandIndex")
            .field("bands", &self.bands)
            .field("rows", &self.rows)
            .field("len", &self.len())
            .field("recent", &self.recent_len)
            .finish()
    }
}

/// The 32-bit key of `values`, the `band`-th band of a signature. Seeded by the band, so
/// that equal values in two bands do not share a bucket (they would only add candidates).
#[inline]
pub(crate) fn band_key(band: usize, values: &[u32]) -> u32 {
    let mut bytes = [0u8; 64];
    if values.len() * 4 <= bytes.len() {
        write_le_bytes(values, &mut bytes);
        xxh3_64_with_seed(&bytes[..values.len() * 4], band as u64) as u32
    } else {
        xxh3_64_with_seed(&le_bytes(values), band as u64) as u32
    }
}

/// The key of each band of `rows` values of `signature`, band by band (`len / rows` bands;
/// values left over belong to none): two signatures share a band of a [`BandIndex`] of
/// `rows` rows when they share a key at the same band. A program that groups documents by
/// band itself (a Spark job) gets the index's candidates from these keys.
///
/// ```
/// use tantivy_dedup::lookup::band_keys;
///
/// let a: Vec<u32> = band_keys(&[1, 2, 3, 4, 5], 2).collect();
/// let b: Vec<u32> = band_keys(&[1, 2, 9, 9], 2).collect();
/// assert_eq!(a.len(), 2);
/// assert_eq!(a[0], b[0]); // the first band holds the same values
/// assert_ne!(a[1], b[1]);
/// ```
///
/// # Panics
/// When `rows` is 0.
pub fn band_keys(signature: &[u32], rows: usize) -> impl Iterator<Item = u32> + '_ {
    signature
        .chunks_exact(rows)
        .enumerate()
        .map(|(band, values)| band_key(band, values))
}

/// A band's entry: `key` in the high half, so that entries sort by key, then id.
#[inline]
fn entry(key: u32, id: u32) -> u64 {
    u64::from(key) << 32 | u64::from(id)
}

/// The sorted union (with repeats) of two sorted vectors.
fn merge_sorted(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The reference: every present id whose signature agrees with the query on all values
    /// of a band. (The index compares 32-bit keys of bands: over the test's tiny alphabet
    /// two different bands never share one.)
    fn oracle(stored: &[(u32, Vec<u32>)], query: &[u32], rows: usize) -> Vec<u32> {
        let found: BTreeSet<u32> = stored
            .iter()
            .filter(|(_, s)| {
                s.chunks_exact(rows)
                    .zip(query.chunks_exact(rows))
                    .any(|(a, b)| a == b)
            })
            .map(|&(id, _)| id)
            .collect();
        found.into_iter().collect()
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u32, Vec<u32>),
        Remove(u32),
        Query(Vec<u32>),
    }

    /// Signatures over a tiny alphabet, so that bands agree often.
    fn signature(len: usize) -> impl Strategy<Value = Vec<u32>> {
        prop::collection::vec(0u32..3, len)
    }

    fn ops(len: usize) -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec(
            prop_oneof![
                4 => (0u32..40, signature(len)).prop_map(|(id, s)| Op::Insert(id, s)),
                1 => (0u32..40).prop_map(Op::Remove),
                2 => signature(len).prop_map(Op::Query),
            ],
            0..120,
        )
    }

    fn check(ops: Vec<Op>, bands: usize, rows: usize, min_rebuild: bool) {
        let mut index = BandIndex::new(bands, rows).unwrap();
        let mut stored: Vec<(u32, Vec<u32>)> = Vec::new();
        for op in ops {
            match op {
                Op::Insert(id, s) => {
                    stored.retain(|(other, _)| *other != id);
                    stored.push((id, s.clone()));
                    if id % 3 == 0 {
                        index.extend([(id, s.as_slice())]);
                    } else {
                        index.insert(id, &s);
                    }
                    if min_rebuild && id % 7 == 0 {
                        index.rebuild();
                    }
                }
                Op::Remove(id) => {
                    let was = stored.iter().any(|(other, _)| *other == id);
                    stored.retain(|(other, _)| *other != id);
                    assert_eq!(index.remove(id), was);
                }
                Op::Query(q) => {
                    assert_eq!(index.candidates(&q), oracle(&stored, &q, rows));
                }
            }
            assert_eq!(index.len(), stored.len());
        }
        let mut expected = BTreeSet::new();
        for (i, (a, sa)) in stored.iter().enumerate() {
            for (b, sb) in &stored[i + 1..] {
                if oracle(&[(*b, sb.clone())], sa, rows).contains(b) {
                    expected.insert((*a.min(b), *a.max(b)));
                }
            }
        }
        let odd = |a: u32, b: u32| (a + b) % 2 == 1;
        let expected_odd: Vec<(u32, u32)> = expected
            .iter()
            .copied()
            .filter(|&(a, b)| odd(a, b))
            .collect();
        assert_eq!(index.pairs(), expected.into_iter().collect::<Vec<_>>());
        assert_eq!(index.pairs_where(odd), expected_odd);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn candidates_and_pairs_match_the_oracle(ops in ops(6), rebuilds in any::<bool>()) {
            check(ops, 3, 2, rebuilds);
        }

        #[test]
        fn one_band_of_one_row(ops in ops(1)) {
            check(ops, 1, 1, true);
        }
    }

    #[test]
    fn a_thousand_documents_across_rebuilds() {
        // Enough inserts for several automatic rebuilds, with removes in between.
        let mut index = BandIndex::new(4, 2).unwrap();
        let signature = |id: u32| -> Vec<u32> { (0..8).map(|i| (id / 3) * 8 + i).collect() };
        for id in 0..3 * MIN_REBUILD as u32 {
            index.insert(id, &signature(id));
            if id % 5 == 0 {
                index.remove(id);
            }
        }
        assert!(index.recent_len < MIN_REBUILD, "rebuilt along the way");
        // Each group of three shares a signature: the others of the group, minus removed.
        for id in [1u32, 2, 4, 3001, 7000] {
            let group: Vec<u32> = (id / 3 * 3..id / 3 * 3 + 3)
                .filter(|i| i % 5 != 0)
                .collect();
            assert_eq!(index.candidates(&signature(id)), group, "id {id}");
        }
    }

    #[test]
    fn the_builder_builds_what_extend_does() {
        let signature = |id: u32| -> Vec<u32> { (0..8).map(|i| (id % 7) * 8 + i % 3).collect() };
        let mut extended = BandIndex::new(4, 2).unwrap();
        let all: Vec<Vec<u32>> = (0..500).map(signature).collect();
        extended.extend(
            all.iter()
                .enumerate()
                .map(|(i, s)| (i as u32, s.as_slice())),
        );
        let mut builder = BandIndex::builder(4, 2).unwrap();
        for (i, s) in all.iter().enumerate() {
            builder.add(i as u32, s);
        }
        builder.add(3, &signature(4)); // a replacement, as insert does
        extended.insert(3, &signature(4));
        let built = builder.build();
        assert_eq!(built.len(), extended.len());
        assert_eq!(built.pairs(), extended.pairs());
        for id in 0..10 {
            assert_eq!(
                built.candidates(&signature(id)),
                extended.candidates(&signature(id))
            );
        }
    }

    #[test]
    fn zero_bands_or_rows_are_refused() {
        assert!(BandIndex::new(0, 4).is_err());
        assert!(BandIndex::new(4, 0).is_err());
    }
}
