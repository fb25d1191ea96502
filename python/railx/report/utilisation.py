"""Link-utilisation maps of a small RailX torus from the two simulators: the flit-level one
(uniform random traffic) and the flow-level one (an all-to-all, aggregated over node
translations). Each directed link is drawn between its chips, coloured by its mean utilisation;
the two directions of a link sit side by side, and the rings' wrap-around links leave the grid
at one edge and re-enter at the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from railx.flowsim import simulate_symmetric, symmetric_traffic
from railx.report.plots import Chart
from railx.report.tables import Table, fixed
from railx.sim import FlitSettings
from railx.sim import simulate as flit_simulate
from railx.systems import System

__all__ = ["TORUS", "LinkUtilisation", "link_utilisation", "utilisation_chart", "utilisation_table"]

#: A 4 x 4-node torus of 2 x 2-chip meshes (64 chips, R = 8): translation invariant, so the flow
#: simulator's aggregated run is exact, and small enough to draw every link.
TORUS: dict[str, Any] = {"system": {"m": 2, "n": 1, "R": 8, "grid": [4, 4]}, "topology": {"preset": "torus"}}
FLIT_LOAD = 0.3  # offered flits/cycle/chip: below saturation, so utilisation shows the routes' load
FLIT_SETTINGS = FlitSettings(warmup_cycles=1000, measure_cycles=3000)
FLOW_PAIR_BYTES = 1 << 16
_OFFSET = 0.12  # how far each direction of a link is drawn from the line between the chips


@dataclass(frozen=True)
class LinkUtilisation:
    """Per-link mean utilisation (fraction of the link's bandwidth) of both simulators, in the
    network's link order, with the links' endpoints and classes."""

    system: System
    links: dict[str, np.ndarray]
    flit: np.ndarray
    flow: np.ndarray
    flit_report: dict[str, Any]


def link_utilisation() -> LinkUtilisation:
    """Runs both simulators on :data:`TORUS` (deterministic: the flit simulator is seeded)."""
    system = System("report-torus", "4 x 4-node RailX torus", railx=TORUS)
    report, flit = flit_simulate(system, "uniform", FLIT_LOAD, settings=FLIT_SETTINGS)
    flow = simulate_symmetric(system, symmetric_traffic(system, "all-to-all", FLOW_PAIR_BYTES), bins=1)
    links = {name: np.asarray(values) for name, values in system.network().items()}
    return LinkUtilisation(system, links, np.asarray(flit), flow.link_utilisation(), report)


def _positions(chips: np.ndarray, m: int, p: int) -> np.ndarray:
    """Each chip's (column, row) in the whole chip grid: node (X, Y) times m plus (x, y)."""
    node, local = np.divmod(chips, m * m)
    node_y, node_x = np.divmod(node, p)
    y, x = np.divmod(local, m)
    return np.stack([node_x * m + x, node_y * m + y], axis=1).astype(float)


def _segments(src: np.ndarray, dst: np.ndarray) -> list[list[tuple[float, float]]]:
    """Each directed link as one or two line segments, shifted to its side of the chip pair."""
    segments = []
    for a, b in zip(src, dst):
        delta = b - a
        step = np.sign(delta)
        normal = np.array([-step[1], step[0]]) * _OFFSET
        if np.abs(delta).max() <= 1:
            segments.append([tuple(a + normal), tuple(b + normal)])
        else:  # a ring's wrap-around: out of one edge of the grid, in at the other
            out = -step * 0.6
            normal = np.array([-out[1], out[0]]) / 0.6 * _OFFSET
            segments.append([tuple(a + normal), tuple(a + out + normal)])
            segments.append([tuple(b - out + normal), tuple(b + normal)])
    return segments


def _map(ax: Axes, data: LinkUtilisation, values: np.ndarray, title: str, norm: Normalize) -> LineCollection:
    system = data.system.railx or {}
    m, (p, q) = system["system"]["m"], system["system"]["grid"]
    src = _positions(data.links["src"], m, p)
    dst = _positions(data.links["dst"], m, p)
    segments, colours = [], []
    for s, d, v in zip(src, dst, values):
        for segment in _segments(s[None], d[None]):
            segments.append(segment)
            colours.append(v)
    lines = LineCollection(segments, array=np.asarray(colours), norm=norm, cmap="viridis", linewidths=2.2)
    ax.add_collection(lines)
    chips = _positions(np.arange(p * q * m * m), m, p)
    ax.scatter(chips[:, 0], chips[:, 1], s=14, color="0.3", zorder=3)
    for node_x in range(p + 1):
        ax.axvline(node_x * m - 0.5, color="0.8", lw=0.8, zorder=0)
    for node_y in range(q + 1):
        ax.axhline(node_y * m - 0.5, color="0.8", lw=0.8, zorder=0)
    ax.set_xlim(-1.0, p * m)
    ax.set_ylim(-1.0, q * m)
    ax.set_aspect("equal")
    ax.set_xlabel("chip column (node X x m + x); grey lines: node boundaries")
    ax.set_ylabel("chip row (node Y x m + y)")
    ax.set_title(title, fontsize="medium")
    return lines


def utilisation_chart(data: LinkUtilisation) -> Chart:
    """Both maps side by side on one colour scale from 0 (idle) to 1 (busy every cycle)."""
    figure = Figure(figsize=(12.0, 5.4), layout="constrained")
    left, right = figure.subplots(1, 2)
    norm = Normalize(0.0, 1.0)  # a fraction of capacity: the whole range, from zero
    _map(left, data, data.flit, f"flit level: uniform random traffic, {FLIT_LOAD} flits/cycle/chip offered", norm)
    lines = _map(right, data, data.flow, f"flow level: all-to-all, {FLOW_PAIR_BYTES // 1024} KiB per pair", norm)
    figure.colorbar(lines, ax=[left, right], label="mean link utilisation (fraction of the link's bandwidth)")
    return Chart(
        "utilisation-maps",
        "Link utilisation of a 4 x 4-node RailX torus (64 chips), flit and flow simulators",
        figure,
        caption="Each directed link is a segment between its chips (the two directions side by side); "
        "the default routing of the torus (dateline) is used by both.",
    )


def utilisation_table(data: LinkUtilisation) -> Table:
    """Mean and maximum utilisation per link class, for both simulators."""
    rows = []
    for cls, name in ((0, "intra-node mesh"), (1, "inter-node optical")):
        mask = data.links["class"] == cls
        rows.append([name, int(mask.sum()), data.flit[mask].mean(), data.flit[mask].max(),
                     data.flow[mask].mean(), data.flow[mask].max()])  # fmt: skip
    columns = ["links", "count", "flit mean", "flit max", "flow mean", "flow max"]
    return Table(
        "utilisation-by-class",
        "Link utilisation by class",
        columns,
        rows,
        caption=f"Flit level: {data.flit_report['accepted']:.3f} flits/cycle/chip accepted of {FLIT_LOAD} offered.",
        formats={c: fixed(3) for c in columns[2:]},
    )
