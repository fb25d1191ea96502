//! Ring algorithms: `ring` (one direction) and `bidir-ring` (each piece cut in two halves that go
//! round in opposite directions) over all ranks in rank order, and the ring primitive every
//! algorithm uses on its lines.
//!
//! Reduce-scatter on a line of L ranks: at step t (0..L-1) the rank at ring position `pos` sends
//! piece `pos - d(t+1)` (mod L) to its neighbour `pos + d` (direction d = +1 or -1), which adds it
//! into its own; after L-1 steps the rank at `pos` holds piece `pos` fully reduced. All-gather:
//! at step t it sends piece `pos - d t`, which the neighbour copies. Step t waits for the piece
//! that arrived at step t-1 and for the rank's own send of step t-1 (a rank runs its steps in
//! order); step 0 waits for what the previous stage delivered to the rank.

use crate::collectives::build::{RankState, StageRef};
use crate::collectives::group::Group;
use crate::collectives::plan::{Line, LineAlgo, Phase, Plan};
use crate::collectives::schedule::{Schedule, Send};
use crate::sim::dag::MessageId;

/// The plan of `ring` or `bidir-ring`: one line over every dimension.
pub(crate) fn plan(group: &Group, bidir: bool) -> Plan {
    let algo = if bidir {
        LineAlgo::BidirRing
    } else {
        LineAlgo::Ring
    };
    let dims = (0..group.dims().len()).collect();
    Plan {
        lines: vec![Line::new(group, dims, algo)],
        parts: vec![vec![0]],
    }
}

/// Emits one reduce-scatter or all-gather stage of a (bidirectional) ring on the stage's line.
pub(crate) fn reduce_or_gather(
    sched: &mut Schedule,
    stage: &StageRef<'_>,
    state: &mut RankState,
    bidir: bool,
) {
    let line = stage.line;
    let size = line.size();
    let slots = stage.senders.count(stage.group.ranks()) as usize;
    let reduce = stage.phase == Phase::ReduceScatter;
    if size > 1 {
        let dirs: &[i64] = if bidir { &[1, -1] } else { &[1] };
        let halves = dirs.len() as u64;
        let none = MessageId::MAX;
        let mut arrived = vec![[none; 2]; slots];
        let mut sent = vec![[none; 2]; slots];
        let mut delivered: Vec<Vec<MessageId>> = vec![Vec::new(); slots];
        let l = size as i64;
        for t in 0..l - 1 {
            let mut next = vec![[none; 2]; slots];
            for s in 0..slots {
                let r = stage.senders.rank(s);
                let ranges = &state.ranges[s];
                // Reduce-scatter cuts the rank's range; all-gather completes the range below it.
                let parent = if reduce {
                    ranges[ranges.len() - 1]
                } else {
                    ranges[ranges.len() - 2]
                };
                let pos = line.pos(r) as i64;
                for (h, &d) in dirs.iter().enumerate() {
                    let piece = if reduce {
                        pos - d * (t + 1)
                    } else {
                        pos - d * t
                    };
                    let piece = piece.rem_euclid(l) as u64;
                    let run = [RankState::piece(
                        parent,
                        size as u64,
                        piece,
                        halves,
                        h as u64,
                    )];
                    let dst = line.rank_at(r, (pos + d).rem_euclid(l) as u32);
                    // The piece that arrived last step, and the rank's own previous send (which
                    // waited for what the previous stage delivered to it).
                    let waits = [arrived[s][h], sent[s][h]];
                    let after: &[MessageId] = if t == 0 { &state.prev[s] } else { &waits };
                    let forwards_reduced = if reduce {
                        t > 0 || state.reduced[s]
                    } else {
                        t == 0 && state.reduced[s]
                    };
                    let id = sched.push(Send {
                        src: r,
                        dst,
                        reduce,
                        forwards_reduced,
                        stage: stage.index,
                        runs: &run,
                        after,
                    });
                    let to = stage.senders.slot(dst);
                    next[to][h] = id;
                    sent[s][h] = id;
                    // The next stage needs the whole reduced piece (the last step) or every
                    // gathered piece (every step).
                    if !reduce || t == l - 2 {
                        delivered[to].push(id);
                    }
                }
            }
            arrived = next;
        }
        // A rank's next stage also follows its own last sends (its earlier steps and the
        // deliveries they waited for).
        for (s, last) in sent.iter().enumerate() {
            delivered[s].extend(last.iter().filter(|&&id| id != none));
        }
        state.prev = delivered;
    }
    advance(stage, state);
}

/// Moves every rank's range after a reduce-scatter (to its piece) or all-gather (back up).
pub(crate) fn advance(stage: &StageRef<'_>, state: &mut RankState) {
    let line = stage.line;
    let phase = stage.phase;
    for (s, ranges) in state.ranges.iter_mut().enumerate() {
        match phase {
            Phase::ReduceScatter => {
                let top = *ranges.last().expect("a range per rank");
                let pos = line.pos(stage.senders.rank(s)) as u64;
                ranges.push(RankState::piece(top, line.size() as u64, pos, 1, 0));
            }
            Phase::AllGather => {
                ranges.pop();
            }
            Phase::AllToAll => {}
        }
    }
    if line.size() > 1 {
        let reduced = phase == Phase::ReduceScatter;
        state.reduced.iter_mut().for_each(|x| *x = reduced);
    }
}
