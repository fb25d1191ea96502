"""Network bandwidth utilisation of a design (paper 004 §III-C, Fig. 10).

While a collective runs for max_d L_d seconds (L_d = gb_d / bw_d), dimension d is busy for L_d of
them, so of the NPU's total bandwidth sum_d bw_d the collective uses
sum_d gb_d / (sum_d bw_d * max_d L_d). Over a training iteration the utilisation is the bytes all
collectives move divided by what the total bandwidth could move in the time they take. A design
that kept every dimension busy through every collective (100%) would finish each collective in
sum_d gb_d / sum_d bw_d seconds; no single allocation reaches that when collectives load the
dimensions differently (a tensor-parallel collective on the inner dimensions, a data-parallel one
on the outer), which is why PerfOpt lies between EqualBW and this bound.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from railx.libra.loops import Comm, Const, Node, TimeExpr
from railx.libra.workload import CollectiveKind

__all__ = ["bandwidth_utilization", "full_utilization_time_s"]


def _comms(node: Node, count: float) -> Iterator[tuple[Comm, float]]:
    if isinstance(node, Comm):
        yield node, count
    elif not isinstance(node, Const):
        for item in node.items:
            yield from _comms(item, count)


def bandwidth_utilization(expr: TimeExpr, bw_GBps: np.ndarray) -> float:
    """Fraction of the total per-NPU bandwidth the collectives of `expr` keep busy, time-averaged
    over the time they take at `bw_GBps` (1.0 when there is no communication)."""
    bw = np.asarray(bw_GBps, dtype=float)
    moved_gb = busy_s = 0.0
    for node, count in (pair for term in expr.terms for pair in _comms(*term)):
        moved_gb += count * sum(node.gb)
        busy_s += count * max(g / bw[d] for d, g in enumerate(node.gb) if g > 0)
    return moved_gb / (float(bw.sum()) * busy_s) if busy_s > 0 else 1.0


class _FullUse:
    """Every collective moves its bytes at the full total bandwidth."""

    def __init__(self, total_bw_GBps: float) -> None:
        self.total = total_bw_GBps

    def const(self, seconds: float) -> float:
        return seconds

    def comm(self, gb: tuple[float, ...], kind: CollectiveKind) -> float:
        return sum(gb) / self.total

    def maximum(self, values: list[float]) -> float:
        return max(float(v) for v in values)


def full_utilization_time_s(expr: TimeExpr, total_bw_GBps: float) -> float:
    """The iteration time if every collective used all `total_bw_GBps` of every NPU (100%
    utilisation): a lower bound on the time of any allocation of that budget."""
    return float(expr.evaluate(_FullUse(total_bw_GBps)))
