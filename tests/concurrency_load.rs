//! Writers adding, deleting and committing at once while readers search with the
//! deduplicating collector: no panic, no deadlock (a watchdog aborts after two minutes),
//! no near-duplicate pair admitted under Reject, and every search page equal to the
//! brute-force greedy walk over the committed state its searcher sees.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TantivyDocument, Value};
use tantivy::{doc, DocAddress, Index, ReloadPolicy, Searcher, Term};
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::plugin::{
    text_field_options, DedupIndex, DedupSettings, Policy, FINGERPRINT_FIELD,
};

const GROUPS: u64 = 300;
const WRITERS: u64 = 3;
const READERS: usize = 2;
const K: u32 = 3;

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Group `g`'s text: 50 words of a 5,000-word vocabulary, with "common" in every tenth
/// document so that queries match many groups.
fn text(g: u64) -> String {
    let mut state = 0x2545_f491_4f6c_dd1d ^ (g + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut words: Vec<String> = (0..50)
        .map(|_| format!("v{}", next(&mut state) % 5_000))
        .collect();
    words.push(if g.is_multiple_of(10) {
        "common".into()
    } else {
        "rare".into()
    });
    words.join(" ")
}

/// The greedy walk the collector must equal: every match by score (ties by address), each
/// shown unless a shown one is within `K` bits; the first `limit` shown.
fn reference(searcher: &Searcher, query: &dyn Query, limit: usize) -> Vec<DocAddress> {
    let all = searcher.search(query, &Count).unwrap().max(1);
    let mut hits = searcher
        .search(query, &TopDocs::with_limit(all).order_by_score())
        .unwrap();
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let fingerprint = |address: DocAddress| {
        let reader = searcher.segment_reader(address.segment_ord);
        let column = reader.fast_fields().u64(FINGERPRINT_FIELD).ok()?;
        column.first(address.doc_id).map(Fingerprint)
    };
    let mut shown: Vec<(DocAddress, Option<Fingerprint>)> = Vec::new();
    for (_, address) in hits {
        let fp = fingerprint(address);
        let hidden = fp.is_some_and(|fp| {
            shown
                .iter()
                .any(|(_, other)| other.is_some_and(|o| o.distance(fp) <= K))
        });
        if !hidden {
            shown.push((address, fp));
        }
    }
    shown.into_iter().take(limit).map(|(a, _)| a).collect()
}

#[test]
fn writers_deleters_and_searchers_at_once() {
    let finished = Arc::new(AtomicBool::new(false));
    {
        let finished = Arc::clone(&finished);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(120));
            if !finished.load(Ordering::SeqCst) {
                eprintln!("deadlock: the concurrency test ran over two minutes");
                std::process::abort();
            }
        });
    }
    let started = Instant::now();
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let schema: Schema = schema.build();
    let url = schema.get_field("url").unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let writer = Arc::new(index.writer(Policy::Reject, 50_000_000).unwrap());
    let writing = Arc::new(AtomicUsize::new(WRITERS as usize + 1));
    let searches = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // Writers: every group three times (case and punctuation variants), in their own
        // order, committing now and then.
        for w in 0..WRITERS {
            let writer = Arc::clone(&writer);
            let writing = Arc::clone(&writing);
            scope.spawn(move || {
                let mut state = 0x1234_5678 + w;
                for n in 0..GROUPS * 3 {
                    let g = next(&mut state) % GROUPS;
                    let body_text = match n % 3 {
                        0 => text(g),
                        1 => text(g).to_uppercase(),
                        _ => text(g).replace(' ', ", "),
                    };
                    writer
                        .add(doc!(url => format!("g{g}-w{w}-n{n}"), body => body_text))
                        .unwrap();
                    if n % 97 == 0 {
                        writer.commit().unwrap();
                    }
                }
                writing.fetch_sub(1, Ordering::SeqCst);
            });
        }
        // A deleter: deletes documents it finds by key, committing after each few.
        {
            let writer = Arc::clone(&writer);
            let writing = Arc::clone(&writing);
            scope.spawn(move || {
                let mut state = 99u64;
                for round in 0..60 {
                    let searcher = writer.searcher();
                    let docs: Vec<String> = searcher
                        .search(
                            &tantivy::query::AllQuery,
                            &TopDocs::with_limit(50).order_by_score(),
                        )
                        .unwrap()
                        .into_iter()
                        .map(|(_, address)| {
                            let doc: TantivyDocument = searcher.doc(address).unwrap();
                            doc.get_first(url).unwrap().as_str().unwrap().to_owned()
                        })
                        .collect();
                    if let Some(key) = docs.get((next(&mut state) % 50) as usize) {
                        writer.delete_key(key).unwrap();
                    }
                    if round % 3 == 0 {
                        writer.commit().unwrap();
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                writing.fetch_sub(1, Ordering::SeqCst);
            });
        }
        // Readers: the collector against the greedy reference on each searcher they get.
        for r in 0..READERS {
            let index = &index;
            let writing = Arc::clone(&writing);
            let searches = &searches;
            scope.spawn(move || {
                let reader = index
                    .index()
                    .reader_builder()
                    .reload_policy(ReloadPolicy::Manual)
                    .try_into()
                    .unwrap();
                let field = index.fields().text[0];
                let term = if r % 2 == 0 { "common" } else { "rare" };
                let query = TermQuery::new(
                    Term::from_field_text(field, term),
                    IndexRecordOption::WithFreqs,
                );
                let collector = index.collector(10);
                while writing.load(Ordering::SeqCst) > 0 {
                    reader.reload().unwrap();
                    let searcher = reader.searcher();
                    let page = collector.search(&searcher, &query).unwrap();
                    let shown: Vec<DocAddress> = page.hits.iter().map(|h| h.address).collect();
                    assert_eq!(shown, reference(&searcher, &query, 10), "reader {r}");
                    searches.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    writer.commit().unwrap();
    // No near-duplicate pair among the documents left: Reject admitted one per group at a
    // time, and deletes only removed documents.
    let searcher = writer.searcher();
    let groups = index.duplicate_groups(&searcher, K).unwrap();
    assert!(groups.is_empty(), "near-duplicates admitted: {groups:?}");
    let urls: Vec<String> = searcher
        .search(
            &tantivy::query::AllQuery,
            &TopDocs::with_limit(10_000).order_by_score(),
        )
        .unwrap()
        .into_iter()
        .map(|(_, address)| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            doc.get_first(url).unwrap().as_str().unwrap().to_owned()
        })
        .collect();
    let groups_in: HashSet<&str> = urls.iter().map(|u| u.split('-').next().unwrap()).collect();
    assert_eq!(groups_in.len(), urls.len(), "one document per group");
    assert!(searches.load(Ordering::SeqCst) > 0);
    finished.store(true, Ordering::SeqCst);
    eprintln!(
        "{} documents left, {} searches checked, {:.1} s",
        urls.len(),
        searches.load(Ordering::SeqCst),
        started.elapsed().as_secs_f64()
    );
}
