//! Traffic invariant under the node translations, built directly in representative form: the
//! messages whose source is a chip of node 0, one per orbit.
//!
//! - `all_to_all`: every chip sends `bytes_per_pair` to every other chip.
//! - `hierarchical_all_reduce`: a simple RailX-style hierarchical all-reduce of `bytes` per
//!   chip (the benchmark's workload until the collective schedules provide theirs):
//!   1. inside every node, a direct reduce-scatter: each chip sends the 1/c share owned by each
//!      other chip to it (c = m*m chips per node);
//!   2. across nodes, among the chips of the same local rank, a 2D bidirectional-ring
//!      all-reduce of the c-th share: reduce-scatter along X (P-1 steps, half of the data each
//!      way round the ring), reduce-scatter along Y (Q-1 steps), then all-gather along Y and
//!      along X; each step waits for the previous step's message from the ring neighbour;
//!   3. inside every node, a direct all-gather of the reduced shares.
//!
//!   Chunk sizes are rounded up to whole bytes. A dimension of one node is skipped, as are the
//!   intra-node phases when a node holds one chip.

use super::symmetry::SymmetricDag;
use crate::error::{RailxError, Result};
use crate::plant::Plant;
use crate::sim::dag::{MessageDag, MessageId};

fn positive_bytes(field: &str, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return Err(RailxError::invalid(
            field,
            bytes,
            "must be at least one byte",
            "e.g. 1048576 for 1 MiB",
        ));
    }
    Ok(())
}

/// Uniform all-to-all: every chip sends `bytes_per_pair` to every other chip.
pub fn all_to_all(plant: &Plant, bytes_per_pair: u64) -> Result<SymmetricDag> {
    positive_bytes("bytes_per_pair", bytes_per_pair)?;
    let mut dag = MessageDag::new();
    for src in 0..plant.chips_per_node() {
        for dst in (0..plant.chips()).filter(|&d| d != src) {
            dag.push(src, dst, bytes_per_pair, 0.0, &[])?;
        }
    }
    Ok(SymmetricDag::new(dag))
}

/// The hierarchical all-reduce of `bytes` per chip described in the module docs.
pub fn hierarchical_all_reduce(plant: &Plant, bytes: u64) -> Result<SymmetricDag> {
    positive_bytes("bytes", bytes)?;
    let c = plant.chips_per_node();
    let shard = bytes.div_ceil(c as u64);
    let mut dag = MessageDag::new();
    // What each local chip of node 0 waits for before its next phase.
    let mut last: Vec<Vec<MessageId>> = vec![Vec::new(); c as usize];
    // 1. Intra-node reduce-scatter: chip a sends b's share to b.
    let mut inbound: Vec<Vec<MessageId>> = vec![Vec::new(); c as usize];
    for a in 0..c {
        for b in (0..c).filter(|&b| b != a) {
            inbound[b as usize].push(dag.push(a, b, shard, 0.0, &[])?);
        }
    }
    last.clone_from(&inbound);
    // 2. The 2D bidirectional ring over the node grid, per local rank.
    let (p, q) = (plant.p, plant.q);
    let along_x = |steps: u32| (steps, (1 % p, 0), (p - 1, 0));
    let along_y = |steps: u32| (steps, (0, 1 % q), (0, q - 1));
    let shard_x = shard.div_ceil(2 * p as u64);
    let shard_y = (shard.div_ceil(p as u64)).div_ceil(2 * q as u64);
    let phases = [
        (along_x(p - 1), shard_x),
        (along_y(q - 1), shard_y),
        (along_y(q - 1), shard_y),
        (along_x(p - 1), shard_x),
    ];
    for ((steps, forward, backward), chunk) in phases {
        for a in 0..c {
            let mut ends = Vec::new();
            for (dx, dy) in [forward, backward] {
                let to = plant.chip_id(plant.node_id(dx, dy), a % plant.m, a / plant.m);
                let mut prev = last[a as usize].clone();
                for _ in 0..steps {
                    let id = dag.push(a, to, chunk, 0.0, &prev)?;
                    prev = vec![id];
                }
                ends.extend(prev);
            }
            if steps > 0 {
                last[a as usize] = ends;
            }
        }
    }
    // 3. Intra-node all-gather: chip a sends its reduced share to every other chip.
    for a in 0..c {
        for b in (0..c).filter(|&b| b != a) {
            dag.push(a, b, shard, 0.0, &last[a as usize])?;
        }
    }
    Ok(SymmetricDag::new(dag))
}
