"""Benchmark: building the bill of materials of every Table 6 row (no graph), and materialising
the largest peer graphs under the 50M-link guard. Prints wall time per row; the target for a
bill of materials is < 1 s. Not a test: run `python benchmarks/cost_bom.py`.

Not run on the sweep engine: it times two functions (`System.bom`, `System.network`) on one
process, and a sweep point's time is its whole analysis (the cost analysis prices the system and
its baseline as well; no analysis returns a graph, which would travel back to the client). The
cost over the same rows is the sweep examples/sweeps/table6.toml.
"""

from __future__ import annotations

import argparse
import time

from railx.cost import PRESETS
from railx.systems import TABLE6_ORDER


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    for name in TABLE6_ORDER:
        start = time.perf_counter()
        bom = PRESETS[name].bom()
        elapsed = time.perf_counter() - start
        print(f"bom   {name:<12} {bom['chips']:>8,} chips  {elapsed * 1e3:8.3f} ms")
    for name in ("ft2", "hx7mesh", "railonly", "tpuv4", "ft3-tap49", "hx7mesh-2t"):
        start = time.perf_counter()
        net = PRESETS[name].network()
        elapsed = time.perf_counter() - start
        print(f"graph {name:<12} {net['src'].size:>12,} directed links  {elapsed:6.2f} s")


if __name__ == "__main__":
    main()
