"""Cost per injection bandwidth and per global bandwidth vs chips, one curve per family (each a
sweep of that family's size with Table 6's ports and switches), plus chosen systems as points."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from railx.atomic import checked_path, save_figure
from railx.config import ConfigError, make_dir
from railx.cost.catalog import Catalog
from railx.cost.model import figures
from railx.systems import System

__all__ = ["family_sweeps", "plot_cost"]


def _railx(m: int, grid: int) -> dict[str, Any]:
    return {
        "system": {"m": m, "n": 9, "R": 128, "grid": [grid, grid], "port_bw_GBps": 50.0},
        "topology": {"preset": "hyperx"},
    }


def family_sweeps() -> dict[str, list[System]]:
    """Systems of growing size per family: 36 x 400G ports per chip, 64-port packet switches,
    128-port OCS, as in Table 6 (the fewest fat-tree tiers that fit each size)."""
    sweeps: dict[str, list[System]] = {
        "fat-tree (non-blocking)": [
            System(f"ft-{n}", "", peer={"family": "fat-tree", "radix": 64, "chips": n, "planes": 36})
            for n in (512, 2048, 8192, 65536, 262144, 1048576)
        ],
        "HammingMesh Hx4Mesh": [
            System(f"hx4-{b}", "", peer={"family": "hammingmesh", "a": 4, "boards": [b, b], "planes": 9, "radix": 64})
            for b in (4, 8, 16, 32, 64, 128)
        ],
        "3D torus w/o OCS": [
            System(f"torus-{k}", "", peer={"family": "torus3d", "dims": [k, k, k], "ports_per_direction": 6})
            for k in (8, 16, 32, 64)
        ],
        "TPUv4 (3D torus w/ OCS)": [
            System(
                f"tpuv4-{k}",
                "",
                peer={"family": "torus3d", "dims": [k, k, k], "ports_per_direction": 6, "ocs_radix": 128},
            )
            for k in (4, 8, 16)
        ],
        "Rail-only 2D": [
            System(
                f"ro2d-{n}",
                "",
                peer={"family": "rail-only", "radix": 64, "dims": [{"size": n, "rails": 18}, {"size": n, "rails": 18}]},
            )
            for n in (16, 32, 64, 128, 256)
        ],
        "HyperX 2D": [
            System(
                f"hyperx-{s}", "", peer={"family": "hyperx", "dims": [s, s], "terminals": s, "radix": 64, "planes": 36}
            )
            for s in (4, 8, 16, 21)
        ],
        "Dragonfly": [
            System(
                f"df-{g}",
                "",
                peer={
                    "family": "dragonfly",
                    "groups": g,
                    "routers": 16,
                    "terminals": 8,
                    "global_ports": 8,
                    "radix": 64,
                    "planes": 36,
                },
            )
            for g in (5, 17, 33, 65, 129)
        ],
        "RailX4Mesh (HyperX)": [System(f"railx4-{g}", "", railx=_railx(4, g)) for g in (8, 16, 32, 37)],
        "RailX7Mesh (HyperX)": [System(f"railx7-{g}", "", railx=_railx(7, g)) for g in (8, 16, 32, 64)],
    }
    return sweeps


def plot_cost(catalog: Catalog, points: list[dict[str, Any]], path: str | Path) -> Path:
    """Two log-log panels, cost per injection bandwidth and per global (bisection) bandwidth in
    USD per GB/s, vs chips: every family's sweep as a line, `points` (figures rows) as markers.
    PNG or SVG by the suffix."""
    path = checked_path(path, "path")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    panels = (
        ("cost per injection bandwidth [USD per GB/s]", lambda r: r["cost_per_inject_usd_per_GBps"]),
        (
            "cost per global (bisection) bandwidth [USD per GB/s]",
            lambda r: r["cost_per_inject_usd_per_GBps"] / r["global_bw_frac"],
        ),
    )
    curves: dict[str, list[dict[str, Any]]] = {}
    skipped: list[str] = []
    for label, systems in family_sweeps().items():
        try:
            curves[label] = [figures(s, catalog) for s in systems]
        except ConfigError:  # the catalog prices none of this family's switches: say so on the plot
            skipped.append(label)
    for ax, (ylabel, value) in zip(axes, panels, strict=True):
        for label, rows in curves.items():
            ax.loglog([r["chips"] for r in rows], [value(r) for r in rows], marker=".", label=label)
        for row in (p for p in points if p["cost_usd"] is not None):
            ax.scatter([row["chips"]], [value(row)], marker="*", s=80, color="black", zorder=3)
            ax.annotate(row["name"], (row["chips"], value(row)), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_xlabel("chips")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    unpriced = f"; not priced by this catalog: {', '.join(skipped)}" if skipped else ""
    fig.suptitle(f"Cost vs scale (catalog {catalog.name}, switches priced per {catalog.port_basis} port){unpriced}")
    fig.tight_layout()
    make_dir(path.parent, f"--plot {path}")
    save_figure(fig, path)
    plt.close(fig)
    return path
