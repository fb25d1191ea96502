"""SiP-OCS steering (railx.multitenant.sip_ocs): the exact MILP against the Cayley heuristic on
small mesh jobs (the heuristic's gap), SiP-ML's direct-only objective beside them, and the
heuristic at the evaluation's job sizes on Q = 16 OCSs against the Moore bound (no steering
can beat it).

Prints the Markdown tables recorded in docs/multitenant.md and the time taken.

    PYTHONPATH=python python3 benchmarks/sip_ocs_ilp.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from railx.multitenant.sip_ocs import cayley_steering, exact_steering, moore_bound
from railx.progress import tracked

SMALL = [(4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (5, 3), (5, 4), (6, 1), (6, 2), (6, 3)]
EVALUATION_SIZES = [8, 16, 24, 32, 40, 48, 56, 64, 128, 256, 384, 448, 512]


def gap_table() -> None:
    print("\n### Exact MILP against the Cayley heuristic (mesh of k GPUs, q OCSs; lambda in circuits)\n")
    print(
        "| k | q | SiP-ML direct only | exact MILP (relayed) | MILP time (s) | Cayley heuristic | gap | Moore bound |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for k, q in tracked(SMALL, "exact MILPs", "meshes"):
        mesh = np.ones((k, k)) - np.eye(k)
        direct = exact_steering(mesh, q, relay=False).throughput
        t = time.perf_counter()
        exact = exact_steering(mesh, q).throughput
        took = time.perf_counter() - t
        heuristic = cayley_steering(k, q)
        print(
            f"| {k} | {q} | {direct:.4f} | {exact:.4f} | {took:.1f} | {heuristic.throughput:.4f} "
            f"{heuristic.method.removeprefix('Cayley heuristic ')} | {1 - heuristic.throughput / exact:.1%} | "
            f"{moore_bound(k, q):.4f} |",
            flush=True,
        )


def evaluation_table(q: int = 16) -> None:
    print(f"\n### The Cayley heuristic at the evaluation's job sizes, q = {q}\n")
    print("| GPUs | chosen | lambda | Moore bound | lambda / bound | time (s) |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    for k in tracked(EVALUATION_SIZES, "Cayley heuristic", "sizes"):
        t = time.perf_counter()
        steering = cayley_steering(k, q)
        took = time.perf_counter() - t
        bound = moore_bound(k, q)
        label = steering.method.removeprefix("Cayley heuristic ")
        if len(label) > 40:
            label = label[:37] + "...)"
        print(
            f"| {k} | {label} | {steering.throughput:.5f} | {bound:.5f} | {steering.throughput / bound:.2f} | {took:.1f} |",
            flush=True,
        )


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    start = time.perf_counter()
    gap_table()
    evaluation_table()
    print(f"\ntotal time: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
