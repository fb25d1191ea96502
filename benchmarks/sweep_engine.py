"""Benchmark: the sweep engine (railx sweep) on the 2-core reference machine.

For 1 and 2 worker processes of the embedded Dask cluster: a 1,000-point sweep of the cost
analysis (a RailX torus, 100 grids x 10 port bandwidths; `--analysis plan` for the plan analysis
instead) and, with `--fig17`, the Fig. 17 availability sweeps (examples/sweeps/fig17a.toml and
fig17b.toml). Prints the wall time of each (cluster start-up apart), the time the analyses took
inside the workers, the per-point overhead of the engine and the store beyond the analysis
((wall - analysis time / workers) / points; target < 5 ms), the store's own write time per point,
and the speed-up with 2 workers. Not a test:

    PYTHONPATH=python python3 benchmarks/sweep_engine.py [--points-analysis cost|plan] [--fig17]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from railx.progress import shows_progress
from railx.sweep import Store, Sweep, dask_client, load_spec, parse_spec, run_sweep

SPECS = Path(__file__).resolve().parent.parent / "examples" / "sweeps"
BASE = """[system]
m = 4
n = 2
R = 128

[topology]
preset = "torus"
"""


def points_sweep(analysis: str, scratch: Path) -> Sweep:
    """1,000 points: grids 3..12 x 3..12 nodes, 10 port bandwidths."""
    (scratch / "base.toml").write_text(BASE)
    grids = [[p, q] for p in range(3, 13) for q in range(3, 13)]
    spec: dict[str, Any] = {
        "sweep": {"name": f"{analysis}-1000", "analysis": analysis, "base": "base.toml"},
        "axis": [{"grid": {"system.grid": grids, "system.port_bw_GBps": [25.0 * i for i in range(1, 11)]}}],
    }
    return parse_spec(spec, scratch, "points")


def timed_run(sweeps: list[Sweep], workers: int, store: Path) -> dict[str, float]:
    """Runs the sweeps on a fresh embedded cluster: start-up, wall and in-worker analysis time."""
    start = time.perf_counter()
    with dask_client(None, workers) as client:
        client.wait_for_workers(workers)
        startup_s = time.perf_counter() - start
        begin = time.perf_counter()
        with Store(store) as db:
            for sweep in sweeps:
                run_sweep(sweep, db, client=client, quiet=not shows_progress(False))
        wall_s = time.perf_counter() - begin
    with Store(store, read_only=True) as db:
        _names, rows = db.query("SELECT sum(wall_s), count(*), count(*) FILTER (WHERE status <> 'ok') FROM points")
    analysis_s, points, failed = rows[0]
    return {"startup_s": startup_s, "wall_s": wall_s, "analysis_s": analysis_s, "points": points, "failed": failed}


def store_write_ms(sweep: Sweep, scratch: Path) -> float:
    """The store alone: one transaction per point, per point (ms)."""
    result = {"record": {"chips": 1, "cost_usd": 1.0}, "error": None, "wall_s": 0.0, "host": "bench"}
    with Store(scratch / "writes.duckdb") as db:
        db.register(sweep)
        start = time.perf_counter()
        for point in sweep.points:
            db.write(point, result, 1)
        return 1e3 * (time.perf_counter() - start) / len(sweep.points)


def report(title: str, runs: dict[int, dict[str, float]]) -> None:
    print(title)
    print(
        f"{'workers':>7} {'points':>6} {'start s':>8} {'wall s':>8} {'analysis s':>10} {'overhead ms/pt':>14} {'speed-up':>8}"
    )
    for workers, r in runs.items():
        overhead_ms = 1e3 * (r["wall_s"] - r["analysis_s"] / workers) / r["points"]
        speedup = runs[1]["wall_s"] / r["wall_s"]
        print(
            f"{workers:>7} {r['points']:>6} {r['startup_s']:>8.2f} {r['wall_s']:>8.2f} {r['analysis_s']:>10.2f} "
            f"{overhead_ms:>14.2f} {speedup:>8.2f}" + (f"  ({r['failed']} failed)" if r["failed"] else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points-analysis", choices=("cost", "plan"), default="cost")
    parser.add_argument("--fig17", action="store_true", help="also the Fig. 17 sweeps (about a minute per run)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        sweep = points_sweep(args.points_analysis, scratch)
        print(f"store alone: {store_write_ms(sweep, scratch):.2f} ms per point written (one transaction each)")
        runs = {w: timed_run([sweep], w, scratch / f"points-{w}.duckdb") for w in (1, 2)}
        report(f"{len(sweep.points):,}-point {args.points_analysis} sweep", runs)
        if args.fig17:
            specs = [load_spec(SPECS / "fig17a.toml"), load_spec(SPECS / "fig17b.toml")]
            runs = {w: timed_run(specs, w, scratch / f"fig17-{w}.duckdb") for w in (1, 2)}
            report("Fig. 17 sweeps (fig17a + fig17b, 30 points of 100 samples)", runs)


if __name__ == "__main__":
    main()
