//! Counting the labeled pairs of an [`EvalSet`] by the distance of their fingerprints: every
//! pair of documents when unlisted pairs count, in parallel.

use std::collections::HashMap;

use rayon::prelude::*;

use super::counts::{DistanceCounts, NO_FINGERPRINT};
use super::set::{EvalSet, Unlisted};
use crate::fingerprint::Fingerprint;

/// The pairs of a set counted by distance: all of them, and the listed ones by category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairCounts {
    /// Every counted pair.
    pub overall: DistanceCounts,
    /// The listed pairs of each of [`EvalSet::categories`], by index.
    pub by_category: Vec<DistanceCounts>,
}

/// A counted pair whose documents' fingerprints are close, for a second stage to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NearPair {
    /// The first document.
    pub a: u32,
    /// The second document.
    pub b: u32,
    /// Bits between their fingerprints.
    pub distance: u32,
    /// True for near-duplicates.
    pub label: bool,
    /// The pairs of documents it stands for: documents of one text, metadata and group in
    /// no listed pair are interchangeable (see [`near_pairs`]), and one pair stands for
    /// every pair of their documents alike.
    pub count: u64,
    /// A pair the set lists (with its own label and category), counted alone.
    pub listed: bool,
}

fn distance(fingerprints: &[Option<Fingerprint>], a: usize, b: usize) -> usize {
    match (fingerprints[a], fingerprints[b]) {
        (Some(x), Some(y)) => x.distance(y) as usize,
        _ => NO_FINGERPRINT,
    }
}

/// Counts the pairs of `set` by the distance of `fingerprints` (by document index).
///
/// Listed pairs count with their label; when [`EvalSet::unlisted`] is not `Ignore`, every
/// other pair of documents counts as it says, which takes one pass over all `n (n - 1) / 2`
/// pairs (50 million for 10,000 documents: a fraction of a second).
///
/// # Panics
/// When `fingerprints` does not hold one entry per document.
pub fn count_pairs(set: &EvalSet, fingerprints: &[Option<Fingerprint>]) -> PairCounts {
    assert_eq!(
        fingerprints.len(),
        set.len(),
        "one fingerprint per document"
    );
    let mut overall = if set.unlisted() == Unlisted::Ignore {
        DistanceCounts::new()
    } else {
        all_pairs(set, fingerprints)
    };
    let mut by_category = vec![DistanceCounts::new(); set.categories().len()];
    for pair in set.listed() {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let d = distance(fingerprints, a, b);
        // The pass over all pairs counted this one by the unlisted rule: take that back.
        if let Some(label) = set.unlisted_label(a, b) {
            overall.add(label, d, -1);
        }
        if let Some(label) = pair.label {
            overall.add(label, d, 1);
        }
        if let (Some(label), Some(category)) = (pair.label, pair.category) {
            by_category[category as usize].add(label, d, 1);
        }
    }
    PairCounts {
        overall,
        by_category,
    }
}

/// Every pair by the unlisted rule, listed or not.
fn all_pairs(set: &EvalSet, fingerprints: &[Option<Fingerprint>]) -> DistanceCounts {
    let n = set.len();
    (0..n)
        .into_par_iter()
        .fold(DistanceCounts::new, |mut counts, a| {
            for b in a + 1..n {
                if let Some(label) = set.unlisted_label(a, b) {
                    counts.add(label, distance(fingerprints, a, b), 1);
                }
            }
            counts
        })
        .reduce(DistanceCounts::new, |mut x, y| {
            x.merge(&y);
            x
        })
}

/// Every counted pair of `set` whose fingerprints are at most `max_distance` bits apart,
/// with its label: the candidates a two-stage matcher verifies.
///
/// Documents with the same text, metadata, group and fingerprint score and are labeled
/// alike against any document, so they are one class: a pair stands for two classes (its
/// [`count`](NearPair::count) the product of their sizes) and one for a class of two or
/// more (two of its documents, its count the pairs among them). A listed pair is a pair of
/// its own ([`listed`](NearPair::listed), its label the list's), and the pair of its two
/// classes counts one less. Work and memory grow with the square of the classes and the
/// listed pairs, not of the documents: 20,000 copies of a page are one pair, where they
/// were 200 million, however many of their pairs are listed.
///
/// # Panics
/// When `fingerprints` does not hold one entry per document.
pub fn near_pairs(
    set: &EvalSet,
    fingerprints: &[Option<Fingerprint>],
    max_distance: u32,
) -> Vec<NearPair> {
    assert_eq!(
        fingerprints.len(),
        set.len(),
        "one fingerprint per document"
    );
    // A listed pair alone (`Some` of its label), or the unlisted pairs of two classes
    // (`count` of them).
    let near = |a: usize, b: usize, count: u64, listed: Option<Option<bool>>| {
        let d = distance(fingerprints, a, b);
        if d > max_distance as usize || count == 0 {
            return None;
        }
        let label = listed.unwrap_or_else(|| set.unlisted_label(a, b))?;
        Some(NearPair {
            a: a as u32,
            b: b as u32,
            distance: d as u32,
            label,
            count,
            listed: listed.is_some(),
        })
    };
    let alone =
        (set.listed().iter()).filter_map(|p| near(p.a as usize, p.b as usize, 1, Some(p.label)));
    let mut pairs: Vec<NearPair> = if set.unlisted() == Unlisted::Ignore {
        alone.collect()
    } else {
        let (classes, class_of) = classes(set, fingerprints);
        // The listed pairs between two classes (or within one), taken out of their count.
        let mut listed_between: HashMap<(u32, u32), u64> = HashMap::new();
        for pair in set.listed() {
            let (x, y) = (class_of[pair.a as usize], class_of[pair.b as usize]);
            *listed_between.entry((x.min(y), x.max(y))).or_default() += 1;
        }
        let listed_between = &listed_between;
        let unlisted = move |x: usize, y: usize, all: u64| {
            all - listed_between
                .get(&(x as u32, y as u32))
                .copied()
                .unwrap_or(0)
        };
        let within = (classes.iter().enumerate())
            .filter(|(_, class)| class.len() >= 2)
            .filter_map(move |(x, class)| {
                let n = class.len() as u64;
                let count = unlisted(x, x, n * (n - 1) / 2);
                near(class[0] as usize, class[1] as usize, count, None)
            });
        // Each class by its first document and its size, side by side for the scan.
        let (firsts, sizes): (Vec<usize>, Vec<u64>) = (classes.iter())
            .map(|class| (class[0] as usize, class.len() as u64))
            .unzip();
        let (firsts, sizes) = (&firsts, &sizes);
        let between: Vec<NearPair> = (0..firsts.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                // Classes are in order of their first documents: `firsts[i] < firsts[j]`.
                (i + 1..firsts.len()).filter_map(move |j| {
                    near(
                        firsts[i],
                        firsts[j],
                        unlisted(i, j, sizes[i] * sizes[j]),
                        None,
                    )
                })
            })
            .collect();
        between.into_iter().chain(within).chain(alone).collect()
    };
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    pairs
}

/// The documents of `set` in classes of those that score and are labeled alike against any
/// document but where a pair is listed (see [`near_pairs`]): one text (so one signature),
/// metadata, group and fingerprint (the same for one text, unless given otherwise). Each
/// class in document order, the classes by their first; and each document's class.
fn classes(set: &EvalSet, fingerprints: &[Option<Fingerprint>]) -> (Vec<Vec<u32>>, Vec<u32>) {
    type Key<'s> = (&'s str, &'s [String], u32, Option<Fingerprint>);
    let mut classes: Vec<Vec<u32>> = Vec::new();
    let mut by_key: HashMap<Key, usize> = HashMap::new();
    let mut class_of = Vec::with_capacity(set.len());
    let documents = (set.texts().iter().zip(set.meta())).zip(set.groups().iter().zip(fingerprints));
    for (doc, ((text, meta), (&group, &fingerprint))) in documents.enumerate() {
        let key = (text.as_str(), meta.as_slice(), group, fingerprint);
        let class = *by_key.entry(key).or_insert_with(|| {
            classes.push(Vec::new());
            classes.len() - 1
        });
        classes[class].push(doc as u32);
        class_of.push(class as u32);
    }
    (classes, class_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalSetBuilder;

    /// Brute force: every pair, label by listing or rule.
    fn reference(set: &EvalSet, fps: &[Option<Fingerprint>]) -> DistanceCounts {
        let mut counts = DistanceCounts::new();
        for a in 0..set.len() {
            for b in a + 1..set.len() {
                let listed = set
                    .listed()
                    .iter()
                    .find(|p| (p.a as usize, p.b as usize) == (a, b));
                let label = match listed {
                    Some(p) => p.label,
                    None => set.unlisted_label(a, b),
                };
                if let Some(label) = label {
                    counts.add(label, distance(fps, a, b), 1);
                }
            }
        }
        counts
    }

    /// Brute force for [`near_pairs`]: every pair within `max` bits, by label and distance.
    fn near_reference(
        set: &EvalSet,
        fps: &[Option<Fingerprint>],
        max: usize,
    ) -> std::collections::BTreeMap<(bool, usize), u64> {
        let mut counts = std::collections::BTreeMap::new();
        for a in 0..set.len() {
            for b in a + 1..set.len() {
                let listed = (set.listed().iter()).find(|p| (p.a as usize, p.b as usize) == (a, b));
                let label = match listed {
                    Some(p) => p.label,
                    None => set.unlisted_label(a, b),
                };
                let d = distance(fps, a, b);
                if let (Some(label), true) = (label, d <= max) {
                    *counts.entry((label, d)).or_default() += 1;
                }
            }
        }
        counts
    }

    proptest::proptest! {
        /// Classes of equal documents stand for every pair of theirs: the pairs `near_pairs`
        /// gives, each counted `count` times, are every pair within the distance, by label
        /// and distance, whatever repeats, groups, metadata and listed pairs the set has.
        #[test]
        fn classes_stand_for_every_pair_of_their_documents(
            docs in proptest::collection::vec((0u8..4, 0u8..3, proptest::option::of(0u8..3)), 2..40),
            listed in proptest::collection::vec((0usize..40, 0usize..40, proptest::option::of(proptest::bool::ANY)), 0..6),
            rule in 0usize..3,
            max in 0u32..40,
        ) {
            let unlisted = [Unlisted::Ignore, Unlisted::Negative, Unlisted::Group][rule];
            let mut set = EvalSetBuilder::new("t", unlisted);
            for (i, &(text, meta, group)) in docs.iter().enumerate() {
                let group = group.map(|g| format!("g{g}"));
                let meta = vec![format!("m{meta}")];
                set.doc(format!("d{i}"), format!("text {text}"), group.as_deref(), meta)
                    .unwrap();
            }
            for &(a, b, label) in &listed {
                let (a, b) = (a % docs.len(), b % docs.len());
                // Refused pairs (one document twice, listed twice) are left out.
                let _ = set.pair(&format!("d{a}"), &format!("d{b}"), label, None, None);
            }
            let set = set.build();
            // Equal texts have equal fingerprints, as the signers give them; one has none.
            let fps: Vec<Option<Fingerprint>> = (docs.iter())
                .map(|&(text, _, _)| {
                    (text != 3).then(|| Fingerprint(u64::from(text).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                })
                .collect();
            let mut counts = std::collections::BTreeMap::new();
            for pair in near_pairs(&set, &fps, max) {
                *counts.entry((pair.label, pair.distance as usize)).or_default() += pair.count;
            }
            proptest::prop_assert_eq!(counts, near_reference(&set, &fps, max as usize));
        }
    }

    #[test]
    fn twenty_thousand_copies_are_one_pair() {
        let mut set = EvalSetBuilder::new("t", Unlisted::Group);
        for i in 0..20_000 {
            set.doc(format!("d{i}"), "one page", Some("g"), vec![])
                .unwrap();
        }
        let set = set.build();
        let fps = vec![Some(Fingerprint(7)); 20_000];
        let near = near_pairs(&set, &fps, 16);
        assert_eq!(near.len(), 1);
        assert_eq!(near[0].count, 20_000 * 19_999 / 2);
        assert!(near[0].label);
    }

    #[test]
    fn listed_pairs_among_copies_keep_them_one_class() {
        let mut set = EvalSetBuilder::new("t", Unlisted::Group);
        for i in 0..20_000 {
            set.doc(format!("d{i}"), "one page", Some("g"), vec![])
                .unwrap();
        }
        for i in 0..999 {
            let (a, b) = (format!("d{}", 2 * i), format!("d{}", 2 * i + 1));
            set.pair(&a, &b, Some(i % 2 == 0), None, None).unwrap();
        }
        let set = set.build();
        let fps = vec![Some(Fingerprint(7)); 20_000];
        let near = near_pairs(&set, &fps, 16);
        assert_eq!(
            near.len(),
            1 + 999,
            "the class's pair, and each listed pair alone"
        );
        let total: u64 = near.iter().map(|p| p.count).sum();
        assert_eq!(total, 20_000 * 19_999 / 2);
        let negatives: u64 = near.iter().filter(|p| !p.label).map(|p| p.count).sum();
        assert_eq!(negatives, 499);
    }

    #[test]
    fn counts_match_brute_force_under_every_rule() {
        for unlisted in [Unlisted::Ignore, Unlisted::Negative, Unlisted::Group] {
            let mut set = EvalSetBuilder::new("t", unlisted);
            for i in 0..12 {
                let group = (i % 3 != 0).then(|| format!("g{}", i % 4));
                set.doc(format!("d{i}"), "", group.as_deref(), vec![])
                    .unwrap();
            }
            set.pair("d0", "d1", Some(true), Some("edit"), Some(0.1))
                .unwrap();
            set.pair("d2", "d6", Some(false), Some("hard"), None)
                .unwrap();
            set.pair("d3", "d4", None, None, None).unwrap();
            set.pair("d5", "d9", Some(true), None, None).unwrap();
            let set = set.build();
            let fps: Vec<Option<Fingerprint>> = (0..12u64)
                .map(|i| {
                    (i != 7).then(|| Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 5)))
                })
                .collect();
            let counts = count_pairs(&set, &fps);
            assert_eq!(counts.overall, reference(&set, &fps), "{unlisted:?}");
            assert_eq!(counts.by_category.len(), 3);
            assert_eq!(counts.by_category[0].positives(), 1);
            assert_eq!(counts.by_category[1].negatives(), 1);

            let near = near_pairs(&set, &fps, 64);
            let near_total: u64 = near.iter().map(|p| p.count).sum();
            let counted_with_fingerprints = counts.overall.at(64).scores.true_positives
                + counts.overall.at(64).scores.false_positives;
            assert_eq!(near_total, counted_with_fingerprints, "{unlisted:?}");
        }
    }
}
