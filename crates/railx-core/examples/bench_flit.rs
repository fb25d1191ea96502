//! The flit-level simulator on the issue's benchmark torus: 36 x 36 chips, one per router, DOR
//! with datelines, 16-flit VC buffers, 4-flit packets, every link 1 flit/cycle and 1 cycle of
//! latency, injection 1 flit/cycle (as BookSim2), uniform traffic.
//!
//! `cargo run --release -p railx-core --example bench_flit -- [LOAD] [CYCLES] [THREADS]
//! [booksim2|timing]` (`booksim2`: BookSim2's router and routing as railx models them,
//! `FlitConfig::booksim2_router` and `dateline-partition`; `timing`: railx's packet router with
//! BookSim2's timing, `FlitConfig::booksim2_timing`, and the same routing) prints wall seconds,
//! router-cycles/s and flit-hops/s (the Python benchmark, benchmarks/flit_sim.py, runs the full
//! set through the binding).

use railx_core::peers::PeerSpec;
use railx_core::routing::peer::for_peer;
use railx_core::sim::flit::{simulate, FlitConfig, Pattern, Traffic};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (load, cycles, threads) = (arg(1, 0.108), arg(2, 15000.0) as u64, arg(3, 1.0) as usize);
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "torus3d", "dims": [36, 36, 1], "ports_per_direction": 1}"#,
    )
    .expect("a valid torus spec");
    let net = spec.network().expect("the torus builds");
    let (name, router) = match args.get(4).map(String::as_str) {
        Some("booksim2") => ("dateline-partition", FlitConfig::booksim2_router()),
        Some("timing") => ("dateline-partition", FlitConfig::booksim2_timing()),
        _ => ("dateline", FlitConfig::default()),
    };
    let routing = for_peer(&spec, &net, Some(name)).expect("torus routing");
    let config = FlitConfig {
        long_latency_cycles: 1,
        warmup_cycles: 0,
        measure_cycles: cycles,
        threads,
        ..router
    };
    let start = Instant::now();
    let report = simulate(
        &net,
        &*routing,
        &config,
        &Traffic::Rate {
            pattern: Pattern::Uniform,
            load,
        },
    )
    .expect("the run completes");
    let wall = start.elapsed().as_secs_f64();
    println!(
        "load {load} cycles {cycles} threads {threads}: wall {wall:.2} s, {:.3e} router-cycles/s, {:.3e} flit-hops/s; offered {:.4} accepted {:.4} latency mean {:.1} p99 {}",
        report.router_cycles as f64 / wall,
        report.flit_hops as f64 / wall,
        report.offered,
        report.accepted,
        report.latency.mean,
        report.latency.p99
    );
}
