//! A ring all-reduce over every chip of a system, in representative form, generated step by
//! step as its messages become ready instead of stored: the engine's [`Workload`] for the 1D
//! ring at hyper-scale. Aggregated over whole rows of nodes the stored DAG still has
//! `4N(N-1)/p` representatives (33.5M at 16,384 chips); here a message exists only between its
//! first dependency's arrival and its own, so memory is the live window: a few steps per rank.
//!
//! The messages, ids, bytes, delays and dependencies are exactly those of
//! `collectives::symmetric::representatives` for the `ring` or `bidir-ring` all-reduce in one
//! chunk (tests compare both runs bit for bit), computed from the step instead of looked up:
//! message id = `((stage * (L - 1) + t) * slots + slot) * halves + half`, in the stored
//! schedule's order (stage, step, sender slot, direction), where `L` is the ring's size, `slots`
//! the fundamental domain's chips and `halves` the directions (2 for `bidir-ring`). Message
//! `(stage, t, s, h)` goes from domain chip `s` to its ring neighbour in direction `h`; in each
//! stage, step `t > 0` waits for the message its predecessor sent it at step `t - 1` (credited
//! to its orbit: `SymmetricDag`) and for its own send of step `t - 1`; the all-gather's step 0
//! waits for both directions' last reduce-scatter messages delivered to it and its own last
//! two sends.

use super::engine::Workload;
use super::symmetry::Symmetry;
use crate::collectives::group::Group;
use crate::collectives::plan::Line;
use crate::collectives::symmetric::check_plan;
use crate::collectives::{check_size, plan_for, Algo, Op};
use crate::error::{RailxError, Result};
use std::collections::VecDeque;

/// The reduce-scatter then all-gather of a (bidirectional) ring over every chip, representatives
/// of the orbits of `group`, generated as they become ready.
pub struct RingSteps {
    group: Symmetry,
    /// Ring size L (every chip), fundamental-domain chips, directions (1 or 2).
    size: u64,
    slots: u64,
    halves: u64,
    /// Per slot, its chip's ring position.
    pos: Vec<u64>,
    /// Per (slot, direction): the destination chip and the destination's slot.
    dst: Vec<u32>,
    dst_slot: Vec<u32>,
    /// Bytes of every (piece, half): a message's size depends on nothing else.
    piece_bytes: Vec<u64>,
    reduce_s_per_byte: f64,
    /// Per lane (slot, direction), its messages from step `base[lane]` on that have some
    /// dependencies arrived: waits left and latest arrival. A lane's messages become ready in
    /// step order (each waits for the lane's previous one), so the ready one is the front.
    pending: Vec<VecDeque<(u32, f64)>>,
    base: Vec<u64>,
    held: usize,
    peak_pending: usize,
}

impl RingSteps {
    /// The `ring` or `bidir-ring` all-reduce of `size_bytes` per rank over `group` (every chip,
    /// rank = chip id), one chunk, as representatives of `h`'s orbits; refused in one line when
    /// the schedule is not invariant under `h` or is another collective.
    pub fn new(
        op: Op,
        algo: Algo,
        group: &Group,
        h: &Symmetry,
        size_bytes: u64,
        reduce_s_per_byte: f64,
    ) -> Result<RingSteps> {
        check_size(size_bytes, 1)?;
        let halves = match (op, algo) {
            (Op::AllReduce, Algo::Ring) => 1,
            (Op::AllReduce, Algo::BidirRing) => 2,
            _ => {
                return Err(RailxError::invalid(
                    "algo",
                    format!("{} {}", op.name(), algo.name()),
                    "steps are generated for the ring and bidir-ring all-reduce only",
                    "run the stored schedule (collectives::symmetric::representatives)",
                ))
            }
        };
        let plan = plan_for(op, algo, group)?;
        check_plan(algo, &plan, group, h)?;
        let line: &Line = &plan.lines[0];
        let size = line.size() as u64;
        let slots = h.domain_chips() as u64;
        let mut dst = Vec::with_capacity((slots * halves) as usize);
        let mut positions = Vec::with_capacity(slots as usize);
        for s in 0..slots as u32 {
            let r = h.domain_chip(s);
            let pos = line.pos(r) as u64;
            positions.push(pos);
            for d in [1, size - 1].iter().take(halves as usize) {
                dst.push(line.rank_at(r, ((pos + d) % size) as u32));
            }
        }
        let dst_slot = dst.iter().map(|&c| h.member(c).0).collect();
        // Piece j of the vector's units cut in `size` pieces, its half h cut in `halves`
        // (`RankState::piece`), in bytes as `Schedule::unit_bytes` cuts them, at least 1.
        let units = plan.units_per_part(op) * plan.parts.len() as u64;
        let at = |u: u64| (size_bytes as u128 * u as u128 / units as u128) as u64;
        let (per_piece, sub) = (units / size, units / size / halves);
        let piece_bytes = (0..size * halves)
            .map(|i| {
                let lo = i / halves * per_piece + i % halves * sub;
                (at(lo + sub) - at(lo)).max(1)
            })
            .collect();
        let lanes = (slots * halves) as usize;
        Ok(RingSteps {
            group: h.clone(),
            size,
            slots,
            halves,
            pos: positions,
            dst,
            dst_slot,
            piece_bytes,
            reduce_s_per_byte,
            pending: vec![VecDeque::new(); lanes],
            // Step 0 waits for nothing: it is never pending.
            base: vec![1; lanes],
            held: 0,
            peak_pending: 0,
        })
    }

    /// The group whose orbits the messages represent.
    pub fn group(&self) -> &Symmetry {
        &self.group
    }

    /// The (source, destination) chips of every route, indexed by [`Workload::path`].
    pub fn routes(&self) -> Vec<(u32, u32)> {
        (0..self.slots * self.halves)
            .map(|lane| {
                let s = (lane / self.halves) as u32;
                (self.group.domain_chip(s), self.dst[lane as usize])
            })
            .collect()
    }

    /// Messages held waiting for their last dependency (with the steps between a lane's
    /// oldest and newest such message), at most: the live window.
    pub fn peak_pending(&self) -> usize {
        self.peak_pending
    }

    /// Messages held waiting now (none once a run has ended).
    pub fn pending(&self) -> usize {
        self.held
    }

    fn steps(&self) -> u64 {
        self.size - 1
    }

    fn lanes(&self) -> u64 {
        self.slots * self.halves
    }

    /// (global step k = stage * (L - 1) + t, slot * halves + half) of a message.
    fn split(&self, id: u64) -> (u64, u64) {
        (id / self.lanes(), id % self.lanes())
    }

    fn id(&self, k: u64, lane: u64) -> u64 {
        k * self.lanes() + lane
    }

    /// Dependencies of a message: none at the start, both directions' last reduce-scatter
    /// deliveries and own sends at the all-gather's start, else two.
    fn waits(&self, k: u64) -> u32 {
        match k {
            0 => 0,
            k if k == self.steps() => 2 * self.halves as u32,
            _ => 2,
        }
    }

    /// Whether the sender reduced the data just before (the reduction delay applies): every
    /// reduce-scatter step but the first, and the all-gather's first (its own reduced piece).
    fn forwards_reduced(&self, k: u64) -> bool {
        k > 0 && k <= self.steps()
    }

    fn delay_s(&self, id: u64) -> f64 {
        let (k, _) = self.split(id);
        if self.forwards_reduced(k) {
            self.reduce_s_per_byte * self.bytes(id) as f64
        } else {
            0.0
        }
    }

    /// One of message (k, lane)'s dependencies arrived at `arrival_s`.
    fn credit(&mut self, k: u64, lane: u64, arrival_s: f64, ready: &mut Vec<(f64, u64)>) {
        let l = lane as usize;
        let at = (k - self.base[l]) as usize;
        while self.pending[l].len() <= at {
            let waits = self.waits(self.base[l] + self.pending[l].len() as u64);
            self.pending[l].push_back((waits, 0.0));
            self.held += 1;
        }
        self.peak_pending = self.peak_pending.max(self.held);
        let entry = &mut self.pending[l][at];
        entry.0 -= 1;
        entry.1 = entry.1.max(arrival_s);
        if entry.0 == 0 {
            debug_assert_eq!(at, 0, "a lane's messages become ready in step order");
            let (_, latest) = self.pending[l]
                .pop_front()
                .expect("the entry just credited");
            self.base[l] += 1;
            self.held -= 1;
            let id = self.id(k, lane);
            ready.push((latest + self.delay_s(id), id));
        }
    }
}

impl Workload for RingSteps {
    fn messages(&self) -> u64 {
        2 * self.steps() * self.lanes()
    }

    fn roots(&mut self, ready: &mut Vec<(f64, u64)>) {
        ready.extend((0..self.lanes()).map(|lane| (self.delay_s(lane), lane)));
    }

    fn arrived(&mut self, id: u64, arrival_s: f64, ready: &mut Vec<(f64, u64)>) {
        let (k, lane) = self.split(id);
        let next = k + 1;
        if next == 2 * self.steps() {
            return;
        }
        let to = self.dst_slot[lane as usize] as u64 * self.halves;
        let own = lane - lane % self.halves;
        if next == self.steps() {
            // The all-gather's first step waits for every direction's delivery and own send.
            for half in 0..self.halves {
                self.credit(next, to + half, arrival_s, ready);
                self.credit(next, own + half, arrival_s, ready);
            }
        } else {
            let half = lane % self.halves;
            self.credit(next, to + half, arrival_s, ready);
            self.credit(next, lane, arrival_s, ready);
        }
    }

    fn bytes(&self, id: u64) -> u64 {
        let (k, lane) = self.split(id);
        let (s, half) = (lane / self.halves, lane % self.halves);
        let t = k % self.steps();
        let reduce = k < self.steps();
        let l = self.size;
        let pos = self.pos[s as usize];
        // Reduce-scatter sends piece pos - d(t + 1), all-gather pos - d t (ring.rs).
        let back = if reduce { (t + 1) % l } else { t };
        let piece = if half == 0 {
            (pos + l - back) % l
        } else {
            (pos + back) % l
        };
        self.piece_bytes[(piece * self.halves + half) as usize]
    }

    fn path(&self, id: u64) -> u32 {
        self.split(id).1 as u32
    }
}
