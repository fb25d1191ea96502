"""The OCS wiring of a small RailX system, drawn from the circuits the core synthesised (the
`railx.ocs/v1` tables of :meth:`railx.network.Network.ocs`), never from the intended topology:
what the picture shows is what the switches would be programmed with."""

from __future__ import annotations

from typing import Any

import matplotlib.patches as mpatches
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from railx.config import Config
from railx.network import Network, realize
from railx.report.plots import Chart
from railx.report.tables import Table

__all__ = ["SMALL_SYSTEM", "circuits_table", "port_owner", "small_system", "wiring_chart"]

#: A 3 x 3-node 2D-HyperX of 2 x 2-chip meshes, one port per chip edge (r = 2 rails per axis) on
#: 6-port OCS: small enough to draw every port, and each rail a different ring.
SMALL_SYSTEM: dict[str, Any] = {"system": {"m": 2, "n": 1, "R": 6, "grid": [3, 3]}, "topology": {"preset": "hyperx"}}
_RAIL_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


def small_system() -> Network:
    """The realized :data:`SMALL_SYSTEM`."""
    return realize(Config.model_validate(SMALL_SYSTEM))


def port_owner(switch: dict[str, Any], port: int) -> tuple[tuple[int, int], str]:
    """The node (X, Y) and side ('+' or '-') behind an OCS port: port 2*pos is the - port and
    2*pos+1 the + port of the node at position pos along the switch's axis, on its line."""
    pos, side = divmod(port, 2)
    node = (pos, switch["line"]) if switch["dim"] == "X" else (switch["line"], pos)
    return node, "+" if side else "-"


def circuits_table(ocs: dict[str, Any]) -> Table:
    """Every circuit of every switch, with the node ports it joins."""
    rows = []
    for switch in ocs["switches"]:
        for a, b in switch["circuits"]:
            (na, sa), (nb, sb) = port_owner(switch, a), port_owner(switch, b)
            rows.append([switch["id"], switch["rail"], a, b, f"node {na} rail {switch['rail']} {sa}",
                         f"node {nb} rail {switch['rail']} {sb}"])  # fmt: skip
    return Table(
        "network-circuits",
        "OCS circuits of the small system (switch X/line/rail or Y/line/rail)",
        ["switch", "rail", "port", "port", "joins", "to"],
        rows,
    )


def _node_box(ax: Axes, x0: float, y0: float, m: int, size: float, label: str) -> None:
    ax.add_patch(mpatches.Rectangle((x0, y0), size, size, fill=False, lw=1.2))
    step = size / m
    for i in range(m):
        for j in range(m):
            ax.add_patch(mpatches.Circle((x0 + (i + 0.5) * step, y0 + (j + 0.5) * step), step * 0.22, color="0.6"))
    ax.text(x0 + size / 2, y0 + size + 0.08, label, ha="center", va="bottom", fontsize="small")


def _row_wiring(ax: Axes, ocs: dict[str, Any], m: int, n: int) -> None:
    """Node row Y = 0 above its X-OCS: a wire from each node port to its switch port, and each
    circuit an arc inside its switch."""
    switches = [s for s in ocs["switches"] if s["dim"] == "X" and s["line"] == 0]
    radix = switches[0]["radix"]
    nodes = radix // 2
    size, gap = 1.0, 1.2
    for pos in range(nodes):
        _node_box(ax, pos * (size + gap), 0.0, m, size, f"node ({pos}, 0)")
    for k, switch in enumerate(switches):
        colour = _RAIL_COLOURS[switch["rail"] % len(_RAIL_COLOURS)]
        y_sw = -1.4 - 1.1 * k
        left, right = -0.3, nodes * (size + gap) - gap + 0.3
        ax.add_patch(mpatches.Rectangle((left, y_sw - 0.25), right - left, 0.5, fill=False, ec=colour, lw=1.5))
        ax.text(left - 0.1, y_sw, f"OCS {switch['id']}", ha="right", va="center", fontsize="small", color=colour)
        port_x = [left + (p + 0.5) * (right - left) / radix for p in range(radix)]
        row = switch["rail"] // n  # the chip row whose edge chips carry this rail
        chip_y = (row + 0.5) * size / m
        for p in range(radix):
            (node_x, _), side = port_owner(switch, p)
            chip_x = node_x * (size + gap) + (size - 0.5 * size / m if side == "+" else 0.5 * size / m)
            ax.plot([chip_x, port_x[p]], [chip_y, y_sw + 0.25], color=colour, lw=0.6, alpha=0.7)
            ax.text(port_x[p], y_sw + 0.05, f"{p}{side}", ha="center", va="center", fontsize="x-small")
        for a, b in (sorted(c) for c in switch["circuits"]):  # left to right: every arc bends below the ports
            ax.add_patch(
                mpatches.FancyArrowPatch(
                    (port_x[a], y_sw - 0.12), (port_x[b], y_sw - 0.12), connectionstyle="arc3,rad=0.35",
                    arrowstyle="-", color=colour, lw=1.6,
                )
            )  # fmt: skip
    ax.set_title("node row Y = 0 and its X-OCS (one per rail): wires to ports, arcs = circuits", fontsize="small")
    ax.set_xlim(-2.2, nodes * (size + gap))
    ax.set_ylim(-1.4 - 1.1 * len(switches) + 0.4, size + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")


def _node_graph(ax: Axes, ocs: dict[str, Any]) -> None:
    """Every node, and every circuit as a link between the two nodes it joins (X rails curve
    one way, Y rails the other; colour = rail)."""
    grid = ocs["system"]["grid"]
    spacing = 1.6
    for x in range(grid[0]):
        for y in range(grid[1]):
            ax.add_patch(mpatches.Rectangle((x * spacing - 0.3, y * spacing - 0.3), 0.6, 0.6, fc="0.92", ec="black"))
            ax.text(x * spacing, y * spacing, f"{x},{y}", ha="center", va="center", fontsize="x-small")
    for switch in ocs["switches"]:
        colour = _RAIL_COLOURS[switch["rail"] % len(_RAIL_COLOURS)]
        for a, b in switch["circuits"]:
            (na, _), (nb, _) = port_owner(switch, a), port_owner(switch, b)
            bend = 0.25 + 0.15 * switch["rail"]
            ax.add_patch(
                mpatches.FancyArrowPatch(
                    (na[0] * spacing, na[1] * spacing), (nb[0] * spacing, nb[1] * spacing),
                    connectionstyle=f"arc3,rad={bend if switch['dim'] == 'X' else -bend}", arrowstyle="-",
                    color=colour, lw=1.0, shrinkA=9, shrinkB=9,
                )
            )  # fmt: skip
    handles = [
        mpatches.Patch(color=_RAIL_COLOURS[r], label=f"rail {r}") for r in sorted({s["rail"] for s in ocs["switches"]})
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_title("all nodes (X, Y): each circuit a link", fontsize="small")
    ax.set_xlim(-0.8, (grid[0] - 1) * spacing + 0.8)
    ax.set_ylim(-0.8, (grid[1] - 1) * spacing + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")


def wiring_chart(network: Network) -> Chart:
    """The picture of `network`'s OCS wiring: one node row with its switches port by port, and
    the whole node grid with every circuit as a link."""
    ocs = network.ocs()
    system = ocs["system"]
    figure = Figure(figsize=(12.5, 4.6), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=[1.6, 1.0])
    _row_wiring(left, ocs, system["m"], system.get("n", 1))
    _node_graph(right, ocs)
    plan = network.plan()
    return Chart(
        "network-wiring",
        f"OCS wiring of a {system['grid'][0]} x {system['grid'][1]}-node RailX (m = {system['m']}, R = {system['R']})",
        figure,
        caption=f"{plan['chips']} chips, {plan['switches']} OCS, {plan['circuits']} circuits, 2D-HyperX: every "
        f"node reaches every other of its row and column in one optical hop (inter-node diameter "
        f"{plan['diameter_inter_node']}).",
    )
