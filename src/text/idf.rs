//! Inverse document frequency: how rare a word is, from one of several sources.
//!
//! An [`IdfSource`] gives the IDF of a *unit*: a word (for word and word-shingle features) or
//! a character n-gram (for n-gram features). [`IdfTable`] is the implementation this crate
//! ships, filled from jieba's built-in table ([`IdfTable::jieba`]), from a corpus
//! ([`IdfTableBuilder`]), or from a tantivy index's document frequencies
//! ([`IdfTable::from_searcher`]). Whatever the source, it is frozen: fingerprints must not
//! drift as an index grows, so the table's [`identity`](IdfSource::identity) is recorded in
//! the fingerprint configuration.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::sync::{Arc, LazyLock};

use nohash_hasher::BuildNoHashHasher;
use serde::{Deserialize, Serialize};
use tantivy::schema::Field;
use tantivy::Searcher;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::text::features::{for_each_unit, FeatureKind};
use crate::text::MixedTokenizer;

include_flate::flate!(static JIEBA_IDF: str from "assets/jieba-idf.txt");

/// The identity of jieba's built-in table in fingerprint configurations.
pub const JIEBA_IDF_IDENTITY: &str = "jieba-builtin";

/// Format version of a serialized [`IdfTable`].
pub const IDF_TABLE_VERSION: u32 = 1;

static JIEBA: LazyLock<Arc<IdfTable>> =
    LazyLock::new(|| Arc::new(IdfTable::parse_jieba(&JIEBA_IDF)));

/// Where IDF values come from.
pub trait IdfSource: Send + Sync + std::fmt::Debug {
    /// The IDF of `unit` (lowercased, folded, as the tokenizer emits it), or `None` when the
    /// source has never seen it.
    fn idf(&self, unit: &str) -> Option<f32>;

    /// The IDF given to units the source has never seen.
    fn default_idf(&self) -> f32;

    /// A stable name for this source's content, recorded in the fingerprint configuration:
    /// two sources with the same identity must give the same values.
    fn identity(&self) -> &str;

    /// [`idf`](IdfSource::idf), falling back to [`default_idf`](IdfSource::default_idf).
    fn idf_or_default(&self, unit: &str) -> f32 {
        self.idf(unit).unwrap_or_else(|| self.default_idf())
    }
}

/// A frozen table of IDF values.
#[derive(Clone)]
pub struct IdfTable {
    /// Values by the xxh3 hash of their unit: hashing a short string once in one shot is
    /// several times faster than feeding it to a streaming `Hasher`, and lookups are on the
    /// fingerprinting hot path. A 64-bit collision between two units is negligible.
    by_hash: HashMap<u64, f32, BuildNoHashHasher<u64>>,
    /// Whether any unit is pure ASCII. jieba's table has none: English words, most of an
    /// English text, then skip the lookup, which measured a quarter of the time of
    /// fingerprinting English (the table is too large for the cache).
    has_ascii_units: bool,
    /// The entries (sorted by unit, except in jieba's table), kept for saving.
    entries: Arc<[(Box<str>, f32)]>,
    default_idf: f32,
    documents: u64,
    identity: String,
}

/// The serialized form: entries sorted by unit, so equal tables serialize equally.
#[derive(Serialize, Deserialize)]
struct IdfTableFile {
    version: u32,
    documents: u64,
    default_idf: f32,
    entries: Vec<(String, f32)>,
}

impl IdfTable {
    /// Jieba's built-in IDF table (270,131 Chinese words), parsed once per process. Units
    /// missing from it (all non-Chinese words, among others) get its median IDF, as in jieba.
    #[must_use]
    pub fn jieba() -> Arc<IdfTable> {
        Arc::clone(&JIEBA)
    }

    fn parse_jieba(text: &str) -> IdfTable {
        let mut entries = Vec::with_capacity(280_000);
        for line in text.lines() {
            let mut parts = line.split(' ');
            if let (Some(word), Some(value)) = (
                parts.next(),
                parts.next().and_then(|v| v.parse::<f32>().ok()),
            ) {
                entries.push((word.to_owned(), value));
            }
        }
        let mut values: Vec<f32> = entries.iter().map(|e| e.1).collect();
        let mid = values.len().saturating_sub(1) / 2;
        let median = if values.is_empty() {
            1.0
        } else {
            *values.select_nth_unstable_by(mid, f32::total_cmp).1
        };
        // jieba's table has a fixed identity: no need to sort it and digest it, which would
        // double the time of loading it.
        Self::from_entries(entries, 0, median, JIEBA_IDF_IDENTITY.to_owned())
    }

    /// A table from document frequencies: `idf = ln((1 + documents) / (1 + df)) + 1`, the
    /// smoothed form that stays positive; unseen units get the IDF of `df = 0`.
    fn from_frequencies(
        documents: u64,
        frequencies: impl IntoIterator<Item = (String, u64)>,
    ) -> IdfTable {
        let formula = |df: u64| ((1.0 + documents as f64) / (1.0 + df as f64)).ln() as f32 + 1.0;
        let entries = frequencies
            .into_iter()
            .map(|(unit, df)| (unit, formula(df)))
            .collect();
        Self::from_file(IdfTableFile {
            version: IDF_TABLE_VERSION,
            documents,
            default_idf: formula(0),
            entries,
        })
    }

    fn from_file(mut file: IdfTableFile) -> IdfTable {
        // Stable, so that of two entries for one unit the first one read is kept.
        file.entries.sort_by(|a, b| a.0.cmp(&b.0));
        file.entries.dedup_by(|a, b| a.0 == b.0);
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        digest.update(&file.documents.to_le_bytes());
        digest.update(&file.default_idf.to_bits().to_le_bytes());
        for (unit, value) in &file.entries {
            digest.update(unit.as_bytes());
            digest.update(&[0]);
            digest.update(&value.to_bits().to_le_bytes());
        }
        let identity = format!("table-{:016x}", digest.digest());
        Self::from_entries(file.entries, file.documents, file.default_idf, identity)
    }

    fn from_entries(
        entries: Vec<(String, f32)>,
        documents: u64,
        default_idf: f32,
        identity: String,
    ) -> IdfTable {
        let mut by_hash =
            HashMap::with_capacity_and_hasher(entries.len(), BuildNoHashHasher::default());
        by_hash.extend(
            entries
                .iter()
                .map(|(unit, v)| (xxh3_64(unit.as_bytes()), *v)),
        );
        let has_ascii_units = entries.iter().any(|(unit, _)| unit.is_ascii());
        let entries = entries
            .into_iter()
            .map(|(unit, v)| (unit.into_boxed_str(), v))
            .collect();
        IdfTable {
            by_hash,
            has_ascii_units,
            entries,
            default_idf,
            documents,
            identity,
        }
    }

    /// A table of the document frequencies of the terms of `field` in every segment of a
    /// tantivy index: the words of a field tokenized by [`MixedTokenizer`] are the units of
    /// word features. Deleted documents still count until their segment is merged, as in
    /// [`Searcher::doc_freq`]; that is fine for IDF.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when the field is not indexed or its term dictionary cannot be read.
    pub fn from_searcher(searcher: &Searcher, field: Field) -> Result<IdfTable> {
        let mut frequencies: HashMap<String, u64> = HashMap::new();
        let mut documents = 0u64;
        for segment in searcher.segment_readers() {
            documents += u64::from(segment.max_doc());
            let inverted = segment.inverted_index(field)?;
            let mut terms = inverted
                .terms()
                .stream()
                .map_err(tantivy::TantivyError::from)?;
            while terms.advance() {
                // Text terms are UTF-8; a field with other term types has no words to weigh.
                if let Ok(unit) = std::str::from_utf8(terms.key()) {
                    *frequencies.entry(unit.to_owned()).or_default() +=
                        u64::from(terms.value().doc_freq);
                }
            }
        }
        Ok(Self::from_frequencies(documents, frequencies))
    }

    /// Number of units with a value.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the table has no entry (every unit gets the default).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of documents the table was computed from (0 for jieba's table, whose corpus
    /// size is not published).
    #[must_use]
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Writes the table as JSON (entries sorted, so equal tables give equal files).
    ///
    /// # Errors
    /// [`Error::Decode`] if serialization fails (only through the writer).
    pub fn save_json(&self, writer: impl Write) -> Result<()> {
        let mut entries: Vec<(String, f32)> = self
            .entries
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let file = IdfTableFile {
            version: IDF_TABLE_VERSION,
            documents: self.documents,
            default_idf: self.default_idf,
            entries,
        };
        serde_json::to_writer(writer, &file).map_err(|e| Error::Decode {
            what: "IDF table",
            source: Box::new(e),
        })
    }

    /// Reads a table written by [`IdfTable::save_json`].
    ///
    /// # Errors
    /// [`Error::Decode`] if the data is not such a table or has another format version.
    pub fn load_json(reader: impl Read) -> Result<IdfTable> {
        let file: IdfTableFile = serde_json::from_reader(reader).map_err(|e| Error::Decode {
            what: "IDF table",
            source: Box::new(e),
        })?;
        if file.version != IDF_TABLE_VERSION {
            return Err(Error::Decode {
                what: "IDF table",
                source: format!(
                    "format version {} (this build reads {IDF_TABLE_VERSION})",
                    file.version
                )
                .into(),
            });
        }
        Ok(Self::from_file(file))
    }
}

impl IdfSource for IdfTable {
    #[inline]
    fn idf(&self, unit: &str) -> Option<f32> {
        if !self.has_ascii_units && unit.is_ascii() {
            return None;
        }
        self.by_hash.get(&xxh3_64(unit.as_bytes())).copied()
    }

    fn default_idf(&self) -> f32 {
        self.default_idf
    }

    fn identity(&self) -> &str {
        &self.identity
    }
}

impl std::fmt::Debug for IdfTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdfTable")
            .field("identity", &self.identity)
            .field("entries", &self.entries.len())
            .field("documents", &self.documents)
            .field("default_idf", &self.default_idf)
            .finish()
    }
}

/// Computes an [`IdfTable`] from a corpus: add documents, then [`build`](IdfTableBuilder::build).
///
/// The units counted follow the feature kind: words for word and shingle features, character
/// n-grams for n-gram features, as the tokenizer produces them.
#[derive(Debug)]
pub struct IdfTableBuilder {
    tokenizer: MixedTokenizer,
    kind: FeatureKind,
    documents: u64,
    frequencies: HashMap<String, u64>,
    seen: HashSet<String>,
}

impl IdfTableBuilder {
    /// A builder counting the units of `kind` as `tokenizer` produces them.
    #[must_use]
    pub fn new(tokenizer: MixedTokenizer, kind: FeatureKind) -> Self {
        IdfTableBuilder {
            tokenizer,
            kind,
            documents: 0,
            frequencies: HashMap::new(),
            seen: HashSet::new(),
        }
    }

    /// Counts one document.
    pub fn add_document(&mut self, text: &str) {
        self.documents += 1;
        self.seen.clear();
        let seen = &mut self.seen;
        for_each_unit(&self.tokenizer, self.kind, text, |unit| {
            if !seen.contains(unit) {
                seen.insert(unit.to_owned());
            }
        });
        for unit in self.seen.drain() {
            *self.frequencies.entry(unit).or_default() += 1;
        }
    }

    /// The table of the documents added so far.
    #[must_use]
    pub fn build(self) -> IdfTable {
        IdfTable::from_frequencies(self.documents, self.frequencies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jieba_table_has_chinese_words_and_a_median_default() {
        let table = IdfTable::jieba();
        assert!(table.len() > 250_000);
        let rare = table.idf("劳动防护").unwrap();
        let common = table.idf("中国").unwrap();
        assert!(rare > common);
        assert_eq!(table.idf("tantivy"), None);
        assert!(table.default_idf() > common && table.default_idf() < rare);
        assert_eq!(table.identity(), JIEBA_IDF_IDENTITY);
    }

    #[test]
    fn corpus_table_counts_documents_not_occurrences() {
        let mut builder = IdfTableBuilder::new(MixedTokenizer::new(), FeatureKind::Words);
        builder.add_document("the cat the cat the cat");
        builder.add_document("the dog");
        builder.add_document("a bird");
        let table = builder.build();
        assert_eq!(table.documents(), 3);
        let the = table.idf("the").unwrap();
        let cat = table.idf("cat").unwrap();
        assert!((the - ((4.0f32 / 3.0).ln() + 1.0)).abs() < 1e-6);
        assert!(cat > the);
        assert!(table.default_idf() > cat);
    }

    #[test]
    fn save_and_load_round_trip_keeps_identity() {
        let mut builder = IdfTableBuilder::new(MixedTokenizer::new(), FeatureKind::Words);
        builder.add_document("我爱北京天安门");
        builder.add_document("北京 is a city");
        let table = builder.build();
        let mut bytes = Vec::new();
        table.save_json(&mut bytes).unwrap();
        let loaded = IdfTable::load_json(bytes.as_slice()).unwrap();
        assert_eq!(loaded.identity(), table.identity());
        assert_eq!(loaded.idf("北京"), table.idf("北京"));
        assert!(IdfTable::load_json(&b"{\"version\":1}"[..]).is_err());
        let newer = String::from_utf8(bytes)
            .unwrap()
            .replace("\"version\":1", "\"version\":99");
        assert!(matches!(
            IdfTable::load_json(newer.as_bytes()),
            Err(Error::Decode { .. })
        ));
    }

    #[test]
    fn different_content_gives_a_different_identity() {
        let a = IdfTable::from_frequencies(10, [("x".to_owned(), 1)]);
        let b = IdfTable::from_frequencies(10, [("x".to_owned(), 2)]);
        let c = IdfTable::from_frequencies(10, [("x".to_owned(), 1)]);
        assert_ne!(a.identity(), b.identity());
        assert_eq!(a.identity(), c.identity());
    }
}
