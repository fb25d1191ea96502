"""Bandwidth allocation on RailX: static port splits (eq. 11), dynamic C/E switching (§5.2) and
the Fig. 16 sweep."""

from railx.allocation.dynamic import DynamicSplit, dynamic_split
from railx.allocation.static import StaticSplit, static_split, time_for_ports
from railx.allocation.sweep import fig16_table, split_comm_curve, split_curve

__all__ = [
    "DynamicSplit",
    "StaticSplit",
    "dynamic_split",
    "fig16_table",
    "split_comm_curve",
    "split_curve",
    "static_split",
    "time_for_ports",
]
