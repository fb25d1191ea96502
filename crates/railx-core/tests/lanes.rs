//! Mesh lanes (docs/architecture.md, Mesh lanes): two adjacent chips of a RailX node are joined
//! by n parallel links per direction, one per port lane, each `intra_bw` = k * port_bw, so a chip
//! edge carries k * n * port_bw inside the mesh. Checked in the network (counts, lanes,
//! bandwidths), in routing (every lane offered at every mesh hop, the channel dependency graph
//! acyclic over them) and at the flow and flit levels (one message between adjacent chips
//! reaches k n port_bw).

#![allow(non_snake_case)]

mod common;

use common::{preset, system};
use proptest::prelude::*;
use railx_core::network::{mesh_links, LinkClass};
use railx_core::plan::{realize, Realized};
use railx_core::routing::deadlock::exhaustive;
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::routing::{Hop, RouteState, Routing};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flit::{self, FlitConfig, Traffic};
use railx_core::sim::flow::{simulate, simulate_symmetric, traffic};
use railx_core::spec::{Preset, SystemSpec};
use std::collections::{HashMap, HashSet};

const PORT_BW_BPS: f64 = 50e9;

/// An m x m mesh per node, n lanes, `k` = intra_bw / port_bw, on a p x p node grid.
fn realized(m: u32, n: u32, k: f64, p: u32, topology: Preset) -> Realized {
    let spec = SystemSpec {
        port_bw_Bps: PORT_BW_BPS,
        intra_bw_Bps: k * PORT_BW_BPS,
        ..system(m, n, 2 * p, [p, p])
    };
    realize(&preset(spec, topology)).unwrap_or_else(|e| panic!("{e}"))
}

/// The (chip, routing state) pairs every route to every destination may reach, with the hops
/// offered there: the walk the exhaustive deadlock check makes.
fn offered(routing: &dyn Routing, mut visit: impl FnMut(u32, u32, &[Hop])) {
    let mut hops = Vec::new();
    for &dst in routing.chips() {
        let mut seen = HashSet::new();
        let mut stack: Vec<(u32, RouteState)> = routing
            .chips()
            .iter()
            .filter(|&&c| c != dst)
            .map(|&c| (c, RouteState::start()))
            .collect();
        while let Some((chip, state)) = stack.pop() {
            if !seen.insert((chip, state)) {
                continue;
            }
            hops.clear();
            routing.next_hops(chip, dst, &state, &mut hops);
            visit(chip, dst, &hops);
            stack.extend(hops.iter().map(|h| (routing.link_target(h.link), h.state)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every pair of adjacent chips has exactly n links each way, lanes 0..n once each, every one
    /// intra_bw and alpha_in, so each chip edge carries k n port_bw; the optical links are two
    /// per circuit as before.
    #[test]
    fn every_adjacent_pair_has_n_lanes_of_intra_bw(
        m in 1u32..5, n in 1u32..4, k in prop::sample::select(vec![0.5, 1.0, 2.0, 4.0]),
        hyperx in any::<bool>()
    ) {
        // A 3 x 3 HyperX needs r = m n >= 2 rails per axis.
        let (p, topology) = if hyperx && m * n >= 2 { (3, Preset::Hyperx) } else { (2, Preset::Torus) };
        let r = realized(m, n, k, p, topology);
        let (net, plant) = (&r.network, &r.system.plant);
        let mesh: Vec<usize> = (0..net.links()).filter(|&l| net.class[l] == LinkClass::IntraNode).collect();
        prop_assert_eq!(mesh.len() as u64, mesh_links(plant));
        prop_assert_eq!(mesh.len(), (plant.nodes() * 4 * m * m.saturating_sub(1) * n) as usize);
        let optical = net.links() - mesh.len();
        prop_assert_eq!(optical, 2 * r.ocs.switches.iter().map(|s| s.circuits.len()).sum::<usize>());
        let mut lanes: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        for &l in &mesh {
            prop_assert_eq!(net.bandwidth_Bps[l], k * PORT_BW_BPS);
            prop_assert_eq!(net.latency_s[l], plant.alpha_in_s);
            let (a, b) = (net.src[l], net.dst[l]);
            let ((na, ma, xa, ya), (nb, mb, xb, yb)) = (plant.chip_coords(a), plant.chip_coords(b));
            prop_assert_eq!((na, ma), (nb, mb));
            prop_assert_eq!(xa.abs_diff(xb) + ya.abs_diff(yb), 1);
            lanes.entry((a, b)).or_default().push(net.lane(l).unwrap());
        }
        prop_assert_eq!(lanes.len() as u32, plant.nodes() * 4 * m * m.saturating_sub(1));
        for (pair, mut list) in lanes {
            list.sort_unstable();
            prop_assert_eq!(&list, &(0..n).collect::<Vec<_>>(), "{:?}", pair);
            let edge_Bps: f64 = list.len() as f64 * k * PORT_BW_BPS;
            prop_assert!((edge_Bps - k * n as f64 * PORT_BW_BPS).abs() < 1e-3);
        }
        for l in (0..net.links()).filter(|&l| net.class[l] != LinkClass::IntraNode) {
            prop_assert_eq!(net.lane(l), None);
        }
    }
}

/// Wherever a route takes a mesh hop, every lane of that step is offered on the same VC with
/// the same next state, and every mesh link is some route's hop; on every scheme and with 1 to
/// 3 lanes, the exhaustive channel dependency graph stays acyclic.
#[test]
fn routing_offers_every_lane_and_stays_acyclic() {
    let cases = [
        (
            2,
            2,
            Preset::Hyperx,
            vec![
                Scheme::Minimal,
                Scheme::Balanced,
                Scheme::Adaptive { misroutes: 1 },
            ],
        ),
        (
            3,
            3,
            Preset::Hyperx,
            vec![Scheme::Minimal, Scheme::Balanced],
        ),
        (3, 1, Preset::Hyperx, vec![Scheme::Minimal]),
        (2, 2, Preset::Torus, vec![Scheme::Minimal, Scheme::Dateline]),
    ];
    for (m, n, topology, schemes) in cases {
        let p = if topology == Preset::Hyperx { 3 } else { 4 };
        let r = realized(m, n, 2.0, p, topology);
        let net = &r.network;
        for scheme in schemes {
            let routing = RailxRouting::new(net, &r.system.regions[0], scheme).unwrap();
            let mut used = vec![false; net.links()];
            offered(&routing, |chip, dst, hops| {
                let mesh: Vec<&Hop> = hops
                    .iter()
                    .filter(|h| net.class[h.link as usize] == LinkClass::IntraNode)
                    .collect();
                // Grouped by (next chip, VC, state), each group is the n lanes in lane order.
                let mut groups: HashMap<(u32, u8, RouteState), Vec<u32>> = HashMap::new();
                for h in &mesh {
                    used[h.link as usize] = true;
                    assert_eq!(net.src[h.link as usize], chip);
                    groups
                        .entry((net.dst[h.link as usize], h.vc, h.state))
                        .or_default()
                        .push(net.lane(h.link as usize).unwrap());
                }
                for (key, group) in groups {
                    assert_eq!(
                        group,
                        (0..n).collect::<Vec<_>>(),
                        "{scheme:?}: {chip} -> {dst} at {key:?}"
                    );
                }
            });
            let unused = (0..net.links())
                .filter(|&l| net.class[l] == LinkClass::IntraNode && !used[l])
                .count();
            assert_eq!(
                unused, 0,
                "{scheme:?}, m = {m}, n = {n}: mesh links never offered"
            );
            let report = exhaustive(&routing).unwrap();
            assert!(report.acyclic, "{scheme:?}, n = {n}: {:?}", report.cycle);
            assert!(report.vcs_used <= routing.vcs());
        }
    }
}

/// The VCs a route needs do not depend on the lanes: the same network with 1 and with 3 lanes
/// uses as many VCs, and with 3 lanes the dependency graph has the 1-lane graph's mesh channels
/// three times over.
#[test]
fn lanes_add_channels_but_no_vcs() {
    let one = realized(3, 1, 2.0, 3, Preset::Hyperx);
    let three = realized(3, 3, 2.0, 3, Preset::Hyperx);
    let report = |r: &Realized| {
        let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
        exhaustive(&routing).unwrap()
    };
    let (a, b) = (report(&one), report(&three));
    assert!(a.acyclic && b.acyclic);
    assert_eq!(a.vcs_used, b.vcs_used);
    assert!(b.channels > a.channels);
}

/// One flow between adjacent chips of a node, and one along a whole mesh row, is split evenly
/// over the n lanes of every mesh hop: it reaches k n port_bw, its time alpha_in per hop plus
/// bytes / (k n port_bw). Aggregated and unaggregated all-to-all agree with lanes.
#[test]
fn a_single_flow_spreads_over_the_lanes() {
    let bytes = 1_000_000u64;
    for (m, n, k) in [(2, 2, 2.0), (3, 3, 1.0), (4, 2, 4.0)] {
        let r = realized(m, n, k, 2, Preset::Torus);
        let routing = RailxRouting::of_region(&r, None, Scheme::Minimal).unwrap();
        let plant = &r.system.plant;
        let edge_Bps = k * n as f64 * PORT_BW_BPS;
        for (dst, hops) in [(1, 1), (m - 1, m - 1), (m * m - 1, 2 * (m - 1))] {
            let mut dag = MessageDag::new();
            dag.push(0, dst, bytes, 0.0, &[]).unwrap();
            let out = simulate(&r.network, &routing, &dag, 0).unwrap();
            let expected = hops as f64 * plant.alpha_in_s + bytes as f64 / edge_Bps;
            assert!(
                (out.completion_s - expected).abs() <= 1e-9 * expected,
                "m = {m}, n = {n}, 0 -> {dst}: {} s, expected {expected} s",
                out.completion_s
            );
        }
    }
    let r = realized(2, 2, 2.0, 3, Preset::Torus);
    let routing = RailxRouting::of_region(&r, None, Scheme::Minimal).unwrap();
    let sym = traffic::all_to_all(&r.system.plant, 1 << 16).unwrap();
    let agg = simulate_symmetric(&r.network, &routing, &sym, 0).unwrap();
    let full = simulate(&r.network, &routing, &sym.expand().unwrap(), 0).unwrap();
    assert!((agg.completion_s - full.completion_s).abs() <= 1e-9 * full.completion_s);
}

/// At flit level each lane is a channel of its own: one long message between adjacent chips
/// streams over all n lanes (a packet takes a lane whose output is free), so it moves k n
/// flits/cycle, n times one lane's rate, and no faster.
#[test]
fn a_single_message_streams_over_the_lanes_at_flit_level() {
    let config = FlitConfig {
        injection_flits_per_cycle: 8.0,
        ..FlitConfig::default()
    };
    let flits = 4096u64;
    for (n, k) in [(1, 1.0), (2, 1.0), (3, 1.0), (2, 2.0)] {
        let r = realized(2, n, k, 2, Preset::Torus);
        let routing = RailxRouting::of_region(&r, None, Scheme::Minimal).unwrap();
        let mut dag = MessageDag::new();
        dag.push(0, 1, flits * config.flit_bytes as u64, 0.0, &[])
            .unwrap();
        let report = flit::simulate(&r.network, &routing, &config, &Traffic::Dag(dag)).unwrap();
        let cycles = report.completion_cycles.unwrap() as f64;
        let rate = flits as f64 / cycles;
        let lanes_rate = n as f64 * k;
        assert!(
            rate <= lanes_rate && rate >= 0.97 * lanes_rate,
            "n = {n}, k = {k}: {rate} flits/cycle over {cycles} cycles, lanes carry {lanes_rate}"
        );
    }
}
