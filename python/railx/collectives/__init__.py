"""Collective communication models. `analytic`: closed-form alpha-beta times (DESIGN.md §7);
schedules and simulated times plug in beside it."""

from railx.collectives.analytic import (
    direct_all_to_all_time_s,
    direct_reduce_scatter_time_s,
    HierarchyLevel,
    hierarchical_all_reduce_stages_s,
    hierarchical_all_reduce_time_s,
    hyperx_all_reduce_time_s,
    mesh_hierarchical_all_reduce_time_s,
    node_all_reduce_1d_time_s,
    node_all_reduce_2d_time_s,
    point_to_point_time_s,
    ring_reduce_scatter_time_s,
    two_d_ring_all_reduce_time_s,
)

__all__ = [
    "direct_all_to_all_time_s",
    "direct_reduce_scatter_time_s",
    "HierarchyLevel",
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
