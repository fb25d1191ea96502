"""Benchmark: RailX4Mesh as the RailX paper's 64 x 64 2D-HyperX (R=128, m=4, n=9: r = 36 rails per
axis), built from single-link all-to-all dimensions (paper A.1: K_64 as 31 undirected Walecki
rings plus one perfect-matching rail, 32 of the 36 rails per axis, one full-duplex link per node
pair). A two-link all-to-all would need 63 rails per axis.

Synthesises the OCS tables, verifies them against the intended topology (from the JSON text, as
`railx ocs verify` would), realizes the chip graph from the circuits and computes every metric of
`railx plan`, printing each beside its closed form and the wall time per stage. Checks that the
realized diameter, bisection and all-to-all bound equal the closed forms (exact here: 64 is even).
Not a test: run `python benchmarks/railx4mesh_hyperx.py`.
"""

from __future__ import annotations

import sys

from railx.config import Config
from railx.systems import PRESETS
from railx7mesh import end_to_end


def main() -> int:
    run = end_to_end(lambda: Config.from_dict(PRESETS["railx4mesh"].railx or {}))
    run.print("RailX4Mesh single-link 2D-HyperX")
    plan, closed = run.plan, run.plan["closed_form"]
    print(f"  unused rails {plan['regions'][0]['unused_rails']}")
    # One link per pair: 64 * C(64, 2) circuits per axis; bisection (64 fibers x 32 x 32 pairs x 2
    # directed links) / 65,536 chips = 2 ports per chip, a2a bound 4 (paper eq. 2: T = 2 Bc / N).
    exact = ("chips", "switches", "diameter_inter_node", "bisection_bw_per_chip", "a2a_bound_per_chip")
    ok = (
        plan["chips"] == 65_536
        and run.report["circuits"] == 2 * 64 * 64 * 63 // 2
        and all(plan[key] == closed[key] for key in exact)
        and plan["a2a_bound_per_chip"] == 4.0
        and plan["diameter_hops"]["Hi"] <= closed["diameter_hops"]["Hi"]
    )
    print("PASS" if ok else "MISS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
