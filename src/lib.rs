//! Near-duplicate detection for [tantivy](https://docs.rs/tantivy), for Chinese and Latin text.
//!
//! Every document gets a 64-bit **SimHash** fingerprint (Charikar 2002). Texts whose
//! fingerprints differ in at most *k* bits (3 by default) are near-duplicates; a pigeonhole
//! block-table index (Manku, Jain, Das Sarma 2007) finds them among millions. Edits move a
//! fingerprint further than that, so the plugin also keeps a MinHash signature of each
//! document by default (two-stage matching): a pair within a looser distance that shares a
//! band of the signatures (MinHash LSH) is a near-duplicate when the signatures agree.
//!
//! # Overview
//!
//! - [`text`]: [`MixedTokenizer`](text::MixedTokenizer), a tantivy tokenizer for Chinese mixed
//!   with other scripts; [`FeatureKind`](text::FeatureKind) (words, word shingles, character
//!   n-grams); [`Weighting`](text::Weighting) and [`IdfSource`](text::IdfSource).
//! - [`fingerprint`]: [`Fingerprint`](fingerprint::Fingerprint), [`SimHasher`](fingerprint::SimHasher),
//!   [`FingerprintConfig`](fingerprint::FingerprintConfig) (every setting that
//!   changes the bits); [`MinHasher`](fingerprint::MinHasher) for sets of tags or keywords and
//!   [`combined_similarity`](fingerprint::combined_similarity).
//! - [`lookup`]: [`FingerprintIndex`](lookup::FingerprintIndex), all stored fingerprints within
//!   distance *k* of a query, and the brute-force [`LinearScan`](lookup::LinearScan);
//!   [`BandIndex`](lookup::BandIndex), the MinHash LSH bands of two-stage matching.
//! - [`matching`]: the rule every part judges pairs by: [`MatchRule`](matching::MatchRule)
//!   (the distance *k* and the second stage's rule) and
//!   [`Verification`](matching::Verification) (the signature an index stores).
//! - [`plugin`]: the tantivy plugin. [`DedupIndex`](plugin::DedupIndex) keeps the settings
//!   in the index directory; [`DedupWriter`](plugin::DedupWriter) rejects, flags or replaces
//!   near-duplicates while indexing; [`DedupCollector`](plugin::DedupCollector) hides
//!   near-duplicates of higher-ranked hits in search results; both judge by the index's
//!   rule, two-stage matching by default.
//! - [`grouping`]: groups of near-duplicates from all the near pairs, whatever order the
//!   documents came in ([`group_classes`](grouping::group_classes), the rule of
//!   [`DedupIndex::duplicate_groups`](plugin::DedupIndex::duplicate_groups) and `clusters`).
//! - [`eval`]: detection quality against labeled pairs: precision, recall and F1 for every
//!   distance *k*, ROC AUC, a grid of configs, and SimHash candidates verified with MinHash.
//! - `shared` (cargo feature `cluster`): `shared::SharedRegistry`, a near-duplicate space
//!   shared by writers on several machines in Redis Cluster.
//! - `review` (cargo feature `review`, on by default): `review::Review`, every near-duplicate
//!   decision of an index or an ingest report side by side with a word-level diff, as HTML
//!   pages or JSON, and `DedupIndex::explain`, one pair's verdict with its diff.
//! - `html` (cargo feature `html`, on by default): `html::extract`, the title and main text
//!   of an HTML page without its menus, sidebars and footers, to fingerprint crawled pages.
//!
//! # Example: fingerprint two texts
//!
//! ```
//! use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
//!
//! let hasher = SimHasher::new(&FingerprintConfig::default())?;
//! let a = hasher.fingerprint("我爱北京天安门，天安门上太阳升。").unwrap();
//! let b = hasher.fingerprint("我愛北京天安門，天安門上太陽升。").unwrap(); // Traditional script
//! assert_eq!(a.distance(b), 0);
//! # Ok::<(), tantivy_dedup::Error>(())
//! ```
//!
//! # Example: find near-duplicates among many
//!
//! ```
//! use tantivy_dedup::fingerprint::Fingerprint;
//! use tantivy_dedup::lookup::FingerprintIndex;
//!
//! let mut index = FingerprintIndex::new();
//! index.insert(1, Fingerprint(0b1011_0000));
//! index.insert(2, Fingerprint(0b1011_0111)); // 3 bits away from 1
//! index.insert(3, Fingerprint(u64::MAX));
//! let hits = index.query(Fingerprint(0b1011_0000), 3);
//! let mut ids: Vec<u32> = hits.iter().map(|m| m.id).collect();
//! ids.sort();
//! assert_eq!(ids, [1, 2]);
//! ```
//!
//! # Example: search with the tokenizer
//!
//! ```
//! use tantivy::collector::Count;
//! use tantivy::query::QueryParser;
//! use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
//! use tantivy::{doc, Index};
//! use tantivy_dedup::text::{MixedTokenizer, TOKENIZER_NAME};
//!
//! let mut schema = Schema::builder();
//! let indexing = TextFieldIndexing::default()
//!     .set_tokenizer(TOKENIZER_NAME)
//!     .set_index_option(IndexRecordOption::WithFreqsAndPositions);
//! let body = schema.add_text_field("body", TextOptions::default().set_indexing_options(indexing));
//! let index = Index::create_in_ram(schema.build());
//! // Tokenizers are not persisted: register again after every open.
//! index.tokenizers().register(TOKENIZER_NAME, MixedTokenizer::new());
//! let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
//! writer.add_document(doc!(body => "tantivy 是一个全文搜索引擎库"))?;
//! writer.add_document(doc!(body => "搜尋引擎每天抓取大量網頁"))?;
//! writer.commit()?;
//! let searcher = index.reader()?.searcher();
//! let parser = QueryParser::for_index(&index, vec![body]);
//! // A query in Simplified script finds the Traditional page too.
//! assert_eq!(searcher.search(&parser.parse_query("搜索引擎")?, &Count)?, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Quirks
//!
//! - **Short texts**: a text of a few words has few features, and one changed word moves many
//!   bits. SimHash is the wrong tool below a sentence or two; compare such texts exactly or with
//!   MinHash over character n-grams.
//! - **Choosing k**: 3 of 64 bits is Manku et al.'s choice for web pages. Larger *k* finds
//!   more edited copies and more false pairs; `docs/PARAMETERS.md` shows how to choose it on
//!   your own data.
//! - **Fingerprints change with the config**: features, weights, IDF source, tokenizer
//!   settings and seed all change the bits. Keep the
//!   [`FingerprintConfig`](fingerprint::FingerprintConfig) beside the fingerprints and compare
//!   configs with [`FingerprintConfig::differences`](fingerprint::FingerprintConfig::differences).
//! - **Empty texts have no fingerprint**: [`SimHasher::fingerprint`](fingerprint::SimHasher::fingerprint) returns `None` for a text
//!   with no features, so that empty pages are not all duplicates of each other.
//! - **Huge texts** are fingerprinted on their first
//!   [`max_text_bytes`](fingerprint::FingerprintConfig::max_text_bytes) (1 MiB by default).
// docs.rs (`--cfg docsrs`, nightly): each item behind a cargo feature is marked with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]
#![warn(missing_debug_implementations)]
// The hot loops vectorize without it; no module needs `unsafe`.
#![forbid(unsafe_code)]

pub mod corpus;
mod error;
pub mod eval;
pub mod fingerprint;
pub mod grouping;
#[cfg(feature = "html")]
pub mod html;
pub mod lookup;
pub mod matching;
pub mod plugin;
#[cfg(feature = "review")]
pub mod review;
#[cfg(feature = "cluster")]
pub mod shared;
pub mod text;

pub use error::{Error, Result};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
