//! Bounded memory and time for any input (issue 25, items 1-3): every case the reliability probe
//! found is refused by the resource estimator before it allocates, in one line naming the input
//! that drives the size and the largest value of it that fits; overflowing arithmetic is an
//! error, not a wrapped number. The budget is fixed here (1 GiB, 1e11 steps) so that the cases
//! behave the same on any machine.

mod common;

use common::{preset, system};
use railx_core::closed_form::max_scale;
use railx_core::collectives::{Algo, Group, Op};
use railx_core::peers::{scalability, PeerSpec};
use railx_core::plan::realize;
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::sim::flit::{simulate, FlitConfig, Pattern, Traffic};
use railx_core::sim::flit_collective::simulate_collective_flit;
use railx_core::sim::flow::collective::CollectiveSpec;
use railx_core::spec::Preset;
use std::sync::Once;

/// Sets the budget once for the whole test binary (every test reads the same values).
fn budget() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        std::env::set_var("RAILX_MEMORY_BUDGET", "1GiB");
        std::env::set_var("RAILX_WORK_BUDGET", "1e11");
    });
}

fn refusal(spec: railx_core::spec::ConfigSpec) -> String {
    budget();
    match realize(&spec) {
        Ok(_) => panic!("built"),
        Err(e) => e.to_string(),
    }
}

/// The number after "the largest FIELD that fits is ".
fn largest(message: &str) -> u64 {
    let tail = message.split("that fits is ").nth(1).expect(message);
    tail.split_whitespace()
        .next()
        .unwrap()
        .parse()
        .expect(message)
}

#[test]
fn a_mesh_of_1024_on_a_9x9_hyperx_names_m_and_what_fits() {
    let e = refusal(preset(system(1024, 2, 128, [9, 9]), Preset::Hyperx));
    assert!(
        e.starts_with("system.m = 1024: realizing this RailX network needs about"),
        "{e}"
    );
    assert!(
        e.contains("RAILX_MEMORY_BUDGET") && !e.contains('\n'),
        "{e}"
    );
    // The largest m that fits is built, and the next one is refused.
    let m = largest(&e) as u32;
    assert!((100..1024).contains(&m), "{e}");
    let next = refusal(preset(system(m + 1, 2, 128, [9, 9]), Preset::Hyperx));
    assert!(next.starts_with(&format!("system.m = {}", m + 1)), "{next}");
}

#[test]
fn a_torus_of_radix_8192_or_65536_names_r_and_an_even_radix() {
    for radix in [8192, 65536] {
        let mut s = system(1, 1, radix, [1, 1]);
        s.grid = None;
        let e = refusal(preset(s, Preset::Torus));
        assert!(e.starts_with(&format!("system.R = {radix}:")), "{e}");
        let fits = largest(&e);
        assert!(fits.is_multiple_of(2) && fits < radix as u64, "{e}");
    }
}

#[test]
fn a_grid_of_10000_by_10000_names_the_grid() {
    let e = refusal(preset(system(1, 1, 20000, [10000, 10000]), Preset::Torus));
    assert!(e.starts_with("system.grid["), "{e}");
    assert!(largest(&e) < 10000, "{e}");
}

#[test]
fn n_of_2_32_is_refused_not_wrapped_into_the_port_count() {
    let e = refusal(preset(system(4, u32::MAX, 128, [9, 9]), Preset::Torus));
    assert!(
        e.starts_with("system.n = 4294967295:") && e.contains("32-bit"),
        "{e}"
    );
}

#[test]
fn max_scale_refuses_overflow_and_zero() {
    let e = max_scale((1 << 31) - 1, 2, 128).unwrap_err().to_string();
    assert!(
        e.starts_with("m = 2147483647:") && e.contains("2^64"),
        "{e}"
    );
    assert!(max_scale(0, 2, 128).is_err() && max_scale(4, 0, 128).is_err());
    assert!(max_scale(4, 2, 127).is_err());
    assert_eq!(max_scale(4, 2, 128).unwrap()[0].chips, 64 * 64 * 16);
}

#[test]
fn the_scalability_radix_is_bounded() {
    let e = scalability(1 << 31).unwrap_err().to_string();
    assert!(e.contains("4..=16384"), "{e}");
    // The largest radix answers (the Dragonfly search is linear in it), no count wrapped to 0.
    let rows = scalability(16384).unwrap();
    assert!(rows.iter().all(|r| r.max_chips.is_none_or(|c| c > 0)));
}

#[test]
fn a_peer_beyond_the_budget_names_its_chips() {
    budget();
    let spec: PeerSpec = serde_json::from_str(
        r#"{"family": "fat-tree", "radix": 64, "tiers": 6, "chips": 1000000000}"#,
    )
    .unwrap();
    let e = spec.network().unwrap_err().to_string();
    assert!(
        e.starts_with("chips = 1000000000: building this fat-tree network needs"),
        "{e}"
    );
    assert!(largest(&e) < 1_000_000_000, "{e}");
}

fn small_torus() -> railx_core::plan::Realized {
    realize(&preset(system(2, 1, 8, [3, 3]), Preset::Torus)).unwrap()
}

#[test]
fn buffers_of_2_32_flits_are_refused_before_the_timing_wheel_is_allocated() {
    budget();
    let r = small_torus();
    let routing = RailxRouting::of_region(&r, None, Scheme::Dateline).unwrap();
    let config = FlitConfig {
        buffer_flits: u32::MAX,
        ..FlitConfig::default()
    };
    let traffic = Traffic::Rate {
        pattern: Pattern::Uniform,
        load: 0.1,
    };
    let e = simulate(&r.network, &routing, &config, &traffic)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("buffer_flits = 4294967295:"), "{e}");
    assert!(largest(&e) >= 16, "{e}");
    // Cycles beyond the work budget name the cycles.
    let long = FlitConfig {
        measure_cycles: 1 << 62,
        ..FlitConfig::default()
    };
    let e = simulate(&r.network, &routing, &long, &traffic)
        .unwrap_err()
        .to_string();
    // The source queues of a saturated run outgrow memory first; the count is shown exactly.
    assert!(e.starts_with("cycles = 4611686018427392904:"), "{e}");
    assert!(largest(&e) > 15000, "{e}");
}

fn collective(chunks: u32, reduce_s_per_byte: f64) -> String {
    budget();
    let r = small_torus();
    let routing = RailxRouting::of_region(&r, None, Scheme::Dateline).unwrap();
    let group = Group::railx_region(&r.system.plant, &r.system.regions[0]).unwrap();
    let spec = CollectiveSpec {
        op: Op::AllReduce,
        algo: Algo::Ring,
        size_bytes: 1 << 20,
        chunks,
        reduce_s_per_byte,
    };
    match simulate_collective_flit(&r.network, &routing, &group, &spec, 256) {
        Ok(run) => format!("ok {}", run.time_s),
        Err(e) => e.to_string(),
    }
}

#[test]
fn flit_collective_chunks_count_in_the_estimate() {
    let e = collective((1 << 31) - 1, 0.0);
    assert!(e.starts_with("chunks = 2147483647:"), "{e}");
}

#[test]
fn a_reduce_delay_of_a_second_per_byte_is_refused_not_wrapped() {
    let e = collective(1, 1e9);
    assert!(
        e.starts_with("reduce_s_per_byte = 1.000e9:") && e.contains("steps of work"),
        "{e}"
    );
    let e = collective(1, 1.0);
    assert!(e.starts_with("reduce_s_per_byte = 1.000e0:"), "{e}");
    // A delay that fits is simulated: it adds time, never wraps to less.
    let none: f64 = collective(1, 0.0)[3..].parse().unwrap();
    let some: f64 = collective(1, 1e-10)[3..].parse().unwrap();
    assert!(some > none, "{none} {some}");
}
