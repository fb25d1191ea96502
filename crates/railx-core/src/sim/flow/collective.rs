//! A collective schedule at flow level: aggregated (one flow per orbit of messages, exact) when
//! the schedule is invariant under the node translations of a torus-like RailX network and the
//! group is the whole system; otherwise the full message DAG, up to `MAX_FULL_MESSAGES`.

use super::symmetry::NodeTranslations;
use super::{simulate, simulate_symmetric, FlowReport};
use crate::collectives::symmetric::{check_invariant, representatives};
use crate::collectives::{build, counts, Algo, Group, Op};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::routing::Routing;

/// Most messages of a schedule simulated without aggregation (about 0.5 KB of memory each,
/// schedule and simulator state together).
pub const MAX_FULL_MESSAGES: u64 = 5_000_000;

/// What to run: the collective, its size and pipelining, and the local reduction delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveSpec {
    pub op: Op,
    pub algo: Algo,
    /// Bytes per rank (all-to-all: bytes each rank sends in total).
    pub size_bytes: u64,
    pub chunks: u32,
    /// Delay before forwarding data the sender has just reduced, per byte.
    pub reduce_s_per_byte: f64,
}

/// A flow-level run of a collective.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveRun {
    pub report: FlowReport,
    /// True when it ran as representatives of orbits of the node translations.
    pub aggregated: bool,
}

/// Whether the run can be aggregated: the routing covers the whole system, the network is
/// invariant under its node translations and so is the schedule.
fn aggregatable(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
) -> bool {
    let Ok(plant) = net.railx_plant() else {
        return false;
    };
    routing.chips().len() == net.chips() as usize
        && check_invariant(spec.op, spec.algo, group, plant).is_ok()
        && NodeTranslations::of(net).is_ok()
}

/// Runs the collective `spec` over `group` on `net` routed by `routing` (module docs).
pub fn simulate_collective(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
) -> Result<CollectiveRun> {
    if !(spec.reduce_s_per_byte.is_finite() && spec.reduce_s_per_byte >= 0.0) {
        return Err(RailxError::invalid(
            "reduce_s_per_byte",
            spec.reduce_s_per_byte,
            "must be a finite number of seconds per byte >= 0",
            "use 0 for no reduction delay",
        ));
    }
    let size = (spec.size_bytes, spec.chunks);
    let c = counts(spec.op, spec.algo, group, size.0, size.1)?;
    if aggregatable(net, routing, group, spec) {
        let plant = net.railx_plant()?;
        let sym = representatives(
            spec.op,
            spec.algo,
            group,
            plant,
            size,
            spec.reduce_s_per_byte,
        )?;
        let report = simulate_symmetric(net, routing, &sym, 0)?;
        return Ok(CollectiveRun {
            report,
            aggregated: true,
        });
    }
    if c.messages > MAX_FULL_MESSAGES {
        return Err(RailxError::invalid(
            "schedule",
            format!("{} messages", c.messages),
            format!(
                "this {} schedule cannot be aggregated here and the full DAG is limited to {MAX_FULL_MESSAGES} messages",
                spec.algo.name()
            ),
            "use the analytic fidelity, a smaller system, or a torus-invariant algorithm (hierarchical, 2d-ring) on a torus",
        ));
    }
    let dag = build(spec.op, spec.algo, group, size.0, size.1)?.to_dag(spec.reduce_s_per_byte)?;
    let report = simulate(net, routing, &dag, 0)?;
    Ok(CollectiveRun {
        report,
        aggregated: false,
    })
}
