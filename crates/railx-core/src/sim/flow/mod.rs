//! The flow-level simulator (docs/flow.md): messages of a DAG become flows on routed paths that
//! share link bandwidth max-min fairly, with rates recomputed whenever a flow starts or
//! finishes; a message takes its path's latency plus its bytes over its rate.
//!
//! Three entry points:
//! - `simulate`: any message DAG on any network and routing function, one flow per message
//!   (resources = links); a multicast message is one flow over the tree of its routes (`paths`);
//! - `simulate_symmetric`: a DAG invariant under a group of translations of a RailX node grid
//!   (all of them, or a subgroup such as the whole-row translations), given as one
//!   representative per orbit (`SymmetricDag`); one flow per orbit of messages and one resource
//!   per orbit of links, exact by the argument in `symmetry`. This is how a 65,536-chip
//!   all-to-all (4.3e9 messages, 1.05e6 orbits) runs in seconds;
//! - `simulate_ring`: the 1D ring all-reduce over every chip aggregated the same way, its
//!   messages generated step by step as they become ready (`ring`) and each event re-solving
//!   only the flows connected to those that started or finished (`engine::Resolve`): memory is
//!   the live window and an event costs what it touches, so 65,536 chips run.
//!
//! Modules: `paths` (routes as resource incidences, multipath), `fairness` (max-min
//! water-filling), `engine` (the event loop), `timeline` (utilisation record), `symmetry`
//! (translation groups, link orbits, symmetric DAGs), `traffic` (symmetric workloads), `ring`
//! (the ring all-reduce generated step by step), `collective` (a collective schedule, aggregated
//! where exact).

pub mod collective;
pub mod engine;
pub mod fairness;
pub mod paths;
pub mod ring;
pub mod symmetry;
pub mod timeline;
pub mod traffic;

use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::progress::{Observer, Silent};
use crate::routing::Routing;
use crate::sim::dag::MessageDag;
use engine::{Resolve, Stored};
use paths::PathSet;
use ring::RingSteps;
use rustc_hash::FxHashMap;
pub use symmetry::{Generator, LinkOrbits, SymmetricDag, Symmetry, Translations};
pub use timeline::Timeline;

/// Representative routes checked for equivariance in every aggregated run.
pub const EQUIVARIANCE_SAMPLES: usize = 4096;

/// Most utilisation bins a run may ask for.
pub const MAX_BINS: u32 = 100_000;

/// The outcome of a flow-level run.
#[derive(Debug, Clone, PartialEq)]
#[allow(non_snake_case)]
pub struct FlowReport {
    /// When the last message arrived.
    pub completion_s: f64,
    /// Flows simulated: messages, or representatives when aggregated.
    pub flows: u64,
    /// Messages those flows stand for.
    pub messages: u64,
    /// Instants at which rates were recomputed.
    pub events: u64,
    /// Most flows active at once.
    pub peak_active: u64,
    /// Per simulated flow: injection and arrival times (empty for a generated ring run without
    /// `keep_times`: the collective runs hold only its live window).
    pub start_s: Vec<f64>,
    pub arrival_s: Vec<f64>,
    /// The resource of every link: the link itself, or its orbit when aggregated (every link of
    /// an orbit has the orbit's utilisation).
    pub resource_of_link: Vec<u32>,
    /// Capacity of each resource (one link's bandwidth).
    pub resource_capacity_Bps: Vec<f64>,
    /// Utilisation of each resource over time, when bins were asked for.
    pub timeline: Option<Timeline>,
}

fn check_bins(bins: u32) -> Result<()> {
    if bins > MAX_BINS {
        return Err(RailxError::invalid(
            "bins",
            bins,
            format!("at most {MAX_BINS} utilisation bins"),
            "e.g. bins = 100, or 0 for no timeline",
        ));
    }
    Ok(())
}

/// Checks that every endpoint is a chip the routing function routes (its job's region).
fn check_routed(dag: &MessageDag, routing: &dyn Routing, chips: u32) -> Result<()> {
    dag.check_chips(chips)?;
    let mut routed = vec![false; chips as usize];
    for &c in routing.chips() {
        routed[c as usize] = true;
    }
    for id in 0..dag.len() {
        let ends =
            std::iter::once(("src", dag.src(id))).chain(dag.dsts(id).iter().map(|&d| ("dst", d)));
        for (field, chip) in ends {
            if !routed[chip as usize] {
                return Err(RailxError::invalid(
                    format!("message {id}.{field}"),
                    chip,
                    "is outside the region the routing function covers",
                    "use chips of the routed job, or route the whole system",
                ));
            }
        }
    }
    Ok(())
}

/// The distinct routes (source, destinations) of a DAG and each message's route index.
fn distinct_routes(dag: &MessageDag) -> (Vec<(u32, &[u32])>, Vec<u32>) {
    // Sized for every message having its own route (an all-to-all): growing the map by
    // rehashing a million entries cost more than the lookups.
    let mut index: FxHashMap<(u32, &[u32]), u32> =
        FxHashMap::with_capacity_and_hasher(dag.len() as usize, Default::default());
    let mut routes = Vec::with_capacity(dag.len() as usize);
    let route_of = (0..dag.len())
        .map(|i| {
            let key = (dag.src(i), dag.dsts(i));
            *index.entry(key).or_insert_with(|| {
                routes.push(key);
                routes.len() as u32 - 1
            })
        })
        .collect();
    (routes, route_of)
}

#[allow(non_snake_case)]
fn report(
    dag: &MessageDag,
    represented: u64,
    run: engine::FlowRun,
    resource_of_link: Vec<u32>,
    resource_capacity_Bps: Vec<f64>,
) -> FlowReport {
    FlowReport {
        completion_s: run.completion_s,
        flows: dag.len() as u64,
        messages: represented,
        events: run.events,
        peak_active: run.peak_active,
        start_s: run.start_s,
        arrival_s: run.arrival_s,
        resource_of_link,
        resource_capacity_Bps,
        timeline: run.timeline,
    }
}

/// Runs `dag` on `net` routed by `routing`, one flow per message; `bins` utilisation bins (0:
/// none).
pub fn simulate(
    net: &Network,
    routing: &dyn Routing,
    dag: &MessageDag,
    bins: u32,
) -> Result<FlowReport> {
    simulate_observed(net, routing, dag, bins, &mut Silent)
}

/// `simulate`, telling `observer` the messages arrived (`crate::progress`).
pub fn simulate_observed(
    net: &Network,
    routing: &dyn Routing,
    dag: &MessageDag,
    bins: u32,
    observer: &mut dyn Observer,
) -> Result<FlowReport> {
    check_bins(bins)?;
    check_routed(dag, routing, net.chips())?;
    let (routes, path_of) = distinct_routes(dag);
    let identity: Vec<u32> = (0..net.links() as u32).collect();
    let paths = PathSet::route_trees(routing, &net.latency_s, &identity, &routes)?;
    let run = engine::run(
        &mut Stored::new(dag, &path_of),
        &paths,
        &net.bandwidth_Bps,
        Resolve::Every,
        true,
        bins,
        observer,
    )?;
    Ok(report(
        dag,
        dag.len() as u64,
        run,
        identity,
        net.bandwidth_Bps.clone(),
    ))
}

/// Runs a DAG invariant under the group `sym.group` of node translations on a RailX network, one
/// flow per orbit of messages over one resource per orbit of links (exact; see `symmetry`). The
/// routing function must cover the whole grid; the network's invariance under the group is
/// checked in full and the routing's equivariance on `EQUIVARIANCE_SAMPLES` representative
/// routes.
pub fn simulate_symmetric(
    net: &Network,
    routing: &dyn Routing,
    sym: &SymmetricDag,
    bins: u32,
) -> Result<FlowReport> {
    simulate_symmetric_observed(net, routing, sym, bins, &mut Silent)
}

/// `simulate_symmetric`, telling `observer` the representative messages arrived
/// (`crate::progress`).
pub fn simulate_symmetric_observed(
    net: &Network,
    routing: &dyn Routing,
    sym: &SymmetricDag,
    bins: u32,
    observer: &mut dyn Observer,
) -> Result<FlowReport> {
    check_bins(bins)?;
    check_whole_grid(net, routing)?;
    let group = LinkOrbits::of(net, &sym.group)?;
    let dag = &sym.representatives;
    check_routed(dag, routing, net.chips())?;
    if dag.has_multicast() {
        return Err(RailxError::invalid(
            "representatives",
            "multicast",
            "an aggregated run takes unicast representatives",
            "simulate the full message DAG",
        ));
    }
    let (routes, path_of) = distinct_routes(dag);
    let pairs: Vec<(u32, u32)> = routes.iter().map(|&(s, d)| (s, d[0])).collect();
    let paths = orbit_paths(net, routing, &group, &pairs)?;
    let capacity = group.orbit_capacity_Bps().to_vec();
    let run = engine::run(
        &mut Stored::new(dag, &path_of),
        &paths,
        &capacity,
        Resolve::Every,
        true,
        bins,
        observer,
    )?;
    Ok(report(
        dag,
        sym.represented(),
        run,
        group.orbit_of_link().to_vec(),
        capacity,
    ))
}

/// An aggregated run needs a routing function over the whole node grid.
fn check_whole_grid(net: &Network, routing: &dyn Routing) -> Result<()> {
    if routing.chips().len() != net.chips() as usize {
        return Err(RailxError::invalid(
            "job",
            format!("{} of {} chips", routing.chips().len(), net.chips()),
            "an aggregated run needs a routing function over the whole node grid",
            "route the whole system (no job), or simulate the full message DAG",
        ));
    }
    Ok(())
}

/// The routes of representative `pairs` (src, dst chips) over link orbits, after checking the
/// routing's equivariance on `EQUIVARIANCE_SAMPLES` of them.
fn orbit_paths(
    net: &Network,
    routing: &dyn Routing,
    orbits: &LinkOrbits,
    pairs: &[(u32, u32)],
) -> Result<PathSet> {
    orbits.check_equivariance(net, routing, pairs, EQUIVARIANCE_SAMPLES)?;
    PathSet::route_all(routing, &net.latency_s, orbits.orbit_of_link(), pairs)
}

/// Runs the ring all-reduce `ring` (representatives generated step by step) on a RailX
/// network, one flow per orbit of messages over one resource per orbit of links, exactly as
/// `simulate_symmetric` runs the stored representatives, but re-solving at each event only the
/// flows connected to those that started or finished. With `keep_times`, reports every
/// representative's injection and arrival (memory: 16 bytes per representative); without,
/// `start_s` and `arrival_s` are empty and memory is the live window.
pub fn simulate_ring_observed(
    net: &Network,
    routing: &dyn Routing,
    ring: &mut RingSteps,
    keep_times: bool,
    bins: u32,
    observer: &mut dyn Observer,
) -> Result<FlowReport> {
    check_bins(bins)?;
    check_whole_grid(net, routing)?;
    let group = LinkOrbits::of(net, ring.group())?;
    let paths = orbit_paths(net, routing, &group, &ring.routes())?;
    let capacity = group.orbit_capacity_Bps().to_vec();
    let run = engine::run(
        ring,
        &paths,
        &capacity,
        Resolve::Connected,
        keep_times,
        bins,
        observer,
    )?;
    let flows = engine::Workload::messages(ring);
    Ok(FlowReport {
        completion_s: run.completion_s,
        flows,
        messages: flows * ring.group().order(),
        events: run.events,
        peak_active: run.peak_active,
        start_s: run.start_s,
        arrival_s: run.arrival_s,
        resource_of_link: group.orbit_of_link().to_vec(),
        resource_capacity_Bps: capacity,
        timeline: run.timeline,
    })
}
