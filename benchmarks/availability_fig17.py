"""Benchmark: the Fig. 17 availability sweep (paper §6.6) on the 2-core reference machine.

(a) largest single job against the number of failed nodes on a 64 x 64-node grid; (b) mean
availability against failure rate (0.05% .. 5%) for 16 x 16, 32 x 32 and 64 x 64 grids; 100
seeded samples per point. Dense points are settled by the MILP under a per-sample time limit, so
the table reports how many samples are proven optimal and the mean proven upper bound. Target:
the whole sweep in <= 60 s. Not a test: run `python benchmarks/availability_fig17.py [--plot DIR]
[--workers N] [--scheduler ADDRESS] [--store FILE]`.

The points are the sweeps examples/sweeps/fig17a.toml and fig17b.toml, run by railx's sweep
engine (Dask workers, a DuckDB store): with --store FILE a second run reads the stored points
instead of computing them (default: a fresh temporary store, so everything is computed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from railx.availability import AvailabilityStats
from railx.availability.plots import plot_availability_vs_rate, plot_size_vs_failures
from railx.progress import shows_progress
from railx.results import load
from railx.sweep import Store, dask_client, load_spec, run_sweep

SPECS = Path(__file__).resolve().parent.parent / "examples" / "sweeps"


def run_spec(name: str, store: Path, client: object) -> list[AvailabilityStats]:
    """The spec's points, computed where missing, as the availability records in spec order."""
    sweep = load_spec(SPECS / f"{name}.toml")
    with Store(store) as db:
        run_sweep(sweep, db, client=client, quiet=not shows_progress(False))
    frame = load(store, sweep.name)
    failed = frame[frame["status"] != "ok"]
    if not failed.empty:
        raise SystemExit(f"{name}: {len(failed)} points failed, e.g. {failed['error'].iloc[0]}")
    return [AvailabilityStats(**(r | {"grid": tuple(r["grid"])})) for r in frame["record"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plot", type=Path, help="write the two figures (PNG) into this directory")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, dask_client(args.scheduler, args.workers) as client:
        store = args.store or Path(scratch) / "fig17.duckdb"
        start = time.perf_counter()
        by_count = run_spec("fig17a", store, client)
        t_a = time.perf_counter() - start
        by_rate = run_spec("fig17b", store, client)
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
    workers = "a cluster" if args.scheduler else f"{args.workers} worker{'s' * (args.workers > 1)}"
    print(f"sweep (a) {t_a:.1f} s, (b) {total - t_a:.1f} s, total {total:.1f} s on {workers} (target <= 60 s)")
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
