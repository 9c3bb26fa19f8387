//! The markup of a review page: a self-contained HTML document (inline CSS, one small
//! inline script for the filters and the search box; no request leaves the page, which
//! its Content-Security-Policy enforces) that reads as a plain list of decisions with
//! scripts off. Every text of a document goes through [`escape_html`].

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::hash::BuildHasher;

use super::decision::{Action, Decision};
use super::diff::{cut, Change, Span, MAX_DIFF_CHARS};
use super::escape::escape_html;
use super::reason::{reason_kind, reason_text};

/// The characters of an id a page shows (longer ids are cut there with `…`; the search
/// box finds them by that part).
pub const MAX_ID_CHARS: usize = 200;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("filter.js");

/// What the head and the navigation of a page say.
pub(crate) struct PageHeader<'a> {
    /// This page, from 0.
    pub page: usize,
    /// The number of pages.
    pub pages: usize,
    /// Decisions in the whole review.
    pub total: usize,
    /// What the decisions come from.
    pub source: &'a str,
    /// The rule, in words.
    pub rule: &'a str,
    /// The file name of a page.
    pub name_of: &'a dyn Fn(usize) -> String,
    /// The decisions of this page.
    pub decisions: &'a [Decision],
}

/// A nonce for the page's script: a script a document smuggled in would lack it, so the
/// browser would not run it even if escaping failed.
fn nonce() -> String {
    let random = std::collections::hash_map::RandomState::new();
    format!(
        "{:016x}{:016x}",
        random.hash_one(1u8),
        random.hash_one(std::time::SystemTime::now())
    )
}

/// The document's start, the header, the navigation and the filters.
pub(crate) fn page_start(header: &PageHeader<'_>, out: &mut String) {
    let first = header.page * super::DECISIONS_PER_PAGE + 1;
    let last = first + header.decisions.len().saturating_sub(1);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>Near-duplicate review, page {} of {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<header>\n\
         <h1>Near-duplicate decisions</h1>\n",
        header.page + 1,
        header.pages
    );
    out.push_str("<p>From ");
    escape_html(header.source, false, out);
    out.push_str(". Rule: ");
    escape_html(header.rule, false, out);
    out.push_str(".</p>\n");
    if header.total == 0 {
        out.push_str("<p class=\"empty\">No near-duplicate decisions.</p>\n");
    } else {
        let _ = writeln!(
            out,
            "<p>{} decisions, the least similar first (those most likely wrong): \
             decisions {first}&#8211;{last} on this page {} of {}.</p>",
            header.total,
            header.page + 1,
            header.pages
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"legend\">In each pair, <del>struck words</del> are in the kept text only and \
         <ins>underlined words</ins> in the other only (words; characters in Chinese). Texts \
         are cut at {MAX_DIFF_CHARS} characters. Invisible control characters are shown as \
         <span class=\"ctl\">[U+XXXX]</span>.</p>"
    );
    navigation(header, out);
    filters(header.decisions, out);
    out.push_str("</header>\n<main>\n");
}

/// A page's file name as a relative link: every byte but unreserved ones percent-encoded,
/// so that a name with `#`, `?`, `%` or a space (`--out 'r#1.html'`) links to itself.
fn link_to(name: &str) -> String {
    let mut link = String::with_capacity(name.len());
    for byte in name.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                link.push(byte as char)
            }
            _ => {
                let _ = write!(link, "%{byte:02X}");
            }
        }
    }
    link
}

/// Links to the first, previous, next and last pages.
fn navigation(header: &PageHeader<'_>, out: &mut String) {
    if header.pages < 2 {
        return;
    }
    out.push_str("<nav aria-label=\"pages\">");
    let mut link = |page: usize, label: &str, rel: &str| {
        out.push_str("<a href=\"");
        escape_html(&link_to(&(header.name_of)(page)), true, out);
        let _ = write!(out, "\"{rel}>{label}</a>");
    };
    if header.page > 0 {
        link(0, "&#171; first page", "");
        link(header.page - 1, "&#8249; previous page", " rel=\"prev\"");
    }
    if header.page + 1 < header.pages {
        link(header.page + 1, "next page &#8250;", " rel=\"next\"");
        link(header.pages - 1, "last page &#187;", "");
    }
    out.push_str("</nav>\n");
}

/// The filters: hidden until the script shows them (they do nothing without it).
fn filters(decisions: &[Decision], out: &mut String) {
    let reasons: BTreeSet<&str> = (decisions.iter())
        .map(|d| reason_kind(d.judgement.as_ref().map(|j| &j.reason)))
        .collect();
    let actions: BTreeSet<Action> = decisions.iter().map(|d| d.action).collect();
    out.push_str(
        "<form id=\"filters\" class=\"filters\" role=\"search\" hidden>\n\
         <label>Reason <select id=\"f-reason\"><option value=\"\">any</option>",
    );
    for reason in reasons {
        let _ = write!(
            out,
            "<option value=\"{reason}\">{}</option>",
            reason.replace('_', " ")
        );
    }
    out.push_str(
        "</select></label>\n<label>Policy <select id=\"f-action\"><option value=\"\">any</option>",
    );
    for action in actions {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", action.as_str());
    }
    out.push_str(
        "</select></label>\n<label>Search <input id=\"f-search\" type=\"search\" \
         placeholder=\"an id or words of the texts\" autocomplete=\"off\"></label>\n\
         <output id=\"f-count\"></output>\n</form>\n",
    );
}

/// The end of the main part, the navigation again, the script, and the document's end.
pub(crate) fn page_end(header: &PageHeader<'_>, out: &mut String) {
    out.push_str("</main>\n<footer>\n");
    navigation(header, out);
    let nonce = nonce();
    let _ = write!(
        out,
        "</footer>\n<script nonce=\"{nonce}\">\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    // The policy goes first in the head: written now that the nonce is known.
    let policy = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; img-src data:; \
         form-action 'none'; base-uri 'none'\">\n"
    );
    let at = out
        .find("<meta name=\"viewport\"")
        .expect("the head is written");
    out.insert_str(at, &policy);
}

/// An id as a page shows it: cut at [`MAX_ID_CHARS`], escaped.
fn write_id(id: &str, out: &mut String) {
    let (shown, cut_off) = cut(id, MAX_ID_CHARS);
    out.push_str("<bdi class=\"id\">");
    escape_html(shown, false, out);
    if cut_off {
        out.push('…');
    }
    out.push_str("</bdi>");
}

/// One decision as an `<article>`, at its anchor, with `data-` attributes for the filters
/// (`data-rank`, `data-reason`, `data-action`, `data-similarity`, `data-distance`).
pub(crate) fn write_decision(decision: &Decision, out: &mut String) {
    let reason = decision.judgement.as_ref().map(|j| &j.reason);
    let _ = write!(
        out,
        "<article class=\"decision\" id=\"{}\" data-rank=\"{}\" data-reason=\"{}\" data-action=\"{}\"",
        decision.anchor,
        decision.rank,
        reason_kind(reason),
        decision.action.as_str()
    );
    if let Some(similarity) = decision.similarity {
        let _ = write!(out, " data-similarity=\"{similarity}\"");
    }
    if let Some(distance) = decision.distance {
        let _ = write!(out, " data-distance=\"{distance}\"");
    }
    let _ = write!(
        out,
        ">\n<h2><a href=\"#{}\">#{}</a> <span class=\"action\">{}</span> ",
        decision.anchor,
        decision.rank,
        decision.action.as_str()
    );
    write_id(&decision.other.id, out);
    out.push_str(" near ");
    write_id(&decision.kept.id, out);
    out.push_str("</h2>\n<dl class=\"measures\">");
    let similarity = decision
        .similarity
        .map_or_else(|| "unknown".to_owned(), |s| format!("{s:.3}"));
    let _ = write!(
        out,
        "<div><dt>Similarity</dt><dd class=\"similarity\">{similarity}</dd></div>"
    );
    let distance = decision
        .distance
        .map_or_else(|| "unknown".to_owned(), |d| format!("{d} bits"));
    let _ = write!(
        out,
        "<div><dt>Hamming distance</dt><dd class=\"distance\">{distance}</dd></div>"
    );
    if let Some(judgement) = &decision.judgement {
        if let Some(jaccard) = judgement.jaccard {
            let _ = write!(
                out,
                "<div><dt>Signatures agree</dt><dd class=\"jaccard\">{:.1}%</dd></div>",
                jaccard * 100.0
            );
        }
    }
    out.push_str("<div><dt>Reason</dt><dd class=\"reason\">");
    escape_html(&reason_text(reason), false, out);
    out.push_str("</dd></div></dl>\n<div class=\"pair\">\n");
    write_side(
        "Kept",
        &decision.kept.id,
        decision.kept.text_known,
        &decision.diff.kept,
        out,
    );
    let label = match decision.action {
        Action::Rejected => "Rejected",
        Action::Flagged => "Flagged",
        Action::Replaced => "Replaced",
        Action::Grouped => "Grouped",
    };
    write_side(
        label,
        &decision.other.id,
        decision.other.text_known,
        &decision.diff.other,
        out,
    );
    out.push_str("</div>\n");
    if decision.diff.truncated {
        let _ = writeln!(
            out,
            "<p class=\"note\">A text is longer than {MAX_DIFF_CHARS} characters \
             ({} and {}): the diff shows its first {MAX_DIFF_CHARS}.</p>",
            decision.kept.chars, decision.other.chars
        );
    }
    out.push_str("</article>\n");
}

/// One side of a pair: its heading, then its text with the changed stretches marked, or
/// a note that its text was not kept.
fn write_side(label: &str, id: &str, known: bool, spans: &[Span], out: &mut String) {
    let _ = write!(out, "<section class=\"side\"><h3>{label} ");
    write_id(id, out);
    out.push_str("</h3>");
    if !known {
        out.push_str("<p class=\"gone\">The text of ");
        write_id(id, out);
        out.push_str(
            " was not kept: the index does not hold it (give the ingest's inputs with \
             <code>--input</code> to see it).</p></section>\n",
        );
        return;
    }
    out.push_str("<div class=\"text\" dir=\"auto\">");
    for span in spans {
        let (open, close) = match span.change {
            Change::Same => ("", ""),
            Change::Removed => ("<del>", "</del>"),
            Change::Added => ("<ins>", "</ins>"),
        };
        out.push_str(open);
        escape_html(&span.text, false, out);
        out.push_str(close);
    }
    out.push_str("</div></section>\n");
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_links_are_percent_encoded() {
        assert_eq!(super::link_to("r#1 ?%.html"), "r%231%20%3F%25.html");
        assert_eq!(super::link_to("review-2.html"), "review-2.html");
        assert_eq!(super::link_to("审查.html"), "%E5%AE%A1%E6%9F%A5.html");
    }

    use super::*;
    use crate::review::{Side, WordDiff};

    fn decision(kept: &str, other: &str) -> Decision {
        let side = |id: &str, text: &str| Side {
            id: id.to_owned(),
            text_known: true,
            chars: text.chars().count(),
        };
        Decision {
            rank: 1,
            file: "review.html".into(),
            anchor: crate::review::anchor_of("b"),
            action: Action::Flagged,
            kept: side("<a>", kept),
            other: side("b\u{202e}", other),
            distance: Some(4),
            similarity: Some(0.9),
            judgement: None,
            diff: WordDiff::of(kept, other),
        }
    }

    #[test]
    fn document_text_never_becomes_markup() {
        let hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)> \u{202e}evil";
        let mut html = String::new();
        write_decision(&decision("plain words here", hostile), &mut html);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains('\u{202e}'), "{html}");
        assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)"));
        assert!(html.contains("<bdi class=\"id\">&lt;a&gt;</bdi>"));
    }

    #[test]
    fn changed_words_are_marked() {
        let mut html = String::new();
        write_decision(&decision("the cat sat", "the dog sat"), &mut html);
        assert!(html.contains("the <del>cat</del> sat"), "{html}");
        assert!(html.contains("the <ins>dog</ins> sat"), "{html}");
    }

    #[test]
    fn long_ids_are_cut() {
        let mut html = String::new();
        write_id(&"x".repeat(MAX_ID_CHARS * 3), &mut html);
        assert_eq!(html.matches('x').count(), MAX_ID_CHARS);
        assert!(html.contains('…'));
    }

    #[test]
    fn a_page_has_one_script_with_the_policy_nonce() {
        let decisions = [decision("a b", "a c")];
        let header = PageHeader {
            page: 0,
            pages: 2,
            total: 1001,
            source: "index <x>",
            rule: "k ≤ 3 bits",
            name_of: &|page| format!("p{page}.html"),
            decisions: &decisions,
        };
        let mut html = String::new();
        page_start(&header, &mut html);
        write_decision(&decisions[0], &mut html);
        page_end(&header, &mut html);
        assert_eq!(html.matches("<script").count(), 1);
        let nonce = html
            .split("<script nonce=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(html.contains(&format!("script-src 'nonce-{nonce}'")));
        assert!(html.contains("index &lt;x&gt;"));
        assert!(html.contains("href=\"p1.html\" rel=\"next\""));
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
