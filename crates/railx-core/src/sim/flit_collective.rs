//! A collective schedule on the flit-level simulator: the system's seconds and bytes mapped onto
//! cycles and flits, so the flit level answers in the same units as the analytic model and the flow
//! level (docs/collectives.md, Flit level; issue 8's cross-fidelity checks).
//!
//! - **Cycle**: `flit_bytes` over the slowest link's bandwidth (on RailX the external port), the
//!   simulator's own time base: such a link carries one flit per cycle, a mesh link of k times
//!   its bandwidth k flits per cycle.
//! - **Latency**: mesh links take `round(alpha_in / cycle)` cycles, every other link
//!   `round(alpha_out / cycle)` (at least 1), from the network's link latencies.
//! - **Buffers** cover the credit round trip of the slowest-to-return link (twice its latency
//!   plus the router delay, at its rate), as links are provisioned in practice, so a lone stream
//!   runs at its link's full rate and flow control only bites under contention.
//! - **Injection**: a chip may inject as fast as all its outgoing links together carry (the
//!   flow level has no injection limit; collectives use several links of a chip at once), and
//!   the messages it has to send leave side by side (a queue per message), as the flow level
//!   shares a chip's links among them.
//! - **Multicast** (SiPCO's WSS broadcasts): lowered to one unicast copy per destination, so the
//!   source's link carries the data once per destination instead of once (the flit model has no
//!   replication inside a switch). This over-counts the source link: a multicast step whose
//!   bottleneck is the receivers' links (as in SiPCO, where every CU receives r - 1 chunks and
//!   sends one) keeps its time, others are slower than at flow level, the reference for
//!   multicast.
//! - **VCs**: up to `VCS_PER_CLASS` physical VCs behind each VC the routing function names
//!   (within the simulator's 64 per port), so that messages sharing a link's input buffer rarely
//!   block one another's way out: max-min sharing, which the flow level assumes, needs that.

use crate::collectives::{build, counts, Group};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::progress::{Observer, Silent};
use crate::resources::{require, Driver, Estimate};
use crate::routing::Routing;
use crate::sim::dag::MessageDag;
use crate::sim::flit::config::MAX_VCS;
use crate::sim::flit::{
    cycle_s, run_estimate, simulate_observed, FlitConfig, FlitReport, InjectionQueues, Traffic,
    FLIT_STEPS,
};
use crate::sim::flow::collective::CollectiveSpec;

/// Default bytes per flit: a 300 ns hop is then 117 cycles of 2.56 ns at 100 GB/s and a 10 ns
/// mesh hop 4, so both latencies keep their size to within 3%, while a 1 MB message is only
/// 4,096 flits (smaller flits multiply the cycles, larger ones round the latencies away).
pub const DEFAULT_FLIT_BYTES: u32 = 256;

/// Physical VCs behind each routing VC class at flit level (module docs): with 8, the all-reduce
/// schedules on 2x2 to 4x4 tori of meshes come within 7% of the flow level; with 1 (the routing
/// function's VCs only) head-of-line blocking adds up to 20% (docs/collectives.md).
pub const VCS_PER_CLASS: u32 = 8;

/// Most cycles a run may take before it is reported incomplete.
const MAX_CYCLES: u64 = 1 << 34;

/// Refuses a flit-level collective beyond the resource budget: its messages (the DAG, its
/// unicast copies and the run's state) grow with the chunks, its flits with the size, and the
/// cycles it must at least run with the reduction delay of one message.
fn require_collective(
    net: &Network,
    routing: &dyn Routing,
    spec: &CollectiveSpec,
    config: &FlitConfig,
    messages: f64,
    bytes: f64,
) -> Result<Estimate> {
    let cycle_s = cycle_s(net, config.flit_bytes);
    let message_bytes = bytes / messages.max(1.0);
    let vcs = routing.vcs() as u64 * config.vcs_per_class as u64;
    let drivers = [
        Driver::new("size", spec.size_bytes, 1),
        Driver::new("chunks", spec.chunks as u64, 1),
        Driver::real("reduce_s_per_byte", spec.reduce_s_per_byte),
    ];
    require("this flit-level collective", &drivers, |v| {
        let (size, chunks) = (
            v[0] / spec.size_bytes.max(1) as f64,
            v[1] / spec.chunks as f64,
        );
        let messages = messages * chunks;
        let delay_cycles = v[2] * message_bytes * size / chunks / cycle_s;
        let run = run_estimate(
            net.vertices() as u64,
            net.links() as u64,
            vcs,
            0.0,
            0,
            messages,
            0.0,
            delay_cycles,
        );
        let flits = bytes * size / config.flit_bytes as f64;
        Estimate::new(
            run.bytes + messages * MessageDag::BYTES_PER_MESSAGE,
            run.work + flits * FLIT_STEPS,
        )
    })
}

/// A refusal by the resource budget also names the flow level, which runs the same schedule at
/// any scale (the flit level's cost grows with the chips, the messages and the flits).
fn suggest_flow_level(refusal: RailxError) -> RailxError {
    match refusal {
        RailxError::Invalid {
            field,
            value,
            rule,
            hint,
        } => RailxError::Invalid {
            field,
            value,
            rule,
            hint: format!(
                "{hint}; or use --fidelity flow (exact, and aggregated at any scale on a torus)"
            ),
        },
        other => other,
    }
}

/// A flit-level run of a collective, with its time in seconds.
#[derive(Debug, Clone)]
pub struct FlitCollectiveRun {
    pub report: FlitReport,
    /// Cycles until the last message arrived.
    pub cycles: u64,
    pub cycle_s: f64,
    /// `cycles * cycle_s`.
    pub time_s: f64,
}

/// The simulator settings that map `net` onto cycles of `flit_bytes`, for a routing function
/// with `routing_vcs` VCs (module docs).
#[allow(non_snake_case)]
pub fn flit_config(net: &Network, flit_bytes: u32, routing_vcs: u8) -> Result<FlitConfig> {
    crate::error::require_positive("flit_bytes", flit_bytes, "e.g. 256")?;
    let slowest_Bps = net
        .bandwidth_Bps
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    if net.links() == 0 || !(slowest_Bps.is_finite() && slowest_Bps > 0.0) {
        return Err(RailxError::invalid(
            "network",
            format!("{} links", net.links()),
            "the flit level needs links of positive bandwidth",
            "simulate a connected system",
        ));
    }
    let cycle_s = flit_bytes as f64 / slowest_Bps;
    let longest_s = |intra: bool| {
        (0..net.links())
            .filter(|&l| (net.class[l] == LinkClass::IntraNode) == intra)
            .map(|l| net.latency_s[l])
            .fold(0.0, f64::max)
    };
    let cycles_of = |s: f64| ((s / cycle_s).round() as u32).max(1);
    let defaults = FlitConfig::default();
    let (short, long) = (cycles_of(longest_s(true)), cycles_of(longest_s(false)));
    let round_trip_flits = (0..net.links())
        .map(|l| {
            let latency = if net.class[l] == LinkClass::IntraNode {
                short
            } else {
                long
            };
            let rate = net.bandwidth_Bps[l] / slowest_Bps;
            ((2 * latency + defaults.router_delay_cycles + 2) as f64 * rate).ceil() as u32
        })
        .max()
        .unwrap_or(0);
    let packet = defaults.packet_flits;
    let mut out_flits_per_cycle = vec![0.0; net.vertices() as usize];
    for l in 0..net.links() {
        out_flits_per_cycle[net.src[l] as usize] += net.bandwidth_Bps[l] / slowest_Bps;
    }
    let injection = out_flits_per_cycle.iter().copied().fold(1.0, f64::max);
    Ok(FlitConfig {
        flit_bytes,
        short_latency_cycles: short,
        long_latency_cycles: long,
        buffer_flits: round_trip_flits.div_ceil(packet).max(4) * packet,
        injection_flits_per_cycle: injection,
        max_cycles: MAX_CYCLES,
        vcs_per_class: (MAX_VCS as u32 / routing_vcs.max(1) as u32).clamp(1, VCS_PER_CLASS),
        injection_queues: InjectionQueues::PerMessage,
        ..defaults
    })
}

/// Runs the collective `spec` over `group` on `net` routed by `routing` at flit level, with
/// flits of `flit_bytes`; refuses runs beyond the resource budget.
pub fn simulate_collective_flit(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    flit_bytes: u32,
) -> Result<FlitCollectiveRun> {
    simulate_collective_flit_observed(net, routing, group, spec, flit_bytes, &mut Silent)
}

/// `simulate_collective_flit`, telling `observer` the messages delivered
/// (`crate::progress`).
pub fn simulate_collective_flit_observed(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    flit_bytes: u32,
    observer: &mut dyn Observer,
) -> Result<FlitCollectiveRun> {
    let config = flit_config(net, flit_bytes, routing.vcs())?;
    simulate_collective_flit_with(net, routing, group, spec, &config, observer)
}

/// `simulate_collective_flit` with the simulator settings given (e.g. `flit_config`'s with some
/// changed, to see which router resource a schedule's flit-level time depends on), telling
/// `observer` the messages delivered.
pub fn simulate_collective_flit_with(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    spec: &CollectiveSpec,
    config: &FlitConfig,
    observer: &mut dyn Observer,
) -> Result<FlitCollectiveRun> {
    let c = counts(spec.op, spec.algo, group, spec.size_bytes, spec.chunks)?;
    require_collective(net, routing, spec, config, c.messages as f64, c.bytes)
        .map_err(suggest_flow_level)?;
    let dag = build(spec.op, spec.algo, group, spec.size_bytes, spec.chunks)?
        .to_dag(spec.reduce_s_per_byte)?
        .unicast_copies();
    let report = simulate_observed(net, routing, config, &Traffic::Dag(dag), observer)?;
    let cycles = match (report.completed, report.completion_cycles) {
        (true, Some(c)) => c,
        _ => {
            return Err(RailxError::invalid(
                "flit run",
                if report.deadlock.is_some() {
                    "deadlock"
                } else {
                    "incomplete"
                },
                format!("the collective did not complete within {MAX_CYCLES} cycles"),
                "use a deadlock-free routing (dateline on tori) or --fidelity flow",
            ))
        }
    };
    let cycle_s = report.cycle_s;
    Ok(FlitCollectiveRun {
        report,
        cycles,
        cycle_s,
        time_s: cycles as f64 * cycle_s,
    })
}
