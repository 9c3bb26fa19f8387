//! The text of a page read by html5gum's tokenizer alone, without building a tree: for the
//! pages whose tree would cost html5ever too much (see `survey`). Linear in the page.
//!
//! What a tree would tell is lost: no article is found, and navigation, headers and footers
//! stay in. The contents of `<script>`, `<style>`, `<noscript>` and `<template>` are left
//! out, block elements separate paragraphs, and the `<title>` is the title.

use html5gum::emitters::callback::CallbackEvent;

use super::{ExtractedPage, ExtractionMethod};

/// Elements whose content is not text.
const NOT_TEXT: [&[u8]; 4] = [b"script", b"style", b"noscript", b"template"];

/// Elements that start and end a paragraph.
const BLOCKS: [&[u8]; 30] = [
    b"address",
    b"article",
    b"aside",
    b"blockquote",
    b"body",
    b"br",
    b"dd",
    b"div",
    b"dl",
    b"dt",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"header",
    b"hr",
    b"li",
    b"main",
    b"nav",
    b"ol",
    b"p",
    b"pre",
    b"section",
    b"table",
];

/// Elements that also separate paragraphs: table rows and cells, list containers.
const ALSO_BLOCKS: [&[u8]; 4] = [b"tr", b"td", b"th", b"ul"];

fn is_block(name: &[u8]) -> bool {
    BLOCKS.contains(&name) || ALSO_BLOCKS.contains(&name)
}

/// The text as it is read, and where the reader is.
#[derive(Default)]
struct Reader {
    /// Paragraphs so far, whitespace collapsed.
    paragraphs: Vec<String>,
    paragraph: String,
    title: Option<String>,
    /// Inside `<title>`.
    in_title: bool,
    /// Inside an element of [`NOT_TEXT`]: its name, until its end tag.
    skipping: Option<Vec<u8>>,
}

impl Reader {
    fn on(&mut self, event: &CallbackEvent<'_>) {
        match *event {
            // Inside a script, style...: only its own end tag counts.
            CallbackEvent::EndTag { name } if self.skipping.as_deref() == Some(name) => {
                self.skipping = None;
            }
            _ if self.skipping.is_some() => {}
            CallbackEvent::OpenStartTag { name } => {
                if NOT_TEXT.contains(&name) {
                    self.skipping = Some(name.to_vec());
                } else if name == b"title" {
                    self.in_title = true;
                } else if is_block(name) {
                    self.end_paragraph();
                }
            }
            CallbackEvent::EndTag { name } => {
                if name == b"title" {
                    self.in_title = false;
                } else if is_block(name) {
                    self.end_paragraph();
                }
            }
            CallbackEvent::String { value } => {
                let text = String::from_utf8_lossy(value);
                if self.in_title {
                    let title = self.title.get_or_insert_with(String::new);
                    push_collapsed(title, &text);
                } else {
                    push_collapsed(&mut self.paragraph, &text);
                }
            }
            _ => {}
        }
    }

    fn end_paragraph(&mut self) {
        let paragraph = std::mem::take(&mut self.paragraph);
        let paragraph = paragraph.trim();
        if !paragraph.is_empty() {
            self.paragraphs.push(paragraph.to_owned());
        }
    }
}

/// Appends `text` to `out` with every run of whitespace (across calls too) as one space.
fn push_collapsed(out: &mut String, text: &str) {
    let mut space = text.starts_with(char::is_whitespace);
    for word in text.split_whitespace() {
        if space && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(word);
        space = true;
    }
    if text.ends_with(char::is_whitespace) && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// The page's text and title, its tags stripped.
pub(super) fn stripped(html: &str) -> ExtractedPage {
    let mut reader = Reader::default();
    super::each_token(html, |event| reader.on(event));
    reader.end_paragraph();
    ExtractedPage {
        title: reader
            .title
            .map(|title| title.trim().to_owned())
            .filter(|title| !title.is_empty()),
        text: reader.paragraphs.join("\n\n"),
        method: ExtractionMethod::TagsStripped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_by_paragraphs_without_code() {
        let page = stripped(
            "<html><head><title> The  title </title><style>p { color: red }</style></head>\
             <body><div><div>One   paragraph,\n with <b>bold</b> text.</div>\
             <script>let x = '<p>not text</p>';</script><p>Two &amp; more</p>\
             <template><p>hidden</p></template><ul><li>a<li>b</ul></body></html>",
        );
        assert_eq!(page.title.as_deref(), Some("The title"));
        assert_eq!(
            page.text,
            "One paragraph, with bold text.\n\nTwo & more\n\na\n\nb"
        );
        assert_eq!(page.method, ExtractionMethod::TagsStripped);
    }

    #[test]
    fn deep_pages_are_read_in_linear_time() {
        // 200,000 nested elements: html5ever would take minutes.
        let html = "<div>".repeat(200_000) + "deep text";
        let page = stripped(&html);
        assert_eq!(page.text, "deep text");
        assert_eq!(page.title, None);
    }
}
