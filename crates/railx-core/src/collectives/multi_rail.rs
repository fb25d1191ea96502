//! Multi-rail collectives as LIBRA models them (paper 004 §II.C): dimension by dimension, each
//! with its topology's own algorithm (a bidirectional ring on mesh and ring dimensions, direct on
//! fully connected ones): reduce-scatter up the dimensions, all-gather back down; an all-to-all
//! exchanges one dimension after the other.

use crate::collectives::group::{DimKind, Group};
use crate::collectives::plan::{Line, LineAlgo, Plan};
use crate::collectives::Op;

pub(crate) fn plan(op: Op, group: &Group) -> Plan {
    let lines: Vec<Line> = group
        .dims()
        .iter()
        .enumerate()
        .map(|(d, dim)| {
            let algo = match (op, dim.kind) {
                (Op::AllToAll, _) | (_, DimKind::AllToAll) => LineAlgo::Direct,
                _ => LineAlgo::BidirRing,
            };
            Line::new(group, vec![d], algo)
        })
        .collect();
    let order = (0..lines.len()).collect();
    Plan {
        lines,
        parts: vec![order],
    }
}
