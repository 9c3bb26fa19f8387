//! A segment's reference tables: the documents a writer compares new ones with (those with
//! a fingerprint that are not flagged), sorted for lookups in place, so that a writer
//! probes each committed segment's file instead of building tables of the whole index in
//! memory at every open.
//!
//! ```text
//! block tables  one a block of the pigeonhole split of the 64 bits into distance + 1
//!               (`block_table.rs`: the references' rotated fingerprints, sorted, with a
//!               directory, and the long runs re-bucketed)
//! band tables   one a band: directory (2^bits + 1) × u32, then banded references ×
//!               u64 (band key << 32 | document), sorted
//! ```
//!
//! A block table holds each fingerprint rotated so that its block is the top bits: two
//! fingerprints within the distance agree on some block (Manku, Jain, Das Sarma 2007), so
//! a query reads one run of each table, found through a directory on the top bits, and
//! each match is reported by the table of the first block it agrees on. A band table holds
//! the key of each band of each reference's signature (as the writer's
//! [`BandIndex`](crate::lookup::BandIndex) keys them) with the same kind of directory.
//! The band tables' layout depends only on the counts written in the file's header; each
//! block table says where its children end.

use std::io::{self, Write};

use tantivy::DocId;

pub(crate) use super::block_table::BlockRun;
use super::block_table::{
    directory_bits, directory_len, directory_range, top, write_block_table, write_directory,
    BlockTable,
};
use crate::fingerprint::{is_empty_set, Fingerprint};
use crate::lookup::split_bits;

/// Beyond this distance the blocks are narrower than 8 bits and a table's run holds a
/// 256th of the segment or more: a segment keeps no block tables then, and a writer builds
/// its tables in memory.
pub(crate) const MAX_FILE_DISTANCE: u32 = 7;

/// Bytes of a band table's entry.
const BAND_ENTRY: usize = 8;

/// What the tables of a segment answer: the distance of its block tables, and its bands
/// (0 bands for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableShape {
    pub distance: u32,
    pub bands: usize,
    pub rows: usize,
}

impl TableShape {
    /// The tables for a writer judging within `distance` bits by its block tables, with
    /// `bands` of its signatures' values when it has them.
    pub(crate) fn new(distance: u32, bands: Option<(usize, usize)>) -> TableShape {
        let (bands, rows) = bands.unwrap_or((0, 0));
        TableShape {
            distance,
            bands,
            rows,
        }
    }

    /// Whether the segment has block tables.
    pub(crate) fn has_blocks(self) -> bool {
        self.distance <= MAX_FILE_DISTANCE
    }

    /// The blocks of the tables: each one's lowest bit and width, contiguous bits.
    fn blocks(self) -> Vec<(u32, u32)> {
        if !self.has_blocks() {
            return Vec::new();
        }
        split_bits(u64::MAX, self.distance + 1)
            .into_iter()
            .map(|block| (block.trailing_zeros(), block.count_ones()))
            .collect()
    }
}

/// Writes the tables of `references` (fingerprint, document; in any order) and of
/// the `banded` references (those with a signature that is not an empty set's), given
/// with their band keys (`shape.bands` a document, in the documents' order), in `shape`.
pub(crate) fn write_tables(
    shape: TableShape,
    references: &[(u64, DocId)],
    (banded, keys): (&[DocId], &[u32]),
    out: &mut impl Write,
) -> io::Result<()> {
    debug_assert_eq!(keys.len(), banded.len() * shape.bands);
    let mut entries: Vec<(u64, DocId)> = Vec::with_capacity(references.len());
    for block in shape.blocks() {
        write_block_table((block, shape.distance), references, &mut entries, out)?;
    }
    let mut keyed: Vec<u64> = Vec::with_capacity(banded.len());
    for band in 0..shape.bands {
        keyed.clear();
        keyed.extend(
            banded
                .iter()
                .enumerate()
                .map(|(i, &doc)| u64::from(keys[i * shape.bands + band]) << 32 | u64::from(doc)),
        );
        keyed.sort_unstable();
        let bits = directory_bits(keyed.len(), 32);
        write_directory(keyed.iter().map(|&e| top(e, bits)), bits, out)?;
        for entry in &keyed {
            out.write_all(&entry.to_le_bytes())?;
        }
    }
    Ok(())
}

/// Whether `signature` has a band key in tables of `shape`: a reference's is banded when it
/// has one that is not an empty set's.
pub(crate) fn is_banded(shape: TableShape, signature: &[u32]) -> bool {
    shape.bands > 0 && signature.len() >= shape.bands * shape.rows && !is_empty_set(signature)
}

/// Where the tables of a file are, given its counts.
#[derive(Clone, Debug)]
pub(crate) struct TablesAt {
    shape: TableShape,
    /// The block tables.
    blocks: Vec<BlockTable>,
    /// Each block table's bits: a match is reported by the first table whose block it
    /// agrees on.
    masks: Vec<u64>,
    /// Each band table: directory bits, and where its directory starts.
    bands: Vec<(u32, usize)>,
    references: usize,
    banded: usize,
    /// Where the tables end.
    end: usize,
}

impl TablesAt {
    /// The tables of `shape` over `references` and `banded` documents, from `start` in
    /// `bytes`.
    ///
    /// # Errors
    /// [`Error::Decode`](crate::Error::Decode) when they do not fit in `bytes`.
    pub(crate) fn read(
        bytes: &[u8],
        shape: TableShape,
        (references, banded): (usize, usize),
        start: usize,
    ) -> crate::Result<Self> {
        let mut at = start;
        let mut blocks = Vec::new();
        for block in shape.blocks() {
            let (table, end) = BlockTable::read(bytes, (block, shape.distance), references, at)?;
            blocks.push(table);
            at = end;
        }
        let mut bands = Vec::new();
        for _ in 0..shape.bands {
            let bits = directory_bits(banded, 32);
            bands.push((bits, at));
            at += directory_len(bits) + BAND_ENTRY * banded;
        }
        let masks = blocks.iter().map(BlockTable::mask).collect();
        Ok(TablesAt {
            shape,
            blocks,
            masks,
            bands,
            references,
            banded,
            end: at,
        })
    }

    /// Where the tables end.
    pub(crate) fn end(&self) -> usize {
        self.end
    }

    /// What the tables answer.
    pub(crate) fn shape(&self) -> TableShape {
        self.shape
    }

    /// The number of references.
    pub(crate) fn references(&self) -> usize {
        self.references
    }

    /// Calls `found(document, distance)` for each reference within `distance` of `query`
    /// (at most the tables' distance), once each.
    #[cfg(test)]
    pub(crate) fn near(
        &self,
        bytes: &[u8],
        query: Fingerprint,
        distance: u32,
        mut found: impl FnMut(DocId, u32),
    ) {
        let mut runs = Vec::with_capacity(self.blocks.len());
        self.block_runs(bytes, query, &mut runs);
        for &run in &runs {
            self.scan(bytes, run, query, distance, &mut found);
        }
    }

    /// Appends the runs of the block tables that `query` reads. Reading every segment's
    /// runs before scanning any lets their cache misses overlap, where a table at a time
    /// waits for each one.
    pub(crate) fn block_runs(&self, bytes: &[u8], query: Fingerprint, out: &mut Vec<BlockRun>) {
        for (table, block) in self.blocks.iter().enumerate() {
            block.runs(bytes, table, query.bits(), out);
        }
    }

    /// The first word of `run`: read ahead of [`scan`](Self::scan).
    #[inline]
    pub(crate) fn first_word(bytes: &[u8], run: BlockRun) -> u64 {
        BlockTable::first_word(bytes, run)
    }

    /// Calls `found(document, distance)` for each reference of `run` (of `query`, by
    /// [`block_runs`](Self::block_runs)) within `distance` of it that no other run reports.
    pub(crate) fn scan(
        &self,
        bytes: &[u8],
        run: BlockRun,
        query: Fingerprint,
        distance: u32,
        found: impl FnMut(DocId, u32),
    ) {
        debug_assert!(distance <= self.shape.distance);
        let table = run.table();
        let earlier = &self.masks[..table];
        let block = &self.blocks[table];
        block.scan(bytes, run, (query.bits(), distance), earlier, found);
    }

    /// The number of banded references.
    pub(crate) fn banded(&self) -> usize {
        self.banded
    }

    /// Calls `f(key)` for the key of every banded reference in `band`, in key order (none
    /// for a band the tables do not have).
    pub(crate) fn for_each_key_of_band(&self, bytes: &[u8], band: usize, mut f: impl FnMut(u32)) {
        let Some(&(bits, at)) = self.bands.get(band) else {
            return;
        };
        let entries = at + directory_len(bits);
        for e in (entries..entries + BAND_ENTRY * self.banded).step_by(BAND_ENTRY) {
            f(u32::from_le_bytes(bytes[e + 4..e + 8].try_into().unwrap()));
        }
    }

    /// The banded references with any of the band `keys` (band, key) into `out` (cleared
    /// first), sorted, each once: the references that share a band with a signature of
    /// those keys ([`band_keys`](crate::lookup::band_keys)).
    pub(crate) fn band_hits(&self, bytes: &[u8], keys: &[(usize, u32)], out: &mut Vec<DocId>) {
        out.clear();
        for &(band, key) in keys {
            let Some(&(bits, at)) = self.bands.get(band) else {
                continue;
            };
            let wanted = u64::from(key);
            let entries = at + directory_len(bits);
            let (start, end) = directory_range(bytes, at, top(wanted << 32, bits));
            for i in start..end {
                let e = entries + i * BAND_ENTRY;
                let entry = u64::from_le_bytes(bytes[e..e + 8].try_into().unwrap());
                match (entry >> 32).cmp(&wanted) {
                    std::cmp::Ordering::Less => {}
                    std::cmp::Ordering::Equal => out.push(entry as u32),
                    std::cmp::Ordering::Greater => break,
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn written(
        shape: TableShape,
        references: &[(u64, DocId)],
        banded: &[(DocId, Vec<u32>)],
    ) -> (Vec<u8>, TablesAt) {
        let mut bytes = vec![7u8; 3];
        let docs: Vec<DocId> = banded.iter().map(|(doc, _)| *doc).collect();
        let keys: Vec<u32> = banded
            .iter()
            .flat_map(|(_, values)| crate::lookup::band_keys(values, shape.rows).take(shape.bands))
            .collect();
        write_tables(shape, references, (&docs, &keys), &mut bytes).unwrap();
        let at = TablesAt::read(&bytes, shape, (references.len(), banded.len()), 3).unwrap();
        assert_eq!(at.end(), bytes.len());
        (bytes, at)
    }

    /// Fingerprints in clusters: a few centres and their copies a few bits away, so that
    /// most queries have neighbours at every distance.
    fn clustered() -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
        (proptest::collection::vec(any::<u64>(), 1..6)).prop_flat_map(|centres| {
            let flips =
                proptest::collection::vec((0..centres.len(), any::<u64>(), 0u32..6), 0..120);
            let queries =
                proptest::collection::vec((0..centres.len(), any::<u64>(), 0u32..6), 1..20);
            (Just(centres), flips, queries).prop_map(|(centres, flips, queries)| {
                let near = |(c, seed, bits): (usize, u64, u32)| {
                    let mut value = centres[c];
                    let mut seed = seed;
                    for _ in 0..bits {
                        value ^= 1 << (seed % 64);
                        seed = seed.rotate_left(7).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    }
                    value
                };
                (
                    flips.into_iter().map(near).collect(),
                    queries.into_iter().map(near).collect(),
                )
            })
        })
    }

    proptest! {
        /// The block tables find what a scan of every reference finds, each once.
        #[test]
        fn blocks_find_what_a_scan_finds(
            (stored, queries) in clustered(),
            distance in 0u32..=MAX_FILE_DISTANCE,
            asked in 0u32..=MAX_FILE_DISTANCE,
        ) {
            let asked = asked.min(distance);
            let references: Vec<(u64, DocId)> =
                stored.iter().enumerate().map(|(doc, &fp)| (fp, doc as DocId * 3)).collect();
            let (bytes, at) = written(TableShape::new(distance, None), &references, &[]);
            for query in queries {
                let mut found = Vec::new();
                at.near(&bytes, Fingerprint(query), asked, |doc, d| found.push((doc, d)));
                found.sort_unstable();
                let mut expected: Vec<(DocId, u32)> = references
                    .iter()
                    .map(|&(fp, doc)| (doc, (fp ^ query).count_ones()))
                    .filter(|&(_, d)| d <= asked)
                    .collect();
                expected.sort_unstable();
                prop_assert_eq!(found, expected);
            }
        }

        /// The band tables find the references sharing a band, as a scan of the bands does.
        #[test]
        fn bands_find_what_a_scan_finds(
            stored in proptest::collection::vec(proptest::collection::vec(0u32..3, 6), 0..60),
            query in proptest::collection::vec(0u32..3, 6),
        ) {
            let shape = TableShape::new(3, Some((3, 2)));
            let banded: Vec<(DocId, Vec<u32>)> =
                stored.into_iter().enumerate().map(|(doc, s)| (doc as DocId, s)).collect();
            let (bytes, at) = written(shape, &[], &banded);
            let mut found = Vec::new();
            let keys: Vec<(usize, u32)> = crate::lookup::band_keys(&query, 2).enumerate().collect();
            at.band_hits(&bytes, &keys, &mut found);
            let mut listed = Vec::new();
            for band in 0..at.shape().bands {
                at.for_each_key_of_band(&bytes, band, |key| listed.push((band, key)));
            }
            listed.sort_unstable();
            let mut every: Vec<(usize, u32)> = banded
                .iter()
                .flat_map(|(_, s)| crate::lookup::band_keys(s, 2).enumerate())
                .collect();
            every.sort_unstable();
            prop_assert_eq!(listed, every);
            let expected: Vec<DocId> = banded
                .iter()
                .filter(|(_, s)| (0..3).any(|b| s[2 * b..2 * b + 2] == query[2 * b..2 * b + 2]))
                .map(|&(doc, _)| doc)
                .collect();
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn a_segment_of_one_bucket_and_an_empty_one() {
        // Every reference in one block value: the directory's one run.
        let references: Vec<(u64, DocId)> = (0..100).map(|doc| (doc as u64, doc)).collect();
        let (bytes, at) = written(TableShape::new(3, None), &references, &[]);
        let mut found = Vec::new();
        at.near(&bytes, Fingerprint(0), 1, |doc, _| found.push(doc));
        found.sort_unstable();
        assert_eq!(found, [0, 1, 2, 4, 8, 16, 32, 64]);
        let children: usize = at.blocks.iter().map(BlockTable::children).sum();
        assert!(children >= 3, "the long runs are re-bucketed");
        let (bytes, at) = written(TableShape::new(3, Some((2, 2))), &[], &[]);
        at.near(&bytes, Fingerprint(0), 3, |_, _| panic!("empty"));
        let mut hits = vec![1];
        at.band_hits(&bytes, &[(0, 1), (1, 2)], &mut hits);
        assert!(hits.is_empty());
    }

    #[test]
    fn no_block_tables_beyond_the_file_distance() {
        let shape = TableShape::new(MAX_FILE_DISTANCE + 1, Some((1, 1)));
        assert!(!shape.has_blocks());
        let (_, at) = written(shape, &[(1, 0)], &[(0, vec![5])]);
        assert!(at.blocks.is_empty());
    }
}
