"""Benchmark: the 200,704-chip RailX7Mesh 2D-HyperX (R=128, m=7, n=9) end to end.

Synthesises the OCS tables, verifies them against the intended topology (from the JSON text, as
`railx ocs verify` would), realizes the chip graph from the circuits and computes every metric of
`railx plan`. Prints wall time per stage and peak memory; the target is <= 10 s and <= 4 GiB on
the 2-core reference machine. Not a test: run `python benchmarks/railx7mesh.py`.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import railx
from railx._core import verify_ocs

CONFIG = Path(__file__).resolve().parent.parent / "examples" / "railx7mesh-hyperx.toml"


def main() -> int:
    stages: list[tuple[str, float]] = []
    start = time.perf_counter()

    def lap(name: str) -> None:
        stages.append((name, time.perf_counter() - start - sum(t for _, t in stages)))

    config = railx.load_config(CONFIG)
    lap("load + validate config")
    network = railx.realize(config)
    lap("synthesize OCS + realize chip graph")
    ocs_text = network._core.ocs_json()
    lap("serialize railx.ocs/v1 JSON")
    report = json.loads(verify_ocs(ocs_text, config.to_core_json()))
    lap("parse + verify against intended topology")
    plan = network.plan()
    lap("metrics (diameters, routing hops, bisection)")
    total = time.perf_counter() - start
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is KiB on Linux

    print(
        f"RailX7Mesh 2D-HyperX: {plan['chips']:,} chips, {plan['nodes']:,} nodes, {plan['switches']:,} OCS, "
        f"{report['circuits']:,} circuits, {network.links()['src'].size:,} directed links"
    )
    for name, seconds in stages:
        print(f"  {name:<48} {seconds:7.2f} s")
    print(f"  {'total wall':<48} {total:7.2f} s   (target <= 10 s)")
    print(f"  {'peak memory':<48} {peak_gib:7.2f} GiB (target <= 4 GiB)")
    closed = plan["closed_form"]
    for key in (
        "chips",
        "switches",
        "diameter_inter_node",
        "diameter_hops",
        "bisection_bw_per_chip",
        "a2a_bound_per_chip",
    ):
        print(f"  {key:<24} realized {json.dumps(plan[key]):<22} closed form {json.dumps(closed[key])}")
    ok = total <= 10 and peak_gib <= 4 and plan["chips"] == 200_704 and plan["switches"] == 8_064
    print("PASS" if ok else "MISS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
