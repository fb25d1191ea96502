"""Training loops (paper 004 §IV-C, Fig. 5) as time expressions of the per-dimension bandwidths.

An expression is a tree of `Const` (seconds), `Comm` (a collective: max over dimensions of
GB / (GB/s)), `Add` and `Max`. Every leaf is a constant or convex and non-increasing in the
bandwidths and the tree only adds and takes maxima, so the end-to-end time is convex; the same
tree is evaluated numerically (NumPy, many bandwidth vectors at once) or built as a cvxpy
expression by the optimiser. Identical subtrees are counted once with a multiplicity, which keeps
the optimisation problem small.

- `no-overlap` (LIBRA's shipped loop): every compute and collective in sequence.
- `tp-dp-overlap` (Fig. 5c): forward as above; per layer the backward takes
  input-grad compute + max(input-grad collective, weight-grad compute + weight-grad collective).

Given the network, a group that reaches only part of a dimension's bandwidth (a subgroup of a
fully-connected block, railx.libra.collective.group_share) carries its bytes at that share: the
leaf holds bytes / share, the GB it would move at the dimension's full bandwidth. Without it, the
model is LIBRA's (every group uses the full bandwidth).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

import numpy as np

from railx.libra.collective import dimension_bytes, group_share
from railx.libra.network import LibraNetwork
from railx.libra.workload import PHASES, CollectiveKind, Communicator, Layer, LibraWorkload, Phase

__all__ = ["Add", "Comm", "Const", "LOOP_NAMES", "LOOPS", "Max", "NumericAlgebra", "TimeExpr", "build_time"]

GB = 1e9  # bytes in one GB (bandwidths are in GB/s)


@dataclass(frozen=True)
class Const:
    """A fixed time in seconds."""

    seconds: float


@dataclass(frozen=True)
class Comm:
    """A collective carrying `gb[d]` GB per NPU in dimension d (at its full bandwidth): max_d gb[d] /
    bw[d] seconds. Its
    kind fixes the order it visits the dimensions in, which only a chunked model needs
    (railx.libra.chunked)."""

    gb: tuple[float, ...]
    kind: CollectiveKind


@dataclass(frozen=True)
class Add:
    """Sum of subexpressions."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Max:
    """Largest of subexpressions (work that runs concurrently)."""

    items: tuple[Node, ...]


Node = Const | Comm | Add | Max


class _Value(Protocol):
    """What an algebra's values support: sums, and scaling by a count."""

    def __add__(self, other: Any, /) -> Any: ...
    def __rmul__(self, other: float, /) -> Any: ...


V = TypeVar("V", bound=_Value)


class Algebra(Protocol[V]):
    """How leaves and maxima become values `V` (numbers, arrays or solver expressions)."""

    def const(self, seconds: float) -> V: ...
    def comm(self, gb: tuple[float, ...], kind: CollectiveKind) -> V: ...
    def maximum(self, values: list[V]) -> V: ...


@dataclass(frozen=True)
class TimeExpr:
    """Sum of count x term; constants are collected into `constant_s`."""

    constant_s: float
    terms: tuple[tuple[Node, float], ...]

    def evaluate(self, algebra: Algebra[V]) -> V:
        """The expression's value under an algebra."""
        total = algebra.const(self.constant_s)
        for node, count in self.terms:
            total = total + count * _eval(node, algebra)
        return total

    def scaled(self, weight: float) -> TimeExpr:
        """weight x this expression."""
        return TimeExpr(weight * self.constant_s, tuple((n, c * weight) for n, c in self.terms))

    def with_bandwidth_share(self, share: tuple[float, ...]) -> TimeExpr:
        """This expression with every collective reaching only share[d] of dimension d's
        bandwidth (its bytes there divided by the share)."""
        return TimeExpr(self.constant_s, tuple((_shared(node, share), count) for node, count in self.terms))

    def __add__(self, other: TimeExpr) -> TimeExpr:
        counts: dict[Node, float] = {}
        for node, count in (*self.terms, *other.terms):
            counts[node] = counts.get(node, 0.0) + count
        return TimeExpr(self.constant_s + other.constant_s, tuple(counts.items()))


def _shared(node: Node, share: tuple[float, ...]) -> Node:
    if isinstance(node, Comm):
        return Comm(tuple(g / s for g, s in zip(node.gb, share)), node.kind)
    if isinstance(node, Const):
        return node
    return type(node)(tuple(_shared(item, share) for item in node.items))


def _eval(node: Node, algebra: Algebra[V]) -> V:
    if isinstance(node, Const):
        return algebra.const(node.seconds)
    if isinstance(node, Comm):
        return algebra.comm(node.gb, node.kind)
    values = [_eval(item, algebra) for item in node.items]
    if isinstance(node, Add):
        return sum(values[1:], values[0])
    return algebra.maximum(values)


class NumericAlgebra:
    """Evaluates at bandwidths `bw_GBps` of shape (dims,) or (dims, points)."""

    def __init__(self, bw_GBps: np.ndarray) -> None:
        self.bw = np.asarray(bw_GBps, dtype=float)

    def const(self, seconds: float) -> np.ndarray:
        return np.full(self.bw.shape[1:], seconds)

    def comm(self, gb: tuple[float, ...], kind: CollectiveKind) -> np.ndarray:
        with np.errstate(divide="ignore"):
            parts = [g / self.bw[d] for d, g in enumerate(gb) if g > 0]
        return np.max(parts, axis=0) if parts else self.const(0.0)

    def maximum(self, values: list[np.ndarray]) -> np.ndarray:
        return np.maximum.reduce([np.asarray(v) for v in values])


@dataclass(frozen=True)
class _Phases:
    """Builds a phase's compute and collective leaves (time unit and per-phase bandwidth shares)."""

    comm: Communicator
    cycle_s: float
    shares: dict[str, tuple[float, ...]]

    def nodes(self, layer: Layer, name: str) -> tuple[Const, Comm]:
        phase: Phase = getattr(layer, name)
        moved = dimension_bytes(phase.collective, phase.size_bytes, self.comm.of(name))
        gb = tuple(b / GB / share for b, share in zip(moved, self.shares[name]))
        return Const(phase.compute_cycles * self.cycle_s), Comm(gb, phase.collective)


def _no_overlap(workload: LibraWorkload, phases: _Phases) -> list[Node]:
    nodes: list[Node] = []
    for layer in workload.layers:
        for name in PHASES:
            nodes.extend(phases.nodes(layer, name))
    return nodes


def _tp_dp_overlap(workload: LibraWorkload, phases: _Phases) -> list[Node]:
    nodes: list[Node] = []
    for layer in workload.layers:
        nodes.extend(phases.nodes(layer, "forward"))
        ig_compute, ig_comm = phases.nodes(layer, "input_grad")
        wg_compute, wg_comm = phases.nodes(layer, "weight_grad")
        nodes.extend((ig_compute, Max((ig_comm, Add((wg_compute, wg_comm))))))
    return nodes


LoopName = Literal["no-overlap", "tp-dp-overlap"]
LOOP_NAMES: tuple[LoopName, ...] = ("no-overlap", "tp-dp-overlap")
LOOPS: dict[str, Callable[[LibraWorkload, _Phases], list[Node]]] = {
    "no-overlap": _no_overlap,
    "tp-dp-overlap": _tp_dp_overlap,
}


def build_time(
    workload: LibraWorkload,
    comm: Communicator,
    loop: LoopName = "no-overlap",
    cycle_s: float = 1e-9,
    network: LibraNetwork | None = None,
) -> TimeExpr:
    """End-to-end time of one iteration of `workload` (compute times in cycles of `cycle_s`
    seconds; ASTRA-sim 1.0 and LIBRA use 1 GHz) under a training loop. With `network`, groups use
    only the share of a dimension's bandwidth they reach (see the module docstring); without it,
    LIBRA's model."""
    full = (1.0,) * len(comm.forward)
    shares = {name: group_share(network, comm.of(name)) if network is not None else full for name in PHASES}
    constant = 0.0
    counts: Counter[Node] = Counter()
    for node in LOOPS[loop](workload, _Phases(comm, cycle_s, shares)):
        if isinstance(node, Const):
            constant += node.seconds
        elif not (isinstance(node, Comm) and not any(node.gb)):
            counts[node] += 1
    return TimeExpr(constant, tuple(counts.items()))
