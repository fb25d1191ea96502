"""Sweeps of a two-way port split, and the reproduction of the RailX paper's Fig. 16 (10 ports split
between data and context parallelism, six sequence lengths, with and without DP overlap)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from railx.allocation.static import bandwidths_for_ports, time_for_ports
from railx.config import ConfigError
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import AxisMapping, DpAllReduceOrder, WorkloadSystem, load_workload_system
from railx.workload.traffic import Dim

__all__ = ["FIG16_SEQUENCES", "Fig16Row", "fig16_table", "split_comm_curve", "split_curve"]

FIG16_SYSTEM = Path(__file__).with_name("fig16.toml")
FIG16_SEQUENCES: tuple[int, ...] = (8192, 16384, 32768, 65536, 98304, 131072)
"""Llama 3 405B's context grows from 8K to 128K tokens in six stages (Dubey et al. 2024, §3.4.2);
the intermediate lengths are ours."""


def _split_allocations(it: IterationModel, first: Dim, second: Dim) -> list[dict[Dim, np.ndarray | int]]:
    """Every split of the ports the two dimensions share on their axis (the other dimensions keep
    their mapped ports): entry i gives `first` i ports and `second` the rest."""
    a, b = it.system.mapping.get(first), it.system.mapping.get(second)
    if not (isinstance(a, AxisMapping) and isinstance(b, AxisMapping) and a.axis == b.axis):
        raise ConfigError(f'mapping: {first} and {second} must share one axis to split it; e.g. both axis = "x"')
    n = it.system.axis_ports()[a.axis] - sum(
        w.ports
        for d, w in it.system.mapping.items()
        if isinstance(w, AxisMapping) and w.axis == a.axis and d not in (first, second)
    )
    base: dict[Dim, np.ndarray | int] = {d: w.ports for d, w in it.system.mapping.items() if isinstance(w, AxisMapping)}
    return [{**base, first: i, second: n - i} for i in range(n + 1)]


def split_curve(it: IterationModel, first: Dim, second: Dim) -> list[float]:
    """Iteration time for every split of the axis the two dimensions share: entry i gives `first`
    i ports and `second` the rest (infinite when a communicating dimension gets none)."""
    return [float(time_for_ports(it, ports)) for ports in _split_allocations(it, first, second)]


def split_comm_curve(it: IterationModel, first: Dim, second: Dim) -> list[float]:
    """Communication time the split decides, for every split as in :func:`split_curve`: the
    iteration time less all compute and less the exposed traffic of the other dimensions, i.e. the
    exposed traffic on the two dimensions plus what each overlapped class does not hide. It differs
    from the iteration time by a constant, so both have the same optimum."""
    others = [t for t in it.terms if t.overlap is None and t.dim not in (first, second)]
    out = []
    for ports in _split_allocations(it, first, second):
        bw = bandwidths_for_ports(it, ports)
        fixed = sum(float(t.time_s(bw.get(t.dim, it.links[t.dim].bw_bytes_per_s))) for t in others)
        out.append(float(time_for_ports(it, ports)) - it.compute_total_s - fixed)
    return out


@dataclass(frozen=True)
class Fig16Row:
    """One sequence length: iteration time and C + DP communication time (:func:`split_comm_curve`)
    per C port count (0..n), and the best C port count."""

    sequence: int
    overlap: tuple[str, ...]
    dp_all_reduce_order: DpAllReduceOrder
    times_s: list[float]
    comm_s: list[float]
    best_c_ports: int


def _fig16_model(
    system: WorkloadSystem, sequence: int, overlap: tuple[str, ...], dp_order: DpAllReduceOrder
) -> IterationModel:
    training = system.training.model_copy(
        update={"sequence": sequence, "overlap": list(overlap), "dp_all_reduce_order": dp_order}
    )
    system = system.model_copy(update={"training": training})
    return IterationModel(load_model("llama3-405b"), system.parallelism(T=16, C=4, D=4, P=6), system)


def fig16_table(
    sequences: tuple[int, ...] = FIG16_SEQUENCES, dp_order: DpAllReduceOrder = "De-first"
) -> list[Fig16Row]:
    """The Fig. 16 experiment (allocation/fig16.toml): per sequence length and overlap setting
    (none, DP overlapped), the time of each of the 11 C/DP splits and the optimum, with the DP
    all-reduces' levels in `dp_order` (the paper's De first by default)."""
    system = load_workload_system(FIG16_SYSTEM)
    rows = []
    for overlap in ((), ("D",)):
        for seq in sequences:
            it = _fig16_model(system, seq, overlap, dp_order)
            times = split_curve(it, "C", "De")
            best = min(range(len(times)), key=times.__getitem__)
            rows.append(Fig16Row(seq, overlap, dp_order, times, split_comm_curve(it, "C", "De"), best))
    return rows
