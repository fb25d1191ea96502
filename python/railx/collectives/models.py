"""Alpha-beta models of every collective schedule (docs/collectives.md): the plan's stages priced
with the per-line links of plans.py. Where the paper gives a formula the model reproduces it
exactly (tests assert it): 2D-ring all-reduce = eq. 7; hierarchical = the exact form of eq. 8
(2 T_R(m^2, V, knB) + 2 [T_R(p, V/2m^2, nB/m) + T_R(p, V/2m^2p, nB/m)]); direct on a 2D HyperX =
eq. 13 (exact), with the mesh hop latencies the paper omits included.

Stage costs on a line of L ranks (V the bytes a rank holds when a reduce-scatter starts or an
all-gather ends; for an all-to-all, the bytes each rank sends):
- bidirectional ring: T_R = (L-1) alpha + (L-1)/L V/(2B)  (eq. 6);
- unidirectional ring: (L-1) alpha + (L-1)/L V/B;
- direct: T_AR = alpha + (L-1)/L V/(2B)  (eq. 12), all-to-all likewise;
- routed all-to-all over several dimensions at once (direct all-to-all, two-step's first step):
  dimension-ordered routing is contention-free per dimension, so it costs each dimension's
  latency plus the slowest dimension's (L_d-1)/L_d V/(2 B_d) (derived; no formula in the paper).

Parts run at the same time; in a given stage, parts on the same line share its links (their
bytes add), parts on different lines do not (2D-ring's halves use X and Y at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from railx._core import collective_plan
from railx.collectives.params import RailxParams
from railx.collectives.plans import Line, LineLink, Plan, canonical_op, plan
from railx.systems import SystemLike, core_of

__all__ = ["LINK_MODELS", "Estimate", "bus_bandwidth_factor", "estimate", "estimate_routed"]

# Where a line's per-step latency and bandwidth come from: `paper`, the RailX paper's link
# conventions (eq. 6-13, Fig. 15; RailX systems only); `routed`, one step of every line instance
# routed on the system's network at once (any system; railx_core::collectives::links).
LINK_MODELS = ("paper", "routed")


@dataclass(frozen=True)
class Estimate:
    """An analytic result: completion time, algorithm and bus bandwidth (NCCL's conventions),
    and the bytes all ranks send together (equal to the schedule's)."""

    op: str
    algo: str
    size_bytes: float
    ranks: int
    time_s: float
    bytes_moved: float

    @property
    def algbw_Bps(self) -> float:
        return self.size_bytes / self.time_s if self.time_s > 0 else float("inf")

    @property
    def busbw_Bps(self) -> float:
        return self.algbw_Bps * bus_bandwidth_factor(self.op, self.ranks)


def bus_bandwidth_factor(op: str, ranks: int) -> float:
    """busbw / algbw: 2(p-1)/p for an all-reduce, (p-1)/p otherwise."""
    return (2.0 if canonical_op(op) == "all-reduce" else 1.0) * (ranks - 1) / ranks


def _latency_s(line: Line) -> float:
    if line.size <= 1:
        return 0.0
    if line.routed:
        return sum(link.alpha_s for size, link in line.routed if size > 1)
    steps = 1 if line.algo == "direct" else line.size - 1
    return steps * line.link.alpha_s


def _transfer_s(line: Line, volume_bytes: float) -> float:
    """Time to move a stage's bytes (`volume_bytes` summed over the parts on the line)."""
    if line.size <= 1:
        return 0.0
    if line.routed:
        return max((s - 1) / s * volume_bytes / (2 * link.bw_Bps) for s, link in line.routed)
    per_direction = 1.0 if line.algo == "ring" else 2.0
    return (line.size - 1) / line.size * volume_bytes / (per_direction * line.link.bw_Bps)


def _stages(op: str, order: tuple[Line, ...], part_bytes: float) -> list[tuple[Line, float]]:
    """(line, V) per stage of one part: V shrinks by L after each reduce-scatter stage."""
    if op == "all-to-all":
        return [(line, part_bytes) for line in order]
    rs, volume = [], part_bytes
    for line in order:
        rs.append((line, volume))
        volume /= line.size
    ag = list(reversed(rs))
    return {"all-reduce": rs + ag, "reduce-scatter": rs, "all-gather": ag}[op]


def estimate(op: str, algo: str, size_bytes: float, params: RailxParams) -> Estimate:
    """Analytic time of `op` by `algo` on a whole RailX system under the paper's link model;
    `size_bytes` is the vector per rank (all-reduce, reduce-scatter input, all-gather output) or
    the bytes each rank sends in total (all-to-all)."""
    _check_size(size_bytes)
    op = canonical_op(op)
    return _price(op, algo, size_bytes, plan(algo, op, params))


def estimate_routed(
    op: str,
    algo: str,
    size_bytes: float,
    system: SystemLike,
    routing: str | None = None,
    misroutes: int | None = None,
    cus: Sequence[int] | None = None,
) -> Estimate:
    """Analytic time of `op` by `algo` over every chip of any system (or a peer job's chips
    `cus`), each line's step latency and per-rank bandwidth measured on the system's network
    routed by `routing` (None: its default): every message of one step of every instance of the
    line routed at once, the slowest message's share of its most loaded link taken as the line's
    rate."""
    _check_size(size_bytes)
    op = canonical_op(op)
    raw = collective_plan(core_of(system), op, algo, True, routing, misroutes, None, None if cus is None else list(cus))
    lines = [
        Line(f"line{i}", line["size"], line["algo"], LineLink(line["alpha_s"], line["bw_Bps"]))
        for i, line in enumerate(raw["lines"])
    ]
    parts = tuple(tuple(lines[i] for i in part) for part in raw["parts"])
    return _price(op, algo, size_bytes, Plan(raw["ranks"], parts))


def _check_size(size_bytes: float) -> None:
    if not size_bytes > 0:
        from railx.config import ConfigError

        raise ConfigError(f"size_bytes = {size_bytes}: a collective moves at least one byte; e.g. size = 1048576")


def _price(op: str, algo: str, size_bytes: float, pl: Plan) -> Estimate:
    """The stages of `pl` priced: per stage the slowest line, parts on one line sharing it."""
    part_bytes = size_bytes / len(pl.parts)
    per_part = [_stages(op, order, part_bytes) for order in pl.parts]
    time_s = 0.0
    for index in range(len(per_part[0])):
        load: dict[str, tuple[Line, float]] = {}
        for stages in per_part:
            line, volume = stages[index]
            prev = load.get(line.name, (line, 0.0))[1]
            load[line.name] = (line, prev + volume)
        time_s += max(_latency_s(line) + _transfer_s(line, volume) for line, volume in load.values())
    moved = pl.ranks * sum((line.size - 1) / line.size * volume for stages in per_part for line, volume in stages)
    return Estimate(op, algo, float(size_bytes), pl.ranks, time_s, moved)
