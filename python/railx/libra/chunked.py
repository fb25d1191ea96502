"""Collectives split into chunks, against LIBRA's perfectly pipelined model.

LIBRA optimises with a collective lasting as long as its busiest dimension, max_d L_d where
L_d = gb_d / bw_d (railx.libra.collective): an infinitely fine pipeline. Its paper measures the
designs in ASTRA-sim, which splits every collective into 64 chunks (paper 004 §V-B). Here each of
`chunks` equal chunks goes through the collective's stages in order (a reduce-scatter up the used
dimensions, an all-gather down them, an all-reduce up then down with half of L_d each way, an
all-to-all up), one chunk's stage on dimension d taking tau = its share of L_d / chunks; a
dimension serves one chunk at a time and a free dimension takes the earliest-numbered chunk that
is waiting for it. The pipeline needs time to fill and drain, so

    max(max_d L_d, sum_s tau_s) <= T <= max_d L_d + sum_s tau_s

and when the stages use distinct dimensions (reduce-scatter, all-gather, all-to-all) the schedule
is the flow shop's, T = sum_s tau_s + (chunks - 1) max_s tau_s exactly. The relative cost of
chunking is at most sum_s tau_s / max_d L_d <= stages / chunks; it is largest for a balanced
design (every dimension as busy as the busiest) and smallest when one dimension dominates, which
is EqualBW's usual state, so chunking lowers an optimised design's speed-up over EqualBW.
"""

from __future__ import annotations

import heapq

import numpy as np

from railx.config import ConfigError
from railx.libra.workload import CollectiveKind

__all__ = ["ChunkedAlgebra", "chunked_time_s", "stages"]


def stages(kind: CollectiveKind, gb: tuple[float, ...]) -> list[tuple[int, float]]:
    """(dimension, GB per NPU) of each stage in the order a chunk runs them."""
    used = [d for d, g in enumerate(gb) if g > 0]
    if kind == "ALLGATHER":
        return [(d, gb[d]) for d in reversed(used)]
    if kind == "ALLREDUCE":  # reduce-scatter up, all-gather down: half the dimension's bytes each
        return [(d, gb[d] / 2) for d in used] + [(d, gb[d] / 2) for d in reversed(used)]
    return [(d, gb[d]) for d in used]


def chunked_time_s(kind: CollectiveKind, gb: tuple[float, ...], bw_GBps: np.ndarray, chunks: int) -> float:
    """Seconds for a collective moving gb[d] GB per NPU in dimension d, split into `chunks`."""
    plan = stages(kind, gb)
    if not plan:
        return 0.0
    tau_s = [g / chunks / float(bw_GBps[d]) for d, g in plan]
    free_at = dict.fromkeys((d for d, _ in plan), 0.0)
    next_stage = [0] * chunks
    waiting = [(0.0, c) for c in range(chunks)]  # (time the chunk is ready for its next stage, chunk)
    end = 0.0
    while waiting:
        ready, c = heapq.heappop(waiting)
        dim = plan[next_stage[c]][0]
        if free_at[dim] > ready:  # the dimension is busy: wait for it (earlier chunks first)
            heapq.heappush(waiting, (free_at[dim], c))
            continue
        done = ready + tau_s[next_stage[c]]
        free_at[dim] = done
        next_stage[c] += 1
        if next_stage[c] < len(plan):
            heapq.heappush(waiting, (done, c))
        end = max(end, done)
    return end


class ChunkedAlgebra:
    """Evaluates a time expression (railx.libra.loops) at one bandwidth vector with every
    collective split into `chunks` (ASTRA-sim's setting in LIBRA's paper: 64)."""

    def __init__(self, bw_GBps: np.ndarray, chunks: int) -> None:
        if chunks < 1:
            raise ConfigError(f"chunks = {chunks}: a collective needs at least one chunk; e.g. 64")
        self.bw, self.chunks = np.asarray(bw_GBps, dtype=float), chunks

    def const(self, seconds: float) -> float:
        return seconds

    def comm(self, gb: tuple[float, ...], kind: CollectiveKind) -> float:
        return chunked_time_s(kind, gb, self.bw, self.chunks)

    def maximum(self, values: list[float]) -> float:
        return max(float(v) for v in values)
