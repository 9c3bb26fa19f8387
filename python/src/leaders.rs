//! `leader_rows`: the groups of components of near pairs, by the library's grouping rule
//! (`tantivy_dedup::grouping`, the rule `tantivy-dedup clusters` applies), for jobs that
//! gather each component's members and pairs in one row.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tantivy_dedup::grouping::{group_classes, Class, Grouping};

use crate::{column, signed_words, words, Columns3, DedupError};

/// The groups of components by `grouping` (`"centres"`, `"stars"` or `"components"`: a
/// `MatchingSettings.grouping`). Component `c` has the members
/// `orders[members[c]..members[c + 1]]` (little-endian i64 orders, any order; `members`
/// little-endian i32 bounds, one more than the components), each with its fingerprint
/// (`fingerprints`, u64) and the order of the first document with its fingerprint and
/// signature (`firsts`, i64: its own order unless it is a copy), and the near pairs `a`,
/// `b` (i64 orders) and `distance` (u32) at `near[c]..near[c + 1]` (i32 bounds). Pairs of
/// a copy are not read: a copy is grouped with its first. Returns, for each member of a
/// group of two or more, the index in `orders` of its leader and its own (u32), and its
/// position (u32: 0 for the leader, then 1, 2, .. in order).
///
/// # Errors
/// `DedupError` for columns of unequal lengths, bounds outside them, a copy whose first is
/// not in its component, or an unknown grouping.
#[pyfunction]
// The columns Python hands over, an argument each.
#[allow(clippy::too_many_arguments)]
pub(crate) fn leader_rows<'py>(
    py: Python<'py>,
    members: &[u8],
    orders: &[u8],
    fingerprints: &[u8],
    firsts: &[u8],
    near: &[u8],
    a: &[u8],
    b: &[u8],
    distance: &[u8],
    grouping: &str,
) -> PyResult<Columns3<'py>> {
    let grouping = match grouping {
        "centres" => Grouping::Centres,
        "stars" => Grouping::Stars,
        "components" => Grouping::Components,
        other => {
            return Err(DedupError::new_err(format!(
                "leader_rows: unknown grouping {other:?} (centres, stars or components)"
            )))
        }
    };
    let (members, near) = (words(members, 4, "members")?, words(near, 4, "near")?);
    let orders = signed_words(orders, "orders")?;
    let fingerprints = words(fingerprints, 8, "fingerprints")?;
    let firsts = signed_words(firsts, "firsts")?;
    let (a, b) = (signed_words(a, "a")?, signed_words(b, "b")?);
    let distance = words(distance, 4, "distance")?;
    let fits = |bounds: &[u64], len: usize| {
        bounds.windows(2).all(|w| w[0] <= w[1])
            && bounds.last().is_none_or(|&end| end as usize <= len)
    };
    if members.len() != near.len()
        || [fingerprints.len(), firsts.len()] != [orders.len(); 2]
        || [b.len(), distance.len()] != [a.len(); 2]
        || !fits(&members, orders.len())
        || !fits(&near, a.len())
    {
        return Err(DedupError::new_err(format!(
            "leader_rows: {} member bounds over {} orders, {} fingerprints and {} firsts, {} \
             pair bounds over {} a, {} b and {} distances",
            members.len(),
            orders.len(),
            fingerprints.len(),
            firsts.len(),
            near.len(),
            a.len(),
            b.len(),
            distance.len()
        )));
    }
    let rows = py.allow_threads(|| {
        let mut rows = Vec::new();
        let columns = MemberColumns {
            orders: &orders,
            fingerprints: &fingerprints,
            firsts: &firsts,
        };
        for c in 0..members.len().saturating_sub(1) {
            let (m, n) = (
                members[c] as usize..members[c + 1] as usize,
                near[c] as usize..near[c + 1] as usize,
            );
            columns.groups(
                m,
                n.map(|i| (a[i], b[i], distance[i] as u32)),
                grouping,
                &mut rows,
            )?;
        }
        Ok::<_, String>(rows)
    });
    let rows = rows.map_err(DedupError::new_err)?;
    Ok((
        PyBytes::new(py, &column(&rows, |row| (row.0 as u32).to_le_bytes())),
        PyBytes::new(py, &column(&rows, |row| (row.1 as u32).to_le_bytes())),
        PyBytes::new(py, &column(&rows, |row| row.2.to_le_bytes())),
    ))
}

/// The member columns of a batch of components.
struct MemberColumns<'a> {
    orders: &'a [i64],
    fingerprints: &'a [u64],
    firsts: &'a [i64],
}

impl MemberColumns<'_> {
    /// Appends to `rows` the groups of one component: its members (indexes into the
    /// columns) and its near pairs `(a, b, distance)`, as `(leader's index, member's
    /// index, position)`.
    fn groups(
        &self,
        members: std::ops::Range<usize>,
        near: impl Iterator<Item = (i64, i64, u32)>,
        grouping: Grouping,
        rows: &mut Vec<(usize, usize, u32)>,
    ) -> Result<(), String> {
        let mut in_order: Vec<usize> = members.collect();
        in_order.sort_unstable_by_key(|&i| self.orders[i]);
        // Classes of copies in the order of their firsts: a class by its first's order.
        let mut class_of_order: HashMap<i64, usize> = HashMap::new();
        let mut firsts: Vec<usize> = Vec::new();
        for &i in &in_order {
            if self.firsts[i] == self.orders[i] {
                class_of_order.insert(self.orders[i], firsts.len());
                firsts.push(i);
            }
        }
        let mut class_of = Vec::with_capacity(in_order.len());
        let mut sizes = vec![0u32; firsts.len()];
        for &i in &in_order {
            let class = *class_of_order.get(&self.firsts[i]).ok_or_else(|| {
                format!(
                    "leader_rows: the first ({}) of document {} is not in its component",
                    self.firsts[i], self.orders[i]
                )
            })?;
            sizes[class] += 1;
            class_of.push(class);
        }
        let mut neighbours: Vec<Vec<(usize, u32)>> = vec![Vec::new(); firsts.len()];
        for (a, b, distance) in near {
            // Only pairs of firsts: a copy's pair with its first only connects them.
            if let (Some(&x), Some(&y)) = (class_of_order.get(&a), class_of_order.get(&b)) {
                if x != y {
                    neighbours[x].push((y, distance));
                    neighbours[y].push((x, distance));
                }
            }
        }
        for list in &mut neighbours {
            list.sort_unstable();
            list.dedup_by_key(|&mut (other, _)| other);
        }
        let classes: Vec<Class> = (firsts.iter().zip(&sizes))
            .map(|(&first, &size)| Class {
                size,
                fingerprint: self.fingerprints[first],
            })
            .collect();
        let leaders = group_classes(&classes, grouping, |c, out| {
            out.extend_from_slice(&neighbours[c]);
            Ok::<(), ()>(())
        })
        .expect("the pairs are in memory");
        // Each group's documents in order, by its leading class.
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        for (&i, &class) in in_order.iter().zip(&class_of) {
            groups.entry(leaders[class]).or_default().push(i);
        }
        let mut groups: Vec<(usize, Vec<usize>)> = groups
            .into_iter()
            .filter(|(_, docs)| docs.len() > 1)
            .map(|(leader, docs)| (firsts[leader], docs))
            .collect();
        groups.sort_unstable_by_key(|&(leader, _)| self.orders[leader]);
        for (leader, docs) in groups {
            rows.push((leader, leader, 0));
            let others = docs.into_iter().filter(|&i| i != leader);
            rows.extend(others.enumerate().map(|(p, i)| (leader, i, p as u32 + 1)));
        }
        Ok(())
    }
}
