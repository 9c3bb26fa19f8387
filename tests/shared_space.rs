//! What a shared near-duplicate space promises its writers whatever their clocks, names and
//! settings, on a real Redis Cluster (`scripts/redis-cluster.sh start`, seed addresses in
//! `TANTIVY_DEDUP_REDIS`), through `ingest --cluster`, `repair` and `search` processes:
//! writers whose clocks are 20 s apart (Debian's `faketime`) admit no id twice and no
//! near-duplicate pair; a shard keeps its identity when moved, a copy cannot write beside
//! its original, one name cannot serve two shards, and `repair` keeps what the space gives
//! to a writer that is not running; other fingerprint settings in a namespace are refused
//! naming the setting; a Redis not in cluster mode is named at once and a refused writer
//! creates nothing; a killed writer's name is free again within the lease. Run by
//! `.ci/run` with `--features cluster`, as `tests/shared_registry.rs`.
#![cfg(feature = "cluster")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tantivy_dedup::corpus::CorpusIndex;
use tantivy_dedup::matching::TextMatcher;

mod support;

use support::index::random_text;
use support::rng::Rng;

fn seeds() -> String {
    std::env::var("TANTIVY_DEDUP_REDIS").expect(
        "TANTIVY_DEDUP_REDIS: the seed addresses of a Redis Cluster \
         (scripts/redis-cluster.sh start prints them), separated by commas",
    )
}

const BIN: &str = env!("CARGO_BIN_EXE_tantivy-dedup");

/// `count` pages: groups of three near-duplicates (one word edited) and unrelated pages,
/// by turns, their ids `{prefix}{i}`.
fn pages(prefix: &str, count: u64, seed: u64) -> Vec<(String, String)> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|i| {
            let group = i / 3;
            let text = if group % 2 == 0 {
                let base = random_text(seed * 100_000 + group, 100);
                let mut words: Vec<&str> = base.split(' ').collect();
                let at = rng.below(words.len() as u64) as usize;
                words[at] = "edited";
                words.join(" ")
            } else {
                random_text(seed * 100_000 + 50_000 + i, 100)
            };
            (format!("{prefix}{i}"), text)
        })
        .collect()
}

/// Writes `pages` as JSON lines at `path`.
fn write_input(path: &Path, pages: &[(String, String)]) {
    let lines: String = (pages.iter())
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
        .collect();
    std::fs::write(path, lines).unwrap();
}

/// `ingest --cluster` of `input` into `shard` in the space `namespace`, run through
/// `faketime -f OFFSET` when `clock` names one, its report on standard output.
fn ingest(clock: Option<&str>, namespace: &str, shard: &Path, input: &Path) -> Command {
    let mut command = match clock {
        Some(offset) => {
            let mut command = Command::new("faketime");
            command.args(["-f", offset, BIN]);
            command
        }
        None => Command::new(BIN),
    };
    command
        .args(["ingest", "--report", "-", "--commit-every", "50"])
        .args(["--cluster", &seeds(), "--cluster-namespace", namespace])
        .arg("--index")
        .arg(shard)
        .arg(input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The report lines of a finished `ingest`, which must have succeeded.
fn report(child: std::process::Child) -> Vec<serde_json::Value> {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    support::cli::lines(&output)
}

/// The ids reported "added" by more than one of `reports`, and the near-duplicate pairs
/// among all the ids added (judged by `shard`'s rule on `pages`' texts).
fn twice_and_pairs(
    reports: &[Vec<serde_json::Value>],
    pages: &[(String, String)],
    shard: &Path,
) -> (Vec<String>, Vec<(String, String)>) {
    let mut added: HashMap<String, usize> = HashMap::new();
    for report in reports {
        for line in report.iter().filter(|line| line["status"] == "added") {
            *added
                .entry(line["id"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    let mut twice: Vec<String> = (added.iter())
        .filter(|(_, &count)| count > 1)
        .map(|(id, _)| id.clone())
        .collect();
    twice.sort();
    let index = CorpusIndex::open(shard).unwrap();
    let matcher = TextMatcher::new(index.dedup.settings().get_matching()).unwrap();
    let text_of: HashMap<&str, &str> = (pages.iter())
        .map(|(id, text)| (id.as_str(), text.as_str()))
        .collect();
    let mut kept: Vec<(&String, _)> = (added.keys())
        .map(|id| (id, matcher.fingerprint_and_signature(text_of[id.as_str()])))
        .collect();
    kept.sort_by_key(|(id, _)| id.as_str());
    let mut pairs = Vec::new();
    for (n, (a, (fa, sa))) in kept.iter().enumerate() {
        for (b, (fb, sb)) in &kept[n + 1..] {
            if matcher
                .judge_values((*fa, sa.as_deref()), (*fb, sb.as_deref()))
                .near
            {
                pairs.push(((*a).clone(), (*b).clone()));
            }
        }
    }
    (twice, pairs)
}

/// Three writers on one input at once, one clock 20 s ahead, one 20 s behind: every lease
/// is judged by the Redis server's clock, so no writer takes another's live registration
/// for a dead writer's, and the space admits each id once and no near-duplicate pair.
#[test]
fn writers_with_clocks_20_s_apart_admit_no_id_twice_nor_a_near_duplicate_pair() {
    let faketime = Command::new("faketime")
        .args(["-f", "+0s", "true"])
        .status();
    assert!(
        faketime.is_ok_and(|status| status.success()),
        "faketime is needed (apt-get install faketime)"
    );
    let dir = tempfile::tempdir().unwrap();
    let namespace = format!("clocks-{}", std::process::id());
    let pages = pages("page", 450, 3);
    let input = dir.path().join("input.jsonl");
    write_input(&input, &pages);
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| dir.path().join(format!("shard{i}")))
        .collect();
    let clocks = [Some("+20s"), Some("-20s"), None];
    let children: Vec<_> = (clocks.iter().zip(&shards))
        .map(|(clock, shard)| {
            (ingest(*clock, &namespace, shard, &input).spawn()).expect("the writer starts")
        })
        .collect();
    let reports: Vec<_> = children.into_iter().map(report).collect();
    let (twice, pairs) = twice_and_pairs(&reports, &pages, &shards[2]);
    assert!(
        twice.is_empty() && pairs.is_empty(),
        "{} ids added in two shards ({:?}...), {} near-duplicate pairs added ({:?}...)",
        twice.len(),
        twice.iter().take(5).collect::<Vec<_>>(),
        pairs.len(),
        pairs.iter().take(5).collect::<Vec<_>>()
    );
    let added: usize = (reports.iter().flatten())
        .filter(|line| line["status"] == "added")
        .count();
    assert_eq!(added, 450 / 2 + 450 / 3 / 2, "one page of each group");
}

/// `tantivy-dedup ARGS`, its exit status, JSON lines on standard output and standard error.
fn run(args: &[&str]) -> (bool, Vec<serde_json::Value>, String) {
    let output = support::cli::run(args, b"");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (
        output.status.success(),
        support::cli::lines(&output),
        stderr,
    )
}

/// The `--cluster` options for the space `namespace`.
fn cluster<'a>(seeds: &'a str, namespace: &'a str) -> [&'a str; 4] {
    ["--cluster", seeds, "--cluster-namespace", namespace]
}

/// The number of documents in the shard at `dir`.
fn num_docs(dir: &Path) -> u64 {
    let index = CorpusIndex::open(dir).unwrap();
    index.dedup.index().reader().unwrap().searcher().num_docs()
}

/// A shard keeps its identity in its folder: moved, it is still the writer that admitted
/// its documents (`repair` finds no gap, a second run finds them "exists"); a copy cannot
/// write while the original runs; and two shards cannot share one name.
#[test]
fn a_shard_keeps_its_identity_when_moved_and_shares_it_with_no_other_live_writer() {
    let dir = tempfile::tempdir().unwrap();
    let namespace = format!("identity-{}", std::process::id());
    let seeds = seeds();
    let input = dir.path().join("input.jsonl");
    write_input(&input, &pages("doc", 60, 4));
    let input = input.to_str().unwrap();
    let shard = dir.path().join("shard");
    let (shard, moved) = (shard.to_str().unwrap(), dir.path().join("moved"));
    let mut args = vec!["ingest", "--report", "-", "--index", shard];
    args.extend(cluster(&seeds, &namespace));
    args.push(input);
    let (ok, first, stderr) = run(&args);
    assert!(ok, "{stderr}");
    let added = first.iter().filter(|l| l["status"] == "added").count();
    assert_eq!(added, 60 / 2 + 60 / 3 / 2);
    let identity = tantivy_dedup::shared::ShardIdentity::read(Path::new(shard))
        .unwrap()
        .expect("the shard keeps its identity");

    // Moved: repair finds nothing to mend, and removes nothing.
    std::fs::rename(shard, &moved).unwrap();
    let moved = moved.to_str().unwrap();
    let mut repair = vec!["repair", "--index", moved];
    repair.extend(cluster(&seeds, &namespace));
    let (ok, gaps, stderr) = run(&repair);
    assert!(ok, "{stderr}");
    assert!(gaps.is_empty(), "a moved shard is still itself: {gaps:?}");
    assert_eq!(num_docs(Path::new(moved)), added as u64);
    let mut again = vec!["ingest", "--report", "-", "--index", moved];
    again.extend(cluster(&seeds, &namespace));
    again.push(input);
    let (ok, second, stderr) = run(&again);
    assert!(ok, "{stderr}");
    let held: Vec<&serde_json::Value> = (first.iter())
        .filter(|l| l["status"] == "added")
        .map(|l| &l["id"])
        .collect();
    for line in &second {
        // Its own documents, and near-duplicates of them: nothing is another writer's.
        let own = match line["status"].as_str() {
            Some("exists") => line["shared"].is_null(),
            Some("duplicate") => held.contains(&&line["duplicate_of"]),
            _ => false,
        };
        assert!(own, "{line}");
    }

    // A copy, while the original runs (its input still open): refused.
    let copy = dir.path().join("copy");
    let status = Command::new("cp")
        .args(["-r", moved])
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let mut running = Command::new(BIN)
        .args(["ingest", "--index", moved])
        .args(cluster(&seeds, &namespace))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lease = format!("{namespace}:w:{}", identity.node);
    let mut connection = (redis::cluster::ClusterClient::new(seeds.split(',').collect::<Vec<_>>()))
        .unwrap()
        .get_connection()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !redis::cmd("EXISTS")
        .arg(&lease)
        .query::<bool>(&mut connection)
        .unwrap()
    {
        assert!(std::time::Instant::now() < deadline, "the writer joins");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut on_copy = vec!["ingest", "--index", copy.to_str().unwrap()];
    on_copy.extend(cluster(&seeds, &namespace));
    on_copy.push(input);
    let started = std::time::Instant::now();
    let (ok, _, stderr) = run(&on_copy);
    assert!(!ok, "a copy writes beside its original");
    assert!(stderr.contains("is running"), "{stderr}");
    assert!(stderr.contains(&identity.node), "{stderr}");
    assert!(started.elapsed().as_secs() < 12, "{:?}", started.elapsed());
    let mut stdin = running.stdin.take().unwrap();
    let late = serde_json::json!({"id": "late", "text": random_text(99, 50)});
    std::io::Write::write_all(&mut stdin, format!("{late}\n").as_bytes()).unwrap();
    drop(stdin);
    let output = running.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // One name given to two shards: the second is refused, and nothing is created.
    let others = dir.path().join("others.jsonl");
    write_input(&others, &pages("other", 30, 5));
    let named = |shard: &Path| {
        let mut args = vec!["ingest", "--index", shard.to_str().unwrap()];
        args.extend(cluster(&seeds, &namespace));
        args.extend(["--node", "twice", others.to_str().unwrap()]);
        run(&args)
    };
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let (ok, _, stderr) = named(&one);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = named(&two);
    assert!(!ok, "two shards under one name");
    assert!(stderr.contains("belongs to another shard"), "{stderr}");
    assert!(!two.exists(), "a refused writer creates nothing");

    // A shard run under another name: what the space gives to the name it had, which no
    // live writer holds, is kept, and said.
    let mut renamed = vec!["repair", "--index", one.to_str().unwrap()];
    renamed.extend(cluster(&seeds, &namespace));
    renamed.extend(["--node", "renamed"]);
    let before = num_docs(&one);
    let (ok, gaps, stderr) = run(&renamed);
    assert!(ok, "{stderr}");
    assert!(!gaps.is_empty());
    assert!(
        (gaps.iter()).all(|l| l["action"] == "kept" && l["node"] == "twice"),
        "{gaps:?}"
    );
    assert!(stderr.contains("--node"), "{stderr}");
    assert_eq!(num_docs(&one), before, "nothing removed");
    assert!(before > 0);
}

/// One set of fingerprint settings per namespace, its first writer's: a writer, `repair`
/// or `search` with other settings (or another rule) is refused, naming the setting, and a
/// refused writer creates nothing.
#[test]
fn other_fingerprint_settings_in_a_namespace_are_refused_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let namespace = format!("settings-{}", std::process::id());
    let seeds = seeds();
    let input = dir.path().join("input.jsonl");
    write_input(&input, &pages("doc", 30, 6));
    let input = input.to_str().unwrap();
    let first = dir.path().join("first");
    let mut args = vec!["ingest", "--index", first.to_str().unwrap()];
    args.extend(cluster(&seeds, &namespace));
    args.push(input);
    let (ok, _, stderr) = run(&args);
    assert!(ok, "{stderr}");
    for (n, (options, setting)) in [
        (&["--features", "words"][..], "fingerprint.features.kind"),
        (
            &["--seed", "7"][..],
            "fingerprint.seed: 0 in the space, 7 here",
        ),
        (
            &["--n", "5"][..],
            "fingerprint.features.n: 3 in the space, 5 here",
        ),
        (&["--weighting", "tf-idf"][..], "fingerprint.weighting"),
        (&["--distance", "5"][..], "distance"),
    ]
    .into_iter()
    .enumerate()
    {
        let shard = dir.path().join(format!("other{n}"));
        let mut args = vec!["ingest", "--index", shard.to_str().unwrap()];
        args.extend(cluster(&seeds, &namespace));
        args.extend(options);
        args.push(input);
        let (ok, _, stderr) = run(&args);
        assert!(!ok, "{options:?} admitted");
        assert!(stderr.contains(setting), "{options:?}: {stderr}");
        assert!(
            !shard.exists(),
            "{options:?}: a refused writer creates nothing"
        );
    }
    // A shard made apart with another seed: repair and search refuse it too.
    let apart = dir.path().join("apart");
    let apart = apart.to_str().unwrap();
    let (ok, _, stderr) = run(&["ingest", "--index", apart, "--seed", "7", input]);
    assert!(ok, "{stderr}");
    let mut repair = vec!["repair", "--index", apart];
    repair.extend(cluster(&seeds, &namespace));
    let mut search = vec!["search", "--json", "--index", apart];
    search.extend(cluster(&seeds, &namespace));
    search.push("edited");
    for args in [&repair, &search] {
        let (ok, _, stderr) = run(args);
        assert!(!ok, "{args:?}");
        assert!(
            stderr.contains("fingerprint.seed: 0 in the space, 7 here"),
            "{args:?}: {stderr}"
        );
    }
    let mut search = vec!["search", "--json", "--index", first.to_str().unwrap()];
    search.extend(cluster(&seeds, &namespace));
    search.push("edited");
    let (ok, _, stderr) = run(&search);
    assert!(ok, "{stderr}");
}

/// A Redis that is not a cluster is said to be one at once; a bad address or a Redis out
/// of reach fails before the index folder is made.
#[test]
fn a_redis_not_in_cluster_mode_is_named_at_once_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let port = 31_790 + std::process::id() % 100;
    let mut redis = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server (Debian's redis-server package)");
    let url = format!("redis://127.0.0.1:{port}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port as u16)).is_err() {
        assert!(std::time::Instant::now() < deadline, "redis-server starts");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let input = dir.path().join("input.jsonl");
    write_input(&input, &pages("doc", 3, 7));
    let shard = dir.path().join("shard");
    let attempt = |url: &str| {
        let started = std::time::Instant::now();
        let args = [
            "ingest",
            "--index",
            shard.to_str().unwrap(),
            "--cluster",
            url,
            input.to_str().unwrap(),
        ];
        let (ok, _, stderr) = run(&args);
        assert!(!ok, "{url}");
        assert!(!shard.exists(), "{url}: nothing created");
        (stderr, started.elapsed())
    };
    let (stderr, took) = attempt(&url);
    redis.kill().unwrap();
    redis.wait().unwrap();
    assert!(stderr.contains("not in cluster mode"), "{stderr}");
    assert!(took.as_secs() < 5, "{took:?}");
    let (stderr, _) = attempt("not-an-address");
    assert!(stderr.contains("not-an-address"), "{stderr}");
    let (stderr, took) = attempt(&url);
    assert!(stderr.contains("no seed address answers"), "{stderr}");
    assert!(took.as_secs() < 5, "{took:?}");
}

/// A writer killed with SIGKILL keeps its name's lease until the Redis server expires it:
/// the shard's next run waits that out (the lease's 10 s at most) and goes on.
#[test]
fn a_killed_writer_frees_its_name_within_the_lease() {
    let dir = tempfile::tempdir().unwrap();
    let namespace = format!("killed-{}", std::process::id());
    let seeds = seeds();
    let shard = dir.path().join("shard");
    let input = dir.path().join("input.jsonl");
    write_input(&input, &pages("doc", 12, 8));
    let mut running = Command::new(BIN)
        .args(["ingest", "--index", shard.to_str().unwrap()])
        .args(cluster(&seeds, &namespace))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let identity = loop {
        // The identity is written once the writer joined and made the index.
        if let Ok(Some(identity)) = tantivy_dedup::shared::ShardIdentity::read(&shard) {
            break identity;
        }
        assert!(std::time::Instant::now() < deadline, "the writer joins");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    running.kill().unwrap();
    running.wait().unwrap();
    let started = std::time::Instant::now();
    let mut args = vec![
        "ingest",
        "--report",
        "-",
        "--index",
        shard.to_str().unwrap(),
    ];
    args.extend(cluster(&seeds, &namespace));
    args.push(input.to_str().unwrap());
    let (ok, report, stderr) = run(&args);
    assert!(ok, "{}: {stderr}", identity.node);
    assert_eq!(report.len(), 12);
    assert!(started.elapsed().as_secs() <= 12, "{:?}", started.elapsed());
}
