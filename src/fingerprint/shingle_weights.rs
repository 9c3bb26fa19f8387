//! [`ShingleWeights`]: how much each shingle of a signature counts, from the number of
//! documents of a sample it occurs in, frozen with an index.
//!
//! Why: two reports of one frame (a monthly statistic, a weekly rate notice, a site's
//! header and footer) share most of their shingles, and differ in the few that make each
//! report itself: the figures, the names, the dates. Plain MinHash counts every shingle
//! alike, so such reports look as alike as a repost and its correction. Weighted by their
//! inverse document frequency, the frame's shingles count little and the figures count
//! much, and the signatures estimate the *weighted* Jaccard similarity
//! `Σ_{A∩B} w / Σ_{A∪B} w` (see [`WeightedBins`](super::weighted_bins)).
//!
//! The weight of a shingle is a function of the shingle alone, learned once from a sample
//! and never again: two documents' signatures stay comparable for the index's whole life
//! only while every shingle keeps its weight.

use std::collections::HashMap;

use nohash_hasher::BuildNoHashHasher;

use crate::error::{Error, Result};

/// The most shingles a table keeps: those in the most documents, which are the ones whose
/// weight differs from a shingle never seen. 12 bytes each in the file.
pub const MAX_WEIGHTED_SHINGLES: usize = 4_000_000;

/// The fewest documents of the sample a shingle must be in for the table to keep it: a
/// shingle of one document weighs as much as one never seen.
const MIN_DOCUMENTS: u32 = 2;

/// The first bytes of a serialized table.
const MAGIC: &[u8; 4] = b"TDSW";

/// Format version of a serialized table.
pub const SHINGLE_WEIGHTS_VERSION: u32 = 1;

/// The weight of a shingle in `df` of `documents` documents: its smoothed inverse document
/// frequency, squared, `(ln((documents + 1) / (df + 1)) + 1)²`. The `+ 1` keeps a shingle
/// of every document above 0 (it still counts, for two documents made only of a frame); the
/// square puts a rare shingle about `ln(documents)²` times above it: about 90 times for
/// 10,000 documents, so that a page's own words outweigh its template.
#[must_use]
pub fn idf_weight(df: u32, documents: u64) -> f32 {
    (((documents as f64 + 1.0) / (f64::from(df) + 1.0)).ln() + 1.0).powi(2) as f32
}

/// A frozen table of shingle weights: each shingle's [`idf_weight`] in the sample it was
/// learned from, by the shingle's hash (as a signature's bins take it).
///
/// Learn one with [`TextMatcher::learn_weights`](crate::matching::TextMatcher::learn_weights)
/// (or `ingest --idf-from` on the command line); an index keeps it beside its settings.
#[derive(Clone, PartialEq)]
pub struct ShingleWeights {
    /// The weights of the shingles kept, by hash.
    by_hash: HashMap<u64, f32, BuildNoHashHasher<u64>>,
    /// `(hash, documents)`, sorted by hash: what is saved.
    entries: Vec<(u64, u32)>,
    documents: u64,
    unseen: f32,
    identity: String,
}

impl std::fmt::Debug for ShingleWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShingleWeights")
            .field("identity", &self.identity)
            .field("documents", &self.documents)
            .field("shingles", &self.entries.len())
            .finish()
    }
}

impl ShingleWeights {
    /// The weight of the shingle of this hash: its [`idf_weight`] when the table has it,
    /// else that of a shingle of one document ([`unseen_weight`](Self::unseen_weight)).
    #[inline]
    #[must_use]
    pub fn weight(&self, hash: u64) -> f32 {
        self.by_hash.get(&hash).copied().unwrap_or(self.unseen)
    }

    /// The weight of a shingle the table does not have: the highest.
    #[must_use]
    pub fn unseen_weight(&self) -> f32 {
        self.unseen
    }

    /// The documents of the sample.
    #[must_use]
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The shingles the table keeps (those of at least two documents of the sample).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no shingle was in two documents of the sample: every shingle weighs the
    /// same, and the signatures are those of plain MinHash.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A name of this table's content, recorded in the settings
    /// ([`Verification::weights`](crate::matching::Verification::weights)): two tables of one
    /// identity give every shingle the same weight.
    #[must_use]
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The table as bytes: a header (`TDSW`, version, documents, count) and each kept
    /// shingle's hash and document count, little-endian, sorted by hash.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(24 + self.entries.len() * 12);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&SHINGLE_WEIGHTS_VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.documents.to_le_bytes());
        bytes.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for &(hash, df) in &self.entries {
            bytes.extend_from_slice(&hash.to_le_bytes());
            bytes.extend_from_slice(&df.to_le_bytes());
        }
        bytes
    }

    /// Reads a table written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::Decode`] when the bytes are not such a table (another file, a later
    /// version, a truncated or reordered one).
    pub fn from_bytes(bytes: &[u8]) -> Result<ShingleWeights> {
        let refuse = |why: &str| Error::Decode {
            what: "shingle weights",
            source: why.into(),
        };
        let (header, body) = bytes
            .split_at_checked(24)
            .ok_or_else(|| refuse("shorter than its header"))?;
        if &header[..4] != MAGIC {
            return Err(refuse("not a table of shingle weights"));
        }
        let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8"));
        let version = u32::from_le_bytes(header[4..8].try_into().expect("4"));
        if version != SHINGLE_WEIGHTS_VERSION {
            return Err(refuse(&format!(
                "version {version}; this tantivy-dedup reads version {SHINGLE_WEIGHTS_VERSION}"
            )));
        }
        let (documents, count) = (word(8), word(16));
        if (body.len() as u64) != count.saturating_mul(12) {
            return Err(refuse("its length does not match its count of shingles"));
        }
        let entries: Vec<(u64, u32)> = body
            .chunks_exact(12)
            .map(|entry| {
                let hash = u64::from_le_bytes(entry[..8].try_into().expect("8"));
                (hash, u32::from_le_bytes(entry[8..].try_into().expect("4")))
            })
            .collect();
        let ordered = entries.windows(2).all(|pair| pair[0].0 < pair[1].0);
        let counted =
            (entries.iter()).all(|&(_, df)| df >= MIN_DOCUMENTS && u64::from(df) <= documents);
        if !ordered || !counted {
            return Err(refuse("its shingles are out of order or counted wrongly"));
        }
        Ok(ShingleWeights::from_entries(entries, documents))
    }

    fn from_entries(entries: Vec<(u64, u32)>, documents: u64) -> ShingleWeights {
        let by_hash = (entries.iter())
            .map(|&(hash, df)| (hash, idf_weight(df, documents)))
            .collect();
        let mut content = Vec::with_capacity(16 + entries.len() * 12);
        content.extend_from_slice(&documents.to_le_bytes());
        for &(hash, df) in &entries {
            content.extend_from_slice(&hash.to_le_bytes());
            content.extend_from_slice(&df.to_le_bytes());
        }
        let digest = xxhash_rust::xxh3::xxh3_64(&content);
        ShingleWeights {
            by_hash,
            identity: format!("idf-{documents}-{digest:016x}"),
            unseen: idf_weight(1, documents),
            entries,
            documents,
        }
    }
}

/// Counts the documents each shingle is in, one document at a time, into a
/// [`ShingleWeights`].
#[derive(Debug, Default)]
pub struct ShingleWeightsBuilder {
    documents: u64,
    counts: HashMap<u64, u32, BuildNoHashHasher<u64>>,
    /// One document's hashes, reused.
    scratch: Vec<u64>,
}

impl ShingleWeightsBuilder {
    /// An empty count.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one document, by the hashes of its shingles (a shingle repeated in it counts
    /// once).
    pub fn add_document(&mut self, hashes: impl IntoIterator<Item = u64>) {
        self.scratch.clear();
        self.scratch.extend(hashes);
        self.scratch.sort_unstable();
        self.scratch.dedup();
        for &hash in &self.scratch {
            *self.counts.entry(hash).or_insert(0) += 1;
        }
        self.documents += 1;
    }

    /// The documents counted so far.
    #[must_use]
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The frozen table: the shingles of at least two documents, at most
    /// [`MAX_WEIGHTED_SHINGLES`] of them (those of the most documents).
    #[must_use]
    pub fn build(self) -> ShingleWeights {
        let mut entries: Vec<(u64, u32)> = (self.counts.into_iter())
            .filter(|&(_, df)| df >= MIN_DOCUMENTS)
            .collect();
        if entries.len() > MAX_WEIGHTED_SHINGLES {
            entries.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            entries.truncate(MAX_WEIGHTED_SHINGLES);
        }
        entries.sort_unstable();
        ShingleWeights::from_entries(entries, self.documents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ShingleWeights {
        let mut builder = ShingleWeightsBuilder::new();
        builder.add_document([1, 2, 3, 3]);
        builder.add_document([1, 2, 4]);
        builder.add_document([1, 5]);
        builder.build()
    }

    #[test]
    fn common_shingles_weigh_less() {
        let table = table();
        assert_eq!(table.documents(), 3);
        assert_eq!(table.len(), 2, "1 and 2; the others are in one document");
        assert!(table.weight(1) < table.weight(2));
        assert!(table.weight(2) < table.weight(3));
        assert_eq!(table.weight(3), table.weight(99));
        assert_eq!(table.weight(1), idf_weight(3, 3));
        assert!(table.weight(1) > 0.0);
    }

    #[test]
    fn a_table_round_trips_and_names_its_content() {
        let table = table();
        let read = ShingleWeights::from_bytes(&table.to_bytes()).unwrap();
        assert_eq!(read, table);
        let mut other = ShingleWeightsBuilder::new();
        other.add_document([1, 2]);
        other.add_document([1, 2]);
        assert_ne!(other.build().identity(), table.identity());
    }

    #[test]
    fn bad_bytes_are_refused() {
        let bytes = table().to_bytes();
        let mut reordered = bytes.clone();
        reordered[24..36].copy_from_slice(&bytes[36..48]);
        reordered[36..48].copy_from_slice(&bytes[24..36]);
        let mut later = bytes.clone();
        later[4] = 2;
        for bad in [&b"TDSX"[..], &bytes[..30], &reordered, &later, &b"{}"[..]] {
            assert!(
                matches!(ShingleWeights::from_bytes(bad), Err(Error::Decode { .. })),
                "{bad:?}"
            );
        }
    }
}
