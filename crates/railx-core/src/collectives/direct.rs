//! Direct (all-to-all based) algorithms (RailX paper A.2): on a fully connected line every rank
//! exchanges with every other in one step. Reduce-scatter sends piece j to the rank at position
//! j; all-gather sends the rank's own piece to everyone; all-to-all sends each rank the blocks it
//! is to receive along the line.
//!
//! The `direct` algorithm: all-to-all of the whole group in one step; for the reduction family,
//! a bidirectional-ring all-reduce on the node's mesh (when the group has one) around a direct
//! all-reduce on every HyperX dimension, half the data X-first and half Y-first (eq. 13).

use crate::collectives::build::{RankState, StageRef};
use crate::collectives::group::{DimKind, Group};
use crate::collectives::hierarchical::{axis_dims, mesh_line};
use crate::collectives::plan::{not_applicable, Line, LineAlgo, Phase, Plan};
use crate::collectives::ring::advance;
use crate::collectives::schedule::{Schedule, Send};
use crate::collectives::{Algo, Op};
use crate::error::Result;
use crate::plant::Axis;
use crate::sim::dag::MessageId;

pub(crate) fn plan(op: Op, group: &Group) -> Result<Plan> {
    if op == Op::AllToAll {
        let dims = (0..group.dims().len()).collect();
        return Ok(Plan {
            lines: vec![Line::new(group, dims, LineAlgo::Direct)],
            parts: vec![vec![0]],
        });
    }
    let mut lines: Vec<Line> = mesh_line(group).into_iter().collect();
    let mesh = lines.len();
    let mut by_axis = [Vec::new(), Vec::new()];
    for (a, axis) in Axis::BOTH.into_iter().enumerate() {
        for d in axis_dims(group, axis) {
            let dim = group.dims()[d];
            if dim.kind != DimKind::AllToAll {
                return Err(not_applicable(
                    Algo::Direct,
                    format!(
                        "a direct reduction needs fully connected (HyperX) dimensions, but group dimension {d} ({} {}, size {}) is a {}",
                        axis.name(),
                        dim.kind.name(),
                        dim.size,
                        dim.kind.name()
                    ),
                    "configure the rails as all-to-all (topology preset \"hyperx\"), or use hierarchical or 2d-ring",
                ));
            }
            by_axis[a].push(lines.len());
            lines.push(Line::new(group, vec![d], LineAlgo::Direct));
        }
    }
    let first: Vec<usize> = (0..mesh)
        .chain(by_axis[0].iter().copied())
        .chain(by_axis[1].iter().copied())
        .collect();
    let mut parts = vec![first];
    if !by_axis[0].is_empty() && !by_axis[1].is_empty() {
        parts.push(
            (0..mesh)
                .chain(by_axis[1].iter().copied())
                .chain(by_axis[0].iter().copied())
                .collect(),
        );
    }
    Ok(Plan { lines, parts })
}

/// One direct reduce-scatter or all-gather stage on the stage's line.
pub(crate) fn reduce_or_gather(sched: &mut Schedule, stage: &StageRef<'_>, state: &mut RankState) {
    let line = stage.line;
    let size = line.size() as u64;
    let slots = stage.senders.count(stage.group.ranks()) as usize;
    let reduce = stage.phase == Phase::ReduceScatter;
    if size > 1 {
        let mut delivered: Vec<Vec<MessageId>> = vec![Vec::new(); slots];
        let mut last_sent = vec![MessageId::MAX; slots];
        for (s, last) in last_sent.iter_mut().enumerate() {
            let r = stage.senders.rank(s);
            let ranges = &state.ranges[s];
            for dst in exchange_order(line, r) {
                let j = line.pos(dst) as u64;
                // Reduce-scatter: piece j of the rank's range to its owner; all-gather: the
                // rank's own piece (its top range) to everyone.
                let run = if reduce {
                    [RankState::piece(ranges[ranges.len() - 1], size, j, 1, 0)]
                } else {
                    [ranges[ranges.len() - 1]]
                };
                let id = sched.push(Send {
                    src: r,
                    dst,
                    reduce,
                    forwards_reduced: state.reduced[s],
                    stage: stage.index,
                    runs: &run,
                    after: &state.prev[s],
                });
                delivered[stage.senders.slot(dst)].push(id);
                *last = id;
            }
        }
        // The rank's next stage also follows its own sends (and so what they waited for).
        for (r, &id) in last_sent.iter().enumerate() {
            delivered[r].push(id);
        }
        state.prev = delivered;
    }
    advance(stage, state);
}

/// One all-to-all stage on the stage's line. Before it, a rank holds the blocks whose source
/// agrees with it on every dimension not yet exchanged and whose destination agrees with it on
/// every dimension already exchanged; it sends each line peer those whose destination has the
/// peer's coordinates on this line.
pub(crate) fn all_to_all(sched: &mut Schedule, stage: &StageRef<'_>, state: &mut RankState) {
    let group = stage.group;
    let line = stage.line;
    let ranks = group.ranks();
    let size = line.size();
    let slots = stage.senders.count(ranks) as usize;
    let done = state.done_dims.clone();
    let others: Vec<usize> = (0..group.dims().len())
        .filter(|d| !done.contains(d) && !line.dims.contains(d))
        .collect();
    if size > 1 {
        let mut delivered: Vec<Vec<MessageId>> = vec![Vec::new(); slots];
        let mut last_sent = vec![MessageId::MAX; slots];
        let mut units = Vec::new();
        let mut runs = Vec::new();
        for (s, last) in last_sent.iter_mut().enumerate() {
            let r = stage.senders.rank(s);
            let src_base = zero_dims(group, r, &done);
            for peer in exchange_order(line, r) {
                let dst_base = zero_dims(group, peer, &others);
                units.clear();
                for src in span(group, src_base, &done) {
                    for dst in span(group, dst_base, &others) {
                        units.push(src as u64 * ranks as u64 + dst as u64);
                    }
                }
                units.sort_unstable();
                runs.clear();
                for &u in &units {
                    match runs.last_mut() {
                        Some((lo, len)) if *lo + *len == u => *len += 1,
                        _ => runs.push((u, 1)),
                    }
                }
                let id = sched.push(Send {
                    src: r,
                    dst: peer,
                    reduce: false,
                    forwards_reduced: false,
                    stage: stage.index,
                    runs: &runs,
                    after: &state.prev[s],
                });
                delivered[stage.senders.slot(peer)].push(id);
                *last = id;
            }
        }
        for (r, &id) in last_sent.iter().enumerate() {
            delivered[r].push(id);
        }
        state.prev = delivered;
    }
    state.done_dims.extend(line.dims.iter().copied());
}

/// The line peers `rank` sends to, in order: its translates by steps 1, 2, ... of the line's
/// torus (`Line::shifted`), the shifted exchange. The order matters wherever a sender's messages
/// leave interleaved (the flit level's injection queues). Were every rank to go through its peers
/// from position 0, all would send to the same destination at the same moment, an incast the
/// switches resolve only partly; shifted, the ranks' t-th messages form a permutation. Shifting
/// digit by digit (not the line coordinate modulo the line's size) makes the dimensions a
/// message crosses depend on t alone, so the t-th messages that cross one dimension (e.g. leave
/// an HB domain over the NICs) also form a permutation among themselves. The flow level shares
/// the links among all of a rank's messages at once and does not see the order.
fn exchange_order(line: &Line, rank: u32) -> impl Iterator<Item = u32> + '_ {
    (1..line.size()).map(move |t| line.shifted(rank, t))
}

/// `rank` with its coordinates on `dims` set to 0.
fn zero_dims(group: &Group, rank: u32, dims: &[usize]) -> u32 {
    dims.iter()
        .fold(rank, |r, &d| r - group.coord(rank, d) * group.stride(d))
}

/// Every rank that equals `base` except on `dims`, which take every value.
fn span(group: &Group, base: u32, dims: &[usize]) -> Vec<u32> {
    let mut out = vec![base];
    for &d in dims {
        let stride = group.stride(d);
        out = out
            .iter()
            .flat_map(|&r| (0..group.dims()[d].size).map(move |c| r + c * stride))
            .collect();
    }
    out
}
