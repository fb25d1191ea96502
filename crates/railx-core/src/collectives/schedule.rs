//! A collective schedule as data: every message names its sending and receiving ranks (several
//! for a multicast: one transmission the network replicates, as SiPCO's WSS broadcasts), the data
//! it carries (runs of *units*, the equal blocks the collective's data is cut into), whether the
//! receiver reduces it into its buffer or copies it, whether the sender reduced that data just
//! before sending (so a local reduction delay applies), and the earlier messages it waits for.
//!
//! Units: for all-reduce, reduce-scatter and all-gather the vector of `size_bytes` is cut into
//! `units` blocks, chunk-major (`unit = chunk * units_per_chunk + part * units_per_part + ...`);
//! for all-to-all a unit is one (source rank, destination rank) block of `size_bytes / ranks`
//! bytes, `unit = chunk * ranks^2 + src * ranks + dst`. Messages are stored column by column and
//! in dependency order (stage by stage, step by step, rank by rank within a chunk), so a schedule
//! with tens of millions of messages stays compact and lowers to a [`MessageDag`] in one pass.

use crate::collectives::group::Group;
use crate::collectives::{Algo, Op};
use crate::error::Result;
use crate::sim::dag::{MessageDag, MessageId};

const REDUCE: u8 = 1;
const FORWARDS_REDUCED: u8 = 2;
const STAGED: u8 = 4;

/// One message before it is stored.
pub(crate) struct Send<'a> {
    pub src: u32,
    pub dst: u32,
    /// The receiver adds the data into its buffer (reduce-scatter) instead of storing it.
    pub reduce: bool,
    /// The data was reduced by the sender just before (it waits for the reduction).
    pub forwards_reduced: bool,
    pub stage: u16,
    pub runs: &'a [(u64, u64)],
    pub after: &'a [MessageId],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub op: Op,
    pub algo: Algo,
    pub group: Group,
    pub chunks: u32,
    pub size_bytes: u64,
    /// Units in the whole schedule (all chunks).
    pub units: u64,
    /// Bytes the units partition: `size_bytes`, or `ranks * size_bytes` for an all-to-all.
    payload_bytes: u64,
    src: Vec<u32>,
    /// Message `i` goes to `dsts[dst_start[i]..dst_start[i + 1]]`.
    dst_start: Vec<u64>,
    dsts: Vec<u32>,
    flags: Vec<u8>,
    stage: Vec<u16>,
    run_start: Vec<u64>,
    runs: Vec<(u64, u64)>,
    dep_start: Vec<u64>,
    deps: Vec<MessageId>,
    /// Reduce-scatter / all-gather layout: the units each rank owns (its shard), `shard_runs`
    /// runs per rank.
    shards: Vec<(u64, u64)>,
    shard_runs: usize,
}

impl Schedule {
    pub(crate) fn empty(
        op: Op,
        algo: Algo,
        group: Group,
        chunks: u32,
        size_bytes: u64,
        units: u64,
    ) -> Schedule {
        let payload_bytes = match op {
            Op::AllToAll => size_bytes * group.ranks() as u64,
            _ => size_bytes,
        };
        Schedule {
            op,
            algo,
            group,
            chunks,
            size_bytes,
            units,
            payload_bytes,
            src: Vec::new(),
            dst_start: vec![0],
            dsts: Vec::new(),
            flags: Vec::new(),
            stage: Vec::new(),
            run_start: vec![0],
            runs: Vec::new(),
            dep_start: vec![0],
            deps: Vec::new(),
            shards: Vec::new(),
            shard_runs: 0,
        }
    }

    pub(crate) fn push(&mut self, send: Send<'_>) -> MessageId {
        self.push_multicast(send, &[], false)
    }

    /// Pushes `send` to `send.dst` and every rank of `more` (a multicast when `more` is not
    /// empty). `staged`: a reducing receiver adds the data from a receive buffer before its next
    /// dependent send instead of in place, so the message may arrive while the receiver is
    /// still sending the same units (`check` versions such cells).
    pub(crate) fn push_multicast(
        &mut self,
        send: Send<'_>,
        more: &[u32],
        staged: bool,
    ) -> MessageId {
        let id = self.src.len() as MessageId;
        debug_assert!(send.after.iter().all(|&d| d < id));
        self.src.push(send.src);
        self.dsts.push(send.dst);
        self.dsts.extend_from_slice(more);
        self.dst_start.push(self.dsts.len() as u64);
        self.flags.push(
            if send.reduce { REDUCE } else { 0 }
                | if send.forwards_reduced {
                    FORWARDS_REDUCED
                } else {
                    0
                }
                | if staged { STAGED } else { 0 },
        );
        self.stage.push(send.stage);
        self.runs.extend_from_slice(send.runs);
        self.run_start.push(self.runs.len() as u64);
        self.deps.extend_from_slice(send.after);
        self.dep_start.push(self.deps.len() as u64);
        id
    }

    pub(crate) fn set_shards(&mut self, shards: Vec<(u64, u64)>, runs_per_rank: usize) {
        self.shards = shards;
        self.shard_runs = runs_per_rank;
    }

    /// Repeats the one-chunk schedule `self` for `chunks` chunks; message `i` of chunk `c` also
    /// waits for message `i` of chunk `c - 1`, so each sender pushes the chunks through the same
    /// steps one after the other (pipelining).
    pub(crate) fn pipelined(self, chunks: u32) -> Schedule {
        if chunks == 1 {
            return self;
        }
        let per = self.len() as u64;
        let units_per_chunk = self.units;
        let mut out = Schedule::empty(
            self.op,
            self.algo,
            self.group.clone(),
            chunks,
            self.size_bytes,
            units_per_chunk * chunks as u64,
        );
        let mut runs = Vec::new();
        let mut after = Vec::new();
        for c in 0..chunks as u64 {
            let shift = c * units_per_chunk;
            for id in 0..per as MessageId {
                runs.clear();
                runs.extend(self.runs_of(id).iter().map(|&(lo, len)| (lo + shift, len)));
                after.clear();
                after.extend(self.after(id).iter().map(|&d| d + (c * per) as MessageId));
                if c > 0 {
                    after.push(((c - 1) * per) as MessageId + id);
                }
                let dsts = self.dsts(id);
                out.push_multicast(
                    Send {
                        src: self.src(id),
                        dst: dsts[0],
                        reduce: self.reduces(id),
                        forwards_reduced: self.forwards_reduced(id),
                        stage: self.stage_of(id),
                        runs: &runs,
                        after: &after,
                    },
                    &dsts[1..],
                    self.staged(id),
                );
            }
        }
        // Ranks holding a shard: every rank, or the fundamental domain's in representative form.
        let holders = self.shards.len().checked_div(self.shard_runs).unwrap_or(0);
        let mut shards = Vec::with_capacity(self.shards.len() * chunks as usize);
        for rank in 0..holders {
            for c in 0..chunks as u64 {
                shards.extend(
                    self.shard(rank as u32)
                        .iter()
                        .map(|&(lo, len)| (lo + c * units_per_chunk, len)),
                );
            }
        }
        out.set_shards(shards, self.shard_runs * chunks as usize);
        out
    }

    pub fn len(&self) -> u32 {
        self.src.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Sending rank.
    pub fn src(&self, id: MessageId) -> u32 {
        self.src[id as usize]
    }

    /// Receiving rank (a multicast's first; see [`Schedule::dsts`]).
    pub fn dst(&self, id: MessageId) -> u32 {
        self.dsts(id)[0]
    }

    /// Every receiving rank: one, or several for a multicast.
    pub fn dsts(&self, id: MessageId) -> &[u32] {
        let i = id as usize;
        &self.dsts[self.dst_start[i] as usize..self.dst_start[i + 1] as usize]
    }

    /// True when a reducing receiver stages the data in a receive buffer (`push_multicast`).
    pub fn staged(&self, id: MessageId) -> bool {
        self.flags[id as usize] & STAGED != 0
    }

    /// True when the receiver reduces the data into its buffer, false when it copies it.
    pub fn reduces(&self, id: MessageId) -> bool {
        self.flags[id as usize] & REDUCE != 0
    }

    /// True when the sender reduced this data just before sending it.
    pub fn forwards_reduced(&self, id: MessageId) -> bool {
        self.flags[id as usize] & FORWARDS_REDUCED != 0
    }

    /// Index of the stage (in its part's stage list) the message belongs to.
    pub fn stage_of(&self, id: MessageId) -> u16 {
        self.stage[id as usize]
    }

    /// The units carried: runs of (first unit, count).
    pub fn runs_of(&self, id: MessageId) -> &[(u64, u64)] {
        let i = id as usize;
        &self.runs[self.run_start[i] as usize..self.run_start[i + 1] as usize]
    }

    /// The messages this one waits for.
    pub fn after(&self, id: MessageId) -> &[MessageId] {
        let i = id as usize;
        &self.deps[self.dep_start[i] as usize..self.dep_start[i + 1] as usize]
    }

    /// The units a rank owns after a reduce-scatter (before an all-gather); empty otherwise.
    pub fn shard(&self, rank: u32) -> &[(u64, u64)] {
        let start = rank as usize * self.shard_runs;
        if self.shards.is_empty() {
            return &[];
        }
        &self.shards[start..start + self.shard_runs]
    }

    /// Bytes of units `lo..hi`: the payload cut at `floor(payload * unit / units)`, so the units
    /// of a schedule add up to the payload exactly.
    pub fn unit_bytes(&self, lo: u64, hi: u64) -> u64 {
        let at = |u: u64| (self.payload_bytes as u128 * u as u128 / self.units as u128) as u64;
        at(hi) - at(lo)
    }

    /// Bytes a message carries (once, however many ranks a multicast reaches).
    pub fn bytes(&self, id: MessageId) -> u64 {
        self.runs_of(id)
            .iter()
            .map(|&(lo, len)| self.unit_bytes(lo, lo + len))
            .sum()
    }

    pub fn total_bytes(&self) -> u64 {
        (0..self.len()).map(|id| self.bytes(id)).sum()
    }

    /// The messages a rank sends, in order (one node's share of a symmetric schedule is the
    /// messages of its chips' ranks).
    pub fn sent_by(&self, rank: u32) -> impl Iterator<Item = MessageId> + '_ {
        (0..self.len()).filter(move |&id| self.src(id) == rank)
    }

    /// The message DAG the simulators run: ranks become chips; a message that forwards reduced
    /// data waits `reduce_s_per_byte` per byte after its dependencies arrive. A message whose
    /// share of a tiny vector rounds to 0 bytes is sent as 1 byte (the DAG refuses empty
    /// messages and the dependency still orders the steps).
    pub fn to_dag(&self, reduce_s_per_byte: f64) -> Result<MessageDag> {
        let mut dag = MessageDag::new();
        let mut chips = Vec::new();
        for id in 0..self.len() {
            let bytes = self.bytes(id).max(1);
            let delay_s = if self.forwards_reduced(id) {
                reduce_s_per_byte * bytes as f64
            } else {
                0.0
            };
            chips.clear();
            chips.extend(self.dsts(id).iter().map(|&r| self.group.chip(r)));
            dag.push_multicast(
                self.group.chip(self.src(id)),
                &chips,
                bytes,
                delay_s,
                self.after(id),
            )?;
        }
        Ok(dag)
    }
}

#[cfg(test)]
impl Schedule {
    /// The same messages with their dependencies dropped (a broken schedule, for the checker's tests).
    pub(crate) fn without_dependencies(&self) -> Schedule {
        let mut out = self.clone();
        out.deps.clear();
        out.dep_start.iter_mut().for_each(|d| *d = 0);
        out
    }

    /// The same schedule without its last message.
    pub(crate) fn without_last(&self) -> Schedule {
        let mut out = self.clone();
        out.src.pop();
        out.dst_start.pop();
        out.dsts
            .truncate(*out.dst_start.last().unwrap_or(&0) as usize);
        out.flags.pop();
        out.stage.pop();
        out.run_start.pop();
        out.dep_start.pop();
        out
    }
}
