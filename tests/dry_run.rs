//! `DedupWriter::check`, the writer's dry run: for every document of a stream with new
//! pages, verbatim and edited copies, pages crawled again with the same or other text, and
//! commits between, it says what the following `add` does, under every policy, and changes
//! nothing.

mod support;

use support::index::create;
use support::rng::Rng;
use tantivy::doc;
use tantivy_dedup::plugin::{AddOutcome, Check, DedupSettings, Policy};

const MEMORY: usize = 15_000_000;

fn words(seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..150)
        .map(|_| format!("w{}", rng.next() % 50_000))
        .collect()
}

/// `(url, body)` pairs: originals, exact and edited copies under other URLs, and URLs
/// crawled again.
fn stream() -> Vec<(String, String)> {
    let mut rng = Rng(11);
    let mut originals: Vec<Vec<String>> = Vec::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for i in 0..150u64 {
        let roll = rng.next() % 10;
        let entry = if originals.is_empty() || roll < 4 {
            let text = words(1000 + i);
            originals.push(text.clone());
            (format!("u{i}"), text.join(" "))
        } else if roll < 7 {
            let mut text = originals[(rng.next() % originals.len() as u64) as usize].clone();
            for j in (0..text.len()).step_by(10 + (rng.next() % 30) as usize) {
                text[j] = format!("x{}", rng.next() % 1000);
            }
            (format!("u{i}"), text.join(" "))
        } else {
            // A URL seen before, with its text or another.
            let (url, body) = out[(rng.next() % out.len() as u64) as usize].clone();
            if roll < 9 {
                (url, body)
            } else {
                (url, words(5000 + i).join(" "))
            }
        };
        out.push(entry);
    }
    out
}

#[test]
fn check_says_what_add_does_and_changes_nothing() {
    for policy in [Policy::Reject, Policy::Flag, Policy::Replace] {
        let dir = tempfile::tempdir().unwrap();
        let settings = DedupSettings::new(["body"])
            .key_field("url")
            .flagging(policy == Policy::Flag);
        let index = create(dir.path(), settings);
        let schema = index.index().schema();
        let (url, body) = (
            schema.get_field("url").unwrap(),
            schema.get_field("body").unwrap(),
        );
        let writer = index.writer(policy, MEMORY).unwrap();
        let mut kinds = [0usize; 4];
        for (n, (key, text)) in stream().into_iter().enumerate() {
            let document = doc!(url => key.as_str(), body => text.as_str());
            let references = writer.references();
            let checked = writer.check(&document).unwrap();
            assert_eq!(
                writer.check(&document).unwrap(),
                checked,
                "a check is repeatable"
            );
            assert_eq!(writer.references(), references, "a check adds nothing");
            let outcome = writer.add(document).unwrap();
            match (&checked, &outcome) {
                (
                    Check::New {
                        update: false,
                        fingerprint,
                    },
                    AddOutcome::Added { fingerprint: f, .. },
                )
                | (
                    Check::New {
                        update: true,
                        fingerprint,
                    },
                    AddOutcome::Updated { fingerprint: f, .. },
                ) => {
                    assert_eq!(fingerprint, f);
                    kinds[usize::from(matches!(outcome, AddOutcome::Updated { .. }))] += 1;
                }
                (Check::Exists { key }, AddOutcome::Exists { key: k }) => {
                    assert_eq!(key, k);
                    kinds[2] += 1;
                }
                (Check::Duplicate { fingerprint, of }, outcome) => {
                    kinds[3] += 1;
                    match outcome {
                        AddOutcome::Rejected {
                            fingerprint: f,
                            duplicate_of,
                        }
                        | AddOutcome::Flagged {
                            fingerprint: f,
                            duplicate_of,
                            ..
                        } => {
                            assert_eq!((fingerprint, &of[0]), (f, duplicate_of));
                        }
                        AddOutcome::Replaced {
                            fingerprint: f,
                            replaced,
                            ..
                        } => {
                            assert_eq!((fingerprint, of), (f, replaced));
                        }
                        other => panic!("{n}: checked {checked:?}, added {other:?}"),
                    }
                }
                (checked, outcome) => panic!("{n}: checked {checked:?}, added {outcome:?}"),
            }
            if n % 40 == 39 {
                writer.commit().unwrap();
            }
        }
        assert!(
            kinds.iter().all(|&k| k > 0),
            "{policy:?}: every kind met: {kinds:?}"
        );
    }
}
