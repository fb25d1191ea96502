//! Correctness of a schedule as data movement: execute it symbolically and check the result.
//!
//! Every (rank, unit) cell holds the set of ranks whose input it contains (a bitmask; for an
//! all-to-all, whether the rank holds that block). A message reads its units at the sender and
//! writes them at the receiver: a reduction adds disjoint sets (a contribution counted twice is
//! an error), a copy replaces a subset by a superset. Because a simulator may deliver messages
//! in any order their dependencies allow, every read must wait (transitively) for every earlier
//! write of its cell, and every write for every earlier read and copy of its cell; so the
//! outcome checked here is the outcome of every execution. A multicast writes every one of its
//! receivers' cells. A *staged* reducing message (schedule.rs: the receiver adds it from a
//! receive buffer before its next dependent send, as SiPCO's broadcasts do) need not wait for
//! the receiver's reads of the cell: each read sees the contributions of the writes it follows,
//! and the reads of a cell must see growing sets in a fixed order (a read seeing more follows
//! the ones seeing less), so every execution reads the same data. At the end: all-reduce, every rank
//! holds every unit from every rank; reduce-scatter, every rank its shard; all-gather, every rank
//! everything; all-to-all, every block at its destination.

use crate::collectives::schedule::Schedule;
use crate::collectives::Op;
use crate::error::{RailxError, Result};
use crate::resources::{require, Driver, Estimate};
use crate::sim::dag::MessageId;

/// Largest group the checker takes (contributor sets are 64-bit masks): a limit of the
/// representation, not of time; the time and memory of a schedule are the resource budget's.
pub const MAX_CHECKED_RANKS: u32 = 64;
/// Memory per (rank, unit) cell: its contributions and its two (usually short) histories.
const CELL_BYTES: f64 = 56.0;
/// Memory per read or write a cell's history keeps.
const ACCESS_BYTES: f64 = 24.0;

struct Ancestors {
    words: usize,
    bits: Vec<u64>,
}

impl Ancestors {
    fn new(s: &Schedule) -> Ancestors {
        let n = s.len() as usize;
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        for id in 0..n {
            for &d in s.after(id as MessageId) {
                let d = d as usize;
                let (before, row) = bits.split_at_mut(id * words);
                let row = &mut row[..words];
                for (w, &a) in row.iter_mut().zip(&before[d * words..(d + 1) * words]) {
                    *w |= a;
                }
                row[d / 64] |= 1 << (d % 64);
            }
        }
        Ancestors { words, bits }
    }

    /// Whether `before` happens before `id` (is one of its transitive dependencies).
    fn precedes(&self, before: MessageId, id: MessageId) -> bool {
        let b = before as usize;
        self.bits[id as usize * self.words + b / 64] >> (b % 64) & 1 == 1
    }
}

/// One write of a cell.
#[derive(Clone, Copy)]
struct Write {
    id: MessageId,
    reduce: bool,
    staged: bool,
    data: u64,
}

#[derive(Default, Clone)]
struct Cell {
    value: u64,
    /// Every read: the message and the contributions it saw.
    reads: Vec<(MessageId, u64)>,
    writes: Vec<Write>,
}

fn fail(s: &Schedule, what: impl Into<String>) -> RailxError {
    RailxError::verification(
        format!("{} {} schedule", s.algo.name(), s.op.name()),
        what.into(),
    )
}

/// Executes `s` symbolically; `Ok` when it is correct as data movement under every execution
/// order its dependencies allow, else the first problem found.
pub fn check(s: &Schedule) -> Result<()> {
    let ranks = s.group.ranks();
    if ranks > MAX_CHECKED_RANKS {
        return Err(RailxError::invalid(
            "schedule",
            format!("{} ranks", ranks),
            format!("the symbolic checker takes up to {MAX_CHECKED_RANKS} ranks (contributions are 64-bit sets)"),
            "check a smaller group of the same shape",
        ));
    }
    require_check(s)?;
    let units = s.units as usize;
    let full = if ranks == 64 {
        u64::MAX
    } else {
        (1u64 << ranks) - 1
    };
    let p = ranks as u64;
    let mut cells = vec![Cell::default(); ranks as usize * units];
    for r in 0..ranks as usize {
        let row = &mut cells[r * units..(r + 1) * units];
        match s.op {
            Op::AllReduce | Op::ReduceScatter => row.iter_mut().for_each(|c| c.value = 1 << r),
            Op::AllGather => {
                for &(lo, len) in s.shard(r as u32) {
                    row[lo as usize..(lo + len) as usize]
                        .iter_mut()
                        .for_each(|c| c.value = full);
                }
            }
            Op::AllToAll => {
                for (u, c) in row.iter_mut().enumerate() {
                    c.value = u64::from((u as u64 % (p * p)) / p == r as u64);
                }
            }
        }
    }
    let anc = Ancestors::new(s);
    for id in 0..s.len() {
        let (src, reduce, staged) = (s.src(id) as usize, s.reduces(id), s.staged(id));
        if let Some(&dst) = s.dsts(id).iter().find(|&&d| d as usize == src) {
            return Err(fail(
                s,
                format!("message {id} goes from rank {src} to itself ({dst})"),
            ));
        }
        for &(lo, len) in s.runs_of(id) {
            for u in lo as usize..(lo + len) as usize {
                let data = read(s, &anc, &mut cells[src * units + u], id, src, u)?;
                for &dst in s.dsts(id) {
                    let cell = &mut cells[dst as usize * units + u];
                    write(
                        s,
                        &anc,
                        cell,
                        Write {
                            id,
                            reduce,
                            staged,
                            data,
                        },
                        dst,
                        u,
                    )?;
                }
            }
        }
    }
    for r in 0..ranks as usize {
        let row = &cells[r * units..(r + 1) * units];
        let wanted: Vec<usize> = match s.op {
            Op::AllReduce | Op::AllGather => (0..units).collect(),
            Op::ReduceScatter => s
                .shard(r as u32)
                .iter()
                .flat_map(|&(lo, len)| lo as usize..(lo + len) as usize)
                .collect(),
            Op::AllToAll => (0..units).filter(|&u| u as u64 % p == r as u64).collect(),
        };
        let expected = if s.op == Op::AllToAll { 1 } else { full };
        if let Some(&u) = wanted.iter().find(|&&u| row[u].value != expected) {
            return Err(fail(
                s,
                format!(
                    "at the end rank {r} holds {:#x} in unit {u}, not {expected:#x}",
                    row[u].value
                ),
            ));
        }
    }
    if matches!(s.op, Op::ReduceScatter | Op::AllGather) {
        check_shards_partition(s)?;
    }
    Ok(())
}

/// Refuses checking `s` beyond the resource budget. The ancestors' bitset holds `n^2` bits for
/// `n` messages; each unit a message reads or writes (an access) is compared with the earlier
/// accesses of its cell. Messages, units and accesses all grow in proportion to the chunks.
fn require_check(s: &Schedule) -> Result<Estimate> {
    let (n, deps) = (
        s.len() as f64,
        (0..s.len()).map(|id| s.after(id).len()).sum::<usize>(),
    );
    let accesses: u64 = (0..s.len())
        .map(|id| {
            let units: u64 = s.runs_of(id).iter().map(|&(_, len)| len).sum();
            units * (1 + s.dsts(id).len() as u64)
        })
        .sum();
    let cells = s.group.ranks() as f64 * s.units as f64;
    let what = format!("checking this {} {} schedule", s.algo.name(), s.op.name());
    require(&what, &[Driver::new("chunks", s.chunks as u64, 1)], |v| {
        let scale = v[0] / s.chunks.max(1) as f64;
        let (n, accesses, cells) = (n * scale, accesses as f64 * scale, cells * scale);
        let ancestor_words = n * (n / 64.0).ceil();
        Estimate::new(
            8.0 * ancestor_words + cells * CELL_BYTES + accesses * ACCESS_BYTES,
            ancestor_words * (1.0 + deps as f64 / n.max(1.0))
                + accesses * (1.0 + accesses / cells.max(1.0)),
        )
    })
}

/// Message `id` reads unit `u` at its sender `src`: the contributions it sees (every write it
/// follows; a staged write it does not follow is still in a receive buffer).
fn read(
    s: &Schedule,
    anc: &Ancestors,
    cell: &mut Cell,
    id: MessageId,
    src: usize,
    u: usize,
) -> Result<u64> {
    let mut hidden = 0;
    for w in cell.writes.iter().filter(|w| !anc.precedes(w.id, id)) {
        if !w.staged {
            return Err(fail(s, format!("message {id}: rank {src} sends unit {u} without waiting for message {}, which writes it", w.id)));
        }
        hidden |= w.data;
    }
    let seen = cell.value & !hidden;
    if seen == 0 {
        return Err(fail(
            s,
            format!("message {id}: rank {src} sends unit {u}, which it does not hold"),
        ));
    }
    for &(r, before) in &cell.reads {
        if before & !seen != 0 || (before != seen && !anc.precedes(r, id)) {
            return Err(fail(s, format!("messages {r} and {id} read unit {u} at rank {src} with different contributions in no fixed order")));
        }
    }
    cell.reads.push((id, seen));
    Ok(seen)
}

/// Write `w` of data `w.data` into unit `u` at rank `dst`.
fn write(
    s: &Schedule,
    anc: &Ancestors,
    cell: &mut Cell,
    w: Write,
    dst: u32,
    u: usize,
) -> Result<()> {
    let id = w.id;
    if !w.staged {
        if let Some(&(r, _)) = cell.reads.iter().find(|&&(r, _)| !anc.precedes(r, id)) {
            return Err(fail(s, format!("message {id} may overwrite unit {u} at rank {dst} before message {r} has sent it")));
        }
    }
    if let Some(other) = cell
        .writes
        .iter()
        .find(|o| !(anc.precedes(o.id, id) || w.reduce && o.reduce))
    {
        return Err(fail(
            s,
            format!(
                "messages {} and {id} both write unit {u} at rank {dst} in no fixed order",
                other.id
            ),
        ));
    }
    match (s.op, w.reduce) {
        (Op::AllToAll, _) if cell.value != 0 => {
            return Err(fail(
                s,
                format!("message {id}: rank {dst} receives block {u} twice"),
            ));
        }
        (_, true) if cell.value & w.data != 0 => {
            return Err(fail(s, format!("message {id}: rank {dst} would count the contributions {:#x} of unit {u} twice", cell.value & w.data)));
        }
        (_, false) if cell.value & !w.data != 0 => {
            return Err(fail(
                s,
                format!(
                    "message {id}: a copy would drop contributions {:#x} of unit {u} at rank {dst}",
                    cell.value & !w.data
                ),
            ));
        }
        _ => {}
    }
    cell.value |= w.data;
    cell.writes.push(w);
    Ok(())
}

/// The shards of a reduce-scatter / all-gather cover every unit exactly once.
fn check_shards_partition(s: &Schedule) -> Result<()> {
    let mut owner = vec![u32::MAX; s.units as usize];
    for r in 0..s.group.ranks() {
        for &(lo, len) in s.shard(r) {
            for u in lo..lo + len {
                if owner[u as usize] != u32::MAX {
                    return Err(fail(
                        s,
                        format!(
                            "unit {u} is in the shards of ranks {} and {r}",
                            owner[u as usize]
                        ),
                    ));
                }
                owner[u as usize] = r;
            }
        }
    }
    if let Some(u) = owner.iter().position(|&o| o == u32::MAX) {
        return Err(fail(s, format!("unit {u} is in no rank's shard")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::{build, Algo, DimKind, Group};

    fn ring_all_reduce() -> Schedule {
        let group = Group::line((0..5).collect(), DimKind::Ring, 8).unwrap();
        build(Op::AllReduce, Algo::Ring, &group, 1000, 1).unwrap()
    }

    /// Three ranks each multicast their one unit to the other two, who reduce it: correct only
    /// with receive buffers (staged), since every rank sends the unit it is receiving into.
    fn multicast_all_reduce(staged: bool) -> Schedule {
        let group = Group::line((0..3).collect(), DimKind::AllToAll, 3).unwrap();
        let mut s = Schedule::empty(Op::AllReduce, Algo::FlexSipco, group, 1, 8, 1);
        for src in 0..3u32 {
            let others: Vec<u32> = (0..3).filter(|&d| d != src).collect();
            let send = crate::collectives::schedule::Send {
                src,
                dst: others[0],
                reduce: true,
                forwards_reduced: false,
                stage: 0,
                runs: &[(0, 1)],
                after: &[],
            };
            s.push_multicast(send, &others[1..], staged);
        }
        s
    }

    #[test]
    fn staged_multicast_reductions_version_the_cell() {
        check(&multicast_all_reduce(true)).unwrap();
        // In place, a rank may send the unit after a peer's contribution landed in it.
        let err = check(&multicast_all_reduce(false)).unwrap_err().to_string();
        assert!(err.contains("without waiting for message 0"), "{err}");
    }

    #[test]
    fn accepts_the_ring_and_catches_broken_copies_of_it() {
        let s = ring_all_reduce();
        check(&s).unwrap();
        let err = check(&s.without_dependencies()).unwrap_err().to_string();
        assert!(
            err.starts_with("ring all-reduce schedule: message"),
            "{err}"
        );
        assert!(
            err.contains("without waiting")
                || err.contains("no fixed order")
                || err.contains("before message"),
            "{err}"
        );
        let err = check(&s.without_last()).unwrap_err().to_string();
        assert!(err.contains("at the end rank"), "{err}");
    }
}
