"""Iteration time of GPT training on Rail-only clusters of H100 GPUs (the Rail-only paper's
Figs. 8-10): against the HB-domain size K, the HB and NIC bandwidths, and the global batch.

Every point is the fastest parallelisation the search finds (:func:`best_parallelism`, as the
paper's §V-B enumerates them) on N GPUs of :data:`DGX_GH200` in HB domains of K; K = N is the ideal
(one full-bisection HB domain). Two sets of modelling choices (:class:`Choices`):
:data:`RAILX` (the default: :data:`SWEEP_TRAINING`, plain 1F1B) and :data:`CALCULON` (what
Calculon, which the paper's model follows, does: pipeline sends on the critical path, its bubble
and DP overlap, and its search over interleavings, micro-batch sizes, recomputation and optimizer
sharding), which docs/reproductions.md compares on Figs. 8-10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from railx.workload.catalogue import load_model
from railx.workload.railonly.platform import DGX_GH200, EFFICIENCY, platform_system
from railx.workload.search import Candidate, best_parallelism

__all__ = [
    "CALCULON",
    "FIG8_BATCH",
    "FIG8_GPUS",
    "FIG9_HB_TBPS",
    "FIG9_NIC_GBPS",
    "FIG9_SIZES",
    "FIG10_BATCHES",
    "FIG10_SIZES",
    "HB_SIZES",
    "PAPER_FIG8_CUT",
    "PAPER_FIG8_OVER_IDEAL",
    "PAPER_FIG9_HB_CUT",
    "PAPER_FIG9_NIC_CUT",
    "PAPER_FIG10_RELATIVE",
    "RAILX",
    "SWEEP_TRAINING",
    "Choices",
    "Point",
    "bandwidth_cuts",
    "batch_sweep",
    "bandwidth_sweep",
    "hb_size_sweep",
    "relative_to_ideal",
]

SWEEP_TRAINING = {
    "micro_batch": 1,
    "sequence": 2048,
    "dtype_bytes": 2,
    "recompute": "selective",
    "overlap": ["D", "P"],
}
"""Megatron-LM's setup as Korthikanti et al. recommend it (selective recomputation, micro-batch 1,
sequence 2048), with the data-parallel all-reduce hidden under the last backward and the
pipeline sends under the other micro-batches (eq. 10's overlap classes)."""


@dataclass(frozen=True)
class Choices:
    """The modelling choices of a sweep: its `[training]` table, whether the search also tries
    every pipeline interleaving (and every micro-batch size and recomputation mode), and whether its memory rule shards
    the optimizer state and gradients over D (:func:`best_parallelism`'s `search_interleave`,
    `search_micro_batch`, `search_recompute` and `optimizer_sharding`)."""

    name: str
    training: Mapping[str, Any]
    search_interleave: bool
    optimizer_sharding: bool = False
    search_micro_batch: bool = False
    search_recompute: bool = False


RAILX = Choices("railx", SWEEP_TRAINING, search_interleave=False)
"""railx's default: :data:`SWEEP_TRAINING`, plain 1F1B (one model chunk per stage)."""
CALCULON = Choices(
    "calculon",
    {**SWEEP_TRAINING, "overlap": ["D"], "dp_overlap": "layer", "bubble_comm": True},
    search_interleave=True,
    optimizer_sharding=True,
    search_micro_batch=True,
    search_recompute=True,
)
"""Calculon's (Isaev et al., SC'23) execution model where it differs from railx's default, each a
choice of the same iteration model (`calculon/llm/llm.py`, `_compute_batch_stats`): the pipeline
sends are on the critical path (all of their time counts as exposed); the bubble's slots carry
each micro-batch's exposed communication (its bubble is P - 1 chunk times, a chunk's time
including the exposed TP and PP time, plus the missing-micro-batch slots of an interleaved
schedule); per-layer DP all-reduces (one layer's always exposed, each chunk's others hidden under
its own window). Its search (`calculon/llm/optimal_execution.py`) also enumerates every pipeline
interleaving, micro-batch size and recomputation mode, and tries optimizer sharding, which
with railx's collectives always fits at least as much at the same time, so it is simply on."""

HB_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""K of Fig. 8 (the ideal K = N is added to every sweep)."""
FIG8_GPUS: tuple[int, ...] = (16384, 32768, 65536)
FIG8_BATCH = {"gpt-1t": 4096, "gpt-146b": 1024}
"""Global batch of each model in Fig. 8 (the paper's §V-B)."""
PAPER_FIG8_OVER_IDEAL = {"gpt-1t": 0.009, "gpt-146b": 0.041}
"""Fig. 8's printed slow-down of K = 256 against the ideal (t(256) / t(N) - 1), per model."""
PAPER_FIG8_CUT = {("gpt-146b", 1, 8): 0.433, ("gpt-146b", 8, 256): 0.306}
"""Fig. 8's printed time cuts (model, K from, K to): 1 - t(to) / t(from)."""
FIG9_SIZES: tuple[int, ...] = (8, 256)
FIG9_HB_TBPS: tuple[float, ...] = (2.4, 4.8, 7.2, 9.6)
FIG9_NIC_GBPS: tuple[float, ...] = (100, 200, 300, 400)
"""Fig. 9's K, HB bandwidths (Tb/s per GPU) and NIC bandwidths (Gb/s per GPU)."""
PAPER_FIG9_NIC_CUT = {8: 0.359, 256: 0.080}
"""Fig. 9's printed time cut of the NIC going from 100 to 400 Gb/s, per K: 1 - t(400) / t(100)."""
PAPER_FIG9_HB_CUT = {8: 0.080, 256: 0.133}
"""Fig. 9's printed time cut of the HB domain going from 2.4 to 9.6 Tb/s, per K."""
FIG10_SIZES: tuple[int, ...] = (8, 16, 32, 64, 128, 256)
FIG10_BATCHES: tuple[int, ...] = (256, 512, 1024, 2048, 4096)
"""Fig. 10's K (the ideal K = N is added) and global batches."""
PAPER_FIG10_RELATIVE = {256: (0.95, 0.99), 8: (0.65, 0.85)}
"""Fig. 10's printed relative performance to the ideal (t(N) / t(K)) per K, at the smallest and
the largest batch (256 and 4096)."""


@dataclass(frozen=True)
class Point:
    """One point of a sweep: the system's K and bandwidths, the batch, and the best parallelisation."""

    model: str
    gpus: int
    size: int
    hb_tbps: float
    nic_gbps: float
    global_batch: int
    best: Candidate

    @property
    def time_s(self) -> float:
        """Iteration time of the best parallelisation."""
        return self.best.time_s


def point(
    model: str,
    gpus: int,
    size: int,
    global_batch: int,
    hb_tbps: float = DGX_GH200.hb_tbps,
    nic_gbps: float = DGX_GH200.nic_gbps,
    efficiency: float = EFFICIENCY,
    choices: Choices = RAILX,
) -> Point:
    """The best iteration time of `model` on `gpus` H100 in HB domains of `size`."""
    system = platform_system(
        DGX_GH200,
        gpus,
        size,
        hb_tbps=hb_tbps,
        nic_gbps=nic_gbps,
        efficiency=efficiency,
        training=dict(choices.training),
    )
    best = best_parallelism(
        load_model(model),
        system,
        global_batch,
        search_interleave=choices.search_interleave,
        optimizer_sharding=choices.optimizer_sharding,
        search_micro_batch=choices.search_micro_batch,
        search_recompute=choices.search_recompute,
    )
    return Point(model, gpus, size, hb_tbps, nic_gbps, global_batch, best)


def hb_size_sweep(
    models: Sequence[str] = ("gpt-1t", "gpt-146b"),
    gpus: Sequence[int] = FIG8_GPUS,
    sizes: Sequence[int] = HB_SIZES,
    choices: Choices = RAILX,
) -> list[Point]:
    """Fig. 8: every model, cluster and K (and K = N), at the model's batch of the paper."""
    return [point(m, n, k, FIG8_BATCH[m], choices=choices) for m in models for n in gpus for k in (*sizes, n)]


def bandwidth_sweep(
    gpus: int = 32768,
    sizes: Sequence[int] = FIG9_SIZES,
    hb_tbps: Sequence[float] = FIG9_HB_TBPS,
    nic_gbps: Sequence[float] = FIG9_NIC_GBPS,
    model: str = "gpt-1t",
    choices: Choices = RAILX,
) -> list[Point]:
    """Fig. 9: GPT-1T (batch 4096) for every K, HB bandwidth and NIC bandwidth."""
    batch = FIG8_BATCH[model]
    return [point(model, gpus, k, batch, hb, nic, choices=choices) for k in sizes for hb in hb_tbps for nic in nic_gbps]


def batch_sweep(
    gpus: int = 32768,
    sizes: Sequence[int] = FIG10_SIZES,
    batches: Sequence[int] = FIG10_BATCHES,
    model: str = "gpt-1t",
    choices: Choices = RAILX,
) -> list[Point]:
    """Fig. 10: GPT-1T on 32,768 GPUs for every K (and K = N) and global batch."""
    return [point(model, gpus, k, b, choices=choices) for k in (*sizes, gpus) for b in batches]


def bandwidth_cuts(points: Sequence[Point]) -> dict[tuple[str, int], float]:
    """Fig. 9's four numbers from :func:`bandwidth_sweep`'s points: for ("nic", K) the time cut of
    the lowest to the highest NIC bandwidth, for ("hb", K) of the lowest to the highest HB
    bandwidth, each the mean over the other bandwidth (the paper gives one number per K and
    bandwidth, for curves that differ by the other)."""
    t = {(p.size, p.hb_tbps, p.nic_gbps): p.time_s for p in points}
    sizes = sorted({p.size for p in points})
    hbs = sorted({p.hb_tbps for p in points})
    nics = sorted({p.nic_gbps for p in points})
    cuts: dict[tuple[str, int], float] = {}
    for k in sizes:
        cuts[("nic", k)] = sum(1 - t[(k, hb, nics[-1])] / t[(k, hb, nics[0])] for hb in hbs) / len(hbs)
        cuts[("hb", k)] = sum(1 - t[(k, hbs[-1], n)] / t[(k, hbs[0], n)] for n in nics) / len(nics)
    return cuts


def relative_to_ideal(points: Sequence[Point]) -> dict[tuple[int, int], float]:
    """Fig. 10's relative performance from :func:`batch_sweep`'s points: per (K, batch), the
    ideal's time (K = N) over K's."""
    t = {(p.size, p.global_batch): p.time_s for p in points}
    ideal = {b: time for (k, b), time in t.items() if k == points[0].gpus}
    return {(k, b): ideal[b] / time for (k, b), time in t.items()}
