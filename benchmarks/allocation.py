"""RailX bandwidth allocation: the Fig. 16 sweep (6 sequence lengths x 11 splits of 10 ports
between context and data parallelism, with and without DP overlap), and the static optimum of the
Listing 1 job by exhaustive search and by MILP on growing port counts.

    python3 benchmarks/allocation.py [--plot [PNG]]

Prints the table of optima under the paper's DP all-reduce order (De first) and the best C port
counts under the rank order (C first), and the wall time of the sweep (target <= 5 s). --plot draws
the C + DP communication time per split (docs/figures/fig16.png by default), as the paper's Fig. 16.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from railx.allocation.static import static_split
from railx.allocation.sweep import Fig16Row, fig16_table
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import load_workload_system

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


def solvers() -> None:
    """Exhaustive against MILP on the Listing 1 job as the ports per edge grow."""
    base = load_workload_system(LISTING1).with_ports({"C": 1, "E": 1, "De": 1, "P": 1})
    for n in (4, 16, 64, 256, 1024):
        system = base.model_copy(update={"system": base.system.model_copy(update={"n": n})})
        it = IterationModel(load_model("llama3-70b-moe8"), system.parallelism(T=4, C=2, E=2, D=4, P=2), system)
        for method in ("exhaustive", "milp"):
            if method == "exhaustive" and n > 256:
                continue
            start = time.perf_counter()
            split = static_split(it, method)  # type: ignore[arg-type]
            print(
                f"n = {n:>4} {method:>10}: ports {split.ports}, {split.time_s:.6f} s iteration, "
                f"{split.candidates:,} allocations, {time.perf_counter() - start:.3f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--plot", type=Path, nargs="?", const=FIG16_PNG, help=f"write the Fig. 16 plot (default {FIG16_PNG})"
    )
    args = parser.parse_args()
    rows = fig16()
    if args.plot:
        plot(rows, args.plot)
    solvers()


if __name__ == "__main__":
    main()
