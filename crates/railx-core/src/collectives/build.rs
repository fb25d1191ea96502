//! Expands a plan into a schedule: one chunk, part by part and stage by stage, then repeated per
//! chunk. The ring and direct primitives (ring.rs, direct.rs) emit a stage's messages from the
//! per-rank state kept here.
//!
//! A schedule holds every rank's messages, or (`Senders::Domain`, symmetric.rs) only those of
//! the ranks in the fundamental domain of a symmetry group (`sim::flow::Symmetry`) under which
//! the whole system's schedule is invariant: one representative per orbit. The primitives then
//! keep state per *slot* (a rank, or a domain rank standing for all its images) and credit a
//! delivery to the slot of its receiver, so a dependency names the orbit it waits for.

use crate::collectives::group::Group;
use crate::collectives::plan::{LineAlgo, Phase, Plan};
use crate::collectives::schedule::Schedule;
use crate::collectives::{direct, ring, Algo, Op};
use crate::sim::dag::MessageId;
use crate::sim::flow::Symmetry;

/// What each rank holds between stages of one part.
pub(crate) struct RankState {
    /// Ranges of units (first, count), outermost first: the top is the range the rank works on
    /// (reduce-scatter cuts it; all-gather completes the one below it).
    pub ranges: Vec<Vec<(u64, u64)>>,
    /// Deliveries the rank's next sends wait for.
    pub prev: Vec<Vec<MessageId>>,
    /// Whether the data the rank holds was just reduced by it (a reduction delay applies).
    pub reduced: Vec<bool>,
    /// Group dimensions already exchanged by earlier all-to-all stages.
    pub done_dims: Vec<usize>,
}

/// Which ranks' messages a schedule holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Senders<'a> {
    /// Every rank's.
    All,
    /// Those of the chips in the group's fundamental domain (on a whole system, where
    /// rank = chip id): one representative per orbit of the group.
    Domain(&'a Symmetry),
}

impl Senders<'_> {
    /// The number of ranks whose messages are emitted, one per state slot.
    pub fn count(self, ranks: u32) -> u32 {
        match self {
            Senders::All => ranks,
            Senders::Domain(group) => group.domain_chips(),
        }
    }

    /// The rank whose messages slot `slot` emits.
    pub fn rank(self, slot: usize) -> u32 {
        match self {
            Senders::All => slot as u32,
            Senders::Domain(group) => group.domain_chip(slot as u32),
        }
    }

    /// The state slot of `rank`: itself, or the domain rank it is a translate of.
    pub fn slot(self, rank: u32) -> usize {
        match self {
            Senders::All => rank as usize,
            Senders::Domain(group) => group.member(rank).0 as usize,
        }
    }
}

impl RankState {
    fn new(slots: u32, range: (u64, u64)) -> RankState {
        RankState {
            ranges: vec![vec![range]; slots as usize],
            prev: vec![Vec::new(); slots as usize],
            reduced: vec![false; slots as usize],
            done_dims: Vec::new(),
        }
    }

    /// The piece `j` of `range` cut into `pieces`, and its sub-piece `h` of `subs`.
    pub fn piece(range: (u64, u64), pieces: u64, j: u64, subs: u64, h: u64) -> (u64, u64) {
        let piece = range.1 / pieces;
        let sub = piece / subs;
        (range.0 + j * piece + h * sub, sub)
    }
}

/// A stage to emit: the phase, the line and the stage's index within its part.
pub(crate) struct StageRef<'a> {
    pub group: &'a Group,
    pub line: &'a crate::collectives::plan::Line,
    pub phase: Phase,
    pub index: u16,
    pub senders: Senders<'a>,
}

/// The schedule of `op` for `plan` on `group`, `chunks` chunks, holding the messages of `senders`.
pub(crate) fn expand(
    op: Op,
    algo: Algo,
    plan: &Plan,
    group: &Group,
    size: (u64, u32),
    senders: Senders<'_>,
) -> Schedule {
    let (size_bytes, chunks) = size;
    let ranks = group.ranks();
    let slots = senders.count(ranks);
    let per_part = plan.units_per_part(op);
    let units = match op {
        Op::AllToAll => ranks as u64 * ranks as u64,
        _ => per_part * plan.parts.len() as u64,
    };
    let mut sched = Schedule::empty(op, algo, group.clone(), 1, size_bytes, units);
    let mut shards = vec![Vec::new(); slots as usize];
    for part in 0..plan.parts.len() {
        let stages = plan.stages(op, part);
        let mut state = RankState::new(slots, (part as u64 * per_part, per_part));
        if op == Op::AllGather {
            // Start from the shards a reduce-scatter along the same lines would leave.
            for &l in plan.parts[part].iter() {
                let line = &plan.lines[l];
                for (s, ranges) in state.ranges.iter_mut().enumerate() {
                    let top = *ranges.last().expect("a range per rank");
                    let pos = line.pos(senders.rank(s)) as u64;
                    ranges.push(RankState::piece(top, line.size() as u64, pos, 1, 0));
                }
            }
            record_shards(&state, &mut shards);
        }
        for (index, &(phase, l)) in stages.iter().enumerate() {
            let stage = StageRef {
                group,
                line: &plan.lines[l],
                phase,
                index: index as u16,
                senders,
            };
            match (phase, stage.line.algo) {
                (Phase::AllToAll, _) => direct::all_to_all(&mut sched, &stage, &mut state),
                (_, LineAlgo::Direct) => direct::reduce_or_gather(&mut sched, &stage, &mut state),
                (_, LineAlgo::Ring) => {
                    ring::reduce_or_gather(&mut sched, &stage, &mut state, false)
                }
                (_, LineAlgo::BidirRing) => {
                    ring::reduce_or_gather(&mut sched, &stage, &mut state, true)
                }
            }
        }
        if op == Op::ReduceScatter {
            record_shards(&state, &mut shards);
        }
    }
    let runs_per_rank = shards[0].len();
    sched.set_shards(shards.into_iter().flatten().collect(), runs_per_rank);
    sched.pipelined(chunks)
}

fn record_shards(state: &RankState, shards: &mut [Vec<(u64, u64)>]) {
    for (r, ranges) in state.ranges.iter().enumerate() {
        shards[r].push(*ranges.last().expect("a range per rank"));
    }
}

/// Messages and bytes of a schedule, from the plan alone (no message is generated), so that
/// any scale can be summarised: every rank holds the same amount at every stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    pub messages: u64,
    /// Units carried by all messages together.
    pub units_moved: u64,
    /// Bytes carried by all messages together (the payload shared pro rata over units).
    pub bytes: f64,
}

pub(crate) fn counts(op: Op, plan: &Plan, group: &Group, size_bytes: u64, chunks: u32) -> Counts {
    let ranks = group.ranks() as u64;
    let per_part = plan.units_per_part(op);
    let (mut messages, mut moved) = (0u64, 0u64);
    for part in 0..plan.parts.len() {
        let mut len = per_part;
        if op == Op::AllGather {
            len /= plan.parts[part]
                .iter()
                .map(|&l| plan.lines[l].size() as u64)
                .product::<u64>();
        }
        for (phase, l) in plan.stages(op, part) {
            let line = &plan.lines[l];
            let size = line.size() as u64;
            if size == 1 {
                continue;
            }
            let (sends, units_each) = match (phase, line.algo) {
                (Phase::AllToAll, _) => (ranks * (size - 1), ranks / size),
                (Phase::ReduceScatter, LineAlgo::Direct) => (ranks * (size - 1), len / size),
                (Phase::AllGather, LineAlgo::Direct) => (ranks * (size - 1), len),
                (phase, algo) => {
                    let halves = if algo == LineAlgo::BidirRing { 2 } else { 1 };
                    let piece = if phase == Phase::ReduceScatter {
                        len / size
                    } else {
                        len
                    };
                    (ranks * (size - 1) * halves, piece / halves)
                }
            };
            messages += sends;
            moved += sends * units_each;
            match phase {
                Phase::ReduceScatter => len /= size,
                Phase::AllGather => len *= size,
                Phase::AllToAll => {}
            }
        }
    }
    let units = match op {
        Op::AllToAll => ranks * ranks,
        _ => per_part * plan.parts.len() as u64,
    };
    let payload = match op {
        Op::AllToAll => size_bytes as f64 * ranks as f64,
        _ => size_bytes as f64,
    };
    Counts {
        messages: messages * chunks as u64,
        units_moved: moved * chunks as u64,
        bytes: moved as f64 * payload / units as f64,
    }
}
