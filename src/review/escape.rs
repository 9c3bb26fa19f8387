//! Text of documents made safe to put in an HTML page: every character that could open
//! markup or end an attribute written as an entity, and every invisible control character
//! (the bidirectional overrides and isolates of "Trojan Source", Boucher and Anderson 2021,
//! and the C0 and C1 controls) shown as a visible code point instead of acting on the
//! layout.

use std::fmt::Write as _;

/// Appends `text` to `out` escaped for HTML element content and double- or single-quoted
/// attribute values: `&`, `<`, `>`, `"` and `'` as entities; controls and bidirectional
/// formatting characters as `[U+XXXX]` in a `<span class="ctl">` (or, with
/// `in_attribute`, as the bare `[U+XXXX]`). Newlines and tabs are kept.
///
/// Available with the `review` feature (on by default).
///
/// ```
/// let mut out = String::new();
/// tantivy_dedup::review::escape_html("<script>alert(1)</script>", false, &mut out);
/// assert_eq!(out, "&lt;script&gt;alert(1)&lt;/script&gt;");
/// ```
pub fn escape_html(text: &str, in_attribute: bool, out: &mut String) {
    out.reserve(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| needs_escape(c)) {
        out.push_str(&rest[..at]);
        let c = rest[at..]
            .chars()
            .next()
            .expect("a character at a char boundary");
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ if in_attribute => {
                let _ = write!(out, "[U+{:04X}]", c as u32);
            }
            _ => {
                let _ = write!(
                    out,
                    "<span class=\"ctl\" title=\"an invisible control character\">[U+{:04X}]</span>",
                    c as u32
                );
            }
        }
        rest = &rest[at + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// [`escape_html`] into a new string.
///
/// Available with the `review` feature (on by default).
pub fn escaped(text: &str, in_attribute: bool) -> String {
    let mut out = String::new();
    escape_html(text, in_attribute, &mut out);
    out
}

/// Whether `c` is written other than as itself.
fn needs_escape(c: char) -> bool {
    matches!(c, '&' | '<' | '>' | '"' | '\'') || is_hidden_control(c)
}

/// Whether `c` is a control or formatting character that acts on the text around it
/// without being seen: C0 controls but newline and tab, DEL and the C1 controls, the
/// bidirectional marks, embeddings, overrides and isolates, the line and paragraph
/// separators, and the byte order mark.
pub(crate) fn is_hidden_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            escaped(r#"<a href="x" onclick='y'>&amp;</a>"#, false),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
        );
        assert_eq!(escaped("</script><!--", true), "&lt;/script&gt;&lt;!--");
    }

    #[test]
    fn bidirectional_controls_are_shown_not_obeyed() {
        let trojan = "if admin \u{202e}\u{2066}// check\u{2069}\u{2066}";
        let html = escaped(trojan, false);
        assert!(!html.chars().any(is_hidden_control), "{html}");
        assert!(html.contains(
            "<span class=\"ctl\" title=\"an invisible control character\">[U+202E]</span>"
        ));
        assert_eq!(escaped("a\u{200f}b", true), "a[U+200F]b");
        assert_eq!(escaped("\0", true), "[U+0000]");
    }

    #[test]
    fn other_text_is_kept_as_it_is() {
        let text = "中文 English\tтекст\nעברית 🙂";
        assert_eq!(escaped(text, false), text);
    }
}
