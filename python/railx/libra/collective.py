"""LIBRA's multi-rail collective model (paper 004 §II-C, §IV-C).

A collective over a multi-dimensional network runs the building block's own topology-aware
algorithm in each dimension in turn (Ring on RI, Direct on FC, Halving-Doubling on SW): a
reduce-scatter goes up the dimensions shrinking the data by each group, an all-gather comes back
down growing it, an all-reduce is both, and an all-to-all sends (g-1)/g of the data in every
dimension. All three algorithms are contention-free and bandwidth-optimal on their block, so the
bytes a dimension carries depend on the pattern and group sizes, not on the block; the chunks are
pipelined across dimensions, so the collective takes as long as its slowest dimension:
max_d bytes_d / bw_d. Latency is not modelled (LIBRA's assumption: large messages).

Sizes follow ASTRA-sim: for ALLGATHER the size is what each NPU contributes; for the others it is
the data each NPU holds at the start.

LIBRA's model lets a group use all of its NPUs' bandwidth in a dimension whatever the group's size.
On a fully-connected block that holds only when the group spans it: a group of g of its n NPUs
reaches only the g - 1 of each NPU's n - 1 links that lead to other members, so the direct
algorithm gets (g - 1) / (n - 1) of the bandwidth (`group_share`). A switch gives any group the full
port bandwidth. A ring's subgroup would have to pass through non-members; no shipped input has one,
and it is left at LIBRA's full share.
"""

from __future__ import annotations

from railx.config import ConfigError
from railx.libra.network import LibraNetwork
from railx.libra.workload import CollectiveKind

__all__ = ["dimension_bytes", "group_share"]


def dimension_bytes(kind: CollectiveKind, size_bytes: float, groups: tuple[int | None, ...]) -> tuple[float, ...]:
    """Bytes each network dimension carries per NPU for one collective (0 where unused)."""
    out = [0.0] * len(groups)
    used = [(d, g) for d, g in enumerate(groups) if g is not None and g > 1]
    chunk = float(size_bytes)
    if kind == "NONE" or chunk == 0.0:
        return tuple(out)
    if kind == "ALLGATHER":
        for d, g in reversed(used):
            out[d] = chunk * (g - 1)
            chunk *= g
        return tuple(out)
    factor = 2.0 if kind == "ALLREDUCE" else 1.0
    for d, g in used:
        out[d] = factor * chunk * (g - 1) / g
        if kind != "ALLTOALL":
            chunk /= g
    return tuple(out)


def group_share(network: LibraNetwork, groups: tuple[int | None, ...]) -> tuple[float, ...]:
    """Per dimension, the fraction of an NPU's bandwidth its group can use (1 where unused)."""
    if len(groups) != len(network.dims):
        raise ConfigError(
            f"communicator: {len(groups)} group sizes for {network.notation}; give one per dimension ({len(network.dims)})"
        )
    return tuple(
        (g - 1) / (dim.size - 1) if dim.kind == "FC" and g is not None and 1 < g < dim.size else 1.0
        for dim, g in zip(network.dims, groups)
    )
