"""Fig. 17-style plots: (a) the largest single job against the number of failed nodes, with the
best and worst cases; (b) availability against failure rate for several system sizes; each as
its own file, or both side by side in one (`railx availability --plot FILE`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

from railx.atomic import checked_path, save_figure  # noqa: E402
from railx.availability.montecarlo import AvailabilityStats  # noqa: E402

__all__ = ["plot_fig17", "plot_size_vs_failures", "plot_availability_vs_rate"]


def _save(fig: Any, path: str | Path) -> Path:
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
    return Path(path)


def plot_size_vs_failures(points: list[AvailabilityStats], path: str | Path) -> Path:
    """Fig. 17(a) as its own file."""
    path = checked_path(path, "path")
    fig, ax = plt.subplots(figsize=(6, 4))
    draw_size_vs_failures(points, ax)
    return _save(fig, path)


def plot_availability_vs_rate(points: list[AvailabilityStats], path: str | Path) -> Path:
    """Fig. 17(b) as its own file."""
    path = checked_path(path, "path")
    fig, ax = plt.subplots(figsize=(6, 4))
    draw_availability_vs_rate(points, ax)
    return _save(fig, path)


def plot_fig17(by_count: list[AvailabilityStats], by_rate: list[AvailabilityStats], path: str | Path) -> Path:
    """Fig. 17(a) and (b) side by side in one file."""
    path = checked_path(path, "path")
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4))
    draw_size_vs_failures(by_count, a)
    draw_availability_vs_rate(by_rate, b)
    return _save(fig, path)


def draw_size_vs_failures(points: list[AvailabilityStats], ax: Any) -> None:
    """Fig. 17(a): mean, min and max largest job against failed nodes, with best and worst cases."""
    failed = [s.count if s.count is not None else s.failed_mean for s in points]
    ax.plot(failed, [s.max_single_job_nodes_mean for s in points], "o-", label="random (mean)")
    ax.fill_between(
        failed,
        [s.max_single_job_nodes_min for s in points],
        [s.max_single_job_nodes_max for s in points],
        alpha=0.2,
        label="random (min..max)",
    )
    ax.plot(failed, [s.best_case_nodes for s in points], "--", label="best case (one row)")
    worst = [(f, s.worst_case_nodes) for f, s in zip(failed, points) if s.worst_case_nodes is not None]
    ax.plot([f for f, _ in worst], [w for _, w in worst], ":", label="worst case (distinct rows, columns)")
    p, q = points[0].grid
    ax.set(xlabel="failed nodes", ylabel="largest single job (nodes)", title=f"{p} x {q} nodes")
    ax.legend()


def draw_availability_vs_rate(points: list[AvailabilityStats], ax: Any) -> None:
    """Fig. 17(b): mean availability against failure rate, one line per grid size."""
    for grid in sorted({s.grid for s in points}):
        line = sorted((s.rate, s.availability_mean) for s in points if s.grid == grid and s.rate is not None)
        ax.plot([100 * r for r, _ in line], [100 * a for _, a in line], "o-", label=f"{grid[0]} x {grid[1]} nodes")
    ax.set(xscale="log", xlabel="failure rate (%)", ylabel="availability (%)", title="largest single job")
    ax.axhline(90, color="grey", lw=0.5)
    ax.legend()
