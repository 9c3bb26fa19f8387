//! Two-stage matching through the plugin: candidates within the verification's loose
//! distance, kept by the MinHash signatures stored beside the fingerprints — in the writer
//! (pending and committed references, across a reopen), in the batch helpers, and in the
//! settings check.

mod support;

use support::index::create;
use support::rng::Rng;
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::matching::Reason;
use tantivy_dedup::matching::{CandidateStage, PairScore, Verification};
use tantivy_dedup::plugin::{
    AddOutcome, DedupIndex, DedupSettings, Policy, SIGNATURE_FIELD, VALUES_FIELD,
};
use tantivy_dedup::Error;

const MEMORY: usize = 15_000_000;

fn words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| format!("w{}", rng.next() % 20_000))
        .collect()
}

/// `text` with every `period`-th word replaced by another.
fn edited(text: &[String], period: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    text.iter()
        .enumerate()
        .map(|(i, w)| {
            if i % period == period / 2 {
                format!("x{}", rng.next() % 20_000)
            } else {
                w.clone()
            }
        })
        .collect()
}

/// The same words in another order: close fingerprints (the character n-grams are mostly
/// within words), few shared word shingles.
fn shuffled(text: &[String], seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut out = text.to_vec();
    for i in (1..out.len()).rev() {
        out.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    out
}

fn distance(a: &[String], b: &[String]) -> u32 {
    let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
    let fa = hasher.fingerprint(&a.join(" ")).unwrap();
    fa.distance(hasher.fingerprint(&b.join(" ")).unwrap())
}

/// The rule these tests were written for: edits of 5 to 10% of the words found (threshold
/// 0.55, bands of 4), lower than the default's precision-first 0.8, so that the edited
/// copies below are near-duplicates beyond the distance.
fn edits() -> Verification {
    Verification::default()
        .threshold(0.55)
        .candidates(CandidateStage::Bands { rows: 4 })
}

fn settings(verification: Option<Verification>) -> DedupSettings {
    DedupSettings::new(["body"])
        .key_field("url")
        .matching(MatchingSettings::default().verification(verification))
}

fn add(
    index: &DedupIndex,
    writer: &tantivy_dedup::plugin::DedupWriter,
    url: &str,
    text: &[String],
) -> AddOutcome {
    let schema = index.index().schema();
    let body = schema.get_field("body").unwrap();
    let key = schema.get_field("url").unwrap();
    writer
        .add(doc!(key => url, body => text.join(" ")))
        .unwrap()
}

#[test]
fn verification_finds_edits_beyond_the_distance_and_refuses_shuffles() {
    let original = words(1, 300);
    let copy = edited(&original, 12, 2); // 1 word in 12: about 8%
    let other = shuffled(&original, 3);
    let (d_copy, d_other) = (distance(&original, &copy), distance(&original, &other));
    assert!(
        (4..=16).contains(&d_copy),
        "the edited copy must lie beyond 3 bits and within 16: {d_copy}"
    );
    assert!(
        (4..=16).contains(&d_other),
        "the shuffle must be a candidate: {d_other}"
    );
    eprintln!("distances: edited copy {d_copy}, shuffle {d_other}");

    // Fingerprints alone: both are new documents.
    let plain_dir = tempfile::tempdir().unwrap();
    let plain = create(plain_dir.path(), settings(None));
    let writer = plain.writer(Policy::Reject, MEMORY).unwrap();
    assert!(matches!(
        add(&plain, &writer, "a", &original),
        AddOutcome::Added { .. }
    ));
    assert!(matches!(
        add(&plain, &writer, "b", &copy),
        AddOutcome::Added { .. }
    ));
    assert!(matches!(
        add(&plain, &writer, "c", &other),
        AddOutcome::Added { .. }
    ));

    // Two-stage: the copy is a near-duplicate of the pending original, the shuffle is not.
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(Some(edits())));
    // Signatures kept in the segment component, fed by the values field.
    assert!(index.index().schema().get_field(VALUES_FIELD).is_ok());
    assert!(index.index().schema().get_field(SIGNATURE_FIELD).is_err());
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    assert!(matches!(
        add(&index, &writer, "a", &original),
        AddOutcome::Added { .. }
    ));
    let rejected = add(&index, &writer, "b", &copy);
    let duplicate = rejected.duplicate_of().expect("verified near-duplicate");
    // The index's judge says the same, and why.
    let judged = index.judge(&original.join(" "), &copy.join(" "));
    assert!(judged.near, "{judged:?}");
    assert_eq!(judged.distance, Some(d_copy));
    assert!(
        matches!(judged.reason, Reason::Verified { .. }),
        "{judged:?}"
    );
    let judged = index.judge(&original.join(" "), &other.join(" "));
    assert!(!judged.near, "{judged:?}");
    assert!(
        matches!(
            judged.reason,
            Reason::NoSharedBand { .. } | Reason::BelowThreshold { .. }
        ),
        "{judged:?}"
    );
    assert!(!plain.judge(&original.join(" "), &copy.join(" ")).near);
    assert_eq!(duplicate.key.as_deref(), Some("a"));
    assert_eq!(duplicate.distance, d_copy);
    let similarity = duplicate.similarity.expect("a verified pair has a score");
    assert!(similarity >= 0.3, "{similarity}");
    let added = add(&index, &writer, "c", &other);
    assert!(matches!(added, AddOutcome::Added { .. }), "{added:?}");
    writer.commit().unwrap();
    drop(writer);

    // Reopened: the committed signatures are read back from the index.
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let writer = reopened.writer(Policy::Reject, MEMORY).unwrap();
    let again = edited(&original, 11, 4);
    assert!(distance(&original, &again) > 3);
    let outcome = add(&reopened, &writer, "d", &again);
    let duplicate = outcome
        .duplicate_of()
        .expect("near-duplicate of a committed doc");
    assert!(duplicate.address.is_some(), "committed");
    assert_eq!(duplicate.key.as_deref(), Some("a"));

    // The batch helpers apply the same rule.
    let searcher = writer.searcher();
    let near = reopened
        .near_duplicates_of_text(&searcher, &copy.join(" "), 3)
        .unwrap();
    assert_eq!(near.len(), 1, "the original, not the shuffle: {near:?}");
    assert!(near[0].similarity.is_some());
    assert!(reopened.duplicate_groups(&searcher, 3).unwrap().is_empty());
}

#[test]
fn flag_replace_and_groups_follow_the_verified_rule() {
    let original = words(10, 250);
    let copy = edited(&original, 12, 11);
    let other = shuffled(&original, 12);
    assert!(distance(&original, &copy) > 3);

    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(Some(edits())).flagging(true));
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    add(&index, &writer, "a", &original);
    add(&index, &writer, "c", &other);
    let flagged = add(&index, &writer, "b", &copy);
    assert!(matches!(flagged, AddOutcome::Flagged { .. }), "{flagged:?}");
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let groups = index.duplicate_groups(&searcher, 3).unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0].members.len(), 1);
    let key = |address| {
        let doc: tantivy::TantivyDocument = searcher.doc(address).unwrap();
        let url = index.index().schema().get_field("url").unwrap();
        use tantivy::schema::Value;
        doc.get_first(url).unwrap().as_str().unwrap().to_owned()
    };
    // The original and its copy, whichever leads (they are near the same documents).
    let mut grouped = [key(groups[0].leader), key(groups[0].members[0])];
    grouped.sort();
    assert_eq!(grouped, ["a", "b"]);
    drop(writer);

    // Replace: the newer version wins, the shuffle stays.
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(Some(edits())));
    let writer = index.writer(Policy::Replace, MEMORY).unwrap();
    add(&index, &writer, "a", &original);
    add(&index, &writer, "c", &other);
    writer.commit().unwrap();
    let outcome = add(&index, &writer, "b", &copy);
    assert!(
        matches!(outcome, AddOutcome::Replaced { ref replaced, .. } if replaced.len() == 1),
        "{outcome:?}"
    );
    writer.commit().unwrap();
    assert_eq!(writer.searcher().num_docs(), 2, "b replaced a; c stays");
}

#[test]
fn the_signature_is_frozen_and_the_rest_can_change() {
    let dir = tempfile::tempdir().unwrap();
    create(dir.path(), settings(Some(edits())));
    let open = |settings: DedupSettings| {
        DedupIndex::open_with(Index::open_in_dir(dir.path()).unwrap(), &settings)
    };
    let changed = edits()
        .candidate_distance(12)
        .threshold(0.5)
        .score(PairScore::combined());
    let index = open(settings(Some(changed.clone()))).unwrap();
    assert_eq!(
        index.settings().get_matching().get_verification(),
        Some(&changed)
    );
    for (asked, field) in [
        (settings(None), "verification"),
        (settings(Some(edits().hashes(64))), "verification.hashes"),
    ] {
        match open(asked) {
            Err(Error::SettingsMismatch { differences }) => {
                assert!(
                    differences.iter().any(|d| d.field.starts_with(field)),
                    "{differences:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn the_writer_and_the_groups_find_near_pairs_on_a_corpus_of_edits() {
    // With `edits()`'s bands (32 bands of 4 values); then every candidate within the
    // candidate distance.
    writer_and_groups_agree(edits().threshold(0.25));
    writer_and_groups_agree(edits().threshold(0.25).candidates(CandidateStage::Scan));
}

/// Two implementations of one rule: the writer's lookup with in-memory signatures (half of
/// them read back after a reopen), and the groups' search of all pairs with the signatures
/// read from the index.
fn writer_and_groups_agree(verification: Verification) {
    let dir = tempfile::tempdir().unwrap();
    let index = create(
        dir.path(),
        settings(Some(verification.clone())).flagging(true),
    );
    let mut corpus = Vec::new();
    for base in 0..30u64 {
        let original = words(100 + base, 120 + 7 * base as usize);
        for (copy, period) in [4usize, 6, 9, 14, 25].into_iter().enumerate() {
            corpus.push(edited(&original, period, base * 10 + copy as u64));
        }
        corpus.push(shuffled(&original, base));
        corpus.push(original);
    }
    let mut flagged = std::collections::BTreeSet::new();
    // Groups of 7 (five edits, a shuffle, the original); the reopen falls inside one, so
    // that the second half meets references whose signatures are read from the index.
    let half = corpus.len() / 2 + 3;
    let mut writer = Some(index.writer(Policy::Flag, MEMORY).unwrap());
    let mut current = index.clone();
    for (i, text) in corpus.iter().enumerate() {
        if i == half {
            writer.take().unwrap().commit().unwrap();
            current = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
            writer = Some(current.writer(Policy::Flag, MEMORY).unwrap());
        }
        let w = writer.as_ref().unwrap();
        if let AddOutcome::Flagged { duplicate_of, .. } = add(&current, w, &format!("{i}"), text) {
            flagged.insert((duplicate_of.key.unwrap(), format!("{i}")));
        }
    }
    let writer = writer.unwrap();
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let url = current.index().schema().get_field("url").unwrap();
    let key = |address| {
        use tantivy::schema::Value;
        let doc: tantivy::TantivyDocument = searcher.doc(address).unwrap();
        doc.get_first(url).unwrap().as_str().unwrap().to_owned()
    };
    // The groups are formed from the near pairs, not replayed from the writer: every
    // member of a group is near its leader by the rule (at this threshold, below 0.5,
    // members may be apart from each other), and almost every flagged document is in one.
    let groups = current.duplicate_groups(&searcher, 3).unwrap();
    let mut grouped = std::collections::BTreeSet::new();
    for group in &groups {
        grouped.insert(key(group.leader));
        for &member in &group.members {
            grouped.insert(key(member));
            let judged = current
                .judge_stored(&searcher, group.leader, member)
                .unwrap();
            assert!(judged.near, "{}: {judged:?}", key(member));
        }
    }
    assert!(flagged.len() >= 60, "edits found: {}", flagged.len());
    let flagged_grouped = flagged.iter().filter(|(_, m)| grouped.contains(m)).count();
    assert!(
        flagged_grouped * 10 >= flagged.len() * 9,
        "{flagged_grouped} of {} flagged documents grouped",
        flagged.len()
    );

    // A third, with no band index: `near_duplicates_of` judges every pair of the index by
    // the rule. A document is flagged exactly when an earlier unflagged one is near it.
    let members: std::collections::BTreeSet<&String> = flagged.iter().map(|(_, m)| m).collect();
    let mut addresses = std::collections::HashMap::new();
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        for doc in 0..reader.max_doc() {
            let address = tantivy::DocAddress::new(ord as u32, doc);
            addresses.insert(key(address), address);
        }
    }
    for i in 0..corpus.len() {
        let near = current
            .near_duplicates_of(&searcher, addresses[&format!("{i}")], 3)
            .unwrap();
        let earlier_reference = near.iter().any(|n| {
            let other = key(n.address);
            other.parse::<usize>().unwrap() < i && !members.contains(&other)
        });
        assert_eq!(
            members.contains(&format!("{i}")),
            earlier_reference,
            "document {i}"
        );
    }
}

#[test]
fn the_index_collector_hides_what_verification_matches() {
    let original = words(21, 300);
    let copy = edited(&original, 12, 22);
    let other = shuffled(&original, 23);
    assert!((4..=16).contains(&distance(&original, &copy)));
    let dir = tempfile::tempdir().unwrap();
    create(dir.path(), settings(Some(edits())));
    // A writer that lets every document in (distance 0, threshold 1): the index then holds
    // an edited copy, as one filled by other means would.
    let open = |verification: Verification| {
        DedupIndex::open_with(
            Index::open_in_dir(dir.path()).unwrap(),
            &settings(Some(verification)),
        )
        .unwrap()
    };
    let lenient = open(edits().threshold(1.0));
    let writer = lenient
        .writer(Policy::Reject, MEMORY)
        .unwrap()
        .with_distance(0)
        .unwrap();
    for (url, text) in [("a", &original), ("b", &copy), ("c", &other)] {
        assert!(matches!(
            add(&lenient, &writer, url, text),
            AddOutcome::Added { .. }
        ));
    }
    writer.commit().unwrap();
    drop(writer);

    let index = open(edits());
    let searcher = index.index().reader().unwrap().searcher();
    let query = tantivy::query::AllQuery;
    let verified = index.collector(10).search(&searcher, &query).unwrap();
    let shown: Vec<u32> = verified.hits.iter().map(|h| h.address.doc_id).collect();
    assert_eq!(shown, [0, 2], "the copy (doc 1) is hidden by its original");
    assert_eq!(verified.hits[0].hidden.len(), 1);
    assert_eq!(verified.hits[0].hidden[0].address.doc_id, 1);
    // By fingerprints alone nothing is within 3 bits.
    let plain =
        tantivy_dedup::plugin::DedupCollector::new(tantivy_dedup::plugin::FINGERPRINT_FIELD, 10)
            .search(&searcher, &query)
            .unwrap();
    assert_eq!(plain.hidden_total, 0);
    assert_eq!(plain.hits.len(), 3);
}

#[test]
fn another_distance_keeps_the_documents_added_before_it() {
    // `with_distance` rebuilds the writer's block tables for the new distance; the pending
    // documents must survive it, and the bands must still find the edited copy.
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(Some(edits())));
    let original = words(7, 300);
    let copy = edited(&original, 25, 8); // 4% of the words
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    assert!(add(&index, &writer, "a", &original).is_indexed());
    let writer = writer.with_distance(6).unwrap();
    let again = add(&index, &writer, "b", &original);
    assert_eq!(again.duplicate_of().unwrap().key.as_deref(), Some("a"));
    let edited = add(&index, &writer, "c", &copy);
    assert_eq!(
        edited.duplicate_of().map(|d| d.key.as_deref()),
        Some(Some("a")),
        "distance {}",
        distance(&original, &copy)
    );
    writer.commit().unwrap();
}

#[test]
fn edited_copies_of_committed_documents_are_found_after_a_reopen() {
    // The reopened writer's band index is built from the committed signatures, segment by
    // segment, and their signatures are read back only when a candidate needs one.
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(Some(edits())));
    let originals: Vec<Vec<String>> = (0..40).map(|i| words(300 + i, 200)).collect();
    for chunk in originals.chunks(10) {
        // Four commits: four segments.
        let writer = index.writer(Policy::Reject, MEMORY).unwrap();
        for text in chunk {
            let url = format!("o{}", text[0]);
            assert!(add(&index, &writer, &url, text).is_indexed());
        }
        writer.commit().unwrap();
    }
    let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let mut beyond = 0;
    for (i, original) in originals.iter().enumerate() {
        let copy = edited(original, 14, 900 + i as u64); // about 7% of the words
        let outcome = add(&index, &writer, &format!("copy{i}"), &copy);
        let duplicate = outcome
            .duplicate_of()
            .unwrap_or_else(|| panic!("copy {i} not found: {outcome:?}"));
        assert_eq!(duplicate.key, Some(format!("o{}", original[0])), "copy {i}");
        if duplicate.distance > 3 {
            beyond += 1;
        }
    }
    assert!(beyond >= 20, "only {beyond} copies lie beyond 3 bits");
}

#[test]
fn the_rule_is_chosen_at_each_open_and_the_signature_stays() {
    use tantivy_dedup::matching::{MatchRule, VerifyRule};
    let dir = tempfile::tempdir().unwrap();
    let created = create(dir.path(), settings(Some(edits())));
    assert_eq!(created.rule().distance, 3);
    assert_eq!(created.rule().verify, Some(edits().rule()));
    // Another rule: another distance, threshold and candidate stage, the same signatures.
    let rule = MatchRule {
        distance: 5,
        verify: Some(VerifyRule {
            candidates: CandidateStage::Scan,
            threshold: 0.4,
            ..VerifyRule::default()
        }),
    };
    let asked = settings(Some(edits())).with_rule(rule);
    let reopened = DedupIndex::open_with(Index::open_in_dir(dir.path()).unwrap(), &asked).unwrap();
    assert_eq!(reopened.rule(), rule);
    assert_eq!(reopened.distance(), 5);
    // The stored file keeps its own rule: a plain open reads it back.
    let plain = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    assert_eq!(plain.rule(), created.rule());
    // A stored setting is no rule: other signatures are refused by name.
    let other = settings(Some(edits().hashes(64)));
    match DedupIndex::open_with(Index::open_in_dir(dir.path()).unwrap(), &other) {
        Err(Error::SettingsMismatch { differences }) => {
            let fields: Vec<&str> = differences.iter().map(|d| d.field.as_str()).collect();
            assert_eq!(fields, ["verification.hashes"]);
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}
