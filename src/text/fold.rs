//! Chinese script folding: Traditional to Simplified before segmentation.
//!
//! Mirrors and regional sites publish one page in both scripts; folding makes both spell the
//! same words, so the page fingerprints as a near-duplicate of itself and a query in one
//! script finds documents in the other. Three depths ([`ScriptFolding`]):
//!
//! - **characters**: each Traditional character becomes its Simplified form (門 -> 门), from
//!   a table of single characters: fast.
//! - **regional**: OpenCC's Taiwan-phrase conversion (`tw2sp`, [`opencc`](super::opencc)):
//!   regional vocabulary too (軟體 -> 软件, 檔案 -> 文件), two longest-match walks, in text
//!   that holds Traditional characters.
//! - **regional, any script**: the same, then Taiwan vocabulary spelled in Simplified
//!   characters (软体 -> 软件, 档案 -> 文件) in every text
//!   ([`simplified_vocabulary`](super::simplified_vocabulary)): one more walk.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use tantivy::BitSet;

use crate::text::opencc::{KeyEnds, Tw2sp};
use crate::text::simplified_vocabulary::SimplifiedVocabulary;
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

/// The Taiwan vocabulary in Simplified spelling, and what a text holds where it holds one
/// of its keys: built on the first use of [`ScriptFolding::RegionalAnyScript`].
static ANY_SCRIPT: LazyLock<AnyScript> = LazyLock::new(|| {
    let vocabulary = SimplifiedVocabulary::new();
    let keys: Vec<KeyEnds> = vocabulary.changing_keys().collect();
    // A few keys of one character lie beyond the Traditional characters' blocks
    // (supplementary ideographs of element names).
    let alone_end = (keys.iter())
        .filter_map(|key| match key {
            KeyEnds::Alone(c) => Some(u32::from(*c) + 1),
            KeyEnds::Pairs { .. } => None,
        })
        .fold(HAN_END, u32::max);
    let mut alone = BitSet::with_max_value(alone_end);
    for c in (0..HAN_END).filter(|&c| TW2SP.traditional.contains(c)) {
        alone.insert(c);
    }
    let mut pairs = vec![0u8; 1 << PAIR_BITS].into_boxed_slice();
    for key in keys {
        match key {
            KeyEnds::Alone(c) => {
                alone.insert(u32::from(c));
            }
            KeyEnds::Pairs { first, last } => {
                pairs[pair_slot(first.0, first.1)] |= FIRST_PAIR;
                pairs[pair_slot(last.0, last.1)] |= LAST_PAIR;
            }
        }
    }
    AnyScript {
        vocabulary,
        alone,
        alone_end,
        pairs,
    }
});

/// The most walks of the vocabulary after the first over a text that keeps changing.
const MAX_FOLDS: usize = 4;

/// The bits of [`pair_slot`]: 2^16 slots for about 1,100 pairs, so that a pair of
/// characters that is none of them is taken for one in about one case of 60.
const PAIR_BITS: u32 = 16;

/// Where the pair of characters `(first, second)` is in [`AnyScript`]'s pair sets.
#[inline]
fn pair_slot(first: char, second: char) -> usize {
    let pair = (u64::from(first) << 32) | u64::from(second);
    (pair.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PAIR_BITS)) as usize
}

struct AnyScript {
    vocabulary: SimplifiedVocabulary,
    /// The characters that change on their own: the Traditional ones and the vocabulary's
    /// keys of one character, all below `alone_end`.
    alone: BitSet,
    alone_end: u32,
    /// Per slot of a pair of characters, [`FIRST_PAIR`] where the first two characters of
    /// one of the vocabulary's longer keys take it, [`LAST_PAIR`] where the last two do
    /// (a byte a slot: one load a character). A run of Simplified text that does not hold one of each changes
    /// nothing, however many of its characters start a key (most do: 使, 文, 命): the two
    /// ends of a Taiwan phrase are often common words (使用 of 使用者, 命令 of 巨集命令), both
    /// at once seldom.
    pairs: Box<[u8]>,
}

/// What [`ScriptFolder::scan`] has seen of a run so far: whether folding may change it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunScan {
    previous: char,
    /// [`CHANGES`], [`FIRST_PAIR`] and [`LAST_PAIR`], as seen.
    seen: u8,
}

/// A character that changes on its own.
const CHANGES: u8 = 1;
/// The first two characters of a key.
const FIRST_PAIR: u8 = 2;
/// The last two characters of a key.
const LAST_PAIR: u8 = 4;

impl Default for RunScan {
    fn default() -> Self {
        RunScan {
            previous: '\0',
            seen: 0,
        }
    }
}

impl RunScan {
    /// True when folding may change the run scanned: it holds a character that changes on
    /// its own, or the first two and the last two characters of keys. False positives only
    /// cost a walk that changes nothing.
    #[inline]
    pub(crate) fn needs_folding(&self) -> bool {
        self.seen & CHANGES != 0 || self.seen & (FIRST_PAIR | LAST_PAIR) == FIRST_PAIR | LAST_PAIR
    }
}

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
/// In the character and regional modes, text is converted only where it holds at least one
/// character that is Traditional on its own: a Taiwan phrase written entirely in characters
/// shared by both scripts (滑鼠) is left as it is unless a Traditional character shares its
/// run. The any-script mode folds Taiwan vocabulary in Simplified text too.
#[derive(Clone)]
pub struct ScriptFolder {
    converter: Arc<Converter>,
    regional: bool,
    /// Set in the any-script mode.
    any_script: Option<&'static AnyScript>,
}

impl ScriptFolder {
    /// The folder for `folding`, or `None` for [`ScriptFolding::Off`].
    #[must_use]
    pub fn new(folding: ScriptFolding) -> Option<Self> {
        let (regional, any_script) = match folding {
            ScriptFolding::Off => return None,
            ScriptFolding::Characters => (false, None),
            ScriptFolding::Regional => (true, None),
            ScriptFolding::RegionalAnyScript => (true, Some(&*ANY_SCRIPT)),
        };
        Some(ScriptFolder {
            converter: Arc::clone(&TW2SP),
            regional,
            any_script,
        })
    }

    /// True when folding may change `text`: it holds a character that folding changes, or
    /// (in the any-script mode) the pairs of characters that start and end Taiwan phrases.
    #[must_use]
    pub fn needs_folding(&self, text: &str) -> bool {
        let mut scan = RunScan::default();
        text.chars().for_each(|c| self.scan(&mut scan, c));
        scan.needs_folding()
    }

    /// Adds `c`, the next character of a run, to `scan`.
    #[inline(always)]
    pub(crate) fn scan(&self, scan: &mut RunScan, c: char) {
        let code = u32::from(c);
        match self.any_script {
            Some(any_script) => {
                if code < any_script.alone_end && any_script.alone.contains(code) {
                    scan.seen |= CHANGES;
                }
                scan.seen |= any_script.pairs[pair_slot(scan.previous, c)];
                scan.previous = c;
            }
            None => {
                if self.is_traditional(c) {
                    scan.seen |= CHANGES;
                }
            }
        }
    }

    /// True when `c` is Traditional on its own.
    fn is_traditional(&self, c: char) -> bool {
        let c = u32::from(c);
        c < HAN_END && self.converter.traditional.contains(c)
    }

    /// The text in Simplified script: borrowed, without any work beyond a scan, when it
    /// [needs no folding](Self::needs_folding), and when folding changes nothing.
    #[must_use]
    pub fn fold<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if !self.needs_folding(text) {
            return std::borrow::Cow::Borrowed(text);
        }
        self.convert(text)
    }

    /// [`fold`](Self::fold) without the check, for a caller that has [made
    /// it](Self::scan) as it read `text`.
    pub(crate) fn convert<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        use std::borrow::Cow;
        if let Some(any_script) = self.any_script {
            // Most text that may hold a Taiwan phrase is Simplified: no `tw2sp` walk for it.
            let simplified = if text.chars().any(|c| self.is_traditional(c)) {
                self.converter.tw2sp.convert(text)
            } else {
                Cow::Borrowed(text)
            };
            let folded = match simplified {
                Cow::Borrowed(text) => any_script.vocabulary.apply(text),
                Cow::Owned(simplified) => match any_script.vocabulary.apply(&simplified) {
                    Cow::Owned(folded) => Cow::Owned(folded),
                    Cow::Borrowed(_) => Cow::Owned(simplified),
                },
            };
            let Cow::Owned(mut folded) = folded else {
                return folded;
            };
            // A fold can make a longer phrase of the table (档案扩展名 becomes 文件扩展名,
            // which folds to 扩展名): changed text is folded again while the check says it
            // may change, so that folded text is a fixed point whatever its spelling. The
            // bound is a guard; the table needs two walks at most.
            for _ in 0..MAX_FOLDS {
                if !self.needs_folding(&folded) {
                    break;
                }
                match any_script.vocabulary.apply(&folded) {
                    Cow::Borrowed(_) => break,
                    Cow::Owned(again) => folded = again,
                }
            }
            return Cow::Owned(folded);
        }
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
            .field("any_script", &self.any_script.is_some())
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
    fn any_script_folding_meets_taiwan_vocabulary_in_both_scripts() {
        let folder = ScriptFolder::new(ScriptFolding::RegionalAnyScript).unwrap();
        let mainland = folder.fold("用户的文件");
        assert_eq!(folder.fold("使用者的檔案"), mainland);
        assert_eq!(folder.fold("使用者的档案"), mainland);
        assert_eq!(folder.fold("預設"), folder.fold("默认"));
        assert_eq!(folder.fold("我愛北京天安門"), "我爱北京天安门");
        assert!(folder.needs_folding("档案") && !folder.needs_folding("我爱"));
        let regional = ScriptFolder::new(ScriptFolding::Regional).unwrap();
        assert_eq!(regional.fold("使用者的档案"), "使用者的档案");
    }

    /// Every Taiwan phrase of the table, in Traditional and in Simplified spelling.
    fn taiwan_phrases() -> Vec<(String, String)> {
        use crate::text::simplified_vocabulary::generate::{characters, spell};
        let characters = characters();
        crate::text::opencc::entries_with_alternatives(crate::text::opencc::TW_PHRASES_REV)
            .filter(|(key, _)| key.chars().all(crate::text::is_han))
            .map(|(key, _)| (key.to_owned(), spell(key, &characters)))
            .collect()
    }

    /// The pre-check never skips a text the walk changes: every key that changes text
    /// is found, alone and inside other text.
    #[test]
    fn the_check_finds_every_changing_phrase() {
        let folder = ScriptFolder::new(ScriptFolding::RegionalAnyScript).unwrap();
        let table = include_str!("../../assets/opencc/TWPhrasesFold.txt");
        for (key, value) in crate::text::opencc::entries_with_alternatives(table)
            .filter_map(|(key, mut values)| Some((key, values.next()?)))
            .filter(|(key, value)| key != value && key.chars().all(crate::text::is_han))
        {
            let inside = format!("我们{key}的");
            assert!(
                folder.needs_folding(key) && folder.needs_folding(&inside),
                "{key} {value}"
            );
            assert_eq!(folder.fold(&inside), folder.convert(&inside), "{key}");
        }
    }

    /// Every Taiwan phrase folds alike in Traditional and in Simplified spelling, alone
    /// and inside common text.
    #[test]
    fn every_taiwan_phrase_folds_alike_in_either_script() {
        let folder = ScriptFolder::new(ScriptFolding::RegionalAnyScript).unwrap();
        for (traditional, simplified) in taiwan_phrases() {
            for (before, after) in [("", ""), ("我们", "的")] {
                let in_text = |phrase: &str| {
                    folder
                        .fold(&format!("{before}{phrase}{after}"))
                        .into_owned()
                };
                assert_eq!(in_text(&traditional), in_text(&simplified), "{traditional}");
            }
        }
    }

    proptest::proptest! {
        /// Runs of Taiwan phrases with common text between, in Traditional or Simplified
        /// spelling: folding is a fixed point, the pre-checked fold is the unchecked
        /// conversion, and both spellings fold alike. The last holds where each phrase is
        /// folded whole: the greedy walk reads 文件名字空间 as 文件名|字空间 in Simplified
        /// (文件名 is a mainland word of a class) and 文件|名字空間 in Traditional, so a
        /// text where a key spans the join of two pieces is left out of that claim. A text
        /// that mixes the scripts does so run by run (a Traditional run beside a Simplified
        /// one): within one run a phrase half in each script is neither's.
        #[test]
        fn taiwan_phrases_fold_alike_in_either_script(
            picks in proptest::collection::vec((0usize..10_000, proptest::bool::ANY, 0usize..4), 1..5),
        ) {
            static PHRASES: LazyLock<Vec<(String, String)>> = LazyLock::new(taiwan_phrases);
            let folder = ScriptFolder::new(ScriptFolding::RegionalAnyScript).unwrap();
            let between = ["", "的", "文件", "我们"];
            let (mut traditional, mut simplified) = (Vec::new(), Vec::new());
            let (mut mixed, mut simplified_runs) = (Vec::new(), Vec::new());
            for (pick, in_simplified, gap) in picks {
                let (trad, simp) = &PHRASES[pick % PHRASES.len()];
                traditional.extend([trad.clone(), between[gap].to_owned()]);
                simplified.extend([simp.clone(), between[gap].to_owned()]);
                mixed.push(format!("{}{}", if in_simplified { simp } else { trad }, between[gap]));
                simplified_runs.push(format!("{simp}{}", between[gap]));
            }
            let fold_each = |pieces: &[String]| -> Vec<String> {
                pieces.iter().map(|piece| folder.fold(piece).into_owned()).collect()
            };
            let (whole_traditional, whole_simplified) = (traditional.concat(), simplified.concat());
            let folded = folder.fold(&whole_simplified).into_owned();
            proptest::prop_assert_eq!(folder.fold(&folded), folded.as_str());
            proptest::prop_assert_eq!(folder.convert(&whole_simplified), folded.as_str());
            let folded_traditional = folder.fold(&whole_traditional).into_owned();
            proptest::prop_assert_eq!(folder.fold(&folded_traditional), folded_traditional.as_str());
            // Folded run by run, as the tokenizer folds.
            proptest::prop_assert_eq!(fold_each(&mixed), fold_each(&simplified_runs));
            let whole_pieces = folded == fold_each(&simplified).concat()
                && folded_traditional == fold_each(&traditional).concat();
            if whole_pieces {
                proptest::prop_assert_eq!(folded_traditional, folded);
            }
        }
    }

    #[test]
    fn character_folding_keeps_vocabulary() {
        let folder = ScriptFolder::new(ScriptFolding::Characters).unwrap();
        assert_eq!(folder.fold("我愛北京天安門"), "我爱北京天安门");
        assert_eq!(folder.fold("軟體"), "软体");
        assert!(ScriptFolder::new(ScriptFolding::Off).is_none());
    }
}
