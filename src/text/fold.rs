//! Chinese script folding: Traditional to Simplified before segmentation.
//!
//! Mirrors and regional sites publish one page in both scripts; folding makes both spell the
//! same words, so the page fingerprints as a near-duplicate of itself and a query in one
//! script finds documents in the other. The conversion is OpenCC's (through the pure-Rust
//! `ferrous-opencc`), with Taiwan phrases (`tw2sp`: 軟體 -> 软件, 滑鼠 -> 鼠标): regional
//! vocabulary, not only characters.

use std::sync::{Arc, LazyLock};

use ferrous_opencc::config::BuiltinConfig;
use ferrous_opencc::OpenCC;
use roaring::RoaringBitmap;

use crate::error::{Error, Result};

static TW2SP: LazyLock<std::result::Result<Arc<Converter>, String>> = LazyLock::new(|| {
    let converter = OpenCC::from_config(BuiltinConfig::Tw2sp).map_err(|e| e.to_string())?;
    // Most Chinese text on the web is already Simplified, and converting it is the costliest
    // step of tokenizing it (measured: 2 to 4 times slower). Knowing which characters the
    // conversion changes lets a run without any of them skip it; finding them takes ~30 ms
    // once per process.
    let mut traditional = RoaringBitmap::new();
    let mut buffer = [0u8; 4];
    let han = (0x3400u32..0xA000)
        .chain(0xF900..0xFB00)
        .chain(0x2_0000..0x2_FA20);
    for c in han.filter_map(char::from_u32) {
        let single = c.encode_utf8(&mut buffer);
        if converter.convert(single) != *single {
            traditional.insert(u32::from(c));
        }
    }
    Ok(Arc::new(Converter {
        opencc: converter,
        traditional,
    }))
});

struct Converter {
    opencc: OpenCC,
    /// The characters that the conversion changes on their own.
    traditional: RoaringBitmap,
}

/// Folds Traditional Chinese (including Taiwan and Hong Kong vocabulary) to Simplified.
/// Loaded once per process; clones share it.
///
/// Text is converted only where it holds at least one character that is Traditional on its
/// own: a Taiwan phrase written entirely in characters shared by both scripts (滑鼠) is left
/// as it is unless a Traditional character shares its run.
#[derive(Clone)]
pub struct ScriptFolder {
    converter: Arc<Converter>,
}

impl ScriptFolder {
    /// The shared Traditional-to-Simplified converter.
    ///
    /// # Errors
    /// [`Error::ScriptFolding`] if the embedded OpenCC tables cannot be loaded.
    pub fn traditional_to_simplified() -> Result<Self> {
        match &*TW2SP {
            Ok(converter) => Ok(ScriptFolder {
                converter: Arc::clone(converter),
            }),
            Err(reason) => Err(Error::ScriptFolding(reason.clone())),
        }
    }

    /// True when `text` holds a character that folding changes.
    #[must_use]
    pub fn needs_folding(&self, text: &str) -> bool {
        text.chars()
            .any(|c| self.converter.traditional.contains(u32::from(c)))
    }

    /// The text in Simplified script: borrowed, without any work beyond a scan, when it
    /// [needs no folding](Self::needs_folding).
    #[must_use]
    pub fn fold<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.needs_folding(text) {
            std::borrow::Cow::Owned(self.converter.opencc.convert(text))
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }
}

impl std::fmt::Debug for ScriptFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptFolder")
            .field("conversion", &self.converter.opencc.name())
            .field("traditional_chars", &self.converter.traditional.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_characters_and_regional_phrases() {
        let folder = ScriptFolder::traditional_to_simplified().unwrap();
        assert_eq!(folder.fold("我愛北京天安門"), "我爱北京天安门");
        assert_eq!(folder.fold("軟體"), "软件");
        assert_eq!(folder.fold("鼠標"), "鼠标");
        assert!(matches!(
            folder.fold("简体不变 and Latin"),
            std::borrow::Cow::Borrowed("简体不变 and Latin")
        ));
        assert!(folder.needs_folding("門") && !folder.needs_folding("门"));
    }
}
