//! Containment (`PairScore::Containment`) through the plugin, as a downstream crate uses it:
//! an article embedded in a page of other text, and the page before the article, are
//! near-duplicates of it in the writer, the collector and `judge`, where the Jaccard rule
//! lets them in; an index whose signatures keep the low bits refuses the rule.

mod support;

use support::index::create;
use support::rng::Rng;
use tantivy::collector::TopDocs;
use tantivy::query::AllQuery;
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::KeptBits;
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::matching::Reason;
use tantivy_dedup::matching::{CandidateStage, PairScore, Verification};
use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy};
use tantivy_dedup::Error;

const MEMORY: usize = 15_000_000;

/// `n` words of a vocabulary of 20,000, from `seed`.
fn words(seed: u64, n: usize) -> String {
    let mut rng = Rng(seed);
    let words: Vec<String> = (0..n)
        .map(|_| format!("w{}", rng.next() % 20_000))
        .collect();
    words.join(" ")
}

/// The rule for embedded text: bands of 2 values at any distance (an embedding moves the
/// fingerprint far), scored by containment.
fn containment() -> Verification {
    let verification = Verification::containment().threshold(0.7);
    assert_eq!(verification.get_score(), PairScore::Containment);
    assert_eq!(
        verification.get_candidates(),
        CandidateStage::Bands { rows: 2 }
    );
    assert_eq!(verification.get_candidate_distance(), 64);
    verification
}

fn settings(verification: Verification) -> DedupSettings {
    DedupSettings::new(["body"])
        .key_field("url")
        .matching(MatchingSettings::default().verification(verification))
}

fn add(
    index: &DedupIndex,
    writer: &tantivy_dedup::plugin::DedupWriter,
    url: &str,
    text: &str,
) -> AddOutcome {
    let schema = index.index().schema();
    let (body, key) = (
        schema.get_field("body").unwrap(),
        schema.get_field("url").unwrap(),
    );
    writer.add(doc!(key => url, body => text)).unwrap()
}

#[test]
fn an_embedded_article_is_a_near_duplicate_by_containment_only() {
    let article = words(1, 250);
    // Navigation, the article, then two other stories: the article is a fifth of the page.
    let page = format!("{}\n{article}\n{}", words(2, 300), words(3, 700));
    let unrelated = words(4, 600);

    // The Jaccard rule, even at the embedding's own bands and distance, lets the page in.
    let dir = tempfile::tempdir().unwrap();
    let jaccard = create(
        dir.path(),
        settings(containment().score(PairScore::Jaccard)),
    );
    let judged = jaccard.judge(&article, &page);
    assert!(!judged.near, "{judged:?}");
    let writer = jaccard.writer(Policy::Reject, MEMORY).unwrap();
    assert!(matches!(
        add(&jaccard, &writer, "a", &article),
        AddOutcome::Added { .. }
    ));
    assert!(matches!(
        add(&jaccard, &writer, "p", &page),
        AddOutcome::Added { .. }
    ));

    // Containment: the page holds the whole article.
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(containment()));
    let judged = index.judge(&article, &page);
    assert!(
        matches!(judged.reason, Reason::Verified { score, .. } if score >= 0.7),
        "{judged:?}"
    );
    assert!(judged.jaccard.unwrap() < 0.3, "{judged:?}");
    assert!(!index.judge(&article, &unrelated).near);
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    assert!(matches!(
        add(&index, &writer, "a", &article),
        AddOutcome::Added { .. }
    ));
    let outcome = add(&index, &writer, "p", &page);
    assert_eq!(
        outcome.duplicate_of().map(|d| d.key.as_deref()),
        Some(Some("a")),
        "{outcome:?}"
    );
    assert!(matches!(
        add(&index, &writer, "u", &unrelated),
        AddOutcome::Added { .. }
    ));
    writer.commit().unwrap();

    // The other way round, against a committed page after a reopen: the article alone.
    drop(writer);
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let writer = reopened.writer(Policy::Reject, MEMORY).unwrap();
    let outcome = add(
        &reopened,
        &writer,
        "q",
        &format!("{}\n{article}", words(5, 500)),
    );
    assert!(outcome.duplicate_of().is_some(), "{outcome:?}");
}

#[test]
fn the_collector_hides_a_page_under_the_article_it_holds() {
    let article = words(11, 250);
    let page = format!("{}\n{article}\n{}", words(12, 300), words(13, 700));
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings(containment()).flagging(true));
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    for (url, text) in [
        ("a", article.as_str()),
        ("p", page.as_str()),
        ("u", &words(14, 400)),
    ] {
        add(&index, &writer, url, text);
    }
    writer.commit().unwrap();
    let searcher = index.index().reader().unwrap().searcher();
    let plain = searcher
        .search(&AllQuery, &TopDocs::with_limit(10).order_by_score())
        .unwrap();
    assert_eq!(plain.len(), 3);
    let collector = index.collector(10).include_flagged();
    let page_of_hits = searcher.search(&AllQuery, &collector).unwrap();
    assert_eq!(page_of_hits.hits.len(), 2, "{page_of_hits:?}");
    assert_eq!(page_of_hits.hidden_total, 1);
}

#[test]
fn signatures_of_the_low_bits_refuse_containment() {
    let dir = tempfile::tempdir().unwrap();
    let old = Verification::default().kept_bits(KeptBits::Low);
    create(dir.path(), settings(old.clone()));
    let index = Index::open_in_dir(dir.path()).unwrap();
    let wanted = settings(old.score(PairScore::Containment));
    match DedupIndex::open_with(index, &wanted) {
        Err(Error::InvalidSetting { name, reason }) => {
            assert_eq!(name, "verification.score");
            assert!(reason.contains("high 32 bits"), "{reason}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}
