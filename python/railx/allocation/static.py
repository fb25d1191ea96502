"""Static bandwidth allocation on RailX (paper §5.1, eq. 11): split each physical axis's n ports
per chip edge among the parallelism dimensions mapped to it so that the iteration time (eq. 10)
is smallest. Integer port counts; every dimension with more than one rank gets at least one port.

Two exact methods: exhaustive enumeration (every composition of n on every axis, evaluated in one
vectorised pass) while the number of allocations is small, and otherwise a mixed-integer linear
program solved by HiGHS: each dimension's port count is one-hot encoded, which makes every
communication term (a function of that dimension's bandwidth only) linear, and each overlap
class's max(window, hidden traffic) becomes an epigraph variable. Both return the global optimum.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

from railx.config import ConfigError
from railx.workload.iteration import IterationModel
from railx.workload.system import AxisMapping, OverlapClass
from railx.workload.traffic import DIMS, Dim

__all__ = [
    "SPLIT_METHODS",
    "SplitMethod",
    "StaticSplit",
    "axis_dims",
    "bandwidths_for_ports",
    "static_split",
    "time_for_ports",
]

EXHAUSTIVE_LIMIT = 200_000

SplitMethod = Literal["auto", "exhaustive", "milp"]
SPLIT_METHODS: tuple[SplitMethod, ...] = ("auto", "exhaustive", "milp")


@dataclass(frozen=True)
class StaticSplit:
    """The best split: ports per dimension, the iteration time, and how it was found."""

    ports: dict[Dim, int]
    time_s: float
    method: Literal["exhaustive", "milp"]
    candidates: int


def axis_dims(it: IterationModel) -> dict[str, list[Dim]]:
    """Per axis, the axis-mapped dimensions that communicate (more than one rank), in [T,C,E,De,P] order."""
    out: dict[str, list[Dim]] = {"x": [], "y": []}
    for dim, where in it.system.mapping.items():
        if isinstance(where, AxisMapping) and it.par.size(dim) > 1:
            out[where.axis].append(dim)
    for dims in out.values():
        dims.sort(key=DIMS.index)
    return {a: d for a, d in out.items() if d}


def bandwidths_for_ports(it: IterationModel, ports: Mapping[Dim, np.ndarray | int]) -> dict[Dim, np.ndarray]:
    """Per-rank bandwidth per direction of each dimension for these port counts: ports * port_bw / m."""
    return {d: np.asarray(n, dtype=float) * it.system.link(d, ports=1).bw_bytes_per_s for d, n in ports.items()}


def time_for_ports(it: IterationModel, ports: Mapping[Dim, np.ndarray | int]) -> np.ndarray | float:
    """Iteration time (eq. 10) for port counts (arrays allowed); infinite where a dimension that
    communicates has no port."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.asarray(it.evaluate(bandwidths_for_ports(it, ports)).total_s, dtype=float)
    starved = np.zeros(total.shape, dtype=bool)
    for dim, n in ports.items():
        if it.par.size(dim) > 1:
            starved |= np.asarray(n) == 0
    total = np.where(starved, np.inf, total)
    return total if total.ndim else float(total)


def _compositions(n: int, k: int) -> np.ndarray:
    """All ways to write n as k positive integers, lexicographic, shape (count, k)."""
    rows = [np.diff((0, *cut, n)) for cut in itertools.combinations(range(1, n), k - 1)]
    return np.array(rows, dtype=np.int64).reshape(-1, k)


def static_split(it: IterationModel, method: SplitMethod = "auto") -> StaticSplit:
    """The integer port split of every axis that minimises the iteration time (eq. 11 generalised)."""
    groups = axis_dims(it)
    n = it.system.axis_ports()
    for axis, dims in groups.items():
        if len(dims) > n[axis]:
            raise ConfigError(
                f"mapping: axis {axis} carries {len(dims)} communicating dimensions ({', '.join(dims)}) but has n = {n[axis]} ports; map one elsewhere"
            )
    count = math.prod(math.comb(n[a] - 1, len(d) - 1) for a, d in groups.items())
    if not groups:
        return StaticSplit({}, float(it.evaluate().total_s), "exhaustive", 1)
    if method == "exhaustive" or (method == "auto" and count <= EXHAUSTIVE_LIMIT):
        return _exhaustive(it, groups, n, count)
    return _milp(it, groups, n, count)


def _exhaustive(it: IterationModel, groups: dict[str, list[Dim]], n: dict[str, int], count: int) -> StaticSplit:
    per_axis = [_compositions(n[a], len(d)) for a, d in groups.items()]
    index = np.array(list(itertools.product(*(range(len(c)) for c in per_axis))), dtype=np.int64)
    ports: dict[Dim, np.ndarray] = {}
    for col, (table, dims) in enumerate(zip(per_axis, groups.values())):
        for j, dim in enumerate(dims):
            ports[dim] = table[index[:, col], j]
    times = np.asarray(time_for_ports(it, ports))
    best = int(np.argmin(times))
    return StaticSplit({d: int(p[best]) for d, p in ports.items()}, float(times[best]), "exhaustive", count)


def _milp(it: IterationModel, groups: dict[str, list[Dim]], n: dict[str, int], count: int) -> StaticSplit:
    if any(len(it.sub_windows_s(c)) > 1 for c in it.overlap):  # the linearisation has one window per class
        raise ConfigError(
            '[training] dp_overlap = "layer" with interleave > 1 hides each chunk under its own window, '
            'which the MILP split cannot linearise; use method = "exhaustive", dp_overlap = "stage" or interleave = 1'
        )
    dims = [(a, d) for a, ds in groups.items() for d in ds]
    values = {d: np.arange(1, n[a] - len(groups[a]) + 2) for a, d in dims}
    offset, pos = {}, 0
    for _, d in dims:
        offset[d], pos = pos, pos + len(values[d])
    classes = list(it.overlap)
    nvar = pos + len(classes)
    cost = np.zeros(nvar)
    hidden = np.zeros((len(classes), nvar))
    unit_bw = {d: it.system.link(d, ports=1).bw_bytes_per_s for _, d in dims}
    for term in it.terms:
        if term.dim not in offset:
            continue
        t = np.asarray(term.time_s(values[term.dim] * unit_bw[term.dim]), dtype=float)
        sl = slice(offset[term.dim], offset[term.dim] + len(values[term.dim]))
        if term.overlap is None:
            cost[sl] += t
        else:
            hidden[classes.index(term.overlap), sl] += t
    fixed_hidden = _fixed_hidden(it, set(offset))  # dimensions not being split keep their mapped bandwidth
    cost[pos:] = 1.0
    rows = lil_matrix((len(dims) + len(groups) + len(classes), nvar))
    lo, hi = [], []
    for r, (_, d) in enumerate(dims):  # one value per dimension
        rows[r, offset[d] : offset[d] + len(values[d])] = 1.0
        lo.append(1.0)
        hi.append(1.0)
    for r, (a, ds) in enumerate(groups.items(), start=len(dims)):  # the axis's ports all used
        for d in ds:
            rows[r, offset[d] : offset[d] + len(values[d])] = values[d]
        lo.append(n[a])
        hi.append(n[a])
    for r, c in enumerate(classes, start=len(dims) + len(groups)):  # t_c >= hidden_c
        rows[r, :pos] = hidden[r - len(dims) - len(groups), :pos]
        rows[r, pos + classes.index(c)] = -1.0
        lo.append(-np.inf)
        hi.append(-fixed_hidden[c])
    windows = it.windows_s()
    lb = np.concatenate([np.zeros(pos), [windows[c] for c in classes]])
    ub = np.concatenate([np.ones(pos), np.full(len(classes), np.inf)])
    integrality = np.concatenate([np.ones(pos), np.zeros(len(classes))])
    res = milp(
        cost,
        constraints=LinearConstraint(rows.tocsr(), lo, hi),
        bounds=Bounds(lb, ub),
        integrality=integrality,
        options={"mip_rel_gap": 1e-9},
    )
    if res.x is None:
        raise ConfigError(f"allocation: the port split has no solution ({res.message})")
    ports = {d: int(values[d][int(np.argmax(res.x[offset[d] : offset[d] + len(values[d])]))]) for _, d in dims}
    return StaticSplit(ports, float(time_for_ports(it, ports)), "milp", count)


def _fixed_hidden(it: IterationModel, split_dims: set[Dim]) -> dict[OverlapClass, float]:
    """Per overlap class, the hidden traffic of the terms whose dimension is not being split."""
    hidden = {c: 0.0 for c in it.overlap}
    for term in it.terms:
        if term.dim not in split_dims and term.overlap is not None:
            hidden[term.overlap] += float(term.time_s(it.links[term.dim].bw_bytes_per_s))
    return hidden
