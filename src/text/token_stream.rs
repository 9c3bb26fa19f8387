//! The tantivy [`TokenStream`] of a [`MixedTokenizer`]: the text segmented a piece at a
//! time, so that what a stream holds is bounded by a piece, not by the document.
//!
//! Segmentation is internal iteration ([`MixedTokenizer::for_each_token`] calls back for
//! every token, through jieba and UAX #29), so a stream fills a buffer of tokens from a
//! piece of the text and refills it when it runs out. Collecting a whole document first
//! held a `Token` and a `String` a word: 2.3 million words (a 15 MiB page) made a buffer
//! of about 235 MB in each indexing thread, kept by the tokenizer afterwards.
//!
//! Pieces end only where segmenting the text whole would start afresh too: after a line
//! break (UAX #29 breaks after one and lets nothing attach to what follows), or after
//! ASCII whitespace followed by an ASCII character (no word holds whitespace, and an ASCII
//! character is no combining mark that would attach to it). A Han run never holds either,
//! so jieba sees the same runs. A stretch without such a place is one piece, however long.

use tantivy::tokenizer::{Token, TokenStream};

use super::tokenizer::MixedTokenizer;

/// Bytes of text a stream segments at a time, at least (a piece ends at the first place
/// after this where it may): most documents are one piece.
pub(super) const PIECE_BYTES: usize = 64 << 10;

/// The [`TokenStream`] of a [`MixedTokenizer`] (see the module's documentation).
#[derive(Debug)]
pub struct MixedTokenStream<'a> {
    tokenizer: &'a mut MixedTokenizer,
    text: &'a str,
    /// Where the next piece starts.
    next_piece: usize,
    /// The smallest piece's size ([`PIECE_BYTES`], smaller in tests).
    piece_bytes: usize,
    /// The tokens of the current piece: `tokenizer`'s buffer, its first `filled` slots.
    filled: usize,
    /// The current token's slot, `None` before the first `advance`.
    index: Option<usize>,
    /// The position the current piece's first token takes.
    position: usize,
}

impl<'a> MixedTokenStream<'a> {
    /// A stream over `text`, segmented in pieces of at least `piece_bytes`.
    pub(super) fn new(
        tokenizer: &'a mut MixedTokenizer,
        text: &'a str,
        piece_bytes: usize,
    ) -> Self {
        MixedTokenStream {
            tokenizer,
            text,
            next_piece: 0,
            piece_bytes: piece_bytes.max(1),
            filled: 0,
            index: None,
            position: 0,
        }
    }

    /// Segments the next piece of text that gives tokens into the buffer; false at the end.
    fn refill(&mut self) -> bool {
        self.position += self.filled;
        self.filled = 0;
        while self.filled == 0 && self.next_piece < self.text.len() {
            let start = self.next_piece;
            let end = piece_end(self.text, start, self.piece_bytes);
            self.next_piece = end;
            let mut tokens = std::mem::take(self.tokenizer.token_buffer());
            let mut filled = 0;
            self.tokenizer
                .for_each_token(&self.text[start..end], |word, range| {
                    // A slot's string is reused: one allocation a slot, not a token.
                    if filled == tokens.len() {
                        tokens.push(Token::default());
                    }
                    let token = &mut tokens[filled];
                    token.offset_from = start + range.start;
                    token.offset_to = start + range.end;
                    token.position = self.position + filled;
                    token.position_length = 1;
                    token.text.clear();
                    token.text.push_str(word);
                    filled += 1;
                });
            *self.tokenizer.token_buffer() = tokens;
            self.filled = filled;
        }
        self.index = Some(0);
        self.filled > 0
    }
}

/// Where the piece of `text` starting at `start` ends: the first place at or after
/// `start + piece_bytes` where segmenting may start afresh (see the module's
/// documentation), else the text's end.
fn piece_end(text: &str, start: usize, piece_bytes: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = start.saturating_add(piece_bytes);
    while at < bytes.len() {
        let (before, here) = (bytes[at - 1], bytes[at]);
        if before == b'\n' || (before.is_ascii_whitespace() && here.is_ascii()) {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

impl TokenStream for MixedTokenStream<'_> {
    fn advance(&mut self) -> bool {
        match self.index {
            Some(i) if i + 1 < self.filled => {
                self.index = Some(i + 1);
                true
            }
            Some(_) | None => self.refill(),
        }
    }

    fn token(&self) -> &Token {
        let index = self.index.expect("advance() is called before token()");
        &self.tokenizer.token_slice()[index]
    }

    fn token_mut(&mut self) -> &mut Token {
        let index = self.index.expect("advance() is called before token_mut()");
        &mut self.tokenizer.token_buffer()[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tantivy::tokenizer::Tokenizer;

    /// Every token of `text` as a stream in pieces of `piece_bytes` gives them.
    fn streamed(tokenizer: &mut MixedTokenizer, text: &str, piece_bytes: usize) -> Vec<Token> {
        let mut stream = MixedTokenStream::new(tokenizer, text, piece_bytes);
        let mut tokens = Vec::new();
        while stream.advance() {
            tokens.push(stream.token().clone());
        }
        tokens
    }

    /// Every token of `text` segmented whole, with positions in order.
    fn whole(tokenizer: &MixedTokenizer, text: &str) -> Vec<Token> {
        let mut tokens = Vec::new();
        tokenizer.for_each_token(text, |word, range| {
            tokens.push(Token {
                offset_from: range.start,
                offset_to: range.end,
                position: tokens.len(),
                text: word.to_owned(),
                position_length: 1,
            });
        });
        tokens
    }

    /// Pieces of mixed scripts, separators and marks that attach to what precedes them.
    fn fragment() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "hello",
            "World",
            "中文",
            "分词测试",
            "漢字",
            "臺灣",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\t",
            "\u{301}",
            "\u{200d}",
            "👍",
            "3.14",
            "e-mail",
            "o'clock",
            "。",
            "，",
            "-",
            "Ünïcödé",
            "АБВ",
            "the",
            "a",
            "x",
        ])
    }

    proptest! {
        /// A stream gives the tokens, offsets and positions of the text segmented whole,
        /// whatever the pieces' size.
        #[test]
        fn pieces_give_the_tokens_of_the_whole_text(
            fragments in prop::collection::vec(fragment(), 0..80),
            piece_bytes in 1usize..40,
        ) {
            let text: String = fragments.concat();
            let mut tokenizer = MixedTokenizer::new();
            let expected = whole(&tokenizer, &text);
            prop_assert_eq!(streamed(&mut tokenizer, &text, piece_bytes), expected.clone());
            let mut stream = tokenizer.token_stream(&text);
            let mut tokens = Vec::new();
            while stream.advance() {
                tokens.push(stream.token().clone());
            }
            prop_assert_eq!(tokens, expected);
        }
    }

    #[test]
    fn a_long_text_is_held_a_piece_at_a_time() {
        let text = "word ".repeat(1_000_000);
        let mut tokenizer = MixedTokenizer::new();
        let tokens = streamed(&mut tokenizer, &text, PIECE_BYTES);
        assert_eq!(tokens.len(), 1_000_000);
        assert_eq!(tokens.last().unwrap().position, 999_999);
        assert_eq!(tokens.last().unwrap().offset_from, text.len() - 5);
        // A piece of 64 KiB holds 13,108 of these words; the buffer holds a piece.
        assert!(tokenizer.token_slice().len() < 14_000);
    }
}
