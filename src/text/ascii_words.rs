//! The UAX #29 words of ASCII text, without the segments between them.
//!
//! `unicode-segmentation` has an ASCII fast path, but it yields every segment (each space
//! run, each punctuation byte) and then filters out those without a letter or digit; in
//! English text about half the segments are dropped that way. Words are exactly the
//! segments that start with a letter, digit or `_` and hold a letter or digit, so a scan
//! can jump from one to the next: here a scan of bit masks, 64 bytes at a time
//! ([`BlockMasks`]). The rules are those of the crate's ASCII path (UAX #29
//! restricted to ASCII): letters, digits and `_` join (WB5, WB8 to WB10, WB13a/b); `.`, `'`
//! and `:` join two letters (WB6, WB7); `.`, `,`, `;` and `'` join two digits (WB11, WB12).
//! A property test checks the words against `unicode_word_indices` on ASCII text.

use crate::text::ascii_masks::BlockMasks;

/// Calls `emit(byte_offset, word)` for each UAX #29 word of `text`, which must be ASCII, in
/// order: the words `unicode_word_indices` gives.
pub(crate) fn for_each_ascii_word<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    for_each_classed_ascii_word(text, |offset, word, _| emit(offset, word));
}

/// [`for_each_ascii_word`], with the classes of each word: [`ALPHANUMERIC`] always, and
/// [`UPPERCASE`] when one of its letters is a capital.
///
/// The text is read 64 bytes at a time, as [`BlockMasks`]: the bytes of words are the
/// letters, digits and `_`, and the infixes between two digits or two letters, so each
/// word is a run of ones in one mask, found with two counts of trailing zeros.
pub(crate) fn for_each_classed_ascii_word<'a>(
    text: &'a str,
    mut emit: impl FnMut(usize, &'a str, u8),
) {
    debug_assert!(text.is_ascii());
    let bytes = text.as_bytes();
    let mut emit_word = |start: usize, end: usize, classes: u8| {
        // A run of underscores alone is a segment, not a word.
        if classes & ALPHANUMERIC != 0 {
            emit(start, &text[start..end], classes);
        }
    };
    // The word that runs on past the last block: its start, and its classes so far.
    let mut open: Option<(usize, u8)> = None;
    // Bit 0 set when the byte before the block is a digit (`digit_before`), a letter.
    let (mut digit_before, mut letter_before) = (0, 0);
    let mut tail = [0u8; 64];
    for at in (0..bytes.len()).step_by(64) {
        let block = match bytes.get(at..at + 64) {
            Some(block) => block.try_into().expect("64 bytes"),
            None => {
                tail[..bytes.len() - at].copy_from_slice(&bytes[at..]);
                &tail
            }
        };
        let masks = BlockMasks::of(block);
        let after = bytes.get(at + 64).copied().unwrap_or(0);
        let (digit_after, letter_after) = (
            u64::from(after.is_ascii_digit()),
            u64::from(after.is_ascii_alphabetic()),
        );
        // Bit i: byte i - 1 is a digit; byte i + 1 is a digit; the same for letters.
        let digit_left = (masks.digits << 1) | digit_before;
        let digit_right = (masks.digits >> 1) | (digit_after << 63);
        let letter_left = (masks.letters << 1) | letter_before;
        let letter_right = (masks.letters >> 1) | (letter_after << 63);
        let infixes = (masks.digit_infixes & digit_left & digit_right)
            | (masks.letter_infixes & letter_left & letter_right);
        let mut words = masks.letters | masks.digits | masks.underscores | infixes;
        (digit_before, letter_before) = (masks.digits >> 63, masks.letters >> 63);

        if let Some((start, classes)) = open.take() {
            // The open word goes on to the first byte of the block outside words.
            let end = (!words).trailing_zeros();
            let classes = classes | classes_of(&masks, below(end));
            if end == 64 {
                open = Some((start, classes));
                continue;
            }
            emit_word(start, at + end as usize, classes);
            words &= !below(end);
        }
        while words != 0 {
            let start = words.trailing_zeros();
            let end = (!(words | below(start))).trailing_zeros();
            let classes = classes_of(&masks, below(end) & !below(start));
            if end == 64 {
                open = Some((at + start as usize, classes));
                break;
            }
            emit_word(at + start as usize, at + end as usize, classes);
            words &= !below(end);
        }
    }
    if let Some((start, classes)) = open {
        emit_word(start, bytes.len(), classes);
    }
}

/// The bits below bit `n` (all 64 for `n = 64`).
#[inline]
fn below(n: u32) -> u64 {
    1u64.checked_shl(n).map_or(u64::MAX, |bit| bit - 1)
}

/// The classes of the bytes of a block at the bits of `word`.
#[inline]
fn classes_of(masks: &BlockMasks, word: u64) -> u8 {
    let alphanumeric = (masks.letters | masks.digits) & word != 0;
    let uppercase = masks.uppercase & word != 0;
    (u8::from(alphanumeric) * ALPHANUMERIC) | (u8::from(uppercase) * UPPERCASE)
}

/// [`CLASS`] bit of ASCII letters and digits.
const ALPHANUMERIC: u8 = 1;
/// [`CLASS`] bit of uppercase letters: the bit that lowercases them (`b | UPPERCASE`).
pub(crate) const UPPERCASE: u8 = 0x20;

/// The class bits of every byte: one load per byte where the scans test several classes.
static CLASS: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut class = 0;
        if b.is_ascii_alphanumeric() {
            class |= ALPHANUMERIC;
        }
        if b.is_ascii_uppercase() {
            class |= UPPERCASE;
        }
        table[i] = class;
        i += 1;
    }
    table
}

/// Writes the letters and digits of the ASCII `bytes`, lowercased, at the start of `out`
/// (at least as long as `bytes`). Returns how many it wrote, and the [`CLASS`] bits of all
/// of `bytes` together (`UPPERCASE` set when one was a capital).
///
/// Without a branch per byte: every byte is written, lowercased, at the end of the output,
/// which grows by one only after a letter or digit (a branch on each byte mispredicts at
/// every space and punctuation mark; it took two fifths of the time of English n-grams).
#[inline]
pub(crate) fn letters_and_digits(bytes: &[u8], out: &mut [u8]) -> (usize, u8) {
    let out = &mut out[..bytes.len()];
    let mut len = 0;
    let mut classes = 0;
    for &b in bytes {
        let class = CLASS[usize::from(b)];
        // `len` never passes the index of `b`, so the write is in bounds.
        out[len] = b | (class & UPPERCASE);
        len += usize::from(class & ALPHANUMERIC);
        classes |= class;
    }
    (len, classes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn words(text: &str) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        for_each_ascii_word(text, |offset, word| out.push((offset, word)));
        out
    }

    #[test]
    fn examples() {
        assert_eq!(
            words("Beijing's 2008 Olympics, e.g. 3.14 and 1,000; x86_64 __ a_b http://x"),
            [
                (0, "Beijing's"),
                (10, "2008"),
                (15, "Olympics"),
                (25, "e.g"),
                (30, "3.14"),
                (35, "and"),
                (39, "1,000"),
                (46, "x86_64"),
                (56, "a_b"),
                (60, "http"),
                (67, "x"),
            ]
        );
        assert!(words("").is_empty());
        assert!(words(" ... ___ \r\n").is_empty());
    }

    /// Texts of up to `n` pieces: letters, digits, infixes, separators and words.
    fn pieces(n: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a",
                "Z",
                "q",
                "1",
                "9",
                "0",
                "_",
                ".",
                ",",
                ";",
                ":",
                "'",
                "\"",
                " ",
                "  ",
                "\r",
                "\n",
                "\r\n",
                "\t",
                "-",
                "!",
                "@",
                "/",
                "e.g.",
                "3.14",
                "can't",
                "\x0b",
                "\x0c",
                "\x7f",
                "\x00",
                "Word",
                "longer_words",
                "x86_64",
            ]),
            0..n,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn the_words_of_unicode_segmentation(text in pieces(40)) {
            let expected: Vec<(usize, &str)> = text.unicode_word_indices().collect();
            prop_assert_eq!(words(&text), expected);
        }

        /// Texts of several 64-byte blocks: words and infixes across their bounds.
        #[test]
        fn the_words_of_long_texts(text in pieces(400)) {
            let expected: Vec<(usize, &str)> = text.unicode_word_indices().collect();
            prop_assert_eq!(words(&text), expected);
        }

        #[test]
        fn the_words_of_any_ascii(text in "[\\x00-\\x7f]{0,60}") {
            let expected: Vec<(usize, &str)> = text.unicode_word_indices().collect();
            prop_assert_eq!(words(&text), expected);
        }
    }
}
