"""LIBRA's optimisation (paper 004 §IV-E, IV-F) with an open conic solver, globally optimal.

Variables: per-NPU bandwidth bw_d (GB/s) of each dimension. The end-to-end time T(bw) of a weighted
set of workloads is convex (see railx.libra.loops); constraints are linear; cost c(bw) = a . bw is
linear with a > 0.

- PerfOpt: minimise T(bw) subject to the constraints: a convex program.
- PerfPerCostOpt: minimise T(bw) * c(bw). With the Charnes-Cooper change of variables
  t = s / c(bw), u = t * bw (s normalises the cost), c(bw) * T(bw) = s * T'(u, t) where every
  constant K of T becomes K / t and every collective max_d gb_d / bw_d becomes max_d gb_d / u_d
  (collective times are homogeneous of degree -1 in bw); linear constraints A bw <= h become
  A u <= h t, the cost bound becomes t >= s / max_cost, and a . u = s. The result is again a
  convex program, so its optimum is global (no bisection or non-convex QP needed).

Both objectives can have many optima (a dimension that is never the bottleneck can lose
bandwidth without slowing anything); a second convex solve picks the cheapest design whose
objective is within a relative 1e-6 of the optimum. Both are solved by cvxpy with CLARABEL (SCS
as a fallback). Before solving, the constraints are checked for feasibility with a linear
program, and a conflict is reported by name.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import cvxpy as cp
import numpy as np

from railx._core import InternalError
from railx.config import ConfigError
from railx.libra.constraints import Constraint, ConstraintSet
from railx.libra.cost import CostModel
from railx.libra.loops import NumericAlgebra, TimeExpr
from railx.libra.network import LibraNetwork

__all__ = ["OBJECTIVES", "Design", "LibraResult", "Objective", "evaluate_design", "optimize"]

Objective = Literal["perf", "perf-per-cost"]
OBJECTIVES: tuple[Objective, ...] = ("perf", "perf-per-cost")
TIE_RTOL = 1e-6


@dataclass(frozen=True)
class Design:
    """A bandwidth allocation and what it gives: weighted time, per-workload times, cost."""

    bw_per_dim_GBps: tuple[float, ...]
    time_s: float
    workload_times_s: dict[str, float]
    cost_usd: float


@dataclass(frozen=True)
class LibraResult:
    """The optimum beside the EqualBW baseline."""

    objective: Objective
    network: str
    optimum: Design
    baseline: Design
    speedup: float
    perf_per_cost_gain: float
    solver: str


class _CvxAlgebra:
    """Leaves as cvxpy expressions: constants times `const_scale`, collectives over `bw`, whose
    unit is `bw_unit_GBps` GB/s (variables of order one keep the conic solver accurate)."""

    def __init__(self, bw: cp.Variable, const_scale: cp.Expression | float, bw_unit_GBps: float) -> None:
        self.bw, self.scale, self.unit = bw, const_scale, bw_unit_GBps

    def const(self, seconds: float) -> cp.Expression | float:
        return seconds * self.scale

    def comm(self, gb: tuple[float, ...], kind: str) -> cp.Expression:
        """max_d gb_d / bw_d (0 when the collective moves nothing); the kind does not change it."""
        parts = [g / self.unit * cp.inv_pos(self.bw[d]) for d, g in enumerate(gb) if g > 0]
        if not parts:
            return cp.Constant(0.0)
        return parts[0] if len(parts) == 1 else cp.maximum(*parts)

    def maximum(self, values: list[cp.Expression | float]) -> cp.Expression:
        return cp.maximum(*values)


def evaluate_design(
    bw_GBps: np.ndarray,
    times: dict[str, TimeExpr],
    weights: dict[str, float],
    network: LibraNetwork,
    cost_model: CostModel,
) -> Design:
    """Times and cost of one bandwidth vector."""
    algebra = NumericAlgebra(np.asarray(bw_GBps, dtype=float))
    per = {name: float(expr.evaluate(algebra)) for name, expr in times.items()}
    return Design(
        tuple(float(b) for b in bw_GBps),
        sum(weights[n] * t for n, t in per.items()),
        per,
        cost_model.network_cost_usd(network, bw_GBps),
    )


def _rows(
    constraints: list[Constraint], x: cp.Variable, scale: cp.Expression | float, bw_unit_GBps: float
) -> list[cp.Constraint]:
    out = []
    for c in constraints:
        lhs, rhs = np.array(c.coeffs) @ x, c.rhs / bw_unit_GBps * scale
        out.append(lhs <= rhs if c.op == "<=" else lhs >= rhs if c.op == ">=" else lhs == rhs)
    return out


def _value(variable: cp.Variable) -> np.ndarray:
    """A variable's value in a solved problem (`_solve` raised unless the problem was solved)."""
    if variable.value is None:
        raise InternalError(f"libra: variable {variable.name()} has no value after an optimum was found")
    return variable.value


def _solve(problem: cp.Problem) -> str:
    """Solves with CLARABEL, falling back to SCS; raises unless an optimum was found."""
    for solver in ("CLARABEL", "SCS"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # inaccurate solutions are handled below
                problem.solve(solver=solver)
        except cp.error.SolverError:
            continue
        if problem.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            return solver
    raise ConfigError(
        f"libra: the solver found no optimum (status {problem.status}); check that the constraints bound the bandwidths"
    )


def optimize(
    network: LibraNetwork,
    cost_model: CostModel,
    times: dict[str, TimeExpr],
    weights: dict[str, float],
    constraints: ConstraintSet,
    objective: Objective,
) -> LibraResult:
    """The optimal per-dimension bandwidths for `objective`, and the EqualBW baseline."""
    unit = cost_model.unit_usd_per_GBps(network)
    constraints.check_feasible(unit)
    if objective == "perf" and not constraints.bounded():
        raise ConfigError(
            "constraints: PerfOpt needs bounded bandwidths; give --total-bw, total_bw_GBps, max_cost_usd or upper bounds on every bwN"
        )
    if objective == "perf-per-cost" and not constraints.away_from_zero():
        raise ConfigError(
            'constraints: PerfPerCostOpt needs the bandwidth kept away from zero; give --total-bw, total_bw_GBps or lower bounds like "bw0 >= 10"'
        )
    total = sum((times[n].scaled(weights[n]) for n in times), TimeExpr(0.0, ()))
    rows = constraints.all(unit)
    dims = len(network.dims)
    ref = constraints.reference_bw_GBps()
    # Objectives are divided by the time at `ref` GB/s in every dimension, so both the variables
    # and the objective are of order one and the solver's tolerances are relative ones.
    norm = float(total.evaluate(NumericAlgebra(np.full(dims, ref))))
    if objective == "perf":
        bw = cp.Variable(dims, nonneg=True)
        problem = cp.Problem(cp.Minimize(total.evaluate(_CvxAlgebra(bw, 1.0, ref)) / norm), _rows(rows, bw, 1.0, ref))
        cheapness = unit @ bw / unit.sum()  # the cost, up to a positive factor
    else:
        s = float(unit.sum())
        u, t = cp.Variable(dims, nonneg=True), cp.Variable(nonneg=True)
        cons = _rows(rows, u, t, ref) + [(unit / s) @ u == 1.0]
        problem = cp.Problem(cp.Minimize(total.evaluate(_CvxAlgebra(u, cp.inv_pos(t), ref)) / norm), cons)
        cheapness = -t  # cost = s * ref / t
    solver = _solve(problem)
    # Many bandwidth vectors can reach the optimum (a dimension that is never the bottleneck can
    # give bandwidth away, or two equally priced dimensions trade it); among them take the
    # cheapest, so that answers are unique.
    cheapest = cp.Problem(
        cp.Minimize(cheapness), [*problem.constraints, problem.objective.expr <= float(problem.value) * (1 + TIE_RTOL)]
    )
    _solve(cheapest)
    if objective == "perf":
        bw_opt = np.maximum(_value(bw), 0.0) * ref
    else:
        bw_opt = np.maximum(_value(u), 0.0) / float(_value(t)) * ref
    optimum = evaluate_design(bw_opt, times, weights, network, cost_model)
    budget = constraints.total_bw_GBps if constraints.total_bw_GBps is not None else float(bw_opt.sum())
    baseline = evaluate_design(np.full(dims, budget / dims), times, weights, network, cost_model)
    return LibraResult(
        objective=objective,
        network=network.notation,
        optimum=optimum,
        baseline=baseline,
        speedup=baseline.time_s / optimum.time_s,
        perf_per_cost_gain=(baseline.time_s * baseline.cost_usd) / (optimum.time_s * optimum.cost_usd),
        solver=solver,
    )
