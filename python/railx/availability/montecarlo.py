"""Monte Carlo availability of the largest single job (paper §6.6, Fig. 17).

Availability is the largest job's node count over the grid's node count. Samples are seeded:
sample i of a point uses the generator `numpy.random.default_rng([seed, i])`, so a point's
result does not depend on which other points are run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from math import ceil

import numpy as np

from railx.availability.failures import sample_failed
from railx.availability.single_job import Solver, largest_allocation

__all__ = ["AvailabilityStats", "best_case_nodes", "worst_case_nodes", "availability", "sweep"]


@dataclass(frozen=True)
class AvailabilityStats:
    """Largest single job over `samples` random failure sets of one grid and rate (or count)."""

    grid: tuple[int, int]
    rate: float | None
    count: int | None
    samples: int
    seed: int
    failed_mean: float
    max_single_job_nodes_mean: float
    max_single_job_nodes_min: int
    max_single_job_nodes_max: int
    availability_mean: float
    availability_min: float
    availability_max: float
    #: Mean of the proven upper bounds: equals the mean above when every sample is optimal.
    availability_upper_mean: float
    optimal_samples: int
    solvers: dict[str, int]
    #: Best case (all failures in one row) and worst case (all in distinct rows and columns)
    #: for the mean number of failures, rounded up.
    best_case_nodes: int
    worst_case_nodes: int | None

    def to_dict(self) -> dict:
        return asdict(self)


def best_case_nodes(grid: tuple[int, int], failed: int) -> int:
    """All failures packed into as few rows (or columns) as possible."""
    p, q = grid
    return max((q - ceil(failed / p)) * p, (p - ceil(failed / q)) * q, 0)


def worst_case_nodes(grid: tuple[int, int], failed: int) -> int | None:
    """Failures in distinct rows and columns (paper: 2a failures leave (R/2 - a)^2): each costs
    a row or a column, split to keep the largest rectangle. `None` beyond min(P, Q) failures,
    where failures can no longer all sit in distinct rows and columns."""
    p, q = grid
    if failed > min(p, q):
        return None
    return max((q - rows) * (p - (failed - rows)) for rows in range(failed + 1))


def availability(
    grid: tuple[int, int],
    *,
    rate: float | None = None,
    count: int | None = None,
    samples: int = 100,
    seed: int = 0,
    solver: Solver = "auto",
    time_limit_s: float = 30.0,
    on_sample: Callable[[int], None] | None = None,
) -> AvailabilityStats:
    """Largest single job over `samples` seeded random failure sets at a rate or a count.
    `on_sample(done)` is called after each sample (a progress bar's hook)."""
    p, q = grid
    nodes, uppers, failed = [], [], []
    optimal = 0
    solvers: dict[str, int] = {}
    for i in range(samples):
        blocked = sample_failed(grid, np.random.default_rng([seed, i]), rate=rate, count=count)
        result = largest_allocation(blocked, solver, time_limit_s)
        nodes.append(result.nodes)
        uppers.append(result.upper_bound_nodes)
        failed.append(int(blocked.sum()))
        optimal += result.optimal
        solvers[result.solver] = solvers.get(result.solver, 0) + 1
        if on_sample is not None:
            on_sample(i + 1)
    total = p * q
    mean_failed = float(np.mean(failed)) if failed else 0.0
    return AvailabilityStats(
        grid=grid,
        rate=rate,
        count=count,
        samples=samples,
        seed=seed,
        failed_mean=mean_failed,
        max_single_job_nodes_mean=float(np.mean(nodes)),
        max_single_job_nodes_min=int(np.min(nodes)),
        max_single_job_nodes_max=int(np.max(nodes)),
        availability_mean=float(np.mean(nodes)) / total,
        availability_min=int(np.min(nodes)) / total,
        availability_max=int(np.max(nodes)) / total,
        availability_upper_mean=float(np.mean(uppers)) / total,
        optimal_samples=optimal,
        solvers=solvers,
        best_case_nodes=best_case_nodes(grid, ceil(mean_failed)),
        worst_case_nodes=worst_case_nodes(grid, ceil(mean_failed)),
    )


def sweep(
    grids: list[tuple[int, int]],
    *,
    rates: list[float] | None = None,
    counts: list[int] | None = None,
    samples: int = 100,
    seed: int = 0,
    time_limit_s: float = 30.0,
    on_sample: Callable[[int, int], None] | None = None,
) -> list[AvailabilityStats]:
    """`availability` for every grid and every rate (or count): the data of Fig. 17.
    `on_sample(done, total)` is called after each sample, counting over every point (a progress
    bar's hook)."""
    points: list[dict] = [{"rate": r} for r in rates or []] + [{"count": c} for c in counts or []]
    runs = [(grid, point) for grid in grids for point in points]
    total = len(runs) * samples

    def hook(first: int) -> Callable[[int], None] | None:
        return None if on_sample is None else lambda done: on_sample(first + done, total)

    return [
        availability(grid, samples=samples, seed=seed, time_limit_s=time_limit_s, on_sample=hook(i * samples), **point)
        for i, (grid, point) in enumerate(runs)
    ]
