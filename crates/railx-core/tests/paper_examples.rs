//! The RailX paper's worked configurations come out as the paper states them.

mod common;

use common::{dim, general, preset, system};
use railx_core::ocs::check_ports;
use railx_core::plan::{plan, realize};
use railx_core::spec::{DimKind, Preset};
use railx_core::verify::verify;
use std::collections::{HashMap, HashSet};

/// Fig. 5: 5 nodes joined all-to-all by 4 rails; every pair is joined twice, on two different rails.
#[test]
fn fig5_five_nodes_all_to_all_on_four_rails() {
    let spec = general(
        system(2, 2, 10, [5, 1]),
        vec![dim(5, DimKind::AllToAll, 4)],
        vec![],
    );
    let realized = realize(&spec).unwrap();
    verify(&realized.ocs, &realized.system).unwrap();
    let mut rails_per_pair: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for arc in check_ports(&realized.ocs).unwrap() {
        let pair = (arc.plus.min(arc.minus), arc.plus.max(arc.minus));
        rails_per_pair.entry(pair).or_default().push(arc.rail);
    }
    assert_eq!(rails_per_pair.len(), 10);
    for rails in rails_per_pair.values() {
        assert_eq!(rails.len(), 2);
        assert_ne!(rails[0], rails[1]);
    }
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.diameter_inter_node, Some(1));
    assert_eq!(plan.chips, 20);
}

/// Fig. 7: a 25-node 2D-HyperX from 4 X- and 4 Y-rails: inter-node diameter 2, Hi within 5m-6.
#[test]
fn fig7_hyperx_of_25_nodes() {
    let realized = realize(&preset(system(2, 2, 10, [5, 5]), Preset::Hyperx)).unwrap();
    let report = verify(&realized.ocs, &realized.system).unwrap();
    assert!(report.regions[0].strongly_connected);
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.nodes, 25);
    assert_eq!(plan.chips, 100);
    assert_eq!(plan.switches, 40);
    assert_eq!(plan.diameter_inter_node, Some(2));
    assert_eq!(plan.closed_form.diameter_inter_node, 2);
    assert_eq!(plan.diameter_hops.Ho, 2);
    assert!(
        plan.diameter_hops.Hi <= 5 * 2 - 6,
        "{:?}",
        plan.diameter_hops
    );
    // 25 nodes x 16 rails x 2 ports, all used.
    assert_eq!(plan.switch_ports_used, 25 * 16);
}

/// Fig. 8: a Dragonfly of 21 groups of 5 nodes (r = 4): one global link per ordered pair of
/// groups, inter-node diameter 3, and X-OCS radix 2G = 42.
#[test]
fn fig8_dragonfly_of_21_groups() {
    let realized = realize(&preset(system(2, 2, 42, [21, 5]), Preset::Dragonfly)).unwrap();
    verify(&realized.ocs, &realized.system).unwrap();
    let mut global_pairs = HashSet::new();
    for arc in check_ports(&realized.ocs)
        .unwrap()
        .iter()
        .filter(|a| a.axis == railx_core::plant::Axis::X)
    {
        assert!(
            global_pairs.insert((arc.plus, arc.minus)),
            "pair joined twice"
        );
    }
    assert_eq!(global_pairs.len(), 21 * 20);
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.chips, 5 * 21 * 4);
    assert_eq!(plan.diameter_inter_node, Some(3));
    assert_eq!(plan.closed_form.diameter_inter_node, 3);
    // Paper eq. 4 at full size: 2r/m^2 = 2 chips' worth... 2*4/4 = 2 port bandwidths per chip.
    assert!((plan.closed_form.a2a_bound_per_chip - 2.0).abs() < 1e-9);
    // 21 groups cannot be halved exactly: the balanced cut also splits one group, so it crosses
    // at least the paper's G(G-1) = 420 directed links and at most 15% more.
    let links = plan.regions[0].metrics.bisection_links as f64;
    assert!((420.0..=420.0 * 1.15).contains(&links), "{links}");
}

/// Fig. 9: the 4 x 3 x 3 x D x P high-dimensional topology with m = 2, n = 2 (r = 4): the mesh,
/// X = ring 3 x all-to-all 3 (2 rails each), Y = ring D x ring P (2 rails each), D*P <= R/2.
#[test]
fn fig9_high_dimensional_4x3x3_d_p() {
    let (d, p) = (4, 4);
    let spec = general(
        system(2, 2, 32, [9, d * p]),
        vec![dim(3, DimKind::Ring, 2), dim(3, DimKind::AllToAll, 2)],
        vec![dim(d, DimKind::Ring, 2), dim(p, DimKind::Ring, 2)],
    );
    let realized = realize(&spec).unwrap();
    verify(&realized.ocs, &realized.system).unwrap();
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.chips, 4 * 3 * 3 * d * p);
    // ring 3 (1) + all-to-all 3 (1) + ring 4 (2) + ring 4 (2)
    assert_eq!(plan.diameter_inter_node, Some(6));
    assert_eq!(plan.closed_form.diameter_inter_node, 6);
    assert_eq!(plan.diameter_hops.Ho, 6);
}

/// RailX7Mesh (paper Table 6): R = 128, m = 7, n = 9 as one 64 x 64-node 2D-HyperX: 200,704
/// chips on 8,064 switches; every port used; the paper's eq. 3 bound 2(r+1)/m^2 exactly.
#[test]
fn railx7mesh_full_scale_hyperx() {
    let mut sys = system(7, 9, 128, [64, 64]);
    sys.grid = None; // default: the full R/2 x R/2 grid
    let realized = realize(&preset(sys, Preset::Hyperx)).unwrap();
    verify(&realized.ocs, &realized.system).unwrap();
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.chips, 200_704);
    assert_eq!(plan.switches, 8_064);
    assert_eq!(plan.switch_ports_used, 8_064 * 128);
    assert_eq!(plan.diameter_inter_node, Some(2));
    assert!(plan.diameter_hops.Hi <= 5 * 7 - 6);
    assert!((plan.a2a_bound_per_chip - 2.0 * 64.0 / 49.0).abs() < 1e-12);
    assert_eq!(plan.a2a_bound_per_chip, plan.closed_form.a2a_bound_per_chip);
}
