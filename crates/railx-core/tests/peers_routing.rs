//! Routing functions of the switched peers (Valiant on HyperX, Dragonfly minimal and Valiant,
//! Rail-only, HammingMesh dimension order) on several sizes: every choice of every route is a
//! valid path ending at the destination, minimal functions are as short as a breadth-first search
//! over the network, the exhaustive deadlock check is acyclic with the expected VCs, Valiant
//! routes pass their intermediate, and a Dragonfly with one VC is found cyclic.

mod common;

use common::SingleVc;
use railx_core::network::Network;
use railx_core::peers::PeerSpec;
use railx_core::plant::Axis;
use railx_core::routing::analysis::route;
use railx_core::routing::deadlock::exhaustive;
use railx_core::routing::peer::for_peer;
use railx_core::routing::{Hop, RouteState, Routing, Selection, NO_VIA};
use rustc_hash::FxHashMap;

fn peer(json: &str) -> (PeerSpec, Network) {
    let spec: PeerSpec = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
    let net = spec.network().unwrap();
    (spec, net)
}

/// Fewest and most links over every choice from (vertex, state) to `dst`; panics on a hop that
/// does not leave the vertex, a dead end before `dst`, or a route longer than 64 links.
fn lengths(
    routing: &dyn Routing,
    at: u32,
    dst: u32,
    state: RouteState,
    depth: u32,
    memo: &mut FxHashMap<(u32, RouteState), (u32, u32)>,
) -> (u32, u32) {
    if at == dst {
        return (0, 0);
    }
    if let Some(&known) = memo.get(&(at, state)) {
        return known;
    }
    assert!(depth < 64, "route to {dst} loops at vertex {at}");
    let mut hops: Vec<Hop> = Vec::new();
    routing.next_hops(at, dst, &state, &mut hops);
    assert!(!hops.is_empty(), "stuck at vertex {at} bound for {dst}");
    let mut range = (u32::MAX, 0);
    for hop in hops {
        assert_eq!(
            routing.link_source(hop.link),
            at,
            "link {} does not leave {at}",
            hop.link
        );
        assert!(hop.vc < routing.vcs());
        let (lo, hi) = lengths(
            routing,
            routing.link_target(hop.link),
            dst,
            hop.state,
            depth + 1,
            memo,
        );
        range = (range.0.min(lo + 1), range.1.max(hi + 1));
    }
    memo.insert((at, state), range);
    range
}

/// Checks every choice of every route; with `minimal`, that every choice is as short as the
/// network's shortest path. Returns the longest route in links.
fn check_all_routes(routing: &dyn Routing, net: &Network, minimal: bool) -> u32 {
    let mut longest = 0;
    for &dst in routing.chips() {
        let dist = common::bfs(net, dst);
        let mut memo = FxHashMap::default();
        for &src in routing.chips() {
            let (lo, hi) = lengths(routing, src, dst, RouteState::start(), 0, &mut memo);
            assert!(lo >= dist[src as usize]);
            if minimal {
                assert_eq!(
                    (lo, hi),
                    (dist[src as usize], dist[src as usize]),
                    "{src} -> {dst}"
                );
            }
            longest = longest.max(hi);
        }
    }
    longest
}

fn acyclic_vcs(routing: &dyn Routing) -> u8 {
    let report = exhaustive(routing).unwrap();
    assert!(report.acyclic, "{}: {:?}", routing.name(), report.cycle);
    report.vcs_used
}

/// The first hops a Valiant function offers at `src`, one per (plane, intermediate).
fn valiant_starts(routing: &dyn Routing, src: u32, dst: u32) -> Vec<Hop> {
    let mut hops = Vec::new();
    routing.next_hops(src, dst, &RouteState::start(), &mut hops);
    assert!(hops.iter().all(|h| h.state.via != NO_VIA));
    hops
}

/// Follows the first choice after `first` from `src`; the vertices visited.
fn follow(routing: &dyn Routing, dst: u32, first: Hop) -> Vec<u32> {
    let mut at = routing.link_target(first.link);
    let mut state = first.state;
    let mut visited = vec![at];
    let mut hops = Vec::new();
    while at != dst {
        hops.clear();
        routing.next_hops(at, dst, &state, &mut hops);
        at = routing.link_target(hops[0].link);
        state = hops[0].state;
        visited.push(at);
    }
    visited
}

#[test]
fn hyperx_valiant_passes_its_random_intermediate_without_deadlock() {
    for (json, switches, planes) in [
        (
            r#"{"family": "hyperx", "dims": [4, 4], "terminals": 2, "radix": 8}"#,
            16,
            1,
        ),
        (
            r#"{"family": "hyperx", "dims": [3, 3, 2], "terminals": 2, "radix": 8, "planes": 2}"#,
            18,
            2,
        ),
    ] {
        let (spec, net) = peer(json);
        let minimal = for_peer(&spec, &net, Some("minimal")).unwrap();
        check_all_routes(minimal.as_ref(), &net, true);
        assert_eq!(acyclic_vcs(minimal.as_ref()), 1);
        let valiant = for_peer(&spec, &net, Some("valiant")).unwrap();
        assert_eq!(valiant.selection(), Selection::Random);
        let dims = if switches == 16 { 2 } else { 3 };
        // Up, at most `dims` hops to the intermediate and `dims` on to the destination, down.
        assert_eq!(
            check_all_routes(valiant.as_ref(), &net, false),
            2 + 2 * dims
        );
        assert_eq!(acyclic_vcs(valiant.as_ref()), 2);
        let chips = net.chip_count;
        let (src, dst) = (0, chips - 1);
        let starts = valiant_starts(valiant.as_ref(), src, dst);
        assert_eq!(starts.len() as u32, switches * planes);
        for first in starts {
            // Chip 0 climbs to the first switch of the plane.
            let plane_first = net.dst[first.link as usize];
            let intermediate = plane_first + first.state.via;
            assert!(follow(valiant.as_ref(), dst, first).contains(&intermediate));
        }
    }
}

/// Global links are the Dragonfly builder's Y-axis links.
fn global_hops(net: &Network, path: &[Hop]) -> usize {
    path.iter()
        .filter(|h| net.axis[h.link as usize] == Axis::Y)
        .count()
}

#[test]
fn dragonfly_minimal_and_valiant_route_without_deadlock_and_one_vc_does_not() {
    for json in [
        r#"{"family": "dragonfly", "groups": 5, "routers": 4, "terminals": 2, "global_ports": 1, "radix": 8}"#,
        r#"{"family": "dragonfly", "groups": 3, "routers": 4, "terminals": 2, "global_ports": 1, "radix": 8}"#,
        r#"{"family": "dragonfly", "groups": 9, "routers": 4, "terminals": 2, "global_ports": 2, "radix": 8, "planes": 2}"#,
    ] {
        let (spec, net) = peer(json);
        let PeerSpec::Dragonfly(df) = &spec else {
            unreachable!()
        };
        let per_group = df.routers * df.terminals;
        let minimal = for_peer(&spec, &net, None).unwrap();
        assert_eq!(minimal.name(), "minimal");
        // Up, local, global, local, down at most; one global hop exactly between groups.
        assert_eq!(check_all_routes(minimal.as_ref(), &net, false), 5);
        for &src in minimal.chips() {
            for &dst in minimal.chips() {
                let path = route(minimal.as_ref(), src, dst).unwrap();
                let between = src / per_group != dst / per_group;
                assert_eq!(global_hops(&net, &path), between as usize);
                if !between {
                    assert!(path.len() <= 3, "inside a group: up, local, down");
                }
            }
        }
        assert_eq!(acyclic_vcs(minimal.as_ref()), 2);
        let broken = exhaustive(&SingleVc(minimal.as_ref())).unwrap();
        assert!(
            !broken.acyclic,
            "{json}: one VC must close a local-global cycle"
        );
        assert!(broken.cycle.unwrap().len() >= 2);

        let valiant = for_peer(&spec, &net, Some("valiant")).unwrap();
        assert_eq!(check_all_routes(valiant.as_ref(), &net, false), 7);
        assert_eq!(acyclic_vcs(valiant.as_ref()), 3);
        let (src, dst) = (0, net.chip_count - 1);
        let starts = valiant_starts(valiant.as_ref(), src, dst);
        assert_eq!(starts.len() as u32, df.groups * df.planes);
        for first in starts {
            let chips = net.chip_count;
            let group_of = |v: u32| (v - chips) % (df.groups * df.routers) / df.routers;
            let visited = follow(valiant.as_ref(), dst, first);
            assert!(visited
                .iter()
                .any(|&v| v >= chips && group_of(v) == first.state.via));
        }
    }
}

#[test]
fn rail_only_routes_are_shortest_paths_through_the_hb_domain_and_acyclic() {
    for json in [
        // Rail-only proper: HB domains of 4, one rail per rank, 1-tier rails.
        r#"{"family": "rail-only", "radix": 8, "hb_domain": 4, "hb_ports_per_chip": 4, "dims": [{"size": 8, "rails": 1}]}"#,
        // 2-tier rails (8 endpoints on radix 4), two rails per rank.
        r#"{"family": "rail-only", "radix": 4, "hb_domain": 2, "hb_ports_per_chip": 2, "dims": [{"size": 8, "rails": 2}]}"#,
        // RailX's "2D fat-tree": two rail dimensions, no HB domain.
        r#"{"family": "rail-only", "radix": 4, "dims": [{"size": 4, "rails": 2}, {"size": 3, "rails": 1}]}"#,
        // HB domains as switches (NVSwitch), 1- and 2-tier rails.
        r#"{"family": "rail-only", "radix": 8, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 9, "dims": [{"size": 8, "rails": 1}]}"#,
        r#"{"family": "rail-only", "radix": 4, "hb_domain": 3, "hb_model": "switch", "hb_ports_per_chip": 9, "dims": [{"size": 6, "rails": 1}]}"#,
    ] {
        let (spec, net) = peer(json);
        let routing = for_peer(&spec, &net, None).unwrap();
        check_all_routes(routing.as_ref(), &net, true);
        assert_eq!(acyclic_vcs(routing.as_ref()), 1, "{json}");
    }
    // Across domains and rails the HB hop comes first: to the chip of the destination's rank.
    let (spec, net) = peer(
        r#"{"family": "rail-only", "radix": 8, "hb_domain": 4, "hb_ports_per_chip": 4, "dims": [{"size": 8, "rails": 1}]}"#,
    );
    let routing = for_peer(&spec, &net, None).unwrap();
    let path = route(routing.as_ref(), 1, 4 * 5 + 3).unwrap();
    assert_eq!(routing.link_target(path[0].link), 3);
    assert!(!routing.is_external(path[0].link));
    assert_eq!(
        path.iter().filter(|h| routing.is_external(h.link)).count(),
        2
    );
}

#[test]
fn hb_switch_routes_take_two_hb_hops_and_forward_only_on_rail_only() {
    let (spec, net) = peer(
        r#"{"family": "rail-only", "radix": 8, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 9, "dims": [{"size": 8, "rails": 1}]}"#,
    );
    let routing = for_peer(&spec, &net, None).unwrap();
    // Chip 1 of domain 0 to chip 3 of domain 5: through domain 0's switch (vertex 32) to chip 3,
    // then up and down rail 3's single switch.
    let path = route(routing.as_ref(), 1, 4 * 5 + 3).unwrap();
    let stops: Vec<u32> = path.iter().map(|h| routing.link_target(h.link)).collect();
    assert_eq!(&stops[..2], &[32, 3]);
    assert_eq!(path.len(), 4);
    assert_eq!(
        path.iter().filter(|h| routing.is_external(h.link)).count(),
        2
    );

    // Rail-optimised: the same HB domains, one Clos; no forwarding, so a cross-rail pair goes
    // straight into the Clos, deadlock-free on one VC.
    for json in [
        r#"{"family": "rail-optimised", "radix": 8, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 9, "domains": 8}"#,
        r#"{"family": "rail-optimised", "radix": 4, "hb_domain": 2, "hb_ports_per_chip": 4, "domains": 6}"#,
        r#"{"family": "rail-optimised", "radix": 4, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 4, "domains": 4}"#,
    ] {
        let (spec, net) = peer(json);
        let routing = for_peer(&spec, &net, None).unwrap();
        // Not always the fewest hops: a one-hop full-mesh detour can reach a shared leaf.
        check_all_routes(routing.as_ref(), &net, false);
        assert_eq!(acyclic_vcs(routing.as_ref()), 1, "{json}");
        let path = route(routing.as_ref(), 1, net.chip_count - 1).unwrap();
        assert!(path.iter().all(|h| routing.is_external(h.link)), "{json}");
    }
}

#[test]
fn hammingmesh_dimension_order_crosses_one_tree_per_board_coordinate_without_deadlock() {
    // VCs: one more per tree crossed before a mesh hop; on 2 x 2 boards every chip is at an
    // edge, so the second tree lands on the destination itself.
    for (json, vcs) in [
        (
            r#"{"family": "hammingmesh", "a": 2, "boards": [3, 3], "radix": 8}"#,
            2,
        ),
        (
            r#"{"family": "hammingmesh", "a": 3, "boards": [2, 3], "radix": 8, "planes": 2}"#,
            3,
        ),
        (
            r#"{"family": "hammingmesh", "a": 4, "boards": [4, 2], "radix": 4, "tiers": 2}"#,
            3,
        ),
        (
            r#"{"family": "hammingmesh", "a": 3, "boards": [4, 1], "radix": 8}"#,
            2,
        ),
    ] {
        let (spec, net) = peer(json);
        let PeerSpec::Hammingmesh(hm) = &spec else {
            unreachable!()
        };
        let routing = for_peer(&spec, &net, None).unwrap();
        assert_eq!(routing.name(), "dimension-order");
        check_all_routes(routing.as_ref(), &net, false);
        let (a, width) = (hm.a, hm.a * hm.boards[0]);
        let half = (a - 1) / 2;
        for &src in routing.chips() {
            for &dst in routing.chips() {
                let path = route(routing.as_ref(), src, dst).unwrap();
                let (x, y, dx, dy) = (src % width, src / width, dst % width, dst / width);
                let crossings = (x / a != dx / a) as usize + (y / a != dy / a) as usize;
                let landings = path
                    .iter()
                    .filter(|h| {
                        routing.is_external(h.link) && routing.link_target(h.link) < net.chip_count
                    })
                    .count();
                assert_eq!(
                    landings, crossings,
                    "{src} -> {dst}: one tree per board coordinate"
                );
                let mesh = path.iter().filter(|h| !routing.is_external(h.link)).count() as u32;
                if crossings == 0 {
                    assert_eq!(mesh, x.abs_diff(dx) + y.abs_diff(dy), "on one board: XY");
                } else {
                    // Each tree is left and entered at the board edge nearer the packet's line.
                    assert!(
                        mesh <= 4 * half + (a - 1),
                        "{src} -> {dst}: {mesh} mesh hops"
                    );
                }
                let vc = path.iter().map(|h| h.vc).max().unwrap_or(0);
                assert!(vc as usize <= crossings);
            }
        }
        assert_eq!(acyclic_vcs(routing.as_ref()), vcs, "{json}");
    }
}

#[test]
fn every_peer_family_names_its_functions_and_refuses_others() {
    let (spec, net) = peer(r#"{"family": "hammingmesh", "a": 2, "boards": [2, 2], "radix": 8}"#);
    let err = for_peer(&spec, &net, Some("valiant"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("routing = valiant") && err.contains("use one of dimension-order"),
        "{err}"
    );
    let (spec, net) = peer(
        r#"{"family": "dragonfly", "groups": 3, "routers": 2, "terminals": 1, "global_ports": 1, "radix": 4}"#,
    );
    let err = for_peer(&spec, &net, Some("updown"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("minimal, valiant"), "{err}");
}
