//! OpenCC's `tw2sp` conversion (Taiwan Traditional to Simplified, with phrases), as OpenCC
//! walks it, with one table load for most characters.
//!
//! OpenCC converts in a chain of passes; each pass walks the text and, at each position,
//! replaces the longest dictionary key that starts there (or keeps one character when none
//! does). `tw2sp` has two passes: Taiwan vocabulary and variants back to common Traditional
//! (`TWPhrasesRev`, `TWVariantsRevPhrases`, `TWVariantsRev`), then Traditional to Simplified
//! (`TSPhrases`, `TSCharacters`). Within a pass, a key found in several dictionaries takes the
//! value of the first, and the longest key of the pass wins. OpenCC's dictionary group takes
//! the longest match of the first dictionary that has one, which is the same as long as no
//! dictionary holds a key that extends a key of an earlier one in its pass: a unit test
//! checks that of the shipped dictionaries. They are OpenCC's own (`assets/opencc/`,
//! Apache-2.0), indexed on first use in a few milliseconds.
//!
//! Greedy longest-prefix replacement is what OpenCC does; this walk does it with one table
//! load per character (the keys starting with it, indexed by the character) and a comparison
//! of second characters before any string comparison. Keys that map to themselves are kept
//! only where they block a shorter key (著作 keeps 著 from becoming 着), and a pass that
//! replaces nothing returns its input borrowed. On the Traditional half of the Chinese
//! evaluation corpus this converts 1.2 times as fast as the double-array Aho-Corasick
//! automaton it replaced (`daachorse`, leftmost-longest), itself 12 times as fast as walking
//! an FST at every position (`ferrous-opencc`, now the test oracle): the property test in this
//! module keeps the output equal to OpenCC's.

use std::borrow::Cow;

/// OpenCC's Taiwan vocabulary, each Taiwan phrase with the common Traditional phrases it
/// becomes (the first is OpenCC's).
pub(crate) const TW_PHRASES_REV: &str = include_str!("../../assets/opencc/TWPhrasesRev.txt");

/// The dictionaries of each pass, in OpenCC's order: a key in several takes the first's value.
const PASSES: [&[&str]; 2] = [
    &[
        TW_PHRASES_REV,
        include_str!("../../assets/opencc/TWVariantsRevPhrases.txt"),
        include_str!("../../assets/opencc/TWVariantsRev.txt"),
    ],
    &[
        include_str!("../../assets/opencc/TSPhrases.txt"),
        include_str!("../../assets/opencc/TSCharacters.txt"),
    ],
];

/// The `tw2sp` converter: both passes indexed.
pub(crate) struct Tw2sp {
    passes: [Pass; 2],
}

impl Tw2sp {
    /// Indexes the shipped dictionaries.
    pub(crate) fn new() -> Self {
        let [first, second] = PASSES;
        Tw2sp {
            passes: [Pass::new(first), Pass::new(second)],
        }
    }

    /// The characters that a pass converts on their own (a key of one character with
    /// another value), with repeats: no other character changes alone, as a text of one
    /// character matches no longer key.
    pub(crate) fn single_keys(&self) -> impl Iterator<Item = char> + '_ {
        self.passes.iter().flat_map(Pass::single_keys)
    }

    /// Common Traditional `text` (no Taiwan vocabulary) in Simplified script: the second
    /// pass alone.
    #[cfg(test)]
    pub(crate) fn simplify<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.passes[1].apply(text)
    }

    /// The text in Simplified script with mainland vocabulary: borrowed when no pass changes
    /// anything.
    pub(crate) fn convert<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let [first, second] = &self.passes;
        match first.apply(text) {
            Cow::Borrowed(text) => second.apply(text),
            Cow::Owned(text) => match second.apply(&text) {
                Cow::Owned(converted) => Cow::Owned(converted),
                Cow::Borrowed(_) => Cow::Owned(text),
            },
        }
    }
}

/// What a text holds where it holds a key: see [`Pass::changing_keys`].
pub(crate) enum KeyEnds {
    /// A key of one character.
    Alone(char),
    /// The first two and the last two characters of a longer key.
    Pairs {
        first: (char, char),
        last: (char, char),
    },
}

/// One pass: every key of its dictionaries and the value it becomes.
pub(crate) struct Pass {
    /// Per character (as an index) below its length: 0 if no key starts with it, else one
    /// more than the index of the keys that do in `starts`. One load per character of text.
    slots: Vec<u16>,
    starts: Vec<Start>,
}

/// The keys that start with one character.
#[derive(Default)]
struct Start {
    /// Keys of more than one character and their values, longest key first, so that the
    /// first found at a position is OpenCC's longest match.
    phrases: Vec<Phrase>,
    /// The value of the key made of the character alone, if it differs from the character
    /// (a one-character key that maps to itself changes nothing and blocks nothing).
    single: Option<Box<str>>,
}

/// A key of more than one character, split so that most candidates are ruled out by one
/// comparison of characters.
struct Phrase {
    second: char,
    /// The key after its second character.
    rest: Box<str>,
    /// The whole key's length in bytes.
    len: usize,
    /// `None` where the value is the key: such a phrase changes nothing but still keeps
    /// shorter keys inside it from matching (著作 keeps 著 from becoming 着).
    value: Option<Box<str>>,
}

impl Pass {
    /// The pass of one dictionary text.
    pub(crate) fn from_dictionary(text: &str) -> Self {
        Self::new(&[text])
    }

    /// The pass of `dictionaries`: a key in several takes the first's value; a key that is
    /// its value changes nothing but keeps shorter keys inside it from matching.
    fn new(dictionaries: &[&str]) -> Self {
        let mut seen = std::collections::HashSet::new();
        let mut by_first: std::collections::BTreeMap<char, Start> = Default::default();
        for (key, value) in dictionaries.iter().flat_map(|text| entries(text)) {
            if !seen.insert(key) {
                continue;
            }
            let mut chars = key.chars();
            let first = chars.next().expect("empty keys are skipped");
            let start = by_first.entry(first).or_default();
            let changed = (key != value).then(|| Box::from(value));
            match chars.next() {
                None => start.single = changed,
                Some(second) => start.phrases.push(Phrase {
                    second,
                    rest: Box::from(chars.as_str()),
                    len: key.len(),
                    value: changed,
                }),
            }
        }
        // A character whose only key maps it to itself needs no slot.
        by_first.retain(|_, start| start.single.is_some() || !start.phrases.is_empty());
        let bound = by_first.keys().last().map_or(0, |&c| c as usize + 1);
        let mut slots = vec![0u16; bound];
        let mut starts = Vec::with_capacity(by_first.len());
        for (first, mut start) in by_first {
            start
                .phrases
                .sort_by_key(|phrase| std::cmp::Reverse(phrase.len));
            starts.push(start);
            slots[first as usize] =
                u16::try_from(starts.len()).expect("at most 65,535 characters start keys");
        }
        Pass { slots, starts }
    }

    /// The keys that change text, by what a text must hold to contain one: a key of one
    /// character as [`KeyEnds::Alone`], a longer key as its first two and its last two
    /// characters (the same pair for a key of two). A text that holds none is left as it is.
    pub(crate) fn changing_keys(&self) -> impl Iterator<Item = KeyEnds> + '_ {
        (self.slots.iter().enumerate())
            .filter_map(|(c, &slot)| {
                let start = &self.starts[usize::from(slot).checked_sub(1)?];
                Some((char::from_u32(c as u32)?, start))
            })
            .flat_map(|(first, start)| {
                let single = start.single.is_some().then_some(KeyEnds::Alone(first));
                let phrases = (start.phrases.iter())
                    .filter(|phrase| phrase.value.is_some())
                    .map(move |phrase| {
                        let mut tail = phrase.rest.chars().rev();
                        let last = match (tail.next(), tail.next()) {
                            (None, _) => (first, phrase.second),
                            (Some(last), None) => (phrase.second, last),
                            (Some(last), Some(before)) => (before, last),
                        };
                        KeyEnds::Pairs {
                            first: (first, phrase.second),
                            last,
                        }
                    });
                single.into_iter().chain(phrases)
            })
    }

    /// The characters this pass converts on their own.
    fn single_keys(&self) -> impl Iterator<Item = char> + '_ {
        (self.slots.iter().enumerate())
            .filter(|&(_, &slot)| {
                usize::from(slot)
                    .checked_sub(1)
                    .is_some_and(|at| self.starts[at].single.is_some())
            })
            .filter_map(|(c, _)| char::from_u32(c as u32))
    }

    /// The length in bytes of the longest key that `rest` starts with (`first` is its first
    /// character), and its value if it changes the key; `None` where no key starts there
    /// but one that changes nothing and blocks nothing (a character that maps to itself).
    fn longest_at<'s>(&'s self, first: char, rest: &str) -> Option<(usize, Option<&'s str>)> {
        let slot = *self.slots.get(first as usize)?;
        let start = &self.starts[usize::from(slot).checked_sub(1)?];
        let after_first = &rest[first.len_utf8()..];
        // Most Traditional characters start no phrase: no second character to decode.
        let second = (!start.phrases.is_empty())
            .then(|| after_first.chars().next())
            .flatten();
        if let Some(second) = second {
            let after_second = &after_first[second.len_utf8()..];
            let phrase = start.phrases.iter().find(|phrase| {
                phrase.second == second
                    && (phrase.rest.is_empty() || after_second.starts_with(&*phrase.rest))
            });
            if let Some(phrase) = phrase {
                return Some((phrase.len, phrase.value.as_deref()));
            }
        }
        let single = start.single.as_deref()?;
        Some((first.len_utf8(), Some(single)))
    }

    /// OpenCC's walk: the longest key at each position is replaced and skipped over.
    pub(crate) fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // Allocated at the first replacement that changes the text; `text[..copied]` is in it.
        let mut converted: Option<String> = None;
        let mut copied = 0;
        let mut next = 0;
        for (at, c) in text.char_indices() {
            if at < next {
                continue;
            }
            let Some((len, value)) = self.longest_at(c, &text[at..]) else {
                continue;
            };
            next = at + len;
            if let Some(value) = value {
                let out = converted.get_or_insert_with(|| String::with_capacity(text.len() + 8));
                out.push_str(&text[copied..at]);
                out.push_str(value);
                copied = next;
            }
        }
        match converted {
            None => Cow::Borrowed(text),
            Some(mut out) => {
                out.push_str(&text[copied..]);
                Cow::Owned(out)
            }
        }
    }
}

/// The `(key, value)` entries of an OpenCC dictionary text: `key<TAB>value [value ...]` lines,
/// `#` comments and blank lines skipped. OpenCC converts with the first value.
fn entries(text: &str) -> impl Iterator<Item = (&str, &str)> {
    entries_with_alternatives(text).filter_map(|(key, mut values)| Some((key, values.next()?)))
}

/// Each key of an OpenCC dictionary text with its values, OpenCC's first.
pub(crate) fn entries_with_alternatives(
    text: &str,
) -> impl Iterator<Item = (&str, impl Iterator<Item = &str>)> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (key, values) = line.split_once('\t')?;
            let values = values.split(' ').filter(|value| !value.is_empty());
            (!key.is_empty()).then_some((key, values))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrous_opencc::config::BuiltinConfig;
    use ferrous_opencc::OpenCC;
    use proptest::prelude::*;
    use std::sync::LazyLock;

    static OURS: LazyLock<Tw2sp> = LazyLock::new(Tw2sp::new);
    static ORACLE: LazyLock<OpenCC> =
        LazyLock::new(|| OpenCC::from_config(BuiltinConfig::Tw2sp).unwrap());

    /// Every key of both passes: text made of them exercises overlaps between entries.
    static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        PASSES
            .iter()
            .flat_map(|pass| pass.iter())
            .flat_map(|text| entries(text))
            .flat_map(|(key, value)| [key, value])
            .collect()
    });

    #[test]
    fn converts_phrases_and_characters() {
        assert_eq!(OURS.convert("我愛北京天安門"), "我爱北京天安门");
        assert_eq!(OURS.convert("軟體和檔案"), "软件和文件");
        assert_eq!(OURS.convert("Latin 與 數字 2008"), "Latin 与 数字 2008");
        assert_eq!(OURS.convert(""), "");
    }

    /// OpenCC's dictionary group stops at the first dictionary with a match; the walk takes
    /// the longest key of the whole pass. They agree while no key of a later dictionary has
    /// a key of an earlier one as a proper prefix (the oracle walks as this module does, so
    /// it would not notice a dictionary update that breaks this).
    #[test]
    fn no_later_key_extends_an_earlier_one() {
        for pass in PASSES {
            for (later, text) in pass.iter().enumerate().skip(1) {
                let earlier: std::collections::HashSet<&str> = pass[..later]
                    .iter()
                    .flat_map(|text| entries(text).map(|(key, _)| key))
                    .collect();
                for (key, _) in entries(text) {
                    let prefixes = key.char_indices().skip(1).map(|(end, _)| &key[..end]);
                    for prefix in prefixes {
                        assert!(!earlier.contains(prefix), "{key:?} extends {prefix:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_key_alone_converts_as_opencc_does() {
        for key in KEYS.iter() {
            assert_eq!(OURS.convert(key), ORACLE.convert(key), "key {key:?}");
        }
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => (0..KEYS.len()).prop_map(|i| KEYS[i].to_owned()),
            1 => "[a-z ,.]{0,3}",
            1 => "[\u{4e00}-\u{9fff}]{1,2}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Concatenated keys overlap in every way the dictionaries allow: a phrase's tail is
        /// another's head, a pass-one value is a pass-two key.
        #[test]
        fn equals_opencc_on_runs_of_keys(pieces in prop::collection::vec(piece(), 1..12)) {
            let text = pieces.concat();
            prop_assert_eq!(OURS.convert(&text), ORACLE.convert(&text));
        }
    }
}
