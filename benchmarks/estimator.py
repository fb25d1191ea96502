"""The resource estimator against measured memory (issue 25): for ten sizes of each builder, the
estimate `System` checks against the budget (`railx._core.build_estimate`) beside the peak memory
a fresh process adds while building the system (getrusage's ru_maxrss after the build, less before).

    PYTHONPATH=python python3 benchmarks/estimator.py [--builders railx-torus,fat-tree] [--sizes 10]

The target is within 2x either way (ratio = estimate / measured in 0.5..2); below a few MiB the
measurement is dominated by the allocator's and Python's noise, so small builds are shown but not
judged."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from railx._core import build_estimate
from railx.progress import tracked

MiB = 1 << 20
JUDGED_FROM_BYTES = 16 * MiB  # smaller builds are within the allocator's noise
PLANT = {"port_bw_Bps": 5e10, "intra_bw_Bps": 1e11, "alpha_out_s": 3e-7, "alpha_in_s": 1e-8}


def railx(m: int, n: int, grid: int, topology: dict) -> dict:
    radix = max(2 * grid, 2 * (m * n + 1))
    return {"system": {"m": m, "n": n, "R": radix, "grid": [grid, grid], **PLANT}, "topology": topology}


def a2a_row(size: int) -> dict:
    """One row of `size` nodes, all-to-all over size - 1 rails (m = 1)."""
    x = [{"size": size, "kind": "all-to-all", "rails": size - 1}]
    system = {"m": 1, "n": size - 1, "R": 2 * size, "grid": [size, 1], **PLANT}
    return {"system": system, "topology": {"x": x, "y": []}}


def peer(**spec: object) -> dict:
    return {"peer": spec}


# Ten sizes per builder, from a few MiB to a few hundred.
BUILDERS: dict[str, Callable[[int], dict]] = {
    "railx-torus": lambda i: railx(4, 2, 64 + 48 * i, {"preset": "torus"}),
    "railx-mesh": lambda i: railx(128 + 48 * i, 2, 3, {"preset": "torus"}),
    "railx-hyperx": lambda i: railx(4 + i, 8, 8 * (4 + i) + 1, {"preset": "hyperx"}),
    "railx-a2a-row": lambda i: a2a_row(401 + 200 * i),
    "fat-tree": lambda i: peer(family="fat-tree", radix=128, tiers=3, chips=50_000 * (i + 1)),
    "torus3d": lambda i: peer(
        family="torus3d", dims=[32, 32, 32 * (i + 1)], cube=4, board=[2, 2], ports_per_direction=1
    ),
    "hyperx": lambda i: peer(family="hyperx", dims=[16 + 8 * i, 16 + 8 * i], terminals=16, radix=256),
    "dragonfly": lambda i: peer(
        family="dragonfly", groups=33 + 32 * i, routers=32, terminals=16, global_ports=i + 1, radix=128
    ),
    "hammingmesh": lambda i: peer(family="hammingmesh", a=4, boards=[16 + 8 * i, 16 + 8 * i], radix=64),
    "sipac": lambda i: peer(family="sipac", radix=24 + 8 * i, levels=3, wavelengths=6, wavelength_rate_Bps=12.5e9),
}

CHILD = """
import resource, sys
from railx._core import System
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
system = System(sys.argv[1])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024, system.chips)
"""


def measure(spec: dict) -> tuple[int, int]:
    """Peak bytes a fresh process adds while building `spec`, and its chips."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "python"), RAILX_MEMORY_BUDGET="inf")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(spec)], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builders", default=",".join(BUILDERS), help="comma-separated, from: " + ", ".join(BUILDERS))
    parser.add_argument("--sizes", type=int, default=10, help="sizes per builder (default 10)")
    args = parser.parse_args()
    print(f"{'builder':<14} {'chips':>10} {'estimate MiB':>13} {'measured MiB':>13} {'ratio':>6}")
    summary: dict[str, list[float]] = {}
    cases = [(name, i) for name in args.builders.split(",") for i in range(args.sizes)]
    for name, i in tracked(cases, "builders measured", "sizes"):
        spec = BUILDERS[name](i)
        estimate_bytes, _work = build_estimate(json.dumps(spec))
        measured_bytes, chips = measure(spec)
        ratio = estimate_bytes / max(measured_bytes, 1)
        judged = measured_bytes >= JUDGED_FROM_BYTES
        if judged:
            summary.setdefault(name, []).append(ratio)
        mark = "" if judged else "  (small: not judged)"
        print(
            f"{name:<14} {chips:>10,} {estimate_bytes / MiB:>13.1f} {measured_bytes / MiB:>13.1f} {ratio:>6.2f}{mark}"
        )
    print("\nestimate / measured per builder (judged sizes): min, max, within 2x")
    for name, ratios in summary.items():
        within = all(0.5 <= r <= 2.0 for r in ratios)
        print(f"{name:<14} {min(ratios):>6.2f} {max(ratios):>6.2f} {'yes' if within else 'NO'}")


if __name__ == "__main__":
    main()
