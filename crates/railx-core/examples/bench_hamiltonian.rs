//! Times `rail_successors` and `verify_rails` for every even s from 8 to 256 and a few large s.
//!
//! Run with `cargo run --release -p railx-core --example bench_hamiltonian`. Each figure is the
//! best of several runs, to keep scheduler noise out of a microsecond-scale measurement. The
//! build time includes the verification `rail_successors` always performs before returning.

use std::hint::black_box;
use std::time::{Duration, Instant};

use railx_core::hamiltonian::{rail_successors, verify_rails};

const REPEATS: usize = 7;

/// Best-of-`REPEATS` wall time of `f`, in microseconds.
fn best_micros<T>(mut f: impl FnMut() -> T) -> f64 {
    let best = (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO);
    best.as_secs_f64() * 1e6
}

/// (build µs, verify µs) for K*_s.
fn measure(s: usize) -> (f64, f64) {
    let rails = match rail_successors(s, false) {
        Ok(rails) => rails,
        Err(e) => panic!("s = {s}: {e}"),
    };
    let build = best_micros(|| rail_successors(black_box(s), false));
    let verify = best_micros(|| verify_rails(black_box(s), &rails, false));
    (build, verify)
}

fn main() {
    println!("{:>6} {:>12} {:>12}", "s", "build (µs)", "verify (µs)");
    let mut worst = (0, 0.0_f64, 0.0_f64);
    for s in (8..=256).step_by(2) {
        let (build, verify) = measure(s);
        println!("{s:>6} {build:>12.1} {verify:>12.1}");
        if build > worst.1 {
            worst = (s, build, worst.2);
        }
        worst.2 = worst.2.max(verify);
    }
    println!("{:-<32}", "");
    for s in [512, 1024, 1200] {
        let (build, verify) = measure(s);
        println!("{s:>6} {build:>12.1} {verify:>12.1}");
    }
    println!("{:-<32}", "");
    println!(
        "max over even s in 8..=256: build {:.1} µs (s = {}), verify {:.1} µs",
        worst.1, worst.0, worst.2
    );
}
