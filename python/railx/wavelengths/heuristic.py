"""The paper's heuristic for eq. 1 (paper 003, §3.C): round the relaxed optimum, then hand out the
remaining wavelengths one at a time, round-robin over the CUs that still have some, each to the
destination it is furthest below its target, until every CU transmits all w.

Two steps the paper leaves open are fixed here:
- "proper rounding": nearest-integer rounding can push a CU over its budget (three arcs at 1.5
  under w = 4 round to 6), so a CU over budget gives back the arcs rounded up the most first.
- the round robin can get stuck: a CU with wavelengths left whose every neighbour already
  receives w (a 3-CU WSS, w = 2, two CUs exchanging 2 each way: the third CU can reach no one).
  A full allocation always exists (w wavelengths from each CU to the next on its level-0 WSS),
  so the heuristic then completes it, taking back as few of the round robin's wavelengths as
  filling needs and otherwise following eq. 1 (the unit encoding of exact.py, with equalities).

Wavelength multiplexing (each colour once per transmitter and per receiver, hence once per fibre
and per WSS output bus) needs nothing more than the budgets: by Konig's edge-colouring theorem a
bipartite multigraph of maximum degree w has a proper w-edge-colouring (colouring.py finds one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from railx.wavelengths.exact import solve_units, unit_costs
from railx.wavelengths.model import Instance
from railx.wavelengths.relaxation import Relaxation, relax

__all__ = ["Heuristic", "heuristic", "round_within_budgets"]


@dataclass(frozen=True)
class Heuristic:
    """The heuristic's allocation over the arcs, its eq. 1 objective, and what each step did."""

    lam: np.ndarray
    objective: float
    rounded_objective: float
    """Eq. 1's objective after rounding, before the fill."""
    filled: int
    """Wavelengths the round robin added."""
    taken_back: int
    """Wavelengths the completion took back from the round robin (0 when the round robin filled every CU)."""


def round_within_budgets(instance: Instance, relaxed: np.ndarray) -> np.ndarray:
    """Nearest-integer rounding, then each CU over its egress (then ingress) budget gives back the
    arcs rounded up the most."""
    lam = np.rint(relaxed).astype(np.int64)
    for ends in (instance.arcs[:, 0], instance.arcs[:, 1]):
        for cu in np.flatnonzero(np.bincount(ends, weights=lam, minlength=instance.topology.N) > instance.w):
            mine = np.flatnonzero(ends == cu)
            excess = int(lam[mine].sum()) - instance.w
            for a in mine[np.argsort(-(lam[mine] - relaxed[mine]), kind="stable")]:
                take = min(excess, int(lam[a]))
                lam[a] -= take
                excess -= take
                if excess == 0:
                    break
    return lam


def _round_robin(instance: Instance, lam: np.ndarray) -> int:
    """Adds wavelengths in place, one per CU per turn, to the arc furthest below its target whose
    destination still has receive wavelengths; returns how many it added."""
    N, w = instance.topology.N, instance.w
    src, dst = instance.arcs[:, 0], instance.arcs[:, 1]
    egress = np.bincount(src, weights=lam, minlength=N).astype(np.int64)
    ingress = np.bincount(dst, weights=lam, minlength=N).astype(np.int64)
    # Arcs are sorted by source, so CU i's arcs are one slice.
    starts = np.searchsorted(src, np.arange(N + 1))
    weight = instance.t - lam
    added = 0
    progress = True
    while progress:
        progress = False
        for cu in np.flatnonzero(egress < w):
            mine = np.arange(starts[cu], starts[cu + 1])
            open_ = mine[ingress[dst[mine]] < w]
            if len(open_) == 0:
                continue
            a = open_[np.argmax(weight[open_])]
            lam[a] += 1
            weight[a] -= 1
            egress[cu] += 1
            ingress[dst[a]] += 1
            added += 1
            progress = True
    return added


def _complete(instance: Instance, lam: np.ndarray) -> tuple[np.ndarray, int]:
    """The full allocation (every egress and ingress = w) nearest the partial one: each of its
    units costs its eq. 1 cost, less a bonus for the units the partial allocation already has, so
    a unit is taken back only where filling needs it; returns it and the units taken back."""
    costs = unit_costs(instance)
    # Keeping a unit is worth more than any one unit's effect on eq. 1 (|2k - 1 - 2t| <= 2w + 1).
    keep_bonus = 4 * instance.w + 3
    costs -= keep_bonus * (np.arange(1, instance.w + 1)[None, :] <= lam[:, None])
    full = solve_units(instance, costs, full=True)
    return full, int(np.maximum(lam - full, 0).sum())


def heuristic(instance: Instance, relaxation: Relaxation | None = None, complete: bool = True) -> Heuristic:
    """Rounds the relaxed optimum (solved here unless given), fills round-robin by weight, and
    completes if the round robin gets stuck. Every CU ends with egress = ingress = w.
    `complete` False skips the completion (an exact solve over arcs x w unit variables, minutes
    at hundreds of CUs): CUs the round robin could not fill then keep wavelengths dark."""
    relaxed = (relaxation or relax(instance)).lam
    lam = round_within_budgets(instance, relaxed)
    rounded_objective = instance.objective(lam)
    filled = _round_robin(instance, lam)
    taken_back = 0
    if complete and np.any(instance.egress @ lam < instance.w):
        lam, taken_back = _complete(instance, lam)
    return Heuristic(
        lam=lam,
        objective=instance.objective(lam),
        rounded_objective=rounded_objective,
        filled=filled,
        taken_back=taken_back,
    )
