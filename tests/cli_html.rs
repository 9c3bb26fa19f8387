//! `tantivy-dedup fingerprint` on HTML pages: main-content extraction makes a crawled page
//! with heavy boilerplate a near-duplicate of its article's plain text, and broken pages do
//! not stop a batch.

mod support;

use std::process::Output;

use support::cli::{lines, run};

use tantivy_dedup::fingerprint::Fingerprint;

/// The default distance (k).
const K: u32 = 3;

fn fingerprint(inputs: &[&str]) -> Output {
    let mut args = vec!["fingerprint"];
    args.extend_from_slice(inputs);
    run(&args, b"")
}

fn fingerprint_of(line: &serde_json::Value) -> Fingerprint {
    line["fingerprint"]
        .as_str()
        .unwrap_or_else(|| panic!("no fingerprint in {line}"))
        .parse()
        .unwrap()
}

/// The page's text with every tag removed (scripts and styles too): what fingerprinting
/// without extraction sees.
fn all_text(html: &str) -> String {
    let mut text = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        text.push(' ');
        rest = &rest[open..];
        for skipped in ["<script", "<style"] {
            if rest.starts_with(skipped) {
                let close = format!("</{}>", &skipped[1..]);
                rest = rest.find(&close).map_or("", |i| &rest[i..]);
            }
        }
        rest = rest.find('>').map_or("", |i| &rest[i + 1..]);
    }
    text.push_str(rest);
    text
}

#[test]
fn boilerplate_heavy_page_is_a_near_duplicate_of_its_plain_text() {
    let page = "tests/data/html/article-with-boilerplate.html";
    let plain = "tests/data/html/article.txt";
    let output = fingerprint(&[page, plain]);
    assert!(output.status.success());
    let got = lines(&output);
    assert_eq!(got[0]["id"], page);
    let distance = fingerprint_of(&got[0]).distance(fingerprint_of(&got[1]));
    assert!(distance <= K, "page and plain text {distance} bits apart");

    // Without extraction the boilerplate hides the duplicate: the test page is heavy enough
    // to tell extraction from no extraction.
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole-page.txt");
    std::fs::write(&whole, all_text(&std::fs::read_to_string(page).unwrap())).unwrap();
    let got = lines(&fingerprint(&[whole.to_str().unwrap(), plain]));
    let distance = fingerprint_of(&got[0]).distance(fingerprint_of(&got[1]));
    assert!(
        distance > K,
        "whole page only {distance} bits from the article"
    );
}

#[test]
fn broken_and_empty_html_files_do_not_stop_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, content: &[u8]| std::fs::write(dir.path().join(name), content);
    write("a-broken.html", b"<html><body><div><p>Unclosed <b>tags and <a href=\"x>a broken attribute</p></div></div></span>").unwrap();
    write("b-deep.htm", "<div>".repeat(10_000).as_bytes()).unwrap();
    write("c-empty.xhtml", b"").unwrap();
    write("d-latin1.html", b"<p>caf\xe9</p>").unwrap();
    write(
        "e-last.html",
        b"<title>Last</title><p>The last page of the batch.</p>",
    )
    .unwrap();
    let output = fingerprint(&[dir.path().to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the Latin-1 page is an error"
    );
    let lines = lines(&output);
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 5, "{lines:?}");
    assert!(ids[0].ends_with("a-broken.html"));
    assert!(
        lines[0]["fingerprint"].is_string(),
        "broken tags are repaired"
    );
    assert_eq!(lines[1]["fingerprint"], serde_json::Value::Null, "no text");
    assert_eq!(lines[2]["fingerprint"], serde_json::Value::Null, "no text");
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("invalid UTF-8"));
    assert!(lines[4]["fingerprint"].is_string());
}

/// Pages the HTML parser is quadratic on (39 s for 100,000 nested `<div>`s, 21 s for one tag
/// with 200,000 attributes) are read by the tokenizer alone, and standard error says so.
/// Their fingerprint is that of their text.
#[test]
fn pages_over_the_parser_bounds_are_stripped_of_their_tags_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let words = "words of a page that hides its text very deep down inside a crawled tree";
    let deep = format!(
        "<title>Hidden</title>{}<p>{words}</p>",
        "<div>".repeat(150_000)
    );
    let attributes: String = (0..200_000).map(|i| format!(" data-{i}=x")).collect();
    let wide = format!("<title>Hidden</title><p{attributes}>{words}</p>");
    let plain = format!("Hidden\n\n{words}");
    let write = |name: &str, content: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let deep = write("deep.html", &deep);
    let wide = write("wide.html", &wide);
    let plain = write("plain.txt", &plain);
    let output = fingerprint(&[&deep, &wide, &plain]);
    assert!(output.status.success(), "{}", support::cli::stderr(&output));
    let lines = lines(&output);
    for page in &lines[..2] {
        assert_eq!(fingerprint_of(page), fingerprint_of(&lines[2]), "{page}");
    }
    let stderr = support::cli::stderr(&output);
    for page in [&deep, &wide] {
        assert!(
            stderr.contains(&format!("{page}: nested too deep or too many attributes")),
            "{stderr}"
        );
    }
}
