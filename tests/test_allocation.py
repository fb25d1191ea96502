"""RailX bandwidth allocation: static split (eq. 11) equals brute force; MILP equals exhaustive;
dynamic C/E switching (§5.2); the Fig. 16 trend; `railx allocate-bw`."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_railx
from railx.allocation.dynamic import dynamic_split
from railx.allocation.static import static_split, time_for_ports
from railx.allocation.sweep import FIG16_SEQUENCES, fig16_table
from railx.config import ConfigError
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
    """Paper Fig. 16 (§6.5): 10 ports split between DP and CP; more CP as the sequence grows, and more
    again once DP overlaps with compute. With the DP all-reduces reduce-scattering over De first (the
    paper's order) the best C port counts are 4,4,4,5,5,6 without overlap and 4,7,8,9,9,9 with."""
    rows = fig16_table()
    assert len(rows) == 2 * len(FIG16_SEQUENCES) == 12
    assert [r.best_c_ports for r in rows[:6]] == [4, 4, 4, 5, 5, 6]
    assert [r.best_c_ports for r in rows[6:]] == [4, 7, 8, 9, 9, 9]
    for plain, hidden in zip(rows[:6], rows[6:]):
        assert plain.overlap == () and hidden.overlap == ("D",) and plain.dp_all_reduce_order == "De-first"
        assert len(plain.times_s) == 11 and plain.times_s[0] == plain.times_s[10] == float("inf")
        assert hidden.best_c_ports >= plain.best_c_ports
        assert min(hidden.times_s) <= min(plain.times_s)
    for r in rows:  # the plotted communication time is the iteration time less a constant
        gap = np.array(r.times_s[1:10]) - np.array(r.comm_s[1:10])
        assert np.ptp(gap) <= 1e-9 * gap[0] and 0 < min(r.comm_s) < min(r.times_s)
        assert int(np.argmin(r.comm_s)) == r.best_c_ports


def test_fig16_with_context_first_all_reduces() -> None:
    """C first, most DP traffic crosses the C ports: the optimum stays at 7 without overlap. Per
    split the order whose first level has more bandwidth is the faster (C-first once C has more
    ports than De), so C-first's optimum is the lower time."""
    context, data = fig16_table(dp_order="C-first"), fig16_table()
    assert [r.best_c_ports for r in context[:6]] == [7] * 6
    assert [r.best_c_ports for r in context[6:]] == [7, 9, 9, 9, 9, 9]
    for c, d in zip(context, data):
        assert min(c.times_s) <= min(d.times_s)
    for c, d in zip(context[:6], data[:6]):  # DP exposed: every split shows the order's effect
        for ports in range(1, 10):
            gap = c.times_s[ports] - d.times_s[ports]
            assert gap == pytest.approx(0.0, abs=1e-12) if ports == 5 else (gap < 0) == (ports > 5)


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
    order = json.loads(run_railx(*args, "--dp-all-reduce-order", "C-first", "--json").stdout)
    assert order["dp_all_reduce_order"] == "C-first" and report["dp_all_reduce_order"] == "De-first"
    bad = run_railx(*args, "--dp-all-reduce-order", "E-first")
    assert bad.rc == 2 and bad.stderr.startswith("error: --dp-all-reduce-order = 'E-first': must be one of")


def test_milp_refuses_per_chunk_dp_windows_and_exhaustive_still_splits() -> None:
    """Calculon's per-chunk DP windows (dp_overlap = "layer", interleave > 1) are not one window per
    class, so the MILP's linearisation does not hold: one line naming the fields; exhaustive is exact."""
    it = model_on(5, ["D"])
    training = it.system.training.model_copy(update={"dp_overlap": "layer", "interleave": 2})
    system = it.system.model_copy(update={"training": training})
    chunked = IterationModel(it.model, replace(it.par, interleave=2), system)
    assert len(chunked.sub_windows_s("D")) == 2
    with pytest.raises(ConfigError, match=r"dp_overlap = \"layer\" with interleave > 1"):
        static_split(chunked, "milp")
    assert static_split(chunked, "exhaustive").time_s == pytest.approx(brute_force(chunked), rel=1e-12)
