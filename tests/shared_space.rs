//! What a shared near-duplicate space promises its writers whatever their clocks, names and
//! settings, on a real Redis Cluster (`scripts/redis-cluster.sh start`, seed addresses in
//! `TANTIVY_DEDUP_REDIS`), through `ingest --cluster` and `repair` processes: writers whose
//! clocks are 20 s apart (Debian's `faketime`) admit no id twice and no near-duplicate
//! pair. Run by `.ci/run` with `--features cluster`, as `tests/shared_registry.rs`.
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
    let matcher = TextMatcher::new(&index.dedup.settings().matching()).unwrap();
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
