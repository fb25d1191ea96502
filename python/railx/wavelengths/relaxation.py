"""Eq. 1's continuous relaxation (lambda real, >= 0), solved with cvxpy: a lower bound on every
integer allocation, and the starting point of the paper's heuristic."""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from railx._core import InternalError
from railx.wavelengths.model import Instance

__all__ = ["Relaxation", "relax"]

SOLVER_TOLERANCE = 1e-6
"""Below this a relaxed lambda is taken as 0 (Clarabel's default tolerances are 1e-8 relative)."""


@dataclass(frozen=True)
class Relaxation:
    """The relaxed optimum over the arcs and its objective (a lower bound on eq. 1)."""

    lam: np.ndarray
    objective: float


def relax(instance: Instance) -> Relaxation:
    """Solves min ||lambda - t||^2 s.t. egress, ingress <= w, lambda >= 0 (Clarabel, interior point)."""
    lam = cp.Variable(len(instance.t), nonneg=True)
    problem = cp.Problem(
        cp.Minimize(cp.sum_squares(lam - instance.t)),
        [instance.egress @ lam <= instance.w, instance.ingress @ lam <= instance.w],
    )
    problem.solve(solver=cp.CLARABEL)
    if problem.status != cp.OPTIMAL or lam.value is None:
        raise InternalError(
            f"eq. 1 relaxation: solver ended {problem.status} on a feasible problem (lambda = 0 is feasible)"
        )
    # Interior-point iterates sit a hair inside the bounds: values below the solver's tolerance
    # are zeros of the optimum, not wavelengths.
    value = np.asarray(lam.value)
    value = np.where(value < SOLVER_TOLERANCE, 0.0, value)
    return Relaxation(lam=value, objective=instance.objective(value))
