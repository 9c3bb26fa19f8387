//! The UAX #29 words of a piece of non-Han text, cut at whitespace, with the ASCII
//! stretches of a mostly ASCII piece scanned without `unicode-segmentation`.
//!
//! English text is mostly ASCII with a few curly quotes, dashes or accented letters: one
//! such character made the whole piece go through `unicode_word_indices`, which looks every
//! character up in its tables, about a third of the cost of a signature on such text. A
//! piece can be cut after any ASCII whitespace character followed by an ASCII character
//! (or by the end) without changing its words: UAX #29 always breaks before and after
//! whitespace (WB3a, WB3b, WB999) except between two whitespace characters (WB3, WB3d),
//! which only joins a segment holding no letter or digit, and except before an Extend,
//! Format or ZWJ character (WB4), which is never ASCII; and no rule looking past a neighbour
//! (WB6, WB7, WB11, WB12) matches across whitespace. Each chunk without a non-ASCII
//! character goes to [`for_each_ascii_word`]; a property test checks the words against
//! `unicode_word_indices` on the whole piece.

use unicode_segmentation::UnicodeSegmentation;

use crate::text::ascii_words::for_each_ascii_word;
use crate::text::script::ascii_prefix_len;

/// Calls `emit(byte_offset, word)` for each UAX #29 word of `piece` (a segment holding a
/// letter or digit), in order, cut at whitespace: tokens never hold whitespace.
pub(crate) fn for_each_word<'a>(piece: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    let bytes = piece.as_bytes();
    // `ascii_from` is where the text not yet scanned starts, always just after a cut.
    let mut ascii_from = 0;
    loop {
        let non_ascii = ascii_from + ascii_prefix_len(&bytes[ascii_from..]);
        if non_ascii == bytes.len() {
            scan_ascii(piece, ascii_from, bytes.len(), &mut emit);
            return;
        }
        // The chunk of that non-ASCII byte starts after the last cut before it: whitespace
        // followed by an ASCII byte, as every byte before `non_ascii` is.
        let before = non_ascii.saturating_sub(1).max(ascii_from);
        let chunk_start = bytes[ascii_from..before]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(ascii_from, |i| ascii_from + i + 1);
        // It ends after the first cut after it.
        let chunk_end = (non_ascii..bytes.len())
            .find(|&i| bytes[i].is_ascii_whitespace() && bytes.get(i + 1).is_none_or(u8::is_ascii))
            .map_or(bytes.len(), |i| i + 1);
        scan_ascii(piece, ascii_from, chunk_start, &mut emit);
        scan_unicode(piece, chunk_start, chunk_end, &mut emit);
        ascii_from = chunk_end;
    }
}

/// The words of the ASCII `piece[from..to]`.
fn scan_ascii<'a>(piece: &'a str, from: usize, to: usize, emit: &mut impl FnMut(usize, &'a str)) {
    if from < to {
        for_each_ascii_word(&piece[from..to], |offset, word| emit(from + offset, word));
    }
}

/// The words of `piece[from..to]`, by `unicode-segmentation`.
fn scan_unicode<'a>(piece: &'a str, from: usize, to: usize, emit: &mut impl FnMut(usize, &'a str)) {
    for (offset, word) in piece[from..to].unicode_word_indices() {
        let offset = from + offset;
        // UAX #29 attaches a combining mark to whatever precedes it, even a space
        // (" \u{16ff0}" is one "word"), and joins words across U+202F, the narrow no-break
        // space (ExtendNumLet): such a "word" is cut at its whitespace. An ASCII word never
        // holds any.
        if word.is_ascii() {
            emit(offset, word);
        } else {
            for_each_between_whitespace(word, |part_offset, part| {
                emit(offset + part_offset, part);
            });
        }
    }
}

/// Calls `emit(byte_offset, part)` for each maximal run of `text` without whitespace.
fn for_each_between_whitespace<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    let mut start = None;
    for (offset, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(from)) => {
                emit(from, &text[from..offset]);
                start = None;
            }
            (false, None) => start = Some(offset),
            _ => {}
        }
    }
    if let Some(from) = start {
        emit(from, &text[from..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(piece: &str) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        for_each_word(piece, |offset, word| out.push((offset, word)));
        out
    }

    /// What the whole piece gives through `unicode-segmentation` alone.
    fn unicode_words(piece: &str) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        scan_unicode(piece, 0, piece.len(), &mut |offset, word| {
            out.push((offset, word))
        });
        out
    }

    #[test]
    fn mostly_ascii_text_keeps_its_words() {
        let text = "He said “don’t” — café au lait, \u{16ff0}x and 3.14 ";
        assert_eq!(words(text), unicode_words(text));
        assert!(words(text).iter().any(|&(_, w)| w == "don’t"));
        assert!(words(text).iter().any(|&(_, w)| w == "café"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The chunked scan gives the words of the whole piece, on text mixing ASCII with
        /// what joins across it or attaches to it: combining marks and format characters
        /// after spaces, curly apostrophes, non-ASCII letters and digits, no-break and
        /// narrow no-break spaces, regional indicators, emoji with ZWJ.
        #[test]
        fn the_words_of_the_whole_piece(
            text in prop::collection::vec(
                prop::sample::select(vec![
                    "a", "Z", "1", "_", ".", ",", ":", "'", " ", "  ", "\t", "\n", "\r\n",
                    "-", "e.g.", "3.14", "can't", "é", "\u{301}", "\u{200d}", "\u{ad}",
                    "\u{16ff0}", "’", "ß", "Ω", "٣", "\u{a0}", "\u{202f}", "\u{2009}",
                    "\u{1f1eb}", "\u{1f1f7}", "\u{1f600}", "\u{85}", "\u{3000}", "\x0b", "\x0c",
                ]),
                0..40,
            ).prop_map(|v| v.concat())
        ) {
            prop_assert_eq!(words(&text), unicode_words(&text));
        }
    }
}
