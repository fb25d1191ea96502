//! Collective schedules: correct as data movement (symbolic execution) for random group shapes
//! and random mappings onto chips, message and byte counts, lowering to message DAGs, and the
//! one-line errors for inputs that do not apply.

mod common;

use common::{preset, system};
use proptest::prelude::*;
use railx_core::collectives::check::check;
use railx_core::collectives::{build, counts, Algo, DimKind, Group, GroupDim, Op};
use railx_core::plant::Axis;
use railx_core::spec::Preset;
use railx_core::topology::resolve;

fn railx_group(m: u32, grid: [u32; 2], topology: Preset) -> Group {
    let sys = resolve(&preset(system(m, 2, 16, grid), topology)).unwrap();
    Group::railx_region(&sys.plant, &sys.regions[0]).unwrap()
}

/// Builds, checks, and compares the plan's counts with the schedule's messages and bytes.
fn assert_correct(op: Op, algo: Algo, group: &Group, size: u64, chunks: u32) {
    let s = build(op, algo, group, size, chunks).unwrap();
    check(&s).unwrap_or_else(|e| panic!("{} {}: {e}", algo.name(), op.name()));
    let c = counts(op, algo, group, size, chunks).unwrap();
    assert_eq!(c.messages, s.len() as u64, "{} {}", algo.name(), op.name());
    let moved: u64 = (0..s.len())
        .flat_map(|id| s.runs_of(id).iter().map(|r| r.1))
        .sum();
    assert_eq!(c.units_moved, moved);
    assert!(
        (c.bytes - s.total_bytes() as f64).abs() <= s.len() as f64,
        "{} vs {}",
        c.bytes,
        s.total_bytes()
    );
}

const REDUCTIONS: [Op; 3] = [Op::AllReduce, Op::ReduceScatter, Op::AllGather];

#[test]
fn every_algorithm_is_correct_on_small_railx_systems() {
    for (m, grid, topology) in [
        (2, [3, 3], Preset::Hyperx),
        (2, [2, 3], Preset::Torus),
        (2, [1, 2], Preset::Torus),
    ] {
        let group = railx_group(m, grid, topology);
        for op in REDUCTIONS {
            for algo in [
                Algo::Ring,
                Algo::BidirRing,
                Algo::TwoDRing,
                Algo::Hierarchical,
                Algo::MultiRail,
            ] {
                assert_correct(op, algo, &group, 1 << 20, 1);
            }
            if topology == Preset::Hyperx {
                assert_correct(op, Algo::Direct, &group, 1 << 20, 2);
            }
        }
        for algo in [Algo::Direct, Algo::TwoStep, Algo::MultiRail] {
            assert_correct(Op::AllToAll, algo, &group, 1 << 20, 1);
        }
    }
}

#[test]
fn ring_reduce_scatter_leaves_rank_i_shard_i() {
    let group = Group::line(vec![7, 3, 5, 1], DimKind::Ring, 8).unwrap();
    let s = build(Op::ReduceScatter, Algo::Ring, &group, 4096, 1).unwrap();
    for r in 0..4 {
        assert_eq!(s.shard(r), &[(r as u64, 1)]);
    }
    // p-1 steps of one message per rank, each a quarter of the vector.
    assert_eq!(s.len(), 12);
    assert!((0..s.len()).all(|id| s.bytes(id) == 1024));
}

#[test]
fn hierarchical_moves_the_bytes_of_eq_8() {
    // m^2 x p x p RailX: the mesh reduce-scatter moves (m^2-1)/m^2 V per rank in each direction
    // pair, the node stages (p-1)/p of what is left, per half.
    let (m, p) = (2u64, 3u64);
    let group = railx_group(m as u32, [p as u32, p as u32], Preset::Torus);
    let v = 36u64 << 20;
    let c = counts(Op::AllReduce, Algo::Hierarchical, &group, v, 1).unwrap();
    let ranks = (m * m * p * p) as f64;
    let m2 = (m * m) as f64;
    let pf = p as f64;
    let v = v as f64;
    let mesh = 2.0 * (m2 - 1.0) / m2 * v;
    let nodes =
        2.0 * 2.0 * ((pf - 1.0) / pf * v / (2.0 * m2) + (pf - 1.0) / pf * v / (2.0 * m2 * pf));
    let expected = ranks * (mesh + nodes);
    assert!(
        (c.bytes - expected).abs() < 1e-6 * expected,
        "{} vs {expected}",
        c.bytes
    );
}

#[test]
fn pipelining_chains_each_message_to_the_same_one_of_the_previous_chunk() {
    let group = Group::line((0..4).collect(), DimKind::Ring, 4).unwrap();
    let one = build(Op::AllReduce, Algo::Ring, &group, 1 << 12, 1).unwrap();
    let three = build(Op::AllReduce, Algo::Ring, &group, 1 << 12, 3).unwrap();
    assert_eq!(three.len(), 3 * one.len());
    assert_eq!(three.total_bytes(), one.total_bytes());
    let per = one.len();
    for id in per..three.len() {
        assert!(three.after(id).contains(&(id - per)));
        assert_eq!(three.src(id), three.src(id - per));
    }
    check(&three).unwrap();
}

#[test]
fn lowers_to_a_dag_on_the_group_chips() {
    let chips = vec![9, 2, 14, 5, 0, 11];
    let group = Group::line(chips.clone(), DimKind::Ring, 16).unwrap();
    let s = build(Op::AllReduce, Algo::BidirRing, &group, 6000, 1).unwrap();
    let dag = s.to_dag(1e-12).unwrap();
    assert_eq!(dag.len(), s.len());
    assert_eq!(dag.total_bytes(), s.total_bytes());
    dag.check_chips(16).unwrap();
    for id in 0..dag.len() {
        assert_eq!(dag.src(id), chips[s.src(id) as usize]);
        assert_eq!(dag.after(id), s.after(id));
        let delay = if s.forwards_reduced(id) {
            1e-12 * s.bytes(id) as f64
        } else {
            0.0
        };
        assert_eq!(dag.delay_s(id), delay);
    }
    // Bidirectional ring: 2 (p-1) steps each way, every rank sending both ways.
    assert_eq!(s.len(), 2 * 2 * 5 * 6);
}

#[test]
fn tiny_vectors_lower_with_one_byte_messages() {
    let group = Group::line((0..8).collect(), DimKind::Ring, 8).unwrap();
    let s = build(Op::AllReduce, Algo::BidirRing, &group, 3, 1).unwrap();
    check(&s).unwrap();
    let dag = s.to_dag(0.0).unwrap();
    assert!((0..dag.len()).all(|id| dag.bytes(id) >= 1));
}

#[test]
fn bad_inputs_get_one_line_errors() {
    let net = 16;
    let cases: Vec<(String, &str)> = vec![
        (
            Group::line((0..17).collect(), DimKind::Ring, net)
                .unwrap_err()
                .to_string(),
            "group.chips = 17 ranks: a group cannot be larger than the network (16 chips)",
        ),
        (
            Group::line(vec![1, 2, 1], DimKind::Ring, net)
                .unwrap_err()
                .to_string(),
            "group.chips[2] = 1: each chip holds one rank",
        ),
        (
            Group::line(vec![1, 16], DimKind::Ring, net)
                .unwrap_err()
                .to_string(),
            "group.chips[1] = 16",
        ),
        (
            Group::line(vec![], DimKind::Ring, net)
                .unwrap_err()
                .to_string(),
            "group.chips = []",
        ),
        (
            Group::new(
                (0..6).collect(),
                vec![GroupDim::new(4, DimKind::Ring, Axis::X)],
                net,
            )
            .unwrap_err()
            .to_string(),
            "group.dims = [4]: the dimension sizes must multiply to the group size 6",
        ),
    ];
    for (err, want) in &cases {
        assert!(err.starts_with(want), "{err}");
        assert!(!err.contains('\n'));
    }
    let ring = Group::line((0..4).collect(), DimKind::Ring, net).unwrap();
    let msg = |op, algo, size| build(op, algo, &ring, size, 1).unwrap_err().to_string();
    assert!(msg(Op::AllReduce, Algo::Ring, 0).starts_with("size_bytes = 0: "));
    assert!(build(Op::AllReduce, Algo::Ring, &ring, 8, 0)
        .unwrap_err()
        .to_string()
        .starts_with("chunks = 0"));
    assert!(
        msg(Op::AllReduce, Algo::TwoDRing, 8).starts_with("algo = 2d-ring: 2d-ring needs a grid")
    );
    assert!(msg(Op::AllReduce, Algo::Hierarchical, 8).starts_with(
        "algo = hierarchical: hierarchical needs a grouping into high-bandwidth domains"
    ));
    assert!(msg(Op::AllReduce, Algo::TwoStep, 8)
        .starts_with("algo = two-step: two-step is an all-to-all algorithm"));
    assert!(
        msg(Op::AllToAll, Algo::Ring, 8).starts_with("algo = ring: ring is a reduction algorithm")
    );
    assert!(msg(Op::AllToAll, Algo::TwoStep, 8)
        .contains("two-step needs a group of several high-bandwidth domains"));
    // Direct all-reduce on a torus dimension.
    let torus = railx_group(2, [3, 3], Preset::Torus);
    let err = build(Op::AllReduce, Algo::Direct, &torus, 8, 1)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("algo = direct: a direct reduction needs fully connected (HyperX) dimensions, but group dimension 2 (X ring, size 3) is a ring"), "{err}");
    assert!(Op::parse("all-reduce").is_ok() && Algo::parse("2d-ring").is_ok());
    assert!(Algo::parse("swing")
        .unwrap_err()
        .to_string()
        .starts_with("algo = swing: not a collective algorithm; use ring,"));
    assert!(Op::parse("bcast")
        .unwrap_err()
        .to_string()
        .starts_with("op = bcast"));
}

#[test]
fn op_names_are_hyphenated_and_the_old_spellings_still_parse() {
    let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(
        names,
        ["all-reduce", "reduce-scatter", "all-gather", "all-to-all"]
    );
    for op in Op::ALL {
        assert_eq!(Op::parse(op.name()).unwrap(), op);
        // Earlier releases spelled the operations without hyphens; their scripts keep working.
        assert_eq!(Op::parse(&op.name().replace('-', "")).unwrap(), op);
    }
    assert!(Op::parse("all_reduce")
        .unwrap_err()
        .to_string()
        .ends_with("use all-reduce, reduce-scatter, all-gather or all-to-all"));
}

/// A random shape for `ranks` ranks: its prime factors grouped into dimensions of random kinds
/// and axes.
fn shape(ranks: u32, kinds: &[u8]) -> Vec<GroupDim> {
    let mut factors = Vec::new();
    let mut n = ranks;
    let mut f = 2;
    while n > 1 {
        while n.is_multiple_of(f) {
            factors.push(f);
            n /= f;
        }
        f += 1;
    }
    if factors.is_empty() {
        factors.push(1);
    }
    factors
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let k = kinds[i % kinds.len()];
            let kind = [DimKind::Ring, DimKind::AllToAll, DimKind::Local][k as usize % 3];
            let axis = if (k / 3).is_multiple_of(2) {
                Axis::X
            } else {
                Axis::Y
            };
            GroupDim::new(size, kind, axis)
        })
        .collect()
}

/// A random permutation of `0..net` cut to `ranks` chips (a seeded shuffle).
fn mapping(ranks: u32, net: u32, seed: u64) -> Vec<u32> {
    let mut chips: Vec<u32> = (0..net).collect();
    let mut state = seed | 1;
    for i in (1..chips.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        chips.swap(i, (state % (i as u64 + 1)) as usize);
    }
    chips.truncate(ranks as usize);
    chips
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every algorithm that applies to a random group shape and mapping is correct as data
    /// movement; those that do not apply say so in one line.
    #[test]
    fn random_groups_and_mappings(ranks in 1u32..=24, extra in 0u32..8, kinds in prop::collection::vec(0u8..6, 1..5),
                                  seed in any::<u64>(), size in 1u64..5_000_000, chunks in 1u32..3) {
        let net = ranks + extra;
        let group = Group::new(mapping(ranks, net, seed), shape(ranks, &kinds), net).unwrap();
        for op in Op::ALL {
            for algo in Algo::ALL {
                match build(op, algo, &group, size, chunks) {
                    Ok(s) => {
                        if s.len() <= 8000 {
                            check(&s).map_err(|e| TestCaseError::fail(format!("{} {} on {:?}: {e}", algo.name(), op.name(), group.dims())))?;
                        }
                        let c = counts(op, algo, &group, size, chunks).unwrap();
                        prop_assert_eq!(c.messages, s.len() as u64);
                    }
                    Err(e) => {
                        let e = e.to_string();
                        prop_assert!(e.starts_with("algo = ") && !e.contains('\n'), "{}", e);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The direct and two-step all-to-alls send in shifted order: in every stage, the t-th
    /// messages of all ranks go to distinct ranks (no incast when the ranks' messages leave
    /// interleaved) and every one of them crosses the same group dimensions.
    #[test]
    fn all_to_all_steps_are_permutations_crossing_the_same_dimensions(
        ranks in 2u32..=36, kinds in prop::collection::vec(0u8..6, 1..5), seed in any::<u64>()) {
        let group = Group::new(mapping(ranks, ranks, seed), shape(ranks, &kinds), ranks).unwrap();
        for algo in [Algo::Direct, Algo::TwoStep] {
            let Ok(s) = build(Op::AllToAll, algo, &group, 1 << 16, 1) else { continue };
            // steps[stage][t]: the t-th message of every rank in that stage.
            let mut steps: Vec<Vec<Vec<u32>>> = Vec::new();
            let mut sent = vec![(u16::MAX, 0usize); ranks as usize];
            for id in 0..s.len() {
                let (stage, src) = (s.stage_of(id) as usize, s.src(id));
                let last = &mut sent[src as usize];
                *last = if last.0 as usize == stage { (last.0, last.1 + 1) } else { (stage as u16, 0) };
                let t = last.1;
                if steps.len() <= stage {
                    steps.resize(stage + 1, Vec::new());
                }
                if steps[stage].len() <= t {
                    steps[stage].resize(t + 1, Vec::new());
                }
                steps[stage][t].push(id);
            }
            let crossed = |id: u32| -> Vec<usize> {
                (0..group.dims().len()).filter(|&d| group.coord(s.src(id), d) != group.coord(s.dst(id), d)).collect()
            };
            for step in steps.iter().flatten() {
                let mut dsts: Vec<u32> = step.iter().map(|&id| s.dst(id)).collect();
                dsts.sort_unstable();
                dsts.dedup();
                prop_assert_eq!(dsts.len(), step.len(), "{}: a step sends twice to one rank", algo.name());
                prop_assert!(step.iter().all(|&id| crossed(id) == crossed(step[0])));
            }
        }
    }
}
