"""Sweeps of a two-way port split, and the reproduction of the RailX paper's Fig. 16 (10 ports split
between data and context parallelism, six sequence lengths, with and without DP overlap)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from railx.allocation.static import time_for_ports
from railx.config import ConfigError
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import AxisMapping, WorkloadSystem, load_workload_system

__all__ = ["FIG16_SEQUENCES", "Fig16Row", "fig16_table", "split_curve"]

FIG16_SYSTEM = Path(__file__).with_name("fig16.toml")
FIG16_SEQUENCES: tuple[int, ...] = (8192, 16384, 32768, 65536, 98304, 131072)
"""Llama 3 405B's context grows from 8K to 128K tokens in six stages (Dubey et al. 2024, §3.4.2);
the intermediate lengths are ours."""


def split_curve(it: IterationModel, first: str, second: str) -> list[float]:
    """Iteration time for every split of the axis the two dimensions share: entry i gives `first`
    i ports and `second` the rest (infinite when a communicating dimension gets none)."""
    a, b = it.system.mapping.get(first), it.system.mapping.get(second)
    if not (isinstance(a, AxisMapping) and isinstance(b, AxisMapping) and a.axis == b.axis):
        raise ConfigError(f'mapping: {first} and {second} must share one axis to split it; e.g. both axis = "x"')
    n = it.system.axis_ports()[a.axis] - sum(
        w.ports
        for d, w in it.system.mapping.items()
        if isinstance(w, AxisMapping) and w.axis == a.axis and d not in (first, second)
    )
    base = {d: w.ports for d, w in it.system.mapping.items() if isinstance(w, AxisMapping)}
    return [float(time_for_ports(it, {**base, first: i, second: n - i})) for i in range(n + 1)]


@dataclass(frozen=True)
class Fig16Row:
    """One sequence length: iteration time per C port count (0..n), and the best C port count."""

    sequence: int
    overlap: tuple[str, ...]
    times_s: list[float]
    best_c_ports: int


def _fig16_model(system: WorkloadSystem, sequence: int, overlap: tuple[str, ...]) -> IterationModel:
    training = system.training.model_copy(update={"sequence": sequence, "overlap": list(overlap)})
    system = system.model_copy(update={"training": training})
    return IterationModel(load_model("llama3-405b"), system.parallelism(T=16, C=4, D=4, P=6), system)


def fig16_table(sequences: tuple[int, ...] = FIG16_SEQUENCES) -> list[Fig16Row]:
    """The Fig. 16 experiment (allocation/fig16.toml): per sequence length and overlap setting
    (none, DP overlapped), the time of each of the 11 C/DP splits and the optimum."""
    system = load_workload_system(FIG16_SYSTEM)
    rows = []
    for overlap in ((), ("D",)):
        for seq in sequences:
            times = split_curve(_fig16_model(system, seq, overlap), "C", "De")
            rows.append(Fig16Row(seq, overlap, times, min(range(len(times)), key=times.__getitem__)))
    return rows
