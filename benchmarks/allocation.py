"""RailX bandwidth allocation: the Fig. 16 sweep (6 sequence lengths x 11 splits of 10 ports
between context and data parallelism, with and without DP overlap), and the static optimum of the
Listing 1 job by exhaustive search and by MILP on growing port counts.

    python3 benchmarks/allocation.py

Prints the table of optima and the wall time of the sweep (target <= 5 s).
"""

from __future__ import annotations

import time
from pathlib import Path

from railx.allocation.static import static_split
from railx.allocation.sweep import fig16_table
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import load_workload_system

LISTING1 = Path(__file__).resolve().parents[1] / "examples" / "workloads" / "listing1.toml"


def fig16() -> None:
    """The sweep and its optima."""
    start = time.perf_counter()
    rows = fig16_table()
    seconds = time.perf_counter() - start
    print("Fig. 16: iteration time (s) per C ports (DP gets 10 - C); * marks the optimum")
    print(f"{'seq':>7} {'DP overlap':>10} " + " ".join(f"{c:>7}" for c in range(11)) + "   best C")
    for r in rows:
        cells = " ".join(
            f"{t:>6.3f}{'*' if c == r.best_c_ports else ' '}" if t != float("inf") else f"{'inf':>7}"
            for c, t in enumerate(r.times_s)
        )
        print(f"{r.sequence:>7} {'yes' if r.overlap else 'no':>10} {cells}   {r.best_c_ports:>2}")
    print(f"sweep of {len(rows) // 2} sequences x 11 splits x 2 overlap settings: {seconds:.3f} s (target <= 5 s)")


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


if __name__ == "__main__":
    fig16()
    solvers()
