//! Progress observers (`railx_core::progress`): a run reports its own counters and never changes
//! its result for being watched, its reports rise to its total, and an observer that says stop
//! ends it with `RailxError::Cancelled` at that report.

mod common;

use common::{preset, system};
use proptest::prelude::*;
use railx_core::collectives::links::{measure_numbered, LineSpec};
use railx_core::collectives::plan::LineAlgo;
use railx_core::network::Network;
use railx_core::peers::PeerSpec;
use railx_core::plan::{plan, plan_observed, realize};
use railx_core::progress::{Cancelled, Observer, Unit};
use railx_core::routing::analysis::{route_stats, route_stats_observed};
use railx_core::routing::deadlock::{check, check_observed};
use railx_core::routing::peer::for_peer;
use railx_core::routing::Routing;
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flit::{simulate, simulate_observed, FlitConfig, Pattern, Traffic};
use railx_core::sim::flow;
use railx_core::spec::Preset;
use railx_core::system::{RoutingOptions, System, SystemSpec};
use railx_core::RailxError;
use std::ops::ControlFlow;

/// A k x k torus of chips with dateline routing.
fn torus(k: u32) -> (Network, Box<dyn Routing>) {
    let spec: PeerSpec = serde_json::from_str(&format!(
        r#"{{"family": "torus3d", "dims": [{k}, {k}, 1], "ports_per_direction": 1}}"#
    ))
    .unwrap();
    let net = spec.network().unwrap();
    let routing = for_peer(&spec, &net, Some("dateline")).unwrap();
    (net, routing)
}

/// Records every report; says stop at report number `stop_at` (never when `None`).
#[derive(Default)]
struct Recorder {
    reports: Vec<(u64, Option<u64>, Unit)>,
    stop_at: Option<usize>,
}

impl Observer for Recorder {
    fn report(&mut self, done: u64, total: Option<u64>, unit: Unit) -> ControlFlow<Cancelled> {
        self.reports.push((done, total, unit));
        match self.stop_at {
            Some(k) if self.reports.len() >= k => ControlFlow::Break(Cancelled),
            _ => ControlFlow::Continue(()),
        }
    }
}

impl Recorder {
    /// Reports rise, stay within their total and all count `unit`.
    fn check(&self, unit: Unit) {
        assert!(!self.reports.is_empty(), "no report");
        for w in self.reports.windows(2) {
            assert!(w[0].0 <= w[1].0, "reports fell: {:?}", self.reports);
        }
        for &(done, total, u) in &self.reports {
            assert_eq!(u, unit);
            assert!(total.is_none_or(|t| done <= t), "{done} > {total:?}");
        }
    }
}

fn short() -> FlitConfig {
    FlitConfig {
        warmup_cycles: 200,
        measure_cycles: 600,
        ..FlitConfig::default()
    }
}

/// A random DAG of `n` small messages on chips `0..chips`, each after up to two earlier ones.
fn random_dag(n: u32, chips: u32, seed: u64) -> MessageDag {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let mut dag = MessageDag::new();
    for i in 0..n {
        let src = next(chips as u64) as u32;
        let dst = (src + 1 + next(chips as u64 - 1) as u32) % chips;
        let after: Vec<u32> = (0..2)
            .filter(|_| i > 0)
            .map(|_| next(i as u64) as u32)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        dag.push(src, dst, 512 + 512 * next(16), 0.0, &after)
            .unwrap();
    }
    dag
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn a_watched_flit_run_equals_an_unwatched_one(
        load in 0.05f64..0.6,
        seed in 0u64..1000,
        threads in 1usize..=2,
        finite in any::<bool>(),
    ) {
        let (net, routing) = torus(4);
        let config = FlitConfig { seed, threads, ..short() };
        let traffic = if finite {
            Traffic::FiniteAllToAll { flits_per_pair: 8 }
        } else {
            Traffic::Rate { pattern: Pattern::Uniform, load }
        };
        let plain = simulate(&net, routing.as_ref(), &config, &traffic).unwrap();
        let mut watcher = Recorder::default();
        let watched = simulate_observed(&net, routing.as_ref(), &config, &traffic, &mut watcher).unwrap();
        prop_assert_eq!(&plain, &watched);
        watcher.check(if finite { Unit::Flits } else { Unit::Cycles });
        let total = if finite { 16 * 15 * 8 } else { 800 };
        prop_assert!(watcher.reports.iter().all(|r| r.1 == Some(total)));
    }

    #[test]
    fn a_watched_flow_run_equals_an_unwatched_one(n in 1u32..300, seed in 0u64..1000) {
        let (net, routing) = torus(4);
        let dag = random_dag(n, 16, seed);
        let plain = flow::simulate(&net, routing.as_ref(), &dag, 8).unwrap();
        let mut watcher = Recorder::default();
        let watched = flow::simulate_observed(&net, routing.as_ref(), &dag, 8, &mut watcher).unwrap();
        prop_assert_eq!(plain, watched);
        watcher.check(Unit::Messages);
    }
}

#[test]
fn a_watched_deadlock_check_and_route_statistics_equal_unwatched_ones() {
    // 144 chips: several chunks of the exhaustive check.
    let (_, routing) = torus(12);
    let mut watcher = Recorder::default();
    let watched = check_observed(routing.as_ref(), 1000, 3, &mut watcher).unwrap();
    assert_eq!(check(routing.as_ref(), 1000, 3).unwrap(), watched);
    watcher.check(Unit::Destinations);
    assert_eq!(watcher.reports.last().unwrap().0, 144);
    let mut watcher = Recorder::default();
    let watched = route_stats_observed(routing.as_ref(), 5000, 3, &mut watcher).unwrap();
    assert_eq!(route_stats(routing.as_ref(), 5000, 3).unwrap(), watched);
    watcher.check(Unit::Routes);
    assert_eq!(watcher.reports.last().unwrap().0, 5000);
}

/// The error an observer that stops at its `k`-th report gets, and the reports it saw.
fn cancelled_at(
    k: usize,
    run: impl FnOnce(&mut Recorder) -> railx_core::Result<()>,
) -> (RailxError, Vec<u64>) {
    let mut watcher = Recorder {
        stop_at: Some(k),
        ..Recorder::default()
    };
    let e = run(&mut watcher).expect_err("the observer stopped the run");
    (e, watcher.reports.iter().map(|r| r.0).collect())
}

#[test]
fn stopping_at_the_kth_report_cancels_every_kind_of_run() {
    let (net, routing) = torus(4);
    let traffic = Traffic::Rate {
        pattern: Pattern::Uniform,
        load: 0.2,
    };
    // The flit level reports after its first cycle, then every 64 cycles.
    let (e, seen) = cancelled_at(3, |w| {
        simulate_observed(&net, routing.as_ref(), &short(), &traffic, w).map(drop)
    });
    assert_eq!(seen, vec![1, 65, 129]);
    assert_eq!(
        e.to_string(),
        "flit-level run cancelled after 129 of 800 cycles by its progress observer"
    );
    let dag = random_dag(2000, 16, 7);
    let (e, seen) = cancelled_at(2, |w| {
        flow::simulate_observed(&net, routing.as_ref(), &dag, 0, w).map(drop)
    });
    assert_eq!(seen.len(), 2);
    assert!(
        matches!(e, RailxError::Cancelled { ref what, ref total, .. } if what == "flow-level run" && total == "2000")
    );
    let (_, big) = torus(12);
    let (e, seen) = cancelled_at(2, |w| check_observed(big.as_ref(), 1000, 0, w).map(drop));
    // Reports before the first chunk and after it (64 destinations).
    assert_eq!(seen, vec![0, 64]);
    assert_eq!(
        e.to_string(),
        "deadlock check cancelled after 64 of 144 destinations by its progress observer"
    );
}

#[test]
fn a_watched_plan_equals_an_unwatched_one_and_walks_every_source_node() {
    // 16 x 16 nodes: four chunks of the metrics' route walk (64 source nodes each).
    let realized = realize(&preset(system(2, 2, 32, [16, 16]), Preset::Torus)).unwrap();
    let mut watcher = Recorder::default();
    let watched = plan_observed(&realized, &mut watcher).unwrap();
    assert_eq!(
        serde_json::to_value(plan(&realized).unwrap()).unwrap(),
        serde_json::to_value(watched).unwrap()
    );
    watcher.check(Unit::Nodes);
    let seen: Vec<u64> = watcher.reports.iter().map(|r| r.0).collect();
    assert_eq!(seen, vec![0, 64, 128, 192, 256]);
    assert!(watcher.reports.iter().all(|r| r.1 == Some(256)));
    let (e, seen) = cancelled_at(2, |w| plan_observed(&realized, w).map(drop));
    assert_eq!(seen, vec![0, 64]);
    assert_eq!(
        e.to_string(),
        "the metrics' route walk cancelled after 64 of 256 nodes by its progress observer"
    );
}

#[test]
fn a_watched_line_measurement_equals_an_unwatched_one_and_counts_its_lines() {
    let system = System::build(
        &SystemSpec::from_json(r#"{"peer": {"family": "fat-tree", "radix": 8, "chips": 8}}"#)
            .unwrap(),
    )
    .unwrap();
    let routing = system.routing(None, &RoutingOptions::default()).unwrap();
    let line = |dims: Vec<usize>, algo: LineAlgo| LineSpec {
        name: "T".to_string(),
        dims,
        algo,
    };
    let lines = [
        line(vec![0], LineAlgo::Ring),
        line(vec![0], LineAlgo::Direct),
        line(vec![1], LineAlgo::BidirRing),
    ];
    let measure = |w: &mut dyn Observer| {
        measure_numbered(system.network(), routing.as_ref(), &[4, 2], &lines, None, w)
    };
    let mut watcher = Recorder::default();
    let watched = measure(&mut watcher).unwrap();
    assert_eq!(measure(&mut Recorder::default()).unwrap(), watched);
    watcher.check(Unit::Lines);
    assert_eq!(
        watcher.reports,
        (0..=3)
            .map(|d| (d, Some(3), Unit::Lines))
            .collect::<Vec<_>>()
    );
    let (e, seen) = cancelled_at(2, |w| measure(w).map(drop));
    assert_eq!(seen, vec![0, 1]);
    assert_eq!(
        e.to_string(),
        "the lines' measurement cancelled after 1 of 3 lines by its progress observer"
    );
}
