"""LIBRA on its shipped inputs: every workload on its 3D and 4D networks and cost models at
500 GB/s per NPU, PerfOpt and PerfPerCostOpt, beside EqualBW; then LIBRA's default configuration
(4D, GPT-3, `multiple_constraints`) and one group optimisation over all workloads.

    python3 benchmarks/libra.py [PATH_TO_LIBRA_INPUTS] [--workers N] [--scheduler ADDRESS] [--store FILE]

Every instance is a point of one sweep of the libra analysis (`railx libra`'s record), run by
railx's sweep engine; the input files are read once when the sweep is built and travel to the
workers with the points. Prints the bandwidths (GB/s per NPU), times (s), costs ($), speedup and
perf-per-cost gain, and the wall time of each instance on its worker (reading its files' text and
optimising; the target is <= 1 s per instance).
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from railx.sweep import parse_spec
from railx.sweep.batch import runner

HERE = Path(__file__).resolve().parent
DEFAULT_INPUTS = HERE.parent / "examples" / "libra-inputs"
COMMUNICATORS = {
    "3d": {"GPT_3": "GPT_3_3d", "MSFT_1T": "MSFT_1T_3d", "Turing_NLG": "Turing_NLG_3D", "ResNet_50": "ResNet_50_3d"},
    "4d": {"GPT_3": "GPT_3_4d", "MSFT_1T": "MSFT_1T_4d", "Turing_NLG": "Turing_NLG_4D", "ResNet_50": "ResNet_50_4d"},
}
WORKLOADS = ("GPT_3", "MSFT_1T", "Turing_NLG", "ResNet_50", "DLRM")


def _communicator(inputs: Path, dims: str, workload: str) -> str:
    if workload == "DLRM":
        return str(HERE / "libra_dlrm" / f"DLRM_{dims}.yml")
    return str(inputs / "communicator" / f"{COMMUNICATORS[dims][workload]}.yml")


def instances(inputs: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every instance: its label and the libra analysis's options (what `railx libra` takes)."""
    out = []
    for dims in ("3d", "4d"):
        files = {
            "options.network": str(inputs / "network" / f"{dims}_network.yml"),
            "options.cost": str(inputs / "cost_model" / f"{dims}_cost_model.yml"),
            "options.total_bw": 500.0,
            "options.constraints": None,
        }
        for name in WORKLOADS:
            for objective in ("perf", "perf-per-cost"):
                out.append((f"{dims} {name} {objective}", files | _workloads(inputs, dims, [name], objective)))
        out.append((f"{dims} all five (sum of times) perf", files | _workloads(inputs, dims, list(WORKLOADS), "perf")))
    four_d = {
        "options.network": str(inputs / "network" / "4d_network.yml"),
        "options.cost": str(inputs / "cost_model" / "4d_cost_model.yml"),
        "options.total_bw": None,  # the constraints file's 1,000 GB/s
        "options.constraints": str(HERE / "libra_constraints.toml"),
    }
    for objective in ("perf", "perf-per-cost"):
        out.append(
            (f"4d GPT_3 multiple_constraints {objective}", four_d | _workloads(inputs, "4d", ["GPT_3"], objective))
        )
    return out


def _workloads(inputs: Path, dims: str, names: list[str], objective: str) -> dict[str, Any]:
    return {
        "options.workload": [str(inputs / "workload" / f"{n}.txt") for n in names],
        "options.communicator": [_communicator(inputs, dims, n) for n in names],
        "options.objective": objective,
    }


def _row(label: str, r: dict[str, Any], seconds: float) -> str:
    bw = "/".join(f"{b:.1f}" for b in r["bw_per_dim"])
    base = r["baseline"]
    return (
        f"{label:<34} {bw:<28} {r['time_s']:>10.5g} {r['cost_usd'] / 1e6:>8.3f} "
        f"{base['time_s']:>10.5g} {base['cost_usd'] / 1e6:>8.3f} {r['speedup']:>7.3f} {r['perf_per_cost_gain']:>7.3f} {seconds:>6.3f}"
    )


def main() -> None:
    """Runs every instance as one sweep of the libra analysis and prints them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="?", type=Path, default=DEFAULT_INPUTS, help="LIBRA's inputs directory")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    args = parser.parse_args()
    labelled = instances(args.inputs)
    data = {
        "sweep": {"name": "libra-benchmark", "analysis": "libra", "retries": 0},
        "axis": [{"list": [options for _label, options in labelled]}],
    }
    sweep = parse_spec(data, HERE, "libra-benchmark")  # the files are read here, once
    with runner(args.scheduler, args.workers, args.store) as run_on:
        # Each worker imports the solver (cvxpy, seconds) before the clock of its first instance.
        run_on.client.run(importlib.import_module, "railx.libra.optimize")
        frame = run_on.frame(sweep)
    print(
        f"{'instance':<34} {'bw per dim (GB/s)':<28} {'time s':>10} {'cost $M':>8} {'Equal s':>10} {'Equal $M':>8} "
        f"{'speedup':>7} {'ppc x':>7} {'wall s':>6}"
    )
    for (label, _options), point in zip(labelled, frame.to_dict("records")):
        if isinstance(point["error"], str):
            raise SystemExit(f"{label}: {point['error']}")
        print(_row(label, point["record"], point["wall_s"]))
    print(f"slowest single instance: {frame['wall_s'].max():.3f} s (target <= 1 s)")


if __name__ == "__main__":
    main()
