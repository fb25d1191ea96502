"""The same questions on RailX and four peers of 4,096 chips, each with 8 ports of 50 GB/s per chip
(the 3D torus: 6, one per direction), through the one system handle: a 1 GiB all-reduce by
bidirectional ring and by hierarchical algorithm, and a 1 MiB-per-rank all-to-all by the direct
algorithm; analytic with the routed link model (each line's step measured on the routed network,
one message per orbit of the system's symmetry group), and at flow level, aggregated over the
largest subgroup of the system's symmetry group under which the schedule is invariant (RailX: node
translations; peers: the family's declared symmetries, docs/flow.md) where it then fits the flow
simulator. Each cell is what
`railx collective SYSTEM --op OP --algo ALGO --size SIZE --fidelity F [--link-model routed]` prints.

Not a test: `PYTHONPATH=python python3 benchmarks/system_comparison.py [--only NAME ...] [--algos ALGO ...] [--json OUT]`
(the bidir-ring at flow level on HammingMesh and Rail-only, 4.2M flows each, takes minutes).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from railx.sweep import Sweep, parse_spec
from railx.sweep.batch import base_table, runner
from railx.systems import System

GiB, MiB = 1 << 30, 1 << 20

SYSTEMS = [
    System(
        "railx-16x16",
        "RailX 2D torus, 16 x 16 nodes of 4 x 4 (n = 2)",
        railx={"system": {"m": 4, "n": 2, "R": 32, "port_bw_GBps": 50, "k": 2}, "topology": {"preset": "torus"}},
    ),
    System(
        "fat-tree-3t",
        "fat-tree, 3 tiers of 64-port switches, 8 planes",
        peer={"family": "fat-tree", "radix": 64, "chips": 4096, "planes": 8},
    ),
    System(
        "rail-only",
        "Rail-only, HB domains of 8 (9 ports' worth), 8 rails",
        peer={
            "family": "rail-only",
            "radix": 64,
            "hb_domain": 8,
            "hb_ports_per_chip": 9,
            "dims": [{"size": 512, "rails": 8}],
        },
    ),
    System(
        "hammingmesh",
        "HammingMesh Hx4Mesh, 16 x 16 boards, 2 planes",
        peer={"family": "hammingmesh", "a": 4, "boards": [16, 16], "planes": 2, "radix": 64},
    ),
    System(
        "tpuv4-16c",
        "3D torus 16^3 with OCS (TPUv4), 1 port per direction",
        peer={"family": "torus3d", "dims": [16, 16, 16], "ports_per_direction": 1, "ocs_radix": 128},
    ),
]
QUESTIONS = [("all-reduce", "bidir-ring", GiB), ("all-reduce", "hierarchical", GiB), ("all-to-all", "direct", MiB)]


# Analytic with the routed link model; flow level with the schedule's own (aggregated) messages.
FIDELITY_AXIS = {"zip": {"options.fidelity": ["analytic", "flow"], "options.link_model": ["routed", None]}}


def comparison_sweep(systems: list[System], questions: list[tuple[str, str, int]]) -> Sweep:
    """Every system, question and fidelity as one sweep of the collective analysis (each point
    `railx collective`'s record); a question that does not apply to a family is an error row."""
    data = {
        "sweep": {"name": "system-comparison", "analysis": "collective", "retries": 0},
        "axis": [
            {"list": [{"base": base_table(s)} for s in systems]},
            {"list": [{"options.op": op, "options.algo": algo, "options.size": size} for op, algo, size in questions]},
            FIDELITY_AXIS,
        ],
    }
    return parse_spec(data, Path.cwd(), "system-comparison")


def cell(point: Any) -> dict[str, Any]:
    """One stored point as the table's cell: time and bus bandwidth, or the one-line error."""
    if isinstance(point["error"], str):  # NULL reads back as NaN
        return {"error": point["error"], "took_s": point["wall_s"]}
    r = point["record"]
    out = {"time_s": r["time_s"], "busbw_Bps": r["busbw_Bps"], "took_s": point["wall_s"]}
    out.update({k: r[k] for k in ("flows", "orbit") if k in r})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows as JSON here")
    parser.add_argument("--only", nargs="*", help="run only these systems (by name)")
    parser.add_argument("--algos", nargs="*", help="ask only these questions (by algorithm)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    args = parser.parse_args()
    systems = [s for s in SYSTEMS if not args.only or s.name in args.only]
    questions = [q for q in QUESTIONS if not args.algos or q[1] in args.algos]
    with runner(args.scheduler, args.workers, args.store) as run_on:
        frame = run_on.frame(comparison_sweep(systems, questions))
    points = iter(frame.to_dict("records"))
    rows = []
    print("| system | chips | question | analytic (routed) ms | flow ms | took (s) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for system in systems:
        for op, algo, size in questions:
            row = {"system": system.name, "label": system.label, "chips": system.chips, "op": op, "algo": algo}
            row["size_bytes"] = size
            row["analytic"] = cell(next(points))
            row["flow"] = cell(next(points))
            rows.append(row)

            def show(c: dict[str, Any]) -> str:
                if "time_s" not in c:
                    return "n/a: " + c["error"].split(":")[1].strip()[:60]
                orbit = f" (x{c['orbit']:,})" if c.get("orbit", 1) > 1 else ""
                return f"{c['time_s'] * 1e3:,.3f}{orbit}"

            took = f"{row['analytic']['took_s']:.1f} / {row['flow']['took_s']:.1f}"
            question = f"{op} {algo} {size // MiB} MiB"
            print(
                f"| {system.label} | {system.chips:,} | {question} | {show(row['analytic'])} | {show(row['flow'])} | {took} |"
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
