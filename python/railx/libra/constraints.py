"""Design constraints on the per-dimension bandwidths (paper 004 §IV-F), declared in a small TOML
file. Every constraint is linear in the bandwidths bw0, bw1, ... (GB/s per NPU):

    total_bw_GBps = 1000              # sum of all dimensions (the CLI's --total-bw sets the same)
    max_cost_usd = 2.0e7              # network cost bound (cost is linear in bandwidth)
    constraints = [                   # linear (in)equalities; chains allowed
        "bw0 == 500",
        "bw0 >= bw1 >= bw2",
        "bw2 + bw3 == 200",
        "25 <= bw3 <= 150",
        "2*bw1 - 0.5*bw2 <= 300",
    ]

Infeasible sets are diagnosed with linear programs: a deletion filter keeps removing constraints
while the rest stays infeasible, leaving a minimal conflicting subset to name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from scipy.optimize import linprog

from railx.config import ConfigError, read_text
from railx.files import parse_toml
from railx.messages import shown

__all__ = ["Constraint", "ConstraintSet", "load_constraints", "parse_constraint", "parse_constraints"]

Op = Literal["<=", ">=", "=="]
_TERM = re.compile(r"\s*([+-]?)\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*\*?\s*)?(bw(\d+))?\s*")
_SPLIT = re.compile(r"(<=|>=|==)")
_OPS: dict[str, Op] = {"<=": "<=", ">=": ">=", "==": "=="}  # what _SPLIT captures, typed


@dataclass(frozen=True)
class Constraint:
    """coeffs . bw (op) rhs, with the text it came from."""

    coeffs: tuple[float, ...]
    op: Op
    rhs: float
    label: str

    def holds(self, bw: np.ndarray, rtol: float = 1e-6) -> bool:
        """Whether bw satisfies it, to a relative tolerance."""
        lhs = float(np.dot(self.coeffs, bw))
        slack = rtol * max(1.0, abs(self.rhs), float(np.abs(np.asarray(self.coeffs) * bw).sum()))
        return {"<=": lhs <= self.rhs + slack, ">=": lhs >= self.rhs - slack, "==": abs(lhs - self.rhs) <= slack}[
            self.op
        ]


def _linear(text: str, dims: int, label: str) -> tuple[np.ndarray, float]:
    """`2*bw1 - bw0 + 30` -> (coefficients, constant)."""
    coeffs, constant, pos = np.zeros(dims), 0.0, 0
    text = text.strip()
    if not text:
        raise ConfigError(f'constraint {shown(label)}: a side is empty; e.g. "bw0 >= bw1"')
    while pos < len(text):
        match = _TERM.match(text, pos)
        if match is None or match.end() == pos or (match.group(2) is None and match.group(3) is None):
            raise ConfigError(
                f'constraint {shown(label)}: cannot read {shown(text[pos:])}; write sums of numbers and c*bwN, e.g. "bw2 + bw3 == 200"'
            )
        if pos > 0 and not match.group(1):
            raise ConfigError(f'constraint {shown(label)}: terms must be joined by + or -; e.g. "bw0 + bw1 <= 400"')
        sign = -1.0 if match.group(1) == "-" else 1.0
        number = float(match.group(2)) if match.group(2) is not None else 1.0
        if match.group(3) is None:
            constant += sign * number
        else:
            dim = int(match.group(4))
            if dim >= dims:
                raise ConfigError(
                    f"constraint {shown(label)}: bw{dim} does not exist in a {dims}D network; use bw0..bw{dims - 1}"
                )
            coeffs[dim] += sign * number
        pos = match.end()
    return coeffs, constant


def parse_constraint(text: str, dims: int) -> list[Constraint]:
    """One declaration (possibly a chain like `25 <= bw3 <= 150`) as linear constraints."""
    parts = _SPLIT.split(text)
    if len(parts) < 3:
        raise ConfigError(f'constraint {shown(text)}: needs <=, >= or ==; e.g. "bw0 >= bw1"')
    sides = [_linear(p, dims, text) for p in parts[0::2]]
    out = []
    for (left, lc), op, (right, rc) in zip(sides, parts[1::2], sides[1:]):
        out.append(Constraint(tuple(float(x) for x in left - right), _OPS[op], float(rc - lc), text))
    return out


@dataclass(frozen=True)
class ConstraintSet:
    """Linear constraints on bandwidth, plus an optional cost bound (cost = unit_usd_per_GBps . bw)."""

    dims: int
    linear: tuple[Constraint, ...] = ()
    total_bw_GBps: float | None = None
    max_cost_usd: float | None = None

    def with_total(self, total_bw_GBps: float | None) -> ConstraintSet:
        """The same set with the total bandwidth fixed (None keeps the file's)."""
        if total_bw_GBps is None:
            return self
        if total_bw_GBps <= 0:
            raise ConfigError(f"--total-bw = {total_bw_GBps}: must be > 0 GB/s; e.g. --total-bw 500")
        return ConstraintSet(self.dims, self.linear, total_bw_GBps, self.max_cost_usd)

    def all(self, unit_usd_per_GBps: np.ndarray) -> list[Constraint]:
        """Every constraint as a linear row (bw >= 0 is implicit everywhere, not a row)."""
        rows: list[Constraint] = []
        if self.total_bw_GBps is not None:
            rows.append(
                Constraint(
                    (1.0,) * self.dims, "==", self.total_bw_GBps, f"total bandwidth == {self.total_bw_GBps:g} GB/s"
                )
            )
        if self.max_cost_usd is not None:
            rows.append(
                Constraint(
                    tuple(unit_usd_per_GBps), "<=", self.max_cost_usd, f"network cost <= ${self.max_cost_usd:,.0f}"
                )
            )
        return rows + list(self.linear)

    def check_feasible(self, unit_usd_per_GBps: np.ndarray) -> None:
        """Raises ConfigError naming a minimal set of conflicting constraints if there is no
        bandwidth vector satisfying all of them."""
        rows = self.all(unit_usd_per_GBps)
        if _feasible(rows, self.dims):
            return
        conflict = list(rows)
        for row in rows:
            trial = [r for r in conflict if r is not row]
            if not _feasible(trial, self.dims):
                conflict = trial
        names = "; ".join(dict.fromkeys(shown(r.label) for r in conflict))
        raise ConfigError(f"constraints: infeasible: no bandwidths satisfy together: {names}; relax one of them")

    def bounded(self) -> bool:
        """Whether the bandwidths are bounded (a total or a cost bound, or bounds on every dim):
        without that, PerfOpt has no optimum."""
        return (
            self.total_bw_GBps is not None
            or self.max_cost_usd is not None
            or all(_bounded_above(list(self.linear), self.dims, d) for d in range(self.dims))
        )

    def away_from_zero(self) -> bool:
        """Whether the constraints keep the total bandwidth above zero: without that,
        PerfPerCostOpt drifts to vanishing bandwidth (time -> infinity, cost -> 0)."""
        rows = list(self.linear)
        if self.total_bw_GBps is not None:
            rows.append(Constraint((1.0,) * self.dims, "==", self.total_bw_GBps, "total"))
        res = _total_bandwidth_lp(rows, self.dims, 1.0)
        return res.status == 0 and res.fun > 1e-9

    def reference_bw_GBps(self) -> float:
        """A typical per-dimension bandwidth of the feasible set (its largest, else smallest, total
        over the dimensions), used to scale the solver's variables to order one."""
        if self.total_bw_GBps is not None:
            return self.total_bw_GBps / self.dims
        for sense in (-1.0, 1.0):
            res = _total_bandwidth_lp(list(self.linear), self.dims, sense)
            if res.status == 0 and abs(res.fun) > 1e-9:
                return abs(res.fun) / self.dims
        return 1.0


def _matrices(rows: list[Constraint], dims: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ub = [
        (np.array(r.coeffs) * (1 if r.op == "<=" else -1), r.rhs * (1 if r.op == "<=" else -1))
        for r in rows
        if r.op != "=="
    ]
    eq = [(np.array(r.coeffs), r.rhs) for r in rows if r.op == "=="]
    A_ub = np.array([a for a, _ in ub]).reshape(-1, dims)
    A_eq = np.array([a for a, _ in eq]).reshape(-1, dims)
    return A_ub, np.array([b for _, b in ub]), A_eq, np.array([b for _, b in eq])


def _total_bandwidth_lp(rows: list[Constraint], dims: int, sense: float) -> Any:
    """HiGHS's solution of min `sense` x (sum of the bandwidths) over `rows`, bandwidths >= 0."""
    A_ub, b_ub, A_eq, b_eq = _matrices(rows, dims)
    return linprog(
        sense * np.ones(dims),
        A_ub=A_ub if len(b_ub) else None,
        b_ub=b_ub if len(b_ub) else None,
        A_eq=A_eq if len(b_eq) else None,
        b_eq=b_eq if len(b_eq) else None,
        bounds=[(0, None)] * dims,
        method="highs",
    )


def _feasible(rows: list[Constraint], dims: int) -> bool:
    A_ub, b_ub, A_eq, b_eq = _matrices(rows, dims)
    res = linprog(
        np.zeros(dims),
        A_ub=A_ub if len(b_ub) else None,
        b_ub=b_ub if len(b_ub) else None,
        A_eq=A_eq if len(b_eq) else None,
        b_eq=b_eq if len(b_eq) else None,
        bounds=[(0, None)] * dims,
        method="highs",
    )
    return res.status != 2


def _bounded_above(rows: list[Constraint], dims: int, d: int) -> bool:
    A_ub, b_ub, A_eq, b_eq = _matrices(rows, dims)
    res = linprog(
        -np.eye(dims)[d],
        A_ub=A_ub if len(b_ub) else None,
        b_ub=b_ub if len(b_ub) else None,
        A_eq=A_eq if len(b_eq) else None,
        b_eq=b_eq if len(b_eq) else None,
        bounds=[(0, None)] * dims,
        method="highs",
    )
    return res.status == 0


def load_constraints(path: str | Path | None, dims: int) -> ConstraintSet:
    """Reads a constraints file (None: no constraints beyond bw >= 0)."""
    if path is None:
        return ConstraintSet(dims)
    path = Path(path)
    return parse_constraints(read_text(path, f"--constraints {path}"), str(path), dims)


def parse_constraints(text: str, source: str, dims: int) -> ConstraintSet:
    """A constraints TOML text (total_bw_GBps, max_cost_usd, constraints); errors name `source`."""
    data = parse_toml(text, f"--constraints {source}")
    unknown = set(data) - {"total_bw_GBps", "max_cost_usd", "constraints"}
    if unknown:
        raise ConfigError(
            f"{source}: unknown key {shown(sorted(unknown)[0])}; valid keys are total_bw_GBps, max_cost_usd, constraints"
        )
    for key in ("total_bw_GBps", "max_cost_usd"):
        value = data.get(key)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0):
            raise ConfigError(f"{source}: {key} = {shown(value)}: must be a positive number; e.g. {key} = 500")
    texts = data.get("constraints", [])
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ConfigError(f'{source}: constraints must be a list of strings, e.g. constraints = ["bw0 >= bw1"]')
    linear = tuple(c for t in texts for c in parse_constraint(t, dims))
    total, cost = data.get("total_bw_GBps"), data.get("max_cost_usd")
    return ConstraintSet(
        dims, linear, float(total) if total is not None else None, float(cost) if cost is not None else None
    )
