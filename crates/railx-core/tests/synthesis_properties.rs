//! Property tests over random valid systems and topologies: every synthesized configuration
//! verifies, and the realized metrics meet the closed forms (equal where those are exact).

mod common;

use common::{dim, general, preset, system};
use proptest::prelude::*;
use railx_core::hamiltonian::has_decomposition;
use railx_core::ocs::synthesize_jobs;
use railx_core::plan::{plan, realize, Plan};
use railx_core::spec::{ConfigSpec, DimKind, DimSpec, JobSpec, Preset, TopologySpec};
use railx_core::verify::verify;

/// Realizes, verifies the synthesized tables against the intent, and plans.
fn checked_plan(spec: &ConfigSpec) -> Plan {
    let realized = realize(spec).unwrap_or_else(|e| panic!("{e}\n{spec:?}"));
    verify(&realized.ocs, &realized.system).unwrap_or_else(|e| panic!("{e}\n{spec:?}"));
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.switch_ports_used, 2 * plan.circuits as u64);
    assert_eq!(plan.chips as u64, plan.closed_form.chips);
    assert_eq!(plan.nodes as u64, plan.closed_form.nodes);
    assert_eq!(plan.switches as u64, plan.closed_form.switches);
    plan
}

fn mn() -> impl Strategy<Value = (u32, u32)> {
    (1u32..=4, 1u32..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn torus_verifies_and_meets_closed_forms((m, n) in mn(), p in 1u32..=10, q in 1u32..=10) {
        let spec = preset(system(m, n, 2 * p.max(q), [p, q]), Preset::Torus);
        let plan = checked_plan(&spec);
        prop_assert_eq!(plan.diameter_inter_node, Some(plan.closed_form.diameter_inter_node));
        prop_assert_eq!(plan.diameter_hops.Ho, p / 2 + q / 2);
        // (m-1) mesh hops per optical hop (the paper's form) plus the source and destination meshes.
        prop_assert!(plan.diameter_hops.Hi <= (m - 1) * (plan.diameter_hops.Ho + 2));
        if p % 2 == 0 && q % 2 == 0 && p > 1 && q > 1 {
            prop_assert!((plan.bisection_bw_per_chip - plan.closed_form.bisection_bw_per_chip).abs() < 1e-12);
        }
    }

    #[test]
    fn hyperx_verifies_and_meets_closed_forms((m, n) in mn(), p_raw in 1u32..=13, q_raw in 1u32..=13) {
        let r = m * n;
        let fit = |e: u32| { let e = e.min(r + 1); if has_decomposition(e as usize) { e } else { e - 1 } };
        let (p, q) = (fit(p_raw), fit(q_raw));
        let spec = preset(system(m, n, 2 * p.max(q), [p, q]), Preset::Hyperx);
        let plan = checked_plan(&spec);
        let expected = (p > 1) as u32 + (q > 1) as u32;
        prop_assert_eq!(plan.diameter_inter_node, Some(expected));
        prop_assert_eq!(plan.closed_form.diameter_inter_node, expected);
        prop_assert_eq!(plan.diameter_hops.Ho, expected);
        // Paper §4.1: nearest-link routing on a 2D-HyperX needs at most 5m-6 mesh hops (m >= 2).
        if m >= 2 && p > 1 && q > 1 {
            prop_assert!(plan.diameter_hops.Hi <= 5 * m - 6, "Hi {} > 5m-6 for m={}", plan.diameter_hops.Hi, m);
        }
        if p % 2 == 0 && q % 2 == 0 && p > 1 && q > 1 {
            prop_assert!((plan.a2a_bound_per_chip - plan.closed_form.a2a_bound_per_chip).abs() < 1e-12);
        }
    }

    #[test]
    fn dragonfly_verifies_with_one_global_link_per_group_pair(
        (m, n) in (1u32..=3, 1u32..=2), q_raw in 2u32..=7, g_raw in 2u32..=30,
    ) {
        let r = m * n;
        let fit = |e: u32| if has_decomposition(e as usize) { e } else { e - 1 };
        let q = fit(q_raw.min(r + 1).max(2));
        let g = fit(g_raw.min(q * r + 1).max(2));
        let spec = preset(system(m, n, 2 * g.max(q), [g, q]), Preset::Dragonfly);
        let plan = checked_plan(&spec);
        let d = plan.diameter_inter_node.unwrap();
        prop_assert!((1..=3).contains(&d));
        prop_assert!(plan.diameter_hops.Ho <= 3);
        prop_assert!(plan.diameter_hops.Hi <= plan.closed_form.diameter_hops.Hi);
    }

    #[test]
    fn general_forms_verify_and_meet_closed_forms(
        (m, n) in (1u32..=3, 1u32..=4),
        x in prop::collection::vec((2u32..=6, any::<bool>(), 1u32..=2), 0..=2),
        y in prop::collection::vec((2u32..=6, any::<bool>(), 1u32..=2), 0..=2),
    ) {
        let r = m * n;
        // (size, all-to-all?, copies): all-to-all over an admissible size uses copies*(size-1) rails.
        let axis = |dims: &[(u32, bool, u32)]| -> Vec<DimSpec> {
            dims.iter().map(|&(s, a2a, c)| {
                if a2a && has_decomposition(s as usize) {
                    dim(s, DimKind::AllToAll, c * (s - 1))
                } else {
                    dim(s, DimKind::Ring, c)
                }
            }).collect()
        };
        let (xs, ys) = (axis(&x), axis(&y));
        let rails = |d: &[DimSpec]| d.iter().map(|d| d.rails).sum::<u32>();
        prop_assume!(rails(&xs) <= r && rails(&ys) <= r);
        let extent = |d: &[DimSpec]| d.iter().map(|d| d.size).product::<u32>();
        let (p, q) = (extent(&xs), extent(&ys));
        let spec = general(system(m, n, 2 * p.max(q), [p, q]), xs.clone(), ys.clone());
        let plan = checked_plan(&spec);
        let closed: u32 = xs.iter().chain(&ys).map(|d| if d.kind == DimKind::Ring { d.size / 2 } else { 1 }).sum();
        prop_assert_eq!(plan.closed_form.diameter_inter_node, closed);
        prop_assert_eq!(plan.diameter_inter_node, Some(closed));
        prop_assert_eq!(plan.diameter_hops.Ho, closed);
        prop_assert!(plan.diameter_hops.Hi <= 2 * (m - 1) * (closed + 1));
        if xs.iter().chain(&ys).all(|d| d.size % 2 == 0) && p * q > 1 {
            prop_assert!((plan.bisection_bw_per_chip - plan.closed_form.bisection_bw_per_chip).abs() < 1e-12);
        }
    }
}

/// Jobs share the switches of their rows without sharing ports; each job's own file verifies.
#[test]
fn jobs_share_switches_and_verify_separately() {
    let job = |name: &str, xs: std::ops::Range<u32>, preset: Preset| JobSpec {
        name: name.into(),
        xs: xs.collect(),
        ys: (0..5).collect(),
        topology: TopologySpec {
            preset: Some(preset),
            ..Default::default()
        },
    };
    let spec = ConfigSpec {
        system: system(2, 2, 16, [8, 5]),
        topology: None,
        jobs: vec![
            job("a", 0..5, Preset::Hyperx),
            job("b", 5..8, Preset::Torus),
        ],
    };
    let realized = realize(&spec).unwrap();
    let report = verify(&realized.ocs, &realized.system).unwrap();
    assert_eq!(report.regions.len(), 2);
    let jobs = synthesize_jobs(&realized.system).unwrap();
    let total: usize = jobs.iter().map(|j| j.circuit_count()).sum();
    assert_eq!(total, realized.ocs.circuit_count());
    // Both jobs use X-OCS (row 0, rail 0): shared switch, disjoint ports.
    let switch_ids = |c: &railx_core::ocs::OcsConfig| {
        c.switches.iter().map(|s| s.id.clone()).collect::<Vec<_>>()
    };
    assert!(switch_ids(&jobs[0]).contains(&"X/0/0".to_string()));
    assert!(switch_ids(&jobs[1]).contains(&"X/0/0".to_string()));
    for job_config in &jobs {
        verify(job_config, &realized.system).unwrap();
    }
    let plan = plan(&realized).unwrap();
    assert_eq!(plan.regions[0].metrics.diameter_inter_node, Some(2));
    assert_eq!(plan.regions[1].metrics.diameter_inter_node, Some(1 + 2)); // ring 3 + ring 5
}

/// A circuit missing from an otherwise valid file passes the port check but not verification.
#[test]
fn tampered_tables_fail_verification_with_the_switch_named() {
    let realized = realize(&preset(system(2, 2, 10, [5, 5]), Preset::Hyperx)).unwrap();
    let mut missing = realized.ocs.clone();
    missing.switches[3].circuits.pop();
    railx_core::verify::verify_ports(&missing).unwrap();
    let err = verify(&missing, &realized.system).unwrap_err().to_string();
    assert!(err.starts_with(&missing.switches[3].id), "{err}");
    let mut doubled = realized.ocs.clone();
    let c = doubled.switches[0].circuits[0];
    doubled.switches[0].circuits.push(c);
    let err = verify(&doubled, &realized.system).unwrap_err().to_string();
    assert!(err.contains("two circuits"), "{err}");
}
