//! Collective schedules at flit level (`sim::flit_collective`): seconds are cycles of
//! `flit_bytes` over the slowest link, and for large messages on small tori of meshes every
//! all-reduce schedule (and reduce-scatter / all-gather) comes within 10% of the flow level (12%
//! for the hierarchical all-reduce on the 3 x 3 torus, congested between nodes) — packetisation,
//! router delay and flow control only add time to max-min fair sharing.

mod common;

use common::{preset, system};
use railx_core::collectives::{Algo, Group, Op};
use railx_core::plan::{realize, Realized};
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::sim::flit_collective::{flit_config, simulate_collective_flit};
use railx_core::sim::flow::collective::{simulate_collective, CollectiveSpec};
use railx_core::spec::{Preset, SystemSpec};

/// A torus of `rails / 2` x `rails / 2` nodes of m x m chips.
fn torus(m: u32, rails: u32) -> Realized {
    let spec = SystemSpec {
        grid: None,
        ..system(m, 1, rails, [0, 0])
    };
    realize(&preset(spec, Preset::Torus)).unwrap_or_else(|e| panic!("{e}"))
}

fn spec(op: Op, algo: Algo, size_bytes: u64) -> CollectiveSpec {
    CollectiveSpec {
        op,
        algo,
        size_bytes,
        chunks: 1,
        reduce_s_per_byte: 0.0,
    }
}

/// Flit time over flow time of one collective on the whole system, dateline-routed.
fn flit_over_flow(r: &Realized, spec: &CollectiveSpec) -> f64 {
    let routing = RailxRouting::of_region(r, None, Scheme::Dateline).unwrap();
    let group = Group::railx_region(&r.system.plant, &r.system.regions[0]).unwrap();
    let flow = simulate_collective(&r.network, &routing, &group, spec).unwrap();
    let flit = simulate_collective_flit(&r.network, &routing, &group, spec, 256).unwrap();
    assert_eq!(flit.time_s, flit.cycles as f64 * flit.cycle_s);
    flit.time_s / flow.report.completion_s
}

#[test]
fn large_collectives_at_flit_level_are_within_10_percent_of_the_flow_level() {
    // The most flit / flow each case may take. Between the nodes of the 3 x 3 torus the
    // hierarchical all-reduce's short messages contend (some take 8x their own time), and its
    // flit time moves with the order in which contended packets leave: 1.03 to 1.09 of the flow
    // time over 6 to 12 MiB, 1.105 at 8.
    let cases = [
        (2, 4, Op::AllReduce, Algo::Ring, 1.10),
        (2, 4, Op::AllReduce, Algo::BidirRing, 1.10),
        (2, 4, Op::AllReduce, Algo::TwoDRing, 1.10),
        (2, 4, Op::AllReduce, Algo::Hierarchical, 1.10),
        (2, 4, Op::AllReduce, Algo::MultiRail, 1.10),
        (2, 6, Op::AllReduce, Algo::Hierarchical, 1.12),
        (2, 6, Op::ReduceScatter, Algo::Hierarchical, 1.10),
        (2, 6, Op::AllGather, Algo::TwoDRing, 1.10),
        (4, 4, Op::AllReduce, Algo::Hierarchical, 1.10),
    ];
    for (m, rails, op, algo, most) in cases {
        let ratio = flit_over_flow(&torus(m, rails), &spec(op, algo, 8 << 20));
        assert!(
            (1.0..=most).contains(&ratio),
            "m = {m}, R = {rails}, {op:?} {algo:?}: flit / flow = {ratio:.3}"
        );
    }
}

#[test]
fn flit_settings_map_the_system_onto_cycles() {
    let r = torus(2, 4);
    let config = flit_config(&r.network, 256, 4).unwrap();
    // 256 B over 50 GB/s external ports: 5.12 ns cycles; 300 ns is 59 cycles, 10 ns is 2.
    assert_eq!(config.long_latency_cycles, 59);
    assert_eq!(config.short_latency_cycles, 2);
    // Buffers cover the mesh links' credit round trip at twice the port rate, in whole packets.
    assert_eq!(config.buffer_flits % config.packet_flits, 0);
    assert!(config.buffer_flits > 2 * 59);
    // 8 VCs behind each of the 4 dateline VCs; at most 64 per port with more routing VCs.
    assert_eq!(config.vcs_per_class, 8);
    assert_eq!(flit_config(&r.network, 256, 16).unwrap().vcs_per_class, 4);
    assert!(flit_config(&r.network, 0, 4).is_err());
}
