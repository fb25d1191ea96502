"""Scalability: the largest system each family builds for a switch radix (paper 000 Fig. 1,
Table 2, eq. 1; TPUv4's (R/2) m^3; paper 003 Fig. 9: Flex-SiPAC's r^L, the DGX-H100 SuperPOD's
8R, SiP-OCS's R), as data from the Rust core and as a log-log plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from railx._core import scalability as _scalability
from railx.atomic import checked_path, save_figure
from railx.config import make_dir

__all__ = [
    "DEFAULT_RADICES",
    "FIG9_CURVES",
    "FIG9_RADICES",
    "PAPER_FIG9",
    "fig9_rows",
    "plot_scalability",
    "scalability",
]

DEFAULT_RADICES: tuple[int, ...] = (16, 32, 64, 128, 256, 512)

#: Paper 003 Fig. 9's radices and curves: (family, variant) of `railx scale`'s rows, in the paper's
#: legend order, and each curve's label and formula.
FIG9_RADICES: tuple[int, ...] = (4, 8, 16, 32, 64, 128)
FIG9_CURVES: dict[tuple[str, str], tuple[str, str]] = {
    ("sip-ocs", "flat, OCS radix N"): ("SiP-OCS", "R"),
    ("dgx-h100-superpod", "8-GPU servers, giant NVSwitch"): ("DGX-H100 SuperPOD", "8R"),
    ("torus3d", "TPUv4: OCS, 4x4x4 cubes"): ("TPUv4", "32R"),
    ("sipac", "Flex-SiPAC, 2 levels"): ("Flex-SiPAC, 2 levels", "R^2"),
    ("sipac", "Flex-SiPAC, 3 levels"): ("Flex-SiPAC, 3 levels", "R^3"),
}
#: The sizes paper 003's text gives (§4): CUs of Flex-SiPAC at radix 16 with 2 and 3 levels, and
#: the radix after which 2 levels build more than TPUv4.
PAPER_FIG9: dict[str, int] = {
    "radix16_levels2_cus": 256,
    "radix16_levels3_cus": 4096,
    "levels2_beat_tpuv4_after_radix": 32,
}


def scalability(radices: tuple[int, ...] | list[int] = DEFAULT_RADICES) -> list[dict[str, Any]]:
    """One row per (family, variant, radix): `max_chips`, None where the radix sets no limit."""
    return [row for radix in radices for row in json.loads(_scalability(radix))]


def fig9_rows() -> list[dict[str, Any]]:
    """Paper 003 Fig. 9's curves as rows of `railx scale`, relabelled (family: the curve's label,
    variant: its formula)."""
    return [
        row | dict(zip(("family", "variant"), FIG9_CURVES[key], strict=True))
        for row in scalability(FIG9_RADICES)
        if (key := (str(row["family"]), str(row["variant"]))) in FIG9_CURVES
    ]


def plot_scalability(rows: list[dict[str, Any]], path: str | Path, title: str = "Scalability vs switch radix") -> Path:
    """Max chips vs radix, one line per family variant, log-log; PNG or SVG by the suffix."""
    path = checked_path(path, "path")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    save_figure(fig, path)
    plt.close(fig)
    return path
