"""Benchmark: routing and deadlock checks at scale (docs/routing.md).

- exhaustive channel-dependency check of the 1,296-chip RailX 2D-HyperX (m=4, n=2, 9 x 9 nodes);
  target <= 5 s;
- exhaustive check of a 10,000-chip configuration (25 x 25-node 2D torus of 4 x 4 meshes), with
  the minimal and the dateline functions; target <= 60 s each;
- route statistics on 100,000 sampled pairs of the 200,704-chip RailX7Mesh 2D-HyperX;
- exhaustive checks of peers: a 1,056-chip Dragonfly (33 groups of 8 switches, 4 chips each;
  minimal and Valiant) and a 1,024-chip HammingMesh (8 x 8 boards of 4 x 4, dimension order).
Not a test: run `python benchmarks/routing.py`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import railx
from railx.config import Config
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
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    print(f"{label:<58} {seconds:7.2f} s  {result}")
    return seconds


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    hyperx = railx.realize(EXAMPLES / "hyperx-9x9.toml")
    t1 = timed(
        "1,296-chip HyperX, minimal, exhaustive",
        lambda: {
            k: v for k, v in check_deadlock(hyperx).items() if k in ("acyclic", "vcs_used", "pairs", "dependencies")
        },
    )
    torus = railx.realize(Config.from_toml(TORUS_10K))
    t2 = timed(
        "10,000-chip torus 25x25, minimal, exhaustive",
        lambda: {
            k: v for k, v in check_deadlock(torus).items() if k in ("acyclic", "vcs_used", "pairs", "dependencies")
        },
    )
    t3 = timed(
        "10,000-chip torus 25x25, dateline, exhaustive",
        lambda: {
            k: v
            for k, v in check_deadlock(torus, "dateline").items()
            if k in ("acyclic", "vcs_used", "pairs", "dependencies")
        },
    )
    big = railx.realize(EXAMPLES / "railx7mesh-hyperx.toml")
    timed(
        "200,704-chip RailX7Mesh, 100,000 sampled routes",
        lambda: {
            k: v
            for k, v in route_stats(big, samples=100_000).items()
            if k in ("max_inter_node_hops", "mean_inter_node_hops", "max_hops", "max_vc")
        },
    )
    timed(
        "200,704-chip RailX7Mesh, structural deadlock check",
        lambda: {
            k: v
            for k, v in check_deadlock(big, samples=100_000).items()
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
            lambda s=system, r=routing: {k: v for k, v in check_deadlock(s, r).items() if k in DEADLOCK_KEYS},
        )
    ok = t1 <= 5 and t2 <= 60 and t3 <= 60
    print("PASS" if ok else "MISS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
