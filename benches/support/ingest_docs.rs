//! The documents of the ingest comparisons, shared by `benches/ingest.rs` and
//! `examples/ingest_cpu.rs` (included by both with `#[path]`), so that both measure the same
//! ingest.

use std::io::BufRead;

/// `(url, text)` pairs, and where they came from: the first 12,000 documents of the JSON
/// lines file named by `TANTIVY_DEDUP_INGEST_DOCS` when it is set (news-size documents,
/// for example, from `data/reuters.jsonl`), else English and Chinese text of `data/`, else
/// copies of the sample corpus.
pub fn documents() -> (Vec<(String, String)>, String) {
    let read = |path: &str, take: usize| -> Option<Vec<(String, String)>> {
        let file = std::fs::File::open(path).ok()?;
        let docs: Vec<(String, String)> = std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(&line).ok())
            .filter_map(|v| Some((v["id"].as_str()?.to_owned(), v["text"].as_str()?.to_owned())))
            .take(take)
            .collect();
        (!docs.is_empty()).then_some(docs)
    };
    if let Ok(path) = std::env::var("TANTIVY_DEDUP_INGEST_DOCS") {
        let docs = read(&path, 12_000).unwrap_or_else(|| panic!("no documents in {path}"));
        return (docs, path);
    }
    if let (Some(mut english), Some(chinese)) = (
        read("data/english.jsonl", 3000),
        read("data/chinese.jsonl", 1000),
    ) {
        english.extend(chinese);
        return (
            english,
            "data/english.jsonl + data/chinese.jsonl".to_owned(),
        );
    }
    let sample = read("samples/corpus.jsonl", usize::MAX).expect("the sample corpus ships");
    let docs = (0..40)
        .flat_map(|copy| {
            sample
                .iter()
                .map(move |(id, text)| (format!("{id}/{copy}"), format!("copy {copy}\n{text}")))
        })
        .collect();
    (docs, "samples/corpus.jsonl x 40".to_owned())
}
