"""Benchmark: the 200,704-chip RailX7Mesh 2D-HyperX (R=128, m=7, n=9) end to end.

Synthesises the OCS tables, verifies them against the intended topology (from the JSON text, as
`railx ocs verify` would), realizes the chip graph from the circuits and computes every metric of
`railx plan`. Prints wall time per stage and peak memory; the target is <= 10 s and <= 4 GiB on
the 2-core reference machine. Not a test: run `python benchmarks/railx7mesh.py`.
`end_to_end` is the pipeline every whole-system benchmark of this kind runs.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import railx
from railx._core import verify_ocs
from railx.config import Config

CONFIG = Path(__file__).resolve().parent.parent / "examples" / "railx7mesh-hyperx.toml"
CLOSED_FORM_KEYS = (
    "chips",
    "switches",
    "diameter_inter_node",
    "diameter_hops",
    "bisection_bw_per_chip",
    "a2a_bound_per_chip",
)


@dataclass
class Run:
    """One end-to-end run: the plan, the verification report, the network, the wall time of
    each stage, the total and the process's peak memory."""

    plan: dict[str, Any]
    report: dict[str, Any]
    network: railx.Network
    stages: list[tuple[str, float]]
    total_s: float
    peak_gib: float

    def print(self, title: str, targets: str = "") -> None:
        """The stages' times, then every closed-form key realized beside its closed form."""
        print(
            f"{title}: {self.plan['chips']:,} chips, {self.plan['nodes']:,} nodes, {self.plan['switches']:,} OCS, "
            f"{self.report['circuits']:,} circuits, {self.network.links()['src'].size:,} directed links"
        )
        for name, seconds in self.stages:
            print(f"  {name:<48} {seconds:7.2f} s")
        print(f"  {'total wall':<48} {self.total_s:7.2f} s {targets}")
        print(f"  {'peak memory':<48} {self.peak_gib:7.2f} GiB")
        closed = self.plan["closed_form"]
        for key in CLOSED_FORM_KEYS:
            print(f"  {key:<24} realized {json.dumps(self.plan[key]):<22} closed form {json.dumps(closed[key])}")


def end_to_end(load: Any) -> Run:
    """Loads a configuration (`load()` returns the Config), realizes it, serialises and verifies
    its OCS tables from the JSON text, and computes its plan, timing each stage."""
    stages: list[tuple[str, float]] = []
    start = time.perf_counter()

    def lap(name: str) -> None:
        stages.append((name, time.perf_counter() - start - sum(t for _, t in stages)))

    config: Config = load()
    lap("load + validate config")
    network = railx.realize(config)
    lap("synthesize OCS + realize chip graph")
    ocs_text = network.core.ocs_json()
    lap("serialize railx.ocs/v1 JSON")
    report = json.loads(verify_ocs(ocs_text, config.to_core_json()))
    lap("parse + verify against intended topology")
    plan = network.plan()
    lap("metrics (diameters, routing hops, bisection)")
    total = time.perf_counter() - start
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is KiB on Linux
    return Run(plan, report, network, stages, total, peak_gib)


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    run = end_to_end(lambda: railx.load_config(CONFIG))
    run.print("RailX7Mesh 2D-HyperX", "(targets: <= 10 s, <= 4 GiB)")
    plan = run.plan
    ok = run.total_s <= 10 and run.peak_gib <= 4 and plan["chips"] == 200_704 and plan["switches"] == 8_064
    print("PASS" if ok else "MISS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
