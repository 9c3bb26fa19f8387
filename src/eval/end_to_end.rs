//! [`end_to_end`]: what a user gets from a set of matching settings on a labeled set: the
//! documents ingested in order under [`Policy::Flag`] and grouped as `clusters` groups them
//! ([`DedupIndex::duplicate_groups`]), every pair of one group called near. Pairwise scores
//! judge each labeled pair alone; pairs the labels do not list (two edits of one original,
//! two answers to one question) join or split groups, which only this measures.

use std::collections::HashMap;

use tantivy::schema::{Schema, Value, FAST, STORED, STRING};
use tantivy::{doc, Index, TantivyDocument};

use super::counts::Scores;
use super::set::{EvalSet, Unlisted};
use crate::error::Result;
use crate::grouping::Grouping;
use crate::matching::MatchingSettings;
use crate::plugin::{text_field_options, DedupIndex, DedupSettings, Policy};

/// The writer's memory for an end-to-end run, in bytes.
const MEMORY: usize = 100_000_000;

/// Precision, recall and F1 of the groups that ingesting `set`'s documents in order with
/// `settings` (flagging near-duplicates), then grouping the index as `clusters` does
/// ([`Grouping::for_settings`]), make: a pair in one group is called near; labels as
/// [`evaluate`](super::evaluate) reads them (listed pairs by their label, the others by
/// the set's [`Unlisted`] rule).
///
/// # Errors
/// [`Error::InvalidSetting`](crate::Error::InvalidSetting) for settings out of range;
/// [`Error::Tantivy`](crate::Error::Tantivy) when the in-memory index fails.
pub fn end_to_end(set: &EvalSet, settings: &MatchingSettings) -> Result<Scores> {
    end_to_end_by(set, settings, Grouping::for_settings(settings))
}

/// [`end_to_end`], the index grouped by `grouping`.
///
/// # Errors
/// As [`end_to_end`].
pub fn end_to_end_by(
    set: &EvalSet,
    settings: &MatchingSettings,
    grouping: Grouping,
) -> Result<Scores> {
    let dedup = DedupSettings::new(["body"])
        .key_field("id")
        .flagging(true)
        .matching(settings.clone());
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    let id = schema.add_text_field("id", STRING | STORED | FAST);
    dedup.add_fields(&mut schema)?;
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), dedup)?;
    let writer = index.writer(Policy::Flag, MEMORY)?;
    let documents = (set.ids().iter().zip(set.texts()))
        .map(|(key, text)| doc!(id => key.as_str(), body => text.as_str()));
    for outcome in writer.add_all(documents) {
        outcome?;
    }
    writer.commit()?;
    let searcher = writer.searcher();
    let position: HashMap<&str, u32> = (set.ids().iter().enumerate())
        .map(|(i, key)| (key.as_str(), i as u32))
        .collect();
    let index_of = |address| -> Result<u32> {
        let stored: TantivyDocument = searcher.doc(address)?;
        let key = stored.get_first(id).and_then(|v| Value::as_str(&v));
        Ok(key
            .and_then(|key| position.get(key).copied())
            .expect("every document is the set's"))
    };
    let groups = (index
        .duplicate_groups_by(&searcher, settings.get_distance(), grouping)?
        .into_iter())
    .map(|group| {
        (std::iter::once(group.leader).chain(group.members))
            .map(index_of)
            .collect::<Result<Vec<u32>>>()
    })
    .collect::<Result<Vec<Vec<u32>>>>()?;
    let [false_positives, true_positives] = called_near(set, &groups);
    let positives = positive_pairs(set);
    Ok(Scores::new(
        true_positives,
        false_positives,
        positives.saturating_sub(true_positives),
    ))
}

/// The pairs of documents of one of `groups` (the set's documents, by position), by label:
/// `[negatives, positives]`, unlabeled pairs left out. Counted by the set's groups within
/// each group found, then the listed pairs put right: linear in the documents, where a
/// pair at a time was quadratic in a group's size (20,000 copies of a page are 200 million
/// pairs).
fn called_near(set: &EvalSet, groups: &[Vec<u32>]) -> [u64; 2] {
    let mut tally = [0u64; 2];
    let mut count = |label: Option<bool>, times: u64, add: bool| {
        if let Some(label) = label {
            let slot = &mut tally[usize::from(label)];
            *slot = if add { *slot + times } else { *slot - times };
        }
    };
    let (same_label, other_label) = (set.unlisted().label(true), set.unlisted().label(false));
    let pairs = |n: u64| n * n.saturating_sub(1) / 2;
    let mut found_in: HashMap<u32, usize> = HashMap::new();
    for (g, members) in groups.iter().enumerate() {
        let mut by_set_group: HashMap<u32, u64> = HashMap::new();
        for &member in members {
            found_in.insert(member, g);
            *by_set_group
                .entry(set.groups()[member as usize])
                .or_default() += 1;
        }
        let same: u64 = by_set_group.values().map(|&n| pairs(n)).sum();
        count(same_label, same, true);
        count(other_label, pairs(members.len() as u64) - same, true);
    }
    for pair in set.listed() {
        if found_in
            .get(&pair.a)
            .is_some_and(|g| found_in.get(&pair.b) == Some(g))
        {
            count(
                set.unlisted_label(pair.a as usize, pair.b as usize),
                1,
                false,
            );
            count(pair.label, 1, true);
        }
    }
    tally
}

/// The near-duplicate pairs of `set`: its listed positive pairs, and under
/// [`Unlisted::Group`] the unlisted pairs of one group.
fn positive_pairs(set: &EvalSet) -> u64 {
    let listed = set
        .listed()
        .iter()
        .filter(|p| p.label == Some(true))
        .count() as u64;
    if set.unlisted() != Unlisted::Group {
        return listed;
    }
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    for &group in set.groups() {
        *sizes.entry(group).or_default() += 1;
    }
    let within: u64 = sizes.values().map(|&n| n * n.saturating_sub(1) / 2).sum();
    let groups = set.groups();
    let listed_within = (set.listed().iter())
        .filter(|p| groups[p.a as usize] == groups[p.b as usize])
        .count() as u64;
    listed + within - listed_within
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalSetBuilder;
    use crate::matching::Preset;

    proptest::proptest! {
        /// Pairs counted by groups are the pairs of the found groups counted one at a time.
        #[test]
        fn groups_are_counted_as_their_pairs(
            set_groups in proptest::collection::vec(proptest::option::of(0u8..3), 2..30),
            found in proptest::collection::vec(0u8..4, 2..30),
            listed in proptest::collection::vec((0usize..30, 0usize..30, proptest::option::of(proptest::bool::ANY)), 0..8),
            rule in 0usize..3,
        ) {
            let unlisted = [Unlisted::Ignore, Unlisted::Negative, Unlisted::Group][rule];
            let n = set_groups.len().min(found.len());
            let mut builder = EvalSetBuilder::new("t", unlisted);
            for (i, group) in set_groups.iter().take(n).enumerate() {
                let group = group.map(|g| format!("g{g}"));
                builder.doc(format!("d{i}"), format!("text {i}"), group.as_deref(), vec![]).unwrap();
            }
            for &(a, b, label) in &listed {
                let _ = builder.pair(&format!("d{}", a % n), &format!("d{}", b % n), label, None, None);
            }
            let set = builder.build();
            // Documents found in group 0 are in no group (alone).
            let mut groups: Vec<Vec<u32>> = vec![Vec::new(); 4];
            for (doc, &g) in found.iter().take(n).enumerate() {
                if g > 0 {
                    groups[g as usize].push(doc as u32);
                }
            }
            groups.retain(|group| group.len() >= 2);
            let mut expected = [0u64; 2];
            let labels: HashMap<(u32, u32), Option<bool>> =
                set.listed().iter().map(|p| ((p.a, p.b), p.label)).collect();
            for group in &groups {
                for (i, &a) in group.iter().enumerate() {
                    for &b in &group[i + 1..] {
                        let (a, b) = (a.min(b), a.max(b));
                        let label = match labels.get(&(a, b)) {
                            Some(&label) => label,
                            None => set.unlisted_label(a as usize, b as usize),
                        };
                        if let Some(label) = label {
                            expected[usize::from(label)] += 1;
                        }
                    }
                }
            }
            proptest::prop_assert_eq!(called_near(&set, &groups), expected);
        }
    }

    #[test]
    fn groups_are_scored_by_every_pair_they_make() {
        // An original, a repost and a correction (one group), and two reports of one frame
        // with other figures, labeled distinct.
        let report = "The city council met on Tuesday evening to discuss the new budget for \
            public transport, and agreed to add two bus lines and to repair the old tram \
            tracks along the river before the spring.";
        let mut set = EvalSetBuilder::new("tiny", Unlisted::Group);
        set.doc("a", report, Some("a"), vec![]).unwrap();
        set.doc("a-repost", report, Some("a"), vec![]).unwrap();
        set.doc("a-fix", format!("{report} Corrected."), Some("a"), vec![])
            .unwrap();
        let frame = |n: u32| {
            format!(
                "Construction spending rose {n}.{n} billion dlrs in month {n} to an annual \
                 rate of {} billion dlrs, the Commerce Department said.",
                n * 37
            )
        };
        set.doc("f1", frame(1), None, vec![]).unwrap();
        set.doc("f2", frame(2), None, vec![]).unwrap();
        let set = set.build();
        let news = MatchingSettings::default().preset(Preset::News);
        let scores = end_to_end(&set, &news).unwrap();
        assert_eq!(
            (
                scores.true_positives,
                scores.false_positives,
                scores.false_negatives
            ),
            (3, 0, 0),
            "{scores:?}"
        );
        // Fingerprints alone at 64 bits call everything one group: 10 pairs, 7 distinct.
        let all = MatchingSettings::default().distance(64).verification(None);
        let scores = end_to_end(&set, &all).unwrap();
        assert_eq!((scores.true_positives, scores.false_positives), (3, 7));
    }
}
