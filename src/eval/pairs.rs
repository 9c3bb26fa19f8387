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
    let listed: HashMap<(u32, u32), Option<bool>> =
        set.listed().iter().map(|p| ((p.a, p.b), p.label)).collect();
    let near = |a: usize, b: usize| {
        let d = distance(fingerprints, a, b);
        if d > max_distance as usize {
            return None;
        }
        let label = match listed.get(&(a as u32, b as u32)) {
            Some(&label) => label,
            None => set.unlisted_label(a, b),
        }?;
        Some(NearPair {
            a: a as u32,
            b: b as u32,
            distance: d as u32,
            label,
        })
    };
    let mut pairs: Vec<NearPair> = if set.unlisted() == Unlisted::Ignore {
        set.listed()
            .iter()
            .filter_map(|p| near(p.a as usize, p.b as usize))
            .collect()
    } else {
        let n = set.len();
        (0..n)
            .into_par_iter()
            .flat_map_iter(|a| (a + 1..n).filter_map(move |b| near(a, b)))
            .collect()
    };
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    pairs
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
            let near_total = near.len() as u64;
            let counted_with_fingerprints = counts.overall.at(64).scores.true_positives
                + counts.overall.at(64).scores.false_positives;
            assert_eq!(near_total, counted_with_fingerprints, "{unlisted:?}");
        }
    }
}
