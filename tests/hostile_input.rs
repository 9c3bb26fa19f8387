//! Hostile documents through the library: the fingerprinter, the tokenizer and `DedupWriter`
//! in one batch. None panics; each gets its documented result; every document of the batch
//! is indexed. (The command line's bad records are in `cli_index.rs` and `cli_html.rs`.)

mod support;

use support::cli::{lines, run, stderr};
use tantivy::collector::Count;
use tantivy::query::AllQuery;
use tantivy::schema::Schema;
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::Utf8Policy;
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::plugin::{text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy};
use tantivy_dedup::text::MixedTokenizer;
use tantivy_dedup::Error;

/// `(name, text, has a fingerprint)`: each hostile kind once.
fn hostile() -> Vec<(&'static str, String, bool)> {
    vec![
        ("empty", String::new(), false),
        ("whitespace only", " \t\n\r\u{3000}\u{a0} \n".to_owned(), false),
        ("punctuation only", "!!! ... ，。、——？ ((([]))) --- ***".to_owned(), false),
        ("NUL bytes", "before\0the\0nul bytes\0\0 after them".to_owned(), true),
        (
            "control characters",
            "bell\u{7} back\u{8}space esc\u{1b}[31m red \u{7f} del \u{85} next line".to_owned(),
            true,
        ),
        (
            "emoji and combining marks",
            "🦀 Rust 👩‍👩‍👧‍👦 family e\u{301}te\u{301} Z\u{351}\u{35b}\u{34e}a\u{30a}l\u{489}g\u{33f}o 🇹🇼🇨🇳".to_owned(),
            true,
        ),
        (
            "right-to-left and mixed scripts",
            "مرحبا بالعالم שלום עולם hello 世界 Привет мир नमस्ते दुनिया \u{202e}reversed\u{202c}".to_owned(),
            true,
        ),
        ("one 1M-character token", "x".repeat(1_000_000), true),
        ("one word a million times", "spam ".repeat(1_000_000), true),
        (
            "lone surrogates as replacement characters",
            String::from_utf8_lossy(b"ok \xed\xa0\x80 then \xff\xfe text").into_owned(),
            true,
        ),
    ]
}

#[test]
fn the_fingerprinter_and_tokenizer_take_everything() {
    let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
    let words = SimHasher::new(
        &FingerprintConfig::default().features(tantivy_dedup::text::FeatureKind::Words),
    )
    .unwrap();
    let tokenizer = MixedTokenizer::new();
    for (name, text, has_fingerprint) in hostile() {
        assert_eq!(
            hasher.fingerprint(&text).is_some(),
            has_fingerprint,
            "{name}"
        );
        assert_eq!(
            words.fingerprint(&text).is_some(),
            has_fingerprint,
            "{name}"
        );
        let mut end = 0;
        tokenizer.for_each_token(&text, |token, range| {
            assert!(!token.is_empty(), "{name}: empty token");
            assert!(range.start >= end, "{name}: tokens in text order");
            assert!(range.start < range.end && range.end <= text.len(), "{name}");
            assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
            end = range.end;
        });
    }
}

#[test]
fn invalid_utf8_is_an_error_or_replaced_by_choice() {
    let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
    let bytes = b"valid start \xc3\x28 invalid \xff end";
    match hasher.fingerprint_bytes(bytes, Utf8Policy::Strict) {
        Err(Error::InvalidUtf8 { valid_up_to }) => assert_eq!(valid_up_to, 12),
        other => panic!("expected InvalidUtf8, got {other:?}"),
    }
    let lossy = hasher.fingerprint_bytes(bytes, Utf8Policy::Lossy).unwrap();
    assert_eq!(
        lossy,
        hasher.fingerprint(&String::from_utf8_lossy(bytes)),
        "lossy is the replacement-character text"
    );
}

/// A 50 MB document is fingerprinted on its first `max_text_bytes` (1 MiB by default): the
/// same fingerprint as that prefix, whatever follows.
#[test]
fn a_50_mb_document_is_fingerprinted_on_its_bounded_prefix() {
    let config = FingerprintConfig::default();
    let hasher = SimHasher::new(&config).unwrap();
    let sentence =
        "the river rose during the night and the lower fields were under water 河水上涨 ";
    let mut text = sentence.repeat(50_000_000 / sentence.len() + 1);
    let limit = config.get_max_text_bytes();
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = hasher.fingerprint(&text[..cut]);
    assert!(prefix.is_some());
    assert_eq!(hasher.fingerprint(&text), prefix);
    text.push_str(" something else entirely at the very end");
    assert_eq!(hasher.fingerprint(&text), prefix);
}

/// Every hostile document goes through one `DedupWriter` batch between ordinary ones: each
/// is indexed (those without words with no fingerprint, never duplicates of each other),
/// and the ordinary documents after them are indexed too.
#[test]
fn every_document_of_a_hostile_batch_is_indexed() {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let schema = schema.build();
    let url = schema.get_field("url").unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let writer = index.writer(Policy::Reject, 200_000_000).unwrap();
    // Ordinary pages of 40 words drawn from a vocabulary by a per-page generator: unrelated
    // to each other.
    let ordinary = |i: usize| {
        const WORDS: [&str; 16] = [
            "river", "tax", "compiler", "garden", "violin", "harbour", "orbit", "bread", "ledger",
            "glacier", "poem", "engine", "market", "lantern", "crystal", "meadow",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(i as u64 + 1);
        (0..40)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                WORDS[(state % 16) as usize]
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut expected = 0;
    for (i, (name, text, has_fingerprint)) in hostile().into_iter().enumerate() {
        let before = writer
            .add(doc!(url => format!("ordinary-{i}"), body => ordinary(i)))
            .unwrap();
        assert!(before.is_indexed(), "ordinary page {i}: {before:?}");
        let outcome = writer
            .add(doc!(url => format!("hostile-{i}"), body => text))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match (&outcome, has_fingerprint) {
            (AddOutcome::Added { fingerprint, .. }, _) => {
                assert_eq!(fingerprint.is_some(), has_fingerprint, "{name}")
            }
            (other, _) => panic!("{name}: expected Added, got {other:?}"),
        }
        expected += 2;
    }
    writer.commit().unwrap();
    let searcher = writer.searcher();
    assert_eq!(searcher.search(&AllQuery, &Count).unwrap(), expected);
}

/// The same kinds through `tantivy-dedup ingest` as JSON lines, with malformed lines among
/// them: one report line each, the bad lines errors with their line numbers, the rest indexed.
#[test]
fn the_command_line_reports_each_hostile_line_and_indexes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = String::new();
    let mut expected = Vec::new();
    for (i, (name, text, has_fingerprint)) in hostile().into_iter().enumerate() {
        // The 1M-word line stays out of the debug-build CLI run (the library test has it).
        if text.len() > 2_000_000 {
            continue;
        }
        input.push_str(&serde_json::json!({"id": format!("h{i}"), "text": text}).to_string());
        input.push('\n');
        // A document with no text at all is a record error for the command line (nothing to
        // index); one with text but no words is indexed without a fingerprint.
        let status = if text.trim().is_empty() {
            "error"
        } else {
            "added"
        };
        assert!(has_fingerprint || status == "error" || name == "punctuation only");
        expected.push((format!("h{i}"), status, name));
    }
    let bad = [
        "{\"id\":\"cut\",\"text\":\"trunc",
        "[\"not\", \"an\", \"object\"]",
        "{\"id\":{\"an\":\"object\"},\"text\":\"an id that is an object\"}",
        "{\"id\":\"t\",\"text\":[\"an\",\"array\"]}",
        "null",
        // Two empty ids: once accepted as one key, the second was dropped as "already
        // indexed" (a fuzzing finding).
        "{\"id\":\"\",\"text\":\"the first page with an empty id\"}",
        "{\"id\":\"\",\"text\":\"another page with an empty id, about something else\"}",
    ];
    let first_bad = expected.len() + 1;
    for line in bad {
        input.push_str(line);
        input.push('\n');
    }
    input.push_str("{\"id\":\"last\",\"text\":\"the ordinary document after the bad lines\"}\n");
    let file = dir.path().join("hostile.jsonl");
    std::fs::write(&file, input).unwrap();
    let index = dir.path().join("index");
    let output = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--report",
            "-",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = lines(&output);
    assert_eq!(
        report.len(),
        expected.len() + bad.len() + 1,
        "one line per record"
    );
    for ((id, status, name), line) in expected.iter().zip(&report) {
        assert_eq!(line["id"], *id, "{name}");
        assert_eq!(line["status"], *status, "{name}: {line}");
    }
    for (k, line) in report[expected.len()..expected.len() + bad.len()]
        .iter()
        .enumerate()
    {
        assert_eq!(line["status"], "error", "{line}");
        assert!(
            line["id"]
                .as_str()
                .unwrap()
                .ends_with(&format!(":{}", first_bad + k)),
            "the error names its line: {line}"
        );
    }
    assert_eq!(report.last().unwrap()["status"], "added");
}

/// Options out of range are usage errors (exit code 2) with a message, for every command.
#[test]
fn options_out_of_range_are_refused_with_a_message() {
    for args in [
        &["ingest", "--distance", "65"][..],
        &["ingest", "--commit-every", "0"],
        &["ingest", "--n", "0"],
        &["search", "--limit", "0", "x"],
        &["search", "--distance", "65", "x"],
        &["clusters", "--distance", "99"],
        &["fingerprint", "--n", "0", "-"],
        &["fingerprint", "--n", "17", "-"],
        &["eval", "--max-k", "65", "x"],
        &["eval", "--loose-k", "65", "x"],
    ] {
        let output = run(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.starts_with("error:"), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{args:?}: {message}");
    }
}

/// Two long records that share only their first 1.2 MB: fingerprinted on their first MiB,
/// they look identical. The second's line says its comparison was cut; the first, and a
/// short copy, say nothing.
#[test]
fn a_duplicate_judged_on_a_cut_text_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let words = |seed: u64, n: usize| support::index::random_text(seed, n);
    let shared = words(1, 200_000);
    assert!(shared.len() > 1_200_000, "{}", shared.len());
    let records = [
        ("a", format!("{shared} {}", words(2, 150_000))),
        ("b", format!("{shared} {}", words(3, 150_000))),
        ("short", "The council met on Monday to discuss the budget for the libraries and parks of the city, and agreed on it.".to_owned()),
        ("short-copy", "The council met on Monday to discuss the budget for the libraries and parks of the city, and agreed on it!".to_owned()),
    ];
    let input = dir.path().join("long.jsonl");
    let text: String = (records.iter())
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
        .collect();
    std::fs::write(&input, text).unwrap();
    let index = dir.path().join("index");
    let output = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--report",
            "-",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let lines = lines(&output);
    let line = |id: &str| lines.iter().find(|line| line["id"] == id).unwrap().clone();
    assert_eq!(line("b")["status"], "duplicate", "{lines:?}");
    assert_eq!(line("b")["cut"], true, "{:?}", line("b"));
    assert_eq!(line("short-copy")["status"], "duplicate", "{lines:?}");
    assert!(
        line("short-copy").get("cut").is_none(),
        "{:?}",
        line("short-copy")
    );
    assert!(line("a").get("cut").is_none());
}
