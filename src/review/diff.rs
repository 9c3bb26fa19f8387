//! [`WordDiff`]: what differs between two texts, word by word outside Han text and character
//! by character inside it (Chinese has no spaces between words: a changed character is the
//! unit a reader sees). The diff itself is `similar`'s (Myers' algorithm, Myers 1986) over
//! those tokens.

use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{Algorithm, DiffTag};
use unicode_segmentation::UnicodeSegmentation;

use crate::text::is_han;

/// The characters of each text a diff looks at: longer texts are cut there (on a character
/// boundary) and the diff says so in [`WordDiff::truncated`]. It bounds the size of a
/// decision in a review page and the time of its diff.
pub const MAX_DIFF_CHARS: usize = 2_000;

/// The longest a diff may take before `similar` settles for a coarser answer (still a
/// correct diff, with larger changed stretches).
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

// Not `#[non_exhaustive]`: a stretch of a two-text diff is in both texts or in one of them,
// a closed set.
/// Whether a stretch of text is in both texts or in one only.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// In both texts.
    Same,
    /// In the kept text only.
    Removed,
    /// In the other text only.
    Added,
}

/// A stretch of one text: consecutive tokens with the same [`Change`].
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// In both texts, or in this one only.
    pub change: Change,
    /// The text of the stretch, as it is (spaces and punctuation included).
    pub text: String,
}

/// Two texts with what differs marked: the kept text as stretches [`Same`](Change::Same) or
/// [`Removed`](Change::Removed), the other as stretches `Same` or [`Added`](Change::Added).
/// Joining a side's stretches gives its text back (cut at [`MAX_DIFF_CHARS`]).
///
/// Available with the `review` feature (on by default).
///
/// ```
/// use tantivy_dedup::review::{Change, WordDiff};
///
/// let diff = WordDiff::of("the cat sat on the mat", "the dog sat on the mat");
/// let removed: Vec<&str> = diff.kept.iter()
///     .filter(|span| span.change == Change::Removed)
///     .map(|span| span.text.as_str())
///     .collect();
/// assert_eq!(removed, ["cat"]);
/// // Han text is compared character by character.
/// let diff = WordDiff::of("我爱北京", "我爱上海");
/// assert_eq!(diff.other[1].text, "上海");
/// assert_eq!(diff.other[1].change, Change::Added);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WordDiff {
    /// The kept text's stretches.
    pub kept: Vec<Span>,
    /// The other text's stretches.
    pub other: Vec<Span>,
    /// Whether a text was longer than [`MAX_DIFF_CHARS`] and was cut there.
    pub truncated: bool,
}

impl WordDiff {
    /// The diff of `kept` and `other`, each cut at [`MAX_DIFF_CHARS`] characters.
    pub fn of(kept: &str, other: &str) -> WordDiff {
        let (kept, kept_cut) = cut(kept, MAX_DIFF_CHARS);
        let (other, other_cut) = cut(other, MAX_DIFF_CHARS);
        let (old, new) = (tokens(kept), tokens(other));
        let ops = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old,
            &new,
            Some(Instant::now() + DIFF_DEADLINE),
        );
        let mut diff = WordDiff {
            truncated: kept_cut || other_cut,
            ..WordDiff::default()
        };
        for op in ops {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let (on_kept, on_other) = match tag {
                DiffTag::Equal => (Change::Same, Change::Same),
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                    (Change::Removed, Change::Added)
                }
            };
            push(&mut diff.kept, on_kept, &old[old_range]);
            push(&mut diff.other, on_other, &new[new_range]);
        }
        diff
    }

    /// One text alone, unmarked (its other is unknown), cut at [`MAX_DIFF_CHARS`].
    pub fn alone(text: &str) -> WordDiff {
        let (text, truncated) = cut(text, MAX_DIFF_CHARS);
        let mut kept = Vec::new();
        push(&mut kept, Change::Same, &[text]);
        WordDiff {
            kept,
            other: Vec::new(),
            truncated,
        }
    }

    /// The texts of the stretches of one side that are not [`Same`](Change::Same), in
    /// order: the changed words.
    pub fn changed(spans: &[Span]) -> Vec<&str> {
        (spans.iter())
            .filter(|span| span.change != Change::Same)
            .map(|span| span.text.as_str())
            .collect()
    }
}

/// `tokens` appended to `spans` as `change`, merged into the last span when it has the same
/// change.
fn push(spans: &mut Vec<Span>, change: Change, tokens: &[&str]) {
    if tokens.is_empty() {
        return;
    }
    match spans.last_mut() {
        Some(last) if last.change == change => tokens.iter().for_each(|t| last.text.push_str(t)),
        _ => spans.push(Span {
            change,
            text: tokens.concat(),
        }),
    }
}

/// The first `max` characters of `text`, and whether it was longer.
pub(crate) fn cut(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// The tokens a diff compares, which joined give `text` back: Unicode word boundaries
/// (UAX #29: words, and each run of spaces or punctuation between them), each Han
/// character a token of its own.
pub(crate) fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for piece in text.split_word_bounds() {
        if piece.chars().any(is_han) {
            let mut start = 0;
            for (at, c) in piece.char_indices() {
                let end = at + c.len_utf8();
                if is_han(c) {
                    if start < at {
                        out.push(&piece[start..at]);
                    }
                    out.push(&piece[at..end]);
                    start = end;
                }
            }
            if start < piece.len() {
                out.push(&piece[start..]);
            }
        } else {
            out.push(piece);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(spans: &[Span]) -> String {
        spans.iter().map(|span| span.text.as_str()).collect()
    }

    #[test]
    fn a_replaced_word_is_marked_on_both_sides_and_nothing_else() {
        let kept = "The river rose during the night, and by morning the fields were under water.";
        let other = "The river rose during the storm, and by morning the fields were under water.";
        let diff = WordDiff::of(kept, other);
        assert_eq!(WordDiff::changed(&diff.kept), ["night"]);
        assert_eq!(WordDiff::changed(&diff.other), ["storm"]);
        assert_eq!(joined(&diff.kept), kept);
        assert_eq!(joined(&diff.other), other);
        assert!(!diff.truncated);
    }

    #[test]
    fn inserted_and_deleted_words_are_marked_on_their_side() {
        let diff = WordDiff::of("a b c d", "a c d e");
        assert_eq!(WordDiff::changed(&diff.kept), ["b "]);
        assert_eq!(WordDiff::changed(&diff.other), [" e"]);
    }

    #[test]
    fn han_text_differs_character_by_character() {
        // One character changed inside a jieba word (北京 → 南京).
        let diff = WordDiff::of(
            "我爱北京天安门，天安门上太阳升。",
            "我爱南京天安门，天安门上太阳升。",
        );
        assert_eq!(WordDiff::changed(&diff.kept), ["北"]);
        assert_eq!(WordDiff::changed(&diff.other), ["南"]);
        // Latin words inside Han text stay words.
        assert_eq!(tokens("用tantivy搜索"), ["用", "tantivy", "搜", "索"]);
    }

    #[test]
    fn tokens_join_back_to_the_text() {
        for text in [
            "",
            "  a,  b!\n",
            "中文 and English 混合。",
            "e\u{301}t\u{e9}",
            "\u{202e}x",
        ] {
            assert_eq!(tokens(text).concat(), text);
        }
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let long = "字".repeat(MAX_DIFF_CHARS + 10);
        let diff = WordDiff::of(&long, "字");
        assert!(diff.truncated);
        assert_eq!(joined(&diff.kept).chars().count(), MAX_DIFF_CHARS);
        let alone = WordDiff::alone(&long);
        assert!(alone.truncated && alone.other.is_empty());
        assert_eq!(WordDiff::alone("abc").kept[0].text, "abc");
    }
}
