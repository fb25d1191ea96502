//! RailX hierarchical all-reduce (paper §4.2, Fig. 11, eq. 8): a bidirectional-ring
//! reduce-scatter on each node's mesh (ring along a Hamiltonian cycle of the m x m mesh), a 2D
//! bidirectional-ring all-reduce across nodes among the chips of the same local rank (half the
//! data X-first, half Y-first, as the 2D-ring algorithm), then the mesh all-gather.

use crate::collectives::group::{DimKind, Group};
use crate::collectives::plan::{dims_where, not_applicable, Line, LineAlgo, Plan};
use crate::collectives::{Algo, Op};
use crate::error::Result;
use crate::plant::Axis;

pub(crate) fn plan(op: Op, group: &Group) -> Result<Plan> {
    if op == Op::AllToAll {
        return Err(not_applicable(
            Algo::Hierarchical,
            "hierarchical is a reduction algorithm",
            "use direct, two-step or multi-rail for an all-to-all",
        ));
    }
    let mesh = mesh_line(group).ok_or_else(|| {
        not_applicable(
            Algo::Hierarchical,
            "hierarchical needs a grouping into high-bandwidth domains (a RailX node, HammingMesh board, Rail-only HB domain, TPUv4 cube or switch), which this system has not",
            "use ring, bidir-ring or multi-rail",
        )
    })?;
    let mut lines = vec![mesh];
    for axis in Axis::BOTH {
        let dims = axis_dims(group, axis);
        if !dims.is_empty() {
            lines.push(Line::new(group, dims, LineAlgo::BidirRing));
        }
    }
    if lines.len() == 1 {
        return Err(not_applicable(
            Algo::Hierarchical,
            "hierarchical needs dimensions that join the high-bandwidth domains besides the domain's own",
            "use bidir-ring for one domain",
        ));
    }
    let parts = if lines.len() == 3 {
        vec![vec![0, 1, 2], vec![0, 2, 1]]
    } else {
        vec![vec![0, 1]]
    };
    Ok(Plan { lines, parts })
}

/// Non-mesh dimensions along `axis`, innermost first.
pub(crate) fn axis_dims(group: &Group, axis: Axis) -> Vec<usize> {
    dims_where(group, |d| {
        group.dims()[d].kind != DimKind::Local && group.dims()[d].axis == axis
    })
}

/// The bidirectional ring over a node's mesh dimensions, if the group has any. On a square mesh
/// of even side the ring follows a Hamiltonian cycle (every step one mesh hop): row 0 from x = 0
/// to m-1, rows 1..m snaking over columns 1..m-1, back down column 0. Otherwise rank order.
pub(crate) fn mesh_line(group: &Group) -> Option<Line> {
    let dims = dims_where(group, |d| group.dims()[d].kind == DimKind::Local);
    if dims.is_empty() {
        return None;
    }
    let sizes: Vec<u32> = dims.iter().map(|&d| group.dims()[d].size).collect();
    if let [a, b] = sizes[..] {
        if a == b && a % 2 == 0 {
            return Some(Line::with_order(
                group,
                dims,
                LineAlgo::BidirRing,
                hamiltonian_cycle(a),
            ));
        }
    }
    Some(Line::new(group, dims, LineAlgo::BidirRing))
}

/// Coordinates `x + m*y` of a Hamiltonian cycle of the m x m mesh (m even).
fn hamiltonian_cycle(m: u32) -> Vec<u32> {
    let mut order = vec![0];
    for y in 0..m {
        let xs: Vec<u32> = if y % 2 == 0 {
            (1..m).collect()
        } else {
            (1..m).rev().collect()
        };
        order.extend(xs.into_iter().map(|x| x + m * y));
    }
    order.extend((1..m).rev().map(|y| m * y));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_cycle_takes_one_hop_per_step() {
        for m in [2, 4, 6] {
            let order = hamiltonian_cycle(m);
            assert_eq!(order.len() as u32, m * m);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..m * m).collect::<Vec<_>>());
            for i in 0..order.len() {
                let (a, b) = (order[i], order[(i + 1) % order.len()]);
                let dist = (a % m).abs_diff(b % m) + (a / m).abs_diff(b / m);
                assert_eq!(dist, 1, "m = {m}: {a} -> {b}");
            }
        }
    }
}
