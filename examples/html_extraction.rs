//! Which HTML main-content extractor keeps a crawled page a near-duplicate of its own text?
//!
//! ```sh
//! scripts/fetch-html-corpora.sh
//! cargo run --release --features html-compare --example html_extraction [-- DATA_DIR]
//! ```
//!
//! Two sets of real pages (see `docs/DATA.md`, "HTML pages"):
//!
//! - **Python 3.11 docs** (`python3.11-doc`): every Sphinx page beside the reStructuredText
//!   it was built from. Each page's extracted text is fingerprinted and compared with its own
//!   source: "within 3" is the share of pages at distance ≤ 3 (the default k), and "wrong" is
//!   the number of pages within 3 of *another* page's source (found with a
//!   [`FingerprintIndex`]). The source is fingerprinted after [`strip_rst`] removes the
//!   obvious markup (directives that render nothing, roles, backquotes, underlines); the
//!   "within 3, rst as is" column fingerprints the source unchanged.
//! - **Debian Administrator's Handbook** (`debian-handbook`), English and Simplified Chinese:
//!   no source text to compare with, so only the false-positive side: "handbook pairs" is
//!   the number of pairs of *different* pages (by file name) within 3 of each other.
//!
//! `ONLY=dom_smoothie` measures only the extractors whose name contains that text;
//! `SHOW_WRONG=1` lists the wrong matches and `SHOW_FAR=1` the pages more than 10 bits from
//! their source on standard error.
//!
//! Extraction alone is timed (single thread, all pages of both sets, best of `ROUNDS`):
//! pages/s and MB/s of HTML read. Fingerprinting uses `FingerprintConfig::default()`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::lookup::FingerprintIndex;

/// The default distance.
const K: u32 = 3;
/// Timing rounds per extractor (the best is kept: the machine is shared).
const ROUNDS: usize = 2;

/// One page and what it should contain.
struct Page {
    name: String,
    html: String,
    /// The reStructuredText source, for the Python pages.
    source: Option<String>,
}

/// An extractor under test: HTML in, text out (empty when it finds nothing).
struct Candidate {
    name: &'static str,
    extract: fn(&str) -> String,
}

fn html2text_plain(html: &str) -> String {
    html2text::config::plain_no_decorate()
        .string_from_read(html.as_bytes(), 100_000)
        .unwrap_or_default()
}

fn dom_smoothie_article(html: &str) -> String {
    let config = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Formatted,
        ..dom_smoothie::Config::default()
    };
    dom_smoothie::Readability::new(html, None, Some(config))
        .and_then(|mut r| r.parse())
        .map(|article| article.text_content.to_string())
        .unwrap_or_default()
}

fn rs_trafilatura_content(html: &str) -> String {
    rs_trafilatura::extract(html)
        .map(|r| r.content_text)
        .unwrap_or_default()
}

/// What the crate itself does with HTML input: the title, then the main text.
fn tantivy_dedup_html(html: &str) -> String {
    tantivy_dedup::html::extract(html)
        .map(|page| page.to_text())
        .unwrap_or_default()
}

const CANDIDATES: &[Candidate] = &[
    Candidate {
        name: "html2text 0.17 (whole page, no extraction)",
        extract: html2text_plain,
    },
    Candidate {
        name: "dom_smoothie 0.19 (readability)",
        extract: dom_smoothie_article,
    },
    Candidate {
        name: "rs-trafilatura 0.2",
        extract: rs_trafilatura_content,
    },
    Candidate {
        name: "tantivy_dedup::html::extract",
        extract: tantivy_dedup_html,
    },
];

/// Directives whose argument is not rendered as text.
const SILENT_DIRECTIVES: &[&str] = &[
    "module",
    "currentmodule",
    "index",
    "toctree",
    "moduleauthor",
    "sectionauthor",
    "highlight",
    "code-block",
    "sourcecode",
    "literalinclude",
    "include",
    "testsetup",
    "testcleanup",
    "productionlist",
    "only",
    "raw",
    "image",
    "figure",
    "tabularcolumns",
    "program",
    "c:namespace",
    "py:module",
    "py:currentmodule",
];

/// The reStructuredText source with its obvious markup removed: silent directives and their
/// options, comments, link targets, section underlines, roles (`:func:`~os.path.join`` to
/// `join`), backquotes, `**`, and `::` at line ends. Directive arguments that Sphinx renders
/// (signatures, "versionadded" numbers) are kept.
fn strip_rst(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut in_options = false;
    for line in source.lines() {
        let trimmed = line.trim_start();
        if in_options && trimmed.starts_with(':') && !trimmed.is_empty() {
            continue;
        }
        in_options = false;
        if let Some(rest) = trimmed.strip_prefix(".. ") {
            in_options = true;
            if let Some((name, argument)) = rest.split_once("::") {
                let name = name.trim();
                if !name.starts_with('_') && !name.starts_with('|') && !name.contains(' ') {
                    if !SILENT_DIRECTIVES.contains(&name) {
                        out.push_str(&strip_inline(argument));
                        out.push('\n');
                    }
                    continue;
                }
            }
            continue; // a comment, a link target or a substitution definition
        }
        let t = line.trim();
        if t.len() >= 3 && t.chars().all(|c| "=-~^\"'`#*+.:_".contains(c)) {
            continue; // a section underline or a transition
        }
        out.push_str(&strip_inline(line));
        out.push('\n');
    }
    out
}

/// Inline markup of one line: roles, backquotes, strong emphasis, a closing `::`.
fn strip_inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    // Roles: `:name:` directly followed by a backquoted text.
    while let Some(start) = rest.find(":`").and_then(|end| {
        let head = &rest[..end];
        let colon = head.rfind(|c: char| c.is_whitespace() || c == '(')?;
        let colon = head[colon..].find(':').map(|i| colon + i)?;
        Some((colon, end))
    }) {
        let (colon, end) = start;
        out.push_str(&rest[..colon]);
        let after = &rest[end + 2..];
        let Some(close) = after.find('`') else {
            rest = after;
            break;
        };
        let mut text = &after[..close];
        if let Some(lt) = text.find(" <") {
            text = &text[..lt];
        }
        let text = text.trim_start_matches(['~', '!']);
        if after[..close].starts_with('~') {
            out.push_str(text.rsplit('.').next().unwrap_or(text));
        } else {
            out.push_str(text);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    let mut out = out.replace("``", "").replace('`', "").replace("**", "");
    if out.trim_end().ends_with("::") {
        let len = out.trim_end().len();
        out.truncate(len - 1);
    }
    out
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("list {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('_') {
                html_files(&path, out)?;
            }
        } else if name.ends_with(".html") {
            out.push(path);
        }
    }
    Ok(())
}

/// The Python pages that have a source (generated indexes and search pages have none).
fn python_pages(root: &Path) -> anyhow::Result<Vec<Page>> {
    let mut files = Vec::new();
    html_files(root, &mut files)?;
    let mut pages = Vec::new();
    for file in files {
        let relative = file.strip_prefix(root)?.with_extension("rst.txt");
        let source = root.join("_sources").join(&relative);
        if !source.exists() {
            continue;
        }
        pages.push(Page {
            name: relative.display().to_string(),
            html: std::fs::read_to_string(&file)?,
            source: Some(std::fs::read_to_string(&source)?),
        });
    }
    Ok(pages)
}

fn handbook_pages(root: &Path) -> anyhow::Result<Vec<Page>> {
    let mut pages = Vec::new();
    for language in ["en-US", "zh-CN"] {
        let mut files = Vec::new();
        html_files(&root.join(language), &mut files)?;
        for file in files {
            pages.push(Page {
                name: file.file_name().unwrap().to_string_lossy().into_owned(),
                html: std::fs::read_to_string(&file)?,
                source: None,
            });
        }
    }
    Ok(pages)
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(sorted: &[u32], q: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn main() -> anyhow::Result<()> {
    let data = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "data".into()));
    let deb = data.join("cache/deb");
    let python_root = deb.join("python3.11-doc/root/usr/share/doc/python3.11/html");
    let handbook_root = deb.join("debian-handbook/root/usr/share/doc/debian-handbook/html");
    let python = python_pages(&python_root).with_context(|| {
        format!(
            "{}: run scripts/fetch-html-corpora.sh",
            python_root.display()
        )
    })?;
    let handbook = handbook_pages(&handbook_root).with_context(|| {
        format!(
            "{}: run scripts/fetch-html-corpora.sh",
            handbook_root.display()
        )
    })?;
    let html_bytes: usize = python.iter().chain(&handbook).map(|p| p.html.len()).sum();
    let hasher = SimHasher::new(&FingerprintConfig::default())?;

    // Sources, stripped and as is, in one index each.
    let mut stripped_sources = FingerprintIndex::new();
    let mut raw_sources = Vec::new();
    for (id, page) in python.iter().enumerate() {
        let source = page.source.as_deref().unwrap_or("");
        if let Some(fp) = hasher.fingerprint(&strip_rst(source)) {
            stripped_sources.insert(id as u32, fp);
        }
        raw_sources.push(hasher.fingerprint(source));
    }
    let show = std::env::var_os("SHOW_WRONG").is_some();
    let show_far = std::env::var_os("SHOW_FAR").is_some();
    let only = std::env::var("ONLY").unwrap_or_default();
    let source_pairs = stripped_sources.all_pairs(K).len();
    println!(
        "{} Python pages with sources, {} handbook pages (en-US + zh-CN), {:.1} MB of HTML; k = {K}",
        python.len(),
        handbook.len(),
        html_bytes as f64 / 1e6
    );
    println!(
        "{source_pairs} pairs of different sources are within {K} of each other: a page within {K} of a source within {K} of its own is not counted as wrong"
    );
    println!();
    println!("| extractor | within 3 of own source | within 3, rst as is | median / p90 distance | wrong source within 3 | false page pairs within 3 | empty | handbook pairs within 3 | pages/s | MB/s |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");

    for candidate in CANDIDATES.iter().filter(|c| c.name.contains(&only)) {
        let mut texts = Vec::new();
        let mut best = f64::INFINITY;
        for _ in 0..ROUNDS {
            let start = Instant::now();
            texts = python
                .iter()
                .chain(&handbook)
                .map(|p| (candidate.extract)(&p.html))
                .collect::<Vec<_>>();
            best = best.min(start.elapsed().as_secs_f64());
        }
        let (python_texts, handbook_texts) = texts.split_at(python.len());

        let mut distances = Vec::new();
        let (mut within, mut within_raw, mut wrong, mut empty) = (0, 0, 0, 0);
        for (id, text) in python_texts.iter().enumerate() {
            let Some(fp) = hasher.fingerprint(text) else {
                empty += 1;
                distances.push(64);
                continue;
            };
            let own = stripped_sources
                .get(id as u32)
                .map_or(64, |s| s.distance(fp));
            distances.push(own);
            if show_far && own > 10 {
                eprintln!(
                    "{}: {} at {own} ({} of {} bytes of HTML)",
                    candidate.name,
                    python[id].name,
                    text.len(),
                    python[id].html.len()
                );
            }
            within += usize::from(own <= K);
            within_raw += usize::from(raw_sources[id].is_some_and(|s| s.distance(fp) <= K));
            let own_source = stripped_sources.get(id as u32);
            let wrong_hits: Vec<u32> = stripped_sources
                .query(fp, K)
                .iter()
                .filter(|m| {
                    m.id != id as u32
                        && own_source.is_none_or(|own| {
                            stripped_sources
                                .get(m.id)
                                .is_some_and(|s| s.distance(own) > K)
                        })
                })
                .map(|m| m.id)
                .collect();
            if !wrong_hits.is_empty() {
                wrong += 1;
                if show {
                    let names: Vec<&str> = wrong_hits
                        .iter()
                        .map(|&h| python[h as usize].name.as_str())
                        .collect();
                    eprintln!(
                        "{}: {} within {K} of {names:?}",
                        candidate.name, python[id].name
                    );
                }
            }
        }
        distances.sort_unstable();

        // Pages that became near-duplicates of each other though their sources are not.
        let mut page_index = FingerprintIndex::new();
        for (id, text) in python_texts.iter().enumerate() {
            if let Some(fp) = hasher.fingerprint(text) {
                page_index.insert(id as u32, fp);
            }
        }
        let false_pairs: Vec<_> = page_index
            .all_pairs(K)
            .into_iter()
            .filter(
                |p| match (stripped_sources.get(p.a), stripped_sources.get(p.b)) {
                    (Some(a), Some(b)) => a.distance(b) > K,
                    _ => true,
                },
            )
            .collect();
        if show {
            for p in &false_pairs {
                let (a, b) = (p.a as usize, p.b as usize);
                eprintln!(
                    "{}: pages {} ({} bytes) and {} ({} bytes) at {}",
                    candidate.name,
                    python[a].name,
                    python_texts[a].len(),
                    python[b].name,
                    python_texts[b].len(),
                    p.distance
                );
            }
        }
        let false_pairs = false_pairs.len();

        let mut pages = FingerprintIndex::new();
        for (id, text) in handbook_texts.iter().enumerate() {
            match hasher.fingerprint(text) {
                Some(fp) => drop(pages.insert(id as u32, fp)),
                None => empty += 1,
            }
        }
        let pairs = pages
            .all_pairs(K)
            .iter()
            .filter(|p| handbook[p.a as usize].name != handbook[p.b as usize].name)
            .count();

        let n = python.len() as f64;
        println!(
            "| {} | {:.1}% ({within}) | {:.1}% ({within_raw}) | {} / {} | {wrong} | {false_pairs} | {empty} | {pairs} | {:.0} | {:.2} |",
            candidate.name,
            100.0 * within as f64 / n,
            100.0 * within_raw as f64 / n,
            quantile(&distances, 0.5),
            quantile(&distances, 0.9),
            texts.len() as f64 / best,
            html_bytes as f64 / 1e6 / best,
        );
    }
    Ok(())
}
