"""Benchmark: the flow-level simulator at hyper-scale (issue 8, docs/flow.md).

A RailX 2D torus with Fig. 15's parameters (m = 4, n = 1, external 100 GB/s and 300 ns per port,
internal 400 GB/s and 10 ns) at 4,096 chips (R = 32: 16 x 16 nodes) and 65,536 chips (R = 128:
64 x 64 nodes), minimal routing; two workloads run aggregated (exact, one flow per orbit of
messages under the node translations):
- the RailX hierarchical all-reduce of 1 GB per chip: the explicit schedule of
  `railx collective --algo hierarchical` in representative form (`railx.flowsim.collective`;
  66M messages at 65,536 chips);
- a uniform all-to-all of 1 MB per pair (`railx.flowsim.symmetric_traffic`; 4.3e9 messages).
Targets: <= 5 s at 4,096 chips and <= 60 s and <= 8 GiB at 65,536 chips, each.
Each case runs in its own process so that its peak memory (getrusage) is its own.
Not a test: run `python benchmarks/flow_sim.py`.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from railx.progress import tracked

CASES = {
    "4096-all-reduce": (32, "hierarchical", 1 << 30),
    "4096-all-to-all": (32, "all-to-all", 1 << 20),
    "65536-all-reduce": (128, "hierarchical", 1 << 30),
    "65536-all-to-all": (128, "all-to-all", 1 << 20),
}


def run_case(name: str) -> None:
    import railx
    from railx.collectives.params import fig15_torus_toml
    from railx.config import Config
    from railx.flowsim import collective, simulate_symmetric, symmetric_traffic

    radix, kind, nbytes = CASES[name]
    start = time.perf_counter()
    network = railx.realize(Config.from_toml(fig15_torus_toml(4, radix // 2)))
    realize_s = time.perf_counter() - start
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_SELF)
    if kind == "hierarchical":
        result = collective(network, "all-reduce", "hierarchical", nbytes)
        assert result.aggregated
    else:
        result = simulate_symmetric(network, symmetric_traffic(network, kind, nbytes), bins=100)
    wall_s = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    # CPU seconds over both threads: steadier than the wall time on a shared machine.
    cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peak_gib = after.ru_maxrss / 2**20
    print(
        f"{network.chips:>6} chips  {kind:<24} {nbytes:>11} B  wall {wall_s:6.2f} s  cpu {cpu_s:6.2f} s"
        f" (+ realize {realize_s:5.2f} s)  peak {peak_gib:5.2f} GiB  completion {result.completion_s:.6g} s"
        f"  flows {result.flows:>8}  messages {result.messages:>11}  events {result.events}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)  # one case, in its own process
    args = parser.parse_args()
    if args.case is not None:
        run_case(args.case)
        return 0
    for name in tracked(list(CASES), "flow-level cases", "cases"):
        subprocess.run([sys.executable, __file__, "--case", name], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
