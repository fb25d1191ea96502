"""Iteration time (RailX paper eq. 10) with explicit overlap classes.

T_iter = T_comp + sum over overlap classes c of max(T*_comp,c, T*_comm,c) + T_comm

- Compute: one micro-batch takes t_f forward and t_b backward (with any activation recomputation,
  `[training] recompute`) on a stage; a 1F1B pipeline runs N_B + (P - 1)/v micro-batch slots (the
  (P - 1)/v are the bubble; v = `[training] interleave`, model chunks per stage, 1 for plain 1F1B;
  an interleaved schedule with N_B not a multiple of P idles (v - 1)(P - N_B mod P)/v slots more).
- Class "D" (data-parallel gradient all-reduces) can hide under the backward of the last
  micro-batch (window t_b); class "P" (pipeline sends) under the compute of the other N_B - 1
  micro-batches. The windows are disjoint; what is not a window of an overlapped class is T_comp.
- Everything else (T, C, E, and D or P when not overlapped) is exposed: T_comm.
- Two choices of the critical path (`[training]`, both off by default; Calculon's when on):
  `dp_overlap = "layer"` keeps one layer's share (P/L) of class D's all-reduces exposed, as
  per-layer gradient buckets leave the last-computed layer's all-reduce nothing to hide under,
  and shrinks D's window to the backward of the stage's other layers; `bubble_comm = true` lets
  the bubble slots carry a micro-batch's exposed communication too (a pipeline slot is
  the stage's compute plus its exposed TP, CP, EP and PP time), so that communication counts
  (N_B + bubble slots)/N_B times.

Communication times come from the analytic collective models (railx.collectives.analytic) on the
bandwidth each dimension gets: from a RailX plant's port mapping, or measured on any system's
routed network (:meth:`WorkloadSystem.links`). The DP all-reduces are hierarchical, their levels in the order the
system's `[training] dp_all_reduce_order` names (De first by default: see :func:`all_reduce_levels`). Each collective is split into terms that depend on one dimension's
bandwidth only (a multi-dimension all-reduce has one term per level), which is what lets the
allocators evaluate many bandwidths at once or linearise the model exactly. A dimension whose
group spans several HB domains (an `[hb_domains]` system, :class:`DimLink` `domain_ranks`) adds a
level inside the domains before the one across them to its all-reduces and reduce-scatters.

With a chip's peak, :meth:`IterationModel.hfu` and :meth:`IterationModel.mfu` give the hardware and
model FLOPs utilisation of an iteration (Korthikanti et al.'s definitions: FLOPs with and without
recomputation over time x GPUs x peak).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from railx.collectives.analytic import (
    ArrayLike,
    HierarchyLevel,
    direct_all_to_all_time_s,
    direct_reduce_scatter_time_s,
    hierarchical_all_reduce_stages_s,
    point_to_point_time_s,
    ring_reduce_scatter_time_s,
)
from railx.workload.catalogue import ModelSpec
from railx.workload.system import (
    ChipConfig,
    DimLink,
    DpAllReduceOrder,
    OverlapClass,
    TrainingConfig,
    WorkloadSystemLike,
    as_workload_system,
)
from railx.workload.traffic import Collective, Dim, Parallelism, compute_flops, traffic

if TYPE_CHECKING:
    from railx.progress import ProgressCallback

__all__ = ["CommTerm", "IterationModel", "IterationTime", "all_reduce_levels"]


@dataclass(frozen=True)
class _Level:
    """One level of a hierarchical collective: `p` ranks of dimension `dim`, inside the HB domains
    (`domain`) or across them (or the whole dimension when it is not split)."""

    dim: Dim
    p: int
    domain: bool


@dataclass(frozen=True)
class CommTerm:
    """Part of one collective's per-iteration time that depends on one dimension's bandwidth:
    `count` occurrences of `stage(bw_bytes_per_s)` seconds. `overlap` names the class it may hide
    in ("D" or "P"), or is None when exposed."""

    collective: str
    parallelism: str
    dim: Dim
    overlap: OverlapClass | None
    count: float
    stage: Callable[[ArrayLike], ArrayLike]

    def time_s(self, bw_bytes_per_s: ArrayLike) -> ArrayLike:
        """Seconds per iteration at this bandwidth."""
        return self.count * self.stage(bw_bytes_per_s)


@dataclass(frozen=True)
class IterationTime:
    """Eq. 10 evaluated: totals in seconds (arrays when bandwidths were arrays)."""

    total_s: ArrayLike
    compute_exposed_s: float
    windows_s: dict[OverlapClass, float]
    comm_hidden_class_s: dict[OverlapClass, ArrayLike]
    comm_exposed_s: ArrayLike
    by_parallelism_s: dict[str, ArrayLike]
    by_collective_s: dict[str, ArrayLike]


class IterationModel:
    """A model, a parallelism and a system, turned into compute windows and communication terms.

    `system` is a :class:`WorkloadSystem` (or a workload-system file), or any system the other
    analyses take (a `railx.System`, a realized `railx.Network`, a preset name, a system file)
    with the `chip` it runs on and optionally its `training` and `routing`
    (:func:`railx.workload.system.as_workload_system`). `progress(done, total, unit)` hears the
    lines measured on a routed system (railx.progress)."""

    def __init__(
        self,
        model: ModelSpec,
        par: Parallelism,
        system: WorkloadSystemLike,
        *,
        chip: ChipConfig | Mapping[str, Any] | None = None,
        training: TrainingConfig | Mapping[str, Any] | None = None,
        routing: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        system = as_workload_system(system, chip, training, routing)
        system.check(par)
        self.model, self.par, self.system = model, par, system
        self.collectives: list[Collective] = traffic(model, par)
        flops = compute_flops(model, par, system.training.recompute)
        rate = system.chip.flops_per_s
        self.forward_s = flops.forward / rate
        self.backward_s = flops.backward / rate
        self.flops = flops
        self.overlap = tuple(system.training.overlap)
        self.links: dict[Dim, DimLink] = system.links(par, progress)
        self.terms: list[CommTerm] = [t for c in self.collectives for t in self._terms(c)]

    # ---- compute ---------------------------------------------------------------------------
    @property
    def bubble_slots(self) -> float:
        """Micro-batch slots of the pipeline bubble: (P - 1)/v, plus, for an interleaved schedule
        whose N_B is not a multiple of P, (v - 1)(P - N_B mod P)/v more, as each of the v - 1
        earlier model chunks waits for the micro-batches missing from its last round of P
        (Calculon's "missing microbatches" bubble, `calculon/llm/llm.py`, `_compute_batch_stats`)."""
        P, v, n = self.par.P, self.par.interleave, self.par.micro_batches
        shortage = P - n % P if v > 1 and n % P else 0
        return (P - 1 + (v - 1) * shortage) / v

    @property
    def compute_total_s(self) -> float:
        """All compute of an iteration including the pipeline bubble: (N_B + bubble slots)(t_f + t_b)."""
        return (self.par.micro_batches + self.bubble_slots) * (self.forward_s + self.backward_s)

    # ---- FLOPs utilisation -----------------------------------------------------------------
    @property
    def global_batch(self) -> int:
        """Sequences per iteration: micro-batch x N_B x D."""
        return self.par.micro_batch * self.par.micro_batches * self.par.D

    def iteration_flops(self) -> tuple[float, float]:
        """(model, hardware) FLOPs of one iteration on all GPUs: the global batch times one
        sequence through the whole model, without and with the recomputation."""
        whole = Parallelism(sequence=self.par.sequence)
        seq = compute_flops(self.model, whole, self.system.training.recompute)
        return seq.model * self.global_batch, seq.hardware * self.global_batch

    def hfu(self, time_s: float) -> float:
        """Hardware FLOPs utilisation of an iteration taking `time_s`: hardware FLOPs (with the
        recomputation) / (time x GPUs x peak). Needs `[chip] peak_tflops`."""
        return self.iteration_flops()[1] / (time_s * self.par.ranks * self.system.chip.peak_flops_per_s)

    def mfu(self, time_s: float) -> float:
        """Model FLOPs utilisation: as :meth:`hfu` without the recomputation."""
        return self.iteration_flops()[0] / (time_s * self.par.ranks * self.system.chip.peak_flops_per_s)

    @property
    def layers_per_stage(self) -> float:
        """L/P: the layers of one pipeline stage."""
        return self.model.values()["layers"] / self.par.P

    def sub_windows_s(self, cls: OverlapClass) -> list[tuple[float, float]]:
        """(share of the class's hideable communication, compute window it hides under) pairs;
        each share is exposed only beyond its own window. One pair but for Calculon's per-layer
        DP overlap of an interleaved stage (`dp_overlap = "layer"`, v > 1), whose v chunks finish
        their backward at different times: the v - 1 earlier chunks' all-reduces ((v - 1)/v of
        the stage's) hide under the backward of P micro-batches through one chunk each
        (P t_b (v - 1)/v), the last chunk's under its other layers' backward of one micro-batch
        (`calculon/llm/llm.py`, `_compute_batch_stats`, its DP overlap)."""
        if cls == "P":
            return [(1.0, (self.par.micro_batches - 1) * (self.forward_s + self.backward_s))]
        if self.system.training.dp_overlap == "stage":
            return [(1.0, self.backward_s)]
        n, v = self.layers_per_stage, self.par.interleave
        last = (n / v - 1) / n  # the last chunk's layers but the exposed one, as a share of the stage
        hideable = 1 - 1 / n
        if v == 1:
            return [(1.0, self.backward_s * hideable)] if hideable > 0 else []
        earlier = (v - 1) / v
        return [(earlier / hideable, self.par.P * self.backward_s * earlier), (last / hideable, self.backward_s * last)]

    def windows_s(self) -> dict[OverlapClass, float]:
        """Compute each overlapped class can hide under (see module docstring and :meth:`sub_windows_s`)."""
        return {c: sum(w for _, w in self.sub_windows_s(c)) for c in self.overlap}

    # ---- communication ---------------------------------------------------------------------
    def _shares(self, coll: Collective) -> list[tuple[OverlapClass | None, float]]:
        """Where a collective's time goes: (overlap class or None for exposed, weight) pairs whose
        weights sum to 1, or to more when the bubble repeats exposed communication (module docstring)."""
        training = self.system.training
        cls: OverlapClass | None = coll.parallelism if coll.parallelism in self.overlap else None
        if coll.parallelism == "D":
            if cls == "D" and training.dp_overlap == "layer":
                tail = 1 / self.layers_per_stage
                return [(None, tail), ("D", 1 - tail)] if tail < 1 else [(None, 1.0)]
            return [(cls, 1.0)]
        if cls is None and training.bubble_comm:  # per micro-batch traffic, also in the bubble's slots
            return [(None, 1 + self.bubble_slots / self.par.micro_batches)]
        return [(cls, 1.0)]

    def _terms(self, coll: Collective) -> list[CommTerm]:
        return [
            replace(term, overlap=cls, count=term.count * weight)
            for term in self._collective_terms(coll)
            for cls, weight in self._shares(coll)
        ]

    def _collective_terms(self, coll: Collective) -> list[CommTerm]:
        """The collective's terms, one per dimension (level) whose bandwidth it depends on, all
        with overlap None (:meth:`_terms` places them)."""
        dims = [d for d in coll.dims if self.par.size(d) > 1]
        if not dims:
            return []
        V = coll.volume_bytes
        if coll.pattern == "all-reduce":
            order = all_reduce_levels(dims, self.system.training.dp_all_reduce_order)
            levels = [level for d in order for level in self._levels(d)]
            return [
                CommTerm(
                    coll.name, coll.parallelism, lv.dim, None, coll.frequency, partial(self._level_stage, V, levels, i)
                )
                for i, lv in enumerate(levels)
            ]
        (d,) = dims
        p, link = self.par.size(d), self.links[d]
        if coll.pattern == "RS+AG" and link.domain_ranks > 1:  # hierarchical: one of the 2 halves of an all-reduce
            levels = self._levels(d)
            return [
                CommTerm(
                    coll.name, coll.parallelism, d, None, coll.frequency / 2, partial(self._level_stage, V, levels, i)
                )
                for i in range(len(levels))
            ]
        if coll.pattern == "RS+AG":
            algo = ring_reduce_scatter_time_s if link.kind == "ring" else direct_reduce_scatter_time_s
            stage = partial(_rs, algo, p, V, link.alpha_s)
        elif coll.pattern == "all-to-all":
            stage = partial(_rs, direct_all_to_all_time_s, p, V, link.alpha_s)
        elif coll.parallelism == "C":  # ring attention: KV blocks travel once around the C ranks
            stage = partial(_rs, ring_reduce_scatter_time_s, p, V, link.alpha_s)
        else:
            stage = partial(_p2p, V, link.alpha_s)
        return [CommTerm(coll.name, coll.parallelism, d, None, coll.frequency, stage)]

    def _levels(self, dim: Dim) -> list[_Level]:
        """The dimension as levels of a hierarchical collective: inside the HB domains then across
        them when its link says it spans several domains, else the whole dimension."""
        p, inside = self.par.size(dim), self.links[dim].domain_ranks
        if 1 < inside < p:
            return [_Level(dim, inside, True), _Level(dim, p // inside, False)]
        return [_Level(dim, p, False)]

    def _level_stage(self, volume_bytes: float, levels: list[_Level], index: int, bw: ArrayLike) -> ArrayLike:
        """Level `index`'s all-reduce stage, its dimension at `bw` (a level inside HB domains keeps
        the domain's bandwidth: only the dimension's own link is a variable)."""
        hierarchy = []
        for i, lv in enumerate(levels):
            link = self.links[lv.dim]
            if lv.domain:
                hierarchy.append(HierarchyLevel(lv.p, link.domain_bw_bytes_per_s, link.domain_alpha_s, "direct"))
            else:
                rate = bw if i == index else link.bw_bytes_per_s
                hierarchy.append(HierarchyLevel(lv.p, rate, link.alpha_s, "ring" if link.kind == "ring" else "direct"))
        return hierarchical_all_reduce_stages_s(volume_bytes, hierarchy)[index]

    def evaluate(self, bw_bytes_per_s: Mapping[Dim, ArrayLike] | None = None) -> IterationTime:
        """Eq. 10 with each dimension's bandwidth from the mapping, or from `bw_bytes_per_s`
        (per dimension; NumPy arrays evaluate many allocations at once)."""
        bw: dict[Dim, ArrayLike] = {d: link.bw_bytes_per_s for d, link in self.links.items()}
        bw.update(bw_bytes_per_s or {})
        zero: ArrayLike = 0.0 * sum((np.asarray(b, dtype=float) for b in bw.values()), 0.0)
        hidden = {c: zero for c in self.overlap}
        exposed = zero
        by_par: dict[str, ArrayLike] = {}
        by_coll: dict[str, ArrayLike] = {}
        for term in self.terms:
            t = term.time_s(bw[term.dim])
            by_par[term.parallelism] = by_par.get(term.parallelism, zero) + t
            by_coll[term.collective] = by_coll.get(term.collective, zero) + t
            if term.overlap is None:
                exposed = exposed + t
            else:
                hidden[term.overlap] = hidden[term.overlap] + t
        windows = self.windows_s()
        compute_exposed = self.compute_total_s - sum(windows.values())
        overlapped = (np.maximum(w, share * hidden[c]) for c in self.overlap for share, w in self.sub_windows_s(c))
        total = compute_exposed + exposed + sum(overlapped, zero)
        return IterationTime(total, compute_exposed, windows, hidden, exposed, by_par, by_coll)


def all_reduce_levels(dims: Sequence[Dim], order: DpAllReduceOrder) -> list[Dim]:
    """The levels of a hierarchical all-reduce over `dims` (given in [T, C, E, De, P] order) in the
    order they reduce-scatter: rank order for "C-first", reversed (De, E, C) for "De-first". The
    first level carries the whole volume, each later one what the levels before it left."""
    return list(dims) if order == "C-first" else list(reversed(dims))


def _rs(algo: Callable[..., ArrayLike], p: int, volume_bytes: float, alpha_s: float, bw: ArrayLike) -> ArrayLike:
    return algo(p, volume_bytes, bw, alpha_s)


def _p2p(volume_bytes: float, alpha_s: float, bw: ArrayLike) -> ArrayLike:
    return point_to_point_time_s(volume_bytes, bw, alpha_s)
