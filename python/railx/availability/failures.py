"""Failed nodes of a RailX grid: reading, validating and sampling them.

A grid has P node columns (X) and Q node rows (Y). Node `(x, y)` sits in column x and row y; a
failed node cuts its row out of every X-OCS ring and its column out of every Y-OCS ring of a job
that spans both (RailX paper A.5). Internally a grid state is a boolean matrix `blocked[y, x]`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from railx.config import ConfigError, read_text
from railx.files import parse_json

__all__ = ["blocked_matrix", "load_failed", "parse_failed", "sample_failed"]


def blocked_matrix(failed: list, grid: tuple[int, int], source: str = "failed") -> np.ndarray:
    """`blocked[y, x]` for failed nodes `(x, y)` on a P x Q grid; refuses nodes outside or repeated."""
    p, q = grid
    blocked = np.zeros((q, p), dtype=bool)
    for index, node in enumerate(failed):
        if not (isinstance(node, (list, tuple)) and len(node) == 2 and all(type(v) is int for v in node)):
            shown = json.dumps(list(node) if isinstance(node, (list, tuple)) else node)
            raise ConfigError(f"{source}[{index}] = {shown}: a failed node is a pair of integers [x, y]; e.g. [3, 5]")
        x, y = node
        if not (0 <= x < p and 0 <= y < q):
            raise ConfigError(
                f"{source}[{index}] = [{x}, {y}]: node is outside the {p} x {q} grid; use 0 <= x < {p} and 0 <= y < {q}"
            )
        if blocked[y, x]:
            raise ConfigError(f"{source}[{index}] = [{x}, {y}]: listed twice; list each failed node once")
        blocked[y, x] = True
    return blocked


def load_failed(path: str | Path, grid: tuple[int, int]) -> np.ndarray:
    """Reads a failed-nodes file (JSON: a list of `[x, y]`) into a blocked matrix for `grid`."""
    path = Path(path)
    return parse_failed(read_text(path, f"failed-nodes file {path}"), str(path), grid)


def parse_failed(text: str, source: str, grid: tuple[int, int]) -> np.ndarray:
    """A failed-nodes file's JSON text (see :func:`load_failed`); errors name `source`."""
    data = parse_json(text, source, "[[3, 5], [0, 7]]")
    if not isinstance(data, list):
        raise ConfigError(f"{source}: a failed-nodes file is a JSON list of [x, y] pairs; e.g. [[3, 5], [0, 7]]")
    return blocked_matrix(data, grid, source=source)


def sample_failed(
    grid: tuple[int, int], rng: np.random.Generator, *, rate: float | None = None, count: int | None = None
) -> np.ndarray:
    """Random failed nodes: each node independently with probability `rate`, or exactly `count`
    distinct nodes chosen uniformly."""
    p, q = grid
    if (rate is None) == (count is None):
        raise ConfigError("failures: give exactly one of a rate or a count; e.g. rate = 0.001")
    if rate is not None:
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"rate = {rate}: a failure rate is a probability in [0, 1]; e.g. 0.001 for 0.1%")
        return rng.random((q, p)) < rate
    assert count is not None
    if not 0 <= count <= p * q:
        raise ConfigError(f"count = {count}: must be between 0 and the {p * q} nodes of the grid")
    blocked = np.zeros(p * q, dtype=bool)
    blocked[rng.choice(p * q, size=count, replace=False)] = True
    return blocked.reshape(q, p)
