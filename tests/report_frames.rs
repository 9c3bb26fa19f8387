//! Reports of one frame with other figures (a weekly rate notice, a monthly statistic) are
//! distinct documents: at the defaults the signatures decide, and they keep them apart even
//! where their fingerprints are a bit or two apart. Under the rule of settings before
//! format 6, those pairs were near whatever their signatures said.

mod support;

use support::index::create;
use support::rng::Rng;
use tantivy::doc;
use tantivy_dedup::plugin::{AddOutcome, DedupSettings, Policy, Preset, Verification};

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
        settings().verification(Verification::default().signatures_decide(false)),
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
        DedupSettings::new(["body"]).preset(Preset::Rewrites),
        &notices,
    );
    assert_eq!(rejected(&outcomes), 9, "{outcomes:#?}");
}
