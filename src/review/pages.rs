//! The review as files: one HTML page per [`DECISIONS_PER_PAGE`] decisions beside the
//! first (`review.html`, `review-2.html`, ...), each linking to the others, each decision
//! at an anchor named after its record.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::html::{page_end, page_start, write_decision, PageHeader};
use super::ordered::Review;
use crate::error::{Error, Result};

/// Decisions a page holds. With texts cut at [`MAX_DIFF_CHARS`](super::MAX_DIFF_CHARS)
/// characters and ids at [`MAX_ID_CHARS`](super::MAX_ID_CHARS), a page holds at most
/// 4.5 million characters of documents: a few MB of HTML for ordinary text, and under
/// 150 MB if every character were one escaped as an entity or a visible control.
pub const DECISIONS_PER_PAGE: usize = 1_000;

/// The anchor of the decision about the record `id`: `r-` then the id with every byte
/// outside `A-Z a-z 0-9 - _ .` written as `~` and two hex digits (so any id makes a
/// valid, unambiguous fragment: `page.html#r-...`).
///
/// Available with the `review` feature (on by default).
///
/// ```
/// assert_eq!(tantivy_dedup::review::anchor_of("doc-1"), "r-doc-1");
/// assert_eq!(tantivy_dedup::review::anchor_of("a b/中"), "r-a~20b~2f~e4~b8~ad");
/// ```
pub fn anchor_of(id: &str) -> String {
    let mut anchor = String::with_capacity(id.len() + 2);
    anchor.push_str("r-");
    for &byte in id.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.') {
            anchor.push(byte as char);
        } else {
            let _ = write!(anchor, "~{byte:02x}");
        }
    }
    anchor
}

/// The file name of page `page` (from 0) of a review whose first page is `out`:
/// `review.html`, then `review-2.html`, ...
///
/// Available with the `review` feature (on by default).
pub fn page_name(out: &Path, page: usize) -> String {
    let name = out
        .file_name()
        .map_or_else(|| "review.html".into(), |name| name.to_string_lossy());
    if page == 0 {
        return name.into_owned();
    }
    match name.rsplit_once('.') {
        Some((stem, extension)) => format!("{stem}-{}.{extension}", page + 1),
        None => format!("{name}-{}", page + 1),
    }
}

/// The path of page `page` of a review whose first page is `out`.
///
/// Available with the `review` feature (on by default).
pub fn page_path(out: &Path, page: usize) -> PathBuf {
    out.with_file_name(page_name(out, page))
}

impl Review<'_> {
    /// Writes the review as HTML pages, the first at `out` and the others beside it (see
    /// [`page_name`]); a review without decisions is one page saying so. Each page is
    /// built and written alone, so memory holds one page's texts. Returns the paths
    /// written.
    ///
    /// # Errors
    /// [`Error::Io`] when a page cannot be written; what reading the index returns.
    pub fn write_html(&self, out: &Path) -> Result<Vec<PathBuf>> {
        (0..self.pages())
            .map(|page| self.write_page(out, page))
            .collect()
    }

    /// The pages of [`write_html`](Self::write_html): at least one.
    pub fn pages(&self) -> usize {
        self.len().div_ceil(DECISIONS_PER_PAGE).max(1)
    }

    /// Writes page `page` (from 0) of [`write_html`](Self::write_html) alone, at its path
    /// beside `out` (what `review --id` writes: the page of one decision, without reading
    /// the texts of the others). Returns its path.
    ///
    /// # Errors
    /// [`Error::Io`] when the page cannot be written; what reading the index returns.
    pub fn write_page(&self, out: &Path, page: usize) -> Result<PathBuf> {
        let from = page * DECISIONS_PER_PAGE;
        let decisions = self.decisions_in(from, from + DECISIONS_PER_PAGE, out)?;
        let header = PageHeader {
            page,
            pages: self.pages(),
            total: self.len(),
            source: self.source(),
            rule: &self.rule().to_string(),
            name_of: &|page| page_name(out, page),
            decisions: &decisions,
        };
        let mut html = String::new();
        page_start(&header, &mut html);
        for decision in &decisions {
            write_decision(decision, &mut html);
        }
        page_end(&header, &mut html);
        let path = page_path(out, page);
        std::fs::write(&path, html).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_named_after_the_first() {
        let out = Path::new("/tmp/x/review.html");
        assert_eq!(page_name(out, 0), "review.html");
        assert_eq!(page_name(out, 1), "review-2.html");
        assert_eq!(page_path(out, 2), Path::new("/tmp/x/review-3.html"));
        assert_eq!(page_name(Path::new("out"), 1), "out-2");
    }

    #[test]
    fn anchors_are_one_to_one_and_plain() {
        let ids = ["a", "a~20", "a ", "~", "\"><script>", "x\u{202e}y"];
        let anchors: std::collections::HashSet<String> =
            ids.iter().map(|id| anchor_of(id)).collect();
        assert_eq!(anchors.len(), ids.len());
        for anchor in anchors {
            assert!(anchor
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b)));
        }
    }
}
