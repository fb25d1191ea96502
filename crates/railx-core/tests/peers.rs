//! Peer builders: bills of materials against hand-derived counts (RailX Table 6 and small
//! instances), against the materialised graph (vertices, links by class, switch degrees,
//! connectivity), the size guard and the input errors.

mod common;

use proptest::prelude::*;
use railx_core::bom::{railx_bom, railx_global, BillOfMaterials};
use railx_core::closed_form::region_closed_form;
use railx_core::network::{LinkClass, Network};
use railx_core::peers::PeerSpec;
use railx_core::plan::realize;
use railx_core::spec::Preset;
use serde_json::{json, Value};
use std::collections::VecDeque;

fn spec(v: Value) -> PeerSpec {
    serde_json::from_value(v).expect("valid peer spec")
}

fn bom(v: Value) -> BillOfMaterials {
    spec(v).bom().expect("valid peer")
}

fn err(v: Value) -> String {
    spec(v).bom().unwrap_err().to_string()
}

/// (packet switches, OCS, PCC, AOT) of a bill of materials.
fn counts(b: &BillOfMaterials) -> (u64, u64, u64, u64) {
    (b.packet_switch_count(), b.ocs_count(), b.pcc, b.aot)
}

/// Checks a materialised graph against its bill of materials: vertices, directed links by class,
/// switch degrees within the radix (equal to it when `full`), and strong connectivity.
fn check_graph(b: &BillOfMaterials, net: &Network, full: bool) {
    assert_eq!(net.chips() as u64, b.chips);
    assert_eq!(
        net.switch_radix.len() as u64,
        b.packet_switch_count() + b.hb_switch_count()
    );
    assert_eq!(net.links() as u64, 2 * b.links());
    let count = |class| net.class.iter().filter(|&&c| c == class).count() as u64;
    assert_eq!(
        count(LinkClass::Switch),
        2 * (b.chip_switch_links + b.switch_switch_links)
    );
    assert_eq!(count(LinkClass::Copper), 2 * b.pcc);
    assert_eq!(
        count(LinkClass::InterNodeOptical),
        2 * b.chip_chip_optical_links
    );
    assert_eq!(count(LinkClass::IntraNode), 2 * b.board_links);
    let vertices = net.vertices() as usize;
    let mut out_degree = vec![0u32; vertices];
    let mut adjacency = vec![Vec::new(); vertices];
    for i in 0..net.links() {
        out_degree[net.src[i] as usize] += 1;
        adjacency[net.src[i] as usize].push(net.dst[i]);
    }
    for (i, &radix) in net.switch_radix.iter().enumerate() {
        let degree = out_degree[net.chips() as usize + i];
        assert!(
            degree <= radix,
            "switch {i}: {degree} links > radix {radix}"
        );
        if full {
            assert_eq!(degree, radix, "switch {i} of a full instance");
        }
    }
    let mut seen = vec![false; vertices];
    let mut queue = VecDeque::from([0u32]);
    seen[0] = true;
    while let Some(v) = queue.pop_front() {
        for &w in &adjacency[v as usize] {
            if !std::mem::replace(&mut seen[w as usize], true) {
                queue.push_back(w);
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "graph is not connected");
}

#[test]
fn table6_peer_rows_count_as_hand_derived() {
    // 36 planes of a 2-tier Clos of 64-port switches: 64 leaves + 32 spines, 2 x 2048 links.
    let b =
        bom(json!({"family": "fat-tree", "radix": 64, "tiers": 2, "chips": 2048, "planes": 36}));
    assert_eq!(counts(&b), (36 * 96, 0, 0, 36 * 2 * 4096));
    // 1:3 taper: 48 down, 16 up: 64 leaves, 16 spines.
    let b = bom(
        json!({"family": "fat-tree", "radix": 64, "tiers": 2, "taper": [3], "chips": 3072, "planes": 36}),
    );
    assert_eq!(counts(&b), (36 * 80, 0, 0, 36 * 2 * (3072 + 1024)));
    assert!((b.global.bisection_frac - 1.0 / 3.0).abs() < 1e-12);
    // 4 tiers for 196,608: 3 lower tiers of N/32 switches and N/64 at the top.
    let b = bom(json!({"family": "fat-tree", "radix": 64, "chips": 196608, "planes": 36}));
    assert_eq!(counts(&b), (774_144, 0, 0, 56_623_104));
    // 1:7:49: 3584 leaves, 512 middle, 64 top switches per plane.
    let b = bom(
        json!({"family": "fat-tree", "radix": 64, "tiers": 3, "taper": [7, 7], "chips": 200704, "planes": 36}),
    );
    assert_eq!(counts(&b), (149_760, 0, 0, 16_809_984));
    assert!((b.global.bisection_frac - 1.0 / 49.0).abs() < 1e-12);
    // Hx(a)Mesh: one 64-port switch per (board row, chip row, plane) and per column likewise.
    let b =
        bom(json!({"family": "hammingmesh", "a": 4, "boards": [32, 32], "planes": 9, "radix": 64}));
    assert_eq!(counts(&b), (2304, 0, 0, 294_912));
    assert_eq!(b.global.bisection_frac, 1.0 / 8.0);
    let b =
        bom(json!({"family": "hammingmesh", "a": 7, "boards": [32, 32], "planes": 9, "radix": 64}));
    assert_eq!(counts(&b), (4032, 0, 0, 516_096));
    let b = bom(
        json!({"family": "hammingmesh", "a": 7, "boards": [64, 64], "planes": 9, "radix": 64, "tiers": 2}),
    );
    assert_eq!(counts(&b), (48_384, 0, 0, 4_128_768));
    // 16^3 torus of 4^3 cubes: 1/4 of x and y links and 3/4 of z links are copper, 1/4 optical.
    let torus = json!({"family": "torus3d", "dims": [16, 16, 16], "ports_per_direction": 6});
    let b = bom(torus.clone());
    assert_eq!(counts(&b), (0, 0, 30_720, 36_864));
    assert!((b.global.bisection_frac - 1.0 / 24.0).abs() < 1e-12);
    let mut tpu = torus;
    tpu["ocs_radix"] = json!(128);
    assert_eq!(counts(&bom(tpu)), (0, 288, 30_720, 36_864));
    // 2D fat-tree: 18 rails per row and per column, one 64-port switch each.
    let b = bom(
        json!({"family": "rail-only", "radix": 64, "dims": [{"size": 64, "rails": 18}, {"size": 64, "rails": 18}]}),
    );
    assert_eq!(counts(&b), (2304, 0, 0, 294_912));
    assert_eq!(b.global.bisection_frac, 0.5);
}

#[test]
fn railx_bom_matches_its_realized_network() {
    // A full 5x5 HyperX with r = 4: every rail port carries a circuit, so the BOM's maximum
    // circuit count and mesh links are the realized network's links.
    let config = common::preset(common::system(2, 2, 10, [5, 5]), Preset::Hyperx);
    let realized = realize(&config).unwrap();
    let plant = &realized.system.plant;
    let form = region_closed_form(plant, &realized.system.regions[0]);
    let b = railx_bom(
        plant,
        railx_global(plant, form.bisection_bw_per_chip, form.a2a_bound_per_chip),
    );
    assert_eq!(b.ocs_count(), 4 * 10);
    assert_eq!(b.aot, 25 * 4 * 2 * 2);
    assert_eq!(realized.network.links() as u64, 2 * b.links());
    assert!((b.global.a2a_frac - form.a2a_bound_per_chip / 8.0).abs() < 1e-12);
}

#[test]
fn small_instances_match_their_graphs() {
    let cases = [
        (
            json!({"family": "fat-tree", "radix": 8, "tiers": 2, "chips": 32, "planes": 2}),
            true,
        ),
        (
            json!({"family": "fat-tree", "radix": 4, "tiers": 3, "chips": 16}),
            true,
        ),
        (
            json!({"family": "fat-tree", "radix": 8, "tiers": 3, "taper": [3, 1], "chips": 96}),
            true,
        ),
        (
            json!({"family": "rail-only", "radix": 4, "hb_domain": 4, "hb_ports_per_chip": 9.0, "dims": [{"size": 8, "rails": 2}]}),
            true,
        ),
        (
            json!({"family": "rail-only", "radix": 8, "dims": [{"size": 8, "rails": 3}, {"size": 4, "rails": 1}]}),
            false,
        ),
        (
            json!({"family": "rail-only", "radix": 4, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 9.0, "dims": [{"size": 8, "rails": 1}]}),
            true,
        ),
        (
            json!({"family": "rail-optimised", "radix": 4, "hb_domain": 4, "hb_model": "switch", "hb_ports_per_chip": 9.0, "domains": 4}),
            true,
        ),
        (
            json!({"family": "rail-optimised", "radix": 8, "hb_domain": 8, "hb_ports_per_chip": 12.0, "domains": 16}),
            true,
        ),
        (
            json!({"family": "hammingmesh", "a": 2, "boards": [4, 3], "planes": 2, "radix": 8}),
            false,
        ),
        (
            json!({"family": "hammingmesh", "a": 3, "boards": [4, 4], "radix": 4, "tiers": 2}),
            true,
        ),
        (
            json!({"family": "torus3d", "dims": [4, 8, 4], "ports_per_direction": 2, "ocs_radix": 16}),
            false,
        ),
        (
            json!({"family": "hyperx", "dims": [3, 4], "terminals": 3, "radix": 8, "planes": 2}),
            true,
        ),
        (
            json!({"family": "dragonfly", "groups": 9, "routers": 4, "terminals": 2, "global_ports": 2, "radix": 7}),
            true,
        ),
        (
            json!({"family": "dragonfly", "groups": 5, "routers": 3, "terminals": 2, "global_ports": 2, "radix": 8}),
            false,
        ),
    ];
    for (v, full) in cases {
        let s = spec(v.clone());
        check_graph(&s.bom().unwrap(), &s.network().unwrap(), full);
    }
}

#[test]
fn small_torus_counts_by_hand() {
    // 8x4x4 chips, cubes of 4, boards 2x2, one port per direction: per dimension N = 128 links;
    // x and y: half on boards, a quarter copper, a quarter optical; z: 3/4 copper.
    let b = bom(json!({"family": "torus3d", "dims": [8, 4, 4], "ports_per_direction": 1}));
    assert_eq!(b.board_links, 64 + 64);
    assert_eq!(b.pcc, 32 + 32 + 96);
    assert_eq!(b.chip_chip_optical_links, 3 * 32);
}

#[test]
fn bad_inputs_name_the_field_and_a_fix() {
    let e =
        err(json!({"family": "fat-tree", "radix": 64, "tiers": 2, "taper": [4], "chips": 1000}));
    assert!(
        e.starts_with("fat_tree.taper[0] = 4: ") && e.contains("[1, 3, 7, 15, 31, 63]"),
        "{e}"
    );
    let e = err(json!({"family": "fat-tree", "radix": 64, "tiers": 2, "chips": 4096}));
    assert!(
        e.starts_with("fat_tree.chips = 4096: ")
            && e.contains("1 to 2048")
            && e.contains("3 tiers"),
        "{e}"
    );
    let e = err(json!({"family": "fat-tree", "radix": 64, "tiers": 3, "taper": [3], "chips": 10}));
    assert!(e.starts_with("fat_tree.taper = [3]: "), "{e}");
    let e = err(json!({"family": "hyperx", "dims": [16, 16], "terminals": 40, "radix": 64}));
    assert!(
        e.starts_with("hyperx.radix = 64: ") && e.contains("70"),
        "{e}"
    );
    let e = err(
        json!({"family": "dragonfly", "groups": 50, "routers": 4, "terminals": 2, "global_ports": 2, "radix": 8}),
    );
    assert!(
        e.starts_with("dragonfly.groups = 50: ") && e.contains("9 groups"),
        "{e}"
    );
    let e = err(json!({"family": "torus3d", "dims": [16, 16, 10], "ports_per_direction": 6}));
    assert!(e.starts_with("torus3d.dims[2] = 10: "), "{e}");
    let e = err(
        json!({"family": "torus3d", "dims": [32, 16, 16], "ports_per_direction": 6, "ocs_radix": 128}),
    );
    assert!(
        e.starts_with("torus3d.dims = [32, 16, 16] (8192 chips): ") && e.contains("64 cubes"),
        "{e}"
    );
    let e = err(
        json!({"family": "hammingmesh", "a": 4, "boards": [64, 32], "planes": 9, "radix": 64, "tiers": 1}),
    );
    assert!(e.starts_with("hammingmesh.boards[0].chips = 128: "), "{e}");
    let e = err(
        json!({"family": "rail-only", "radix": 64, "hb_domain": 8, "dims": [{"size": 16, "rails": 1}]}),
    );
    assert!(e.starts_with("rail_only.hb_ports_per_chip = 0: "), "{e}");
    let e = err(
        json!({"family": "rail-optimised", "radix": 64, "hb_domain": 8, "hb_model": "switch", "domains": 16}),
    );
    assert!(
        e.starts_with("rail_optimised.hb_ports_per_chip = 0: "),
        "{e}"
    );
    let e = err(json!({"family": "rail-optimised", "radix": 64, "domains": 0}));
    assert!(e.starts_with("rail_optimised.domains = 0: "), "{e}");
    let e = serde_json::from_value::<PeerSpec>(
        json!({"family": "rail-only", "radix": 8, "hb_domain": 2, "hb_model": "crossbar", "dims": [{"size": 4, "rails": 1}]}),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("crossbar") && e.contains("full-mesh") && e.contains("switch"),
        "{e}"
    );
}

fn fat_tree_strategy() -> impl Strategy<Value = Value> {
    (prop::sample::select(vec![4u32, 6, 8, 12]), 1u32..=3, 0usize..3).prop_flat_map(|(radix, tiers, pick)| {
        let tapers: Vec<u32> = (1..radix).filter(|t| radix % (t + 1) == 0).collect();
        let taper: Vec<u32> = (0..tiers - 1).map(|l| tapers[(pick + l as usize) % tapers.len()]).collect();
        let max = railx_core::peers::fat_tree::Clos::max_endpoints(radix, tiers, &taper).min(400);
        (1..=max, 1u32..=2).prop_map(move |(chips, planes)| {
            json!({"family": "fat-tree", "radix": radix, "tiers": tiers, "taper": taper, "chips": chips, "planes": planes})
        })
    })
}

fn other_families_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        (1u32..=3, 1u32..=4, 1u32..=4, 1u32..=2, 1u32..=2).prop_map(|(a, bx, by, planes, tiers)| {
            json!({"family": "hammingmesh", "a": a, "boards": [bx, by], "planes": planes, "radix": 8, "tiers": tiers})
        }),
        (1u32..=3, 1u32..=2, 1u32..=3, 1u32..=2, any::<bool>()).prop_map(|(x, y, z, p, ocs)| {
            let mut v = json!({"family": "torus3d", "dims": [2 * x, 2 * y, 2 * z], "cube": 2, "board": [2, 1], "ports_per_direction": p});
            if ocs {
                v["ocs_radix"] = json!(64);
            }
            v
        }),
        (prop::collection::vec(1u32..=4, 1..=3), 1u32..=3, 1u32..=2).prop_map(|(dims, t, planes)| {
            json!({"family": "hyperx", "dims": dims, "terminals": t, "radix": 16, "planes": planes})
        }),
        (1u32..=4, 1u32..=3, 1u32..=3, 2u32..=13).prop_map(|(a, p, h, g)| {
            let g = g.min(a * h + 1);
            json!({"family": "dragonfly", "groups": g, "routers": a, "terminals": p, "global_ports": h, "radix": 12})
        }),
        (prop::sample::select(vec![1u32, 2, 4]), 1u32..=6, 1u32..=3, 1u32..=3).prop_map(|(k, size, rails, size2)| {
            json!({"family": "rail-only", "radix": 4, "hb_domain": k, "hb_ports_per_chip": 4.0,
                   "dims": [{"size": size, "rails": rails}, {"size": size2, "rails": 1}]})
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fat_trees_match_their_graphs(v in fat_tree_strategy()) {
        let s = spec(v);
        let b = s.bom().unwrap();
        check_graph(&b, &s.network().unwrap(), false);
        // Every chip has one link per plane; bisection never exceeds full.
        prop_assert_eq!(b.chip_switch_links, b.chips * b.ports_per_chip as u64);
        prop_assert!(b.global.bisection_frac <= 1.0 && b.global.a2a_frac <= 1.0);
    }

    /// HB domains (full mesh or switch) and the rail-optimised Clos against closed forms: K(K-1)/2
    /// board links per domain on a full mesh, one switch per domain and one link per chip on the
    /// switch model; the one Clos of N = K y chips with L non-blocking tiers has S = ceil(2N/R)
    /// switches on every tier below the top and ceil(S/2) at the top (one switch for L = 1).
    #[test]
    fn hb_domains_and_rail_optimised_match_closed_forms(
        k in 1u32..=6,
        domains in 1u32..=12,
        radix in prop::sample::select(vec![4u32, 6, 8, 16]),
        switch in any::<bool>(),
        optimised in any::<bool>(),
    ) {
        let model = if switch { "switch" } else { "full-mesh" };
        let chips = (k * domains) as u64;
        let v = if optimised {
            json!({"family": "rail-optimised", "radix": radix, "hb_domain": k, "hb_model": model,
                   "hb_ports_per_chip": 9.0, "domains": domains})
        } else {
            json!({"family": "rail-only", "radix": radix, "hb_domain": k, "hb_model": model,
                   "hb_ports_per_chip": 9.0, "dims": [{"size": domains, "rails": 1}]})
        };
        let s = spec(v);
        let b = s.bom().unwrap();
        check_graph(&b, &s.network().unwrap(), false);
        let (k64, y) = (k as u64, domains as u64);
        let (hb_switches, board) = match (k, switch) {
            (1, _) => (0, 0),
            (_, true) => (y, chips),
            (_, false) => (0, y * k64 * (k64 - 1) / 2),
        };
        prop_assert_eq!(b.hb_switch_count(), hb_switches);
        prop_assert_eq!(b.board_links, board);
        // One NIC port per chip; the Clos (or the rails' Clos) count.
        let clos = |n: u64| {
            let tiers = railx_core::peers::fat_tree::Clos::min_tiers(n, radix) as u64;
            let leaves = n.div_ceil(radix as u64 / 2);
            let switches = if tiers == 1 { 1 } else { (tiers - 1) * leaves + leaves.div_ceil(2) };
            (switches, (tiers - 1) * leaves * radix as u64 / 2)
        };
        let (switches, uplinks) = if optimised {
            clos(chips)
        } else {
            let (s1, u1) = clos(y);
            (k64 * s1, k64 * u1)
        };
        prop_assert_eq!(b.packet_switch_count(), switches);
        prop_assert_eq!(b.chip_switch_links, chips);
        prop_assert_eq!(b.switch_switch_links, uplinks);
        prop_assert_eq!(b.aot, 2 * (chips + uplinks));
    }

    #[test]
    fn other_families_match_their_graphs(v in other_families_strategy()) {
        let s = spec(v);
        let b = s.bom().unwrap();
        check_graph(&b, &s.network().unwrap(), false);
        prop_assert!(b.global.bisection_frac > 0.0 && b.global.bisection_frac <= 1.0);
    }
}

#[test]
fn peer_graphs_export_switches_without_plant_coordinates() {
    let net = spec(json!({"family": "fat-tree", "radix": 4, "tiers": 2, "chips": 8}))
        .network()
        .unwrap();
    let mut text = Vec::new();
    net.write_json(&mut text).unwrap();
    let doc: Value = serde_json::from_slice(&text).unwrap();
    assert_eq!(doc["system"], Value::Null);
    assert_eq!(doc["chips"].as_array().unwrap().len(), 8);
    assert_eq!(doc["switches"][0], json!({"id": 8, "radix": 4}));
    assert_eq!(doc["links"].as_array().unwrap().len(), net.links());
    assert_eq!(doc["links"][0]["class"], "switch");
    let mut xml = Vec::new();
    net.write_graphml(&mut xml).unwrap();
    let xml = String::from_utf8(xml).unwrap();
    assert_eq!(xml.matches("<node ").count(), net.vertices() as usize);
    assert_eq!(xml.matches("<edge ").count(), net.links());
}
