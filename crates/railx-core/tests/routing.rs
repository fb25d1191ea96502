//! Routing functions on RailX regions: routes are valid and minimal, VC budgets hold, and the
//! channel dependency graph is acyclic; a deliberately broken function is caught with its cycle.

mod common;

use common::{dim, general, preset, system, SingleVc};
use proptest::prelude::*;
use railx_core::hamiltonian::has_decomposition;
use railx_core::plan::{plan, realize, Realized};
use railx_core::routing::analysis::{all_to_all_link_load, route, route_stats};
use railx_core::routing::deadlock::{dependencies, exhaustive, find_cycle};
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::routing::torus::{TorusRouting, TorusVcs};
use railx_core::routing::{RouteState, Routing};
use railx_core::spec::{ConfigSpec, DimKind, Preset, SystemSpec};

fn realized(spec: &ConfigSpec) -> Realized {
    realize(spec).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks every pair: the route ends at the destination, minimal routes are as short as the
/// node-level shortest path, and the largest route is the realized inter-node diameter.
fn check_routes(r: &Realized, scheme: Scheme) -> (u32, u32) {
    check_routes_against(r, scheme, true)
}

/// As `check_routes`; `shortest` says whether minimal routes must match node-level shortest
/// paths (Dragonfly's local-global-local routes need not).
fn check_routes_against(r: &Realized, scheme: Scheme, shortest: bool) -> (u32, u32) {
    let region = &r.system.regions[0];
    let routing = RailxRouting::new(&r.network, region, scheme).unwrap();
    let plan = plan(r).unwrap();
    let per = r.system.plant.chips_per_node();
    let stats = route_stats(&routing, usize::MAX, 0).unwrap();
    assert!(!stats.sampled);
    if scheme == Scheme::Minimal && shortest {
        assert_eq!(Some(stats.max_inter_node_hops), plan.diameter_inter_node);
        assert!(stats.max_vc as u32 <= plan.diameter_inter_node.unwrap());
        // Minimal in inter-node hops: equal to the realized node-level distance.
        for &src in routing.chips().iter().step_by(per as usize) {
            for &dst in routing.chips() {
                let path = route(&routing, src, dst).unwrap();
                let ho = path.iter().filter(|h| routing.is_external(h.link)).count() as u32;
                assert_eq!(ho, node_distance(r, src / per, dst / per), "{src} -> {dst}");
            }
        }
    }
    if scheme == Scheme::Minimal {
        // The per-packet routes and the metrics' frontier computation agree on the worst hops.
        assert_eq!(stats.max_hops, plan.regions[0].metrics.diameter_hops);
    }
    let report = exhaustive(&routing).unwrap();
    assert!(report.acyclic, "{:?}", report.cycle);
    assert!(report.vcs_used <= routing.vcs());
    (stats.max_hops.Hi, report.vcs_used as u32)
}

/// Node-level shortest path length by BFS over the optical links.
fn node_distance(r: &Realized, from: u32, to: u32) -> u32 {
    let net = &r.network;
    let per = r.system.plant.chips_per_node();
    let nodes = r.system.plant.nodes() as usize;
    let mut adjacency = vec![Vec::new(); nodes];
    for i in 0..net.links() {
        let (a, b) = (net.src[i] / per, net.dst[i] / per);
        if a != b {
            adjacency[a as usize].push(b);
        }
    }
    let mut dist = vec![u32::MAX; nodes];
    dist[from as usize] = 0;
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        for &w in &adjacency[v as usize] {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    dist[to as usize]
}

#[test]
fn hyperx_minimal_routes_are_minimal_acyclic_and_within_5m_minus_6() {
    for m in [2, 3, 4] {
        let r = realized(&preset(system(m, 2, 2 * 5, [5, 5]), Preset::Hyperx));
        let (hi, vcs) = check_routes(&r, Scheme::Minimal);
        assert!(hi <= 5 * m - 6, "m = {m}: Hi = {hi}");
        assert!(vcs <= 3, "do + 1 = 3 VCs at most, used {vcs}");
    }
}

/// `phased` (CNSim's VCs): the same routes as `minimal`, acyclic, 3 VCs on a 2D-HyperX; the VC
/// is the dimension phase — 0 crossing the source node toward an X link, 1 on the X link and
/// toward the Y link, 2 on the Y link and in the destination node — so a packet that needs no X
/// hop starts on VC 1 and one within its node runs on VC 2.
#[test]
fn phased_vcs_follow_the_dimension_phase_on_a_hyperx() {
    let r = realized(&preset(system(4, 2, 2 * 9, [9, 9]), Preset::Hyperx));
    let (_, vcs) = check_routes(&r, Scheme::Phased);
    assert_eq!(vcs, 3);
    let region = &r.system.regions[0];
    let phased = RailxRouting::new(&r.network, region, Scheme::Phased).unwrap();
    let minimal = RailxRouting::new(&r.network, region, Scheme::Minimal).unwrap();
    let per = r.system.plant.chips_per_node();
    for &src in phased.chips().iter().step_by(7) {
        for &dst in phased.chips().iter().step_by(5) {
            if src == dst {
                continue;
            }
            let a = route(&phased, src, dst).unwrap();
            let b = route(&minimal, src, dst).unwrap();
            let links =
                |p: &[railx_core::routing::Hop]| p.iter().map(|h| h.link).collect::<Vec<_>>();
            assert_eq!(links(&a), links(&b), "{src} -> {dst}");
            // Node coordinates: X = node % 9, Y = node / 9.
            let (s, d) = (src / per, dst / per);
            let x_hop = s % 9 != d % 9;
            let mut phase = if x_hop { 0 } else { 1 };
            if s == d {
                phase = 2;
            }
            for h in &a {
                if phased.is_external(h.link) {
                    let to_node = phased.link_target(h.link) / per;
                    let along_x = to_node / 9 == phased.link_source(h.link) / per / 9;
                    phase = if along_x { 1 } else { 2 };
                    assert_eq!(h.vc, phase, "{src} -> {dst}: link {}", h.link);
                    if to_node == d {
                        phase = 2;
                    }
                } else {
                    assert_eq!(h.vc, phase, "{src} -> {dst}: mesh link {}", h.link);
                }
            }
        }
    }
    // A torus has ring dimensions: refused in one line.
    let t = realized(&preset(system(2, 1, 12, [6, 5]), Preset::Torus));
    let e = RailxRouting::new(&t.network, &t.system.regions[0], Scheme::Phased)
        .err()
        .expect("phased needs one hop per dimension");
    assert!(e.to_string().contains("use routing = minimal"), "{e}");
}

#[test]
fn torus_minimal_and_dateline_are_acyclic() {
    let r = realized(&preset(system(2, 1, 12, [6, 5]), Preset::Torus));
    let (_, minimal_vcs) = check_routes(&r, Scheme::Minimal);
    assert!(minimal_vcs <= 3 + 2 + 1);
    let (_, dateline_vcs) = check_routes(&r, Scheme::Dateline);
    assert!(
        dateline_vcs <= 4,
        "2 per ring dimension, used {dateline_vcs}"
    );
}

/// Rings of two nodes too: there every step is forward (routes break the tie forward), so the
/// step 1 -> 0 is the wrap-around link and must change the VC; on larger meshes the mesh hops
/// between two external hops otherwise close a cycle through both nodes (found by the flit level).
#[test]
fn dateline_is_acyclic_on_rings_of_two_and_three_nodes() {
    for m in [1, 2, 4] {
        for rails in [4, 6] {
            let spec = SystemSpec {
                grid: None,
                ..system(m, 1, rails, [0, 0])
            };
            let r = realized(&preset(spec, Preset::Torus));
            let (_, vcs) = check_routes(&r, Scheme::Dateline);
            assert!(vcs <= 4, "m = {m}, R = {rails}: used {vcs} VCs");
        }
    }
}

#[test]
fn dragonfly_and_high_dimensional_routes_are_minimal_and_acyclic() {
    // Fig. 8's full Dragonfly (21 groups of 5, r = 4): local-global-local routes, at most 3 hops,
    // and 3 is reached, the diameter.
    let dragonfly = realized(&preset(system(1, 4, 42, [21, 5]), Preset::Dragonfly));
    let routing = RailxRouting::new(
        &dragonfly.network,
        &dragonfly.system.regions[0],
        Scheme::Minimal,
    )
    .unwrap();
    assert_eq!(
        route_stats(&routing, usize::MAX, 0)
            .unwrap()
            .max_inter_node_hops,
        3
    );
    check_routes_against(&dragonfly, Scheme::Minimal, false);
    check_routes_against(
        &realized(&preset(system(1, 2, 14, [7, 3]), Preset::Dragonfly)),
        Scheme::Minimal,
        false,
    );
    let high = general(
        system(2, 2, 18, [9, 8]),
        vec![dim(3, DimKind::Ring, 2), dim(3, DimKind::AllToAll, 2)],
        vec![dim(4, DimKind::Ring, 2), dim(2, DimKind::Ring, 2)],
    );
    check_routes(&realized(&high), Scheme::Minimal);
    check_routes(&realized(&high), Scheme::Dateline);
}

#[test]
fn adaptive_routing_uses_at_most_diameter_plus_twice_the_misroutes_plus_one_vcs() {
    let r = realized(&preset(system(2, 2, 10, [5, 5]), Preset::Hyperx));
    let routing = RailxRouting::new(
        &r.network,
        &r.system.regions[0],
        Scheme::Adaptive { misroutes: 1 },
    )
    .unwrap();
    assert_eq!(routing.vcs(), 2 + 2 + 1);
    let report = exhaustive(&routing).unwrap();
    assert!(report.acyclic, "{:?}", report.cycle);
    assert_eq!(
        report.vcs_used, 5,
        "a misroute that undoes a correction needs the last VC"
    );
    // At a node's entry the packet may choose among minimal and misrouted next nodes.
    let mut hops = Vec::new();
    routing.next_hops(
        0,
        routing.chips()[routing.chips().len() - 1],
        &RouteState::start(),
        &mut hops,
    );
    assert!(hops.len() > 2, "{hops:?}");
}

#[test]
fn one_vc_on_a_torus_is_found_cyclic_with_the_cycle() {
    let r = realized(&preset(system(1, 1, 12, [6, 1]), Preset::Torus));
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
    let report = exhaustive(&SingleVc(&routing)).unwrap();
    assert!(!report.acyclic);
    let cycle = report.cycle.unwrap();
    assert!(cycle.len() >= 2);
    // Consecutive channels chain: each link starts where the previous one ends.
    for pair in cycle.windows(2) {
        assert_eq!(pair[0].to_chip, pair[1].from_chip);
    }
    assert_eq!(cycle[cycle.len() - 1].to_chip, cycle[0].from_chip);
}

/// Every dependency of every route choice of every pair, walked naively (no state is expanded
/// only once, no bitset): the reference the exhaustive check's graph must equal.
fn naive_dependencies(routing: &dyn Routing) -> std::collections::BTreeSet<u64> {
    let vcs = routing.vcs() as u64;
    let channel = |link: u32, vc: u8| link as u64 * vcs + vc as u64;
    let mut deps = std::collections::BTreeSet::new();
    for &src in routing.chips() {
        for &dst in routing.chips().iter().filter(|&&d| d != src) {
            let mut stack = vec![(src, RouteState::start(), None::<u64>)];
            while let Some((chip, state, held)) = stack.pop() {
                let mut hops = Vec::new();
                routing.next_hops(chip, dst, &state, &mut hops);
                for hop in hops {
                    let next = channel(hop.link, hop.vc);
                    if let Some(h) = held {
                        deps.insert(h << 32 | next);
                    }
                    stack.push((routing.link_target(hop.link), hop.state, Some(next)));
                }
            }
        }
    }
    deps
}

/// The exhaustive check's dependencies equal the naive walk's, and so do its verdict and cycle.
fn assert_graph_is_the_naive_walks(routing: &dyn Routing, what: &str) {
    let naive: Vec<u64> = naive_dependencies(routing).into_iter().collect();
    assert_eq!(dependencies(routing).unwrap(), naive, "{what}");
    let report = exhaustive(routing).unwrap();
    assert_eq!(report.dependencies, naive.len(), "{what}");
    assert_eq!(report.acyclic, find_cycle(&naive).is_none(), "{what}");
    let vcs = routing.vcs() as u64;
    let cycle: Option<Vec<u64>> = report.cycle.map(|c| {
        c.iter()
            .map(|ch| ch.link as u64 * vcs + ch.vc as u64)
            .collect()
    });
    assert_eq!(cycle, find_cycle(&naive), "{what}");
}

/// Small RailX regions of each preset (a torus also with two mesh lanes) and the schemes that
/// apply to each.
fn small_regions() -> Vec<(&'static str, Realized, Vec<Scheme>)> {
    let adaptive = Scheme::Adaptive { misroutes: 1 };
    vec![
        (
            "torus",
            realized(&preset(system(2, 1, 8, [3, 4]), Preset::Torus)),
            vec![
                Scheme::Minimal,
                adaptive,
                Scheme::Dateline,
                Scheme::Balanced,
            ],
        ),
        (
            "torus, 2 lanes",
            realized(&preset(system(2, 2, 8, [3, 3]), Preset::Torus)),
            vec![Scheme::Minimal, Scheme::Dateline],
        ),
        (
            "hyperx",
            realized(&preset(system(2, 2, 8, [3, 3]), Preset::Hyperx)),
            vec![Scheme::Minimal, adaptive, Scheme::Balanced, Scheme::Phased],
        ),
        (
            "dragonfly",
            realized(&preset(system(2, 2, 14, [7, 3]), Preset::Dragonfly)),
            vec![Scheme::Minimal, adaptive],
        ),
    ]
}

#[test]
fn exhaustive_graph_equals_a_naive_walk_of_every_route() {
    // Acyclic (several choices per hop under adaptive and balanced) and cyclic (one VC): the
    // same dependencies, so the same verdict and the same cycle as any walk that finds them.
    // RailX functions walk a node's chips as one group of destinations; the torus peer walks
    // each chip alone.
    for (name, r, schemes) in small_regions() {
        for scheme in schemes {
            let routing = RailxRouting::new(&r.network, &r.system.regions[0], scheme).unwrap();
            assert!(routing.destinations_per_group() > 1);
            let what = format!("{name}, {scheme:?}");
            assert_graph_is_the_naive_walks(&routing, &what);
            assert_graph_is_the_naive_walks(&SingleVc(&routing), &format!("{what}, one VC"));
        }
    }
    let spec: railx_core::peers::PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [4, 4, 4], "ports_per_direction": 2}"#,
    )
    .unwrap();
    let net = spec.network().unwrap();
    for scheme in [TorusVcs::HopCount, TorusVcs::Partition] {
        let routing = TorusRouting::new(&net, &[4, 4, 4], scheme).unwrap();
        assert_graph_is_the_naive_walks(&routing, &format!("torus peer, {scheme:?}"));
    }
}

/// The verdict, VCs used, dependency count and cycle do not depend on the threads walking.
#[test]
fn exhaustive_check_is_the_same_for_any_thread_count() {
    let r = realized(&preset(system(2, 2, 8, [4, 3]), Preset::Torus));
    let region = &r.system.regions[0];
    let adaptive =
        RailxRouting::new(&r.network, region, Scheme::Adaptive { misroutes: 1 }).unwrap();
    let minimal = RailxRouting::new(&r.network, region, Scheme::Minimal).unwrap();
    let cyclic = SingleVc(&minimal);
    for routing in [&adaptive as &dyn Routing, &cyclic] {
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| exhaustive(routing).unwrap())
        };
        let one = on(1);
        assert_eq!(one.acyclic, routing.name() != "single-vc");
        for threads in [2, 3, 5] {
            assert_eq!(on(threads), one, "{} on {threads} threads", routing.name());
        }
    }
}

#[test]
fn all_to_all_link_load_counts_every_route() {
    let r = realized(&preset(system(2, 2, 10, [5, 5]), Preset::Hyperx));
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
    let load = all_to_all_link_load(&routing, r.network.links()).unwrap();
    let stats = route_stats(&routing, usize::MAX, 0).unwrap();
    let n = routing.chips().len() as f64;
    // Sum of loads = total hops of all routes / (n - 1) = n * mean route length.
    let total: f64 = load.iter().sum();
    let mean_hops = stats.mean_inter_node_hops + stats.mean_intra_node_hops;
    assert!((total - n * mean_hops).abs() < 1e-6 * total);
}

/// The parallel mesh lanes between two chips are interchangeable, so they carry equal load; the
/// loads are the same on any number of threads.
#[test]
fn all_to_all_link_load_splits_every_hop_over_the_parallel_lanes() {
    let r = realized(&preset(system(3, 2, 12, [3, 3]), Preset::Hyperx));
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| all_to_all_link_load(&routing, r.network.links()).unwrap())
    };
    let load = on(1);
    let net = &r.network;
    let mut lanes = std::collections::BTreeMap::<(u32, u32), Vec<f64>>::new();
    for ((&a, &b), &x) in net.src.iter().zip(&net.dst).zip(&load) {
        lanes.entry((a, b)).or_default().push(x);
    }
    let parallel: Vec<_> = lanes.values().filter(|v| v.len() > 1).collect();
    assert!(
        !parallel.is_empty(),
        "a RailX node with n = 2 has mesh lanes"
    );
    for group in parallel {
        assert!(group.iter().all(|&x| x == group[0]), "lanes {group:?}");
    }
    for threads in [2, 3] {
        assert_eq!(on(threads), load, "{threads} threads");
    }
}

#[test]
fn bad_routing_options_are_refused() {
    let r = realized(&preset(system(2, 2, 10, [5, 5]), Preset::Hyperx));
    let err = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Dateline)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("routing = dateline") && err.contains("no ring dimension"),
        "{err}"
    );
    let routing = RailxRouting::new(&r.network, &r.system.regions[0], Scheme::Minimal).unwrap();
    assert!(routing
        .node_of(10_000)
        .unwrap_err()
        .to_string()
        .starts_with("chip = 10000"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn random_general_forms_route_minimally_without_deadlock(
        (m, n) in (1u32..=2, 1u32..=3),
        x in prop::collection::vec((2u32..=5, any::<bool>()), 0..=2),
        y in prop::collection::vec((2u32..=5, any::<bool>()), 0..=2),
    ) {
        let axis = |dims: &[(u32, bool)]| dims.iter().map(|&(s, a2a)| {
            if a2a && has_decomposition(s as usize) { dim(s, DimKind::AllToAll, s - 1) } else { dim(s, DimKind::Ring, 1) }
        }).collect::<Vec<_>>();
        let (xs, ys) = (axis(&x), axis(&y));
        let r = m * n;
        prop_assume!(xs.iter().map(|d| d.rails).sum::<u32>() <= r && ys.iter().map(|d| d.rails).sum::<u32>() <= r);
        let (p, q) = (xs.iter().map(|d| d.size).product::<u32>(), ys.iter().map(|d| d.size).product::<u32>());
        prop_assume!(p * q * m * m <= 400);
        let spec = general(system(m, n, 2 * p.max(q), [p, q]), xs, ys);
        check_routes(&realized(&spec), Scheme::Minimal);
    }
}

/// The 3D torus peer (TPUv4-style) with dimension-order routing: valid minimal routes, acyclic
/// with datelines (6 VCs) and with hop-count VCs; one VC deadlocks.
#[test]
fn torus3d_peer_dimension_order_routing() {
    use railx_core::peers::PeerSpec;
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [4, 4, 8], "ports_per_direction": 1}"#,
    )
    .unwrap();
    let net = spec.network().unwrap();
    for (scheme, vcs) in [
        (TorusVcs::HopCount, 8),
        (TorusVcs::Dateline, 6),
        (TorusVcs::Partition, 6),
    ] {
        let routing = TorusRouting::new(&net, &[4, 4, 8], scheme).unwrap();
        let stats = route_stats(&routing, usize::MAX, 0).unwrap();
        assert_eq!(stats.max_inter_node_hops, 2 + 2 + 4);
        let report = exhaustive(&routing).unwrap();
        assert!(report.acyclic, "{scheme:?}: {:?}", report.cycle);
        assert_eq!(report.vcs_used, vcs);
    }
    let routing = TorusRouting::new(&net, &[4, 4, 8], TorusVcs::HopCount).unwrap();
    assert!(!exhaustive(&SingleVc(&routing)).unwrap().acyclic);
    assert!(TorusRouting::new(&net, &[4, 4, 4], TorusVcs::Dateline).is_err());
}

/// A hop of a torus route: its dimension, ring positions before and after, VC.
type RingHop = (usize, u32, u32, u8);

/// Every route of `routing` from `at` to `dst` (each branch of every choice), hop by hop.
fn torus_routes(
    routing: &TorusRouting,
    dims: &[u32],
    at: u32,
    dst: u32,
    state: RouteState,
    taken: &mut Vec<RingHop>,
    routes: &mut Vec<Vec<RingHop>>,
) {
    if at == dst {
        routes.push(taken.clone());
        return;
    }
    let mut hops = Vec::new();
    routing.next_hops(at, dst, &state, &mut hops);
    assert!(!hops.is_empty(), "{at} -> {dst}");
    for hop in hops {
        let next = routing.link_target(hop.link);
        let (mut stride, mut d) = (1, 0);
        while at / stride % dims[d] == next / stride % dims[d] {
            stride *= dims[d];
            d += 1;
        }
        taken.push((d, at / stride % dims[d], next / stride % dims[d], hop.vc));
        torus_routes(routing, dims, next, dst, hop.state, taken, routes);
        taken.pop();
    }
}

/// BookSim2's torus routing (`dateline-partition`): a ring is travelled on one VC, the second of
/// its dimension exactly when the way round crosses the wrap-around link; half-way round an even
/// ring both ways are offered (and no other choice), picked at random; every route is minimal;
/// with parallel links too, the channel dependency graph is acyclic.
#[test]
fn torus_partition_routing_fixes_a_ring_vc_by_its_wrap() {
    use railx_core::peers::PeerSpec;
    use railx_core::routing::Selection;
    for (dims, ports) in [([8u32, 4, 1], 1usize), ([4, 12, 1], 2)] {
        let coord = |chip: u32, d: usize| chip / dims[..d].iter().product::<u32>() % dims[d];
        let spec: PeerSpec = serde_json::from_value(serde_json::json!(
            {"family": "torus3d", "dims": dims, "ports_per_direction": ports}
        ))
        .unwrap();
        let net = spec.network().unwrap();
        let routing = TorusRouting::new(&net, &dims, TorusVcs::Partition).unwrap();
        assert_eq!(routing.selection(), Selection::Random);
        let chips = dims.iter().product::<u32>();
        for src in 0..chips {
            for dst in (0..chips).filter(|&d| d != src) {
                let mut routes = Vec::new();
                torus_routes(
                    &routing,
                    &dims,
                    src,
                    dst,
                    RouteState::start(),
                    &mut vec![],
                    &mut routes,
                );
                let mut both_ways = 1;
                for (d, &k) in dims.iter().enumerate() {
                    let (from, to) = (coord(src, d), coord(dst, d));
                    if k > 2 && 2 * ((to + k - from) % k) == k {
                        both_ways *= 2;
                    }
                }
                // Parallel links repeat each way once per port and hop.
                let hops_total: usize = routes[0].len();
                assert_eq!(
                    routes.len(),
                    both_ways * ports.pow(hops_total as u32),
                    "{src} -> {dst}"
                );
                for route in &routes {
                    for (d, &k) in dims.iter().enumerate() {
                        let ring: Vec<_> = route.iter().filter(|h| h.0 == d).collect();
                        let (from, to) = (coord(src, d), coord(dst, d));
                        let forward = (to + k - from) % k;
                        assert_eq!(ring.len() as u32, forward.min(k - forward), "minimal");
                        let crosses = ring.iter().any(
                            |&&(_, a, b, _)| {
                                if b == (a + 1) % k {
                                    b < a
                                } else {
                                    b > a
                                }
                            },
                        );
                        let Some(first) = ring.first() else { continue };
                        assert!(ring.iter().all(|h| h.3 == first.3), "one VC per ring");
                        assert_eq!(
                            first.3,
                            2 * d as u8 + crosses as u8,
                            "{src} -> {dst} {route:?}"
                        );
                    }
                }
            }
        }
        let report = exhaustive(&routing).unwrap();
        assert!(report.acyclic, "{dims:?}: {:?}", report.cycle);
    }
}

/// A torus with two ports per direction offers both parallel links at every hop (same next chip,
/// same VC), and stays acyclic with datelines and with hop-count VCs.
#[test]
fn torus_with_parallel_links_offers_every_one() {
    use railx_core::peers::PeerSpec;
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [4, 8, 1], "ports_per_direction": 2}"#,
    )
    .unwrap();
    let net = spec.network().unwrap();
    for scheme in [TorusVcs::HopCount, TorusVcs::Dateline] {
        let routing = TorusRouting::new(&net, &[4, 8, 1], scheme).unwrap();
        let mut used = vec![false; net.links()];
        let mut hops = Vec::new();
        for &src in routing.chips() {
            for &dst in routing.chips().iter().filter(|&&d| d != src) {
                hops.clear();
                routing.next_hops(src, dst, &RouteState::start(), &mut hops);
                assert_eq!(hops.len(), 2, "{src} -> {dst}");
                assert_ne!(hops[0].link, hops[1].link);
                assert_eq!(hops[0].vc, hops[1].vc);
                assert_eq!(hops[0].state, hops[1].state);
                for hop in &hops {
                    assert_eq!(routing.link_source(hop.link), src);
                    assert_eq!(
                        routing.link_target(hop.link),
                        routing.link_target(hops[0].link)
                    );
                    used[hop.link as usize] = true;
                }
            }
        }
        // Every link of the torus is some packet's hop.
        assert!(used.iter().all(|&u| u));
        let report = exhaustive(&routing).unwrap();
        assert!(report.acyclic, "{:?}", report.cycle);
    }
}

/// Fat-tree peers (non-blocking, tapered, rail-optimised) with up*/down* + ECMP: every route
/// climbs to the lowest common level and back down (minimal), ECMP offers every up link, and one
/// VC is acyclic.
#[test]
fn fat_tree_peers_route_up_down_without_deadlock() {
    use railx_core::peers::PeerSpec;
    use railx_core::routing::updown::UpDownRouting;
    for (spec, max_hops) in [
        (r#"{"family": "fat-tree", "radix": 8, "chips": 32}"#, 4),
        (
            r#"{"family": "fat-tree", "radix": 8, "chips": 48, "tiers": 3, "taper": [3, 1]}"#,
            6,
        ),
        (
            r#"{"family": "fat-tree", "radix": 4, "chips": 16, "tiers": 3, "planes": 2}"#,
            6,
        ),
    ] {
        let spec: PeerSpec = serde_json::from_str(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let net = spec.network().unwrap();
        let routing = UpDownRouting::new(&net).unwrap();
        let stats = route_stats(&routing, usize::MAX, 0).unwrap();
        assert!(stats.max_inter_node_hops <= max_hops, "{stats:?}");
        assert_eq!(
            stats.max_inter_node_hops % 2,
            0,
            "up and down the same number of levels"
        );
        let report = exhaustive(&routing).unwrap();
        assert!(report.acyclic, "{:?}", report.cycle);
        assert_eq!(report.vcs_used, 1);
        // ECMP: a chip's first hop may take any of its up links.
        let mut hops = Vec::new();
        routing.next_hops(
            0,
            routing.chips()[routing.chips().len() - 1],
            &RouteState::start(),
            &mut hops,
        );
        assert_eq!(hops.len(), net.src.iter().filter(|&&s| s == 0).count());
    }
    let torus: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [4, 4, 4], "ports_per_direction": 1}"#,
    )
    .unwrap();
    let err = UpDownRouting::new(&torus.network().unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("routing = updown") && err.contains("layered"),
        "{err}"
    );
}

/// Packet-switched HyperX peers: dimension order over the switch lattice, ECMP over planes;
/// minimal (chip, switch hops, chip) and acyclic with one VC.
#[test]
fn hyperx_peer_dimension_order_routing() {
    use railx_core::peers::PeerSpec;
    use railx_core::routing::hyperx::HyperxRouting;
    for (spec, dims, terminals) in [
        (
            r#"{"family": "hyperx", "dims": [4, 4], "terminals": 2, "radix": 8}"#,
            vec![4, 4],
            2,
        ),
        (
            r#"{"family": "hyperx", "dims": [3, 3, 2], "terminals": 2, "radix": 8, "planes": 2}"#,
            vec![3, 3, 2],
            2,
        ),
    ] {
        let net = serde_json::from_str::<PeerSpec>(spec)
            .unwrap()
            .network()
            .unwrap();
        let routing = HyperxRouting::new(&net, &dims, terminals).unwrap();
        let stats = route_stats(&routing, usize::MAX, 0).unwrap();
        assert_eq!(
            stats.max_inter_node_hops as usize,
            2 + dims.iter().filter(|&&s| s > 1).count()
        );
        let report = exhaustive(&routing).unwrap();
        assert!(report.acyclic, "{:?}", report.cycle);
        assert_eq!(report.vcs_used, 1);
    }
}

#[test]
fn peer_routing_is_chosen_by_name_and_refused_where_it_does_not_apply() {
    use railx_core::peers::PeerSpec;
    use railx_core::routing::peer::for_peer;
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [4, 4, 4], "ports_per_direction": 1}"#,
    )
    .unwrap();
    let net = spec.network().unwrap();
    assert_eq!(for_peer(&spec, &net, None).unwrap().name(), "dateline");
    assert_eq!(
        for_peer(&spec, &net, Some("minimal")).unwrap().name(),
        "minimal"
    );
    let err = for_peer(&spec, &net, Some("updown"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("routing = updown") && err.contains("dateline, minimal"),
        "{err}"
    );
}

/// Fewest and most links over every choice from (chip, state) to `dst`, each hop checked to
/// leave its chip on a VC the function has.
fn length_range(
    routing: &dyn Routing,
    at: u32,
    dst: u32,
    state: RouteState,
    memo: &mut std::collections::HashMap<(u32, RouteState), (usize, usize)>,
) -> (usize, usize) {
    if at == dst {
        return (0, 0);
    }
    if let Some(&known) = memo.get(&(at, state)) {
        return known;
    }
    let mut hops = Vec::new();
    routing.next_hops(at, dst, &state, &mut hops);
    assert!(!hops.is_empty(), "stuck at {at} bound for {dst}");
    let mut range = (usize::MAX, 0);
    for hop in hops {
        assert_eq!(routing.link_source(hop.link), at);
        assert!(hop.vc < routing.vcs());
        let (lo, hi) = length_range(routing, routing.link_target(hop.link), dst, hop.state, memo);
        range = (range.0.min(lo + 1), range.1.max(hi + 1));
    }
    memo.insert((at, state), range);
    range
}

/// `balanced` takes `minimal`'s inter-node route and exit links but may cross each mesh YX:
/// every choice is exactly as long as the minimal route, YX is really offered, and the channel
/// dependency graph stays acyclic within two VCs per hop class.
#[test]
fn balanced_routes_are_as_short_as_minimal_and_acyclic() {
    for m in [2, 3, 4] {
        let r = realized(&preset(system(m, 2, 2 * 5, [5, 5]), Preset::Hyperx));
        let region = &r.system.regions[0];
        let minimal = RailxRouting::new(&r.network, region, Scheme::Minimal).unwrap();
        let balanced = RailxRouting::new(&r.network, region, Scheme::Balanced).unwrap();
        assert_eq!(balanced.vcs(), 2 * minimal.vcs());
        for &dst in balanced.chips() {
            let mut memo = std::collections::HashMap::new();
            for &src in balanced.chips() {
                let shortest = route(&minimal, src, dst).unwrap().len();
                let range = length_range(&balanced, src, dst, RouteState::start(), &mut memo);
                assert_eq!(range, (shortest, shortest), "m = {m}: {src} -> {dst}");
            }
        }
        // From a corner chip to the opposite corner of its node: an XY and a YX first hop, each
        // on both of the n = 2 mesh lanes.
        let mut hops = Vec::new();
        let far = m * m - 1;
        balanced.next_hops(0, far, &RouteState::start(), &mut hops);
        assert_eq!(hops.len(), 4);
        let vcs: Vec<u8> = hops.iter().map(|h| h.vc).collect();
        assert_eq!(vcs, [0, 0, 1, 1]);
        let targets: Vec<u32> = hops
            .iter()
            .map(|h| r.network.dst[h.link as usize])
            .collect();
        assert_eq!((targets[0], targets[2]), (1, m));
        assert_eq!((targets[1], targets[3]), (1, m));
        let report = exhaustive(&balanced).unwrap();
        assert!(report.acyclic, "{:?}", report.cycle);
    }
}
