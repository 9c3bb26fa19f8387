//! The UAX #29 words of ASCII text, without the segments between them.
//!
//! `unicode-segmentation` has an ASCII fast path, but it yields every segment (each space
//! run, each punctuation byte) and then filters out those without a letter or digit; in
//! English text about half the segments are dropped that way. Words are exactly the
//! segments that start with a letter, digit or `_` and hold a letter or digit, so a scan
//! can jump from one to the next. The rules are those of the crate's ASCII path (UAX #29
//! restricted to ASCII): letters, digits and `_` join (WB5, WB8 to WB10, WB13a/b); `.`, `'`
//! and `:` join two letters (WB6, WB7); `.`, `,`, `;` and `'` join two digits (WB11, WB12).
//! A property test checks the words against `unicode_word_indices` on ASCII text.

/// Calls `emit(byte_offset, word)` for each UAX #29 word of `text`, which must be ASCII, in
/// order: the words `unicode_word_indices` gives.
pub(crate) fn for_each_ascii_word<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    for_each_classed_ascii_word(text, |offset, word, _| emit(offset, word));
}

/// [`for_each_ascii_word`], with the [`CLASS`] bits of each word's letters, digits and
/// `_` together (`UPPERCASE` set when one was a capital), which the scan has at hand.
pub(crate) fn for_each_classed_ascii_word<'a>(
    text: &'a str,
    mut emit: impl FnMut(usize, &'a str, u8),
) {
    debug_assert!(text.is_ascii());
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut i = 0;
    while i < len {
        if !joins(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut classes = CLASS[usize::from(bytes[i])];
        i += 1;
        while i < len {
            let b = bytes[i];
            if joins(b) {
                classes |= CLASS[usize::from(b)];
                i += 1;
            } else if i + 1 < len && is_infix(b, bytes[i - 1], bytes[i + 1]) {
                i += 1;
            } else {
                break;
            }
        }
        // A run of underscores alone is a segment, not a word.
        if classes & ALPHANUMERIC != 0 {
            emit(start, &text[start..i], classes);
        }
    }
}

/// [`CLASS`] bit of ASCII letters and digits.
const ALPHANUMERIC: u8 = 1;
/// [`CLASS`] bit of the bytes that join: letters, digits and `_`.
const JOINS: u8 = 2;
/// [`CLASS`] bit of digits.
const DIGIT: u8 = 4;
/// [`CLASS`] bit of letters.
const LETTER: u8 = 8;
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
        if b.is_ascii_digit() {
            class |= ALPHANUMERIC | JOINS | DIGIT;
        }
        if b.is_ascii_alphabetic() {
            class |= ALPHANUMERIC | JOINS | LETTER;
        }
        if b.is_ascii_uppercase() {
            class |= UPPERCASE;
        }
        if b == b'_' {
            class |= JOINS;
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

/// Letters, digits and `_` (ALetter, Numeric, ExtendNumLet): they never break from each
/// other.
#[inline]
fn joins(b: u8) -> bool {
    CLASS[usize::from(b)] & JOINS != 0
}

/// Whether `b`, between `prev` and `next`, joins them into one word.
#[inline]
fn is_infix(b: u8, prev: u8, next: u8) -> bool {
    let both = CLASS[usize::from(prev)] & CLASS[usize::from(next)];
    match b {
        b'.' | b',' | b';' | b'\'' if both & DIGIT != 0 => true,
        b'\'' | b'.' | b':' if both & LETTER != 0 => true,
        _ => false,
    }
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn the_words_of_unicode_segmentation(
            text in prop::collection::vec(
                prop::sample::select(vec![
                    "a", "Z", "q", "1", "9", "0", "_", ".", ",", ";", ":", "'", "\"", " ", "  ",
                    "\r", "\n", "\r\n", "\t", "-", "!", "@", "/", "e.g.", "3.14", "can't",
                    "\x0b", "\x0c", "\x7f", "\x00",
                ]),
                0..40,
            ).prop_map(|v| v.concat())
        ) {
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
