//! The cycle-based, flit-level network simulator (RailX paper §6.1.2, A.6): routers with
//! input-buffered virtual channels, virtual cut-through, credit-based flow control, separable
//! allocation with round-robin arbitration, links of any rate (k flits/cycle inside a RailX
//! node) and latency, on any [`Network`] with any [`Routing`] function. Multi-threaded and
//! bit-identical for any number of threads.
//!
//! - `config`: parameters (Table 5 defaults) and their checks;
//! - `fabric`: ports, rates and latencies precomputed from the network;
//! - `router`: buffers, credits, allocation, injection and ejection;
//! - `traffic`: patterns, the finite all-to-all, message DAGs;
//! - `engine`: the two-phase parallel cycle loop;
//! - `stats`: counters, latency histogram, the report;
//! - `watchdog`: the blocked cycle of channels when a run deadlocks.

pub mod config;
mod engine;
mod fabric;
pub mod rng;
mod router;
pub mod stats;
pub mod traffic;
mod watchdog;
mod wheel;

pub use config::{
    Arbitration, Ejection, FlitConfig, FlowControl, InjectionQueues, InputPace, LinkLatency,
    SwitchAllocation, VcAllocation,
};
pub use fabric::TICKS;
pub use stats::{Deadlock, FlitReport, LatencyStats};
pub use traffic::{Pattern, PermutationKind, Traffic, TrafficSpec};

use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::progress::{Meter, Observer, Part, Silent, Unit};
use crate::resources::{require, Driver, Estimate};
use crate::routing::Routing;
use crate::sim::dag::MessageDag;
use engine::{DagState, Ending, Shared, Workload};
use fabric::Fabric;
use serde::Serialize;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use traffic::Destinations;

/// Simulates `traffic` on `net` routed by `routing`.
pub fn simulate(
    net: &Network,
    routing: &dyn Routing,
    config: &FlitConfig,
    traffic: &Traffic,
) -> Result<FlitReport> {
    simulate_observed(net, routing, config, traffic, &mut Silent)
}

/// `simulate`, telling `observer` how far it is (`crate::progress`): cycles of a rate run,
/// flits delivered of a finite all-to-all, messages delivered of a DAG; a cancelled run returns
/// `RailxError::Cancelled`.
#[allow(non_snake_case)]
pub fn simulate_observed(
    net: &Network,
    routing: &dyn Routing,
    config: &FlitConfig,
    traffic: &Traffic,
    observer: &mut dyn Observer,
) -> Result<FlitReport> {
    config.validate()?;
    let classes = routing.vcs() as u32;
    let vcs = classes.saturating_mul(config.vcs_per_class);
    if classes == 0 || vcs > config::MAX_VCS as u32 {
        return Err(RailxError::invalid(
            "vcs_per_class",
            config.vcs_per_class,
            format!(
                "routing = {} names {classes} virtual channels; times {} per class that exceeds the {} physical VCs per link the simulator models",
                routing.name(),
                config.vcs_per_class,
                config::MAX_VCS
            ),
            format!(
                "use vcs_per_class <= {} (or a routing function with fewer VCs, e.g. dateline on tori)",
                (config::MAX_VCS as u32 / classes.max(1)).max(1)
            ),
        ));
    }
    let chips = routing.chips();
    if chips.len() < 2 {
        return Err(RailxError::invalid(
            "chips",
            chips.len(),
            "traffic needs at least two chips",
            "simulate a larger system",
        ));
    }
    let is_chip: Vec<bool> = (0..net.vertices()).map(|v| v < net.chip_count).collect();
    let fabric = Fabric::new(net, config, &is_chip)?;
    let cycle_s = cycle_s(net, config.flit_bytes);
    let mut dag = None;
    let (pattern, workload, cycles, window) = match traffic {
        Traffic::Rate { pattern, load } => {
            check_load(*load, config)?;
            let packets = load / config.packet_flits as f64;
            let workload = Workload::Rate {
                whole_packets: packets.floor() as u32,
                extra_packet: packets.fract(),
            };
            let window = (config.warmup_cycles, config.rate_cycles());
            (
                Some(pattern.clone()),
                workload,
                config.rate_cycles(),
                window,
            )
        }
        Traffic::FiniteAllToAll { flits_per_pair } => (
            Some(Pattern::AllToAll),
            Workload::Finite {
                flits_per_pair: *flits_per_pair,
            },
            config.max_cycles,
            (0, u64::MAX),
        ),
        Traffic::Dag(d) => {
            dag = Some(dag_state(d, chips, net.vertices(), config, cycle_s)?);
            (None, Workload::Dag, config.max_cycles, (0, u64::MAX))
        }
    };
    require_run(net, config, vcs, traffic, chips.len(), &fabric)?;
    let destinations = match &pattern {
        Some(p) => Some(Destinations::new(chips, net.vertices(), p, config.seed)?),
        None => None,
    };
    let wheel = (fabric.horizon_cycles(config) + 1).next_power_of_two();
    let sh = Shared {
        fabric: &fabric,
        routing,
        config,
        selection: routing.selection(),
        vcs,
        vcs_per_class: config.vcs_per_class,
        link_src: &net.src,
        link_dst: &net.dst,
        destinations,
        workload,
        dag,
        wheel_slots: wheel as usize,
        measure_from: window.0,
        measure_to: window.1,
    };
    let (mut parts, chunk) = engine::partitions(&sh, config.threads);
    let finite_flits = match workload {
        Workload::Finite { flits_per_pair } => {
            let n = chips.len() as u64;
            n * (n - 1) * flits_per_pair as u64
        }
        _ => 0,
    };
    if let (Traffic::Dag(d), Some(state)) = (traffic, &sh.dag) {
        for m in 0..d.len() {
            if d.after(m).is_empty() {
                let src = d.src(m);
                let p = &mut parts[(src / chunk) as usize];
                p.routers[(src - p.first) as usize].schedule(state.delay_cycles[m as usize], m);
            }
        }
    }
    let messages = match traffic {
        Traffic::Dag(d) => d.len() as u64,
        _ => 0,
    };
    let pool = if config.threads > 1 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(config.threads)
                .build()
                .map_err(|e| {
                    RailxError::invalid(
                        "threads",
                        config.threads,
                        e.to_string(),
                        "use fewer threads",
                    )
                })?,
        )
    } else {
        None
    };
    let finished = |p: &engine::Progress| match workload {
        Workload::Rate { .. } => false,
        Workload::Finite { .. } => p.ejected == finite_flits,
        Workload::Dag => p.messages_done == messages,
    };
    let (unit, total) = match workload {
        Workload::Rate { .. } => (Unit::Cycles, cycles),
        Workload::Finite { .. } => (Unit::Flits, finite_flits),
        Workload::Dag => (Unit::Messages, messages),
    };
    let done = |p: &engine::Progress, ran: u64| match workload {
        Workload::Rate { .. } => ran,
        Workload::Finite { .. } => p.ejected,
        Workload::Dag => p.messages_done,
    };
    let mut meter = Meter::new(
        observer,
        "flit-level run",
        unit,
        Some(total),
        engine::CYCLES_PER_REPORT,
    );
    let (ran, ending) = engine::run(
        &mut parts,
        chunk,
        &sh,
        cycles,
        finished,
        done,
        &mut meter,
        pool.as_ref(),
    )?;
    let deadlock = match ending {
        Ending::Stalled { stalled } => Some(Deadlock {
            detected_at: ran,
            stalled_cycles: stalled,
            channels: watchdog::blocked_cycle(&mut parts, &sh)?,
        }),
        _ => None,
    };
    let completed = match (&ending, workload) {
        (Ending::Stalled { .. }, _) => false,
        (Ending::OutOfCycles, Workload::Rate { .. }) => true,
        (Ending::OutOfCycles, _) => false,
        (Ending::Done, _) => true,
    };
    let mut report = report(&parts, &sh, net, ran, window, completed, deadlock, cycle_s)?;
    report.traffic = traffic.name();
    Ok(report)
}

/// Memory per channel (a link's VC): its input queue, head record (with the head packet) and
/// candidates, its credit counter.
const CHANNEL_BYTES: f64 = 136.0;
/// Memory per router beyond its channels: ports, injection queues, scratch.
const ROUTER_BYTES: f64 = 512.0;
/// Memory per timing-wheel slot of a partition (an empty event list).
const SLOT_BYTES: f64 = 24.0;
/// Memory per DAG message of a run's state (source, destination, delay, dependants, counters).
const DAG_STATE_BYTES: f64 = 56.0;
/// Steps of work per flit a run moves end to end (1e8 flits take about a minute on one core).
pub const FLIT_STEPS: f64 = 100.0;
/// Steps per vertex and per link in one cycle.
const CYCLE_STEPS: f64 = 4.0;

/// Memory and work of a flit-level run on `vertices` routers and `links` links of `vcs` VCs
/// each, with timing wheels of `wheel_slots` in each of `partitions`, `messages` DAG messages,
/// `source_packets` packets possibly queued at the sources, and `cycles` cycles (0 when the run
/// ends with its workload, whose length is not known before).
#[allow(clippy::too_many_arguments)]
pub fn run_estimate(
    vertices: u64,
    links: u64,
    vcs: u64,
    wheel_slots: f64,
    partitions: u64,
    messages: f64,
    source_packets: f64,
    cycles: f64,
) -> Estimate {
    let bytes = (links * vcs) as f64 * CHANNEL_BYTES
        + vertices as f64 * ROUTER_BYTES
        + wheel_slots * partitions as f64 * SLOT_BYTES
        + messages * (DAG_STATE_BYTES + MessageDag::BYTES_PER_MESSAGE)
        + source_packets * config::SOURCE_ENTRY_BYTES;
    Estimate::new(
        bytes,
        bytes + cycles * (vertices + links) as f64 * CYCLE_STEPS,
    )
}

/// Refuses a run beyond the resource budget, naming what drives it: the cycles of a rate run,
/// the buffers (which size the timing wheels), a DAG's messages.
fn require_run(
    net: &Network,
    config: &FlitConfig,
    vcs: u32,
    traffic: &Traffic,
    chips: usize,
    fabric: &Fabric,
) -> Result<Estimate> {
    let (load, messages, flits_per_pair) = match traffic {
        Traffic::Rate { load, .. } => (*load, 0, 0),
        Traffic::Dag(d) => (0.0, d.len() as u64, 0),
        Traffic::FiniteAllToAll { flits_per_pair } => (0.0, 0, *flits_per_pair as u64),
    };
    let pairs = chips as f64 * chips.saturating_sub(1) as f64;
    let cycles = match traffic {
        Traffic::Rate { .. } => config.rate_cycles(),
        _ => 0,
    };
    let drivers = [
        Driver::new("cycles", cycles, 1),
        Driver::new(
            "buffer_flits",
            config.buffer_flits as u64,
            config.packet_flits as u64,
        ),
        Driver::new("messages", messages, 1),
        Driver::new("size_flits", flits_per_pair, 1),
    ];
    let partitions = config.threads.min(net.vertices() as usize) as u64;
    require("this flit-level run", &drivers, |v| {
        let trial = FlitConfig {
            buffer_flits: v[1] as u32,
            ..config.clone()
        };
        let wheel = ((fabric.horizon_cycles(&trial) + 1) as f64)
            .log2()
            .ceil()
            .exp2();
        let run = run_estimate(
            net.vertices() as u64,
            net.links() as u64,
            vcs as u64,
            wheel,
            partitions,
            v[2],
            config.source_packets(chips, v[0], load),
            v[0],
        );
        Estimate::new(run.bytes, run.work + pairs * v[3] * FLIT_STEPS)
    })
}

/// Seconds per cycle on `net`: a flit of `flit_bytes` over its slowest link, which carries one
/// flit per cycle.
#[allow(non_snake_case)]
pub fn cycle_s(net: &Network, flit_bytes: u32) -> f64 {
    let slowest_Bps = net
        .bandwidth_Bps
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    flit_bytes as f64 / slowest_Bps
}

fn check_load(load: f64, config: &FlitConfig) -> Result<()> {
    let max = config.injection_flits_per_cycle;
    if !(load.is_finite() && load > 0.0 && load <= max) {
        return Err(RailxError::invalid(
            "load",
            load,
            format!("the offered load is flits/cycle/chip in (0, {max}], the chip's injection bandwidth"),
            format!("e.g. {}", max / 2.0),
        ));
    }
    Ok(())
}

fn dag_state(
    d: &MessageDag,
    chips: &[u32],
    vertices: u32,
    config: &FlitConfig,
    cycle_s: f64,
) -> Result<DagState> {
    d.check_chips(vertices)?;
    if d.has_multicast() {
        return Err(RailxError::invalid(
            "dag",
            "multicast",
            "the flit level moves unicast messages",
            "lower it with MessageDag::unicast_copies (as flit-level collectives do)",
        ));
    }
    let mut routed = vec![false; vertices as usize];
    for &c in chips {
        routed[c as usize] = true;
    }
    for m in 0..d.len() {
        for (field, chip) in [("src", d.src(m)), ("dst", d.dst(m))] {
            if !routed[chip as usize] {
                return Err(RailxError::invalid(
                    format!("message {m}.{field}"),
                    chip,
                    "is not a chip the routing function routes",
                    "use chips of the simulated region",
                ));
            }
        }
    }
    let n = d.len() as usize;
    let flits: Vec<u64> = (0..d.len())
        .map(|m| d.bytes(m).div_ceil(config.flit_bytes as u64))
        .collect();
    let (dependants_start, dependants) = d.dependants();
    Ok(DagState {
        src: (0..d.len()).map(|m| d.src(m)).collect(),
        dst: (0..d.len()).map(|m| d.dst(m)).collect(),
        // A tolerance of a millionth of a cycle keeps exact multiples of the cycle exact.
        delay_cycles: (0..d.len())
            .map(|m| (d.delay_s(m) / cycle_s - 1e-6).ceil().max(0.0) as u64)
            .collect(),
        dependants_start,
        dependants,
        pending: (0..d.len())
            .map(|m| AtomicU32::new(d.after(m).len() as u32))
            .collect(),
        undelivered: flits.iter().map(|&f| AtomicU64::new(f)).collect(),
        done_cycle: (0..n).map(|_| AtomicU64::new(u64::MAX)).collect(),
        flits,
    })
}

#[allow(clippy::too_many_arguments)]
fn report(
    parts: &[engine::Partition],
    sh: &Shared,
    net: &Network,
    ran: u64,
    window: (u64, u64),
    completed: bool,
    deadlock: Option<Deadlock>,
    cycle_s: f64,
) -> Result<FlitReport> {
    let mut total = stats::Counters::default();
    let (mut in_network, mut at_source) = (0u64, 0u64);
    let mut link_flits = vec![0u64; net.links()];
    for p in parts {
        total.merge(&p.counters);
        in_network += p.wheel_flits();
        for r in &p.routers {
            let (n, s) = r.held_flits();
            in_network += n;
            at_source += s;
            let start = sh.fabric.out_start[r.id as usize] as usize;
            for (k, &flits) in r.sent_flits.iter().enumerate() {
                let link = sh.fabric.outs[start + k].link;
                if link != fabric::NO_LINK {
                    link_flits[link as usize] = flits;
                }
            }
        }
    }
    // Conservation: every flit generated is at its source, in the network, or delivered.
    if total.injected != total.ejected + in_network || total.created != total.injected + at_source {
        return Err(RailxError::internal(
            "flit conservation",
            format!(
                "created {} = injected {} + at sources {}, injected = delivered {} + in flight {} does not hold",
                total.created, total.injected, at_source, total.ejected, in_network
            ),
        ));
    }
    let measured = window.1.min(ran).saturating_sub(window.0).max(1);
    let chips = sh.routing.chips().len() as f64;
    let per_chip = |flits: u64| flits as f64 / (measured as f64 * chips);
    let link_utilisation: Vec<f64> = link_flits
        .iter()
        .zip(&sh.fabric.link_flits_per_cycle)
        .map(|(&f, &rate)| f as f64 / (measured as f64 * rate))
        .collect();
    let message_done_cycles = sh
        .dag
        .as_ref()
        .map(|d| {
            d.done_cycle
                .iter()
                .map(|c| c.load(Ordering::Relaxed))
                .collect()
        })
        .unwrap_or_default();
    let finite = window.1 == u64::MAX;
    Ok(FlitReport {
        routing: sh.routing.name().to_string(),
        traffic: String::new(),
        chips: chips as u32,
        routers: sh.fabric.vertices,
        vcs: sh.vcs as u8,
        threads: sh.config.threads,
        seed: sh.config.seed,
        offered: per_chip(total.offered),
        accepted: per_chip(total.accepted),
        latency: total.latency(),
        cycles: ran,
        measured_cycles: measured,
        flits_delivered: total.ejected,
        packets_delivered: total.packets_ejected,
        flits_injected: total.injected,
        flits_in_flight: in_network,
        flits_at_sources: at_source,
        flit_hops: total.flit_hops,
        router_cycles: ran * sh.fabric.vertices as u64,
        max_buffer_flits: total.max_occupancy,
        mean_link_utilisation: link_utilisation.iter().sum::<f64>()
            / link_utilisation.len().max(1) as f64,
        max_link_utilisation: link_utilisation.iter().copied().fold(0.0, f64::max),
        completion_cycles: (finite && completed).then_some(total.last_delivery),
        completed,
        deadlock,
        cycle_s,
        link_utilisation,
        message_done_cycles,
    })
}

/// A load sweep of one pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepReport {
    pub points: Vec<FlitReport>,
    /// The first offered load at which less than 95% of it was accepted (`None`: none did).
    pub saturation_load: Option<f64>,
    /// Highest accepted throughput over the sweep (flits/cycle/chip).
    pub peak_accepted: f64,
}

/// Accepted fraction of the offered load below which a point counts as saturated.
pub const SATURATED_BELOW: f64 = 0.95;

/// Runs `pattern` at each load (ascending) on the same network and routing.
pub fn sweep(
    net: &Network,
    routing: &dyn Routing,
    config: &FlitConfig,
    pattern: &Pattern,
    loads: &[f64],
) -> Result<SweepReport> {
    sweep_observed(net, routing, config, pattern, loads, &mut Silent)
}

/// `sweep`, telling `observer` the cycles run over all its points (every point runs
/// `config.rate_cycles()`).
pub fn sweep_observed(
    net: &Network,
    routing: &dyn Routing,
    config: &FlitConfig,
    pattern: &Pattern,
    loads: &[f64],
    observer: &mut dyn Observer,
) -> Result<SweepReport> {
    let mut points = Vec::with_capacity(loads.len());
    let per_point = config.rate_cycles();
    for (i, &load) in loads.iter().enumerate() {
        let traffic = Traffic::Rate {
            pattern: pattern.clone(),
            load,
        };
        let mut part = Part {
            inner: &mut *observer,
            before: i as u64 * per_point,
            whole: Some(loads.len() as u64 * per_point),
        };
        points.push(simulate_observed(
            net, routing, config, &traffic, &mut part,
        )?);
    }
    let saturation_load = points
        .iter()
        .find(|p| p.accepted < SATURATED_BELOW * p.offered)
        .map(|p| p.offered);
    let peak_accepted = points.iter().map(|p| p.accepted).fold(0.0, f64::max);
    Ok(SweepReport {
        points,
        saturation_load,
        peak_accepted,
    })
}
