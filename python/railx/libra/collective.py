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
"""

from __future__ import annotations

from railx.libra.workload import CollectiveKind

__all__ = ["dimension_bytes"]


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
