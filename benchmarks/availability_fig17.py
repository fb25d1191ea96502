"""Benchmark: the Fig. 17 availability sweep (paper §6.6) on the 2-core reference machine.

(a) largest single job against the number of failed nodes on a 64 x 64-node grid; (b) mean
availability against failure rate (0.05% .. 5%) for 16 x 16, 32 x 32 and 64 x 64 grids; 100
seeded samples per point. Dense points are settled by the MILP under a per-sample time limit, so
the table reports how many samples are proven optimal and the mean proven upper bound. Target:
the whole sweep in <= 60 s. Not a test: run `python benchmarks/availability_fig17.py [--plot DIR]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from railx.availability import sweep
from railx.availability.commands import PLOT_RATES
from railx.availability.plots import plot_availability_vs_rate, plot_size_vs_failures

SAMPLES = 100
TIME_LIMIT_S = 0.3  # per sample, MILP only


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plot", type=Path, help="write the two figures (PNG) into this directory")
    args = parser.parse_args()
    start = time.perf_counter()
    by_count = sweep([(64, 64)], counts=list(range(0, 65, 8)), samples=SAMPLES, seed=0, time_limit_s=TIME_LIMIT_S)
    t_a = time.perf_counter() - start
    by_rate = sweep(
        [(16, 16), (32, 32), (64, 64)], rates=list(PLOT_RATES), samples=SAMPLES, seed=0, time_limit_s=TIME_LIMIT_S
    )
    total = time.perf_counter() - start

    print("(a) 64 x 64 nodes: largest single job vs failed nodes (100 samples each)")
    print(f"{'failed':>6} {'mean':>8} {'min':>6} {'max':>6} {'best':>6} {'worst':>6} {'optimal':>8}")
    for s in by_count:
        worst = "-" if s.worst_case_nodes is None else s.worst_case_nodes
        print(
            f"{s.count:>6} {s.max_single_job_nodes_mean:>8.1f} {s.max_single_job_nodes_min:>6} "
            f"{s.max_single_job_nodes_max:>6} {s.best_case_nodes:>6} {worst:>6} {s.optimal_samples:>8}"
        )
    print("(b) mean availability vs failure rate (100 samples each)")
    print(f"{'grid':>8} {'rate %':>7} {'avail %':>8} {'upper %':>8} {'min %':>7} {'optimal':>8}  solvers")
    for s in by_rate:
        print(
            f"{s.grid[0]:>3} x {s.grid[1]:<3} {100 * s.rate:>7.2f} {100 * s.availability_mean:>8.2f} "
            f"{100 * s.availability_upper_mean:>8.2f} {100 * s.availability_min:>7.2f} {s.optimal_samples:>8}  {s.solvers}"
        )
    print(f"sweep (a) {t_a:.1f} s, (b) {total - t_a:.1f} s, total {total:.1f} s (target <= 60 s)")
    if args.plot:
        args.plot.mkdir(parents=True, exist_ok=True)
        print(
            "wrote",
            plot_size_vs_failures(by_count, args.plot / "fig17a.png"),
            plot_availability_vs_rate(by_rate, args.plot / "fig17b.png"),
        )
    return 0 if total <= 60 else 1


if __name__ == "__main__":
    sys.exit(main())
