//! Which characters go to the Chinese segmenter.
//!
//! The tokenizer splits its input into runs of Han characters (segmented by jieba) and runs
//! of everything else (segmented by Unicode word boundaries, UAX #29). UAX #29 alone would
//! make every ideograph a word of its own; jieba alone does not know other scripts' rules.

/// True for Han ideographs: the CJK Unified Ideographs blocks and their extensions, the
/// compatibility ideographs, and U+3007 (〇, the ideographic zero).
#[inline]
#[must_use]
pub fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3007}'
        | '\u{3400}'..='\u{4DBF}'    // Extension A
        | '\u{4E00}'..='\u{9FFF}'    // Unified Ideographs
        | '\u{F900}'..='\u{FAFF}'    // Compatibility Ideographs
        | '\u{20000}'..='\u{2EBEF}'  // Extensions B to F, I
        | '\u{2F800}'..='\u{2FA1F}'  // Compatibility Ideographs Supplement
        | '\u{30000}'..='\u{323AF}'  // Extensions G and H
    )
}

/// Whether `text` holds a Han character: only its non-ASCII characters are decoded, and an
/// ASCII text is answered by one word-at-a-time check.
#[must_use]
pub(crate) fn has_han(text: &str) -> bool {
    !text.is_ascii() && non_ascii_chars(text).any(|(_, c)| is_han(c))
}

/// The non-ASCII characters of `text` and their byte offsets, in order: the ASCII between
/// them is jumped over eight bytes at a time, not decoded.
fn non_ascii_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        at += ascii_prefix_len(&text.as_bytes()[at..]);
        let c = text[at..].chars().next()?;
        let found = (at, c);
        at += c.len_utf8();
        Some(found)
    })
}

/// True for the CJK Unified Ideographs and Extension A: every one is an assigned letter
/// without case, so normalization passes it through unchanged without the Unicode table
/// lookups a general character needs (they were a seventh of the time of Chinese n-grams).
#[inline]
#[must_use]
pub(crate) fn is_caseless_ideograph(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}')
}

/// True for punctuation and spacing that never belongs to a word: ASCII punctuation and
/// whitespace, and the common CJK, fullwidth and general punctuation. A run made only of them
/// has no words, so the tokenizer skips it without running UAX #29 over it, whose category
/// lookups are slow for non-ASCII characters (most of the non-Han text of Chinese prose is
/// `，` and `。`, and of Chinese man pages `─`); character n-grams skip them without those
/// lookups too. The ranges hold
/// only assigned punctuation, symbols and spaces, none of them letters or digits in any
/// Unicode version.
#[inline]
#[must_use]
pub(crate) fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !c.is_ascii_alphanumeric();
    }
    matches!(c,
        '\u{3000}'..='\u{3004}'    // ideographic space, 、 。 〃 〄
        | '\u{3008}'..='\u{3020}'  // brackets 〈 to 〟, 〒 〓 〠
        | '\u{3030}' | '\u{303D}'  // 〰 〽
        | '\u{FF01}'..='\u{FF0F}'  // fullwidth ！ to ／
        | '\u{FF1A}'..='\u{FF20}'  // fullwidth ： to ＠
        | '\u{FF3B}'..='\u{FF40}'  // fullwidth ［ to ｀
        | '\u{FF5B}'..='\u{FF65}'  // fullwidth ｛ to ･
        | '\u{2010}'..='\u{2027}'  // dashes, quotes, bullets, ellipsis
        | '\u{2030}'..='\u{205E}'  // per mille to vertical four dots
        | '\u{2500}'..='\u{259F}'  // box drawing and blocks (the tables of man pages)
        | '\u{00A0}' | '\u{00AB}' | '\u{00BB}' // no-break space, « »
    )
}

/// True for the non-ASCII spaces and punctuation at which UAX #29 always breaks and that never
/// join two words (unlike `，`, `．`, `：`, `；`, `‘`, `’`, which can, as their ASCII forms do
/// in `1,000` and `Beijing's`). The tokenizer cuts non-Han runs at them, where UAX #29 lets
/// it ([`cuts_at`]), before segmenting the pieces, so that plain ASCII between Chinese
/// punctuation and box drawing takes the segmenter's fast path.
/// ASCII spaces and punctuation are left to the segmenter: cutting at them would only add a
/// call per word.
#[inline]
#[must_use]
pub(crate) fn breaks_words(c: char) -> bool {
    matches!(c,
        '\u{A0}' | '\u{AB}' | '\u{BB}'                         // no-break space, « »
        | '\u{2014}' | '\u{201C}' | '\u{201D}' | '\u{2026}'   // — “ ” …
        | '\u{3000}'..='\u{3002}'                               // ideographic space, 、 。
        | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301B}'   // CJK brackets
        | '\u{FF01}' | '\u{FF08}' | '\u{FF09}' | '\u{FF1F}'   // ！ （ ） ？
        | '\u{2500}'..='\u{259F}'                              // box drawing and blocks
    )
}

/// Whether a run can be cut at `c`, which [breaks words](breaks_words), when `next` follows
/// it: whether the text after `c` segments alone as it does after `c`. Not when `next` is an
/// Extend, Format or ZWJ character, which WB4 attaches to `c` (none is ASCII, none breaks
/// words), nor when the ideographic space is followed by a space, which WB3d joins to it.
#[inline]
fn cuts_at(c: char, next: Option<char>) -> bool {
    match next {
        None => true,
        Some(next) if next.is_ascii() => !(c == '\u{3000}' && next == ' '),
        Some(next) => breaks_words(next) && !(c == '\u{3000}' && next == '\u{3000}'),
    }
}

/// The number of ASCII bytes `bytes` starts with, found eight bytes at a time: the scans
/// of mostly ASCII text jump from one non-ASCII character to the next with it.
#[inline]
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    prefix_len(bytes, false)
}

/// The number of non-ASCII bytes `bytes` starts with, found eight bytes at a time (Chinese
/// prose has an ASCII byte every few dozen).
#[inline]
pub(crate) fn non_ascii_prefix_len(bytes: &[u8]) -> usize {
    prefix_len(bytes, true)
}

/// The number of bytes `bytes` starts with whose high bit is `high`.
#[inline(always)]
fn prefix_len(bytes: &[u8], high: bool) -> usize {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    // The high bits of the bytes that end the prefix.
    let flip = if high { HIGH_BITS } else { 0 };
    let mut chunks = bytes.chunks_exact(8);
    let mut len = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let ends = (word ^ flip) & HIGH_BITS;
        if ends != 0 {
            return len + ends.trailing_zeros() as usize / 8;
        }
        len += 8;
    }
    let rest = chunks.remainder();
    len + rest
        .iter()
        .position(|b| b.is_ascii() == high)
        .unwrap_or(rest.len())
}

/// Calls `emit(byte_offset, stretch, is_ascii)` for each maximal stretch of `text` that is
/// all ASCII or all not, in order. An ASCII byte is never inside a character, so every
/// stretch is whole characters.
pub(crate) fn for_each_ascii_stretch<'a>(
    text: &'a str,
    mut emit: impl FnMut(usize, &'a str, bool),
) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let ascii = bytes[at].is_ascii();
        let end = if ascii {
            at + ascii_prefix_len(&bytes[at..])
        } else {
            at + non_ascii_prefix_len(&bytes[at..])
        };
        emit(at, &text[at..end], ascii);
        at = end;
    }
}

/// Calls `emit(byte_offset, piece)` for each maximal piece of `run` between characters that
/// [break words](breaks_words) and that the run [can be cut at](cuts_at); empty pieces are
/// skipped.
pub(crate) fn for_each_piece<'a>(run: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    // Every break is non-ASCII: only the non-ASCII characters are decoded.
    let mut start = 0;
    for (at, c) in non_ascii_chars(run).filter(|&(_, c)| breaks_words(c)) {
        let end = at + c.len_utf8();
        if !cuts_at(c, run[end..].chars().next()) {
            continue;
        }
        if at > start {
            emit(start, &run[start..at]);
        }
        start = end;
    }
    if start < run.len() {
        emit(start, &run[start..]);
    }
}

/// Splits `text` into maximal runs that are all Han or all non-Han, calling
/// `emit(byte_offset, run, is_han)` for each, in order.
pub(crate) fn for_each_run<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str, bool)) {
    let mut start = 0;
    let mut current: Option<bool> = None;
    let mut switch_to = |kind: bool, at: usize| match current {
        Some(previous) if previous != kind => {
            emit(start, &text[start..at], previous);
            start = at;
            current = Some(kind);
        }
        None => current = Some(kind),
        Some(_) => {}
    };
    // ASCII is never Han and is most non-Han text: jump over a stretch of it at once, and
    // decode characters only between such stretches.
    for_each_ascii_stretch(text, |offset, stretch, ascii| {
        if ascii {
            switch_to(false, offset);
        } else {
            for (i, c) in stretch.char_indices() {
                switch_to(is_han(c), offset + i);
            }
        }
    });
    if let Some(kind) = current {
        emit(start, &text[start..], kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caseless_ideographs_are_letters_without_case() {
        // What the normalization fast path relies on, checked against the Unicode tables of
        // the standard library in use.
        let ideographs = ('\u{3400}'..='\u{4DBF}').chain('\u{4E00}'..='\u{9FFF}');
        for c in ideographs {
            assert!(is_caseless_ideograph(c) && is_han(c));
            assert!(
                c.is_alphanumeric() && !c.is_lowercase() && !c.is_uppercase(),
                "{c:?}"
            );
            assert!(c.to_lowercase().eq([c]), "{c:?}");
        }
        assert!(!is_caseless_ideograph('a') && !is_caseless_ideograph('〇'));
    }

    proptest::proptest! {
        /// The eight-byte scans stop where byte-by-byte ones do, at every offset.
        #[test]
        fn prefixes_end_at_the_first_byte_of_the_other_kind(
            text in "([a-z ]{0,9}|é|我{1,5}|，){0,12}",
        ) {
            let bytes = text.as_bytes();
            for from in 0..=bytes.len() {
                let rest = &bytes[from..];
                let ascii = rest.iter().position(|b| !b.is_ascii());
                proptest::prop_assert_eq!(ascii_prefix_len(rest), ascii.unwrap_or(rest.len()));
                let non_ascii = rest.iter().position(u8::is_ascii);
                proptest::prop_assert_eq!(
                    non_ascii_prefix_len(rest),
                    non_ascii.unwrap_or(rest.len())
                );
            }
        }
    }

    #[test]
    fn han_ranges() {
        assert!(is_han('我'));
        assert!(is_han('〇'));
        assert!(is_han('\u{20000}'));
        assert!(!is_han('a'));
        assert!(!is_han('，'));
        assert!(!is_han('の'));
        for (text, han) in [
            ("plain", false),
            ("It’s—“quoted” … ⁂", false),
            ("ひらがな한글ｈ😀", false),
            ("a 〇", true),
            ("ひら我", true),
            ("\u{2F800}", true),
        ] {
            assert_eq!(has_han(text), han, "{text}");
        }
        // What `has_han`'s byte scan relies on.
        let mut utf8 = [0u8; 4];
        for c in (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_han(c))
        {
            assert!(c.encode_utf8(&mut utf8).as_bytes()[0] >= 0xE3, "{c:?}");
        }
        assert!(!is_han('한'));
    }

    #[test]
    fn separators_are_never_part_of_a_word() {
        use unicode_segmentation::UnicodeSegmentation;
        let all = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| is_separator(c));
        let mut count = 0;
        for c in all {
            count += 1;
            assert!(!c.is_alphanumeric(), "{c:?}");
            let text = format!("{c}{c}");
            assert_eq!(text.unicode_words().count(), 0, "{c:?}");
        }
        assert!(count > 200);
    }

    #[test]
    fn word_breaks_are_separators() {
        let all = (0..=0x10FFFFu32).filter_map(char::from_u32);
        for c in all.filter(|&c| breaks_words(c)) {
            assert!(is_separator(c), "{c:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Cutting a run at the characters that break words, then segmenting each piece,
        /// gives the words of the whole run: on ASCII words and punctuation around every
        /// breaking character, with what could join across one (letters, digits, infixes,
        /// spaces and other WSegSpace, newlines, combining marks, alphabetic among them,
        /// format characters, ZWJ and pictographs).
        #[test]
        fn the_pieces_hold_the_words_of_the_run(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "Zq", "1", "_", ".", ",", "'", ":", " ", "\t", "\n", "-", "é", "\u{301}",
                    "\u{345}", "\u{2028}", "\u{2009}", "\u{1680}",
                    "\u{200d}", "\u{ad}", "\u{1f600}", "\u{2764}", "\u{a0}", "\u{ab}", "\u{bb}",
                    "\u{2014}", "\u{201c}", "\u{201d}", "\u{2026}", "\u{3000}", "\u{3001}",
                    "\u{3002}", "\u{3008}", "\u{3011}", "\u{3014}", "\u{301b}", "\u{ff01}",
                    "\u{ff08}", "\u{ff09}", "\u{ff1f}", "\u{2500}", "\u{2502}", "\u{253c}",
                    "\u{2580}", "\u{259f}", "ab", "3.14", "can't",
                ]),
                0..30,
            )
        ) {
            use unicode_segmentation::UnicodeSegmentation;
            let run = pieces.concat();
            let expected: Vec<(usize, &str)> = run.unicode_word_indices().collect();
            proptest::prop_assert_eq!(words_of_pieces(&run), expected);
        }
    }

    /// The words of `run` from its pieces, as the tokenizer takes them.
    fn words_of_pieces(run: &str) -> Vec<(usize, &str)> {
        use unicode_segmentation::UnicodeSegmentation;
        let mut found = Vec::new();
        for_each_piece(run, |start, piece| {
            for (offset, word) in piece.unicode_word_indices() {
                found.push((start + offset, word));
            }
        });
        found
    }

    #[test]
    fn no_cut_where_a_break_joins_what_follows() {
        use unicode_segmentation::UnicodeSegmentation;
        // An alphabetic combining mark makes a word of the spaces WB4 and WB3d join it to.
        for run in [
            "\u{a0}\u{345}",
            "\u{3000} \u{345}",
            "\u{3000}\u{3000}\u{345}",
            "─\u{345}",
        ] {
            let expected: Vec<(usize, &str)> = run.unicode_word_indices().collect();
            assert_eq!(words_of_pieces(run), expected, "{run:?}");
        }
    }

    #[test]
    fn pieces_lie_between_word_breaks() {
        let mut pieces = Vec::new();
        for_each_piece("（tantivy, 3.14）e-mail“ok”", |offset, piece| {
            pieces.push((offset, piece))
        });
        assert_eq!(pieces, [(3, "tantivy, 3.14"), (19, "e-mail"), (28, "ok")]);
        let mut ascii = Vec::new();
        for_each_piece("plain ascii", |offset, piece| ascii.push((offset, piece)));
        assert_eq!(ascii, [(0, "plain ascii")]);
    }

    #[test]
    fn runs_alternate_and_cover_the_text() {
        let mut runs = Vec::new();
        for_each_run("我爱Rust和tantivy!", |offset, run, han| {
            runs.push((offset, run, han))
        });
        assert_eq!(
            runs,
            vec![
                (0, "我爱", true),
                (6, "Rust", false),
                (10, "和", true),
                (13, "tantivy!", false)
            ]
        );
        let mut none = 0;
        for_each_run("", |_, _, _| none += 1);
        assert_eq!(none, 0);
    }
}
