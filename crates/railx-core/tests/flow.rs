//! The flow-level simulator: max-min fairness certificates, closed-form times of isolated and
//! shared messages, contention-free DAGs, aggregated == unaggregated on small tori, and errors.

mod common;

use common::{preset, system};
use proptest::prelude::*;
use railx_core::collectives::symmetric::representatives;
use railx_core::collectives::{Algo, Group, Op};
use railx_core::network::Network;
use railx_core::plan::{realize, Realized};
use railx_core::routing::analysis::{all_to_all_link_load, route};
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::fairness::WaterFill;
use railx_core::sim::flow::paths::PathSet;
use railx_core::sim::flow::{simulate, simulate_symmetric, traffic, SymmetricDag, Translations};
use railx_core::spec::Preset;

fn torus(m: u32, grid: [u32; 2]) -> Realized {
    realize(&preset(system(m, 1, 16, grid), Preset::Torus)).unwrap_or_else(|e| panic!("{e}"))
}

fn minimal(r: &Realized) -> RailxRouting {
    RailxRouting::of_region(r, None, Scheme::Minimal).unwrap()
}

/// Latency and bottleneck bandwidth of the route from src to dst, summed in path order.
fn route_terms(net: &Network, routing: &RailxRouting, src: u32, dst: u32) -> (f64, f64) {
    let path = route(routing, src, dst).unwrap();
    let latency = path
        .iter()
        .fold(0.0, |acc, h| acc + net.latency_s[h.link as usize]);
    let bw = path
        .iter()
        .map(|h| net.bandwidth_Bps[h.link as usize])
        .fold(f64::INFINITY, f64::min);
    (latency, bw)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn a_single_flow_takes_latency_plus_bytes_over_bandwidth_exactly() {
    let r = torus(2, [3, 3]);
    let routing = minimal(&r);
    let (src, dst) = (0, r.network.chips() - 1);
    let mut dag = MessageDag::new();
    dag.push(src, dst, 1_000_000, 0.0, &[]).unwrap();
    let out = simulate(&r.network, &routing, &dag, 0).unwrap();
    let (latency, bw) = route_terms(&r.network, &routing, src, dst);
    assert_eq!(out.completion_s, latency + 1_000_000.0 / bw);
    assert_eq!(out.arrival_s, vec![latency + 1_000_000.0 / bw]);
}

#[test]
fn two_flows_sharing_a_link_take_twice_as_long() {
    let r = torus(2, [3, 3]);
    let routing = minimal(&r);
    let (src, dst) = (0, 5);
    let mut dag = MessageDag::new();
    dag.push(src, dst, 4096, 0.0, &[]).unwrap();
    dag.push(src, dst, 4096, 0.0, &[]).unwrap();
    let out = simulate(&r.network, &routing, &dag, 0).unwrap();
    let (latency, bw) = route_terms(&r.network, &routing, src, dst);
    assert_eq!(out.arrival_s, vec![latency + 8192.0 / bw; 2]);
}

#[test]
fn a_contention_free_chain_is_the_sum_of_its_stages() {
    let r = torus(2, [3, 3]);
    let routing = minimal(&r);
    let hops = [
        (0u32, 7u32, 1000u64, 1e-6),
        (7, 20, 5000, 0.0),
        (20, 3, 123_456, 2.5e-7),
    ];
    let mut dag = MessageDag::new();
    let mut expected = 0.0;
    for (i, &(s, d, bytes, delay)) in hops.iter().enumerate() {
        let after: Vec<u32> = if i == 0 { vec![] } else { vec![i as u32 - 1] };
        dag.push(s, d, bytes, delay, &after).unwrap();
        let (latency, bw) = route_terms(&r.network, &routing, s, d);
        expected += delay + latency + bytes as f64 / bw;
    }
    let out = simulate(&r.network, &routing, &dag, 0).unwrap();
    assert!(
        close(out.completion_s, expected),
        "{} vs {expected}",
        out.completion_s
    );
}

#[test]
fn all_to_all_is_no_faster_than_its_busiest_link() {
    let r = torus(2, [3, 4]);
    let routing = minimal(&r);
    let bytes = 1 << 16;
    let sym = traffic::all_to_all(&r.system.plant, bytes).unwrap();
    let out = simulate_symmetric(&r.network, &routing, &sym, 0).unwrap();
    let load = all_to_all_link_load(&routing, r.network.links()).unwrap();
    let chips = r.network.chips() as f64;
    let bound = (0..r.network.links())
        .map(|l| load[l] * (chips - 1.0) * bytes as f64 / r.network.bandwidth_Bps[l])
        .fold(0.0, f64::max);
    assert!(out.completion_s >= bound * (1.0 - 1e-12));
    assert_eq!(out.messages, (chips * (chips - 1.0)) as u64);
}

/// Runs the aggregated and the expanded DAG and checks they agree message by message, and that
/// every link has its orbit's utilisation.
fn check_aggregation(r: &Realized, routing: &RailxRouting, sym: &SymmetricDag) {
    let agg = simulate_symmetric(&r.network, routing, sym, 16).unwrap();
    let full_dag = sym.expand().unwrap();
    let full = simulate(&r.network, routing, &full_dag, 16).unwrap();
    assert!(
        close(agg.completion_s, full.completion_s),
        "{} vs {}",
        agg.completion_s,
        full.completion_s
    );
    let order = sym.group.order() as usize;
    for (i, &t) in agg.arrival_s.iter().enumerate() {
        for g in 0..order {
            assert!(
                close(t, full.arrival_s[i * order + g]),
                "message {i} translate {g}"
            );
        }
    }
    let (a, f) = (agg.timeline.unwrap(), full.timeline.unwrap());
    for (link, &orbit) in agg.resource_of_link.iter().enumerate() {
        let (x, y) = (a.mean[orbit as usize], f.mean[link]);
        assert!((x - y).abs() <= 1e-9, "link {link}: {x} vs {y}");
    }
}

#[test]
fn aggregated_equals_unaggregated_for_the_benchmark_traffic() {
    for (m, grid) in [(2, [3, 3]), (2, [4, 3]), (1, [5, 2])] {
        let r = torus(m, grid);
        let routing = minimal(&r);
        let plant = &r.system.plant;
        check_aggregation(&r, &routing, &traffic::all_to_all(plant, 1 << 12).unwrap());
        let group = Group::railx_region(plant, &r.system.regions[0]).unwrap();
        // Hierarchical all-reduce over every translation, the ring over whole rows.
        for (algo, translations) in [
            (Algo::Hierarchical, Translations::whole(plant)),
            (Algo::BidirRing, Translations::whole_rows(plant)),
        ] {
            let all_reduce = representatives(
                Op::AllReduce,
                algo,
                &group,
                &translations,
                (1 << 20, 1),
                0.0,
            );
            check_aggregation(&r, &routing, &all_reduce.unwrap());
        }
    }
}

#[test]
fn aggregated_equals_unaggregated_with_multipath_routing() {
    let r = torus(2, [4, 4]);
    let routing = RailxRouting::of_region(&r, None, Scheme::Adaptive { misroutes: 1 }).unwrap();
    check_aggregation(
        &r,
        &routing,
        &traffic::all_to_all(&r.system.plant, 1000).unwrap(),
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random representative DAGs (sizes, delays, dependencies) on a 36-chip torus, over every
    /// translation and over the subgroups of whole rows, whole columns and the diagonal: the
    /// aggregated run equals the run of the expanded DAG.
    #[test]
    fn aggregated_equals_unaggregated_on_random_dags(
        msgs in prop::collection::vec((0u32..4, 0u32..36, 1u64..100_000, 0u32..3, prop::collection::vec(any::<u32>(), 0..3)), 1..12),
        generators in prop::sample::select(vec![vec![(1, 0), (0, 1)], vec![(0, 1)], vec![(1, 0)], vec![(1, 1)]]),
    ) {
        let r = torus(2, [3, 3]);
        let routing = minimal(&r);
        let mut dag = MessageDag::new();
        for (i, (src, dst, bytes, delay, deps)) in msgs.iter().enumerate() {
            let dst = if dst == src { (dst + 1) % 36 } else { *dst };
            let after: Vec<u32> = if i == 0 { vec![] } else { deps.iter().map(|d| d % i as u32).collect() };
            dag.push(*src, dst, *bytes, *delay as f64 * 1e-7, &after).unwrap();
        }
        let group = Translations::generated(&r.system.plant, &generators).unwrap();
        check_aggregation(&r, &routing, &SymmetricDag::new(dag, group));
    }

    /// Max-min certificate on random instances: no resource over capacity, and every flow has
    /// a saturated resource on which no flow gets more.
    #[test]
    fn water_filling_is_max_min_fair(
        caps in prop::collection::vec(1u32..100, 1..8),
        flows in prop::collection::vec(prop::collection::vec((0u32..8, 1u32..4), 1..5), 1..12)
    ) {
        let n = caps.len() as u32;
        let capacity: Vec<f64> = caps.iter().map(|&c| c as f64).collect();
        let mut paths = PathSet::default();
        for f in &flows {
            let mut inc: Vec<(u32, f64)> = f.iter().map(|&(r, k)| (r % n, 1.0 / k as f64)).collect();
            inc.sort_by_key(|e| e.0);
            inc.dedup_by_key(|e| e.0);
            paths.push(&inc, 0.0);
        }
        let ids: Vec<u32> = (0..flows.len() as u32).collect();
        let mut rates = Vec::new();
        let mut fill = WaterFill::default();
        fill.allocate(&capacity, &paths, &ids, &mut rates);
        let mut load = vec![0.0; n as usize];
        for (k, &p) in ids.iter().enumerate() {
            let (res, coeff) = paths.path(p);
            for (&r, &a) in res.iter().zip(coeff) { load[r as usize] += a * rates[k]; }
        }
        for j in 0..n as usize { prop_assert!(load[j] <= capacity[j] * (1.0 + 1e-9)); }
        // The loads the water-filling reports (for the timeline) are the loads of the rates.
        for (j, l) in fill.loads(&capacity) {
            prop_assert!((l - load[j as usize]).abs() <= 1e-9 * capacity[j as usize]);
        }
        for (k, &p) in ids.iter().enumerate() {
            prop_assert!(rates[k] > 0.0);
            let bottleneck = paths.path(p).0.iter().any(|&r| {
                let saturated = load[r as usize] >= capacity[r as usize] * (1.0 - 1e-9);
                let highest = ids.iter().enumerate().all(|(o, &q)| {
                    !paths.path(q).0.contains(&r) || rates[o] <= rates[k] * (1.0 + 1e-9)
                });
                saturated && highest
            });
            prop_assert!(bottleneck, "flow {} has no bottleneck", k);
        }
    }
}

#[test]
fn bad_inputs_get_one_line_errors() {
    let r = torus(2, [3, 3]);
    let routing = minimal(&r);
    let plant = &r.system.plant;
    let one_line = |e: railx_core::RailxError| {
        let s = e.to_string();
        assert!(!s.contains('\n'), "{s}");
        s
    };
    let mut dag = MessageDag::new();
    dag.push(0, 99, 8, 0.0, &[]).unwrap();
    let e = one_line(simulate(&r.network, &routing, &dag, 0).unwrap_err());
    assert!(e.contains("message 0.dst = 99"), "{e}");
    let e = one_line(simulate(&r.network, &routing, &MessageDag::new(), 1_000_000).unwrap_err());
    assert!(e.starts_with("bins = 1000000"), "{e}");
    let e = one_line(traffic::all_to_all(plant, 0).unwrap_err());
    assert!(e.starts_with("bytes_per_pair = 0"), "{e}");
    // A 2D-HyperX's rails follow a Hamiltonian decomposition, not a translation.
    let hyperx = realize(&preset(system(2, 2, 16, [5, 5]), Preset::Hyperx)).unwrap();
    let hx_routing = minimal(&hyperx);
    let sym = traffic::all_to_all(&hyperx.system.plant, 8).unwrap();
    let e = one_line(simulate_symmetric(&hyperx.network, &hx_routing, &sym, 0).unwrap_err());
    assert!(e.contains("not invariant under translations"), "{e}");
    // Translations of another grid, or outside the grid.
    let other = torus(2, [4, 3]);
    let sym = traffic::all_to_all(&other.system.plant, 8).unwrap();
    let e = one_line(simulate_symmetric(&r.network, &routing, &sym, 0).unwrap_err());
    assert!(e.contains("another node grid"), "{e}");
    let e = one_line(Translations::generated(plant, &[(0, 3)]).unwrap_err());
    assert!(e.starts_with("generators = (0, 3)"), "{e}");
}
