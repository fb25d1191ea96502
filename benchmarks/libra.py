"""LIBRA on its shipped inputs: every workload on its 3D and 4D networks and cost models at
500 GB/s per NPU, PerfOpt and PerfPerCostOpt, beside EqualBW; then LIBRA's default configuration
(4D, GPT-3, `multiple_constraints`) and one group optimisation over all workloads.

    python3 benchmarks/libra.py [PATH_TO_LIBRA_INPUTS]

Prints the bandwidths (GB/s per NPU), times (s), costs ($), speedup and perf-per-cost gain, and
the wall time of each optimisation (the target is <= 1 s per instance).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from railx.libra.constraints import ConstraintSet, parse_constraint
from railx.libra.cost import load_cost_model
from railx.libra.loops import build_time
from railx.libra.network import load_network
from railx.libra.optimize import LibraResult, optimize
from railx.libra.workload import load_communicator, load_workload

HERE = Path(__file__).resolve().parent
DEFAULT_INPUTS = HERE.parents[1] / "shared" / "peers" / "libra-inputs"
COMMUNICATORS = {
    "3d": {"GPT_3": "GPT_3_3d", "MSFT_1T": "MSFT_1T_3d", "Turing_NLG": "Turing_NLG_3D", "ResNet_50": "ResNet_50_3d"},
    "4d": {"GPT_3": "GPT_3_4d", "MSFT_1T": "MSFT_1T_4d", "Turing_NLG": "Turing_NLG_4D", "ResNet_50": "ResNet_50_4d"},
}


def _communicator(inputs: Path, dims: str, workload: str) -> Path:
    if workload == "DLRM":
        return HERE / "libra_dlrm" / f"DLRM_{dims}.yml"
    return inputs / "communicator" / f"{COMMUNICATORS[dims][workload]}.yml"


def _row(label: str, r: LibraResult, seconds: float) -> str:
    bw = "/".join(f"{b:.1f}" for b in r.optimum.bw_per_dim_GBps)
    return (
        f"{label:<34} {bw:<28} {r.optimum.time_s:>10.5g} {r.optimum.cost_usd / 1e6:>8.3f} "
        f"{r.baseline.time_s:>10.5g} {r.baseline.cost_usd / 1e6:>8.3f} {r.speedup:>7.3f} {r.perf_per_cost_gain:>7.3f} {seconds:>6.3f}"
    )


def main(inputs: Path) -> None:
    """Runs and prints every instance."""
    print(
        f"{'instance':<34} {'bw per dim (GB/s)':<28} {'time s':>10} {'cost $M':>8} {'Equal s':>10} {'Equal $M':>8} "
        f"{'speedup':>7} {'ppc x':>7} {'wall s':>6}"
    )
    slowest = 0.0
    for dims in ("3d", "4d"):
        net = load_network(inputs / "network" / f"{dims}_network.yml")
        cost = load_cost_model(inputs / "cost_model" / f"{dims}_cost_model.yml")
        cons = ConstraintSet(len(net.dims), total_bw_GBps=500.0)
        group = {}
        for name in ("GPT_3", "MSFT_1T", "Turing_NLG", "ResNet_50", "DLRM"):
            times = {
                name: build_time(
                    load_workload(inputs / "workload" / f"{name}.txt"),
                    load_communicator(_communicator(inputs, dims, name), net),
                )
            }
            group.update(times)
            for objective in ("perf", "perf-per-cost"):
                start = time.perf_counter()
                result = optimize(net, cost, times, {name: 1.0}, cons, objective)  # type: ignore[arg-type]
                seconds = time.perf_counter() - start
                slowest = max(slowest, seconds)
                print(_row(f"{dims} {name} {objective}", result, seconds))
        start = time.perf_counter()
        result = optimize(net, cost, group, {n: 1.0 for n in group}, cons, "perf")
        print(_row(f"{dims} all five (sum of times) perf", result, time.perf_counter() - start))
    net = load_network(inputs / "network" / "4d_network.yml")
    texts = ["bw0 == 500", "bw0 >= bw1 >= bw2", "bw2 + bw3 == 200"]
    cons = ConstraintSet(4, tuple(c for t in texts for c in parse_constraint(t, 4)), total_bw_GBps=1000.0)
    times = {
        "GPT_3": build_time(
            load_workload(inputs / "workload" / "GPT_3.txt"),
            load_communicator(_communicator(inputs, "4d", "GPT_3"), net),
        )
    }
    for objective in ("perf", "perf-per-cost"):
        start = time.perf_counter()
        result = optimize(
            net, load_cost_model(inputs / "cost_model" / "4d_cost_model.yml"), times, {"GPT_3": 1.0}, cons, objective
        )  # type: ignore[arg-type]
        seconds = time.perf_counter() - start
        slowest = max(slowest, seconds)
        print(_row(f"4d GPT_3 multiple_constraints {objective}", result, seconds))
    print(f"slowest single instance: {slowest:.3f} s (target <= 1 s)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_INPUTS)
