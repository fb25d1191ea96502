"""Eq. 1 solved exactly over the integers, as a MILP that HiGHS solves (scipy.optimize.milp).

The objective is separable and convex in each lambda_a, and lambda_a is an integer in [0, w]
(a CU has w wavelengths, so no arc carries more). Writing lambda_a = sum_k y_ak with binary
y_a1..y_aw, the k-th unit costs (k - t_a)^2 - (k - 1 - t_a)^2 = 2k - 1 - 2 t_a, which grows with
k, so any optimum takes units in order and sum_k (2k - 1 - 2 t_a) y_ak + t_a^2 equals
(lambda_a - t_a)^2 exactly at every integer lambda_a. The quadratic integer program becomes a
linear one with the same optimum, with no MIQP solver needed.

(The constraints are a bipartite transportation system, totally unimodular, so this MILP's LP
relaxation is already integral: eq. 1 is a convex-cost flow problem, solvable in polynomial time.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from railx._core import InternalError
from railx.wavelengths.model import Instance

__all__ = ["EXACT_MAX_VARIABLES", "Exact", "solve_exact", "solve_units", "unit_costs"]

EXACT_MAX_VARIABLES = 200_000
"""Arcs x w up to which the CLI runs the exact solver by default."""


@dataclass(frozen=True)
class Exact:
    """The integer optimum of eq. 1 over the arcs and its objective."""

    lam: np.ndarray
    objective: float


def unit_costs(instance: Instance) -> np.ndarray:
    """E x w: the cost of arc a's k-th wavelength, (k - t_a)^2 - (k - 1 - t_a)^2 = 2k - 1 - 2 t_a."""
    k = np.arange(1, instance.w + 1)
    return 2 * k[None, :] - 1 - 2 * instance.t[:, None]


def solve_units(instance: Instance, costs: np.ndarray, full: bool) -> np.ndarray:
    """The integer lambda minimising the sum of its units' `costs` (E x w, increasing along each
    row) under the budgets: egress and ingress <= w, or = w when `full`."""
    E, w = costs.shape
    # y is arc-major (arc a's units are y[a*w : (a+1)*w]), so summing units is a Kronecker product.
    units = sparse.kron(sparse.identity(E, format="csr"), np.ones((1, w)), format="csr")
    budgets = sparse.vstack([instance.egress @ units, instance.ingress @ units], format="csr")
    result = milp(
        costs.ravel(),
        constraints=LinearConstraint(budgets, w if full else -np.inf, w),
        bounds=Bounds(0, 1),
        integrality=np.ones(E * w),
    )
    if not result.success or result.x is None:
        raise InternalError(f"wavelength MILP: HiGHS ended with {result.message!r} on a feasible problem")
    return np.rint(result.x.reshape(E, w).sum(axis=1)).astype(np.int64)


def solve_exact(instance: Instance, full: bool = False) -> Exact:
    """The optimum of eq. 1 with lambda integer and >= 0 (HiGHS on the unit encoding above); with
    `full`, among allocations where every CU sends and receives exactly w (the heuristic's
    outputs), to measure the heuristic against the best it could have found."""
    lam = solve_units(instance, unit_costs(instance), full=full)
    return Exact(lam=lam, objective=instance.objective(lam))
