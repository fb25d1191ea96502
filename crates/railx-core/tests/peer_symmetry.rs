//! The peers' symmetry groups (`PeerBuilder::symmetry`): aggregated flow-level runs and routed
//! step measurements over them equal the full (unaggregated) ones on small instances of every
//! family whose group applies; the invariance check refuses what is not an automorphism.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use railx_core::collectives::links::measure;
use railx_core::collectives::symmetric::{largest_invariant, representatives};
use railx_core::collectives::{build, plan_for, Algo, Op};
use railx_core::sim::flow::collective::{simulate_collective_with, CollectiveSpec};
use railx_core::sim::flow::{simulate, simulate_symmetric, Generator, LinkOrbits, Symmetry};
use railx_core::system::{RoutingOptions, System, SystemSpec};

fn peer(json: &str) -> System {
    System::build(&SystemSpec::from_json(&format!(r#"{{"peer": {json}}}"#)).unwrap()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// One instance of every family whose group applies, with its group's expected order.
fn instances() -> Vec<(&'static str, System, u64)> {
    vec![
        // 32 chips on leaves of 4 (radix 8, 2 tiers), two planes: Z_4 x Z_8.
        (
            "fat-tree 2 tiers",
            peer(r#"{"family": "fat-tree", "radix": 8, "tiers": 2, "chips": 32, "planes": 2}"#),
            32,
        ),
        // 3 tiers of radix 4: leaves of 2, 16 chips, pods of 4: Z_2 x Z_8.
        (
            "fat-tree 3 tiers",
            peer(r#"{"family": "fat-tree", "radix": 4, "tiers": 3, "chips": 16}"#),
            16,
        ),
        // HB domains of 2, one rail dimension of 8 members on 2-tier rails of radix 4 (leaves of
        // 2): Z_2 (HB) x Z_2 (in leaf) x Z_4 (leaf shift).
        (
            "rail-only",
            peer(
                r#"{"family": "rail-only", "radix": 4, "hb_domain": 2, "hb_ports_per_chip": 2, "dims": [{"size": 8, "rails": 2}]}"#,
            ),
            16,
        ),
        // Boards of 2 x 2 in a 3 x 2 grid: Z_3 x Z_2.
        (
            "hammingmesh",
            peer(r#"{"family": "hammingmesh", "a": 2, "boards": [3, 2], "planes": 2, "radix": 8}"#),
            6,
        ),
        // 4 x 4 x 4 chips in cubes of 2 with OCS: Z_2^3.
        (
            "torus3d (TPUv4)",
            peer(
                r#"{"family": "torus3d", "dims": [4, 4, 4], "cube": 2, "board": [1, 1], "ports_per_direction": 1, "ocs_radix": 64}"#,
            ),
            8,
        ),
    ]
}

const QUESTIONS: [(Op, Algo); 5] = [
    (Op::AllReduce, Algo::Ring),
    (Op::AllReduce, Algo::BidirRing),
    (Op::AllReduce, Algo::Hierarchical),
    (Op::AllToAll, Algo::Direct),
    (Op::ReduceScatter, Algo::Hierarchical),
];

/// Sizes every unit count here divides.
const EVEN_SIZE: u64 = (1 << 12) * 9 * 5 * 7;

#[test]
fn every_family_declares_a_group_that_maps_its_network_onto_itself() {
    for (name, system, order) in instances() {
        let h = system.symmetry().unwrap().unwrap();
        assert_eq!(h.order(), order, "{name}");
        let orbits = LinkOrbits::of(system.network(), &h).unwrap();
        // Every link orbit's capacity is |L| / |H| of a link's bandwidth.
        let net = system.network();
        let mut size = vec![0u64; orbits.orbit_capacity_Bps().len()];
        for &o in orbits.orbit_of_link() {
            size[o as usize] += 1;
        }
        for (l, &o) in orbits.orbit_of_link().iter().enumerate() {
            let expect = net.bandwidth_Bps[l] * size[o as usize] as f64 / order as f64;
            assert!(
                close(orbits.orbit_capacity_Bps()[o as usize], expect),
                "{name} link {l}"
            );
        }
    }
}

/// The aggregated run of every applicable question equals the run of the full schedule, and
/// the expanded representatives equal the aggregated run message by message and link by link.
#[test]
fn aggregated_flow_equals_the_full_flow_simulation_on_every_family() {
    for (name, system, _) in instances() {
        let h = system.symmetry().unwrap().unwrap();
        let group = system.whole_group().unwrap();
        let routing = system.routing(None, &RoutingOptions::default()).unwrap();
        let net = system.network();
        for (op, algo) in QUESTIONS {
            if plan_for(op, algo, &group).is_err() {
                continue;
            }
            let what = format!("{name}: {} {}", algo.name(), op.name());
            let spec = CollectiveSpec {
                op,
                algo,
                size_bytes: EVEN_SIZE,
                chunks: 1,
                reduce_s_per_byte: 1e-12,
            };
            let run =
                simulate_collective_with(net, routing.as_ref(), &group, &spec, Some(&h)).unwrap();
            assert!(run.aggregated && run.orbit > 1, "{what}");
            let full = build(op, algo, &group, EVEN_SIZE, 1)
                .unwrap()
                .to_dag(1e-12)
                .unwrap();
            let all = simulate(net, routing.as_ref(), &full, 16).unwrap();
            assert_eq!(run.report.messages, all.messages, "{what}");
            assert!(
                close(run.report.completion_s, all.completion_s),
                "{what}: {} vs {}",
                run.report.completion_s,
                all.completion_s
            );
            // Message by message and link by link, against the expanded representatives.
            let sub = largest_invariant(op, algo, &group, &h).unwrap();
            let sym = representatives(op, algo, &group, &sub, (EVEN_SIZE, 1), 1e-12).unwrap();
            let agg = simulate_symmetric(net, routing.as_ref(), &sym, 16).unwrap();
            let expanded = simulate(net, routing.as_ref(), &sym.expand().unwrap(), 16).unwrap();
            let order = sub.order() as usize;
            for (i, &t) in agg.arrival_s.iter().enumerate() {
                for g in 0..order {
                    assert!(
                        close(t, expanded.arrival_s[i * order + g]),
                        "{what}: {i}.{g}"
                    );
                }
            }
            let (a, f) = (agg.timeline.unwrap(), expanded.timeline.unwrap());
            for (link, &orbit) in agg.resource_of_link.iter().enumerate() {
                let (x, y) = (a.mean[orbit as usize], f.mean[link]);
                assert!((x - y).abs() <= 1e-9, "{what}: link {link}: {x} vs {y}");
            }
        }
    }
}

/// The routed step measurement over orbit representatives equals the full measurement.
#[test]
fn the_routed_measurement_over_representatives_equals_the_full_one() {
    for (name, system, _) in instances() {
        let h = system.symmetry().unwrap().unwrap();
        let group = system.whole_group().unwrap();
        let routing = system.routing(None, &RoutingOptions::default()).unwrap();
        for (op, algo) in QUESTIONS {
            let Ok(plan) = plan_for(op, algo, &group) else {
                continue;
            };
            let net = system.network();
            let fast = measure(net, routing.as_ref(), &group, &plan, Some(&h)).unwrap();
            let slow = measure(net, routing.as_ref(), &group, &plan, None).unwrap();
            for (a, b) in fast.iter().zip(&slow) {
                let what = format!("{name}: {} {}", algo.name(), op.name());
                assert_eq!(a.alpha_s, b.alpha_s, "{what}");
                assert!(
                    close(a.bw_Bps, b.bw_Bps) || a.bw_Bps == b.bw_Bps,
                    "{what}: {} vs {}",
                    a.bw_Bps,
                    b.bw_Bps
                );
            }
        }
    }
}

fn one_line(e: impl ToString) -> String {
    let e = e.to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn the_invariance_check_refuses_what_is_not_an_automorphism() {
    // A translation by one chip of the TPUv4-style torus moves a board trace onto an optical
    // link: no identical image.
    let tpu = peer(
        r#"{"family": "torus3d", "dims": [6, 4, 2], "cube": 2, "board": [1, 1], "ports_per_direction": 1, "ocs_radix": 64}"#,
    );
    let chips = tpu.chips();
    let by_one = Generator::coordinate_shift("one chip along dimension 0", chips, 1, 6, 6, 1);
    let h = Symmetry::new("chip translations", vec![by_one]).unwrap();
    let e = one_line(LinkOrbits::of(tpu.network(), &h).err().unwrap());
    assert!(
        e.starts_with("aggregate = chip translations") && e.contains("no identical image"),
        "{e}"
    );
    // Swapping two chips of different leaves of a fat-tree: no switch matches the leaf's image.
    let ft = peer(r#"{"family": "fat-tree", "radix": 8, "tiers": 2, "chips": 32}"#);
    let mut swap: Vec<u32> = (0..32).collect();
    swap.swap(0, 4);
    // Not free (it fixes chip 1), refused when the group is built.
    let e = one_line(
        Symmetry::new(
            "swaps",
            vec![Generator {
                label: "swap 0 4".into(),
                chips: swap,
            }],
        )
        .unwrap_err(),
    );
    assert!(
        e.starts_with("symmetry = swaps") && e.contains("free"),
        "{e}"
    );
    // Free on chips but not an automorphism: a shift by 3 chips splits every leaf.
    let cross = Generator::coordinate_shift("shift by 3 chips", 32, 1, 32, 32, 3);
    let h = Symmetry::new("chip shifts", vec![cross]).unwrap();
    let e = one_line(LinkOrbits::of(ft.network(), &h).err().unwrap());
    assert!(e.contains("no switch matches"), "{e}");
    // Generators that do not commute.
    let a = Generator::coordinate_shift("rotate leaves", 32, 1, 32, 4, 1);
    let b = Generator::coordinate_shift("shift by 3", 32, 1, 32, 32, 3);
    let e = one_line(Symmetry::new("mixed", vec![a, b]).unwrap_err());
    assert!(e.contains("do not commute"), "{e}");
}

#[test]
fn a_schedule_too_large_even_aggregated_says_what_to_use() {
    // The ring in chip order on a torus commutes only with the last dimension's translation.
    let tpu = peer(
        r#"{"family": "torus3d", "dims": [8, 8, 8], "cube": 4, "board": [2, 2], "ports_per_direction": 1, "ocs_radix": 64}"#,
    );
    let h = tpu.symmetry().unwrap().unwrap();
    let group = tpu.whole_group().unwrap();
    let routing = tpu.routing(None, &RoutingOptions::default()).unwrap();
    let spec = CollectiveSpec {
        op: Op::AllReduce,
        algo: Algo::BidirRing,
        size_bytes: EVEN_SIZE,
        chunks: 2000,
        reduce_s_per_byte: 0.0,
    };
    let e = one_line(
        simulate_collective_with(tpu.network(), routing.as_ref(), &group, &spec, Some(&h))
            .unwrap_err(),
    );
    // Refused by the memory budget (docs/architecture.md), naming the chunks and what fits.
    assert!(
        e.starts_with("chunks = 2000: ") && e.contains("aggregated over 2 cube translations"),
        "{e}"
    );
    assert!(e.contains("the largest chunks that fits is"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 16,
        rng_seed: RngSeed::Fixed(17),
        ..ProptestConfig::default()
    })]

    /// Random small fat-trees, Rail-only and HammingMesh systems (seeded): the bidir-ring and
    /// direct all-to-all, aggregated where a subgroup applies, equal the full simulation.
    #[test]
    fn aggregation_is_exact_at_random_sizes(
        family in 0u32..3,
        a in 1u32..4,
        b in 1u32..4,
        radix in prop::sample::select(vec![4u32, 6, 8]),
    ) {
        let json = match family {
            0 => format!(r#"{{"family": "fat-tree", "radix": {radix}, "chips": {}}}"#, (radix / 2) * (a + 1).min(radix)),
            1 => format!(r#"{{"family": "rail-only", "radix": {radix}, "hb_domain": {a}, "hb_ports_per_chip": 2, "dims": [{{"size": {}, "rails": 1}}]}}"#, (radix / 2) * (b + 1).min(radix)),
            // Line trees of one switch (2 boards' ports per line <= the radix): a board
            // translation maps each tree onto a tree.
            _ => format!(r#"{{"family": "hammingmesh", "a": {}, "boards": [{}, {b}], "radix": 8}}"#, a + 1, b + 1),
        };
        let system = peer(&json);
        let group = system.whole_group().unwrap();
        let routing = system.routing(None, &RoutingOptions::default()).unwrap();
        let net = system.network();
        let h = system.symmetry().unwrap().unwrap();
        prop_assert!(h.order() > 1, "{json}");
        for (op, algo) in [(Op::AllReduce, Algo::BidirRing), (Op::AllToAll, Algo::Direct)] {
            let spec = CollectiveSpec { op, algo, size_bytes: EVEN_SIZE, chunks: 1, reduce_s_per_byte: 0.0 };
            let run = simulate_collective_with(net, routing.as_ref(), &group, &spec, Some(&h)).unwrap();
            // A direct all-to-all is invariant under every automorphism, so it aggregates
            // whenever the declared group maps the network onto itself (not when a Clos's
            // uplink wiring does not repeat leaf by leaf, e.g. 9 chips on radix 6: refused by
            // the check); the ring in chip order only under generators that rotate it.
            let automorphism = LinkOrbits::of(net, &h).is_ok();
            prop_assert!(run.aggregated || algo != Algo::Direct || !automorphism, "{json}");
            let full = build(op, algo, &group, EVEN_SIZE, 1).unwrap().to_dag(0.0).unwrap();
            let all = simulate(net, routing.as_ref(), &full, 0).unwrap();
            prop_assert!(close(run.report.completion_s, all.completion_s), "{json} {}: {} vs {}", algo.name(), run.report.completion_s, all.completion_s);
        }
    }
}
