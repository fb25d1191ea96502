//! 2D-ring (torus) all-reduce (paper eq. 7, after Cho et al.): the group is a grid of an X line
//! and a Y line (on RailX: the chip rows and columns, x + m*X and y + m*Y, each a ring through
//! meshes and rails); half the data reduce-scatters X then Y, the other half Y then X, both at
//! once over bidirectional rings, and all-gathers back in reverse.

use crate::collectives::group::Group;
use crate::collectives::plan::{dims_where, not_applicable, Line, LineAlgo, Plan};
use crate::collectives::{Algo, Op};
use crate::error::Result;
use crate::plant::Axis;

pub(crate) fn plan(op: Op, group: &Group) -> Result<Plan> {
    if op == Op::AllToAll {
        return Err(not_applicable(
            Algo::TwoDRing,
            "2d-ring is a reduction algorithm",
            "use direct, two-step or multi-rail for an all-to-all",
        ));
    }
    let lines: Vec<Line> = Axis::BOTH
        .into_iter()
        .map(|axis| dims_where(group, |d| group.dims()[d].axis == axis))
        .filter(|dims| !dims.is_empty())
        .map(|dims| Line::new(group, dims, LineAlgo::BidirRing))
        .collect();
    if lines.len() != 2 {
        return Err(not_applicable(
            Algo::TwoDRing,
            "2d-ring needs a grid: group dimensions along both X and Y",
            "give the group an X and a Y dimension, or use bidir-ring",
        ));
    }
    Ok(Plan {
        lines,
        parts: vec![vec![0, 1], vec![1, 0]],
    })
}
