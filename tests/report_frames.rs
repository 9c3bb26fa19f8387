//! Reports of one frame with other figures (a weekly rate notice, a monthly statistic) are
//! distinct documents: at the defaults the signatures decide, and they keep them apart even
//! where their fingerprints are a bit or two apart. Under the rule of settings before
//! format 6, those pairs were near whatever their signatures said. With shingle weights
//! learned from a sample, a frame's shingles count little, and such reports stay apart even
//! at the threshold of heavy rewrites.

mod support;

use std::sync::Arc;
use support::index::create;
use support::rng::Rng;
use tantivy::doc;

use tantivy::Index;
use tantivy_dedup::fingerprint::ShingleWeights;
use tantivy_dedup::matching::{MatchingSettings, TextMatcher};
use tantivy_dedup::matching::{Preset, Verification};
use tantivy_dedup::plugin::{AddOutcome, DedupIndex, DedupSettings, Policy, SHINGLE_WEIGHTS_FILE};
use tantivy_dedup::Error;

const MEMORY: usize = 50_000_000;

/// A notice of the invented Harbour Board: the same sentences each week, other figures.
fn notice(rng: &mut Rng, week: usize) -> String {
    let mut figure = || format!("{}.{:02}", 3 + rng.below(5), rng.below(100));
    let rows: Vec<String> = [
        "30 to 59",
        "60 to 89",
        "90 to 119",
        "120 to 179",
        "180 to 269",
        "270 to 359",
    ]
    .iter()
    .map(|days| {
        format!(
            "Notes of {days} days: {} pct, against {} pct.",
            figure(),
            figure()
        )
    })
    .collect();
    format!(
        "HARBOUR BOARD SETS RATES FOR WEEK {week}\n\nThe Harbour Board of the city adjusted \
         the rates on its short-term discount notes for the week, the board said in a \
         statement. {} The new rates take effect at once, after an auction of {} mln dlrs.",
        rows.join(" "),
        100 + rng.below(900),
    )
}

fn add_all(settings: DedupSettings, texts: &[String]) -> Vec<AddOutcome> {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings.key_field("url"));
    let schema = index.index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let writer = index.writer(Policy::Reject, MEMORY).unwrap();
    let outcomes = texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            writer
                .add(doc!(url => format!("week-{i}"), body => text.as_str()))
                .unwrap()
        })
        .collect();
    writer.commit().unwrap();
    outcomes
}

fn rejected(outcomes: &[AddOutcome]) -> usize {
    outcomes
        .iter()
        .filter(|o| o.duplicate_of().is_some())
        .count()
}

#[test]
fn reports_of_one_frame_stay_apart_at_the_defaults() {
    let mut rng = Rng(7);
    let notices: Vec<String> = (0..60).map(|week| notice(&mut rng, week)).collect();
    let settings = || DedupSettings::new(["body"]);
    let now = add_all(settings(), &notices);
    assert_eq!(rejected(&now), 0, "{now:#?}");
    // The same notices under the earlier rule: pairs within k were near whatever their
    // signatures said, and some of these frames land within 3 bits of each other.
    let before = add_all(
        settings().matching(
            MatchingSettings::default()
                .verification(Verification::default().signatures_decide(false)),
        ),
        &notices,
    );
    assert!(
        rejected(&before) > 0,
        "no pair within k: the test proves nothing"
    );
    // A repost of a notice (another dateline) is still found.
    let mut with_repost = notices.clone();
    with_repost.push(format!("LONDON, March 9 -\n{}", notices[5]));
    let outcomes = add_all(settings(), &with_repost);
    assert_eq!(rejected(&outcomes), 1);
    assert_eq!(
        outcomes
            .last()
            .unwrap()
            .duplicate_of()
            .unwrap()
            .key
            .as_deref(),
        Some("week-5")
    );
}

#[test]
fn the_rewrites_preset_calls_one_frame_near() {
    // Recall first: texts sharing a fifth of their shingles are near, frames included.
    let mut rng = Rng(7);
    let notices: Vec<String> = (0..10).map(|week| notice(&mut rng, week)).collect();
    let outcomes = add_all(
        DedupSettings::new(["body"]).matching(MatchingSettings::default().preset(Preset::Rewrites)),
        &notices,
    );
    assert_eq!(rejected(&outcomes), 9, "{outcomes:#?}");
}

/// Weights learned from 200 notices: their frame in every one.
fn notice_weights(rng: &mut Rng) -> Arc<ShingleWeights> {
    let sample: Vec<String> = (1000..1200).map(|week| notice(rng, week)).collect();
    let matcher = TextMatcher::new(&MatchingSettings::default()).unwrap();
    Arc::new(
        matcher
            .learn_weights(sample.iter().map(String::as_str))
            .unwrap(),
    )
}

#[test]
fn weighted_shingles_keep_one_frame_apart_and_find_a_repost() {
    let mut rng = Rng(11);
    let weights = notice_weights(&mut rng);
    assert_eq!(weights.documents(), 200);
    let mut notices: Vec<String> = (0..10).map(|week| notice(&mut rng, week)).collect();
    // At the threshold of heavy rewrites, plain signatures call every frame near (the test
    // above); weighted ones keep them apart.
    let rewrites = || {
        DedupSettings::new(["body"]).matching(MatchingSettings::default().preset(Preset::Rewrites))
    };
    assert_eq!(rejected(&add_all(rewrites(), &notices)), 9);
    let weighted = add_all(rewrites().shingle_weights(Arc::clone(&weights)), &notices);
    assert_eq!(rejected(&weighted), 0, "{weighted:#?}");
    // The weighted estimate of two notices is far under the plain one.
    let plain = TextMatcher::new(&MatchingSettings::default()).unwrap();
    let matcher =
        TextMatcher::with_weights(&MatchingSettings::default(), Arc::clone(&weights)).unwrap();
    let (a, b) = (&notices[0], &notices[1]);
    let (before, after) = (
        plain.judge(a, b).jaccard.unwrap(),
        matcher.judge(a, b).jaccard.unwrap(),
    );
    assert!(
        after < 0.1 && before > 0.4,
        "plain {before}, weighted {after}"
    );
    assert_eq!(matcher.judge(a, a).jaccard, Some(1.0));
    // A repost still is near at the defaults.
    let repost = format!("LONDON, March 9 -\n{}", notices[5]);
    let judged = matcher.judge(&notices[5], &repost);
    assert!(judged.near, "{judged:?}");
    notices.push(repost);
    let outcomes = add_all(
        DedupSettings::new(["body"]).shingle_weights(weights),
        &notices,
    );
    assert_eq!(rejected(&outcomes), 1, "{outcomes:#?}");
}

#[test]
fn an_index_keeps_its_weights_and_refuses_to_open_without_them() {
    let mut rng = Rng(5);
    let weights = notice_weights(&mut rng);
    let identity = weights.identity().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let settings = DedupSettings::new(["body"]).shingle_weights(weights);
    let text = notice(&mut rng, 1);
    let signature = {
        let index = support::index::create(dir.path(), settings);
        index.judge(&text, &text);
        let matcher = TextMatcher::with_weights(
            index.settings().get_matching(),
            Arc::clone(index.settings().get_shingle_weights().unwrap()),
        )
        .unwrap();
        matcher.signature(&text).unwrap()
    };
    // Reopened: the settings name the table, and the table is read back with them.
    let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let stored = index.settings().get_matching().get_verification().unwrap();
    assert_eq!(stored.get_weights(), Some(identity.as_str()));
    let table = Arc::clone(index.settings().get_shingle_weights().unwrap());
    let matcher = TextMatcher::with_weights(index.settings().get_matching(), table).unwrap();
    assert_eq!(matcher.signature(&text).unwrap(), signature);
    // Without its table, the index is refused, and so are its settings without one.
    assert!(matches!(
        TextMatcher::new(index.settings().get_matching()),
        Err(Error::InvalidSetting {
            name: "verification.weights",
            ..
        })
    ));
    drop((index, matcher));
    std::fs::remove_file(dir.path().join(SHINGLE_WEIGHTS_FILE)).unwrap();
    let refused = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap());
    assert!(
        matches!(
            refused,
            Err(Error::InvalidSetting {
                name: "verification.weights",
                ..
            })
        ),
        "{refused:?}"
    );
}
