//! The jieba dictionary, loaded once and shared.
//!
//! Loading jieba's default dictionary takes tens of milliseconds and about 50 MB; tantivy
//! clones a tokenizer for every segment writer, so the dictionary lives behind an [`Arc`]
//! and every clone shares it. The default one is loaded when a text first needs words cut
//! from Han characters: fingerprints of character n-grams never load it (it was a quarter
//! of the time of `tantivy-dedup fingerprint` on 10 MB of Chinese).

use std::io::BufRead;
use std::sync::{Arc, LazyLock};

use jieba_rs::Jieba;

use crate::error::{Error, Result};

static DEFAULT: LazyLock<Jieba> = LazyLock::new(Jieba::new);

/// A jieba dictionary shared by every tokenizer made from it.
///
/// [`ChineseDictionary::default`] is jieba's built-in dictionary, loaded once per process,
/// at its first use.
/// [`ChineseDictionary::with_user_words`] adds a user dictionary on top of it; its
/// [`digest`](ChineseDictionary::digest) goes into the fingerprint configuration, because
/// other words change the segmentation and so the fingerprints.
#[derive(Clone, Default)]
pub struct ChineseDictionary {
    /// `None`: the built-in dictionary of the process.
    user: Option<Arc<Jieba>>,
    digest: Option<String>,
}

impl ChineseDictionary {
    /// Jieba's built-in dictionary extended with a user dictionary in jieba's format: one
    /// word per line, optionally followed by a frequency and a part-of-speech tag.
    ///
    /// # Errors
    /// [`Error::UserDictionary`] when a line cannot be parsed or the reader fails.
    pub fn with_user_words(mut words: impl BufRead) -> Result<Self> {
        let mut content = Vec::new();
        words
            .read_to_end(&mut content)
            .map_err(|e| Error::UserDictionary(jieba_rs::Error::from(e)))?;
        let mut jieba = Jieba::new();
        jieba
            .load_dict(&mut content.as_slice())
            .map_err(Error::UserDictionary)?;
        let digest = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&content));
        Ok(ChineseDictionary {
            user: Some(Arc::new(jieba)),
            digest: Some(digest),
        })
    }

    /// The segmenter itself.
    #[must_use]
    pub fn jieba(&self) -> &Jieba {
        self.user.as_deref().unwrap_or(&DEFAULT)
    }

    /// `None` for the built-in dictionary; for a user dictionary, the xxh3 digest of its
    /// content (16 hexadecimal digits), recorded in the fingerprint configuration.
    #[must_use]
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }
}

impl std::fmt::Debug for ChineseDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChineseDictionary")
            .field("digest", &self.digest)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dictionary_is_shared() {
        let a = ChineseDictionary::default();
        let b = ChineseDictionary::default();
        assert!(std::ptr::eq(a.jieba(), b.jieba()));
        assert_eq!(a.digest(), None);
    }

    #[test]
    fn user_words_change_segmentation_and_digest() {
        let text = "区块链技术";
        let default = ChineseDictionary::default();
        let before: Vec<&str> = default
            .jieba()
            .cut(text, false)
            .iter()
            .map(|t| t.word)
            .collect();
        let custom =
            ChineseDictionary::with_user_words("区块链技术 100000 n\n".as_bytes()).unwrap();
        let after: Vec<&str> = custom
            .jieba()
            .cut(text, false)
            .iter()
            .map(|t| t.word)
            .collect();
        assert_ne!(before, after);
        assert_eq!(after, vec!["区块链技术"]);
        assert_eq!(custom.digest().map(str::len), Some(16));
    }
}
