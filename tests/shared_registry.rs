//! The shared near-duplicate space on a real Redis Cluster (3 masters, 3 replicas on
//! loopback, `scripts/redis-cluster.sh start`, seed addresses in `TANTIVY_DEDUP_REDIS`):
//! several writers decide overlapping streams with planted near-duplicates at once, and
//! what they admit is what one writer would admit taking the documents in the cluster's
//! numbering; no admitted pair is a near-duplicate; a master killed during the run
//! (`TANTIVY_DEDUP_REDIS_DIR` names the cluster's folder) fails over and the writers go
//! on. Run by `.ci/run` with `--features cluster`.
#![cfg(feature = "cluster")]

use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use tantivy_dedup::matching::{MatchingSettings, TextMatcher};
use tantivy_dedup::plugin::{Verification, DEFAULT_THRESHOLD};
use tantivy_dedup::shared::{SharedDecision, SharedRegistry};
use tantivy_dedup::{Error, Fingerprint};

mod support;

use support::index::random_text;
use support::rng::Rng;

const WRITERS: usize = 4;

fn seeds() -> Vec<String> {
    let seeds = std::env::var("TANTIVY_DEDUP_REDIS").expect(
        "TANTIVY_DEDUP_REDIS: the seed addresses of a Redis Cluster \
         (scripts/redis-cluster.sh start prints them), separated by commas",
    );
    seeds.split(',').map(str::to_owned).collect()
}

/// A document: its id, fingerprint and signature.
type Doc = (String, Fingerprint, Option<Vec<u32>>);

/// Documents in groups of [`WRITERS`]: in every other group, edited versions of one text
/// (near-duplicates of each other), which the writers decide at the same moment; in the
/// others, unrelated texts.
fn documents(seed: u64, n: usize) -> Vec<Doc> {
    let matcher = TextMatcher::new(&MatchingSettings::default()).unwrap();
    let mut rng = Rng(seed);
    let texts: Vec<String> = (0..n)
        .map(|i| {
            let group = (i / WRITERS) as u64;
            if group % 2 == 1 {
                return random_text(seed * 10_000 + i as u64, 120);
            }
            let base = random_text(seed * 10_000 + group * 7_919, 120);
            let mut words: Vec<&str> = base.split(' ').collect();
            let at = rng.below(words.len() as u64) as usize;
            words[at] = "edited";
            words.join(" ")
        })
        .collect();
    (texts.iter().enumerate())
        .map(|(i, text)| {
            let (fingerprint, signature) = matcher.fingerprint_and_signature(text);
            let fingerprint = fingerprint.expect("a text with words");
            (format!("doc{i}"), fingerprint, signature)
        })
        .collect()
}

fn near(a: &Doc, b: &Doc, matcher: &TextMatcher) -> bool {
    matcher
        .judge_values((Some(a.1), a.2.as_deref()), (Some(b.1), b.2.as_deref()))
        .near
}

/// Every writer decides its share of `docs` (each document by two writers, as two nodes
/// fetch one page), all at once; `during` runs in the middle. Returns each id's number
/// and whether it was admitted.
fn run_writers(
    namespace: &str,
    docs: &[Doc],
    during: impl FnOnce(),
) -> HashMap<String, (u64, bool)> {
    let settings = MatchingSettings::default();
    let barrier = Arc::new(Barrier::new(WRITERS));
    let decided = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let docs: Vec<Doc> = (docs.iter().enumerate())
                .filter(|(i, _)| i % WRITERS == writer || (i + 1) % WRITERS == writer)
                .map(|(_, doc)| doc.clone())
                .collect();
            let (barrier, decided) = (barrier.clone(), decided.clone());
            let namespace = namespace.to_owned();
            let verification = settings.get_verification().cloned();
            let distance = settings.get_distance();
            std::thread::spawn(move || {
                let registry = SharedRegistry::connect(
                    &seeds(),
                    &namespace,
                    &format!("writer{writer}"),
                    distance,
                    verification.as_ref(),
                )
                .unwrap();
                barrier.wait();
                let mut decisions = Vec::new();
                for (id, fingerprint, signature) in &docs {
                    let decision = registry.decide(id, *fingerprint, signature.as_deref());
                    decisions.push((id.clone(), decision.unwrap()));
                    decided.fetch_add(1, Ordering::Relaxed);
                }
                decisions
            })
        })
        .collect();
    // `during` once half the decisions are made (or the writers stopped early).
    let half = 2 * docs.len() / 2;
    while decided.load(Ordering::Relaxed) < half && !threads.iter().all(|t| t.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    during();
    // Each id's decision by the writer that registered it; the other writer of the id
    // is told where it went (`Elsewhere`) or the same rejection.
    let mut outcome: HashMap<String, (u64, bool)> = HashMap::new();
    let mut elsewhere: HashMap<String, usize> = HashMap::new();
    let mut rejections: HashMap<String, Vec<u64>> = HashMap::new();
    for thread in threads {
        for (id, decision) in thread.join().unwrap() {
            match decision {
                SharedDecision::Admitted { seq } => {
                    assert!(
                        outcome.insert(id.clone(), (seq, true)).is_none(),
                        "{id} admitted twice"
                    );
                }
                SharedDecision::Rejected { seq, .. } => rejections.entry(id).or_default().push(seq),
                SharedDecision::Elsewhere { .. } => *elsewhere.entry(id).or_default() += 1,
            }
        }
    }
    for (id, seqs) in rejections {
        assert!(seqs.windows(2).all(|w| w[0] == w[1]), "{id}: one number");
        assert!(!outcome.contains_key(&id), "{id} admitted and rejected");
        outcome.insert(id, (seqs[0], false));
    }
    for (id, count) in elsewhere {
        assert_eq!(count, 1, "{id}");
        assert_eq!(
            outcome.get(&id).map(|&(_, admitted)| admitted),
            Some(true),
            "{id}"
        );
    }
    outcome
}

/// One writer's decisions, taking the documents in the cluster's numbering.
fn check_against_one_writer(docs: &[Doc], outcome: &HashMap<String, (u64, bool)>) {
    let matcher = TextMatcher::new(&MatchingSettings::default()).unwrap();
    let mut numbered: Vec<(&Doc, u64, bool)> = (docs.iter())
        .map(|doc| (doc, outcome[&doc.0].0, outcome[&doc.0].1))
        .collect();
    numbered.sort_by_key(|&(_, seq, _)| seq);
    let mut admitted: Vec<&Doc> = Vec::new();
    let mut rejected = 0;
    for (doc, _, got) in numbered {
        let expected = !admitted.iter().any(|kept| near(kept, doc, &matcher));
        assert_eq!(
            got, expected,
            "{}: admitted by the cluster, by one writer",
            doc.0
        );
        if expected {
            admitted.push(doc);
        } else {
            rejected += 1;
        }
    }
    assert!(
        rejected * 3 > docs.len(),
        "planted near-duplicates are rejected: {rejected}"
    );
}

#[test]
fn writers_at_once_admit_what_one_writer_would() {
    let namespace = format!("test-{}", std::process::id());
    let docs = documents(1, 300);
    let outcome = run_writers(&namespace, &docs, || {});
    check_against_one_writer(&docs, &outcome);

    // A resumed run: every document decided as before, without a new number.
    let settings = MatchingSettings::default();
    let registry = SharedRegistry::connect(
        &seeds(),
        &namespace,
        "writer0",
        settings.get_distance(),
        settings.get_verification(),
    )
    .unwrap();
    for (id, fingerprint, signature) in docs.iter().take(30) {
        let again = registry
            .decide(id, *fingerprint, signature.as_deref())
            .unwrap();
        match again {
            SharedDecision::Admitted { seq } | SharedDecision::Rejected { seq, .. } => {
                assert_eq!(seq, outcome[id].0, "{id}");
            }
            // Registered and admitted by another writer.
            SharedDecision::Elsewhere { .. } => assert!(outcome[id].1, "{id}"),
        }
    }

    // A master killed halfway: the writers go on, and the guarantee holds.
    let Ok(dir) = std::env::var("TANTIVY_DEDUP_REDIS_DIR") else {
        panic!("TANTIVY_DEDUP_REDIS_DIR: the folder of scripts/redis-cluster.sh start");
    };
    let docs = documents(2, 300);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/redis-cluster.sh");
    let outcome = run_writers(&format!("{namespace}-failover"), &docs, || {
        let killed = Command::new("bash")
            .args([script, "kill-master", &dir])
            .output()
            .unwrap();
        assert!(
            killed.status.success(),
            "{}",
            String::from_utf8_lossy(&killed.stderr)
        );
    });
    check_against_one_writer(&docs, &outcome);
}

#[test]
fn an_unreachable_cluster_is_a_clear_error() {
    let verification = Verification::default().threshold(DEFAULT_THRESHOLD);
    let error = SharedRegistry::connect(
        &["redis://127.0.0.1:1".into()],
        "x",
        "w",
        3,
        Some(&verification),
    )
    .unwrap_err();
    assert!(matches!(error, Error::Cluster { .. }), "{error:?}");
    assert!(error.to_string().contains("Redis Cluster"), "{error}");
}
