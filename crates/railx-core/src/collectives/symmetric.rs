//! Collective schedules in representative form, for the aggregated flow-level simulation
//! (`sim::flow::simulate_symmetric`): on a whole RailX system whose schedule is invariant under
//! a group H of translations of the node grid (`sim::flow::Translations`), only the messages of
//! the chips in H's fundamental domain are generated — one representative per orbit, 1/|H| of
//! the schedule — with every dependency naming the orbit it waits for (the `SymmetricDag`
//! semantics). The full schedule is never built: a 65,536-chip hierarchical all-reduce has about
//! 66M messages, its representative form over every translation about 16K.
//!
//! When is a schedule invariant? Ranks are chips (rank = chip id on a whole system) and a
//! translation g moves every chip by whole nodes. Every message of a stage is determined by its
//! sender's place on the stage's line: the neighbour it sends to (ring), or the line instance it
//! exchanges with (direct); the bytes depend only on the piece count, and the dependencies on
//! the same neighbour relations. So the schedule is invariant when, for every line, g maps ring
//! successors to ring successors (`next(g.r) = g.next(r)`) or line instances onto line
//! instances. `check_invariant` verifies exactly that for every generator of H and every rank.
//! Under every translation it holds for the 2d-ring, hierarchical and direct all-to-all
//! schedules on a torus (a node-level ring whose order is the node grid's cyclic order), and
//! fails for a ring over all chips in rank order (its node-to-node steps wrap from one row of
//! nodes to the next). That ring is invariant under the translations by whole rows, `(0, dY)`:
//! one row adds `P * chips per node` to every chip id modulo N, a rotation of the ring.
//! `largest_invariant` picks the first group of `candidates` (every translation, then whole
//! rows) under which the schedule is invariant.
//!
//! Dependencies: the builder credits every delivery to its receiver's slot, and a rank waits
//! only for deliveries to it and for its own earlier sends, so a representative's dependency is
//! an orbit with a member arriving at its source (and `SymmetricDag::expand` picks that member)
//! or the representative sent from its own source (the same translate).
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
use crate::sim::flow::{SymmetricDag, Translations};

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

/// Checks that `plan` on `group` is invariant under `h` (module docs): the group is the whole
/// system of `h`'s grid and every line commutes with every generator of `h`.
fn check_plan(
    algo: Algo,
    plan: &Plan,
    group: &Group,
    plant: &Plant,
    h: &Translations,
) -> Result<()> {
    if !is_whole_system(group, plant) || !h.fits(plant) {
        return Err(not_invariant(
            algo,
            "an aggregated schedule needs the group of every chip of the system, rank = chip id, and translations of its node grid",
        ));
    }
    for line in plan.lines.iter().filter(|l| l.size() > 1) {
        let next = |r: u32| line.rank_at(r, (line.pos(r) + 1) % line.size());
        let base = |r: u32| line.rank_at(r, 0);
        for &step in h.generators() {
            let g = |r: u32| h.translate_by(r, step);
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

/// Ok when the schedule of `op` by `algo` on `group` can run aggregated over the translations
/// `h` of `plant`'s node grid; the one-line reason otherwise (also for an algorithm that does
/// not apply at all).
pub fn check_invariant(
    op: Op,
    algo: Algo,
    group: &Group,
    plant: &Plant,
    h: &Translations,
) -> Result<()> {
    check_plan(algo, &plan_for(op, algo, group)?, group, plant, h)
}

/// The groups tried for aggregation, largest first: every translation, then whole rows.
pub fn candidates(plant: &Plant) -> [Translations; 2] {
    [Translations::whole(plant), Translations::whole_rows(plant)]
}

/// The first of `candidates` under which the schedule is invariant, if any.
pub fn largest_invariant(op: Op, algo: Algo, group: &Group, plant: &Plant) -> Option<Translations> {
    let plan = plan_for(op, algo, group).ok()?;
    candidates(plant)
        .into_iter()
        .find(|h| check_plan(algo, &plan, group, plant, h).is_ok())
}

/// The representative form of `collectives::build(op, algo, group, size_bytes, chunks)` lowered
/// with `Schedule::to_dag(reduce_s_per_byte)`, over the translations `h`: the messages of the
/// chips of `h`'s fundamental domain, dependencies by orbit.
pub fn representatives(
    op: Op,
    algo: Algo,
    group: &Group,
    plant: &Plant,
    h: &Translations,
    size: (u64, u32),
    reduce_s_per_byte: f64,
) -> Result<SymmetricDag> {
    check_size(size.0, size.1)?;
    let plan = plan_for(op, algo, group)?;
    check_plan(algo, &plan, group, plant, h)?;
    let reps = build::expand(op, algo, &plan, group, size, Senders::Domain(h));
    Ok(SymmetricDag::new(
        reps.to_dag(reduce_s_per_byte)?,
        h.clone(),
    ))
}
