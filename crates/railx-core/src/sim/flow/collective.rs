//! A collective schedule at flow level: aggregated (one flow per orbit of messages, exact) over
//! the largest subgroup of the system's symmetry group (RailX: its node translations; a peer:
//! its family's declared symmetries, `PeerBuilder::symmetry`) under which the schedule and the
//! network are invariant, when the collective group is the whole system (see
//! `collectives::symmetric::largest_invariant`); otherwise the full message DAG. Either way its
//! flows must fit the resource budget (`crate::resources`, [`FLOW_BYTES`] each).
//!
//! A ring or bidir-ring all-reduce in one chunk so aggregated (over whole rows of nodes on a
//! RailX torus: `4N(N-1)/p` representatives) runs with its messages generated step by step
//! (`ring`), holding only the live window: its budget is that window, not its flows.
//!
//! Several jobs (each its own group, disjoint from the others', and its own collective) run
//! together as one DAG: the union of their schedules' DAGs, independent components started at
//! once that share the network's links; each job's completion is its last arrival. A single
//! collective is the run of one job.

use super::ring::RingSteps;
use super::symmetry::{LinkOrbits, Symmetry, Translations};
use super::{simulate_observed, simulate_ring_observed, simulate_symmetric_observed, FlowReport};
use crate::collectives::symmetric::{largest_invariant, representatives};
use crate::collectives::{build, counts, Algo, Group, Op};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::progress::{Observer, Silent};
use crate::resources::{require, Driver, Estimate};
use crate::routing::Routing;
use crate::sim::dag::MessageDag;
use rustc_hash::FxHashMap;

/// Memory per flow of a schedule (a message, or a representative when aggregated): the
/// schedule, its routed path and the simulator's state together.
pub const FLOW_BYTES: f64 = 512.0;

/// Messages a streamed ring holds per representative rank, generously: one active flow and one
/// partly-ready message per direction, and steps its neighbours ran ahead.
pub const STREAM_WINDOW: u64 = 64;

/// Whether an aggregated run of `spec` generates its messages step by step (`ring`) rather than
/// storing its representatives: the ring and bidir-ring all-reduce in one chunk.
fn is_streamed(spec: &CollectiveSpec) -> bool {
    spec.op == Op::AllReduce
        && matches!(spec.algo, Algo::Ring | Algo::BidirRing)
        && spec.chunks == 1
}

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

/// One job of a run: its process group and the collective it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveJob {
    pub group: Group,
    pub spec: CollectiveSpec,
}

/// A flow-level run of one or more jobs' collectives.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveRun {
    pub report: FlowReport,
    /// True when it ran as representatives of orbits of a symmetry group.
    pub aggregated: bool,
    /// Messages each flow stands for: the group's order when aggregated, else 1.
    pub orbit: u64,
    /// The labels of that group's generators (empty when not aggregated), e.g. `["(0, 1)"]`.
    pub generators: Vec<String>,
    /// When each job's last message arrived, in the order of the jobs; the run's completion
    /// is their maximum.
    pub job_completion_s: Vec<f64>,
}

/// The group to aggregate over: the largest subgroup of `symmetry` under which the schedule and
/// the network are invariant, when the routing covers the whole system and it is not trivial.
fn aggregation_group(
    net: &Network,
    routing: &dyn Routing,
    job: &CollectiveJob,
    symmetry: &Symmetry,
) -> Option<Symmetry> {
    if routing.chips().len() != net.chips() as usize {
        return None;
    }
    let h = largest_invariant(job.spec.op, job.spec.algo, &job.group, symmetry)?;
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
/// is exact (module docs): [`simulate_collectives`] with one job.
pub fn simulate_collective_with(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    symmetry: Option<&Symmetry>,
) -> Result<CollectiveRun> {
    let job = CollectiveJob {
        group: group.clone(),
        spec: *spec,
    };
    simulate_collectives(net, routing, std::slice::from_ref(&job), symmetry)
}

/// The name of a job's field in errors: plain for a single job, `jobs[i].field` among several.
fn job_field(jobs: usize, i: usize, field: &str) -> String {
    if jobs == 1 {
        field.to_string()
    } else {
        format!("jobs[{i}].{field}")
    }
}

/// Checks what a run needs of its jobs: at least one, valid reduction delays, and no chip in
/// two jobs (concurrent jobs share the network, never a CU).
fn check_jobs(jobs: &[CollectiveJob]) -> Result<()> {
    if jobs.is_empty() {
        return Err(RailxError::invalid(
            "jobs",
            "[]",
            "a run has at least one job",
            "give one job (a group and its collective)",
        ));
    }
    let mut owner: FxHashMap<u32, usize> = FxHashMap::default();
    for (i, job) in jobs.iter().enumerate() {
        let delay = job.spec.reduce_s_per_byte;
        if !(delay.is_finite() && delay >= 0.0) {
            return Err(RailxError::invalid(
                job_field(jobs.len(), i, "reduce_s_per_byte"),
                delay,
                "must be a finite number of seconds per byte >= 0",
                "use 0 for no reduction delay",
            ));
        }
        for &chip in job.group.chips() {
            if let Some(other) = owner.insert(chip, i) {
                return Err(RailxError::invalid(
                    format!("jobs[{i}].cus"),
                    chip,
                    format!(
                        "CU {chip} is also in jobs[{other}]; concurrent jobs hold disjoint CUs"
                    ),
                    "give each job its own CUs",
                ));
            }
        }
    }
    Ok(())
}

/// Runs every job's collective at once on `net` routed by `routing`: the union of their
/// message DAGs, independent components that share the network's links, started together. A
/// single job runs aggregated over the largest subgroup of `symmetry` under which it is exact
/// (module docs); several run as the full union. Reports each job's completion and the run's.
pub fn simulate_collectives(
    net: &Network,
    routing: &dyn Routing,
    jobs: &[CollectiveJob],
    symmetry: Option<&Symmetry>,
) -> Result<CollectiveRun> {
    simulate_collectives_observed(net, routing, jobs, symmetry, &mut Silent)
}

/// `simulate_collectives`, telling `observer` the flows (messages, or representatives when
/// aggregated) arrived (`crate::progress`).
pub fn simulate_collectives_observed(
    net: &Network,
    routing: &dyn Routing,
    jobs: &[CollectiveJob],
    symmetry: Option<&Symmetry>,
    observer: &mut dyn Observer,
) -> Result<CollectiveRun> {
    check_jobs(jobs)?;
    let mut messages = 0u64;
    for job in jobs {
        let s = &job.spec;
        messages += counts(s.op, s.algo, &job.group, s.size_bytes, s.chunks)?.messages;
    }
    let h = match (jobs, symmetry) {
        ([job], Some(s)) => aggregation_group(net, routing, job, s),
        _ => None,
    };
    let orbit = h.as_ref().map_or(1, Symmetry::order);
    let flows = messages / orbit;
    let streamed = match (&h, jobs) {
        (Some(_), [job]) => is_streamed(&job.spec),
        _ => false,
    };
    let aggregated = match (&h, symmetry) {
        (Some(h), _) => format!("aggregated over {} {}", h.order(), h.what()),
        (None, _) if jobs.len() > 1 => format!("{} concurrent jobs, not aggregated", jobs.len()),
        (None, Some(s)) => format!("invariant under none of the system's {}", s.what()),
        (None, None) => "not aggregatable: the system declares no symmetry".to_string(),
    };
    let algos: Vec<&str> = jobs.iter().map(|j| j.spec.algo.name()).collect();
    let what = format!(
        "this {} schedule ({aggregated}, {flows} flows) at flow level",
        algos.join(" + ")
    );
    // Flows grow with the chunks each message is cut into; a streamed ring holds a window of a
    // few messages per representative rank and direction instead.
    let held = match &h {
        Some(h) if streamed => (STREAM_WINDOW * h.domain_chips() as u64).min(flows),
        _ => flows,
    };
    let chunks = jobs.iter().map(|j| j.spec.chunks as u64).max().unwrap_or(1);
    require(&what, &[Driver::new("chunks", chunks, 1)], |v| {
        Estimate::memory(held as f64 * v[0] / chunks as f64 * FLOW_BYTES)
    })?;
    if let (Some(h), [job]) = (h, jobs) {
        let s = &job.spec;
        let report = if streamed {
            let mut ring = RingSteps::new(
                s.op,
                s.algo,
                &job.group,
                &h,
                s.size_bytes,
                s.reduce_s_per_byte,
            )?;
            simulate_ring_observed(net, routing, &mut ring, false, 0, observer)?
        } else {
            let size = (s.size_bytes, s.chunks);
            let sym = representatives(s.op, s.algo, &job.group, &h, size, s.reduce_s_per_byte)?;
            simulate_symmetric_observed(net, routing, &sym, 0, observer)?
        };
        return Ok(CollectiveRun {
            job_completion_s: vec![report.completion_s],
            report,
            aggregated: true,
            orbit,
            generators: h.labels(),
        });
    }
    let mut dag = MessageDag::new();
    let mut ranges = Vec::with_capacity(jobs.len());
    for job in jobs {
        let s = &job.spec;
        let own =
            build(s.op, s.algo, &job.group, s.size_bytes, s.chunks)?.to_dag(s.reduce_s_per_byte)?;
        ranges.push(dag.append(&own));
    }
    let report = simulate_observed(net, routing, &dag, 0, observer)?;
    let job_completion_s = ranges
        .into_iter()
        .map(|r| {
            report.arrival_s[r.start as usize..r.end as usize]
                .iter()
                .fold(0.0, |a: f64, &b| a.max(b))
        })
        .collect();
    Ok(CollectiveRun {
        report,
        aggregated: false,
        orbit: 1,
        generators: Vec::new(),
        job_completion_s,
    })
}
