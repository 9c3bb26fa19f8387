//! The shared near-duplicate space on a real Redis Cluster (3 masters, 3 replicas on
//! loopback, `scripts/redis-cluster.sh start`, seed addresses in `TANTIVY_DEDUP_REDIS`):
//! several writers decide overlapping streams with planted near-duplicates at once, and
//! what they admit is what one writer would admit taking the documents in the cluster's
//! numbering; no admitted pair is a near-duplicate. Three `ingest --cluster` processes on
//! their own shards keep one page of each near-duplicate group across the shards while a
//! master is killed (`TANTIVY_DEDUP_REDIS_DIR` names the cluster's folder) and fails
//! over. Run by `.ci/run` with `--features cluster`.
#![cfg(feature = "cluster")]

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Arc, Barrier};

use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::matching::{MatchingSettings, TextMatcher};
use tantivy_dedup::matching::{Verification, DEFAULT_THRESHOLD};
use tantivy_dedup::shared::{SharedDecision, SharedRegistry};
use tantivy_dedup::Error;

mod support;

use support::index::random_text;
use support::rng::Rng;

const WRITERS: usize = 4;

/// The default fingerprint settings with the distance `distance` and `verification`.
fn rule(distance: u32, verification: Option<&Verification>) -> MatchingSettings {
    (MatchingSettings::default().distance(distance)).verification(verification.cloned())
}

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
/// fetch one page), all at once. Returns each id's number and whether it was admitted.
fn run_writers(namespace: &str, docs: &[Doc]) -> HashMap<String, (u64, bool)> {
    let settings = MatchingSettings::default();
    let barrier = Arc::new(Barrier::new(WRITERS));
    let threads: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let docs: Vec<Doc> = (docs.iter().enumerate())
                .filter(|(i, _)| i % WRITERS == writer || (i + 1) % WRITERS == writer)
                .map(|(_, doc)| doc.clone())
                .collect();
            let barrier = barrier.clone();
            let namespace = namespace.to_owned();
            let verification = settings.get_verification().cloned();
            let distance = settings.get_distance();
            std::thread::spawn(move || {
                let registry = SharedRegistry::connect(
                    &seeds(),
                    &namespace,
                    &format!("writer{writer}"),
                    &rule(distance, verification.as_ref()),
                )
                .unwrap();
                barrier.wait();
                let mut decisions = Vec::new();
                if writer % 2 == 1 {
                    // Half the writers decide windows of documents at once.
                    for window in docs.chunks(7) {
                        let window: Vec<_> = (window.iter())
                            .map(|(id, fingerprint, signature)| {
                                (id.as_str(), *fingerprint, signature.as_deref())
                            })
                            .collect();
                        let decided = registry.decide_window(&window).unwrap();
                        for ((id, _, _), decision) in window.iter().zip(decided) {
                            decisions.push((id.to_string(), decision.unwrap()));
                        }
                    }
                    return decisions;
                }
                for (id, fingerprint, signature) in &docs {
                    let decision = registry.decide(id, *fingerprint, signature.as_deref());
                    decisions.push((id.clone(), decision.unwrap()));
                }
                decisions
            })
        })
        .collect();
    // Each id's decision by the writer that registered it; the other writer of the id
    // is told where it went (`Elsewhere`) or the same rejection.
    let mut outcome: HashMap<String, (u64, bool)> = HashMap::new();
    let mut elsewhere: HashMap<String, usize> = HashMap::new();
    let mut rejections: HashMap<String, Vec<u64>> = HashMap::new();
    for thread in threads {
        for (id, decision) in thread.join().unwrap() {
            match decision {
                SharedDecision::Admitted { seq, .. } => {
                    assert!(
                        outcome.insert(id.clone(), (seq, true)).is_none(),
                        "{id} admitted twice"
                    );
                }
                SharedDecision::Rejected { seq, .. } => rejections.entry(id).or_default().push(seq),
                SharedDecision::Elsewhere { .. } => *elsewhere.entry(id).or_default() += 1,
                other => panic!("unexpected {other:?}"),
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
    let outcome = run_writers(&namespace, &docs);
    check_against_one_writer(&docs, &outcome);

    // A resumed run: every document decided as before, without a new number.
    let settings = MatchingSettings::default();
    let registry = SharedRegistry::connect(&seeds(), &namespace, "writer0", &settings).unwrap();
    for (id, fingerprint, signature) in docs.iter().take(30) {
        let again = registry
            .decide(id, *fingerprint, signature.as_deref())
            .unwrap();
        match again {
            SharedDecision::Admitted { seq, .. } | SharedDecision::Rejected { seq, .. } => {
                assert_eq!(seq, outcome[id].0, "{id}");
            }
            // Registered and admitted by another writer.
            SharedDecision::Elsewhere { .. } => assert!(outcome[id].1, "{id}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn an_unreachable_cluster_is_a_clear_error() {
    let verification = Verification::default().threshold(DEFAULT_THRESHOLD);
    let error = SharedRegistry::connect(
        &["redis://127.0.0.1:1".into()],
        "x",
        "w",
        &rule(3, Some(&verification)),
    )
    .unwrap_err();
    assert!(matches!(error, Error::Cluster { .. }), "{error:?}");
    assert!(error.to_string().contains("Redis Cluster"), "{error}");
}

/// Candidates found by a signature's band alone, where another document holds the band
/// value first (the space lists several ids under it): `c` shares with `b` only the band
/// `x` registered first, and no fingerprint block with anyone.
#[test]
fn a_band_value_lists_every_document_that_has_it() {
    let namespace = format!("bands-{}", std::process::id());
    let verification = Verification::default()
        .threshold(0.5)
        .candidate_distance(64);
    let (_, rows) = verification.get_bands().unwrap();
    let registry = |node: &str| {
        SharedRegistry::connect(&seeds(), &namespace, node, &rule(3, Some(&verification))).unwrap()
    };
    let (w1, w2, w3) = (registry("w1"), registry("w2"), registry("w3"));
    let hashes = Verification::default().get_hashes();
    let b: Vec<u32> = (0..hashes as u32).map(|v| v * 7 + 1).collect();
    // x: b's first band, nothing else of b's.
    let x: Vec<u32> = (b.iter().enumerate())
        .map(|(i, v)| if i < rows { *v } else { v + 1_000_000 })
        .collect();
    // c: b's first band, and all but one value of each other band of b's (no other band
    // key in common): near b by its score, not x.
    let c: Vec<u32> = (b.iter().enumerate())
        .map(|(i, v)| {
            if i >= rows && i % rows == 0 {
                v + 2_000_000
            } else {
                *v
            }
        })
        .collect();
    let (fx, fb, fc) = (
        Fingerprint(0),
        Fingerprint(u64::MAX),
        Fingerprint(0x5555_5555_5555_5555),
    );
    assert!(matches!(
        w1.decide("x", fx, Some(&x)).unwrap(),
        SharedDecision::Admitted { .. }
    ));
    assert!(matches!(
        w2.decide("b", fb, Some(&b)).unwrap(),
        SharedDecision::Admitted { .. }
    ));
    match w3.decide("c", fc, Some(&c)).unwrap() {
        SharedDecision::Rejected { by, .. } => assert_eq!(by, "b"),
        other => panic!("c is b's near-duplicate: {other:?}"),
    }
}

/// Two ids whose records are looked for first at the same slot of the same group (found by
/// search; `slots.rs` checks that they still do).
const SAME_SLOT: [&str; 2] = ["collide-2983", "collide-28156"];

#[test]
fn ids_that_share_a_slot_keep_records_of_their_own() {
    use tantivy_dedup::shared::SharedState;
    let namespace = format!("slots-{}", std::process::id());
    let registry = |node: &str| SharedRegistry::connect(&seeds(), &namespace, node, &rule(3, None));
    let (w1, w2) = (registry("w1").unwrap(), registry("w2").unwrap());
    let [a, b] = SAME_SLOT;
    let (fa, fb) = (Fingerprint(0), Fingerprint(u64::MAX));
    // Both in one window (one claim script), then each again alone and by another writer.
    let decided = w1.decide_window(&[(a, fa, None), (b, fb, None)]).unwrap();
    for decision in decided {
        assert!(
            matches!(
                decision.unwrap(),
                SharedDecision::Admitted { again: false, .. }
            ),
            "far apart: both admitted"
        );
    }
    for id in SAME_SLOT {
        assert_eq!(
            w1.state(id).unwrap(),
            Some(SharedState::Admitted { node: "w1".into() })
        );
        assert!(matches!(
            w1.decide(id, if id == a { fa } else { fb }, None).unwrap(),
            SharedDecision::Admitted { again: true, .. }
        ));
        assert_eq!(
            w2.decide(id, if id == a { fa } else { fb }, None).unwrap(),
            SharedDecision::Elsewhere { node: "w1".into() }
        );
    }
    // A near copy of the second finds it through its handle, named by its id.
    match w2.decide("copy", Fingerprint(u64::MAX ^ 1), None).unwrap() {
        SharedDecision::Rejected { by, .. } => assert_eq!(by, b),
        other => panic!("copy is {b}'s near-duplicate: {other:?}"),
    }
    // Giving the second up leaves the first alone, and reopens the copy.
    assert_eq!(w1.abort(b).unwrap(), ["copy"]);
    assert_eq!(
        w1.state(b).unwrap(),
        Some(SharedState::GivenUp { node: "w1".into() })
    );
    assert_eq!(
        w1.state(a).unwrap(),
        Some(SharedState::Admitted { node: "w1".into() })
    );
    assert_eq!(w1.admitted_ids().unwrap(), [a]);
}

#[test]
fn a_writer_with_another_rule_is_refused_by_the_space() {
    let namespace = format!("rule-{}", std::process::id());
    let verification = Verification::default().threshold(DEFAULT_THRESHOLD);
    let connect = |distance: u32, verification: Option<&Verification>| {
        SharedRegistry::connect(&seeds(), &namespace, "w", &rule(distance, verification))
    };
    connect(3, Some(&verification)).unwrap();
    // The space is the first writer's: the same rule again is welcome, any other refused.
    connect(3, Some(&verification)).unwrap();
    for (error, differs) in [
        (
            connect(4, Some(&verification)).unwrap_err(),
            "distance: 3 in the space, 4 here".to_owned(),
        ),
        (
            connect(3, Some(&verification.clone().threshold(0.9))).unwrap_err(),
            format!("verification.threshold: {DEFAULT_THRESHOLD} in the space, 0.9 here"),
        ),
        (
            connect(3, None).unwrap_err(),
            format!("verification.threshold: {DEFAULT_THRESHOLD} in the space, none here"),
        ),
    ] {
        let Error::SpaceMismatch { differences, .. } = &error else {
            panic!("{error:?}");
        };
        assert!(differences.contains(&differs), "{differences:?}");
        assert!(error.to_string().contains(&namespace), "{error}");
    }
    // A space an older build wrote (numbered documents, no description) is refused too.
    let older = format!("{namespace}-older");
    let mut connection = (redis::cluster::ClusterClient::new(seeds()).unwrap())
        .get_connection()
        .unwrap();
    redis::cmd("SET")
        .arg(format!("{older}:seq"))
        .arg(7)
        .query::<()>(&mut connection)
        .unwrap();
    // A space an earlier build of this layout described without the fingerprint settings
    // takes the first writer's, then holds the others to them.
    let earlier = format!("{namespace}-earlier");
    let described = serde_json::json!({
        "layout": 4, "groups": 16, "list_buckets": 64, "distance": 3,
        "verification": &verification
    });
    redis::cmd("SET")
        .arg(format!("{earlier}:space"))
        .arg(described.to_string())
        .query::<()>(&mut connection)
        .unwrap();
    SharedRegistry::connect(&seeds(), &earlier, "w", &rule(3, Some(&verification))).unwrap();
    let seeded = rule(3, Some(&verification));
    let seeded = (seeded.clone()).fingerprint(seeded.get_fingerprint().clone().seed(7));
    let error = SharedRegistry::connect(&seeds(), &earlier, "w", &seeded).unwrap_err();
    assert!(
        matches!(&error, Error::SpaceMismatch { differences, .. }
            if differences == &["fingerprint.seed: 0 in the space, 7 here".to_owned()]),
        "{error:?}"
    );
    let error =
        SharedRegistry::connect(&seeds(), &older, "w", &rule(3, Some(&verification))).unwrap_err();
    assert!(
        matches!(&error, Error::SpaceMismatch { differences, .. }
            if differences.contains(&"layout: 1 in the space, 4 here".to_owned())),
        "{error:?}"
    );
    // A space of layout 3 (ids in lists, sets of ids a writer) is refused by name.
    let three = format!("{namespace}-three");
    let ours: String = redis::cmd("GET")
        .arg(format!("{earlier}:space"))
        .query(&mut connection)
        .unwrap();
    redis::cmd("SET")
        .arg(format!("{three}:space"))
        .arg(ours.replace("\"layout\":4", "\"layout\":3"))
        .query::<()>(&mut connection)
        .unwrap();
    let error =
        SharedRegistry::connect(&seeds(), &three, "w", &rule(3, Some(&verification))).unwrap_err();
    assert!(
        matches!(&error, Error::SpaceMismatch { differences, .. }
            if differences == &["layout: 3 in the space, 4 here".to_owned()]),
        "{error:?}"
    );
}

#[test]
fn ingest_processes_on_their_own_shards_keep_one_copy_of_each_page() {
    use std::process::Stdio;
    use tantivy_dedup::corpus::CorpusIndex;

    let dir = tempfile::tempdir().unwrap();
    // Pages in groups of three near-duplicates (one word edited) and unrelated pages;
    // every page in the input of two of the three nodes, as two crawlers fetch one page.
    let mut rng = Rng(5);
    let pages: Vec<(String, String)> = (0..240u64)
        .map(|i| {
            let group = i / 3;
            let text = if group % 2 == 0 {
                let base = random_text(90_000 + group, 100);
                let mut words: Vec<&str> = base.split(' ').collect();
                let at = rng.below(words.len() as u64) as usize;
                words[at] = "edited";
                words.join(" ")
            } else {
                random_text(50_000 + i, 100)
            };
            (format!("page{i}"), text)
        })
        .collect();
    let nodes = 3;
    let inputs: Vec<std::path::PathBuf> = (0..nodes)
        .map(|node| {
            let path = dir.path().join(format!("input{node}.jsonl"));
            let lines: String = (pages.iter().enumerate())
                .filter(|(i, _)| i % nodes != node)
                .map(|(_, (id, text))| format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n"))
                .collect();
            std::fs::write(&path, lines).unwrap();
            path
        })
        .collect();
    let shards: Vec<std::path::PathBuf> = (0..nodes)
        .map(|node| dir.path().join(format!("shard{node}")))
        .collect();
    let namespace = format!("ingest-{}", std::process::id());
    let seeds = seeds().join(",");
    let children: Vec<_> = (0..nodes)
        .map(|node| {
            Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"))
                .args([
                    "ingest",
                    "--report",
                    "-",
                    "--commit-every",
                    "50",
                    "--cluster",
                ])
                .arg(&seeds)
                .args([
                    "--cluster-namespace",
                    &namespace,
                    "--node",
                    &format!("node{node}"),
                ])
                .arg("--index")
                .arg(&shards[node])
                .arg(&inputs[node])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // A master killed while the nodes ingest: they wait out the failover and go on.
    let dir_of_cluster = std::env::var("TANTIVY_DEDUP_REDIS_DIR")
        .expect("TANTIVY_DEDUP_REDIS_DIR: the folder of scripts/redis-cluster.sh start");
    std::thread::sleep(std::time::Duration::from_millis(150));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/redis-cluster.sh");
    let killed = Command::new("bash")
        .args([script, "kill-master", &dir_of_cluster])
        .output()
        .unwrap();
    assert!(
        killed.status.success(),
        "{}",
        String::from_utf8_lossy(&killed.stderr)
    );
    let reports: Vec<Vec<serde_json::Value>> = (children.into_iter())
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            support::cli::lines(&output)
        })
        .collect();
    // Each page is in one shard at most; the added pages hold no near-duplicate pair, and
    // every page left out has a near-duplicate (or itself) among them.
    let text_of: HashMap<&str, &str> = pages
        .iter()
        .map(|(i, t)| (i.as_str(), t.as_str()))
        .collect();
    let mut added: HashMap<String, usize> = HashMap::new();
    for (node, report) in reports.iter().enumerate() {
        for line in report {
            if line["status"] == "added" {
                let id = line["id"].as_str().unwrap().to_owned();
                assert!(
                    added.insert(id.clone(), node).is_none(),
                    "{id} in two shards"
                );
            }
        }
    }
    let judge = CorpusIndex::open(&shards[0]).unwrap();
    let near = |a: &str, b: &str| judge.dedup.judge(text_of[a], text_of[b]).near;
    let kept: Vec<&String> = added.keys().collect();
    for (n, a) in kept.iter().enumerate() {
        for b in &kept[n + 1..] {
            assert!(!near(a, b), "{a} and {b} both kept");
        }
    }
    for (node, report) in reports.iter().enumerate() {
        for line in report {
            let id = line["id"].as_str().unwrap();
            match line["status"].as_str().unwrap() {
                "added" => {}
                "exists" => assert!(added.contains_key(id), "node {node}: {line}"),
                "duplicate" => {
                    let by = line["duplicate_of"].as_str().unwrap();
                    assert!(
                        added.contains_key(by) && near(id, by),
                        "node {node}: {line}"
                    );
                }
                other => panic!("node {node}: {other}: {line}"),
            }
        }
    }
    let groups = 240 / 3 / 2;
    assert_eq!(
        added.len(),
        240 / 2 + groups,
        "one page of each near-duplicate group"
    );
    // The shards searched as one show each page once.
    let mut args = vec![
        "search".to_owned(),
        "--json".to_owned(),
        "--limit".to_owned(),
        "500".to_owned(),
    ];
    for shard in &shards {
        args.extend(["--index".to_owned(), shard.to_str().unwrap().to_owned()]);
    }
    args.push("edited".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = support::cli::run(&args, b"");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(page["hits"].as_array().unwrap().len(), groups);
    assert_eq!(page["hidden_total"], 0, "no copy in any shard: {page}");
}

/// The ids of the documents alive in the shard at `dir`.
fn ids_in(dir: &std::path::Path) -> Vec<String> {
    use tantivy::schema::{TantivyDocument, Value};
    let index = tantivy_dedup::corpus::CorpusIndex::open(dir).unwrap();
    let searcher = index.dedup.index().reader().unwrap().searcher();
    let mut ids = Vec::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            let document: TantivyDocument = searcher
                .doc(tantivy::DocAddress::new(ord as u32, doc))
                .unwrap();
            let id = document.get_first(index.fields.id).unwrap();
            ids.push(id.as_str().unwrap().to_owned());
        }
    }
    ids.sort();
    ids
}

/// `tantivy-dedup ARGS`, which must succeed; its JSON lines.
fn run_ok(args: &[&str]) -> Vec<serde_json::Value> {
    let output = support::cli::run(args, b"");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    support::cli::lines(&output)
}

#[test]
fn repair_mends_both_directions_between_a_shard_and_the_shared_space() {
    use std::collections::HashSet;
    use tantivy_dedup::corpus::CorpusIndex;
    use tantivy_dedup::shared::SharedState;

    let dir = tempfile::tempdir().unwrap();
    let namespace = format!("repair-{}", std::process::id());
    let seeds = seeds().join(",");
    let edited = |seed: u64| {
        let mut words: Vec<String> = random_text(seed, 100)
            .split(' ')
            .map(str::to_owned)
            .collect();
        words[40] = "edited".to_owned();
        words.join(" ")
    };
    let write = |name: &str, records: &[(String, String)]| {
        let path = dir.path().join(name);
        let lines: String = (records.iter())
            .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
            .collect();
        std::fs::write(&path, lines).unwrap();
        path
    };
    // Shard A was indexed before it joined: its own pages, near-duplicates of pages B
    // admits, and pages B holds under the same ids.
    let mut a: Vec<(String, String)> = (0..30)
        .map(|i| (format!("a{i}"), random_text(70_000 + i, 100)))
        .collect();
    a.extend((0..5).map(|g| (format!("dupA{g}"), edited(80_000 + g))));
    a.extend((0..5).map(|g| (format!("same{g}"), random_text(85_000 + g, 100))));
    let mut b: Vec<(String, String)> = (0..20)
        .map(|i| (format!("b{i}"), random_text(80_000 + i, 100)))
        .collect();
    b.extend((0..5).map(|g| (format!("same{g}"), random_text(85_000 + g, 100))));
    let ghost = random_text(88_000, 100);
    let mut ghost_copy = ghost.replacen("w", "x", 1);
    ghost_copy.push_str(" tail");
    b.push(("ghostcopy".to_owned(), ghost_copy.clone()));
    let (input_a, input_b) = (write("a.jsonl", &a), write("b.jsonl", &b));
    let (shard_a, shard_b) = (dir.path().join("shardA"), dir.path().join("shardB"));
    let (shard_a, shard_b) = (shard_a.to_str().unwrap(), shard_b.to_str().unwrap());
    run_ok(&["ingest", "--index", shard_a, input_a.to_str().unwrap()]);
    // A's writer admitted "ghost" in the shared space and died before its commit.
    let index_a = CorpusIndex::open(std::path::Path::new(shard_a)).unwrap();
    let settings = index_a.dedup.settings();
    let matcher = TextMatcher::new(settings.get_matching()).unwrap();
    let registry = |node: &str| {
        SharedRegistry::connect(
            &seeds.split(',').map(str::to_owned).collect::<Vec<_>>(),
            &namespace,
            node,
            settings.get_matching(),
        )
        .unwrap()
    };
    let as_a = registry("A");
    let (fingerprint, signature) = matcher.fingerprint_and_signature(&ghost);
    let decision = as_a
        .decide("ghost", fingerprint.unwrap(), signature.as_deref())
        .unwrap();
    assert!(matches!(decision, SharedDecision::Admitted { .. }));
    assert!(matcher.judge(&ghost, &ghost_copy).near, "the copy is near");
    let cluster = |node: &'static str| -> Vec<&str> {
        vec![
            "--cluster",
            &seeds,
            "--cluster-namespace",
            &namespace,
            "--node",
            node,
        ]
    };
    let ingest_b = |args: Vec<&str>| {
        let mut all = vec!["ingest", "--report", "-", "--index", shard_b];
        all.extend(args);
        all.push(input_b.to_str().unwrap());
        run_ok(&all)
    };
    let report = ingest_b(cluster("B"));
    let status = |report: &[serde_json::Value], id: &str| {
        let line = report.iter().find(|l| l["id"] == id).unwrap().clone();
        line["status"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        status(&report, "ghostcopy"),
        "duplicate",
        "kept out by a phantom"
    );

    // --check: every gap reported, nothing changed.
    let mut repair = vec!["repair", "--index", shard_a];
    repair.extend(cluster("A"));
    let mut check = repair.clone();
    check.push("--check");
    let gaps = run_ok(&check);
    let gap_of = |gaps: &[serde_json::Value], id: &str| {
        (gaps.iter().find(|l| l["id"] == id)).map(|l| l["gap"].as_str().unwrap().to_owned())
    };
    assert_eq!(gaps.len(), 30 + 5 + 5 + 1, "{gaps:?}");
    assert_eq!(gap_of(&gaps, "a0").as_deref(), Some("unregistered"));
    assert_eq!(gap_of(&gaps, "dupA0").as_deref(), Some("unregistered"));
    assert_eq!(gap_of(&gaps, "same0").as_deref(), Some("elsewhere"));
    let same0 = gaps.iter().find(|l| l["id"] == "same0").unwrap();
    assert_eq!(same0["node"], "B", "{same0}");
    assert_eq!(gap_of(&gaps, "ghost").as_deref(), Some("unindexed"));
    assert!(gaps.iter().all(|l| l["action"].is_null()));
    assert_eq!(as_a.state("a0").unwrap(), None, "--check changed nothing");
    assert_eq!(ids_in(std::path::Path::new(shard_a)).len(), 40);

    // The repair: A's pages registered, its near-duplicates and B's ids removed from A,
    // the phantom released and the copy it kept out reopened.
    // B runs meanwhile (the writer of its shard holds its name): its ids are removed
    // from A. A writer that is not running could be A itself under an older name.
    let token = tantivy_dedup::shared::ShardIdentity::read(std::path::Path::new(shard_b))
        .unwrap()
        .unwrap()
        .shard;
    let b_running = registry("B").join(&token).unwrap();
    let done = run_ok(&repair);
    drop(b_running);
    let line = |id: &str| done.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(line("a0")["action"], "registered");
    assert_eq!(line("dupA3")["action"], "removed");
    assert_eq!(line("dupA3")["duplicate_of"], "b3");
    assert_eq!(line("same2")["action"], "removed");
    assert_eq!(line("same2")["node"], "B");
    assert_eq!(line("ghost")["action"], "released");
    assert_eq!(line("ghost")["reopened"], serde_json::json!(["ghostcopy"]));
    assert_eq!(
        as_a.state("a0").unwrap(),
        Some(SharedState::Admitted { node: "A".into() })
    );
    assert!(matches!(
        as_a.state("ghostcopy").unwrap(),
        Some(SharedState::GivenUp { .. })
    ));
    assert!(run_ok(&check).is_empty(), "nothing left to mend");

    // B's run again: the copy is decided anew, and admitted.
    let again = ingest_b(cluster("B"));
    assert_eq!(status(&again, "ghostcopy"), "added");

    // Each id in one shard, and no near-duplicate pair across the two.
    let (in_a, in_b) = (
        ids_in(std::path::Path::new(shard_a)),
        ids_in(std::path::Path::new(shard_b)),
    );
    assert_eq!(in_a.len(), 30);
    let set_a: HashSet<&String> = in_a.iter().collect();
    assert!(
        in_b.iter().all(|id| !set_a.contains(id)),
        "{in_a:?} {in_b:?}"
    );
    let texts: HashMap<&str, &str> = (a.iter().chain(&b))
        .map(|(id, text)| (id.as_str(), text.as_str()))
        .collect();
    let kept: Vec<&String> = in_a.iter().chain(&in_b).collect();
    for (n, x) in kept.iter().enumerate() {
        for y in &kept[n + 1..] {
            assert!(
                !matcher.judge(texts[x.as_str()], texts[y.as_str()]).near,
                "{x} {y}"
            );
        }
    }
}

#[test]
fn dedup_writers_in_one_shared_space_keep_near_duplicates_out_across_indexes() {
    use support::index::{page as doc, schema_of};
    use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy};

    let namespace = format!("writers-{}", std::process::id());
    let settings = DedupSettings::new(["body"]).key_field("url");
    let make = |settings: &DedupSettings| {
        let index = tantivy::Index::create_in_ram(schema_of(settings));
        DedupIndex::create(index, settings.clone()).unwrap()
    };
    let (index_a, index_b) = (make(&settings), make(&settings));
    let registry = |node: &str| {
        SharedRegistry::connect(&seeds(), &namespace, node, settings.get_matching()).unwrap()
    };
    let page = |seed: u64| random_text(60_000 + seed, 100);
    let copy = |seed: u64| page(seed).replacen('w', "v", 1) + " more";
    // Before A joins, its index holds page 9: a document near it that the shared space
    // admits is left out by A's own index, and given up in the space again.
    let local = index_a.writer(Policy::Reject, 15_000_000).unwrap();
    local.add(doc(&index_a, "p9", &page(9))).unwrap();
    local.commit().unwrap();
    drop(local);

    let a = (index_a.writer(Policy::Reject, 15_000_000).unwrap())
        .shared(registry("A"))
        .unwrap();
    let b = (index_b.writer(Policy::Reject, 15_000_000).unwrap())
        .shared(registry("B"))
        .unwrap();
    assert!(matches!(
        a.add(doc(&index_a, "p1", &page(1))).unwrap(),
        AddOutcome::Added { .. }
    ));
    // B: a near-duplicate of A's page, the same id as A's page, and pages of its own, in
    // one batch (fingerprinted in parallel, decided in order).
    let outcomes: Vec<AddOutcome> = b
        .add_batch([
            doc(&index_b, "q1", &copy(1)),
            doc(&index_b, "p1", &page(1)),
            doc(&index_b, "q2", &page(2)),
        ])
        .into_iter()
        .map(Result::unwrap)
        .collect();
    match &outcomes[0] {
        AddOutcome::Rejected { duplicate_of, .. } => {
            assert_eq!(duplicate_of.key.as_deref(), Some("p1"));
            assert_eq!(duplicate_of.address, None, "in another shard");
            assert_eq!(
                Some(duplicate_of.fingerprint),
                a.index().hasher().fingerprint(&page(1)),
                "the other document's fingerprint"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcomes[1], AddOutcome::Exists { key: "p1".into() });
    assert!(matches!(outcomes[2], AddOutcome::Added { .. }));
    // A's copy of page 9 is rejected by A's index, then given up in the space: B's copy
    // gets in.
    assert!(matches!(
        a.add(doc(&index_a, "p9copy", &copy(9))).unwrap(),
        AddOutcome::Rejected { .. }
    ));
    assert!(matches!(
        b.add(doc(&index_b, "q9", &(copy(9) + " again"))).unwrap(),
        AddOutcome::Added { .. }
    ));
    // A new version of A's page 1 that A's index rejects (near page 9, which it held
    // before joining) leaves page 1 A's in the space: the index still holds it.
    assert!(matches!(
        a.add(doc(&index_a, "p1", &(copy(9) + " v2"))).unwrap(),
        AddOutcome::Rejected { .. }
    ));
    assert_eq!(
        registry("A").state("p1").unwrap(),
        Some(tantivy_dedup::shared::SharedState::Admitted { node: "A".into() })
    );
    // A document given up after it rejected another: that one is given up too, to be
    // decided anew.
    let (x, y) = (page(20), copy(20));
    let values = |text: &str| {
        let matcher = TextMatcher::new(settings.get_matching()).unwrap();
        let (fingerprint, signature) = matcher.fingerprint_and_signature(text);
        (fingerprint.unwrap(), signature)
    };
    let ((fx, sx), (fy, sy)) = (values(&x), values(&y));
    let (as_a, as_b) = (registry("A"), registry("B"));
    as_a.decide("x20", fx, sx.as_deref()).unwrap();
    let rejected = as_b.decide("y20", fy, sy.as_deref()).unwrap();
    assert!(matches!(rejected, SharedDecision::Rejected { ref by, .. } if by == "x20"));
    assert_eq!(as_a.abort("x20").unwrap(), ["y20"]);
    assert!(matches!(
        as_b.state("y20").unwrap(),
        Some(tantivy_dedup::shared::SharedState::GivenUp { .. })
    ));
    assert!(matches!(
        as_b.decide("y20", fy, sy.as_deref()).unwrap(),
        SharedDecision::Admitted { again: false, .. }
    ));
    // Only Reject, and only with keys.
    let flagging = make(&settings.clone().flagging(true));
    let error = (flagging.writer(Policy::Flag, 15_000_000).unwrap())
        .shared(registry("C"))
        .unwrap_err();
    assert!(
        matches!(error, Error::InvalidSetting { name: "policy", .. }),
        "{error}"
    );
}
