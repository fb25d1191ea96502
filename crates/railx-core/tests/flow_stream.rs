//! The flow level's streamed ring and connected re-solve: the water-filling of a union of
//! connected components equals the global one bit for bit; re-solving only the flows connected
//! to those that start or finish gives the same run as re-solving every flow; the ring
//! all-reduce generated step by step runs exactly as its stored representatives, loses no
//! message and holds only a window of them.

mod common;

use common::{preset, system};
use proptest::prelude::*;
use railx_core::collectives::symmetric::representatives;
use railx_core::collectives::{Algo, Group, Op};
use railx_core::plan::{realize, Realized};
use railx_core::progress::Silent;
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::engine::{self, Resolve, Stored};
use railx_core::sim::flow::fairness::WaterFill;
use railx_core::sim::flow::paths::PathSet;
use railx_core::sim::flow::ring::RingSteps;
use railx_core::sim::flow::{simulate_ring_observed, simulate_symmetric, Translations};
use railx_core::spec::Preset;

fn torus(m: u32, grid: [u32; 2]) -> Realized {
    realize(&preset(system(m, 1, 16, grid), Preset::Torus)).unwrap_or_else(|e| panic!("{e}"))
}

fn whole(r: &Realized) -> Group {
    Group::railx_region(&r.system.plant, &r.system.regions[0]).unwrap()
}

fn routings(r: &Realized) -> Vec<RailxRouting> {
    [Scheme::Minimal, Scheme::Adaptive { misroutes: 1 }]
        .into_iter()
        .map(|s| RailxRouting::of_region(r, None, s).unwrap())
        .collect()
}

/// Flows' connected components (sharing a resource, transitively), as lists of flow indices in
/// ascending order.
fn components(paths: &PathSet, flows: usize) -> Vec<Vec<usize>> {
    let mut root: Vec<usize> = (0..flows).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    let mut owner = std::collections::HashMap::new();
    for f in 0..flows {
        for &r in paths.path(f as u32).0 {
            if let Some(&g) = owner.get(&r) {
                let (a, b) = (find(&mut root, f), find(&mut root, g));
                root[a] = b;
            } else {
                owner.insert(r, f);
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for f in 0..flows {
        let g = find(&mut root, f);
        groups.entry(g).or_default().push(f);
    }
    groups.into_values().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random flows over a few resources, with coefficients whose sums round (thirds, tenths):
    /// each connected component, and the union of every other one, allocated alone in the same
    /// relative order, gets exactly the global rates.
    #[test]
    fn a_restricted_water_filling_equals_the_global_one(
        capacities in prop::collection::vec(1u32..50, 2..24),
        raw in prop::collection::vec(
            prop::collection::vec((0usize..24, 0usize..6), 1..5), 1..40),
    ) {
        const COEFF: [f64; 6] = [1.0, 0.5, 1.0 / 3.0, 2.0, 0.1, 0.7];
        let capacity: Vec<f64> = capacities.iter().map(|&c| c as f64 * 0.37).collect();
        let mut paths = PathSet::default();
        for flow in &raw {
            let mut inc: Vec<(u32, f64)> = flow
                .iter()
                .map(|&(r, c)| ((r % capacity.len()) as u32, COEFF[c]))
                .collect();
            inc.sort_by_key(|&(r, _)| r);
            inc.dedup_by_key(|&mut (r, _)| r);
            paths.push(&inc, 0.0);
        }
        let all: Vec<u32> = (0..raw.len() as u32).collect();
        let mut global = Vec::new();
        let mut fill = WaterFill::default();
        fill.allocate(&capacity, &paths, &all, &mut global);
        let global_loads: Vec<(u32, f64)> = fill.loads(&capacity).collect();
        let parts = components(&paths, raw.len());
        let mut rates = Vec::new();
        for part in &parts {
            let flows: Vec<u32> = part.iter().map(|&f| f as u32).collect();
            fill.allocate(&capacity, &paths, &flows, &mut rates);
            for (&f, &rate) in part.iter().zip(&rates) {
                prop_assert_eq!(rate.to_bits(), global[f].to_bits());
            }
            for (r, load) in fill.loads(&capacity) {
                let g = global_loads.iter().find(|&&(g, _)| g == r).unwrap().1;
                prop_assert_eq!(load.to_bits(), g.to_bits());
            }
        }
        let mut every_other: Vec<usize> = parts.iter().step_by(2).flatten().copied().collect();
        every_other.sort_unstable();
        let flows: Vec<u32> = every_other.iter().map(|&f| f as u32).collect();
        fill.allocate(&capacity, &paths, &flows, &mut rates);
        for (&f, &rate) in every_other.iter().zip(&rates) {
            prop_assert_eq!(rate.to_bits(), global[f].to_bits());
        }
    }

    /// Random DAGs under minimal and adaptive routing (flows split over several paths): the
    /// connected re-solve gives the same run as re-solving every flow, bit for bit — every
    /// message's injection and arrival, the events and the utilisation timeline.
    #[test]
    fn the_connected_re_solve_runs_exactly_as_the_global_one(
        raw in prop::collection::vec((0u32..36, 1u32..36, 1u64..3_000_000, 0u32..4, 0u32..3), 1..80),
        adaptive in any::<bool>(),
    ) {
        let r = torus(2, [3, 3]);
        let routing = &routings(&r)[adaptive as usize];
        let mut dag = MessageDag::new();
        let mut pairs = Vec::new();
        for (i, &(src, hop, bytes, deps, delay)) in raw.iter().enumerate() {
            let dst = (src + hop) % 36;
            let after: Vec<u32> = (1..=deps.min(i as u32)).map(|d| i as u32 - d).collect();
            dag.push(src, dst, bytes, delay as f64 * 1e-7, &after).unwrap();
            pairs.push((src, dst));
        }
        let identity: Vec<u32> = (0..r.network.links() as u32).collect();
        let paths = PathSet::route_all(routing, &r.network.latency_s, &identity, &pairs).unwrap();
        let path_of: Vec<u32> = (0..dag.len()).collect();
        let run = |resolve| {
            let mut work = Stored::new(&dag, &path_of);
            let cap = &r.network.bandwidth_Bps;
            engine::run(&mut work, &paths, cap, resolve, true, 25, &mut Silent).unwrap()
        };
        let (every, connected) = (run(Resolve::Every), run(Resolve::Connected));
        prop_assert!(every.arrival_s.iter().all(|t| t.is_finite()));
        prop_assert_eq!(every, connected);
    }
}

/// The ring all-reduces of one torus, generated and stored, under minimal and adaptive routing.
fn ring_cases(m: u32, grid: [u32; 2], sizes: &[u64]) {
    let r = torus(m, grid);
    let group = whole(&r);
    let rows = Translations::whole_rows(&r.system.plant);
    for routing in routings(&r) {
        for algo in [Algo::Ring, Algo::BidirRing] {
            for &size in sizes {
                for reduce in [0.0, 1e-12] {
                    let what = format!("{m} {grid:?} {} {size} B {reduce}", algo.name());
                    let stored =
                        representatives(Op::AllReduce, algo, &group, &rows, (size, 1), reduce)
                            .unwrap();
                    let want = simulate_symmetric(&r.network, &routing, &stored, 10).unwrap();
                    let mut ring =
                        RingSteps::new(Op::AllReduce, algo, &group, &rows, size, reduce).unwrap();
                    let got = simulate_ring_observed(
                        &r.network,
                        &routing,
                        &mut ring,
                        true,
                        10,
                        &mut Silent,
                    )
                    .unwrap();
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}

#[test]
fn the_generated_ring_runs_exactly_as_its_stored_representatives() {
    // Sizes: one every unit count divides, one that leaves some messages a byte more, and one
    // so small that most messages are the 1-byte minimum.
    ring_cases(2, [2, 2], &[20_160, 1_000_003, 7]);
    ring_cases(2, [3, 3], &[20_160, 1_000_003]);
    ring_cases(1, [2, 5], &[20_160, 7]);
}

#[test]
fn the_generated_ring_loses_no_message_and_holds_only_a_window() {
    let r = torus(2, [4, 4]);
    let group = whole(&r);
    let rows = Translations::whole_rows(&r.system.plant);
    let routing = &routings(&r)[0];
    for size in [1 << 10, 1 << 30] {
        let mut ring =
            RingSteps::new(Op::AllReduce, Algo::BidirRing, &group, &rows, size, 0.0).unwrap();
        let lanes = 2 * rows.domain_chips() as u64;
        let report =
            simulate_ring_observed(&r.network, routing, &mut ring, true, 0, &mut Silent).unwrap();
        let n = 64u64;
        assert_eq!(report.flows, 2 * (n - 1) * lanes);
        assert_eq!(report.messages, 4 * n * (n - 1));
        assert!(report.arrival_s.iter().all(|t| t.is_finite()));
        assert!(report
            .start_s
            .iter()
            .zip(&report.arrival_s)
            .all(|(s, a)| s < a));
        // At most one flow per rank and direction is active (each waits for its own previous
        // send); the messages partly ready are the steps a neighbour ran ahead by: a few per
        // lane (4 here), not the 2(n - 1) = 126 a stored schedule holds.
        assert!(report.peak_active <= lanes, "{}", report.peak_active);
        let held = ring.peak_pending() as u64;
        assert!(held <= 8 * lanes, "{held}");
        assert_eq!(ring.pending(), 0);
    }
}
