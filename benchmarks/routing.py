"""Benchmark: routing and deadlock checks at scale (docs/routing.md).

- exhaustive channel-dependency check of the 1,296-chip RailX 2D-HyperX (m=4, n=2, 9 x 9 nodes);
  target <= 5 s;
- exhaustive check of a 10,000-chip configuration (25 x 25-node 2D torus of 4 x 4 meshes), with
  the minimal and the dateline functions, each in its own process so that its peak memory
  (getrusage of the child) is its own; prints wall and CPU time (the CPU time is the steadier
  figure on a shared machine); target <= 30 s each;
- route statistics on 100,000 sampled pairs of the 200,704-chip RailX7Mesh 2D-HyperX;
- exhaustive checks of peers: a 1,056-chip Dragonfly (33 groups of 8 switches, 4 chips each;
  minimal and Valiant) and a 1,024-chip HammingMesh (8 x 8 boards of 4 x 4, dimension order).
Not a test: run `python benchmarks/routing.py`.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import railx
from railx.config import Config
from railx.progress import live_progress
from railx.routing import check_deadlock, route_stats
from railx.systems import System

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DRAGONFLY_1K = System(
    "dragonfly-1k",
    "Dragonfly 33 x 8 x 4",
    peer={"family": "dragonfly", "groups": 33, "routers": 8, "terminals": 4, "global_ports": 4, "radix": 16},
)
HAMMINGMESH_1K = System(
    "hx4mesh-1k", "Hx4Mesh 8 x 8 boards", peer={"family": "hammingmesh", "a": 4, "boards": [8, 8], "radix": 16}
)
DEADLOCK_KEYS = ("acyclic", "vcs_used", "pairs", "dependencies")
TORUS_10K = """
[system]
m = 4
n = 2
R = 64
grid = [25, 25]
[topology]
preset = "torus"
"""


def timed(label: str, fn):
    """Runs `fn(progress)` under a live bar (a terminal only; the core hears `progress`), prints
    its result and wall time; returns the seconds."""
    start = time.perf_counter()
    with live_progress(label, quiet=False) as progress:
        result = fn(progress)
    seconds = time.perf_counter() - start
    print(f"{label:<58} {seconds:7.2f} s  {result}")
    return seconds


def torus_case(routing: str) -> float:
    """The exhaustive check of the 10,000-chip torus in a child process; its wall time (the
    child's output is read back, so the bar shows the elapsed time only)."""
    with live_progress(f"10,000-chip torus, {routing}", quiet=False):
        out = subprocess.run(
            [sys.executable, __file__, "--torus", routing], check=True, capture_output=True, text=True
        ).stdout
    print(out, end="")
    return float(out.split("wall")[1].split()[0])


def run_torus(routing: str) -> None:
    """Realizes the 10,000-chip torus and checks `routing` exhaustively; prints wall and CPU
    seconds of the check and the process's peak memory."""
    torus = railx.realize(Config.from_toml(TORUS_10K))
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    report = check_deadlock(torus, routing)
    wall_s = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    label = f"10,000-chip torus 25x25, {routing}, exhaustive"
    shown = {k: report[k] for k in DEADLOCK_KEYS}
    print(f"{label:<58} wall {wall_s:7.2f} s  cpu {cpu_s:7.2f} s  peak {after.ru_maxrss / 2**10:6.0f} MiB  {shown}")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--torus":
        run_torus(sys.argv[2])
        return 0
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    hyperx = railx.realize(EXAMPLES / "hyperx-9x9.toml")
    t1 = timed(
        "1,296-chip HyperX, minimal, exhaustive",
        lambda progress: {
            k: v
            for k, v in check_deadlock(hyperx, progress=progress).items()
            if k in ("acyclic", "vcs_used", "pairs", "dependencies")
        },
    )
    t2 = torus_case("minimal")
    t3 = torus_case("dateline")
    big = railx.realize(EXAMPLES / "railx7mesh-hyperx.toml")
    timed(
        "200,704-chip RailX7Mesh, 100,000 sampled routes",
        lambda progress: {
            k: v
            for k, v in route_stats(big, samples=100_000, progress=progress).items()
            if k in ("max_inter_node_hops", "mean_inter_node_hops", "max_hops", "max_vc")
        },
    )
    timed(
        "200,704-chip RailX7Mesh, structural deadlock check",
        lambda progress: {
            k: v
            for k, v in check_deadlock(big, samples=100_000, progress=progress).items()
            if k in ("acyclic", "method", "vcs_used", "pairs")
        },
    )
    for label, system, routing in [
        ("1,056-chip Dragonfly, minimal, exhaustive", DRAGONFLY_1K, "minimal"),
        ("1,056-chip Dragonfly, valiant, exhaustive", DRAGONFLY_1K, "valiant"),
        ("1,024-chip HammingMesh, dimension-order, exhaustive", HAMMINGMESH_1K, None),
    ]:
        timed(
            label,
            lambda progress, s=system, r=routing: {
                k: v for k, v in check_deadlock(s, r, progress=progress).items() if k in DEADLOCK_KEYS
            },
        )
    ok = t1 <= 5 and t2 <= 30 and t3 <= 30
    print("PASS" if ok else "MISS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
