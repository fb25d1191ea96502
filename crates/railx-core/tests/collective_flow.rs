//! Collective schedules at flow level: the representative form (the messages of a fundamental
//! domain of the largest group of node translations the schedule is invariant under, dependencies
//! by orbit) expands to the full schedule's DAG and simulates to the same time; the choice
//! between aggregated and full runs; contention-free schedules take exactly the alpha-beta time.

mod common;

use common::{preset, system};
use railx_core::collectives::group::{DimKind, GroupDim};
use railx_core::collectives::symmetric::{check_invariant, largest_invariant, representatives};
use railx_core::collectives::{build, Algo, Group, Op};
use railx_core::plan::{realize, Realized};
use railx_core::plant::{Axis, Plant};
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::collective::{simulate_collective, CollectiveSpec};
use railx_core::sim::flow::{simulate, simulate_symmetric, Translations};
use railx_core::spec::Preset;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn torus(m: u32, grid: [u32; 2]) -> Realized {
    realize(&preset(system(m, 1, 16, grid), Preset::Torus)).unwrap_or_else(|e| panic!("{e}"))
}

fn minimal(r: &Realized) -> RailxRouting {
    RailxRouting::of_region(r, None, Scheme::Minimal).unwrap()
}

fn whole(r: &Realized) -> Group {
    Group::railx_region(&r.system.plant, &r.system.regions[0]).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Per message: (src, dst, bytes, delay, the set of orbit signatures of its dependencies). A
/// message's orbit signature hashes what every translate by an element of `h` shares — the
/// fundamental-domain chip its source is a translate of, the local chip of its destination, the
/// node offset from source to destination, bytes, delay and its dependencies' signatures — so
/// two DAGs agree on this multiset exactly when they have the same messages and each waits for
/// the same orbits (whichever member of an orbit it names). Sets, not multisets: a direct
/// stage's sender also waits for its own last send, whose orbit depends on its line position,
/// but is always one of the orbits it receives from in that stage (so the times agree, as
/// checked).
fn signature(
    dag: &MessageDag,
    plant: &Plant,
    h: &Translations,
) -> Vec<(u32, u32, u64, u64, Vec<u64>)> {
    let per = plant.chips_per_node();
    let node = |c: u32| (c / per % plant.p, c / per / plant.p);
    let mut orbit = Vec::with_capacity(dag.len() as usize);
    let mut out = Vec::with_capacity(dag.len() as usize);
    for i in 0..dag.len() {
        let (s, d) = (dag.src(i), dag.dst(i));
        let ((sx, sy), (dx, dy)) = (node(s), node(d));
        let offset = ((dx + plant.p - sx) % plant.p, (dy + plant.q - sy) % plant.q);
        let mut deps: Vec<u64> = dag.after(i).iter().map(|&j| orbit[j as usize]).collect();
        deps.sort_unstable();
        deps.dedup();
        let mut hash = DefaultHasher::new();
        (
            h.member(s).0,
            d % per,
            offset,
            dag.bytes(i),
            dag.delay_s(i).to_bits(),
            &deps,
        )
            .hash(&mut hash);
        orbit.push(hash.finish());
        out.push((s, d, dag.bytes(i), dag.delay_s(i).to_bits(), deps));
    }
    out.sort_unstable();
    out
}

/// Sizes that every unit count here divides, so all members of an orbit carry equal bytes.
const EVEN_SIZE: u64 = (1 << 12) * 9 * 5 * 7;

/// The (op, algo) pairs whose schedule is invariant on `group`, with the order of the largest
/// group of translations they are invariant under, each checked against the full schedule:
/// same messages and dependency orbits, same simulated time.
fn check_representatives(r: &Realized, chunks: u32) -> Vec<(Op, Algo, u64)> {
    let plant = &r.system.plant;
    let group = whole(r);
    let routing = minimal(r);
    let mut invariant = Vec::new();
    for op in Op::ALL {
        for algo in Algo::ALL {
            let Some(h) = largest_invariant(op, algo, &group, &Translations::whole(plant)) else {
                continue;
            };
            invariant.push((op, algo, h.order()));
            let reduce_s_per_byte = 1e-12;
            let sym = representatives(op, algo, &group, &h, (EVEN_SIZE, chunks), reduce_s_per_byte)
                .unwrap();
            let full = build(op, algo, &group, EVEN_SIZE, chunks)
                .unwrap()
                .to_dag(reduce_s_per_byte)
                .unwrap();
            let what = format!("{} {} over {:?}", algo.name(), op.name(), h.generators());
            assert_eq!(sym.represented(), full.len() as u64, "{what}");
            assert_eq!(
                sym.representatives.len() as u64 * h.order(),
                full.len() as u64,
                "{what}"
            );
            assert!(
                signature(&sym.expand().unwrap(), plant, &h) == signature(&full, plant, &h),
                "{what}: the expanded representatives differ from the schedule"
            );
            let agg = simulate_symmetric(&r.network, &routing, &sym, 0).unwrap();
            let all = simulate(&r.network, &routing, &full, 0).unwrap();
            assert!(
                close(agg.completion_s, all.completion_s),
                "{what}: {} vs {}",
                agg.completion_s,
                all.completion_s
            );
        }
    }
    invariant
}

#[test]
fn representatives_expand_to_the_schedule_and_simulate_the_same() {
    for (m, grid, chunks) in [(2, [3, 3], 1), (2, [4, 2], 2), (1, [3, 4], 1)] {
        let r = torus(m, grid);
        let invariant = check_representatives(&r, chunks);
        let nodes = (grid[0] * grid[1]) as u64;
        for op in [Op::AllReduce, Op::ReduceScatter, Op::AllGather] {
            for algo in [Algo::TwoDRing, Algo::Hierarchical, Algo::MultiRail] {
                assert!(
                    invariant.contains(&(op, algo, nodes)),
                    "{} {} {grid:?}",
                    algo.name(),
                    op.name()
                );
            }
            // A ring over all chips in rank order steps from the end of one row of nodes to
            // the start of the next: not invariant under the X translation, but under whole
            // rows (a rotation of the rank order).
            for algo in [Algo::Ring, Algo::BidirRing] {
                assert!(
                    invariant.contains(&(op, algo, grid[1] as u64)),
                    "{} {} {grid:?}",
                    algo.name(),
                    op.name()
                );
                let plant = &r.system.plant;
                let every = Translations::whole(plant);
                assert!(check_invariant(op, algo, &whole(&r), &every).is_err());
            }
        }
        for algo in [Algo::Direct, Algo::MultiRail, Algo::TwoStep] {
            assert!(
                invariant.contains(&(Op::AllToAll, algo, nodes)),
                "{} {grid:?}",
                algo.name()
            );
        }
    }
}

#[test]
fn the_ring_aggregates_over_whole_rows_at_several_sizes_and_chunks() {
    for (m, grid) in [(2, [2, 2]), (2, [3, 3]), (1, [2, 5])] {
        let r = torus(m, grid);
        let routing = minimal(&r);
        let group = whole(&r);
        for algo in [Algo::Ring, Algo::BidirRing] {
            for (size_bytes, chunks) in [(20_160, 1), (EVEN_SIZE, 1), (3 * EVEN_SIZE, 3)] {
                let spec = CollectiveSpec {
                    op: Op::AllReduce,
                    algo,
                    size_bytes,
                    chunks,
                    reduce_s_per_byte: 1e-12,
                };
                let run = simulate_collective(&r.network, &routing, &group, &spec).unwrap();
                assert!(run.aggregated);
                assert_eq!(run.orbit, grid[1] as u64);
                assert_eq!(run.generators, vec!["(0, 1)"]);
                assert_eq!(run.report.flows * grid[1] as u64, run.report.messages);
                let full = build(Op::AllReduce, algo, &group, size_bytes, chunks)
                    .unwrap()
                    .to_dag(1e-12)
                    .unwrap();
                let all = simulate(&r.network, &routing, &full, 0).unwrap();
                assert_eq!(all.messages, run.report.messages);
                assert!(
                    close(run.report.completion_s, all.completion_s),
                    "{} {grid:?} {size_bytes} B x{chunks}: {} vs {}",
                    algo.name(),
                    run.report.completion_s,
                    all.completion_s
                );
            }
        }
    }
}

#[test]
fn a_schedule_invariant_under_no_candidate_group_runs_in_full() {
    // Rank order = chip id, but a 2D ring over lines of 18 chips (one and a half rows of nodes
    // of 4 chips on a 3 x 3 grid): neither every translation nor whole rows map its lines onto
    // lines.
    let r = torus(2, [3, 3]);
    let plant = &r.system.plant;
    let dims = vec![
        GroupDim::new(18, DimKind::Ring, Axis::X),
        GroupDim::new(2, DimKind::Ring, Axis::Y),
    ];
    let group = Group::new((0..36).collect(), dims, 36).unwrap();
    for h in [Translations::whole(plant), Translations::whole_rows(plant)] {
        let e = check_invariant(Op::AllReduce, Algo::TwoDRing, &group, &h)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not commute"), "{e}");
    }
    assert!(largest_invariant(
        Op::AllReduce,
        Algo::TwoDRing,
        &group,
        &Translations::whole(plant)
    )
    .is_none());
    let spec = CollectiveSpec {
        op: Op::AllReduce,
        algo: Algo::TwoDRing,
        size_bytes: EVEN_SIZE,
        chunks: 1,
        reduce_s_per_byte: 0.0,
    };
    let run = simulate_collective(&r.network, &minimal(&r), &group, &spec).unwrap();
    assert!(!run.aggregated);
    assert_eq!((run.orbit, run.generators.len()), (1, 0));
    assert_eq!(run.report.flows, run.report.messages);
}

#[test]
fn the_flow_run_aggregates_where_exact_and_runs_the_full_dag_otherwise() {
    let r = torus(2, [3, 3]);
    let routing = minimal(&r);
    let group = whole(&r);
    let spec = |algo| CollectiveSpec {
        op: Op::AllReduce,
        algo,
        size_bytes: EVEN_SIZE,
        chunks: 1,
        reduce_s_per_byte: 0.0,
    };
    let h = simulate_collective(&r.network, &routing, &group, &spec(Algo::Hierarchical)).unwrap();
    assert!(h.aggregated);
    assert_eq!(h.report.flows * 9, h.report.messages);
    let ring = simulate_collective(&r.network, &routing, &group, &spec(Algo::BidirRing)).unwrap();
    assert!(ring.aggregated);
    assert_eq!(ring.report.flows * 3, ring.report.messages);
    // Bad inputs: one line each.
    let bad = |s: CollectiveSpec| {
        let e = simulate_collective(&r.network, &routing, &group, &s)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let e = bad(CollectiveSpec {
        size_bytes: 0,
        ..spec(Algo::Hierarchical)
    });
    assert!(e.starts_with("size_bytes = 0"), "{e}");
    let e = bad(CollectiveSpec {
        reduce_s_per_byte: -1.0,
        ..spec(Algo::Hierarchical)
    });
    assert!(e.starts_with("reduce_s_per_byte = -1"), "{e}");
    let e = bad(spec(Algo::Direct));
    assert!(e.starts_with("algo = direct"), "{e}");
    // Too many flows for any machine's memory even aggregated over whole rows: the 1D ring on
    // 256 chips in 2^30 chunks; the refusal names the chunks and the most that fit.
    let big = torus(2, [8, 8]);
    let e = bad_on(
        &big,
        CollectiveSpec {
            chunks: 1 << 30,
            ..spec(Algo::BidirRing)
        },
    );
    assert!(
        e.starts_with(
            "chunks = 1073741824: this bidir-ring schedule (aggregated over 8 node translations"
        ) && e.contains("the largest chunks that fits is"),
        "{e}"
    );
}

fn bad_on(r: &Realized, spec: CollectiveSpec) -> String {
    simulate_collective(&r.network, &minimal(r), &whole(r), &spec)
        .unwrap_err()
        .to_string()
}
