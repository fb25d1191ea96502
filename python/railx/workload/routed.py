"""What each parallelism dimension gets on any system, measured on its routed network.

Rank i runs on chip i, ranks numbered in mixed radix over [T, C, E, De, P] (T innermost). Every
family numbers its chips high-bandwidth domain first (a RailX node's mesh, a HammingMesh board
row, a Rail-only HB domain, a torus's x side, the chips of one switch), so T lands inside a
domain when it fits. Each dimension with more than one rank is one line of that group, measured
by the core (`railx_core::collectives::links`: one step of every instance of the line routed at
once by the system's routing, the slowest message's share of its busiest link taken as the
line's rate), with the primitive the iteration model prices it with:

- E (all-to-all): the direct primitive, every rank to every other of its line;
- P (pipeline sends): a one-way ring, every stage sending to the next at once;
- C (ring attention): a bidirectional ring, as the KV blocks go round;
- T (reduce-scatter and all-gather) and De (levels of the data-parallel all-reduces): the
  bidirectional ring, or the direct primitive where it is at least as fast at every volume (its
  bandwidth at least the ring's and its one step no slower than the ring's size - 1 steps), which
  is where the dimension acts fully connected (one switch, a HyperX or RailX all-to-all axis).
  The direct candidate is measured for lines of up to :data:`DIRECT_CANDIDATE_MAX_RANKS` ranks:
  a step of it routes ranks x (size - 1) messages, which on a multi-plane fat-tree takes minutes
  at thousands of chips, and collective libraries reduce larger groups by rings.

A dimension's measured link serves every collective along it (E's all-to-all and the E level of
the DP all-reduces, C's ring and the C level), as a port mapping does on a RailX plant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from railx.config import ConfigError
from railx.systems import System
from railx.workload.system import DimLink
from railx.workload.traffic import DIMS, Dim, Parallelism

if TYPE_CHECKING:
    from railx.progress import ProgressCallback

__all__ = ["DIRECT_CANDIDATE_MAX_RANKS", "routed_links"]

LineAlgo = Literal["ring", "bidir-ring", "direct"]

DIRECT_CANDIDATE_MAX_RANKS = 64
"""Largest T or De line on which the direct primitive is measured as an alternative to the ring."""

_PRIMITIVE: dict[Dim, LineAlgo] = {"T": "bidir-ring", "C": "bidir-ring", "E": "direct", "De": "bidir-ring", "P": "ring"}
"""The primitive each dimension is measured with (T and De may switch to direct, see above)."""

_MAY_BE_DIRECT: tuple[Dim, ...] = ("T", "De")

_NO_LINK = DimLink(bw_bytes_per_s=0.0, alpha_s=0.0, kind="ring", place="none (1 rank)")
"""A dimension of one rank: no collective runs on it."""


def routed_links(
    system: System, par: Parallelism, routing: str | None = None, progress: ProgressCallback | None = None
) -> dict[Dim, DimLink]:
    """Each dimension's link for `par` on `system`, measured on its network routed by `routing`
    (None: the family's default). `par` must fill the system's chips (checked by the caller).
    `progress(done, total, unit)` hears the lines measured (railx.progress)."""
    sizes = [par.size(d) for d in DIMS]
    lines: list[tuple[str, list[int], LineAlgo]] = []
    owners: list[tuple[Dim, LineAlgo]] = []
    for index, dim in enumerate(DIMS):
        if sizes[index] == 1:
            continue
        for algo in _candidates(dim, sizes[index]):
            lines.append((f"parallel.{dim}", [index], algo))
            owners.append((dim, algo))
    try:
        measured = system.core.measure_lines(sizes, lines, routing, progress)
    except ConfigError as exc:
        raise ConfigError(f"{system.name}: {exc}") from None
    found: dict[Dim, dict[LineAlgo, tuple[float, float]]] = {}
    for (dim, algo), link in zip(owners, measured, strict=True):
        found.setdefault(dim, {})[algo] = link
    return {dim: _choose(par.size(dim), found[dim]) if dim in found else _NO_LINK for dim in DIMS}


def _candidates(dim: Dim, size: int) -> list[LineAlgo]:
    if dim in _MAY_BE_DIRECT and size <= DIRECT_CANDIDATE_MAX_RANKS:
        return [_PRIMITIVE[dim], "direct"]
    return [_PRIMITIVE[dim]]


def _choose(size: int, candidates: dict[LineAlgo, tuple[float, float]]) -> DimLink:
    """The direct primitive where it is no slower than the dimension's own primitive at any
    volume (bandwidth at least its, one step no slower than its size - 1), else its own."""
    direct = candidates.get("direct")
    own = {algo: link for algo, link in candidates.items() if algo != "direct"}
    if direct is not None and all(
        direct[1] >= bw_Bps and direct[0] <= (size - 1) * alpha_s for alpha_s, bw_Bps in own.values()
    ):
        return _link("direct", direct)
    ((algo, link),) = own.items()
    return _link(algo, link)


def _link(algo: LineAlgo, measured: tuple[float, float]) -> DimLink:
    alpha_s, bw_Bps = measured
    return DimLink(
        bw_bytes_per_s=bw_Bps,
        alpha_s=alpha_s,
        kind="all-to-all" if algo == "direct" else "ring",
        place=f"routed {algo}",
    )
