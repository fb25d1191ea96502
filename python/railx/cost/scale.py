"""Scalability: the largest system each family builds for a switch radix (paper 000 Fig. 1,
Table 2, eq. 1; TPUv4's (R/2) m^3; paper 003 Fig. 9: Flex-SiPAC's r^L, the DGX-H100 SuperPOD's
8R, SiP-OCS's R), as data from the Rust core and as a log-log plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from railx._core import scalability as _scalability
from railx.config import make_dir

__all__ = ["DEFAULT_RADICES", "plot_scalability", "scalability"]

DEFAULT_RADICES: tuple[int, ...] = (16, 32, 64, 128, 256, 512)


def scalability(radices: tuple[int, ...] | list[int] = DEFAULT_RADICES) -> list[dict[str, Any]]:
    """One row per (family, variant, radix): `max_chips`, None where the radix sets no limit."""
    return [row for radix in radices for row in json.loads(_scalability(radix))]


def plot_scalability(rows: list[dict[str, Any]], path: str | Path, title: str = "Scalability vs switch radix") -> Path:
    """Max chips vs radix, one line per family variant, log-log; PNG or SVG by the suffix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    curves: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        if row["max_chips"] is not None:
            curves.setdefault(f"{row['family']} ({row['variant']})", []).append((row["radix"], row["max_chips"]))
    for label, points in curves.items():
        xs, ys = zip(*sorted(points), strict=True)
        ax.loglog(xs, ys, marker="o", label=label, base=2)
    ax.set_xlabel("switch radix (packet switch; OCS for RailX, TPUv4, SiP-OCS; WSS for Flex-SiPAC)")
    ax.set_ylabel("maximum chips")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    make_dir(path.parent, f"--plot {path}")
    fig.savefig(path)
    plt.close(fig)
    return path
