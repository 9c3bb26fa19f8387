//! Stop words: very common words that carry little of a text's identity.
//!
//! The built-in lists are the Chinese and English lists of stopwords-iso, through the
//! `stop-words` crate. Dropping them shrinks the feature set of a text to the words that
//! tell it apart; it matters most with [`Weighting::Tf`](crate::text::Weighting::Tf), where
//! nothing else discounts "the" and "的".

use std::sync::{Arc, LazyLock};

use rustc_hash::FxHashSet;

static BUILT_IN: LazyLock<Arc<FxHashSet<Box<str>>>> = LazyLock::new(|| {
    let mut words = FxHashSet::default();
    for language in ["en", "zh"] {
        if let Some(list) = stop_words::lookup(language) {
            words.extend(list.iter().map(|w| w.to_lowercase().into_boxed_str()));
        }
    }
    Arc::new(words)
});

/// A set of lowercase stop words, cheap to clone. Looked up once per token: FxHash, not the
/// standard library's SipHash, which is built to resist collisions an attacker could choose
/// (a stop-word list is fixed before any text is read).
#[derive(Clone, Debug)]
pub struct StopWords {
    words: Arc<FxHashSet<Box<str>>>,
}

impl StopWords {
    /// The built-in Chinese and English lists (stopwords-iso), loaded once per process.
    #[must_use]
    pub fn built_in() -> Self {
        StopWords {
            words: Arc::clone(&BUILT_IN),
        }
    }

    /// A custom list; words are lowercased.
    #[must_use]
    pub fn from_words<I, S>(words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let words = words
            .into_iter()
            .map(|w| w.as_ref().to_lowercase().into_boxed_str())
            .collect();
        StopWords {
            words: Arc::new(words),
        }
    }

    /// True when `word` (already lowercase) is a stop word.
    #[inline]
    #[must_use]
    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// Number of words in the list.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the list is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_lists_cover_both_languages() {
        let stop = StopWords::built_in();
        assert!(stop.contains("the"));
        assert!(stop.contains("的"));
        assert!(!stop.contains("tantivy"));
        assert!(!stop.contains("北京"));
    }

    #[test]
    fn custom_lists_are_lowercased() {
        let stop = StopWords::from_words(["The", "OF"]);
        assert!(stop.contains("the"));
        assert!(stop.contains("of"));
        assert_eq!(stop.len(), 2);
    }
}
