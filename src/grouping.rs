//! Groups of near-duplicates from the near pairs, in any order the documents came: the rule
//! `clusters`, [`DedupIndex::duplicate_groups`](crate::plugin::DedupIndex::duplicate_groups),
//! the end-to-end scores of `eval` and the Python package's Spark job share. Where the
//! writer decides in arrival order (a crawler cannot wait), a batch sees every pair first.
//!
//! The rule is over *classes*: the exact copies of one document (same scope, fingerprint
//! and signature) are one class, judged once; a class of `n` copies counts `n` times. A
//! class's *weight* is what the documents near it (its own copies included) weigh, each
//! the bits its fingerprint shares with the class's (64 less their Hamming distance): the
//! class near the most documents, and the nearest, weighs the most. Classes lead in order
//! of weight (ties: the lesser fingerprint, then the earlier class), as in star clustering
//! (Aslam et al. 2004), where the vertex of highest degree is the first centre.
//!
//! * [`Grouping::Centres`]: in that order each class joins the nearest leading class (ties:
//!   the one that led first) whose group it is near every document of, or else leads.
//!   Every two documents of a group are near: a chain `A ~ B ~ C` with `A` and `C` apart
//!   makes `{A, B}` or `{B, C}` and one alone, never `{A, C}` together.
//! * [`Grouping::Stars`]: each class joins the nearest leading class it is near. Every
//!   document of a group is near its leader, not always to the others: a source leads the
//!   texts derived from it, whether it came first or last, though two heavy rewrites of it
//!   are apart; a chain `A ~ B ~ C` makes `{A, B, C}` around `B`.
//! * [`Grouping::Components`]: the connected components of the near pairs, as text-dedup,
//!   datatrove and NeMo give them, led by the class of highest weight. A chain of any
//!   length is one group.
//!
//! [`Grouping::for_threshold`] picks centres or stars by the rule: `docs/PARAMETERS.md`
//! ("How groups are formed") has what each rule measures on the evaluation sets. The
//! rules depend on the documents' order only through ties between classes of equal weight
//! and equal fingerprint.
//!
//! Memory is linear in the classes: the near pairs are asked for class by class
//! (`near`), weighed or matched as they come, and never held (20,000 copies of one page are
//! one class and no pair).

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::matching::MatchingSettings;

/// The signature threshold below which near means "derived from" rather than "the
/// same text", and groups are [`Grouping::Stars`]: the `rewrites` preset's 0.18 is below,
/// the `news` preset's 0.8 above.
pub const STARS_BELOW_THRESHOLD: f64 = 0.5;

/// How groups are formed from the near pairs: see the [module docs](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Grouping {
    /// Each class joins the nearest leading class whose group it is near every document
    /// of, leaders taken by weight: every two documents of a group are near.
    #[default]
    Centres,
    /// Each class joins the nearest leading class it is near, leaders taken by weight:
    /// every document of a group is near its leader.
    Stars,
    /// The connected components of the near pairs.
    Components,
}

impl Grouping {
    /// The grouping of a rule that verifies signatures at `threshold` (`None`: by
    /// fingerprints alone): [`Stars`](Grouping::Stars) below [`STARS_BELOW_THRESHOLD`],
    /// where two texts derived from one source are each near it and seldom near each
    /// other; else [`Centres`](Grouping::Centres), where a text near two others that are
    /// apart must not put them in one group.
    #[must_use]
    pub fn for_threshold(threshold: Option<f64>) -> Grouping {
        match threshold {
            Some(threshold) if threshold < STARS_BELOW_THRESHOLD => Grouping::Stars,
            _ => Grouping::Centres,
        }
    }

    /// The grouping of `settings`' rule ([`for_threshold`](Self::for_threshold)).
    #[must_use]
    pub fn for_settings(settings: &MatchingSettings) -> Grouping {
        Grouping::for_threshold(settings.get_verification().map(|v| v.get_threshold()))
    }
}

/// A class of exact copies, as [`group_classes`] takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class {
    /// How many documents it stands for (1 for a document without copies).
    pub size: u32,
    /// The fingerprint its documents share: the tie-break between classes of equal weight,
    /// so that the groups do not hang on the order of the documents.
    pub fingerprint: u64,
}

/// The leader of every class by `grouping`: `leaders[c] == c` for a class that leads (a
/// class alone leads itself). `classes` are in the documents' order (the earlier first: the
/// last tie-break); `near(c, out)` fills `out` (cleared by the caller) with every other
/// class near class `c` and the Hamming distance of their fingerprints, each once, in any
/// order; it is called at most twice per class, and must answer alike both times.
///
/// # Errors
/// The first error of `near`.
pub fn group_classes<E>(
    classes: &[Class],
    grouping: Grouping,
    mut near: impl FnMut(usize, &mut Vec<(usize, u32)>) -> Result<(), E>,
) -> Result<Vec<usize>, E> {
    let n = classes.len();
    let mut found = Vec::new();
    // Each class's copies besides itself are near it, all 64 bits shared.
    let mut weights: Vec<u64> = classes
        .iter()
        .map(|c| 64 * (u64::from(c.size) - 1))
        .collect();
    let mut components = match grouping {
        Grouping::Components => Some(UnionFind::new(n)),
        Grouping::Centres | Grouping::Stars => None,
    };
    for (c, weight) in weights.iter_mut().enumerate() {
        found.clear();
        near(c, &mut found)?;
        for &(other, distance) in &found {
            *weight += u64::from(classes[other].size) * u64::from(64 - distance.min(64));
            if let Some(components) = &mut components {
                components.union(c, other);
            }
        }
    }
    let rank_key = |c: usize| (Reverse(weights[c]), classes[c].fingerprint, c);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&c| rank_key(c));
    if let Some(mut components) = components {
        // The first class of each component in `order` leads it.
        let mut leader_of_root = vec![usize::MAX; n];
        for &c in &order {
            let root = components.find(c);
            if leader_of_root[root] == usize::MAX {
                leader_of_root[root] = c;
            }
        }
        return Ok((0..n).map(|c| leader_of_root[components.find(c)]).collect());
    }
    let mut rank = vec![0usize; n];
    for (r, &c) in order.iter().enumerate() {
        rank[c] = r;
    }
    // `usize::MAX` until decided.
    let mut leaders = vec![usize::MAX; n];
    // Documents in each leader's group so far; for the class at hand, how many of them it
    // is near (its near classes, by group).
    let mut group_sizes = vec![0u64; n];
    let mut near_in: HashMap<usize, u64> = HashMap::new();
    for &c in &order {
        found.clear();
        near(c, &mut found)?;
        if grouping == Grouping::Centres {
            near_in.clear();
            for &(other, _) in &found {
                if leaders[other] != usize::MAX {
                    *near_in.entry(leaders[other]).or_default() += u64::from(classes[other].size);
                }
            }
        }
        let joins = |leader: usize| match grouping {
            Grouping::Centres => near_in.get(&leader) == Some(&group_sizes[leader]),
            _ => true,
        };
        let nearest = (found.iter())
            .filter(|&&(other, _)| leaders[other] == other && joins(other))
            .min_by_key(|&&(other, distance)| (distance, rank[other]));
        let leader = nearest.map_or(c, |&(leader, _)| leader);
        leaders[c] = leader;
        group_sizes[leader] += u64::from(classes[c].size);
    }
    Ok(leaders)
}

/// Disjoint sets of `0..n` (union by size, path halving).
struct UnionFind {
    parent: Vec<usize>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let (small, large) = if self.size[a] < self.size[b] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[small] = large;
        self.size[large] += self.size[small];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaders of classes of one document each, fingerprint = position, near by `pairs`.
    fn leaders(n: usize, pairs: &[(usize, usize, u32)], grouping: Grouping) -> Vec<usize> {
        let classes: Vec<Class> = (0..n)
            .map(|i| Class {
                size: 1,
                fingerprint: i as u64,
            })
            .collect();
        let near = |c: usize, out: &mut Vec<(usize, u32)>| -> Result<(), ()> {
            for &(a, b, d) in pairs {
                if a == c {
                    out.push((b, d));
                } else if b == c {
                    out.push((a, d));
                }
            }
            Ok(())
        };
        group_classes(&classes, grouping, near).unwrap()
    }

    #[test]
    fn a_chain_is_cut_by_centres_and_stars_and_kept_whole_by_components() {
        // 0 ~ 1 ~ 2 ~ 3: 1 and 2 weigh the most; 1 has the lesser fingerprint.
        let chain = [(0, 1, 2), (1, 2, 2), (2, 3, 2)];
        // 2 joins 1; 0 is near 1, not 2; 3 is near no leader.
        assert_eq!(leaders(4, &chain, Grouping::Centres), [0, 1, 1, 3]);
        assert_eq!(leaders(4, &chain, Grouping::Stars), [1, 1, 1, 3]);
        assert_eq!(leaders(4, &chain, Grouping::Components), [1, 1, 1, 1]);
    }

    #[test]
    fn the_document_near_the_most_leads_wherever_it_stands() {
        // 3 is near 0, 1 and 2, which are near nothing else.
        let star = [(0, 3, 5), (1, 3, 4), (2, 3, 1)];
        assert_eq!(leaders(4, &star, Grouping::Stars), [3, 3, 3, 3]);
        // Under centres only the nearest joins: the others are apart from it.
        assert_eq!(leaders(4, &star, Grouping::Centres), [0, 1, 3, 3]);
    }

    #[test]
    fn a_class_joins_the_nearest_leader() {
        // 0 and 4 lead (three near each); 2 is near both, nearer 4.
        let pairs = [
            (0, 1, 1),
            (0, 2, 3),
            (0, 5, 1),
            (4, 2, 1),
            (4, 3, 1),
            (4, 6, 1),
        ];
        assert_eq!(leaders(7, &pairs, Grouping::Stars), [0, 0, 4, 4, 4, 0, 4]);
    }

    #[test]
    fn copies_weigh_in() {
        // 1 stands for three copies, near each other (all 64 bits shared) and 1 bit from 0:
        // 1 weighs 2 * 64 + 63, 0 weighs 3 * 63, and 1 leads.
        let classes = [
            Class {
                size: 1,
                fingerprint: 0,
            },
            Class {
                size: 3,
                fingerprint: 1,
            },
            Class {
                size: 1,
                fingerprint: 2,
            },
        ];
        let pairs = [(0usize, 1usize, 1u32)];
        let near = |c: usize, out: &mut Vec<(usize, u32)>| -> Result<(), ()> {
            out.extend(pairs.iter().filter(|p| p.0 == c).map(|p| (p.1, p.2)));
            out.extend(pairs.iter().filter(|p| p.1 == c).map(|p| (p.0, p.2)));
            Ok(())
        };
        let got = group_classes(&classes, Grouping::Centres, near).unwrap();
        assert_eq!(got, [1, 1, 2]);
    }
}
