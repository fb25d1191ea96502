//! The flit-level simulator against closed forms and invariants: zero-load latency hop by hop,
//! accepted = offered below saturation, saturation at the DOR channel-load bound on a torus and
//! a mesh, flit conservation, determinism across thread counts, the watchdog's deadlock report,
//! message DAGs, the finite all-to-all, and bad input.

mod common;

use common::{preset, system, SingleVc};
use railx_core::network::{LinkClass, Network};
use railx_core::peers::fat_tree::Clos;
use railx_core::peers::PeerSpec;
use railx_core::plan::realize;
use railx_core::plant::Axis;
use railx_core::routing::analysis::{all_to_all_link_load, route};
use railx_core::routing::peer::for_peer;
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::routing::{Hop, LinkEnds, RouteState, Routing, NO_LINK};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flit::{
    simulate, sweep, Ejection, FlitConfig, FlitReport, FlowControl, InjectionQueues, InputPace,
    LinkLatency, Pattern, SwitchAllocation, Traffic, TrafficSpec, VcAllocation,
};
use railx_core::spec::Preset;

fn torus(k: u32) -> (Network, Box<dyn Routing>) {
    torus_routed(k, "dateline")
}

/// A k x k torus of chips with the torus routing function `name`.
fn torus_routed(k: u32, name: &str) -> (Network, Box<dyn Routing>) {
    let spec: PeerSpec = serde_json::from_str(&format!(
        r#"{{"family": "torus3d", "dims": [{k}, {k}, 1], "ports_per_direction": 1}}"#
    ))
    .unwrap();
    let net = spec.network().unwrap();
    let routing = for_peer(&spec, &net, Some(name)).unwrap();
    (net, routing)
}

fn quick() -> FlitConfig {
    FlitConfig {
        warmup_cycles: 1000,
        measure_cycles: 3000,
        ..FlitConfig::default()
    }
}

/// The router models over `base`: packet allocation (1 and 3 VCs per class, crossbar speedup 3
/// into 12-flit output queues), flit allocation (1 and 3 VCs per class), and wormhole with VC
/// buffers smaller than a packet.
fn routers(base: FlitConfig) -> Vec<FlitConfig> {
    let cnsim = FlitConfig {
        injection_flits_per_cycle: base.injection_flits_per_cycle,
        warmup_cycles: base.warmup_cycles,
        measure_cycles: base.measure_cycles,
        seed: base.seed,
        ..FlitConfig::cnsim()
    };
    let flit = FlitConfig {
        switch_allocation: SwitchAllocation::Flit,
        ..base.clone()
    };
    vec![
        base.clone(),
        FlitConfig {
            vcs_per_class: 3,
            ..base.clone()
        },
        FlitConfig {
            vcs_per_class: 2,
            switch_speedup: 3,
            output_buffer_flits: 12,
            ..base
        },
        flit.clone(),
        FlitConfig {
            vcs_per_class: 3,
            ..flit.clone()
        },
        FlitConfig {
            flow_control: FlowControl::Wormhole,
            buffer_flits: 2,
            ..flit
        },
        // CNSim's router (one stage, oldest first, latency on the head alone, no source FIFO)
        // with VCs allocated with the switch, with its VC allocation ahead of the switch alone,
        // and as the preset has it (its input ports held at the output's pace too).
        FlitConfig {
            vc_allocation: VcAllocation::WithSwitch,
            input_pace: InputPace::Link,
            ..cnsim.clone()
        },
        FlitConfig {
            input_pace: InputPace::Link,
            ..cnsim.clone()
        },
        cnsim,
    ]
}

fn uniform(load: f64) -> Traffic {
    Traffic::Rate {
        pattern: Pattern::Uniform,
        load,
    }
}

fn run(net: &Network, routing: &dyn Routing, config: &FlitConfig, traffic: &Traffic) -> FlitReport {
    simulate(net, routing, config, traffic).unwrap_or_else(|e| panic!("{e}"))
}

/// One single-packet message per ordered pair, each waiting for the previous one, so every
/// message crosses an empty network.
fn pairs_chain(chips: &[u32], bytes: u64) -> (MessageDag, Vec<(u32, u32)>) {
    let mut dag = MessageDag::new();
    let mut pairs = Vec::new();
    for &s in chips {
        for &d in chips {
            if s != d {
                let after: Vec<u32> = dag.len().checked_sub(1).into_iter().collect();
                dag.push(s, d, bytes, 0.0, &after).unwrap();
                pairs.push((s, d));
            }
        }
    }
    (dag, pairs)
}

/// The model's zero-load timing of one packet, hop by hop: it may leave its source after
/// `router_delay` and its packetization; the head leaves `router_delay` after reaching a router,
/// takes one flit time on the wire plus the latency; the tail follows at the slowest rate so far,
/// the link's latency after it (none when the latency delays the head alone); ejection takes the
/// packet at the ejection rate, or, on arrival, it is done in the cycle its head would be routed
/// at the destination once its tail is in.
fn zero_load(hops: &[(f64, u32)], config: &FlitConfig) -> u64 {
    let (flits, r) = (
        config.packet_flits as f64,
        config.router_delay_cycles as f64,
    );
    let (mut start, mut tail) = (r + config.packetization_cycles as f64, 0.0f64);
    for &(rate, latency) in hops {
        let end = (start + flits / rate).max(tail + 1.0 / rate);
        let head = (start + 1.0 / rate).ceil() + latency as f64;
        tail = match config.link_latency {
            LinkLatency::Flits => end + latency as f64,
            LinkLatency::Head => end,
        };
        start = head + r;
    }
    let eject = config.injection_flits_per_cycle;
    match config.ejection {
        Ejection::Port => (start + flits / eject).max(tail + 1.0 / eject).ceil() as u64,
        Ejection::OnArrival => (start - r).max(tail.ceil()) as u64,
    }
}

/// Checks every message's latency in an empty network against `zero_load`.
fn check_zero_load(net: &Network, routing: &dyn Routing, config: &FlitConfig) {
    let base = net
        .bandwidth_Bps
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let bytes = (config.packet_flits * config.flit_bytes) as u64;
    let (dag, pairs) = pairs_chain(routing.chips(), bytes);
    let report = run(net, routing, config, &Traffic::Dag(dag));
    assert!(report.completed);
    let mut previous_done = None::<u64>;
    for (i, &(s, d)) in pairs.iter().enumerate() {
        let hops: Vec<(f64, u32)> = route(routing, s, d)
            .unwrap()
            .iter()
            .map(|h| {
                let link = h.link as usize;
                let latency = match net.class[link] {
                    LinkClass::IntraNode => config.short_latency_cycles,
                    _ => config.long_latency_cycles,
                };
                (net.bandwidth_Bps[link] / base, latency)
            })
            .collect();
        let done = report.message_done_cycles[i];
        // A message starts the cycle after the one it waits for has arrived.
        let latency = done - previous_done.map_or(0, |p| p + 1);
        assert_eq!(latency, zero_load(&hops, config), "message {i}: {s} -> {d}");
        previous_done = Some(done);
    }
}

#[test]
fn zero_load_latency_is_the_sum_of_router_and_link_delays_on_a_torus() {
    // 4 x 4 torus of 2 x 2 boards: board links 1 cycle, copper and optical links 10 cycles.
    let (net, routing) = torus(4);
    let config = FlitConfig::default();
    check_zero_load(&net, &*routing, &config);
    // Physical VCs per class, and a crossbar speedup with output queues, change nothing in an
    // empty network: a packet crosses the switch as its link starts to send it.
    check_zero_load(
        &net,
        &*routing,
        &FlitConfig {
            vcs_per_class: 4,
            ..config.clone()
        },
    );
    check_zero_load(
        &net,
        &*routing,
        &FlitConfig {
            switch_speedup: 2,
            ..config.clone()
        },
    );
    // Flits allocated one by one follow their head back to back in an empty network, under
    // cut-through or wormhole.
    for flow_control in [FlowControl::CutThrough, FlowControl::Wormhole] {
        check_zero_load(
            &net,
            &*routing,
            &FlitConfig {
                switch_allocation: SwitchAllocation::Flit,
                flow_control,
                ..config.clone()
            },
        );
    }
    // With one flit/cycle everywhere the closed form is r + sum over hops (1 + latency + r) + L.
    let (s, d) = (0, 10);
    let path = route(&*routing, s, d).unwrap();
    let sum: u64 = path
        .iter()
        .map(|h| {
            let l = if net.class[h.link as usize] == LinkClass::IntraNode {
                1
            } else {
                10
            };
            1 + l + 1
        })
        .sum();
    let hops: Vec<(f64, u32)> = path
        .iter()
        .map(|h| {
            (
                1.0,
                if net.class[h.link as usize] == LinkClass::IntraNode {
                    1
                } else {
                    10
                },
            )
        })
        .collect();
    assert_eq!(zero_load(&hops, &config), 1 + sum + 4);
}

#[test]
fn zero_load_latency_with_fast_intra_node_links_on_railx() {
    // RailX 3 x 3 HyperX of 2 x 2-chip nodes, intra-node links 2 flits/cycle (k = 2).
    let r = realize(&preset(system(2, 1, 8, [3, 3]), Preset::Hyperx)).unwrap();
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
    let config = FlitConfig {
        injection_flits_per_cycle: 4.0,
        ..FlitConfig::default()
    };
    check_zero_load(&r.network, &routing, &config);
}

/// The `cnsim` preset on a RailX HyperX (`phased` routing, mesh links 2 flits/cycle): every
/// message's zero-load latency hop by hop, and the closed form CNSim's timing gives — 2 cycles of
/// packetization, then each hop its latency plus the cycle its router routes it — where the tail
/// never trails the head (every path ending on a rail link, or on a mesh link of 2 flits/cycle:
/// its 4 flits sent in the 2 cycles the head takes); through an ejection port, one cycle more.
#[test]
fn cnsim_preset_zero_load_latency_is_the_hop_by_hop_sum() {
    let r = realize(&preset(system(2, 1, 8, [3, 3]), Preset::Hyperx)).unwrap();
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Phased).unwrap();
    let config = FlitConfig {
        injection_flits_per_cycle: 4.0,
        ..FlitConfig::cnsim()
    };
    check_zero_load(&r.network, &routing, &config);
    // A lone packet takes its VC ahead of the switch in the cycle it would take it with the
    // switch, and holds its input port no longer than it takes to leave: the same latency with
    // VCs allocated with the switch and input ports read at their link's rate.
    check_zero_load(
        &r.network,
        &routing,
        &FlitConfig {
            vc_allocation: VcAllocation::WithSwitch,
            input_pace: InputPace::Link,
            ..config.clone()
        },
    );
    for (s, d) in [(0, 5), (3, 30), (7, 33), (12, 13)] {
        let hops: Vec<(f64, u32)> = route(&routing, s, d)
            .unwrap()
            .iter()
            .map(|h| match r.network.class[h.link as usize] {
                LinkClass::IntraNode => (2.0, 1),
                _ => (1.0, 10),
            })
            .collect();
        let sum: u64 = hops.iter().map(|&(_, l)| l as u64 + 1).sum();
        assert_eq!(zero_load(&hops, &config), 2 + sum, "{s} -> {d}");
        let port = FlitConfig {
            ejection: Ejection::Port,
            ..config.clone()
        };
        assert_eq!(zero_load(&hops, &port), 2 + sum + 1, "{s} -> {d}");
    }
    check_zero_load(
        &r.network,
        &routing,
        &FlitConfig {
            ejection: Ejection::Port,
            ..config
        },
    );
}

/// A packet ending at the next chip is, on arrival (CNSim's destination buffer), never queued
/// there: it does not wait behind the packet ahead of it in its VC. On a row of chips 0 - 1 - 2
/// (1 flit/cycle, 1-cycle links), chip 1 streams 16 packets to chip 2, created first and so
/// winning link 1 -> 2 until cycle 2 + 64. Chip 0 then sends a packet on to chip 2 and one to
/// chip 1, which reaches chip 1 behind it in the same VC. On arrival it is done 10 cycles after
/// its creation: 2 of packetization, 4 behind the first packet on link 0 -> 1, its 4 flits sent
/// (the head in 1 + 1 cycles, the tail last). Through the ejection port it waits until the
/// packet ahead has left, after the stream.
#[test]
fn on_arrival_a_packet_does_not_wait_behind_the_packet_ahead_of_it() {
    let (net, routing) = mesh(3);
    let mut dag = MessageDag::new();
    let stream = dag.push(1, 2, 16 * 4 * 64, 0.0, &[]).unwrap();
    // Sent from chip 6 to 7, away from the others: chip 0's two packets start after it.
    let first = dag.push(6, 7, 4 * 64, 0.0, &[]).unwrap();
    let on = dag.push(0, 2, 4 * 64, 0.0, &[first]).unwrap();
    let behind = dag.push(0, 1, 4 * 64, 0.0, &[first]).unwrap();
    let cnsim = FlitConfig {
        injection_flits_per_cycle: 4.0,
        ..FlitConfig::cnsim()
    };
    assert_eq!(cnsim.ejection, Ejection::OnArrival);
    let report = run(&net, &routing, &cnsim, &Traffic::Dag(dag.clone()));
    let done = &report.message_done_cycles;
    assert_eq!(done[stream as usize], 2 + 64, "{done:?}");
    assert!(done[on as usize] > done[stream as usize], "{done:?}");
    assert_eq!(
        done[behind as usize],
        done[first as usize] + 1 + 10,
        "{done:?}"
    );
    let port = FlitConfig {
        ejection: Ejection::Port,
        ..cnsim
    };
    let done = run(&net, &routing, &port, &Traffic::Dag(dag)).message_done_cycles;
    assert!(done[behind as usize] > 2 + 64, "{done:?}");
}

#[test]
fn accepted_equals_offered_below_saturation() {
    let (net, routing) = torus(8);
    let report = run(&net, &*routing, &quick(), &uniform(0.3));
    assert!((report.offered - 0.3).abs() < 0.02, "{}", report.offered);
    assert!(
        (report.accepted - report.offered).abs() < 0.01 * report.offered,
        "{report:?}"
    );
    assert!(report.completed && report.deadlock.is_none());
}

/// A 2D mesh of k x k chips (one-cycle links) with XY routing on one VC.
struct MeshXy {
    k: u32,
    chips: Vec<u32>,
    ends: LinkEnds,
    link: Vec<[u32; 4]>,
}

fn mesh(k: u32) -> (Network, MeshXy) {
    let mut net = Network::with_capacity(None, k * k, 0);
    let mut link = vec![[NO_LINK; 4]; (k * k) as usize];
    for c in 0..k * k {
        let (x, y) = (c % k, c / k);
        for (dir, ok, next) in [
            (0, x + 1 < k, c + 1),
            (1, x > 0, c.wrapping_sub(1)),
            (2, y + 1 < k, c + k),
            (3, y > 0, c.wrapping_sub(k)),
        ] {
            if ok {
                link[c as usize][dir] = net.links() as u32;
                net.push_link(c, next, LinkClass::IntraNode, 50e9, 1e-9, Axis::X, u32::MAX);
            }
        }
    }
    let ends = LinkEnds::of(&net, |_| false);
    (
        net,
        MeshXy {
            k,
            chips: (0..k * k).collect(),
            ends,
            link,
        },
    )
}

impl Routing for MeshXy {
    fn name(&self) -> &'static str {
        "xy"
    }
    fn vcs(&self) -> u8 {
        1
    }
    fn chips(&self) -> &[u32] {
        &self.chips
    }
    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        let (x, y, dx, dy) = (chip % self.k, chip / self.k, dst % self.k, dst / self.k);
        let dir = if dx > x {
            0
        } else if dx < x {
            1
        } else if dy > y {
            2
        } else if dy < y {
            3
        } else {
            return;
        };
        out.push(Hop {
            link: self.link[chip as usize][dir],
            vc: 0,
            state: *state,
        });
    }
    fn links(&self) -> &LinkEnds {
        &self.ends
    }
}

/// XY routing on a mesh with every hop list altered by `fault`: a routing function that breaks
/// its contract.
struct Faulty {
    xy: MeshXy,
    fault: Fault,
}

type Fault = fn(&mut Vec<Hop>);

impl Routing for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
    }
    fn vcs(&self) -> u8 {
        1
    }
    fn chips(&self) -> &[u32] {
        &self.xy.chips
    }
    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        self.xy.next_hops(chip, dst, state, out);
        (self.fault)(out);
    }
    fn links(&self) -> &LinkEnds {
        &self.xy.ends
    }
}

/// A routing function that offers a link leaving another chip (one numbered below the chip's
/// own and one above), a VC beyond its count, or no hop at all, stops the run with a
/// verification error naming it.
#[test]
fn a_routing_that_breaks_its_contract_is_a_verification_error() {
    let cases: [(Fault, &str); 4] = [
        (
            |h| h[0].link = 0,
            "offers link 0 on VC 0, which does not leave",
        ),
        // The 3 x 3 mesh's last link.
        (
            |h| h[0].link = 23,
            "offers link 23 on VC 0, which does not leave",
        ),
        (
            |h| h[0].vc = 1,
            "on VC 1, which does not leave this vertex or exceeds its 1 VCs",
        ),
        (
            |h| h.clear(),
            "offers no next hop at vertex 4 toward chip 5",
        ),
    ];
    let mut dag = MessageDag::new();
    // From the middle chip, whose links are neither the first nor the last.
    dag.push(4, 5, 64, 0.0, &[]).unwrap();
    for (fault, message) in cases {
        let (net, xy) = mesh(3);
        let routing = Faulty { xy, fault };
        let err = simulate(&net, &routing, &quick(), &Traffic::Dag(dag.clone())).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("routing faulty") && text.contains(message),
            "{text}"
        );
    }
}

/// The saturation throughput of uniform traffic (the peak accepted over a load sweep up to
/// 1.2x the bound, the torus collapsing beyond its peak) is at least `efficiency` of the DOR
/// channel-load bound and at most 3% above it: past saturation, chips whose packets avoid the
/// bottleneck channels drain their source queues faster, so the mean accepted may pass the
/// bound of equal rates slightly (the mesh, by 1%).
fn check_saturation_at_bound(
    net: &Network,
    routing: &dyn Routing,
    config: &FlitConfig,
    efficiency: f64,
) {
    let load = all_to_all_link_load(routing, net.links()).unwrap();
    let bound = 1.0 / load.iter().copied().fold(0.0, f64::max);
    let loads: Vec<f64> = (6..=12)
        .map(|tenths| tenths as f64 / 10.0 * bound)
        .collect();
    let report = sweep(net, routing, config, &Pattern::Uniform, &loads).unwrap();
    let ratio = report.peak_accepted / bound;
    assert!(
        ratio <= 1.03 && ratio >= efficiency,
        "peak accepted {} vs bound {bound} ({ratio:.3})",
        report.peak_accepted
    );
}

/// A combined input-output queued router: crossbar speedup 2 into 64-flit output queues, deep
/// VCs, 8 allocator rounds.
fn cioq(vcs_per_class: u32) -> FlitConfig {
    FlitConfig {
        long_latency_cycles: 1,
        vcs_per_class,
        buffer_flits: 64,
        alloc_iterations: 8,
        switch_speedup: 2,
        output_buffer_flits: 64,
        injection_flits_per_cycle: 4.0,
        ..quick()
    }
}

#[test]
fn uniform_saturation_on_a_torus_is_within_3_percent_of_the_dor_channel_load_bound() {
    // A router with crossbar speedup 2 (output queues) reaches 0.977 of the bound (the mesh 1.009).
    let (net, routing) = torus(8);
    check_saturation_at_bound(&net, &*routing, &cioq(8), 0.97);
}

#[test]
fn uniform_saturation_on_a_mesh_is_within_3_percent_of_the_dor_channel_load_bound() {
    let (net, routing) = mesh(8);
    check_saturation_at_bound(&net, &routing, &cioq(4), 0.97);
}

#[test]
fn an_input_queued_router_saturates_below_the_dor_channel_load_bound() {
    // Without speedup an input waits while its packet's output is busy and the separable
    // allocator's matching leaves outputs idle: with 8 VCs per dateline class the torus peaks at
    // 84% of the bound (about 60% with the routing's 2 VCs, as BookSim2's 0.13 of 0.222 on
    // 36 x 36), the mesh with 4 per class at 90%.
    let input_queued = |vcs_per_class| FlitConfig {
        long_latency_cycles: 1,
        vcs_per_class,
        alloc_iterations: 3,
        injection_flits_per_cycle: 4.0,
        ..quick()
    };
    let (net, routing) = torus(8);
    check_saturation_at_bound(&net, &*routing, &input_queued(8), 0.82);
    let (net, routing) = mesh(8);
    check_saturation_at_bound(&net, &routing, &input_queued(4), 0.88);
}

#[test]
fn more_vcs_per_class_never_lower_saturation_throughput_on_a_torus() {
    // Beyond saturation (uniform at 1.25 x the DOR channel-load bound of an 8 x 8 torus with
    // 1-cycle links), more interchangeable VCs per class relieve head-of-line blocking and can
    // only raise what is accepted, never above the bound.
    let (net, routing) = torus(8);
    let load = all_to_all_link_load(&*routing, net.links()).unwrap();
    let bound = 1.0 / load.iter().copied().fold(0.0, f64::max);
    let accepted: Vec<f64> = [1, 2, 4, 8]
        .iter()
        .map(|&vcs_per_class| {
            let config = FlitConfig {
                long_latency_cycles: 1,
                injection_flits_per_cycle: 4.0,
                vcs_per_class,
                ..quick()
            };
            run(&net, &*routing, &config, &uniform(1.25 * bound)).accepted
        })
        .collect();
    for pair in accepted.windows(2) {
        assert!(pair[1] >= pair[0], "{accepted:?}");
    }
    assert!(
        accepted[3] <= 1.01 * bound && accepted[3] > accepted[0],
        "{accepted:?} vs bound {bound}"
    );
}

#[test]
fn flits_are_conserved_and_buffers_never_overflow_under_overload() {
    let (net, routing) = torus(8);
    let base = FlitConfig {
        injection_flits_per_cycle: 4.0,
        ..quick()
    };
    for config in routers(base) {
        let report = run(&net, &*routing, &config, &uniform(2.0));
        assert!(report.flits_in_flight > 0);
        assert_eq!(
            report.flits_injected,
            report.flits_delivered + report.flits_in_flight
        );
        assert!(report.max_buffer_flits <= config.buffer_flits && report.max_buffer_flits > 0);
        assert!(report.accepted < report.offered);
        assert!(report.max_link_utilisation <= 1.0 + 1e-9);
        assert_eq!(
            report.vcs as u32,
            routing.vcs() as u32 * config.vcs_per_class
        );
    }
}

#[test]
fn results_are_identical_for_any_thread_count() {
    let r = realize(&preset(system(2, 1, 8, [3, 3]), Preset::Hyperx)).unwrap();
    let adaptive = RailxRouting::new(
        &r.network,
        &r.system.regions[0],
        Scheme::Adaptive { misroutes: 1 },
    )
    .unwrap();
    let (net, dor) = torus(8);
    let cases: [(&Network, &dyn Routing, f64); 2] =
        [(&r.network, &adaptive, 1.5), (&net, &*dor, 0.6)];
    let base = FlitConfig {
        injection_flits_per_cycle: 4.0,
        warmup_cycles: 300,
        measure_cycles: 700,
        seed: 11,
        ..FlitConfig::default()
    };
    for ((net, routing, load), base) in cases
        .into_iter()
        .flat_map(|c| routers(base.clone()).into_iter().map(move |r| (c, r)))
    {
        let reports: Vec<FlitReport> = [1, 2, 4]
            .iter()
            .map(|&threads| {
                let mut r = run(
                    net,
                    routing,
                    &FlitConfig {
                        threads,
                        ..base.clone()
                    },
                    &uniform(load),
                );
                r.threads = 0;
                r
            })
            .collect();
        assert!(reports[0].flits_delivered > 0);
        assert_eq!(reports[0], reports[1]);
        assert_eq!(reports[0], reports[2]);
    }
}

#[test]
fn a_torus_without_datelines_deadlocks_and_the_watchdog_reports_the_cycle() {
    let base = FlitConfig {
        watchdog_cycles: 300,
        injection_flits_per_cycle: 4.0,
        long_latency_cycles: 1,
        ..quick()
    };
    for config in routers(base) {
        torus_without_datelines_deadlocks(config);
    }
}

fn torus_without_datelines_deadlocks(config: FlitConfig) {
    let (net, routing) = torus(8);
    let single = SingleVc(&*routing);
    let report = run(&net, &single, &config, &uniform(2.0));
    assert!(!report.completed);
    let deadlock = report.deadlock.expect("the watchdog fires");
    assert!(deadlock.stalled_cycles >= 300 && deadlock.detected_at < config.rate_cycles());
    let cycle = deadlock.channels;
    assert!(cycle.len() >= 2, "{cycle:?}");
    for pair in cycle.windows(2) {
        assert_eq!(pair[0].to_chip, pair[1].from_chip);
    }
    assert_eq!(cycle[cycle.len() - 1].to_chip, cycle[0].from_chip);
    // With datelines (either scheme) the same load runs to the end.
    for name in ["dateline", "dateline-partition"] {
        let (net, routing) = torus_routed(8, name);
        let report = run(&net, &*routing, &config, &uniform(2.0));
        assert!(report.completed && report.deadlock.is_none(), "{name}");
    }
}

/// BookSim2's router (`FlitConfig::booksim2_router`) and railx's packet router with BookSim2's
/// timing (`FlitConfig::booksim2_timing`), each with BookSim2's routing (`dateline-partition`), on
/// the torus as issue 7's reference configured it (2 VCs of 16 flits, 4-flit packets, 1-cycle
/// links, injection 1 flit/cycle from one source FIFO): at the two loads BookSim2 reports for the
/// 36 x 36 torus, accepted 0.130 at offered 0.13 (all of it) and a collapse below 0.11 at 0.16
/// (BookSim2: 0.074): saturation between the two, as BookSim2's.
#[test]
fn booksim2_configured_torus_saturates_between_its_two_reported_loads() {
    let (net, routing) = torus_routed(36, "dateline-partition");
    for (name, router) in [
        ("booksim2_router", FlitConfig::booksim2_router()),
        ("booksim2_timing", FlitConfig::booksim2_timing()),
    ] {
        let config = FlitConfig {
            long_latency_cycles: 1,
            injection_flits_per_cycle: 1.0,
            warmup_cycles: 2000,
            measure_cycles: 3000,
            threads: 2,
            ..router
        };
        let at_013 = run(&net, &*routing, &config, &uniform(0.13));
        assert!(
            (at_013.accepted - 0.13).abs() < 0.002,
            "{name}: {}",
            at_013.accepted
        );
        let at_016 = run(&net, &*routing, &config, &uniform(0.16));
        assert!(at_016.accepted < 0.11, "{name}: {}", at_016.accepted);
    }
}

#[test]
fn dag_messages_wait_for_their_dependencies_and_delay() {
    let (net, routing) = torus(4);
    let config = FlitConfig::default();
    let cycle_s = config.flit_bytes as f64 / 50e9;
    let mut dag = MessageDag::new();
    let a = dag.push(0, 5, 256, 0.0, &[]).unwrap();
    let b = dag.push(5, 0, 256, 7.0 * cycle_s, &[a]).unwrap();
    dag.push(3, 0, 64 * 10, 0.0, &[]).unwrap();
    let both = run(&net, &*routing, &config, &Traffic::Dag(dag.clone()));
    let done = &both.message_done_cycles;
    let mut alone = MessageDag::new();
    alone.push(5, 0, 256, 0.0, &[]).unwrap();
    let single = run(&net, &*routing, &config, &Traffic::Dag(alone));
    // b starts 7 cycles after a arrived (its delay), then takes its zero-load time.
    assert_eq!(
        done[b as usize],
        done[a as usize] + 7 + single.message_done_cycles[0]
    );
    assert_eq!(both.flits_delivered, 4 + 4 + 10);
    assert_eq!(both.completion_cycles, Some(*done.iter().max().unwrap()));
}

#[test]
fn finite_all_to_all_completes_every_pair() {
    let (net, routing) = torus(4);
    let config = FlitConfig {
        injection_flits_per_cycle: 4.0,
        ..FlitConfig::default()
    };
    let report = run(
        &net,
        &*routing,
        &config,
        &Traffic::FiniteAllToAll { flits_per_pair: 8 },
    );
    assert!(report.completed);
    assert_eq!(report.flits_delivered, 16 * 15 * 8);
    // No chip can push its 120 flits faster than its injection bandwidth.
    assert!(report.completion_cycles.unwrap() >= 120 / 4);
}

#[test]
fn bad_input_gets_one_line_errors() {
    let (net, routing) = torus(4);
    let err = |config: &FlitConfig, traffic: &Traffic| {
        let e = simulate(&net, &*routing, config, traffic)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let config = FlitConfig::default();
    // (settings differing from the defaults, offered load, start of the error, a part of it).
    let cases = [
        ("{}", 0.0, "load = 0: ", ""),
        (
            "{}",
            1.5,
            "load = 1.5: the offered load is flits/cycle/chip in (0, 1]",
            "",
        ),
        (r#"{"buffer_flits": 2}"#, 0.1, "buffer_flits = 2: virtual cut-through", ""),
        (r#"{"vcs_per_class": 0}"#, 0.1, "vcs_per_class = 0: ", ""),
        // Dateline on a 2D torus of this model names 6 VCs: 11 per class is 66 > 64.
        (r#"{"vcs_per_class": 11}"#, 0.1, "vcs_per_class = 11: ", "use vcs_per_class <= 10"),
        (r#"{"switch_speedup": 0}"#, 0.1, "switch_speedup = 0: must be in 1..=16", ""),
        (
            r#"{"switch_speedup": 2, "switch_allocation": "flit"}"#,
            0.1,
            "switch_speedup = 2: output queues are modelled with packet switch allocation only",
            "",
        ),
        (
            r#"{"flow_control": "wormhole"}"#,
            0.1,
            "flow_control = wormhole: a packet's flits advance one by one only with flit switch allocation",
            "",
        ),
        (
            r#"{"vc_allocation": "ahead", "switch_allocation": "flit"}"#,
            0.1,
            "vc_allocation = ahead: VC allocation ahead of the switch is modelled with packet",
            "use vc_allocation = with-switch",
        ),
        (
            r#"{"input_pace": "output", "switch_speedup": 2}"#,
            0.1,
            "input_pace = output: an input held at the output's pace is modelled for an \
             input-queued router",
            "use input_pace = link",
        ),
        (
            r#"{"switch_speedup": 2, "output_buffer_flits": 3}"#,
            0.1,
            "output_buffer_flits = 3: ",
            "use output_buffer_flits >= 4",
        ),
        (r#"{"measure_cycles": 35184372088832}"#, 0.5, "cycles = ", ""),
    ];
    for (settings, load, start, part) in cases {
        let config: FlitConfig = serde_json::from_str(settings).unwrap();
        let e = err(&config, &uniform(load));
        assert!(e.starts_with(start) && e.contains(part), "{settings}: {e}");
    }
    let spec: TrafficSpec = serde_json::from_str(r#"{"pattern": "tornado", "load": 0.1}"#).unwrap();
    assert!(spec
        .resolve()
        .unwrap_err()
        .to_string()
        .starts_with("traffic = tornado: unknown traffic pattern"));
    let transpose: TrafficSpec = serde_json::from_str(
        r#"{"pattern": "permutation", "permutation": "bit-complement", "load": 0.1}"#,
    )
    .unwrap();
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [12, 4, 1], "ports_per_direction": 1}"#,
    )
    .unwrap();
    let net6 = spec.network().unwrap();
    let routing6 = for_peer(&spec, &net6, None).unwrap();
    let e = simulate(&net6, &*routing6, &config, &transpose.resolve().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("power-of-two"), "{e}");
}

#[test]
fn the_all_to_all_traffic_is_hyphenated_and_its_old_spelling_still_resolves() {
    let resolve = |json: &str| {
        serde_json::from_str::<TrafficSpec>(json)
            .unwrap()
            .resolve()
            .unwrap()
    };
    for (canonical, legacy, name) in [
        (
            r#"{"pattern": "all-to-all", "load": 0.3}"#,
            r#"{"pattern": "alltoall", "load": 0.3}"#,
            "all-to-all",
        ),
        (
            r#"{"pattern": "all-to-all", "size_flits": 8}"#,
            r#"{"pattern": "alltoall", "size_flits": 8}"#,
            "all-to-all-finite",
        ),
    ] {
        assert_eq!(resolve(canonical), resolve(legacy));
        assert_eq!(resolve(legacy).name(), name);
    }
}

#[test]
fn permutations_and_hotspots_deliver_what_they_offer_at_low_load() {
    let (net, routing) = torus(8);
    for json in [
        r#"{"pattern": "permutation", "permutation": "random", "load": 0.1}"#,
        r#"{"pattern": "permutation", "permutation": "transpose", "load": 0.1}"#,
        r#"{"pattern": "permutation", "permutation": "bit-complement", "load": 0.1}"#,
        r#"{"pattern": "hotspot", "hotspot_chips": [9], "hotspot_fraction": 0.05, "load": 0.1}"#,
        r#"{"pattern": "all-to-all", "load": 0.1}"#,
    ] {
        let spec: TrafficSpec = serde_json::from_str(json).unwrap();
        let report = run(&net, &*routing, &quick(), &spec.resolve().unwrap());
        assert!(report.offered > 0.0, "{json}");
        assert!(
            (report.accepted - report.offered).abs() < 0.02 * report.offered,
            "{json}: {report:?}"
        );
    }
}

/// Completion cycles of a message DAG on a 4 x 4 torus under `config`.
fn dag_cycles(config: &FlitConfig, dag: &MessageDag) -> u64 {
    let (net, routing) = torus(4);
    let report = run(&net, &*routing, config, &Traffic::Dag(dag.clone()));
    report.completion_cycles.unwrap()
}

/// A chip's two messages to different neighbours leave side by side with a queue per message
/// (each link busy for one message's time) and one after the other from a single FIFO.
#[test]
fn a_queue_per_message_sends_messages_side_by_side() {
    let flits = 400u64;
    let mut dag = MessageDag::new();
    let bytes = flits * FlitConfig::default().flit_bytes as u64;
    dag.push(0, 1, bytes, 0.0, &[]).unwrap();
    dag.push(0, 4, bytes, 0.0, &[]).unwrap();
    let cycles = |injection_queues| {
        let config = FlitConfig {
            injection_queues,
            injection_flits_per_cycle: 4.0,
            ..FlitConfig::default()
        };
        dag_cycles(&config, &dag)
    };
    let (side_by_side, fifo) = (
        cycles(InjectionQueues::PerMessage),
        cycles(InjectionQueues::Single),
    );
    assert!(
        (flits..flits + 30).contains(&side_by_side),
        "{side_by_side}"
    );
    assert!((2 * flits..2 * flits + 30).contains(&fifo), "{fifo}");
}

/// A new message takes an idle queue, not one whose injection queue still holds an earlier
/// message's packet. Chip 0 sends A east, B east 2 cycles later (its one 64-flit packet waits in
/// its injection queue until A's has left the link) and C north a cycle after B: with a queue
/// per message C leaves at once, finishing 3 cycles after A as it started 3 after it; joining
/// B's queue it would wait for B's output. From a single FIFO it does wait behind B.
#[test]
fn a_new_message_takes_an_idle_queue_not_one_still_injecting() {
    let (net, routing) = torus(4);
    let base = FlitConfig {
        packet_flits: 64,
        buffer_flits: 64,
        injection_flits_per_cycle: 64.0,
        ..FlitConfig::default()
    };
    let cycle_s = railx_core::sim::flit::cycle_s(&net, base.flit_bytes);
    let bytes = (base.packet_flits * base.flit_bytes) as u64;
    let mut dag = MessageDag::new();
    for (dst, start_cycles) in [(1, 0.0), (1, 2.0), (4, 3.0)] {
        dag.push(0, dst, bytes, start_cycles * cycle_s, &[])
            .unwrap();
    }
    let done = |injection_queues| {
        let config = FlitConfig {
            injection_queues,
            ..base.clone()
        };
        run(&net, &*routing, &config, &Traffic::Dag(dag.clone())).message_done_cycles
    };
    let per_message = done(InjectionQueues::PerMessage);
    assert!(per_message[1] >= per_message[0] + 64, "{per_message:?}");
    assert_eq!(per_message[2], per_message[0] + 3, "{per_message:?}");
    let fifo = done(InjectionQueues::Single);
    assert!(fifo[2] > fifo[1], "{fifo:?}");
}

/// With `head_delay_cycles` = d a packet may leave d cycles after the one ahead of it in its
/// VC: a long message's packets stream with d idle cycles between them.
#[test]
fn head_delay_leaves_idle_cycles_between_the_packets_of_a_vc() {
    let packets = 100u64;
    let config = FlitConfig::default();
    let mut dag = MessageDag::new();
    let bytes = packets * (config.packet_flits * config.flit_bytes) as u64;
    dag.push(0, 1, bytes, 0.0, &[]).unwrap();
    let cycles = |head_delay_cycles| {
        let config = FlitConfig {
            head_delay_cycles,
            ..config.clone()
        };
        dag_cycles(&config, &dag)
    };
    assert_eq!(cycles(2) - cycles(0), 2 * (packets - 1));
}

/// A non-blocking fat-tree of `chips` chips on `tiers` tiers of `radix`-port switches, routed
/// up*/down*, with its switch counts.
fn fat_tree(radix: u32, tiers: u32, chips: u32) -> (Network, Box<dyn Routing>, Clos) {
    let spec: PeerSpec = serde_json::from_str(&format!(
        r#"{{"family": "fat-tree", "radix": {radix}, "tiers": {tiers}, "chips": {chips}}}"#
    ))
    .unwrap();
    let net = spec.network().unwrap();
    let routing = for_peer(&spec, &net, None).unwrap();
    let clos = Clos::new("fat_tree", chips as u64, radix, tiers, &[]).unwrap();
    (net, routing, clos)
}

#[test]
fn a_non_blocking_fat_tree_carries_uniform_load_evenly_at_near_zero_load_latency() {
    // Uniform traffic of load L over E chips: a tier-l switch, with P_l chips below it, sends
    // L P_l (E - P_l) / (E - 1) flits/cycle up over its P_l / (d_1 ... d_(l-1)) up links, so every
    // link between tiers l and l + 1 carries L (E - P_l) / (E - 1), up and down, when the routing
    // spreads it evenly. Up links are chosen per packet, so the busiest stays within 10% of that
    // (down links follow the random destinations: ~190 packets each over the run, a few percent
    // of noise, 40% allowed); latency stays near zero-load (2, 4 or 6 links of 10 cycles). It
    // fails with either cause of Fig. 14's concentration: VCs compared one by one (8 VCs per
    // class sent packets up the first listed link while it kept an idle VC: busiest up link
    // 3.8 x the load), or ties going to the first listed hop (1.35 x with one VC).
    let load = 0.2;
    for (radix, tiers) in [(16, 2), (8, 3)] {
        let chips = 128u32;
        let (net, routing, clos) = fat_tree(radix, tiers, chips);
        // Tier of every vertex (0 for the chips, 1 for the leaves, ...) and chips under it.
        let mut tier = vec![0usize; chips as usize];
        for (t, &count) in clos.switches.iter().enumerate() {
            tier.extend(std::iter::repeat_n(t + 1, count as usize));
        }
        let pod = |t: usize| match clos.down.get(..t) {
            Some(below) => below.iter().product::<u32>() as f64,
            None => chips as f64,
        };
        let base = FlitConfig {
            warmup_cycles: 1000,
            measure_cycles: 4000,
            ..FlitConfig::default()
        };
        let zero_load_mean: f64 = (1..=tiers as usize)
            .map(|top| {
                // Pairs whose lowest common switch is at tier `top`.
                let share = (pod(top) - pod(top - 1)) / (chips - 1) as f64;
                share * zero_load(&vec![(1.0, 10); 2 * top], &base) as f64
            })
            .sum();
        for vcs_per_class in [1, 8] {
            let config = FlitConfig {
                vcs_per_class,
                ..base.clone()
            };
            let report = run(&net, &*routing, &config, &uniform(load));
            let context = format!("{tiers} tiers, {vcs_per_class} VC(s) per class");
            for t in 1..tiers as usize {
                let expected = load * (chips as f64 - pod(t)) / (chips - 1) as f64;
                let utilisation = |from: usize, to: usize| -> Vec<f64> {
                    (0..net.links())
                        .filter(|&l| {
                            tier[net.src[l] as usize] == from && tier[net.dst[l] as usize] == to
                        })
                        .map(|l| report.link_utilisation[l])
                        .collect()
                };
                let (up, down) = (utilisation(t, t + 1), utilisation(t + 1, t));
                for (what, links, slack) in [("up", &up, 1.1), ("down", &down, 1.4)] {
                    let mean = links.iter().sum::<f64>() / links.len() as f64;
                    let max = links.iter().copied().fold(0.0, f64::max);
                    assert!(
                        (mean - expected).abs() < 0.02 * expected && max < slack * expected,
                        "{context}: tier {t} {what} links mean {mean:.4}, max {max:.4}, closed form {expected:.4}"
                    );
                }
            }
            assert!(
                (report.accepted - report.offered).abs() < 0.01 * report.offered,
                "{context}: {report:?}"
            );
            assert!(
                report.latency.mean < 1.1 * zero_load_mean,
                "{context}: latency {:.2} against zero-load {zero_load_mean:.2}",
                report.latency.mean
            );
        }
    }
}

/// With VCs allocated with the switch (railx's default), a flow of packets between the ends of a
/// row of a node's mesh (3 hops east) streams at k x n flits/cycle: its packets spread over the n
/// mesh lanes of every edge (k = 2 flits/cycle each), back to back; with n = 1 it streams at k.
#[test]
fn a_single_flow_through_a_chain_of_lanes_reaches_k_times_n() {
    for n in [1u32, 2] {
        let config = FlitConfig {
            vc_allocation: VcAllocation::WithSwitch,
            input_pace: InputPace::Link,
            ..FlitConfig::cnsim()
        };
        let rate = single_flow_flits_per_cycle(n, config);
        let lanes_bandwidth = 2.0 * n as f64;
        assert!(
            rate <= lanes_bandwidth && rate > 0.98 * lanes_bandwidth,
            "n = {n}: {rate:.3} flits/cycle against k x n = {lanes_bandwidth}"
        );
    }
}

/// Under the `cnsim` preset (CNSim's VC allocation ahead of the switch) the same flow streams at
/// k, one lane's bandwidth: at the last hop no packet in either lane's VC goes on past the
/// destination, so both count empty and every packet takes the first lane, waiting for it while
/// the other is idle (as in CNSim, which never queues a packet in its destination's buffer).
#[test]
fn under_the_cnsim_preset_a_single_flow_takes_the_first_lane_into_its_destination() {
    let config = FlitConfig::cnsim();
    assert_eq!(
        (config.vc_allocation, config.input_pace),
        (VcAllocation::Ahead, InputPace::Output)
    );
    let rate = single_flow_flits_per_cycle(2, config);
    assert!(
        rate <= 2.0 && rate > 0.98 * 2.0,
        "{rate:.3} flits/cycle against k = 2"
    );
}

/// Flits/cycle of 1,000 single-packet messages from chip 0 to chip 3, 3 mesh hops east along a
/// row of a RailX node (4 x 4 chips, n lanes of k = 2 flits/cycle per edge, `phased` routing),
/// under `config` with an injection port of 16 flits/cycle. Each packet is a message of its
/// own, as CNSim generates them (each then takes its VC on its own, at the source too).
fn single_flow_flits_per_cycle(n: u32, config: FlitConfig) -> f64 {
    let r = realize(&preset(system(4, n, 8, [3, 3]), Preset::Hyperx)).unwrap();
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Phased).unwrap();
    let config = FlitConfig {
        injection_flits_per_cycle: 16.0,
        ..config
    };
    let flits = 4000u64;
    let packet_bytes = (config.packet_flits * config.flit_bytes) as u64;
    let mut dag = MessageDag::new();
    for _ in 0..flits / config.packet_flits as u64 {
        dag.push(0, 3, packet_bytes, 0.0, &[]).unwrap();
    }
    let report = run(&r.network, &routing, &config, &Traffic::Dag(dag));
    flits as f64 / report.completion_cycles.unwrap() as f64
}
