//! Collective schedules in representative form, for the aggregated flow-level simulation
//! (`sim::flow::simulate_symmetric`): on a whole RailX system whose schedule is invariant under
//! the translations of the node grid, only node 0's messages are generated — one representative
//! per orbit, 1/(P*Q) of the schedule — with every dependency naming the orbit it waits for
//! (the `SymmetricDag` semantics). The full schedule is never built: a 65,536-chip hierarchical
//! all-reduce has about 66M messages, its representative form about 16K.
//!
//! When is a schedule invariant? Ranks are chips (rank = chip id on a whole system) and a
//! translation g moves every chip by whole nodes. Every message of a stage is determined by its
//! sender's place on the stage's line: the neighbour it sends to (ring), or the line instance it
//! exchanges with (direct); the bytes depend only on the piece count, and the dependencies on
//! the same neighbour relations. So the schedule is invariant when, for every line, g maps ring
//! successors to ring successors (`next(g.r) = g.next(r)`) or line instances onto line
//! instances. `check_invariant` verifies exactly that for both generators of the group and every
//! rank. It holds for the 2d-ring, hierarchical and direct all-to-all schedules on a torus (a
//! node-level ring whose order is the node grid's cyclic order), and fails e.g. for a ring over
//! all chips in rank order (its node-to-node steps wrap from one row of nodes to the next).
//!
//! Bytes: each representative carries its own units' bytes. When the size is not a multiple of
//! the unit count, the members of an orbit may differ by one byte per message (the cut of
//! `Schedule::unit_bytes`); the aggregated run gives them all the representative's size.

use crate::collectives::build::{self, Senders};
use crate::collectives::group::Group;
use crate::collectives::plan::{LineAlgo, Plan};
use crate::collectives::{check_size, plan_for, Algo, Op};
use crate::error::{RailxError, Result};
use crate::plant::Plant;
use crate::sim::flow::symmetry::Grid;
use crate::sim::flow::SymmetricDag;

/// Whether `group` is every chip of `plant` with rank = chip id (the whole-system group).
fn is_whole_system(group: &Group, plant: &Plant) -> bool {
    group.ranks() == plant.chips()
        && group
            .chips()
            .iter()
            .enumerate()
            .all(|(r, &c)| r as u32 == c)
}

fn not_invariant(algo: Algo, why: impl Into<String>) -> RailxError {
    RailxError::invalid(
        "aggregate",
        algo.name(),
        why,
        "simulate the full schedule (a smaller system), or use the analytic model",
    )
}

/// Checks that `plan` on `group` is invariant under the node translations of `plant` (module
/// docs): the group is the whole system and every line commutes with both generators.
fn check_plan(algo: Algo, plan: &Plan, group: &Group, plant: &Plant) -> Result<()> {
    if !is_whole_system(group, plant) {
        return Err(not_invariant(
            algo,
            "an aggregated schedule needs the group of every chip of the system, rank = chip id",
        ));
    }
    let grid = Grid::of(plant);
    for line in plan.lines.iter().filter(|l| l.size() > 1) {
        let next = |r: u32| line.rank_at(r, (line.pos(r) + 1) % line.size());
        let base = |r: u32| line.rank_at(r, 0);
        for step in [(1, 0), (0, 1)] {
            let g = |r: u32| grid.translate(r, step);
            let commutes = |r: u32| match line.algo {
                LineAlgo::Direct => base(g(base(r))) == base(g(r)),
                LineAlgo::Ring | LineAlgo::BidirRing => next(g(r)) == g(next(r)),
            };
            if let Some(r) = (0..group.ranks()).find(|&r| !commutes(r)) {
                return Err(not_invariant(
                    algo,
                    format!(
                        "the {} schedule is not invariant under translations of the node grid: its line over group dimensions {:?} does not commute with the translation by {step:?} at rank {r}",
                        algo.name(),
                        line.dims
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Ok when the schedule of `op` by `algo` on `group` can run aggregated on `plant`'s node grid;
/// the one-line reason otherwise (also for an algorithm that does not apply at all).
pub fn check_invariant(op: Op, algo: Algo, group: &Group, plant: &Plant) -> Result<()> {
    check_plan(algo, &plan_for(op, algo, group)?, group, plant)
}

/// The representative form of `collectives::build(op, algo, group, size_bytes, chunks)` lowered
/// with `Schedule::to_dag(reduce_s_per_byte)`: node 0's messages, dependencies by orbit.
pub fn representatives(
    op: Op,
    algo: Algo,
    group: &Group,
    plant: &Plant,
    size: (u64, u32),
    reduce_s_per_byte: f64,
) -> Result<SymmetricDag> {
    check_size(size.0, size.1)?;
    let plan = plan_for(op, algo, group)?;
    check_plan(algo, &plan, group, plant)?;
    let senders = Senders::NodeZero {
        per_node: plant.chips_per_node(),
    };
    let reps = build::expand(op, algo, &plan, group, size, senders);
    Ok(SymmetricDag::new(reps.to_dag(reduce_s_per_byte)?))
}
