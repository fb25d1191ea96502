//! A collective schedule at flow level: aggregated (one flow per orbit of messages, exact) over
//! the largest subgroup of the system's symmetry group (RailX: its node translations; a peer:
//! its family's declared symmetries, `PeerBuilder::symmetry`) under which the schedule and the
//! network are invariant, when the collective group is the whole system (see
//! `collectives::symmetric::largest_invariant`); otherwise the full message DAG. Either way at
//! most `MAX_FLOWS` flows.

use super::symmetry::{LinkOrbits, Symmetry, Translations};
use super::{simulate_observed, simulate_symmetric_observed, FlowReport};
use crate::collectives::symmetric::{largest_invariant, representatives};
use crate::collectives::{build, counts, Algo, Group, Op};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::progress::{Observer, Silent};
use crate::routing::Routing;

/// Most flows a schedule is simulated with: its messages, or its representatives when
/// aggregated (about 0.5 KB of memory each, schedule and simulator state together).
pub const MAX_FLOWS: u64 = 5_000_000;

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
    /// True when it ran as representatives of orbits of a symmetry group.
    pub aggregated: bool,
    /// Messages each flow stands for: the group's order when aggregated, else 1.
    pub orbit: u64,
    /// The labels of that group's generators (empty when not aggregated), e.g. `["(0, 1)"]`.
    pub generators: Vec<String>,
}

/// The group to aggregate over: the largest subgroup of `symmetry` under which the schedule and
/// the network are invariant, when the routing covers the whole system and it is not trivial.
fn aggregation_group(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    symmetry: &Symmetry,
) -> Option<Symmetry> {
    if routing.chips().len() != net.chips() as usize {
        return None;
    }
    let h = largest_invariant(spec.op, spec.algo, group, symmetry)?;
    (h.order() > 1 && LinkOrbits::of(net, &h).is_ok()).then_some(h)
}

/// Runs the collective `spec` over `group` on `net` routed by `routing`, aggregated over a RailX
/// network's node translations where exact (module docs).
pub fn simulate_collective(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
) -> Result<CollectiveRun> {
    let translations = net.railx_plant().ok().map(Translations::whole);
    simulate_collective_with(net, routing, group, spec, translations.as_ref())
}

/// Runs the collective `spec` over `group` on `net` routed by `routing`, aggregated over the
/// largest subgroup of `symmetry` (the system's symmetry group, if it has one) under which it
/// is exact (module docs).
pub fn simulate_collective_with(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    symmetry: Option<&Symmetry>,
) -> Result<CollectiveRun> {
    simulate_collective_observed(net, routing, group, spec, symmetry, &mut Silent)
}

/// `simulate_collective_with`, telling `observer` the flows (messages, or representatives when
/// aggregated) arrived (`crate::progress`).
pub fn simulate_collective_observed(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    symmetry: Option<&Symmetry>,
    observer: &mut dyn Observer,
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
    let h = symmetry.and_then(|s| aggregation_group(net, routing, group, spec, s));
    let orbit = h.as_ref().map_or(1, Symmetry::order);
    let flows = c.messages / orbit;
    if flows > MAX_FLOWS {
        let aggregated = match (&h, symmetry) {
            (Some(h), _) => format!("aggregated over {} {}", h.order(), h.what()),
            (None, Some(s)) => format!("invariant under none of the system's {}", s.what()),
            (None, None) => "not aggregatable: the system declares no symmetry".to_string(),
        };
        return Err(RailxError::invalid(
            "schedule",
            format!("{} messages", c.messages),
            format!(
                "this {} schedule ({aggregated}) needs {flows} flows, more than the {MAX_FLOWS} a flow-level run is limited to",
                spec.algo.name()
            ),
            "use the analytic fidelity, a smaller system, or an algorithm invariant under more of the system's symmetry (hierarchical or 2d-ring on a torus, direct all-to-all)",
        ));
    }
    if let Some(h) = h {
        let sym = representatives(spec.op, spec.algo, group, &h, size, spec.reduce_s_per_byte)?;
        let report = simulate_symmetric_observed(net, routing, &sym, 0, observer)?;
        return Ok(CollectiveRun {
            report,
            aggregated: true,
            orbit,
            generators: h.labels(),
        });
    }
    let dag = build(spec.op, spec.algo, group, size.0, size.1)?.to_dag(spec.reduce_s_per_byte)?;
    let report = simulate_observed(net, routing, &dag, 0, observer)?;
    Ok(CollectiveRun {
        report,
        aggregated: false,
        orbit: 1,
        generators: Vec::new(),
    })
}
