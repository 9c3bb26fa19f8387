//! What a page would cost html5ever, estimated in one linear pass of html5gum's tokenizer
//! before anything is parsed.
//!
//! html5ever is linear on ordinary pages and quadratic on two hostile shapes, which this pass
//! measures:
//!
//! * **Nesting.** For most start tags the tree builder scans the stack of open elements (is
//!   a `<p>` open in button scope?), so a page costs the sum, over its start tags, of the
//!   depth they open at: 100,000 nested `<div>`s (1.1 MB) took 39 s.
//! * **Attributes.** The tokenizer checks each attribute of a tag against the ones before
//!   it, so a tag costs the square of its attribute count: one tag with 200,000 attributes
//!   took 21 s.
//!
//! The depth is followed the way the parser builds the tree, loosely, and so that it never
//! closes more than the parser does: void elements never open; `html`, `head` and `body`
//! are opened once and never closed; an end tag closes the element it names when that is
//! among the few most recently opened, with no scope boundary (`table`, `td`...) above it
//! and, for an element outside HTML's "special" category, no special element above it; a
//! `<p>`, `<li>`, `<td>`... closes an open element of its own name the same way (their end
//! tag may be left out); and formatting elements (`b`, `i`, `font`...) closed by the end
//! tag of an element below them open again at the next text or non-special start tag, at
//! most three of a name, as the parser reconstructs them. End tags cost the depth too (the
//! parser walks the open elements for one it does not match at once). A page that leaves elements unclosed in other ways is counted
//! deeper than it parses: it may be stripped of its tags where the parser would have been
//! fast enough, never the reverse for the two shapes above.

use html5gum::emitters::callback::CallbackEvent;

/// The most tree work a page may cost: the sum over its start tags of the depth they open
/// at. html5ever takes about 8 ns a unit, so this is about a tenth of a second; a page of
/// 50,000 elements nested 40 deep, larger than any real one, costs 2 million.
pub(super) const MAX_TREE_WORK: u64 = 10_000_000;

/// The most attribute work a page may cost: the sum over its tags of `n × (n − 1) / 2`
/// for `n` attributes (about a nanosecond a unit in html5ever). 10,000 tags of 40
/// attributes each cost 7.8 million.
pub(super) const MAX_ATTRIBUTE_WORK: u64 = 10_000_000;

/// An end tag (or a start tag of [`SELF_CLOSING_SIBLINGS`]) closes an element it names
/// among this many most recently opened; further down the stack it is taken as a stray end
/// tag, which the parser mostly ignores too. Above 42: formatting elements opened again
/// (three of each of 14 names) may lie above the element an end tag closes.
const END_TAG_REACH: usize = 48;

/// Which bound a page is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Excess {
    /// Nested too deep for its size ([`MAX_TREE_WORK`]).
    Nesting,
    /// Too many attributes on its tags ([`MAX_ATTRIBUTE_WORK`]).
    Attributes,
}

/// The work html5ever would do on `html`, as this module estimates it.
#[derive(Debug, Default)]
struct Work {
    tree: u64,
    attributes: u64,
    /// Open elements.
    open: Vec<Open>,
    /// Formatting elements (`b`, `i`, `font`...) closed by an end tag of an element below
    /// them: the parser opens them again at the next text or phrasing start tag
    /// ("reconstructs the active formatting elements"), at most three of a name.
    reopen: Vec<Open>,
    /// The start or end tag being read: its name and attributes so far.
    tag: Vec<u8>,
    tag_attributes: u64,
}

/// An open element: its name's hash, and what it stops when the parser looks for another.
#[derive(Clone, Copy, Debug)]
struct Open {
    name: u64,
    /// Of HTML's "special" category: an end tag of another category never closes what is
    /// below it, nor does a start tag that closes a sibling (`div` and `p` aside).
    special: bool,
    /// A scope boundary (`table`, `td`, `html`...): nothing below it is closed.
    boundary: bool,
    /// `div`, `p` or `address`, which a start tag closing a sibling looks past.
    transparent: bool,
    /// Of HTML's formatting elements, which the parser opens again when they are closed
    /// out of order.
    formatting: bool,
}

impl Work {
    fn on(&mut self, event: &CallbackEvent<'_>) {
        match *event {
            CallbackEvent::OpenStartTag { name } => {
                self.tag.clear();
                self.tag.extend_from_slice(name);
                self.tag_attributes = 0;
            }
            CallbackEvent::AttributeName { .. } => self.tag_attributes += 1,
            CallbackEvent::CloseStartTag { .. } => {
                self.close_tag();
                let special = SPECIAL.contains(&self.tag.as_slice());
                if !special {
                    self.reconstruct();
                }
                self.tree = self.tree.saturating_add(self.open.len() as u64);
                let name = self.tag.as_slice();
                if VOID.contains(&name) || ROOTS.contains(&name) {
                    return;
                }
                let open = Open {
                    name: name_hash(name),
                    special,
                    boundary: BOUNDARIES.contains(&name),
                    transparent: TRANSPARENT.contains(&name),
                    formatting: FORMATTING.contains(&name),
                };
                if SELF_CLOSING_SIBLINGS.contains(&name) {
                    self.close(open.name, |open| open.special && !open.transparent);
                }
                self.open.push(open);
            }
            CallbackEvent::EndTag { name } => {
                // Attributes on an end tag are read (and compared) all the same.
                self.close_tag();
                // An end tag the parser does not match at once walks the open elements.
                self.tree = self.tree.saturating_add(self.open.len() as u64);
                if ROOTS.contains(&name) {
                    // The parser keeps them open to the end, whatever their end tags.
                    return;
                }
                let tag = name_hash(name);
                let closed = if SPECIAL.contains(&name) {
                    self.close(tag, |_| false)
                } else {
                    self.close(tag, |open| open.special)
                };
                if !closed {
                    // The end tag of a formatting element waiting to be opened again ends it.
                    if let Some(at) = self.reopen.iter().rposition(|open| open.name == tag) {
                        self.reopen.remove(at);
                    }
                }
            }
            CallbackEvent::String { .. } => self.reconstruct(),
            _ => {}
        }
    }

    /// Closes the element `tag` names, with those opened after it, when it is among the
    /// most recently opened and neither a scope boundary nor an element `stops` lies above
    /// it. Where the parser would close less, this closes less too: the depth is never
    /// underestimated for that.
    /// Formatting elements it closes above the one named wait to be opened again. Returns
    /// whether it closed one.
    fn close(&mut self, tag: u64, stops: impl Fn(&Open) -> bool) -> bool {
        let reach = self.open.len().saturating_sub(END_TAG_REACH);
        for at in (reach..self.open.len()).rev() {
            let open = self.open[at];
            if open.name == tag {
                for above in self.open.drain(at..).skip(1) {
                    let same = self.reopen.iter().filter(|o| o.name == above.name).count();
                    // The parser's "Noah's Ark": at most three of a name wait.
                    if above.formatting && same < 3 {
                        self.reopen.push(above);
                    }
                }
                return true;
            }
            if open.boundary || stops(&open) {
                return false;
            }
        }
        false
    }

    /// Opens again the formatting elements closed out of order (at text, and at start tags
    /// other than special ones, as the parser does).
    fn reconstruct(&mut self) {
        for open in self.reopen.drain(..) {
            self.tree = self.tree.saturating_add(self.open.len() as u64);
            self.open.push(open);
        }
    }

    fn close_tag(&mut self) {
        // Saturating: a page of gigabytes must not wrap the sums around.
        let n = self.tag_attributes;
        let work = n.saturating_mul(n.saturating_sub(1)) / 2;
        self.attributes = self.attributes.saturating_add(work);
        self.tag_attributes = 0;
    }

    fn excess(&self) -> Option<Excess> {
        if self.tree > MAX_TREE_WORK {
            Some(Excess::Nesting)
        } else if self.attributes > MAX_ATTRIBUTE_WORK {
            Some(Excess::Attributes)
        } else {
            None
        }
    }
}

/// The document's root elements: opened once by the parser (later start tags only add
/// their attributes) and never closed, so left out of the depth.
const ROOTS: [&[u8]; 3] = [b"html", b"head", b"body"];

/// Elements that never hold others (HTML's void elements).
const VOID: [&[u8]; 14] = [
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param",
    b"source", b"track", b"wbr",
];

/// HTML's formatting elements: closed out of order, the parser opens them again.
const FORMATTING: [&[u8]; 14] = [
    b"a", b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike",
    b"strong", b"tt", b"u",
];

/// Elements whose start tag closes an open element of the same name (their end tag may be
/// left out).
const SELF_CLOSING_SIBLINGS: [&[u8]; 9] = [
    b"p", b"li", b"dt", b"dd", b"option", b"tr", b"td", b"th", b"rt",
];

/// HTML's "special" elements (the parsing algorithm's category; the void ones left out).
const SPECIAL: [&[u8]; 66] = [
    b"address",
    b"applet",
    b"article",
    b"aside",
    b"basefont",
    b"bgsound",
    b"blockquote",
    b"body",
    b"button",
    b"caption",
    b"center",
    b"colgroup",
    b"dd",
    b"details",
    b"dir",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"frame",
    b"frameset",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hgroup",
    b"html",
    b"iframe",
    b"keygen",
    b"li",
    b"listing",
    b"main",
    b"marquee",
    b"menu",
    b"nav",
    b"noembed",
    b"noframes",
    b"noscript",
    b"object",
    b"ol",
    b"p",
    b"plaintext",
    b"pre",
    b"script",
    b"search",
    b"section",
    b"select",
    b"style",
    b"summary",
    b"table",
    b"tbody",
    b"td",
    b"template",
    b"textarea",
    b"tfoot",
    b"th",
    b"thead",
    b"title",
];

/// Scope boundaries: the parser looks for an element to close no further down than these.
const BOUNDARIES: [&[u8]; 10] = [
    b"applet",
    b"button",
    b"caption",
    b"html",
    b"marquee",
    b"object",
    b"table",
    b"td",
    b"template",
    b"th",
];

/// Special elements that a start tag closing a sibling looks past.
const TRANSPARENT: [&[u8]; 3] = [b"address", b"div", b"p"];

fn name_hash(name: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(name)
}

/// The bound `html` is over, if any: then html5ever would take too long on it.
pub(super) fn excess(html: &str) -> Option<Excess> {
    let mut work = Work::default();
    super::each_token(html, |event| work.on(event));
    work.excess()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_pages_are_within_the_bounds() {
        for path in std::fs::read_dir("tests/data/html").unwrap() {
            let path = path.unwrap().path();
            let html = std::fs::read_to_string(&path).unwrap();
            assert_eq!(excess(&html), None, "{}", path.display());
        }
        // Many unclosed paragraphs and list items are siblings, not a deep tree.
        let sloppy = "<ul>".to_owned() + &"<li><p>item<p>more".repeat(20_000) + "</ul>";
        assert_eq!(excess(&sloppy), None);
        let flat = "<div>x</div>".repeat(200_000);
        assert_eq!(excess(&flat), None);
    }

    #[test]
    fn deep_nesting_is_over_the_tree_bound() {
        let deep = "<div>".repeat(10_000);
        assert_eq!(excess(&deep), Some(Excess::Nesting));
        // Closed again: still the sum of the depths.
        let nests = ("<b>".repeat(3_000) + &"</b>".repeat(3_000)).repeat(5);
        assert_eq!(excess(&nests), Some(Excess::Nesting));
        // Raw text is not tags.
        let script = "<script>".to_owned() + &"<div>".repeat(10_000) + "</script>";
        assert_eq!(excess(&script), None);
    }

    #[test]
    fn whole_pages_repeated_leave_their_unclosed_elements_open() {
        // A page that leaves a `<div>` open, repeated (a fuzzing find): `</body>` and
        // `</html>` close nothing, and later `<body>` tags open nothing.
        let page = "<!DOCTYPE html><html><head><title>t</title></head><body>\
                    <div class=banner><p>text</p></body></html>";
        assert_eq!(excess(page), None);
        assert_eq!(excess(&page.repeat(5_000)), Some(Excess::Nesting));
        let closed = page.replace("</body>", "</div></body>");
        assert_eq!(excess(&closed.repeat(5_000)), None);
    }

    #[test]
    fn formatting_elements_closed_out_of_order_are_opened_again() {
        // A fuzzing find: `</b>` closes the `<i>` opened inside it, which the parser opens
        // again at the next text, and the stray `</i?>` closes nothing: one `<i>` more a
        // copy, and every end tag walks them all.
        let misnested = "#d<b><i>x</b>\u{97}\n</i\u{97}?>L";
        assert_eq!(excess(misnested), None);
        assert_eq!(excess(&misnested.repeat(12_000)), Some(Excess::Nesting));
        // Closed in order, or left open inside paragraphs (old pages' `<font>`s, which the
        // parser reopens at most three of), they stay shallow.
        let nested = "<b><i>x</i></b>".repeat(50_000);
        assert_eq!(excess(&nested), None);
        let sloppy = "<p><font>text <b>bold</p>".repeat(50_000);
        assert_eq!(excess(&sloppy), None);
        let crossed = "<b><i>x</b></i>".repeat(50_000);
        assert_eq!(excess(&crossed), None);
    }

    #[test]
    fn a_tag_with_thousands_of_attributes_is_over_the_attribute_bound() {
        let attributes: String = (0..5_000).map(|i| format!(" a{i}=1")).collect();
        let page = format!("<p{attributes}>text</p>");
        assert_eq!(excess(&page), Some(Excess::Attributes));
        // Repeated names cost the same: each is compared with those before it.
        let page = format!("<p{}>text</p>", " a=1".repeat(5_000));
        assert_eq!(excess(&page), Some(Excess::Attributes));
        // On an end tag too.
        let page = format!("<p>text</p{}>", " a=1".repeat(5_000));
        assert_eq!(excess(&page), Some(Excess::Attributes));
        let page = format!("<p{}>text</p>", " a=1".repeat(40));
        assert_eq!(excess(&page), None);
    }
}
