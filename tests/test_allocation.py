"""RailX bandwidth allocation: static split (eq. 11) equals brute force; MILP equals exhaustive;
dynamic C/E switching (§5.2); the Fig. 16 trend; `railx allocate-bw`."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_railx
from railx.allocation.dynamic import dynamic_split
from railx.allocation.static import static_split, time_for_ports
from railx.allocation.sweep import FIG16_SEQUENCES, fig16_table
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import load_workload_system

LISTING1 = EXAMPLES / "workloads" / "listing1.toml"


def model_on(n: int, overlap: list[str], sequence: int = 8192, model: str = "llama3-70b-moe8") -> IterationModel:
    system = load_workload_system(LISTING1).with_ports({"C": 1, "E": 1, "De": 1, "P": 1})
    system = system.model_copy(
        update={
            "system": system.system.model_copy(update={"n": n}),
            "training": system.training.model_copy(update={"overlap": overlap, "sequence": sequence}),
        }
    )
    return IterationModel(load_model(model), system.parallelism(T=4, C=2, E=2, D=4, P=2), system)


def brute_force(it: IterationModel) -> float:
    n = it.system.system.n
    best = float("inf")
    for c, e, de, p in itertools.product(range(1, n + 1), repeat=4):
        if c + e == n and de + p == n:
            best = min(best, time_for_ports(it, {"C": c, "E": e, "De": de, "P": p}))
    return best


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 9),
    overlap=st.sampled_from([[], ["D"], ["P"], ["D", "P"]]),
    sequence=st.sampled_from([2048, 8192, 32768]),
)
def test_static_split_is_the_brute_force_optimum(n: int, overlap: list[str], sequence: int) -> None:
    it = model_on(n, overlap, sequence)
    exhaustive, milp = static_split(it, "exhaustive"), static_split(it, "milp")
    truth = brute_force(it)
    assert exhaustive.time_s == pytest.approx(truth, rel=1e-12)
    assert milp.time_s == pytest.approx(truth, rel=1e-9)
    assert exhaustive.candidates == (n - 1) ** 2
    for split in (exhaustive, milp):
        assert split.ports["C"] + split.ports["E"] == n and split.ports["De"] + split.ports["P"] == n
        assert min(split.ports.values()) >= 1
        assert time_for_ports(it, split.ports) == pytest.approx(split.time_s)


def test_milp_handles_large_port_counts() -> None:
    it = model_on(150, ["D"])  # 149^2 = 22,201 allocations: exhaustive still fine, compare both
    assert static_split(it, "milp").time_s == pytest.approx(static_split(it, "exhaustive").time_s, rel=1e-9)
    big = model_on(700, ["D"])  # 699^2 allocations: beyond the exhaustive limit
    assert static_split(big).method == "milp"


def test_dynamic_switching() -> None:
    it = model_on(4, ["D"])
    free = dynamic_split(it, 0.0)
    assert free.shared_ports == 4 and free.exposed_reconfiguration_s == 0.0
    assert free.dynamic_time_s <= free.static.time_s and free.pays
    assert free.reconfigurations == 4 * 8 * 80 / 2
    delays = [0.0, 1e-4, 1e-3, 1e-2]
    times = [dynamic_split(it, d).dynamic_time_s for d in delays]
    assert times == sorted(times)
    edge = free.break_even_delay_s
    assert edge is not None and edge > 0
    assert dynamic_split(it, edge).dynamic_time_s == pytest.approx(free.static.time_s, rel=1e-9)
    assert not dynamic_split(it, edge * 1.5).pays and dynamic_split(it, edge * 0.5).pays


def test_fig16_trend() -> None:
    """Paper Fig. 16: 10 ports split between DP and CP; more CP as the sequence grows, and more
    again once DP overlaps with compute."""
    rows = fig16_table()
    assert len(rows) == 2 * len(FIG16_SEQUENCES) == 12
    for overlap in ((), ("D",)):
        best = [r.best_c_ports for r in rows if r.overlap == overlap]
        assert best == sorted(best)
    for plain, hidden in zip(rows[:6], rows[6:]):
        assert len(plain.times_s) == 11 and plain.times_s[0] == plain.times_s[10] == float("inf")
        assert hidden.best_c_ports >= plain.best_c_ports
        assert min(hidden.times_s) <= min(plain.times_s)
    assert rows[-1].best_c_ports > rows[0].best_c_ports


def test_allocate_bw_cli() -> None:
    args = ("allocate-bw", "llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=4,P=2", "--system", LISTING1)
    res = run_railx(*args, "--reconfig-ms", "0.5", "--json")
    assert res.rc == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["static"]["time_s"] <= report["mapped_time_s"]
    assert report["dynamic"]["reconfiguration_delay_s"] == pytest.approx(5e-4)
    assert run_railx(*args).rc == 0
    bad = run_railx(*args, "--method", "simplex")
    assert bad.rc == 2 and bad.stderr.startswith("error: --method")
