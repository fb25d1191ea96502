//! Two-step all-to-all (Rail-only, paper 002 §IV; NCCL's PXN): first an all-to-all among the
//! ranks of the same local rank across high-bandwidth domains (over the rails), each block sent to
//! the rank of its destination's domain that shares the sender's local rank; then an all-to-all
//! inside every domain (the mesh) forwards the blocks to their destinations.

use crate::collectives::group::{DimKind, Group};
use crate::collectives::plan::{dims_where, not_applicable, Line, LineAlgo, Plan};
use crate::collectives::{Algo, Op};
use crate::error::Result;

pub(crate) fn plan(op: Op, group: &Group) -> Result<Plan> {
    if op != Op::AllToAll {
        return Err(not_applicable(
            Algo::TwoStep,
            "two-step is an all-to-all algorithm",
            "use hierarchical, multi-rail, 2d-ring or ring for a reduction",
        ));
    }
    let mut inner = dims_where(group, |d| group.dims()[d].kind == DimKind::Local);
    if inner.is_empty() {
        inner.push(0);
    }
    let outer = dims_where(group, |d| !inner.contains(&d));
    if outer.is_empty() {
        return Err(not_applicable(
            Algo::TwoStep,
            "two-step needs a group of several high-bandwidth domains (an inner and an outer dimension)",
            "shape the group with two dimensions, or use direct",
        ));
    }
    let lines = vec![
        Line::new(group, inner, LineAlgo::Direct),
        Line::new(group, outer, LineAlgo::Direct),
    ];
    Ok(Plan {
        lines,
        parts: vec![vec![1, 0]],
    })
}
