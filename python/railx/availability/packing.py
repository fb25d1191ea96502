"""Packing several jobs onto the healthy nodes of a grid (MLaaS, paper A.5 Fig. 20), and the OCS
configuration that realises them.

Every job is a set of rows x a set of columns of healthy, unused nodes. With requested shapes,
jobs are placed largest first, each on rows whose blocked columns leave the most room; with
"use everything", the largest remaining rectangle becomes a job until no healthy node is left
(or the remainder is below a minimum job size).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, ValidationError, field_validator

from railx.availability.single_job import Solver, largest_allocation, rows_with_most_columns
from railx.config import (
    Config,
    ConfigError,
    JobConfig,
    JobName,
    NodesConfig,
    Strict,
    TopologyConfig,
    one_line_error,
    read_text,
)
from railx.files import parse_toml
from railx.messages import shown

__all__ = [
    "JobRequest",
    "Packing",
    "PlacedJob",
    "allocation_config",
    "load_job_requests",
    "pack_jobs",
    "parse_job_requests",
]


@dataclass(frozen=True)
class JobRequest:
    """A job to place: `shape` = (columns along X, rows along Y) and its logical topology."""

    name: str
    shape: tuple[int, int]
    topology: TopologyConfig


@dataclass(frozen=True)
class PlacedJob:
    name: str
    xs: tuple[int, ...]
    ys: tuple[int, ...]
    topology: TopologyConfig

    @property
    def nodes(self) -> int:
        return len(self.xs) * len(self.ys)


@dataclass(frozen=True)
class Packing:
    """Jobs placed on a grid, the requests that did not fit, and the healthy nodes left unused."""

    grid: tuple[int, int]
    failed: tuple[tuple[int, int], ...]
    jobs: tuple[PlacedJob, ...]
    unplaced: tuple[str, ...]
    unused_healthy: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "grid": list(self.grid),
            "failed": [list(v) for v in self.failed],
            "jobs": [
                {"name": j.name, "xs": list(j.xs), "ys": list(j.ys), "nodes": j.nodes, "topology": j.topology.to_core()}
                for j in self.jobs
            ],
            "unplaced": list(self.unplaced),
            "used_nodes": sum(j.nodes for j in self.jobs),
            "unused_healthy_nodes": len(self.unused_healthy),
            "unused_healthy": [list(v) for v in self.unused_healthy],
        }


def _place_shape(blocked: np.ndarray, shape: tuple[int, int]) -> tuple[list[int], list[int]] | None:
    """Rows and columns for a job of `shape` (columns, rows) avoiding blocked nodes, or None."""
    want_cols, want_rows = shape
    q, p = blocked.shape
    if want_rows > q or want_cols > p:
        return None
    rows, cols = rows_with_most_columns(blocked, want_rows)
    if len(cols) < want_cols:
        return None
    return rows, cols[:want_cols]


def pack_jobs(
    blocked: np.ndarray,
    requests: list[JobRequest] | None,
    *,
    topology: TopologyConfig | None = None,
    min_nodes: int = 1,
    max_jobs: int | None = None,
    solver: Solver = "auto",
) -> Packing:
    """Places `requests` (largest first) or, with None, fills the healthy nodes with the largest
    remaining rectangles (at most `max_jobs`; each job gets `topology`, default a torus)."""
    failed = blocked.copy()
    occupied = blocked.copy()
    q, p = blocked.shape
    jobs: list[PlacedJob] = []
    unplaced: list[str] = []
    if requests is None:
        default = topology or TopologyConfig(preset="torus")
        while not occupied.all() and (max_jobs is None or len(jobs) < max_jobs):
            found = largest_allocation(occupied, solver)
            if found.nodes < max(min_nodes, 1):
                break
            jobs.append(PlacedJob(f"job-{len(jobs)}", found.cols, found.rows, default))
            occupied[np.ix_(found.rows, found.cols)] = True
    else:
        for request in requests:
            if request.shape[0] > p or request.shape[1] > q:
                raise ConfigError(
                    f"jobs '{request.name}'.shape = {list(request.shape)}: larger than the {p} x {q} grid; "
                    f"use at most [{p}, {q}]"
                )
        for request in sorted(requests, key=lambda r: -r.shape[0] * r.shape[1]):
            placed = _place_shape(occupied, request.shape)
            if placed is None:
                unplaced.append(request.name)
                continue
            rows, cols = placed
            jobs.append(PlacedJob(request.name, tuple(cols), tuple(rows), request.topology))
            occupied[np.ix_(rows, cols)] = True
    unused = np.argwhere(~occupied)
    return Packing(
        grid=(p, q),
        failed=tuple((int(x), int(y)) for y, x in np.argwhere(failed)),
        jobs=tuple(jobs),
        unplaced=tuple(unplaced),
        unused_healthy=tuple((int(x), int(y)) for y, x in unused),
    )


class _RequestFile(Strict):
    """A jobs file: `[[jobs]]` tables, each a name, a shape [columns, rows] and a topology."""

    class Request(Strict):
        name: JobName
        shape: list[int] = Field(min_length=2, max_length=2, examples=[[4, 4]])
        topology: TopologyConfig = TopologyConfig(preset="torus")

        @field_validator("shape")
        @classmethod
        def _positive(cls, shape: list[int]) -> list[int]:
            if min(shape) < 1:
                raise ValueError("a shape is [columns, rows] of positive integers")
            return shape

    jobs: list[Request] = Field(min_length=1)


def load_job_requests(path: str | Path) -> list[JobRequest]:
    """Reads a jobs file (TOML): `[[jobs]]` tables with `name`, `shape = [columns, rows]` and an
    optional `topology` (default a torus)."""
    path = Path(path)
    return parse_job_requests(read_text(path, f"jobs file {path}"), str(path))


def parse_job_requests(text: str, source: str) -> list[JobRequest]:
    """A jobs file's TOML text (see :func:`load_job_requests`); errors name `source`."""
    data = parse_toml(text, f"jobs file {source}")
    try:
        parsed = _RequestFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {one_line_error(exc, _RequestFile)}") from None
    return [JobRequest(j.name, (j.shape[0], j.shape[1]), j.topology) for j in parsed.jobs]


def allocation_config(config: Config, packing: Packing) -> Config:
    """The system configuration with the packed jobs (explicit rows and columns) as its jobs."""
    jobs = [
        JobConfig(name=j.name, nodes=NodesConfig(xs=list(j.xs), ys=list(j.ys)), topology=j.topology)
        for j in packing.jobs
    ]
    if not jobs:
        raise ConfigError("jobs: nothing could be placed on the healthy nodes; use smaller shapes or fewer failures")
    try:
        return Config.from_dict(
            {
                "system": config.system.model_dump(exclude_none=True),
                "jobs": [j.model_dump(exclude_none=True) for j in jobs],
            }
        )
    except ConfigError as exc:
        names = ", ".join(f"jobs[{i}] = {shown(j.name)}" for i, j in enumerate(jobs))
        raise ConfigError(f"{exc} (placed {names})") from None
