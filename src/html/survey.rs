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
//! The depth is followed the way a browser would build the tree, loosely: void elements
//! never open, an end tag closes the element it names when that is among the few most
//! recently opened, and a `<p>`, `<li>`, `<td>`... closes an open element of its own name
//! among those too (as the parser does for these elements, whose end tag may be left out). A page that
//! leaves many elements unclosed in other ways is counted deeper than it parses: it may be
//! stripped of its tags where the parser would have been fast enough, never the reverse
//! for the two shapes above.

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
/// tag, which the parser mostly ignores too.
const END_TAG_REACH: usize = 8;

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
    /// Open elements, as hashes of their names.
    open: Vec<u64>,
    /// The start or end tag being read: its name and attributes so far.
    tag: Vec<u8>,
    tag_attributes: u64,
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
                self.tree += self.open.len() as u64;
                if VOID.contains(&self.tag.as_slice()) {
                    return;
                }
                let tag = name_hash(&self.tag);
                if SELF_CLOSING_SIBLINGS.contains(&self.tag.as_slice()) {
                    self.close(tag);
                }
                self.open.push(tag);
            }
            CallbackEvent::EndTag { name } => {
                // Attributes on an end tag are read (and compared) all the same.
                self.close_tag();
                self.close(name_hash(name));
            }
            _ => {}
        }
    }

    /// Closes the element `tag` names, with those opened after it, when it is among the
    /// most recently opened.
    fn close(&mut self, tag: u64) {
        let reach = self.open.len().saturating_sub(END_TAG_REACH);
        if let Some(at) = self.open[reach..].iter().rposition(|&open| open == tag) {
            self.open.truncate(reach + at);
        }
    }

    fn close_tag(&mut self) {
        let n = self.tag_attributes;
        self.attributes += n * n.saturating_sub(1) / 2;
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

/// Elements that never hold others (HTML's void elements).
const VOID: [&[u8]; 14] = [
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param",
    b"source", b"track", b"wbr",
];

/// Elements whose start tag closes an open element of the same name (their end tag may be
/// left out).
const SELF_CLOSING_SIBLINGS: [&[u8]; 9] = [
    b"p", b"li", b"dt", b"dd", b"option", b"tr", b"td", b"th", b"rt",
];

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
