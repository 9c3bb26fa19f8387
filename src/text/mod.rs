//! Turning text into weighted features: the tokenizer, the feature kinds and the weights.
//!
//! [`MixedTokenizer`] is a tantivy tokenizer for Chinese mixed with other scripts (jieba for
//! Han runs, Unicode word boundaries for the rest); [`FeatureExtractor`] turns its tokens into
//! weighted [features](FeatureKind) with a [`Weighting`] and an [`IdfSource`].

mod ascii_masks;
mod ascii_words;
mod config;
mod dictionary;
mod features;
mod fold;
mod han_text;
mod idf;
mod opencc;
mod script;
mod shingle_units;
mod simplified_vocabulary;
mod stopwords;
mod token_stream;
mod tokenizer;
mod weighting;
mod windows;
mod words;

pub use config::{ScriptFolding, TokenizerConfig};
pub use dictionary::ChineseDictionary;
pub use features::{FeatureExtractor, FeatureKind, MAX_FEATURE_N};
pub use fold::ScriptFolder;
pub(crate) use han_text::HanText;
pub use idf::{IdfSource, IdfTable, IdfTableBuilder, IDF_TABLE_VERSION, JIEBA_IDF_IDENTITY};
pub(crate) use script::has_han;
pub use script::is_han;
pub(crate) use shingle_units::{for_each_shingle_unit, shingle_words, ShingleUnit};
pub use stopwords::StopWords;
pub use token_stream::MixedTokenStream;
pub use tokenizer::{MixedTokenizer, TOKENIZER_NAME};
pub use weighting::{length_relevance, Weighting, LENGTH_RELEVANCE_MEAN, LENGTH_RELEVANCE_STD_DEV};
pub(crate) use windows::{char_window_ranges, char_windows, WordShingles};
