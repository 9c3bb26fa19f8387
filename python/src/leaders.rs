//! `leader_rows`: the clusters of components of near pairs, as the index's writer decides
//! them, for jobs that gather each component's members and pairs in one row.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{column, signed_words, words, Columns3, DedupError};

/// The clusters of components, as the index's writer decides them in input order: a
/// document near an earlier leader joins the nearest (the earliest among equals), any other
/// leads. Component `c` has the members `orders[members[c]..members[c + 1]]` (little-endian
/// i64 orders, any order; `members` little-endian i32 bounds, one more than the
/// components) and the verified pairs `a`, `b` (i64, `a` before `b`) and `distance` (u32)
/// at `near[c]..near[c + 1]` (i32 bounds). Returns, for each member of a cluster of two or
/// more, the index in `orders` of its leader and its own (u32), and its position (u32: 0
/// for the leader, then 1, 2, .. in order).
///
/// # Errors
/// `DedupError` for columns of unequal lengths or bounds outside them.
#[pyfunction]
pub(crate) fn leader_rows<'py>(
    py: Python<'py>,
    members: &[u8],
    orders: &[u8],
    near: &[u8],
    a: &[u8],
    b: &[u8],
    distance: &[u8],
) -> PyResult<Columns3<'py>> {
    let (members, near) = (words(members, 4, "members")?, words(near, 4, "near")?);
    let orders = signed_words(orders, "orders")?;
    let (a, b) = (signed_words(a, "a")?, signed_words(b, "b")?);
    let distance = words(distance, 4, "distance")?;
    let fits = |bounds: &[u64], len: usize| {
        bounds.windows(2).all(|w| w[0] <= w[1])
            && bounds.last().is_none_or(|&end| end as usize <= len)
    };
    if members.len() != near.len()
        || [b.len(), distance.len()] != [a.len(); 2]
        || !fits(&members, orders.len())
        || !fits(&near, a.len())
    {
        return Err(DedupError::new_err(format!(
            "leader_rows: {} member bounds over {} orders, {} pair bounds over {} a, {} b \
             and {} distances",
            members.len(),
            orders.len(),
            near.len(),
            a.len(),
            b.len(),
            distance.len()
        )));
    }
    let rows = py.allow_threads(|| {
        let mut rows = Vec::new();
        for c in 0..members.len().saturating_sub(1) {
            let (m, n) = (
                members[c] as usize..members[c + 1] as usize,
                near[c] as usize..near[c + 1] as usize,
            );
            clusters_of(
                &orders,
                m,
                n.map(|i| (a[i], b[i], distance[i] as u32)),
                &mut rows,
            );
        }
        rows
    });
    Ok((
        PyBytes::new(py, &column(&rows, |row| (row.0 as u32).to_le_bytes())),
        PyBytes::new(py, &column(&rows, |row| (row.1 as u32).to_le_bytes())),
        PyBytes::new(py, &column(&rows, |row| row.2.to_le_bytes())),
    ))
}

/// Appends to `rows` the clusters of one component: its members `orders[members]` and its
/// near pairs `(a, b, distance)`, as `(leader's index, member's index, position)`.
fn clusters_of(
    orders: &[i64],
    members: std::ops::Range<usize>,
    near: impl Iterator<Item = (i64, i64, u32)>,
    rows: &mut Vec<(usize, usize, u32)>,
) {
    let mut earlier: HashMap<i64, Vec<(u32, i64)>> = HashMap::new();
    for (a, b, distance) in near {
        earlier.entry(b).or_default().push((distance, a));
    }
    let mut in_order: Vec<usize> = members.collect();
    in_order.sort_unstable_by_key(|&i| orders[i]);
    // A leader's order, its index, and where its cluster is in `clusters`, once it has one.
    let mut leaders: HashMap<i64, (usize, Option<usize>)> = HashMap::new();
    let mut clusters: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in in_order {
        let nearest = (earlier.get(&orders[i]).into_iter().flatten())
            .filter(|(_, a)| leaders.contains_key(a))
            .min();
        match nearest {
            Some(&(_, leader)) => {
                let (index, cluster) = leaders.get_mut(&leader).expect("a leader");
                let at = *cluster.get_or_insert_with(|| {
                    clusters.push((*index, Vec::new()));
                    clusters.len() - 1
                });
                clusters[at].1.push(i);
            }
            None => {
                leaders.insert(orders[i], (i, None));
            }
        }
    }
    for (leader, followers) in clusters {
        rows.push((leader, leader, 0));
        rows.extend(
            (followers.into_iter().enumerate())
                .map(|(position, i)| (leader, i, position as u32 + 1)),
        );
    }
}
