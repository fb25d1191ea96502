"""RailX bandwidth allocation: the Fig. 16 sweep (6 sequence lengths x 11 splits of 10 ports
between context and data parallelism, with and without DP overlap), and the static optimum of the
Listing 1 job by exhaustive search and by MILP on growing port counts.

    python3 benchmarks/allocation.py [--plot [PNG]] [--workers N] [--scheduler ADDRESS] [--store FILE]

Prints the table of optima under the paper's DP all-reduce order (De first) and the best C port
counts under the rank order (C first), and the wall time of the sweep (target <= 5 s). --plot draws
the C + DP communication time per split (docs/figures/fig16.png by default), as the paper's Fig. 16.

The solver comparison runs on railx's sweep engine (the allocate-bw analysis, one point per port
count and method). The Fig. 16 table stays one call of `railx.allocation.fig16_table`: it
evaluates each sequence's 11 splits in one vectorised pass (the 5 s target measures that), and it
prints the C + DP communication time of each split (`split_comm_curve`), which the workload
analysis's record does not hold; its iteration times are also the shipped sweep
examples/sweeps/fig16.toml (equal to fig16_table's, tests/test_sweep.py).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from railx.allocation.sweep import Fig16Row, fig16_table
from railx.sweep import Sweep, parse_spec
from railx.sweep.batch import Runner, runner

ROOT = Path(__file__).resolve().parents[1]
LISTING1 = ROOT / "examples" / "workloads" / "listing1.toml"
FIG16_PNG = ROOT / "docs" / "figures" / "fig16.png"


def fig16() -> list[Fig16Row]:
    """The sweep and its optima; returns the rows (paper's order) for plotting."""
    start = time.perf_counter()
    rows = fig16_table()
    seconds = time.perf_counter() - start
    print("Fig. 16: iteration time (s) per C ports (DP gets 10 - C), DP all-reduce De first; * marks the optimum")
    print(f"{'seq':>7} {'DP overlap':>10} " + " ".join(f"{c:>7}" for c in range(11)) + "   best C")
    for r in rows:
        cells = " ".join(
            f"{t:>6.3f}{'*' if c == r.best_c_ports else ' '}" if t != float("inf") else f"{'inf':>7}"
            for c, t in enumerate(r.times_s)
        )
        print(f"{r.sequence:>7} {'yes' if r.overlap else 'no':>10} {cells}   {r.best_c_ports:>2}")
    print(f"sweep of {len(rows) // 2} sequences x 11 splits x 2 overlap settings: {seconds:.3f} s (target <= 5 s)")
    print("best C ports and C + DP communication time (ms) at the optimum, per DP all-reduce order:")
    for order in ("De-first", "C-first"):
        ranked = rows if order == "De-first" else fig16_table(dp_order=order)
        for overlap in ((), ("D",)):
            best = [(r.best_c_ports, min(r.comm_s) * 1e3) for r in ranked if r.overlap == overlap]
            cells = ", ".join(f"{c} ({ms:.1f})" for c, ms in best)
            print(f"  {order:>8}, DP overlap {'yes' if overlap else 'no ':>3}: {cells}")
    return rows


def plot(rows: list[Fig16Row], path: Path) -> None:
    """C + DP communication time per split, one line per sequence length, without and with DP
    overlap (the layout of the paper's Fig. 16); a star marks each optimum."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, overlap, title in zip(axes, ((), ("D",)), ("(a) DP not overlapped", "(b) DP overlapped with compute")):
        for r in (r for r in rows if r.overlap == overlap):
            ports = range(1, len(r.comm_s) - 1)
            ms = [r.comm_s[c] * 1e3 for c in ports]
            (line,) = ax.plot(ports, ms, "o-", markersize=3, label=f"S = {r.sequence // 1024}K")
            ax.plot(r.best_c_ports, r.comm_s[r.best_c_ports] * 1e3, "*", color=line.get_color(), markersize=13)
        ax.set_yscale("log")
        ax.set_xticks(list(range(1, 10)), [f"{c}:{10 - c}" for c in range(1, 10)])
        ax.set_xlabel("ports per chip edge, CP : DP")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("CP + DP communication time per iteration (ms)")
    axes[1].legend(fontsize=8)
    fig.suptitle(
        "Fig. 16: Llama 3 405B, T=16 mesh, C=4 and D=4 share 10 ports of 50 GB/s, DP all-reduce De first", fontsize=9
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    print(f"wrote {path}")


def solvers_sweep() -> Sweep:
    """The Listing 1 job with one port per dimension on each axis and n ports per chip edge, each
    n solved exhaustively (while n <= 256) and by MILP: one sweep of the allocate-bw analysis."""
    points = [
        {"system.n": n, "options.method": method}
        for n in (4, 16, 64, 256, 1024)
        for method in ("exhaustive", "milp")
        if method == "milp" or n <= 256
    ]
    data = {
        "sweep": {"name": "allocation-solvers", "analysis": "allocate-bw", "base": str(LISTING1), "retries": 0},
        "options": {"model": "llama3-70b-moe8", "parallel": "T=4,C=2,E=2,D=4,P=2"},
        "axis": [{"list": [{f"mapping.{d}.ports": 1 for d in ("C", "E", "De", "P")}]}, {"list": points}],
    }
    return parse_spec(data, ROOT, "allocation-solvers")


def solvers(run_on: Runner) -> None:
    """Exhaustive against MILP on the Listing 1 job as the ports per edge grow (the time is the
    point's on its worker: the model, the mapped evaluation and the search)."""
    frame = run_on.frame(solvers_sweep())
    for point in frame.to_dict("records"):
        if isinstance(point["error"], str):
            raise SystemExit(f"allocation-solvers: {point['error']}")
        split = point["record"]["static"]
        print(
            f"n = {point['system.n']:>4} {point['options.method']:>10}: ports {split['ports']}, "
            f"{split['time_s']:.6f} s iteration, {split['candidates']:,} allocations, {point['wall_s']:.3f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--plot", type=Path, nargs="?", const=FIG16_PNG, help=f"write the Fig. 16 plot (default {FIG16_PNG})"
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    args = parser.parse_args()
    rows = fig16()
    if args.plot:
        plot(rows, args.plot)
    with runner(args.scheduler, args.workers, args.store) as run_on:
        solvers(run_on)


if __name__ == "__main__":
    main()
