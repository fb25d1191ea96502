"""Cross-fidelity table (issue 8): analytic vs flow-level completion time of every collective
algorithm that applies to a small RailX torus (m = 4, n = 1, 4 x 4 nodes = 256 chips, Fig. 15's
link parameters: 100 GB/s and 300 ns per external port, 400 GB/s and 10 ns per mesh link),
sizes 1 KiB to 1 GiB (binary: 2^10 to 2^30 bytes). Prints the Markdown table recorded in docs/collectives.md; "aggregated" gives
the orbit size (messages per simulated flow: 16 over every node translation, 4 over whole rows).

    PYTHONPATH=python python3 benchmarks/collective_fidelity.py
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from railx.collectives.commands import collective_report
from railx.collectives.params import fig15_torus_toml

CASES = [("all-reduce", a) for a in ("ring", "bidir-ring", "2d-ring", "hierarchical", "multi-rail")] + [
    ("all-to-all", a) for a in ("direct", "multi-rail", "two-step")
]
SIZES = [1 << 10, 1 << 15, 1 << 20, 1 << 25, 1 << 30]


def _fmt_size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}"
    return f"{size} B"


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    with tempfile.TemporaryDirectory() as tmp:
        system = str(Path(tmp) / "torus-m4-4x4.toml")
        Path(system).write_text(fig15_torus_toml(4, 4))
        print("| op | algorithm | size | analytic us | flow us | flow / analytic | aggregated (orbit) |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for op, algo in CASES:
            for size in SIZES:
                a = collective_report(system, op, algo, size)
                f = collective_report(system, op, algo, size, fidelity="flow")
                aggregated = f"yes ({f['orbit']})" if f["aggregated"] else "no"
                print(
                    f"| {op} | {algo} | {_fmt_size(size)} | {a['time_s'] * 1e6:,.2f} | {f['time_s'] * 1e6:,.2f} | "
                    f"{f['time_s'] / a['time_s']:.3f} | {aggregated} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
