//! Main-content extraction from HTML pages: the article without its menus, sidebars, footers
//! and ads ("boilerplate removal"), as Firefox's Reader View does it.
//!
//! Available with the `html` feature (on by default).
//!
//! The article is found by [dom_smoothie], a Rust port of Mozilla's readability.js (the
//! algorithm behind Reader View): paragraphs are scored by their text and punctuation, the
//! scores flow to their ancestors, and the best-scoring subtree minus link-heavy and
//! unlikely-looking parts is the article.
//!
//! Readability always finds *some* best block, and on a page of links (a table of
//! contents, an index) that block is often the footer, the same on every page of a site: all
//! such pages would become duplicates of each other. So the article is kept only when
//! readability's own "probably readable" check passes (as Firefox offers Reader View only
//! then) or when it holds at least half of the page's text; otherwise, and for pages with no
//! article at all (a short notice), the text is the whole `<body>` without scripts, styles,
//! forms and the elements marked as navigation, header, footer or aside.
//!
//! Crawled copies of one article differ mostly in their boilerplate, so fingerprinting the
//! whole page hides the duplicate; `docs/BENCHMARKS.md` ("HTML extraction") measures how
//! much extraction brings and why dom_smoothie was chosen.
//!
//! ```
//! let html = r#"<html><head><title>Tea harvest</title></head><body>
//!   <nav><a href="/">Home</a> <a href="/news">News</a></nav>
//!   <article><h1>Tea harvest</h1>
//!     <p>The spring tea harvest in the hills started two weeks early this year, after a warm
//!        and dry March. Pickers began on the lower terraces first.</p>
//!     <p>Growers expect a smaller but stronger crop, and prices at the first auction were
//!        higher than last year's by about a fifth, dealers said on Monday.</p>
//!   </article>
//!   <footer>© Example News. All rights reserved.</footer>
//! </body></html>"#;
//! let page = tantivy_dedup::html::extract(html)?;
//! assert_eq!(page.title.as_deref(), Some("Tea harvest"));
//! assert!(page.text.contains("spring tea harvest"));
//! assert!(!page.text.contains("All rights reserved"));
//! # Ok::<(), tantivy_dedup::Error>(())
//! ```
//!
//! [dom_smoothie]: https://docs.rs/dom_smoothie

mod survey;
mod tag_strip;

use std::any::Any;
use std::panic;

use dom_query::Document;
use dom_smoothie::{Config, Readability, TextMode};
use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Span, Tokenizer};

use crate::error::{Error, Result};

/// Elements above this count skip the readability pass (whose scoring is slower than linear
/// in the worst case) and go straight to the full-text fallback. Real pages have a few
/// thousand; 50,000 is a generated or hostile page.
const MAX_ELEMENTS: usize = 50_000;

/// Pages nested deeper than this skip the readability pass, which recurses over the tree
/// (10,000 nested `<div>`s overflow a 2 MiB thread stack). Blink, Chrome's HTML parser,
/// stops nesting at 512 too.
const MAX_DEPTH: usize = 512;

/// The text of a page, from [`extract`].
///
/// Available with the `html` feature (on by default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtractedPage {
    /// The article's title (readability's cleaned-up `<title>`, `og:title` or `<h1>`), if the
    /// page has one.
    pub title: Option<String>,
    /// The main text: paragraphs separated by blank lines, whitespace inside them collapsed.
    /// Empty for a page with no text.
    pub text: String,
    /// How [`text`](Self::text) was found.
    pub method: ExtractionMethod,
}

/// How the text of an [`ExtractedPage`] was found.
///
/// Available with the `html` feature (on by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExtractionMethod {
    /// The readability pass found an article: boilerplate is removed.
    Article,
    /// No article was found, or only one that looks like boilerplate, or the page has more
    /// than 50,000 elements or is nested more than 512 deep: the text of the whole body without scripts, styles, forms and
    /// the elements marked (by tag or ARIA role) as navigation, header, footer or aside.
    /// Other boilerplate stays.
    FullText,
    /// The page would cost the HTML parser more than its bounds allow: nested too deep for
    /// its size, or tags with thousands of attributes (the bounds are in
    /// `docs/RELIABILITY.md`). Its text is read without building a tree: the tags stripped,
    /// the contents of scripts, styles and templates left out, block elements separating
    /// paragraphs; navigation, headers and footers stay.
    TagsStripped,
}

impl ExtractedPage {
    /// The text to fingerprint: the title, a blank line, then the text. The title is left out
    /// when there is none or when the text already starts with it (the article's own `<h1>`).
    #[must_use]
    pub fn to_text(&self) -> String {
        match self.title.as_deref() {
            Some(title) if !self.text.starts_with(title) => {
                let mut text = String::with_capacity(title.len() + 2 + self.text.len());
                text.push_str(title);
                if !self.text.is_empty() {
                    text.push_str("\n\n");
                    text.push_str(&self.text);
                }
                text
            }
            _ => self.text.clone(),
        }
    }
}

/// The main text and title of an HTML page.
///
/// Available with the `html` feature (on by default).
///
/// HTML5 parsing repairs broken tags the way browsers do, a page without an article (see
/// the [module docs](self)) falls back to its full text ([`ExtractionMethod::FullText`]),
/// and a page without any text gives an empty [`text`](ExtractedPage::text). The input is
/// already decoded: a page's `<meta charset>` is not looked at.
///
/// The work is linear in the page: one pass of a tokenizer first estimates what the parser
/// would spend, and a page over its bounds (thousands of nested elements, thousands of
/// attributes on a tag, on which the parser is quadratic) is read by the tokenizer alone
/// ([`ExtractionMethod::TagsStripped`]).
///
/// # Errors
/// [`Error::HtmlExtraction`] only if the HTML parser itself fails (panics) on the page, in
/// both the readability pass and the full-text fallback. No such page is known; the panic
/// is caught so that one page cannot abort a batch.
pub fn extract(html: &str) -> Result<ExtractedPage> {
    // html5ever is quadratic in the nesting depth and in a tag's attributes: such a page is
    // read by the tokenizer alone.
    if survey::excess(html).is_some() {
        return Ok(tag_strip::stripped(html));
    }
    // Nothing outlives a panic: the parsed document is dropped with the closure.
    let article = match panic::catch_unwind(|| readability_pass(html)) {
        Ok(Pass::Article(article)) if article.readable => return Ok(article.page),
        Ok(Pass::Article(article)) => Some(article),
        Ok(Pass::TooDeep(page)) => return Ok(page),
        Ok(Pass::NoArticle) | Err(_) => None,
    };
    let full = panic::catch_unwind(|| full_text(Document::from(html))).map_err(|payload| {
        Error::HtmlExtraction {
            reason: panic_message(payload.as_ref()),
        }
    })?;
    match article {
        Some(Article { page, .. }) if page.text.len() * MIN_ARTICLE_SHARE >= full.text.len() => {
            Ok(page)
        }
        _ => Ok(full),
    }
}

/// An article that fails readability's "probably readable" check is kept only when it holds
/// at least `1 / MIN_ARTICLE_SHARE` of the full text (in bytes). On the pages of
/// `examples/html_extraction.rs`, a third is not enough: the Sphinx footer that readability
/// picks on short table-of-contents pages passes it. A half also sends some DocBook pages
/// (whose `<div>` paragraphs fail the check) to the full text: `docs/BENCHMARKS.md`.
const MIN_ARTICLE_SHARE: usize = 2;

/// What the readability pass found.
struct Article {
    page: ExtractedPage,
    /// Readability's own "probably readable" check (Firefox offers Reader View only then):
    /// paragraphs of 140 characters or more, enough of them. Pages whose paragraphs are not
    /// `<p>` elements fail it though they have an article.
    readable: bool,
}

/// What the readability pass gives.
enum Pass {
    /// An article, maybe boilerplate (see [`Article::readable`]).
    Article(Article),
    /// No article, or more than [`MAX_ELEMENTS`] elements.
    NoArticle,
    /// Nested deeper than [`MAX_DEPTH`]: the full text, from the same parse (parsing deep
    /// trees is slow).
    TooDeep(ExtractedPage),
}

/// The readability pass.
fn readability_pass(html: &str) -> Pass {
    let config = Config {
        text_mode: TextMode::Formatted,
        max_elements_to_parse: MAX_ELEMENTS,
        ..Config::default()
    };
    let document = Document::from(html);
    if deeper_than(&document, MAX_DEPTH) {
        return Pass::TooDeep(full_text(document));
    }
    // `with_document` fails only for a relative document URL, and none is given; `parse`
    // fails with GrabFailed (no article) or TooManyElements.
    let Ok(mut readability) = Readability::with_document(document, None, Some(config)) else {
        return Pass::NoArticle;
    };
    // A page of links (a table of contents, an index) still gives a best-scoring block,
    // often the footer, the same on every page of a site: `extract` checks this flag.
    let readable = readability.is_probably_readable();
    let Ok(article) = readability.parse() else {
        return Pass::NoArticle;
    };
    let text = article.text_content.trim();
    if text.is_empty() {
        return Pass::NoArticle;
    }
    Pass::Article(Article {
        page: ExtractedPage {
            title: non_empty(&article.title),
            text: text.to_owned(),
            method: ExtractionMethod::Article,
        },
        readable,
    })
}

/// What the full-text fallback leaves out: code, and the elements HTML and ARIA mark as
/// navigation, banners, footers and asides.
const NOT_TEXT: &str = "script, style, noscript, template, nav, header, footer, aside, form, \
    [role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search]";

/// The fallback: the body's text without [`NOT_TEXT`], and the `<title>`.
fn full_text(document: Document) -> ExtractedPage {
    document.select(NOT_TEXT).remove();
    let title = non_empty(&document.select("head title").text());
    let text = document.select("body").formatted_text();
    ExtractedPage {
        title,
        text: text.trim().to_owned(),
        method: ExtractionMethod::FullText,
    }
}

/// True if some node of `document` is more than `limit` levels below the root. Iterative:
/// the point is not to overflow the stack on deep trees.
fn deeper_than(document: &Document, limit: usize) -> bool {
    let mut stack = vec![(document.root(), 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        let mut child = node.first_child();
        while let Some(next) = child {
            child = next.next_sibling();
            stack.push((next, depth + 1));
        }
    }
    false
}

/// Feeds `on` the events of html5gum's tokenizer on `html`, in one linear pass. The
/// contents of `<script>`, `<style>`... are text, not tags, as in a browser.
fn each_token(html: &str, mut on: impl FnMut(&CallbackEvent<'_>)) {
    let mut emitter = CallbackEmitter::new(|event: CallbackEvent<'_>, _: Span<()>| {
        on(&event);
        None::<()>
    });
    emitter.naively_switch_states(true);
    for token in Tokenizer::new_with_emitter(html, emitter) {
        // Reading a `&str` cannot fail; the callback yields nothing.
        let Ok(()) = token;
    }
}

/// The message of a caught panic, for [`Error::HtmlExtraction`].
fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic without a message".to_owned())
}

/// `text` with its whitespace collapsed, or `None` when nothing is left.
fn non_empty(text: &str) -> Option<String> {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = "<p>The spring tea harvest in the hills started two weeks early this \
        year, after a warm and dry March. Pickers began on the lower terraces, where the bushes \
        had put out new leaves first, and moved uphill as the weather allowed.</p>\
        <p>Growers expect a smaller but stronger crop. Prices at the first auction were higher \
        than last year's by about a fifth, dealers said on Monday, and buyers from the coast \
        came earlier than usual to secure the best lots.</p>";

    fn page(body: &str) -> String {
        format!("<!DOCTYPE html><html><head><title>Tea harvest</title></head><body>{body}</body></html>")
    }

    #[test]
    fn article_drops_navigation_and_footer() {
        let html = page(&format!(
            "<nav><ul><li><a href='/'>Home</a></li><li><a href='/w'>Weather</a></li></ul></nav>\
             <div class='sidebar'><a href='/a'>Most read</a> <a href='/b'>Subscribe</a></div>\
             <article><h1>Tea harvest</h1>{ARTICLE}</article>\
             <footer>Copyright Example News. All rights reserved.</footer>"
        ));
        let got = extract(&html).unwrap();
        assert_eq!(got.method, ExtractionMethod::Article);
        assert_eq!(got.title.as_deref(), Some("Tea harvest"));
        assert!(got.text.contains("Pickers began on the lower terraces"));
        for boilerplate in ["Weather", "Most read", "All rights reserved"] {
            assert!(
                !got.text.contains(boilerplate),
                "{boilerplate:?} in {:?}",
                got.text
            );
        }
    }

    #[test]
    fn paragraphs_are_separated_so_words_do_not_run_together() {
        let got = extract(&page(&format!("<article>{ARTICLE}</article>"))).unwrap();
        assert!(!got.text.contains("uphill as the weather allowed.Growers"));
    }

    #[test]
    fn short_pages_fall_back_to_the_full_text() {
        let got = extract(&page("<p>Closed on Monday.</p>")).unwrap();
        assert_eq!(got.text, "Closed on Monday.");
        assert_eq!(got.title.as_deref(), Some("Tea harvest"));
    }

    #[test]
    fn empty_and_textless_pages_give_empty_text() {
        for html in [
            "",
            "   ",
            "<html></html>",
            "<html><head><title></title></head></html>",
            "<script>var x = '<p>not text</p>';</script><style>p { color: red }</style>",
            "<body><noscript>Enable JavaScript</noscript><template><p>later</p></template></body>",
        ] {
            let got = extract(html).unwrap();
            assert_eq!(got.text, "", "{html:?}");
            assert_eq!(got.title, None, "{html:?}");
        }
    }

    #[test]
    fn pages_without_body_or_html_tags_still_have_text() {
        let got = extract("<title>T</title><p>Just a paragraph.</p>").unwrap();
        assert_eq!(got.text, "Just a paragraph.");
        assert_eq!(got.title.as_deref(), Some("T"));
        assert_eq!(
            extract("plain words, no tags").unwrap().text,
            "plain words, no tags"
        );
    }

    #[test]
    fn broken_markup_is_repaired_not_rejected() {
        for html in [
            "<p>unclosed <b>bold <i>italic</p> after",
            "</div></div></body></html><p>stray closers</p>",
            "<div><p>attr <a href=\"x>broken attribute</a></p>",
            "<<<>>> <p <p> </ >",
            "<table><tr><td>cell<p>para in cell</table> tail",
            "<!-- unterminated comment <p>hidden",
            "<svg><foreignObject><p>inside svg</p></svg><math><mi>x</math>",
        ] {
            assert!(extract(html).is_ok(), "{html:?}");
        }
        assert!(extract("<p>unclosed <b>bold <i>italic</p> after")
            .unwrap()
            .text
            .contains("bold italic"));
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 10_000;
        for tag in ["div", "span", "b"] {
            // Deeper than MAX_DEPTH: the full text, not the readability pass.
            let html = format!(
                "{}<p>deep text</p>{}",
                format!("<{tag}>").repeat(depth),
                format!("</{tag}>").repeat(depth)
            );
            assert!(
                extract(&html).unwrap().text.contains("deep text"),
                "<{tag}>"
            );
        }
        // Unclosed: the parser closes them all at the end. (Parsing nested `<div>`s is
        // quadratic in html5ever, 4 s here unoptimized: the test nests `<span>`s.)
        let html = format!("{}text", "<span>".repeat(depth));
        assert_eq!(extract(&html).unwrap().text, "text");
    }

    #[test]
    fn nesting_up_to_the_limit_still_gets_the_readability_pass() {
        let depth = MAX_DEPTH - 10;
        let html = format!(
            "{}<article>{ARTICLE}</article>{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        assert_eq!(extract(&html).unwrap().method, ExtractionMethod::Article);
    }

    #[test]
    fn huge_pages_skip_readability_and_keep_their_text() {
        let html = page(&"<span>w</span>".repeat(MAX_ELEMENTS + 1));
        let got = extract(&html).unwrap();
        assert_eq!(got.method, ExtractionMethod::FullText);
        assert_eq!(got.text.len(), MAX_ELEMENTS + 1);
    }

    #[test]
    fn to_text_puts_the_title_first_once() {
        let mut page = ExtractedPage {
            title: Some("Title".into()),
            text: "Body.".into(),
            method: ExtractionMethod::Article,
        };
        assert_eq!(page.to_text(), "Title\n\nBody.");
        page.text = "Title\n\nBody.".into();
        assert_eq!(page.to_text(), "Title\n\nBody.");
        page.text.clear();
        assert_eq!(page.to_text(), "Title");
        page.title = None;
        assert_eq!(page.to_text(), "");
    }
}
