//! `MixedTokenizer`: Chinese and other scripts in one token stream.
//!
//! Runs of Han characters are segmented by jieba (its default mode: search mode's overlapping
//! sub-words would count the same text twice as features); everything else by Unicode word
//! boundaries (UAX #29). Tokens are lowercased; whitespace and punctuation emit nothing.
//! Offsets are bytes into the original text, positions are token ordinals.

use std::ops::Range;

use tantivy::tokenizer::{Token, Tokenizer};

use super::token_stream::{MixedTokenStream, PIECE_BYTES};

use crate::error::{Error, Result};
use crate::text::ascii_words::{for_each_classed_ascii_word, letters_and_digits, UPPERCASE};
use crate::text::dictionary::ChineseDictionary;
use crate::text::fold::{RunScan, ScriptFolder};
use crate::text::han_text::HanText;
use crate::text::script::{
    for_each_ascii_stretch, for_each_piece, for_each_run, is_caseless_ideograph, is_han,
    is_separator,
};
use crate::text::stopwords::StopWords;
use crate::text::words::for_each_word;
use crate::text::TokenizerConfig;

/// Calls `emit` with what `c` is in character n-grams: a letter or digit lowercased (one or
/// more characters), nothing for whitespace, punctuation and symbols.
#[inline(always)]
fn normalize(c: char, emit: &mut impl FnMut(char)) {
    // Fast paths for the kinds of character that make up most text, with the same result as
    // the general case below (tests check them against the standard library's tables).
    if c.is_ascii() {
        if c.is_ascii_alphanumeric() {
            emit(c.to_ascii_lowercase());
        }
    } else if is_caseless_ideograph(c) {
        emit(c);
    } else if is_separator(c) {
        // Chinese punctuation (，。、): Unicode's category lookups are slow.
    } else if c.is_lowercase() || !c.is_alphabetic() {
        if c.is_alphanumeric() {
            emit(c);
        }
    } else {
        c.to_lowercase().for_each(emit);
    }
}

/// Emits the normalized characters of a Han `run` whose characters `han` holds (and empties
/// it): converted whole when `needs_folding`, else as they are.
fn end_han_run(
    folder: &ScriptFolder,
    han: &mut Vec<char>,
    run: &str,
    needs_folding: bool,
    emit: &mut impl FnMut(char),
) {
    if needs_folding {
        folder.convert(run).chars().for_each(|c| normalize(c, emit));
    } else {
        han.iter().for_each(|&c| normalize(c, emit));
    }
    han.clear();
}

/// What [`MixedTokenizer::for_each_script_unit`] gives: a token of non-Han text, or a
/// normalized character of Han text.
pub(crate) enum ScriptUnit<'a> {
    Word(&'a str),
    Han(char),
}

/// The name under which [`MixedTokenizer`] is registered on a tantivy index.
pub const TOKENIZER_NAME: &str = "tantivy_dedup_mixed";

/// A tantivy [`Tokenizer`] for Chinese mixed with other scripts.
///
/// Cloning is cheap: the jieba dictionary, the stop words and the script converter are shared
/// (tantivy clones the tokenizer for every segment writer).
///
/// ```
/// use tantivy::tokenizer::{TokenStream, Tokenizer};
/// use tantivy_dedup::text::MixedTokenizer;
///
/// let mut tokenizer = MixedTokenizer::new();
/// let mut stream = tokenizer.token_stream("我爱北京天安门 and Beijing's 2008 Olympics");
/// let mut words = Vec::new();
/// while let Some(token) = stream.next() {
///     words.push(token.text.clone());
/// }
/// assert_eq!(words, ["我", "爱", "北京", "天安门", "and", "beijing's", "2008", "olympics"]);
/// ```
#[derive(Clone, Debug)]
pub struct MixedTokenizer {
    config: TokenizerConfig,
    dictionary: ChineseDictionary,
    stop_words: Option<StopWords>,
    folder: Option<ScriptFolder>,
    tokens: Vec<Token>,
}

impl Default for MixedTokenizer {
    fn default() -> Self {
        Self::new()
    }
}

impl MixedTokenizer {
    /// A tokenizer with the default [`TokenizerConfig`] and jieba's built-in dictionary.
    #[must_use]
    pub fn new() -> Self {
        Self::from_config(&TokenizerConfig::default())
            .expect("the default config names no user dictionary")
    }

    /// A tokenizer with the given settings and jieba's built-in dictionary.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] if the config names a user dictionary (use
    /// [`MixedTokenizer::with_dictionary`]).
    pub fn from_config(config: &TokenizerConfig) -> Result<Self> {
        Self::with_dictionary(config, ChineseDictionary::default())
    }

    /// A tokenizer with the given settings and dictionary.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] if the config's user dictionary digest is not the
    /// dictionary's (fingerprints would silently change).
    pub fn with_dictionary(
        config: &TokenizerConfig,
        dictionary: ChineseDictionary,
    ) -> Result<Self> {
        if config.get_user_dictionary() != dictionary.digest() {
            return Err(Error::InvalidSetting {
                name: "user_dictionary",
                reason: format!(
                    "the configuration expects user dictionary {:?} but the dictionary given is {:?}",
                    config.get_user_dictionary(),
                    dictionary.digest()
                ),
            });
        }
        let folder = ScriptFolder::new(config.get_folding());
        Ok(MixedTokenizer {
            config: config.clone(),
            dictionary,
            stop_words: config.get_stop_words().then(StopWords::built_in),
            folder,
            tokens: Vec::new(),
        })
    }

    /// The buffer a [`MixedTokenStream`] fills, a piece of text at a time; kept between
    /// streams so that its slots (and their strings) are allocated once.
    pub(super) fn token_buffer(&mut self) -> &mut Vec<Token> {
        &mut self.tokens
    }

    /// The tokens of [`token_buffer`](Self::token_buffer).
    pub(super) fn token_slice(&self) -> &[Token] {
        &self.tokens
    }

    /// The settings this tokenizer was built with.
    #[must_use]
    pub fn config(&self) -> &TokenizerConfig {
        &self.config
    }

    /// Calls `emit(token, byte_range)` for every token of `text`, in order: the non-allocating
    /// core that both the tantivy token stream and fingerprinting use. `token` is lowercased
    /// (and folded to Simplified when folding is on); `byte_range` is its place in `text`.
    pub fn for_each_token(&self, text: &str, mut emit: impl FnMut(&str, Range<usize>)) {
        let mut lowered = String::new();
        for_each_run(text, |run_start, run, han| {
            if han {
                self.segment_han(run_start, run, &mut emit);
            } else {
                self.segment_other(run_start, run, &mut lowered, &mut emit);
            }
        });
    }

    /// Splits `text` by script without segmenting Chinese, in text order: every token of
    /// the non-Han text, as [`for_each_token`](Self::for_each_token) gives them, and every
    /// character of the Han text, normalized and folded as
    /// [`for_each_normalized_char`](Self::for_each_normalized_char) gives them. Jieba is not
    /// used.
    pub(crate) fn for_each_script_unit(&self, text: &str, mut emit: impl FnMut(ScriptUnit<'_>)) {
        let mut lowered = String::new();
        for_each_run(text, |run_start, run, is_han| {
            if is_han {
                self.for_each_han_char(run, |c| emit(ScriptUnit::Han(c)));
            } else {
                self.segment_other(run_start, run, &mut lowered, &mut |token, _| {
                    emit(ScriptUnit::Word(token))
                });
            }
        });
    }

    /// The tokens of an ASCII `text` (which has no Han text), as
    /// [`for_each_token`](Self::for_each_token) gives them, without their offsets, in one
    /// scan of the text without decoding it or splitting it by script first.
    pub(crate) fn for_each_ascii_token(&self, text: &str, mut emit: impl FnMut(&str)) {
        debug_assert!(text.is_ascii());
        let mut lowered = String::new();
        for_each_classed_ascii_word(text, |_, word, classes| {
            if let Some(token) = self.ascii_token(word, classes, &mut lowered) {
                emit(token);
            }
        });
    }

    /// The token of an ASCII `word` whose bytes' classes are `classes` (`UPPERCASE` set
    /// when one is a capital): the word lowercased (in `lowered`, reused), `None` for a stop
    /// word.
    #[inline]
    fn ascii_token<'w>(
        &self,
        word: &'w str,
        classes: u8,
        lowered: &'w mut String,
    ) -> Option<&'w str> {
        // A word without capitals is its own token.
        let token = if classes & UPPERCASE == 0 {
            word
        } else {
            lowered.clear();
            lowered.push_str(word);
            lowered.make_ascii_lowercase();
            lowered.as_str()
        };
        (!self.is_stop_word(token)).then_some(token)
    }

    /// The tokens of a non-Han `run` starting at byte `run_start` of the text: UAX #29 words,
    /// lowercased (in `lowered`, reused), stop words left out.
    fn segment_other(
        &self,
        run_start: usize,
        run: &str,
        lowered: &mut String,
        emit: &mut impl FnMut(&str, Range<usize>),
    ) {
        if run.chars().all(is_separator) {
            return;
        }
        // The UAX #29 words of each piece between characters that break words.
        for_each_piece(run, |piece_start, piece| {
            for_each_word(piece, |offset, word| {
                let word_lowered = lowercase(word, lowered);
                if !self.is_stop_word(word_lowered) {
                    let start = run_start + piece_start + offset;
                    emit(word_lowered, start..start + word.len());
                }
            });
        });
    }

    /// Calls `emit` for every character of `text` that character n-grams are made of:
    /// letters and digits of any script, lowercased, folded to Simplified when folding is on;
    /// whitespace, punctuation and symbols are skipped. Stop words are not removed here.
    pub fn for_each_normalized_char(&self, text: &str, mut emit: impl FnMut(char)) {
        let Some(folder) = &self.folder else {
            text.chars().for_each(|c| normalize(c, &mut emit));
            return;
        };
        // Folding goes run by run, as in `for_each_token`, so that n-grams and words see the
        // same folded text. One decoding of the text: a Han run's characters wait in `han`
        // until its end shows whether any of them needs folding (then the run is converted
        // whole, Taiwan phrases included) or none does (most runs: emitted as read).
        let mut han = Vec::new();
        let mut run_start = 0;
        let mut scan = RunScan::default();
        for (offset, c) in text.char_indices() {
            if !c.is_ascii() && is_han(c) {
                if han.is_empty() {
                    run_start = offset;
                }
                folder.scan(&mut scan, c);
                han.push(c);
                continue;
            }
            if !han.is_empty() {
                let run = &text[run_start..offset];
                end_han_run(folder, &mut han, run, scan.needs_folding(), &mut emit);
                scan = RunScan::default();
            }
            normalize(c, &mut emit);
        }
        if !han.is_empty() {
            end_han_run(
                folder,
                &mut han,
                &text[run_start..],
                scan.needs_folding(),
                &mut emit,
            );
        }
    }

    /// The characters [`for_each_normalized_char`](Self::for_each_normalized_char) gives,
    /// in one string.
    ///
    /// The ASCII stretches (most of any Latin-script text, whatever its accents, curly
    /// quotes and dashes) are lowercased without decoding, their letters and digits kept in
    /// one pass without a branch per byte; the other stretches go character by character. A
    /// Han run never holds an ASCII character, so folding sees the same runs stretch by
    /// stretch as over the whole text.
    pub(crate) fn normalized_text(&self, text: &str) -> String {
        String::from_utf8(self.normalized_utf8(text)).expect("whole characters")
    }

    /// The UTF-8 of [`normalized_text`](Self::normalized_text), for the n-gram loops that
    /// read bytes: not checked again (a sixteenth of the time of fingerprinting Chinese).
    pub(crate) fn normalized_utf8(&self, text: &str) -> Vec<u8> {
        let mut normalized = Vec::with_capacity(text.len());
        self.normalize_into(text, &mut normalized, None);
        normalized
    }

    /// [`normalized_utf8`](Self::normalized_utf8), and the text's Han runs apart: their
    /// normalized characters, which [`for_each_script_unit`](Self::for_each_script_unit)
    /// gives as [`ScriptUnit::Han`], and where they are. Both from one pass.
    pub(crate) fn normalized_utf8_and_han(&self, text: &str) -> (Vec<u8>, HanText) {
        let mut normalized = Vec::with_capacity(text.len());
        let mut han = HanText::default();
        self.normalize_into(text, &mut normalized, Some(&mut han));
        (normalized, han)
    }

    /// The Han runs of `text` apart, as
    /// [`normalized_utf8_and_han`](Self::normalized_utf8_and_han) gives them, without the
    /// normalized text (its ASCII stretches are skipped, not normalized).
    pub(crate) fn han_text(&self, text: &str) -> HanText {
        let mut han = HanText::default();
        let mut scratch = Vec::new();
        for_each_ascii_stretch(text, |offset, stretch, ascii| {
            if !ascii {
                scratch.clear();
                self.push_normalized_non_ascii(stretch, &mut scratch, Some((offset, &mut han)));
            }
        });
        han
    }

    /// Appends the normalized characters of `text` to `out`, and its Han runs to `han` when
    /// there is one.
    fn normalize_into(&self, text: &str, out: &mut Vec<u8>, mut han: Option<&mut HanText>) {
        for_each_ascii_stretch(text, |offset, stretch, ascii| {
            if ascii {
                let from = out.len();
                out.resize(from + stretch.len(), 0);
                let (len, _) = letters_and_digits(stretch.as_bytes(), &mut out[from..]);
                out.truncate(from + len);
            } else {
                self.push_normalized_non_ascii(
                    stretch,
                    out,
                    han.as_deref_mut().map(|h| (offset, h)),
                );
            }
        });
    }

    /// Calls `emit` with every token of the runs of `text` between its Han runs `han`, in
    /// order, as [`for_each_token`](Self::for_each_token) gives them: the words that
    /// [`for_each_script_unit`](Self::for_each_script_unit) gives, without its Han
    /// characters.
    pub(crate) fn for_each_other_token(
        &self,
        text: &str,
        han: &HanText,
        mut emit: impl FnMut(&str),
    ) {
        let mut lowered = String::new();
        for run in han.other_runs(text.len()) {
            self.segment_other(run.start, &text[run], &mut lowered, &mut |token, _| {
                emit(token)
            });
        }
    }

    /// Appends the normalized characters of `stretch`, which holds no ASCII, to `out` in
    /// UTF-8, as [`for_each_normalized_char`](Self::for_each_normalized_char) gives them, and
    /// its Han runs to `han` when there is one (with where `stretch` starts in the text). A
    /// Han run that folding leaves as it is and that is all caseless ideographs (most runs
    /// of Chinese) normalizes to itself: it is copied whole, not encoded again character by
    /// character.
    fn push_normalized_non_ascii(
        &self,
        stretch: &str,
        out: &mut Vec<u8>,
        mut han: Option<(usize, &mut HanText)>,
    ) {
        fn push(out: &mut Vec<u8>, c: char) {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        let folder = self.folder.as_ref();
        let mut end_run = |out: &mut Vec<u8>,
                           at: Range<usize>,
                           needs_folding: bool,
                           plain: bool| {
            let (from, run) = (out.len(), &stretch[at.clone()]);
            let folded = match folder {
                Some(folder) if needs_folding => folder.convert(run),
                _ => std::borrow::Cow::Borrowed(run),
            };
            // A run that folding left as it is stays plain (a run of Simplified text
            // whose characters only looked like a Taiwan phrase's ends).
            match folded {
                std::borrow::Cow::Borrowed(run) if plain => out.extend_from_slice(run.as_bytes()),
                folded => (folded.chars()).for_each(|c| normalize(c, &mut |c| push(out, c))),
            }
            if let Some((offset, han)) = han.as_mut() {
                han.push_run(*offset + at.start..*offset + at.end, &out[from..]);
            }
        };
        let mut run_start = None;
        let (mut scan, mut plain) = (RunScan::default(), true);
        for (offset, c) in stretch.char_indices() {
            if is_han(c) {
                if run_start.is_none() {
                    run_start = Some(offset);
                    (scan, plain) = (RunScan::default(), true);
                }
                if let Some(folder) = folder {
                    folder.scan(&mut scan, c);
                }
                plain = plain && is_caseless_ideograph(c);
                continue;
            }
            if let Some(start) = run_start.take() {
                end_run(out, start..offset, scan.needs_folding(), plain);
            }
            normalize(c, &mut |c| push(out, c));
        }
        if let Some(start) = run_start {
            end_run(out, start..stretch.len(), scan.needs_folding(), plain);
        }
    }

    /// [`for_each_normalized_char`](Self::for_each_normalized_char) of a `run` of Han
    /// characters only: the run is read twice (whether it needs folding, then its
    /// characters) rather than its characters held in a buffer grown per run.
    fn for_each_han_char(&self, run: &str, mut emit: impl FnMut(char)) {
        match &self.folder {
            Some(folder) if folder.needs_folding(run) => {
                folder
                    .convert(run)
                    .chars()
                    .for_each(|c| normalize(c, &mut emit));
            }
            _ => run.chars().for_each(|c| normalize(c, &mut emit)),
        }
    }

    fn segment_han(&self, run_start: usize, run: &str, emit: &mut impl FnMut(&str, Range<usize>)) {
        let hmm = self.config.get_hmm();
        let jieba = self.dictionary.jieba();
        let folded = match &self.folder {
            Some(folder) => folder.fold(run),
            None => std::borrow::Cow::Borrowed(run),
        };
        let std::borrow::Cow::Owned(folded) = folded else {
            for token in jieba.cut(run, hmm) {
                if !self.is_stop_word(token.word) {
                    emit(
                        token.word,
                        run_start + token.byte_start..run_start + token.byte_end,
                    );
                }
            }
            return;
        };
        // Folding maps characters one to one except for some regional phrases. Where the
        // character counts agree, offsets map through character indices; where they do not,
        // every token of the run points at the whole run.
        let char_starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
        let same_shape = folded.chars().count() == char_starts.len();
        for token in jieba.cut(&folded, hmm) {
            if self.is_stop_word(token.word) {
                continue;
            }
            let range = if same_shape {
                let from = char_starts[token.start];
                let to = char_starts.get(token.end).copied().unwrap_or(run.len());
                run_start + from..run_start + to
            } else {
                run_start..run_start + run.len()
            };
            emit(token.word, range);
        }
    }

    #[inline]
    fn is_stop_word(&self, word: &str) -> bool {
        self.stop_words.as_ref().is_some_and(|s| s.contains(word))
    }
}

/// `word` lowercased: `word` itself when it has nothing to lowercase (most words), else its
/// lowercase form written into `buffer`.
fn lowercase<'a>(word: &'a str, buffer: &'a mut String) -> &'a str {
    if word.is_ascii() {
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return word;
        }
        buffer.clear();
        buffer.push_str(word);
        buffer.make_ascii_lowercase();
    } else {
        buffer.clear();
        buffer.extend(word.chars().flat_map(char::to_lowercase));
    }
    buffer
}

impl Tokenizer for MixedTokenizer {
    type TokenStream<'a> = MixedTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> MixedTokenStream<'a> {
        MixedTokenStream::new(self, text, PIECE_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::ScriptFolding;
    use proptest::prelude::*;
    use tantivy::tokenizer::TokenStream;

    proptest! {
        /// The one-pass normalization, and the string of `normalized_text`, give what
        /// splitting into runs, folding each Han run and normalizing every character gives,
        /// in every folding mode.
        #[test]
        fn normalization_folds_han_runs_whole(
            pieces in prop::collection::vec(
                prop_oneof![
                    Just("軟體"), Just("滑鼠"), Just("著作"), Just("門"), Just("门"),
                    Just("软体"), Just("档"), Just("案"), Just("默认"), Just("厄瓜多"),
                    Just("我爱"), Just("〇"), Just("，"), Just(" "), Just("AbÉ"),
                    Just("ΣΑΣ"), Just("2008"), Just("\u{20000}"), Just("ﬁ"),
                    Just("It’s—"), Just("K\u{212a}İ"), Just("a_b.c"),
                ],
                0..16,
            ),
            folding in prop_oneof![
                Just(ScriptFolding::Off),
                Just(ScriptFolding::Characters),
                Just(ScriptFolding::Regional),
                Just(ScriptFolding::RegionalAnyScript),
            ],
        ) {
            let text = pieces.concat();
            let tokenizer =
                MixedTokenizer::from_config(&TokenizerConfig::default().folding(folding)).unwrap();
            let mut expected = Vec::new();
            for_each_run(&text, |_, run, han| {
                let folded = match ScriptFolder::new(folding) {
                    Some(folder) if han => folder.fold(run).into_owned(),
                    _ => run.to_owned(),
                };
                folded.chars().for_each(|c| normalize(c, &mut |c| expected.push(c)));
            });
            let mut found = Vec::new();
            tokenizer.for_each_normalized_char(&text, |c| found.push(c));
            prop_assert_eq!(&found, &expected);
            let whole: String = expected.iter().collect();
            prop_assert_eq!(tokenizer.normalized_text(&text), whole);
        }
    }

    /// Offsets are bytes into the input; positions are token ordinals.
    fn assert_tokens(
        tokenizer: &mut MixedTokenizer,
        text: &str,
        expected: &[(&str, usize, usize)],
    ) {
        let mut stream = tokenizer.token_stream(text);
        for (position, &(word, from, to)) in expected.iter().enumerate() {
            assert!(stream.advance(), "missing token {word:?}");
            let token = stream.token();
            assert_eq!(
                (
                    token.text.as_str(),
                    token.offset_from,
                    token.offset_to,
                    token.position
                ),
                (word, from, to, position),
                "in {text:?}"
            );
            assert_eq!(
                &text[from..to].to_lowercase(),
                &token.text,
                "offsets point at the token"
            );
        }
        assert!(
            !stream.advance(),
            "unexpected token {:?}",
            stream.token().text
        );
    }

    #[test]
    fn mixed_text_offsets_and_positions() {
        let mut tokenizer = MixedTokenizer::new();
        assert_tokens(
            &mut tokenizer,
            "我爱北京天安门 and Beijing's 2008 Olympics",
            &[
                ("我", 0, 3),
                ("爱", 3, 6),
                ("北京", 6, 12),
                ("天安门", 12, 21),
                ("and", 22, 25),
                ("beijing's", 26, 35),
                ("2008", 36, 40),
                ("olympics", 41, 49),
            ],
        );
    }

    #[test]
    fn punctuation_and_whitespace_emit_nothing() {
        let mut tokenizer = MixedTokenizer::new();
        assert_tokens(&mut tokenizer, "  ，。!? -- \n\t…", &[]);
        assert_tokens(&mut tokenizer, "", &[]);
        assert_tokens(
            &mut tokenizer,
            "你好，世界！",
            &[("你好", 0, 6), ("世界", 9, 15)],
        );
    }

    #[test]
    fn traditional_is_folded_with_original_offsets() {
        let mut tokenizer = MixedTokenizer::new();
        let mut stream = tokenizer.token_stream("我愛北京天安門");
        let mut words = Vec::new();
        while let Some(token) = stream.next() {
            words.push((token.text.clone(), token.offset_from, token.offset_to));
        }
        assert_eq!(
            words,
            [
                ("我".to_owned(), 0, 3),
                ("爱".to_owned(), 3, 6),
                ("北京".to_owned(), 6, 12),
                ("天安门".to_owned(), 12, 21)
            ]
        );
    }

    #[test]
    fn folding_can_be_turned_off() {
        let config = TokenizerConfig::default().folding(crate::text::ScriptFolding::Off);
        let mut tokenizer = MixedTokenizer::from_config(&config).unwrap();
        let mut stream = tokenizer.token_stream("天安門");
        let mut words = Vec::new();
        while let Some(token) = stream.next() {
            words.push(token.text.clone());
        }
        assert!(words.concat().contains('門'));
    }

    #[test]
    fn stop_words_are_dropped_when_asked() {
        let config = TokenizerConfig::default().stop_words(true);
        let mut tokenizer = MixedTokenizer::from_config(&config).unwrap();
        assert_tokens(&mut tokenizer, "The cat 的", &[("cat", 4, 7)]);
    }

    #[test]
    fn combining_marks_after_spaces_do_not_make_whitespace_tokens() {
        let mut tokenizer = MixedTokenizer::new();
        assert_tokens(
            &mut tokenizer,
            "a \u{16ff0}",
            &[("a", 0, 1), ("\u{16ff0}", 2, 6)],
        );
    }

    #[test]
    fn a_narrow_no_break_space_inside_a_word_cuts_it() {
        // UAX #29 joins across U+202F (ExtendNumLet); a token never holds whitespace.
        let mut tokenizer = MixedTokenizer::new();
        assert_tokens(&mut tokenizer, "a\u{202f}b", &[("a", 0, 1), ("b", 4, 5)]);
        assert_tokens(
            &mut tokenizer,
            "\u{0AB5}\u{202f}\u{11350}",
            &[("\u{0AB5}", 0, 3), ("\u{11350}", 6, 10)],
        );
    }

    #[test]
    fn uppercase_non_ascii_is_lowercased() {
        let mut tokenizer = MixedTokenizer::new();
        assert_tokens(
            &mut tokenizer,
            "ÉCOLE Straße",
            &[("école", 0, 6), ("straße", 7, 14)],
        );
    }

    #[test]
    fn user_dictionary_must_match_the_config() {
        let dictionary = ChineseDictionary::with_user_words("区块链 1000 n\n".as_bytes()).unwrap();
        let err = MixedTokenizer::with_dictionary(&TokenizerConfig::default(), dictionary.clone());
        assert!(matches!(
            err,
            Err(Error::InvalidSetting {
                name: "user_dictionary",
                ..
            })
        ));
        let config =
            TokenizerConfig::default().user_dictionary(dictionary.digest().map(str::to_owned));
        assert!(MixedTokenizer::with_dictionary(&config, dictionary).is_ok());
    }

    #[test]
    fn clones_share_the_dictionary() {
        let a = MixedTokenizer::new();
        let b = a.clone();
        assert!(std::ptr::eq(a.dictionary.jieba(), b.dictionary.jieba()));
    }
}
