"""Closed-form alpha-beta collective times (RailX paper §4.2, A.2, Table 4).

Conventions: `p` ranks, `volume_bytes` the data each rank holds (the full vector for a
reduce-scatter, the gathered result for an all-gather), `bw_bytes_per_s` the bandwidth a rank
has in each direction of the dimension, `alpha_s` the latency of one step. Bandwidths may be
NumPy arrays: every formula is elementwise, so a sweep over allocations evaluates in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

ArrayLike = float | np.ndarray

__all__ = [
    "HierarchyLevel",
    "direct_all_to_all_time_s",
    "direct_reduce_scatter_time_s",
    "hierarchical_all_reduce_stages_s",
    "hierarchical_all_reduce_time_s",
    "hyperx_all_reduce_time_s",
    "mesh_hierarchical_all_reduce_time_s",
    "node_all_reduce_1d_time_s",
    "node_all_reduce_2d_time_s",
    "point_to_point_time_s",
    "ring_reduce_scatter_time_s",
    "two_d_ring_all_reduce_time_s",
]


def ring_reduce_scatter_time_s(p: int, volume_bytes: float, bw_bytes_per_s: ArrayLike, alpha_s: float) -> ArrayLike:
    """T_R (eq. 6): bidirectional-ring reduce-scatter (or all-gather) of `volume_bytes` over p ranks:
    (p-1) alpha + (p-1)/p * V / (2B). Zero for p = 1."""
    if p <= 1:
        return 0.0 * bw_bytes_per_s
    return (p - 1) * alpha_s + (p - 1) / p * volume_bytes / (2.0 * bw_bytes_per_s)


def direct_reduce_scatter_time_s(p: int, volume_bytes: float, bw_bytes_per_s: ArrayLike, alpha_s: float) -> ArrayLike:
    """T_AR (eq. 12): direct (all-to-all based) reduce-scatter or all-gather on a fully connected
    dimension: alpha + (p-1)/p * V / (2B). Zero for p = 1."""
    if p <= 1:
        return 0.0 * bw_bytes_per_s
    return alpha_s + (p - 1) / p * volume_bytes / (2.0 * bw_bytes_per_s)


def direct_all_to_all_time_s(p: int, volume_bytes: float, bw_bytes_per_s: ArrayLike, alpha_s: float) -> ArrayLike:
    """All-to-all of `volume_bytes` per rank on a fully connected (rail-ring all-to-all) dimension:
    each rank keeps 1/p and sends (p-1)/p over both directions in one step (Table 4, E row)."""
    return direct_reduce_scatter_time_s(p, volume_bytes, bw_bytes_per_s, alpha_s)


def point_to_point_time_s(volume_bytes: float, bw_bytes_per_s: ArrayLike, alpha_s: float) -> ArrayLike:
    """One message of `volume_bytes` over one direction of a link (Table 4, P row): alpha + V/B."""
    return alpha_s + volume_bytes / bw_bytes_per_s


@dataclass(frozen=True)
class HierarchyLevel:
    """One dimension of a hierarchical collective: its ranks, per-direction bandwidth, step latency
    and algorithm (`ring`: T_R, `direct`: T_AR)."""

    p: int
    bw_bytes_per_s: ArrayLike
    alpha_s: float
    algorithm: Literal["ring", "direct"] = "ring"


def hierarchical_all_reduce_stages_s(volume_bytes: float, levels: Sequence[HierarchyLevel]) -> list[ArrayLike]:
    """The time each level of a hierarchical all-reduce adds (T_hD of §4.2): level i reduce-scatters
    what the levels before it left (V / p_1 / ... / p_(i-1)) and later all-gathers it back, so it
    costs twice its reduce-scatter stage."""
    stages: list[ArrayLike] = []
    remaining = float(volume_bytes)
    for level in levels:
        stage = ring_reduce_scatter_time_s if level.algorithm == "ring" else direct_reduce_scatter_time_s
        stages.append(2.0 * stage(level.p, remaining, level.bw_bytes_per_s, level.alpha_s))
        remaining /= max(level.p, 1)
    return stages


def hierarchical_all_reduce_time_s(volume_bytes: float, levels: Sequence[HierarchyLevel]) -> ArrayLike:
    """All-reduce over several dimensions: reduce-scatter level by level, then all-gather in
    reverse; the sum of the 2h stages (:func:`hierarchical_all_reduce_stages_s`)."""
    return sum(hierarchical_all_reduce_stages_s(volume_bytes, levels), 0.0)


def two_d_ring_all_reduce_time_s(
    m: int, p: int, volume_bytes: float, edge_bw_bytes_per_s: ArrayLike, alpha_s: float
) -> ArrayLike:
    """Eq. 7: 2D-ring all-reduce on an m^2 x p x p RailX, the data split in two halves running X-then-Y
    and Y-then-X at once: 2 [T_R(mp, V/2, nB) + T_R(mp, V/(2mp), nB)]; `edge_bw` is nB."""
    q = m * p
    return 2.0 * (
        ring_reduce_scatter_time_s(q, volume_bytes / 2.0, edge_bw_bytes_per_s, alpha_s)
        + ring_reduce_scatter_time_s(q, volume_bytes / (2.0 * q), edge_bw_bytes_per_s, alpha_s)
    )


def mesh_hierarchical_all_reduce_time_s(
    m: int, p: int, k: float, volume_bytes: float, edge_bw_bytes_per_s: ArrayLike, alpha_s: float
) -> ArrayLike:
    """Eq. 8 (its closed form): local all-reduce on the mesh (k times the edge bandwidth), then the
    2D all-reduce of V/m^2 among nodes over nB/m per chip: 4p alpha + (2/k + 1/m) V / (2nB)."""
    return 4 * p * alpha_s + (2.0 / k + 1.0 / m) * volume_bytes / (2.0 * edge_bw_bytes_per_s)


def node_all_reduce_1d_time_s(
    m: int, p: int, volume_bytes: float, edge_bw_bytes_per_s: ArrayLike, alpha_s: float
) -> ArrayLike:
    """Eq. 9, 1D: node-level all-reduce among p nodes when TP holds the mesh: 2p alpha + V/(nB/m)."""
    return 2 * p * alpha_s + volume_bytes / (edge_bw_bytes_per_s / m)


def node_all_reduce_2d_time_s(
    m: int, p: int, volume_bytes: float, edge_bw_bytes_per_s: ArrayLike, alpha_s: float
) -> ArrayLike:
    """Eq. 9, 2D: node-level all-reduce among p x p nodes: 4p alpha + V/(2nB/m)."""
    return 4 * p * alpha_s + volume_bytes / (2.0 * edge_bw_bytes_per_s / m)


def hyperx_all_reduce_time_s(
    m: int, p: int, k: float, volume_bytes: float, edge_bw_bytes_per_s: ArrayLike, alpha_s: float
) -> ArrayLike:
    """Eq. 13, exact form: mesh all-reduce, then direct all-reduce on the 2D-HyperX:
    (m^2-1)/m^2 V/(knB) + 4 alpha + (p^2-1)/p^2 (V/m^2)/(2nB/m)."""
    m2, p2 = m * m, p * p
    mesh = (m2 - 1) / m2 * volume_bytes / (k * edge_bw_bytes_per_s)
    return mesh + 4 * alpha_s + (p2 - 1) / p2 * (volume_bytes / m2) / (2.0 * edge_bw_bytes_per_s / m)
