//! SiPCO and Flex-SiPCO all-reduce on SiPAC / Flex-SiPAC (paper 003 §4, Algorithm 1;
//! docs/collectives.md, SiPCO and Flex-SiPCO).
//!
//! The job's CUs differ in the digits of `l̂` levels (the levels it spans). Their *box* is the
//! product, over those levels, of the digit values the job uses there (the other digits are the
//! job's common ones): a SiPAC of radix r_k on spanned level k, r_k <= r (a job filling a
//! sub-SiPAC has r_k = r; a job on two of a WSS's r CUs has r_k = 2). Box positions that are not
//! the job's CUs are non-communicating (other jobs' or idle CUs). Every CU cuts its vector into
//! l̂ groups, group g into r_g chunks (the paper's r l̂ chunks when every r_k = r; with unequal
//! radices a group's share of the vector is weighted so that the groups take equal times, see
//! `group_starts`). In l̂ + 1
//! steps, every spanned level busy at every step:
//!
//! - step 0, on level g for group g: every CU sends chunk c of group g to the position of its
//!   level-g WSS whose digit g is c (a reduce-scatter on that WSS; unicast);
//! - steps v = 1 .. l̂ - 1, on level (g - v) mod l̂ for group g: every position multicasts its
//!   chunk (g, digit g), reduced so far, to the other positions of its WSS on that level, which
//!   hold the same chunk, and each reduces what it receives (from a receive buffer: the
//!   messages are *staged*); after step l̂ - 1 every position holds its chunk of each group
//!   fully reduced;
//! - step l̂, on level g for group g: every position multicasts that chunk to the CUs of its
//!   level-g WSS (an all-gather), so every CU ends with every chunk.
//!
//! Non-communicating positions: a position's chunk of group g is kept by a *stand-in*, a CU of
//! the job whose digit g differs (so the chunk is a different unit from its own): the
//! least-loaded CU of the job on the position's level-g WSS when it has one, else the
//! least-loaded CU of the job not yet standing in for a position with the same digit g. A
//! stand-in keeps its own contribution to that chunk in the stand-in buffer instead of sending
//! it (every contribution enters the box's sum over positions of that digit exactly once), and
//! the data for the non-communicating position reaches it as a transit: over its WSS when it is
//! a member, else routed through the other levels (CU relays). Stand-ins need at least
//! positions / r_g CUs in the job (one per position of each digit); sparser jobs are refused
//! (direct all-reduce fits them).
//!
//! A job filling its box with every r_k = r is SiPCO: each link carries (r - 1) chunks of
//! n / (r l̂) bytes per step, (l̂ + 1)(alpha + (r - 1) n / (r l̂) beta) in all on a
//! contention-free network.

use crate::collectives::build::Counts;
use crate::collectives::group::{Group, SipacShape};
use crate::collectives::schedule::{Schedule, Send};
use crate::collectives::{check_size, Algo, Op};
use crate::error::{RailxError, Result};
use crate::sim::dag::MessageId;

/// No stand-in chosen yet.
const NONE: u32 = u32::MAX;

/// The box a job spans and where each position's chunk of each group is kept.
struct JobBox {
    /// The spanned levels, ascending: virtual digit k is the digit of level `levels[k]`.
    levels: Vec<u32>,
    /// The digit values the job's CUs use on each spanned level, ascending: virtual digit i of
    /// level k stands for `values[k][i]`; the box's radix on level k is their number.
    values: Vec<Vec<u32>>,
    /// Place value of each virtual digit in a position.
    strides: Vec<u32>,
    /// Positions of the box (the product of the radices).
    positions: u32,
    /// First unit of each group, and one past the last group's (chunk c of group g is the c-th
    /// r_g-th of its units).
    group_start: Vec<u32>,
    /// Rank of the CU at each position, or `NONE` where the position is non-communicating.
    rank_at: Vec<u32>,
    /// Box position of each rank.
    pos_of: Vec<u32>,
    /// `holder[g][p]`: the rank keeping position p's chunk of group g.
    holder: Vec<Vec<u32>>,
    /// `stands_in[g][rank * r_g + c]`: the position with digit g = c the rank stands in for.
    stands_in: Vec<Vec<u32>>,
}

/// Where each group's units start (module docs: group shares). Group g's r_g chunks cross
/// about S + r_g - 1 chunk-loads of one port in its l̂ + 1 steps (S = the sum of r_k - 1: its
/// multicast reductions on every level, plus the reduce-scatter and all-gather on its own), so a
/// chunk of q_g units with q_g proportional to 1 / (S + r_g - 1) gives every group the same
/// time; equal radices give equal groups of r chunks of one unit (the paper's r l̂ chunks).
fn group_starts(values: &[Vec<u32>]) -> Vec<u32> {
    let radices: Vec<u32> = values.iter().map(|v| v.len() as u32).collect();
    let s: u32 = radices.iter().map(|r| r - 1).sum();
    let widest = s + radices.iter().max().copied().unwrap_or(1) - 1;
    let q: Vec<u32> = radices
        .iter()
        .map(|&r| (64.0 * widest as f64 / (s + r - 1) as f64).round() as u32)
        .collect();
    let common = q.iter().fold(0, |a, &b| gcd(a, b));
    let mut starts = vec![0];
    for (&r, &qg) in radices.iter().zip(&q) {
        starts.push(starts.last().unwrap_or(&0) + r * qg / common);
    }
    starts
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl JobBox {
    fn new(algo: Algo, group: &Group, shape: SipacShape) -> Result<JobBox> {
        let cus = group.chips();
        let levels = spanned_levels(shape, cus);
        if levels.is_empty() {
            return Err(RailxError::invalid(
                "cus",
                format!("{cus:?}"),
                format!("{} all-reduces over at least 2 CUs", algo.name()),
                "give the job two or more CUs",
            ));
        }
        let values: Vec<Vec<u32>> = levels
            .iter()
            .map(|&l| {
                let mut v: Vec<u32> = cus.iter().map(|&c| shape.digit(c, l)).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let mut strides = Vec::with_capacity(levels.len());
        let mut positions = 1u32;
        for v in &values {
            strides.push(positions);
            positions *= v.len() as u32;
        }
        let group_start = group_starts(&values);
        let pos_of: Vec<u32> = cus
            .iter()
            .map(|&cu| {
                (0..levels.len())
                    .map(|k| {
                        let d = shape.digit(cu, levels[k]);
                        values[k].binary_search(&d).unwrap_or_default() as u32 * strides[k]
                    })
                    .sum()
            })
            .collect();
        let mut rank_at = vec![NONE; positions as usize];
        for (rank, &p) in pos_of.iter().enumerate() {
            rank_at[p as usize] = rank as u32;
        }
        let mut b = JobBox {
            levels,
            values,
            strides,
            positions,
            group_start,
            rank_at,
            pos_of,
            holder: Vec::new(),
            stands_in: Vec::new(),
        };
        for g in 0..b.spanned() {
            b.assign_stand_ins(algo, g, cus.len() as u32)?;
        }
        Ok(b)
    }

    fn spanned(&self) -> u32 {
        self.levels.len() as u32
    }

    /// The box's radix on virtual level `k`.
    fn radix(&self, k: u32) -> u32 {
        self.values[k as usize].len() as u32
    }

    /// Virtual digit `k` of position `p`.
    fn digit(&self, p: u32, k: u32) -> u32 {
        p / self.strides[k as usize] % self.radix(k)
    }

    /// Position `p` with virtual digit `k` set to `c`.
    fn with_digit(&self, p: u32, k: u32, c: u32) -> u32 {
        let stride = self.strides[k as usize];
        p - self.digit(p, k) * stride + c * stride
    }

    /// The other positions on `p`'s WSS of virtual level `k`, in rotated order: digit own + 1,
    /// own + 2, .. (mod the radix). Every position of a WSS thus addresses a different peer at
    /// each turn (a Latin square), so a simulator that starts a chip's messages in the order it
    /// lists them does not send every position's first message to the same peer (which halves
    /// the flit level's throughput, docs/flex-sipac.md).
    fn peers(&self, p: u32, k: u32) -> impl Iterator<Item = u32> + '_ {
        let (own, r) = (self.digit(p, k), self.radix(k));
        (1..r).map(move |i| self.with_digit(p, k, (own + i) % r))
    }

    /// The units of chunk `c` of group `g`.
    fn chunk(&self, g: u32, c: u32) -> [(u64, u64); 1] {
        let (lo, hi) = (
            self.group_start[g as usize],
            self.group_start[g as usize + 1],
        );
        let len = (hi - lo) / self.radix(g);
        [((lo + c * len) as u64, len as u64)]
    }

    fn units(&self) -> u64 {
        *self.group_start.last().unwrap_or(&0) as u64
    }

    /// Holders of group `g`: each CU its own position; each non-communicating position the
    /// least-loaded CU on its level-g WSS, else (a WSS with no CU of the job) the least-loaded
    /// CU not yet standing in for that digit (module docs). Load: positions held in group g.
    fn assign_stand_ins(&mut self, algo: Algo, g: u32, ranks: u32) -> Result<()> {
        let r = self.radix(g);
        let mut holder = self.rank_at.clone();
        let mut stands_in = vec![NONE; (ranks * r) as usize];
        let mut load = vec![1u32; ranks as usize];
        let holes: Vec<u32> = (0..self.positions)
            .filter(|&p| self.rank_at[p as usize] == NONE)
            .collect();
        for &p in &holes {
            let member = self
                .peers(p, g)
                .map(|q| self.rank_at[q as usize])
                .filter(|&x| x != NONE)
                .min_by_key(|&x| (load[x as usize], x));
            if let Some(x) = member {
                holder[p as usize] = x;
                load[x as usize] += 1;
                stands_in[(x * r + self.digit(p, g)) as usize] = p;
            }
        }
        for &p in &holes {
            if holder[p as usize] != NONE {
                continue;
            }
            let c = self.digit(p, g);
            let free = (0..ranks)
                .filter(|&x| {
                    self.digit(self.pos_of[x as usize], g) != c
                        && stands_in[(x * r + c) as usize] == NONE
                })
                .min_by_key(|&x| (load[x as usize], x));
            let Some(x) = free else {
                return Err(RailxError::invalid(
                    "cus",
                    format!("{ranks} CUs"),
                    format!(
                        "{} needs a CU of the job to keep each chunk of a non-communicating CU: at least {} CUs in a box of {} on the {} levels it spans",
                        algo.name(),
                        self.positions / r,
                        self.positions,
                        self.spanned()
                    ),
                    "use --algo direct for so sparse a job, or place it on fewer levels",
                ));
            };
            holder[p as usize] = x;
            load[x as usize] += 1;
            stands_in[(x * r + c) as usize] = p;
        }
        self.holder.push(holder);
        self.stands_in.push(stands_in);
        Ok(())
    }

    /// Whether `rank` keeps, as a stand-in, a chunk of group `g` with digit `c`.
    fn stands_in_for(&self, g: u32, rank: u32, c: u32) -> bool {
        self.stands_in[g as usize][(rank * self.radix(g) + c) as usize] != NONE
    }
}

/// The checks both algorithms share; the job's box.
fn job_box(op: Op, algo: Algo, group: &Group) -> Result<JobBox> {
    let Some(shape) = group.sipac() else {
        return Err(RailxError::invalid(
            "algo",
            algo.name(),
            "schedules by the CU addresses of a SiPAC / Flex-SiPAC system",
            "run it on a sipac system (e.g. preset flex-sipac-512), or use direct",
        ));
    };
    if op != Op::AllReduce {
        return Err(RailxError::invalid(
            "op",
            op.name(),
            format!("{} is an all-reduce algorithm", algo.name()),
            "use --op all-reduce, or direct for other operations",
        ));
    }
    let cus = shape.radix.pow(shape.levels);
    if algo == Algo::Sipco && group.ranks() != cus {
        return Err(RailxError::invalid(
            "algo",
            algo.name(),
            format!(
                "SiPCO runs over every CU of the system ({cus}), not a job of {}",
                group.ranks()
            ),
            "use --algo flex-sipco for a job's CUs",
        ));
    }
    JobBox::new(algo, group, shape)
}

/// The SiPCO / Flex-SiPCO all-reduce schedule of `group`'s CUs (module docs).
pub(crate) fn build(
    op: Op,
    algo: Algo,
    group: &Group,
    size_bytes: u64,
    chunks: u32,
) -> Result<Schedule> {
    check_size(size_bytes, chunks)?;
    let b = job_box(op, algo, group)?;
    let (lh, positions) = (b.spanned(), b.positions);
    let mut sched = Schedule::empty(op, algo, group.clone(), 1, size_bytes, b.units());
    // prev[g][p]: what the next send of position p's chunk of group g waits for.
    let mut prev = vec![vec![Vec::<MessageId>::new(); positions as usize]; lh as usize];
    let mut next = prev.clone();
    // Step 0: reduce-scatter of group g on level g.
    for g in 0..lh {
        for (x, &px) in b.pos_of.iter().enumerate() {
            let x = x as u32;
            for q in b.peers(px, g) {
                let c = b.digit(q, g);
                if b.stands_in_for(g, x, c) {
                    continue; // the contribution stays in the stand-in buffer
                }
                let id = sched.push(Send {
                    src: x,
                    dst: b.holder[g as usize][q as usize],
                    reduce: true,
                    forwards_reduced: false,
                    stage: 0,
                    runs: &b.chunk(g, c),
                    after: &[],
                });
                next[g as usize][q as usize].push(id);
            }
        }
    }
    std::mem::swap(&mut prev, &mut next);
    // Steps 1 .. l̂ - 1: multicast reduction of group g on level (g - v) mod l̂; step l̂: the
    // all-gather of group g on level g.
    let mut dsts = Vec::new();
    for v in 1..=lh {
        next.iter_mut().flatten().for_each(Vec::clear);
        let gather = v == lh;
        for g in 0..lh {
            let k = (g + lh - v % lh) % lh;
            let holder = &b.holder[g as usize];
            for p in 0..positions {
                let (from, c) = (holder[p as usize], b.digit(p, g));
                dsts.clear();
                if gather {
                    // The job's CUs on p's WSS that lack the chunk (not its stand-ins).
                    dsts.extend(
                        b.peers(p, k)
                            .map(|q| b.rank_at[q as usize])
                            .filter(|&y| y != NONE && y != from && !b.stands_in_for(g, y, c)),
                    );
                } else {
                    dsts.extend(b.peers(p, k).map(|q| holder[q as usize]));
                }
                let Some((&first, more)) = dsts.split_first() else {
                    continue;
                };
                let id = sched.push_multicast(
                    Send {
                        src: from,
                        dst: first,
                        reduce: !gather,
                        forwards_reduced: true,
                        stage: v as u16,
                        runs: &b.chunk(g, c),
                        after: &prev[g as usize][p as usize],
                    },
                    more,
                    !gather,
                );
                next[g as usize][p as usize].push(id);
                if !gather {
                    for q in b.peers(p, k) {
                        next[g as usize][q as usize].push(id);
                    }
                }
            }
        }
        std::mem::swap(&mut prev, &mut next);
    }
    Ok(sched.pipelined(chunks))
}

/// Messages and bytes of the schedule (counted on the schedule itself: a SiPAC system is small
/// enough to build it). A multicast counts once, with its bytes once.
pub(crate) fn counts(
    op: Op,
    algo: Algo,
    group: &Group,
    size_bytes: u64,
    chunks: u32,
) -> Result<Counts> {
    let s = build(op, algo, group, size_bytes, chunks)?;
    let units_moved = (0..s.len())
        .map(|id| s.runs_of(id).iter().map(|&(_, len)| len).sum::<u64>())
        .sum();
    Ok(Counts {
        messages: s.len() as u64,
        units_moved,
        bytes: s.total_bytes() as f64,
    })
}

/// The levels a job of `cus` spans on a SiPAC of `shape` (those in whose digit two of its CUs
/// differ), ascending; their number is l̂ of Algorithm 1.
pub fn spanned_levels(shape: SipacShape, cus: &[u32]) -> Vec<u32> {
    (0..shape.levels)
        .filter(|&l| {
            cus.iter()
                .any(|&c| shape.digit(c, l) != shape.digit(cus[0], l))
        })
        .collect()
}
