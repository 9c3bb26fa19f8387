//! The tokenizer's settings, as recorded in a fingerprint configuration.

use serde::{Deserialize, Serialize};

/// How Chinese script is folded before segmentation (see [`ScriptFolder`](crate::text::ScriptFolder)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ScriptFolding {
    /// No folding: Traditional and Simplified spellings are different words.
    Off,
    /// Each Traditional character becomes its Simplified form (門 -> 门).
    Characters,
    /// OpenCC's Taiwan-phrase conversion: characters and regional vocabulary (軟體 -> 软件),
    /// in text that holds Traditional characters; Taiwan vocabulary in Simplified characters
    /// (软体) is left as it is.
    Regional,
    /// [`Regional`](Self::Regional), then Taiwan vocabulary in Simplified characters folded
    /// to mainland vocabulary in every text (软体 -> 软件, 档案 -> 文件, 默认 and 缺省 alike),
    /// so that regional wording meets mainland wording in either script.
    RegionalAnyScript,
}

/// Settings of [`MixedTokenizer`](crate::text::MixedTokenizer) that change which tokens it
/// emits, and so the fingerprints built from them.
///
/// Every field has a documented default; build one with [`TokenizerConfig::default`] and the
/// by-value setters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    hmm: bool,
    stop_words: bool,
    folding: ScriptFolding,
    user_dictionary: Option<String>,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            hmm: true,
            stop_words: false,
            folding: ScriptFolding::RegionalAnyScript,
            user_dictionary: None,
        }
    }
}

impl TokenizerConfig {
    /// Whether jieba's HMM guesses words missing from its dictionary (names, new terms).
    /// Default: `true`, as in jieba itself. Without it, unknown words fall apart into
    /// single characters.
    #[must_use]
    pub fn hmm(mut self, yes: bool) -> Self {
        self.hmm = yes;
        self
    }

    /// Whether the built-in Chinese and English stop words are dropped. Default: `false`:
    /// phrase queries need them, and IDF weighting already gives them little weight.
    #[must_use]
    pub fn stop_words(mut self, yes: bool) -> Self {
        self.stop_words = yes;
        self
    }

    /// How Traditional Chinese is folded to Simplified before segmentation. Default:
    /// [`ScriptFolding::RegionalAnyScript`]: Taiwan pages, in Traditional characters or
    /// converted to Simplified ones character by character, meet their mainland originals
    /// (`docs/PARAMETERS.md`).
    #[must_use]
    pub fn folding(mut self, folding: ScriptFolding) -> Self {
        self.folding = folding;
        self
    }

    /// The digest of the user dictionary in use, if any
    /// ([`ChineseDictionary::digest`](crate::text::ChineseDictionary::digest)).
    /// Set by [`MixedTokenizer::with_dictionary`](crate::text::MixedTokenizer::with_dictionary).
    #[must_use]
    pub fn user_dictionary(mut self, digest: Option<String>) -> Self {
        self.user_dictionary = digest;
        self
    }

    /// See [`TokenizerConfig::hmm`](Self::hmm()).
    #[must_use]
    pub fn get_hmm(&self) -> bool {
        self.hmm
    }

    /// See [`TokenizerConfig::stop_words`](Self::stop_words()).
    #[must_use]
    pub fn get_stop_words(&self) -> bool {
        self.stop_words
    }

    /// See [`TokenizerConfig::folding`](Self::folding()).
    #[must_use]
    pub fn get_folding(&self) -> ScriptFolding {
        self.folding
    }

    /// See [`TokenizerConfig::user_dictionary`](Self::user_dictionary()).
    #[must_use]
    pub fn get_user_dictionary(&self) -> Option<&str> {
        self.user_dictionary.as_deref()
    }
}
