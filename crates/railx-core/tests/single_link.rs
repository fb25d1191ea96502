//! The single-link all-to-all (RailX paper A.1: undirected Walecki cycles, each one bidirectional
//! rail ring): the decomposition, its synthesis and verification, the realized metrics against the
//! closed forms, and minimal routing, over random sizes.

mod common;

use common::{dim, general, system};
use proptest::prelude::*;
use railx_core::hamiltonian::{
    single_link_rail_count, single_link_rails, verify_single_link_rails,
};
use railx_core::plan::{plan, realize, Realized};
use railx_core::routing::analysis::{route, route_stats};
use railx_core::routing::deadlock::exhaustive;
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::routing::Routing;
use railx_core::spec::{ConfigSpec, DimKind, DimSpec};
use railx_core::topology::resolve;
use railx_core::verify::verify;
use std::collections::HashMap;

const SINGLE: DimKind = DimKind::SingleLinkAllToAll;

/// A single-link dimension of `s` nodes with `copies` copies of the decomposition.
fn single(s: u32, copies: u32) -> DimSpec {
    dim(s, SINGLE, copies * (s / 2))
}

fn realized_and_verified(spec: &ConfigSpec) -> Realized {
    let realized = realize(spec).unwrap_or_else(|e| panic!("{e}\n{spec:?}"));
    verify(&realized.ocs, &realized.system).unwrap_or_else(|e| panic!("{e}\n{spec:?}"));
    realized
}

/// Circuits per unordered pair of nodes, per (axis, line), counted from the OCS tables alone.
fn circuits_per_pair(realized: &Realized) -> HashMap<(String, u32, u32, u32), u32> {
    let mut counts = HashMap::new();
    for sw in &realized.ocs.switches {
        for &[a, b] in &sw.circuits {
            let (u, v) = (a / 2, b / 2);
            let key = (sw.dim.name().to_string(), sw.line, u.min(v), u.max(v));
            *counts.entry(key).or_insert(0) += 1;
        }
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// s/2 rails; each a ring through all s nodes except an even s's last, a perfect matching; every
    /// unordered pair joined exactly once; every + and - port in at most one circuit.
    #[test]
    fn decomposition_joins_every_pair_once(s in 2usize..=300) {
        let rails = single_link_rails(s).unwrap();
        prop_assert_eq!(rails.len(), single_link_rail_count(s));
        prop_assert_eq!(rails.len(), (s - 1).div_ceil(2));
        let mut pairs = vec![0u32; s * s];
        for (t, rail) in rails.iter().enumerate() {
            let matching = s % 2 == 0 && t + 1 == rails.len();
            prop_assert_eq!(rail.len(), if matching { s / 2 } else { s });
            let (mut plus, mut minus) = (vec![0; s], vec![0; s]);
            for &(u, v) in rail {
                plus[u as usize] += 1;
                minus[v as usize] += 1;
                pairs[u.min(v) as usize * s + u.max(v) as usize] += 1;
            }
            prop_assert!(plus.iter().chain(&minus).all(|&c| c <= 1));
        }
        for a in 0..s {
            for b in a + 1..s {
                prop_assert_eq!(pairs[a * s + b], 1, "pair {} {}", a, b);
            }
        }
    }
}

#[test]
fn small_decompositions_are_the_walecki_cycles() {
    // K_5: the two undirected Walecki cycles A,0,1,3,2 and A,1,2,0,3 (A = 4).
    assert_eq!(
        single_link_rails(5).unwrap(),
        vec![
            vec![(4, 0), (0, 1), (1, 3), (3, 2), (2, 4)],
            vec![(4, 1), (1, 2), (2, 0), (0, 3), (3, 4)],
        ]
    );
    // K_4: the cycle 2,0,3,1 (Z = 3 spliced into the antipodal edge 0-1 of K_3's cycle 2,0,1)
    // and the matching {0,1}, {2,3}.
    assert_eq!(
        single_link_rails(4).unwrap(),
        vec![vec![(2, 0), (0, 3), (3, 1), (1, 2)], vec![(0, 1), (2, 3)]]
    );
    assert_eq!(single_link_rails(2).unwrap(), vec![vec![(0, 1)]]);
    assert_eq!(single_link_rails(1).unwrap(), Vec::<Vec<(u32, u32)>>::new());
}

#[test]
fn verification_of_rails_rejects_repeats_and_broken_rings() {
    let mut rails = single_link_rails(7).unwrap();
    rails[1] = rails[0].clone();
    assert!(verify_single_link_rails(7, &rails)
        .unwrap_err()
        .contains("already joined"));
    let mut rails = single_link_rails(8).unwrap();
    rails[3].pop();
    assert!(verify_single_link_rails(8, &rails)
        .unwrap_err()
        .contains("no circuit of the matching"));
    let mut rails = single_link_rails(6).unwrap();
    rails[0].swap(0, 1);
    rails[0][0].1 = rails[0][1].1;
    assert!(verify_single_link_rails(6, &rails).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// A 2D single-link HyperX of random sizes and copies: the OCS tables verify, every unordered
    /// pair of a line has `copies` circuits, and the realized diameter, bisection and all-to-all
    /// bound meet the closed forms (equal for even sizes, where the closed form is exact).
    #[test]
    fn single_link_hyperx_synthesises_verifies_and_meets_closed_forms(
        (m, n) in (1u32..=3, 1u32..=4), p in 2u32..=13, q in 2u32..=13, copies in 1u32..=2,
    ) {
        let r = m * n;
        prop_assume!(copies * (p / 2) <= r && copies * (q / 2) <= r);
        let spec = general(system(m, n, 2 * p.max(q), [p, q]), vec![single(p, copies)], vec![single(q, copies)]);
        let realized = realized_and_verified(&spec);
        let counts = circuits_per_pair(&realized);
        for (axis, lines, extent) in [("X", q, p), ("Y", p, q)] {
            for line in 0..lines {
                for a in 0..extent {
                    for b in a + 1..extent {
                        let joined = counts.get(&(axis.to_string(), line, a, b)).copied();
                        prop_assert_eq!(joined, Some(copies), "{} line {} pair {} {}", axis, line, a, b);
                    }
                }
            }
        }
        let plan = plan(&realized).unwrap();
        prop_assert_eq!(plan.diameter_inter_node, Some(2));
        prop_assert_eq!(plan.closed_form.diameter_inter_node, 2);
        prop_assert_eq!(plan.diameter_hops.Ho, 2);
        prop_assert!(plan.diameter_hops.Hi <= plan.closed_form.diameter_hops.Hi);
        if p % 2 == 0 && q % 2 == 0 {
            prop_assert!((plan.bisection_bw_per_chip - plan.closed_form.bisection_bw_per_chip).abs() < 1e-12);
            prop_assert!((plan.a2a_bound_per_chip - plan.closed_form.a2a_bound_per_chip).abs() < 1e-12);
        }
    }

    /// Minimal routing takes the one direct link of each dimension (one external hop per differing
    /// dimension), and its channel dependency graph is acyclic.
    #[test]
    fn single_link_routes_one_hop_per_dimension_without_deadlock(
        (m, n) in (1u32..=2, 1u32..=3), p in 2u32..=7, q in 1u32..=7,
    ) {
        let r = m * n;
        prop_assume!(p / 2 <= r && q / 2 <= r && p * q * m * m <= 300);
        let y = if q > 1 { vec![single(q, 1)] } else { vec![] };
        let spec = general(system(m, n, 2 * p.max(q), [p, q]), vec![single(p, 1)], y);
        let realized = realized_and_verified(&spec);
        let routing = RailxRouting::new(&realized.network, &realized.system.regions[0], Scheme::Minimal).unwrap();
        let per = m * m;
        for &src in routing.chips() {
            for &dst in routing.chips() {
                let (a, b) = (src / per, dst / per);
                let expected = u32::from(a % p != b % p) + u32::from(a / p != b / p);
                let path = route(&routing, src, dst).unwrap();
                let ho = path.iter().filter(|h| routing.is_external(h.link)).count() as u32;
                prop_assert_eq!(ho, expected, "{} -> {}", src, dst);
            }
        }
        let stats = route_stats(&routing, usize::MAX, 0).unwrap();
        prop_assert_eq!(stats.max_hops, plan(&realized).unwrap().regions[0].metrics.diameter_hops);
        let report = exhaustive(&routing).unwrap();
        prop_assert!(report.acyclic, "{:?}", report.cycle);
        prop_assert!(report.vcs_used <= routing.vcs());
    }
}

/// Same sizes, same copies: the single-link bisection and all-to-all bound are half the two-link
/// ones, on half the rails (odd s: (s-1)/2 rails against s-1).
#[test]
fn single_link_halves_the_two_link_bisection() {
    let (m, n, s) = (2, 2, 5);
    let two = general(
        system(m, n, 10, [s, s]),
        vec![dim(s, DimKind::AllToAll, s - 1)],
        vec![dim(s, DimKind::AllToAll, s - 1)],
    );
    let one = general(
        system(m, n, 10, [s, s]),
        vec![single(s, 1)],
        vec![single(s, 1)],
    );
    let (two, one) = (
        plan(&realized_and_verified(&two)).unwrap(),
        plan(&realized_and_verified(&one)).unwrap(),
    );
    assert_eq!(2 * one.circuits, two.circuits);
    assert!((2.0 * one.bisection_bw_per_chip - two.bisection_bw_per_chip).abs() < 1e-12);
    assert!((2.0 * one.a2a_bound_per_chip - two.a2a_bound_per_chip).abs() < 1e-12);
    assert!(
        (2.0 * one.closed_form.a2a_bound_per_chip - two.closed_form.a2a_bound_per_chip).abs()
            < 1e-12
    );
}

/// The paper's 64 x 64 2D-HyperX on RailX4Mesh's plant (m = 4, n = 9, R = 128): 32 of the 36
/// rails per axis, which a two-link all-to-all (63 rails) cannot fit. Validation only; the full
/// synthesis and metrics run in benchmarks/railx4mesh_hyperx.py.
#[test]
fn railx4mesh_fits_a_64_by_64_single_link_hyperx() {
    let mut sys = system(4, 9, 128, [64, 64]);
    sys.grid = None;
    let spec = general(sys.clone(), vec![single(64, 1)], vec![single(64, 1)]);
    let resolved = resolve(&spec).unwrap();
    let x = resolved.regions[0].x.dims[0];
    assert_eq!((x.rails, x.copies()), (32, 1));
    let two = general(
        sys,
        vec![dim(64, DimKind::AllToAll, 63)],
        vec![dim(64, DimKind::AllToAll, 63)],
    );
    assert!(resolve(&two).unwrap_err().to_string().contains("at most r"));
}

#[test]
fn bad_rail_counts_are_refused_in_one_line() {
    for (s, rails, hint) in [
        (7, 4, "use rails = 3 or 6"),
        (8, 5, "use rails = 4 or 8"),
        (8, 0, "e.g. rails = 4"),
    ] {
        let spec = general(
            system(2, 4, 16, [s, 1]),
            vec![dim(s, SINGLE, rails)],
            vec![],
        );
        let err = resolve(&spec).unwrap_err().to_string();
        assert!(err.starts_with("topology.x[0].rails"), "{err}");
        assert!(err.contains(hint), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

/// Tampered tables are caught: a matching circuit moved, a ring circuit dropped.
#[test]
fn verification_catches_a_broken_single_link_rail() {
    let spec = general(system(2, 2, 12, [6, 1]), vec![single(6, 1)], vec![]);
    let realized = realize(&spec).unwrap();
    let matching = realized
        .ocs
        .switches
        .iter()
        .position(|sw| sw.rail == 2 && sw.line == 0)
        .unwrap();
    let mut broken = realized.ocs.clone();
    broken.switches[matching].circuits.pop();
    let err = verify(&broken, &realized.system).unwrap_err().to_string();
    assert!(err.contains("matching rail"), "{err}");
    let mut broken = realized.ocs.clone();
    broken.switches[0].circuits.pop();
    let err = verify(&broken, &realized.system).unwrap_err().to_string();
    assert!(err.contains("no circuit on this rail"), "{err}");
}
