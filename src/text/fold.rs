//! Chinese script folding: Traditional to Simplified before segmentation.
//!
//! Mirrors and regional sites publish one page in both scripts; folding makes both spell the
//! same words, so the page fingerprints as a near-duplicate of itself and a query in one
//! script finds documents in the other. Two depths ([`ScriptFolding`]):
//!
//! - **characters**: each Traditional character becomes its Simplified form (門 -> 门), from
//!   a table of single characters: fast.
//! - **regional**: OpenCC's Taiwan-phrase conversion (`tw2sp`, [`opencc`](super::opencc)):
//!   regional vocabulary too (軟體 -> 软件, 檔案 -> 文件), two longest-match walks.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use tantivy::BitSet;

use crate::text::opencc::Tw2sp;
use crate::text::ScriptFolding;

/// One past the last code point the conversion tables are scanned over.
const HAN_END: u32 = 0x2_FA20;

static TW2SP: LazyLock<Arc<Converter>> = LazyLock::new(|| {
    let converter = Tw2sp::new();
    // Most Chinese text on the web is already Simplified. Knowing which characters the
    // conversion changes lets a text without any of them skip it (and its allocation).
    // Only a character that a pass converts on its own can change alone: those few
    // thousand are tried, not the 91,000 Han code points (which took 2 ms, at the start of
    // every process that folds). The same loop gives the table of single characters.
    // A dense bit set (24 KiB): it is probed once per character of Chinese text, and a
    // roaring bitmap's container search made that probe a twelfth of the time of n-grams.
    let mut traditional = BitSet::with_max_value(HAN_END);
    let mut characters = HashMap::new();
    let mut buffer = [0u8; 4];
    let candidates: std::collections::BTreeSet<char> = converter.single_keys().collect();
    for c in candidates.into_iter().filter(|&c| in_tables(c)) {
        let single = c.encode_utf8(&mut buffer);
        let converted = converter.convert(single);
        // Compared, not matched on `Cow::Owned`: a variant can go there and back in the
        // two passes.
        if converted != *single {
            traditional.insert(u32::from(c));
            characters.insert(c, converted.into());
        }
    }
    Arc::new(Converter {
        tw2sp: converter,
        traditional,
        characters,
    })
});

/// The Han blocks the tables cover: CJK Unified Ideographs and Extension A, the
/// Compatibility Ideographs, and the supplementary ideographs below [`HAN_END`].
const TABLE_BLOCKS: [std::ops::Range<u32>; 3] = [0x3400..0xA000, 0xF900..0xFB00, 0x2_0000..HAN_END];

/// Whether `c` is in one of the [`TABLE_BLOCKS`].
fn in_tables(c: char) -> bool {
    TABLE_BLOCKS
        .iter()
        .any(|block| block.contains(&u32::from(c)))
}

struct Converter {
    tw2sp: Tw2sp,
    /// The characters that the conversion changes on their own, all below [`HAN_END`].
    traditional: BitSet,
    /// What each of them becomes on its own.
    characters: HashMap<char, Box<str>>,
}

/// Folds Traditional Chinese to Simplified, character by character or with regional
/// vocabulary. The tables are loaded once per process; clones share them.
///
/// Text is converted only where it holds at least one character that is Traditional on its
/// own: in regional mode, a Taiwan phrase written entirely in characters shared by both
/// scripts (滑鼠) is left as it is unless a Traditional character shares its run.
#[derive(Clone)]
pub struct ScriptFolder {
    converter: Arc<Converter>,
    regional: bool,
}

impl ScriptFolder {
    /// The folder for `folding`, or `None` for [`ScriptFolding::Off`].
    #[must_use]
    pub fn new(folding: ScriptFolding) -> Option<Self> {
        let regional = match folding {
            ScriptFolding::Off => return None,
            ScriptFolding::Characters => false,
            ScriptFolding::Regional => true,
        };
        Some(ScriptFolder {
            converter: Arc::clone(&TW2SP),
            regional,
        })
    }

    /// True when `text` holds a character that folding changes.
    #[must_use]
    pub fn needs_folding(&self, text: &str) -> bool {
        text.chars().any(|c| self.changes(c))
    }

    /// True when folding changes `c` on its own.
    #[inline]
    pub(crate) fn changes(&self, c: char) -> bool {
        let c = u32::from(c);
        c < HAN_END && self.converter.traditional.contains(c)
    }

    /// The text in Simplified script: borrowed, without any work beyond a scan, when it
    /// [needs no folding](Self::needs_folding).
    #[must_use]
    pub fn fold<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if !self.needs_folding(text) {
            return std::borrow::Cow::Borrowed(text);
        }
        self.convert(text)
    }

    /// [`fold`](Self::fold) without the check, for a caller that has [made
    /// it](Self::changes) as it read `text`.
    pub(crate) fn convert<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.regional {
            return self.converter.tw2sp.convert(text);
        }
        let mut folded = String::with_capacity(text.len());
        for c in text.chars() {
            match self.converter.characters.get(&c) {
                Some(simplified) => folded.push_str(simplified),
                None => folded.push(c),
            }
        }
        std::borrow::Cow::Owned(folded)
    }
}

impl std::fmt::Debug for ScriptFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptFolder")
            .field("regional", &self.regional)
            .field("traditional_chars", &self.converter.traditional.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_characters_and_regional_phrases() {
        let folder = ScriptFolder::new(ScriptFolding::Regional).unwrap();
        assert_eq!(folder.fold("我愛北京天安門"), "我爱北京天安门");
        assert_eq!(folder.fold("軟體"), "软件");
        assert_eq!(folder.fold("鼠標"), "鼠标");
        assert!(matches!(
            folder.fold("简体不变 and Latin"),
            std::borrow::Cow::Borrowed("简体不变 and Latin")
        ));
        assert!(folder.needs_folding("門") && !folder.needs_folding("门"));
    }

    #[test]
    fn the_tables_hold_every_han_character_that_changes_alone() {
        let converter = &*TW2SP;
        let han = TABLE_BLOCKS
            .into_iter()
            .flatten()
            .filter_map(char::from_u32);
        let mut changed = 0;
        for c in han {
            let converted = converter
                .tw2sp
                .convert(c.encode_utf8(&mut [0; 4]))
                .into_owned();
            let changes = converted != c.to_string();
            assert_eq!(converter.traditional.contains(u32::from(c)), changes, "{c}");
            assert_eq!(
                converter.characters.get(&c).map(|s| &**s),
                changes.then_some(&*converted)
            );
            changed += usize::from(changes);
        }
        assert_eq!(converter.characters.len(), changed);
        assert!(changed > 2_000, "{changed}");
    }

    #[test]
    fn character_folding_keeps_vocabulary() {
        let folder = ScriptFolder::new(ScriptFolding::Characters).unwrap();
        assert_eq!(folder.fold("我愛北京天安門"), "我爱北京天安门");
        assert_eq!(folder.fold("軟體"), "软体");
        assert!(ScriptFolder::new(ScriptFolding::Off).is_none());
    }
}
