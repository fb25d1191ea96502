"""Dynamic bandwidth allocation on RailX (paper §5.2, A.4): context-parallel (C) and expert-parallel
(E) traffic never overlap in a layer, so the optical switches of their axis can be reprogrammed
between the two phases and each phase gets the ports of both.

Per layer and pass the circuits switch twice (C -> E after attention, E -> C before the next
layer's attention): 4 N_B L/P reconfigurations an iteration. A reconfiguration hides under the
compute between the phases: the attention output projection and router (C -> E) and the next
layer's QKV projection (E -> C), twice as long in the backward pass. Only the part of the switching
delay longer than its gap is exposed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from railx.allocation.static import StaticSplit, axis_dims, static_split, time_for_ports
from railx.config import ConfigError
from railx.workload.iteration import IterationModel

__all__ = ["DynamicSplit", "dynamic_split"]


@dataclass(frozen=True)
class DynamicSplit:
    """Static optimum beside time-multiplexing the C and E ports of one axis."""

    static: StaticSplit
    shared_ports: int
    reconfigurations: float
    gaps_s: tuple[float, ...]
    reconfiguration_delay_s: float
    exposed_reconfiguration_s: float
    dynamic_time_s: float
    pays: bool
    break_even_delay_s: float | None


def _exposed_s(delay_s: float, gaps_s: tuple[float, ...], per_gap: float) -> float:
    return per_gap * sum(max(0.0, delay_s - g) for g in gaps_s)


def _break_even_s(budget_s: float, gaps_s: tuple[float, ...], per_gap: float) -> float | None:
    """The largest delay whose exposed cost stays within `budget_s` (piecewise linear in delay)."""
    if budget_s <= 0:
        return None
    points = sorted(gaps_s)
    for i, g in enumerate(points):
        nxt = points[i + 1] if i + 1 < len(points) else np.inf
        slope = per_gap * (i + 1)
        if _exposed_s(nxt, gaps_s, per_gap) >= budget_s:
            return g + (budget_s - _exposed_s(g, gaps_s, per_gap)) / slope
    return float("inf")


def dynamic_split(it: IterationModel, reconfiguration_delay_s: float) -> DynamicSplit:
    """Compares the best static split with switching the C/E ports between phases."""
    if reconfiguration_delay_s < 0:
        raise ConfigError(f"reconfiguration delay = {reconfiguration_delay_s} s: must be >= 0; e.g. 0.001")
    groups = axis_dims(it)
    axis = next((a for a, dims in groups.items() if "C" in dims and "E" in dims), None)
    if axis is None:
        raise ConfigError(
            'mapping: dynamic allocation needs C and E (both > 1) on the same axis; e.g. C = { axis = "x", ports = 1 } and E = { axis = "x", ports = 1 }'
        )
    static = static_split(it)
    others = sum(static.ports[d] for d in groups[axis] if d not in ("C", "E"))
    shared = it.system.axis_ports()[axis] - others
    ports = {**static.ports, "C": shared, "E": shared}
    base = float(time_for_ports(it, ports))
    f, stage_layers = it.flops, it.model.values()["layers"] / it.par.P
    rate = it.system.chip.flops_per_s
    c_to_e = (f.out_proj + f.router) / stage_layers / rate
    e_to_c = f.qkv / stage_layers / rate
    gaps = (c_to_e, e_to_c, 2 * c_to_e, 2 * e_to_c)  # forward, then backward (2x compute)
    per_gap = it.par.micro_batches * stage_layers
    exposed = _exposed_s(reconfiguration_delay_s, gaps, per_gap)
    dynamic = base + exposed
    return DynamicSplit(
        static=static,
        shared_ports=shared,
        reconfigurations=per_gap * len(gaps),
        gaps_s=gaps,
        reconfiguration_delay_s=reconfiguration_delay_s,
        exposed_reconfiguration_s=exposed,
        dynamic_time_s=dynamic,
        pays=dynamic < static.time_s,
        break_even_delay_s=_break_even_s(static.time_s - base, gaps, per_gap),
    )
