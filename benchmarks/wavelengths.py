"""Flex-SiPAC wavelength allocation (paper 003, §3.C) on a sample of random job mixes: the paper's
heuristic against eq. 1's relaxation and exact integer optimum, the wavelength colouring, and the
reconfiguration from one mix to the next on the same network.

    python3 benchmarks/wavelengths.py [--mixes 8] [--seed 0]

Per network (r, L, w) and over its seeded mixes, prints the mean eq. 1 objective of each solution
(relaxation <= exact <= rounded heuristic; exact-full <= heuristic, the last two with every CU at
w), the heuristic's gap to exact-full, how often the round robin needed the completion step and
DSatur needed more than w wavelengths, the reconfiguration's changes beside the lower bound
sum |lambda_new - lambda_old|, and the wall time of each step.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from railx.progress import tracked
from railx.wavelengths import Instance, Job, SiPAC, assign_wavelengths, heuristic, reconfigure, relax, solve_exact
from railx.wavelengths.colouring import wavelength_conflicts
from railx.wavelengths.traffic import COLLECTIVES, traffic_matrix, wavelength_targets

T = TypeVar("T")
NETWORKS = [(4, 1, 6), (8, 1, 14), (4, 2, 8), (4, 2, 12), (8, 2, 16)]


def random_mix(topo: SiPAC, rng: np.random.Generator) -> list[Job]:
    """Jobs in address order, as the paper maps them: blocks of 2..r CUs on one level-0 WSS when
    L = 1, else of r or 2r CUs (aligned, so joined inside the job); a quarter of blocks idle."""
    jobs: list[Job] = []
    start = 0
    while start < topo.N:
        size = int(rng.integers(2, topo.r + 1)) if topo.L == 1 else topo.r * int(rng.integers(1, 3))
        stop = min(start + size, topo.N)
        if stop - start >= 2 and rng.random() >= 0.25:
            jobs.append(Job(f"j{len(jobs)}", tuple(range(start, stop)), str(rng.choice(COLLECTIVES))))
        start = stop
    return jobs


def _timed(step: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    """step(*args, **kwargs) and its wall time in seconds."""
    t0 = time.perf_counter()
    return step(*args, **kwargs), time.perf_counter() - t0


def run_network(r: int, L: int, w: int, mixes: int, seed: int) -> None:
    topo = SiPAC(r, L)
    rng = np.random.default_rng(seed)
    sums: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    gaps: list[float] = []
    previous = None
    for _ in range(mixes):
        jobs = random_mix(topo, rng)
        instance = Instance(topo, w, wavelength_targets(traffic_matrix(topo, jobs), w))
        relaxed, wall_s = _timed(relax, instance)
        wall["relaxation"] += wall_s
        exact, wall_s = _timed(solve_exact, instance)
        wall["exact"] += wall_s
        exact_full, wall_s = _timed(solve_exact, instance, full=True)
        wall["exact_full"] += wall_s
        found, wall_s = _timed(heuristic, instance, relaxed)
        wall["heuristic"] += wall_s
        sums["relaxation"] += relaxed.objective
        sums["exact"] += exact.objective
        sums["exact_full"] += exact_full.objective
        sums["rounded"] += found.rounded_objective
        sums["heuristic"] += found.objective
        sums["completed"] += found.taken_back > 0
        gaps.append(found.objective - exact_full.objective)
        colouring, wall_s = _timed(assign_wavelengths, topo, w, topo.arcs, found.lam)
        wall["colouring"] += wall_s
        assert not wavelength_conflicts(topo, w, colouring.lightpaths)
        sums["konig"] += colouring.method == "konig"
        sums["dsatur_colours"] += colouring.dsatur_colours or 0
        if previous is not None:
            change, wall_s = _timed(reconfigure, topo, w, previous, colouring.lightpaths)
            wall["reconfigure"] += wall_s
            sums["changes"] += change.dropped + change.added
            sums["least_changes"] += change.least_changes
            sums["recolour"] += change.method == "recolour"
            previous = change.lightpaths
        else:
            previous = colouring.lightpaths
    n = float(mixes)
    label = f"SiPAC({r}, {L}) N={topo.N} w={w}"
    print(
        f"{label:<24} {sums['relaxation'] / n:>8.2f} {sums['exact'] / n:>8.2f} {sums['rounded'] / n:>8.2f} "
        f"{sums['exact_full'] / n:>8.2f} {sums['heuristic'] / n:>8.2f} {np.mean(gaps):>7.2f} {max(gaps):>7.2f} "
        f"{np.mean(gaps) / (topo.N * w):>7.3f} {int(sums['completed']):>4}/{mixes} "
        f"{sums['dsatur_colours'] / n:>6.1f} {int(sums['konig']):>4}/{mixes} "
        f"{sums['changes'] / (n - 1):>7.1f} {sums['least_changes'] / (n - 1):>7.1f} {int(sums['recolour']):>3}/{mixes - 1}"
    )
    print(
        f"{'':<24} wall s per mix: relax {wall['relaxation'] / n:.3f}, heuristic {wall['heuristic'] / n:.3f}, "
        f"exact {wall['exact'] / n:.3f}, exact-full {wall['exact_full'] / n:.3f}, "
        f"colouring {wall['colouring'] / n:.3f}, reconfigure {wall['reconfigure'] / (n - 1):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mixes", type=int, default=8, help="random job mixes per network (default 8, at least 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the job mixes (default 0)")
    args = parser.parse_args()
    if args.mixes < 2:
        # The reconfiguration columns compare each mix with the one before it.
        parser.error(f"--mixes must be at least 2 (the changes between consecutive mixes), not {args.mixes}")
    print("mean eq. 1 objective per mix; gap = heuristic - exact-full (mean, max, mean per wavelength)")
    print(
        f"{'network':<24} {'relax':>8} {'exact':>8} {'rounded':>8} {'ex-full':>8} {'heur':>8} {'gap':>7} {'max':>7} "
        f"{'gap/wl':>7} {'compl':>6} {'DSat':>6} {'konig':>6} {'changes':>7} {'least':>7} {'recol':>5}"
    )
    t0 = time.perf_counter()
    for r, L, w in tracked(NETWORKS, "networks", "networks"):
        run_network(r, L, w, args.mixes, args.seed)
    print(f"total wall time {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
