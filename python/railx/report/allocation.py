"""The allocation picture (paper 000, Fig. 20): a node grid with failed nodes, the largest single
job that avoids them, and the jobs that fill every healthy node instead (MLaaS), from railx's
own allocators (railx.availability: `largest_allocation`, `pack_jobs`)."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.patches as mpatches
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from railx.availability.failures import sample_failed
from railx.availability.packing import Packing, pack_jobs
from railx.availability.single_job import Allocation, largest_allocation
from railx.report.plots import Chart

__all__ = ["FailedGrid", "allocation_chart", "failed_grid"]

_JOB_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")


@dataclass(frozen=True)
class FailedGrid:
    """A grid with failed nodes (`blocked[y, x]`), its largest single job and a packing of jobs
    over all its healthy nodes."""

    blocked: np.ndarray
    single: Allocation
    packing: Packing

    @property
    def healthy(self) -> int:
        return int((~self.blocked).sum())


def failed_grid(grid: tuple[int, int] = (8, 8), failed: int = 4, seed: int = 0) -> FailedGrid:
    """`failed` nodes drawn uniformly (seeded) on a P x Q grid, the largest single job, and the
    largest-rectangle-first packing of every healthy node."""
    blocked = sample_failed(grid, np.random.default_rng(seed), count=failed)
    return FailedGrid(blocked, largest_allocation(blocked), pack_jobs(blocked, None))


def _grid(ax: Axes, blocked: np.ndarray, owner: dict[tuple[int, int], int], names: list[str], title: str) -> None:
    q, p = blocked.shape
    for y in range(q):
        for x in range(p):
            job = owner.get((x, y))
            colour = "white" if blocked[y, x] else ("0.85" if job is None else _JOB_COLOURS[job % len(_JOB_COLOURS)])
            ax.add_patch(mpatches.Rectangle((x, y), 1, 1, fc=colour, ec="0.4", lw=0.6))
            if blocked[y, x]:
                ax.plot([x + 0.2, x + 0.8], [y + 0.2, y + 0.8], color="red", lw=2)
                ax.plot([x + 0.2, x + 0.8], [y + 0.8, y + 0.2], color="red", lw=2)
    handles = [mpatches.Patch(color=_JOB_COLOURS[i % len(_JOB_COLOURS)], label=n) for i, n in enumerate(names)]
    handles.append(mpatches.Patch(fc="0.85", ec="0.4", label="healthy, idle"))
    handles.append(mpatches.Patch(fc="white", ec="red", label="failed"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small")
    ax.set_xlim(0, p)
    ax.set_ylim(0, q)
    ax.set_xticks(np.arange(p) + 0.5, [str(x) for x in range(p)], fontsize="small")
    ax.set_yticks(np.arange(q) + 0.5, [str(y) for y in range(q)], fontsize="small")
    ax.set_xlabel("node X")
    ax.set_ylabel("node Y")
    ax.set_aspect("equal")
    ax.set_title(title, fontsize="medium")


def allocation_chart(case: FailedGrid) -> Chart:
    """Two panels: the largest single job, and the jobs that use every healthy node."""
    figure = Figure(figsize=(12.0, 4.8), layout="constrained")
    left, right = figure.subplots(1, 2)
    single = {(x, y): 0 for x in case.single.cols for y in case.single.rows}
    _grid(left, case.blocked, single, [f"single job: {case.single.nodes} nodes"],
          f"(a) one job: {case.single.nodes} of {case.healthy} healthy nodes")  # fmt: skip
    owner = {(x, y): i for i, job in enumerate(case.packing.jobs) for x in job.xs for y in job.ys}
    used = sum(j.nodes for j in case.packing.jobs)
    _grid(right, case.blocked, owner, [f"{j.name}: {len(j.xs)} x {len(j.ys)}" for j in case.packing.jobs],
          f"(b) {len(case.packing.jobs)} jobs: {used} of {case.healthy} healthy nodes")  # fmt: skip
    p, q = case.packing.grid
    return Chart(
        "fig20-allocation",
        f"Fig. 20: jobs on a {p} x {q}-node RailX with {int(case.blocked.sum())} failed nodes",
        figure,
        caption="A job takes any set of rows and columns (the OCS join them into one logical grid), so its nodes "
        "need not be adjacent; the failed nodes are drawn at random (seeded).",
    )
