"""Iteration time (eq. 10), the analytic collective formulas it uses (RailX paper §4.2) and
`railx workload`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_railx
from railx.collectives import analytic
from railx.config import ConfigError
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel, all_reduce_levels
from railx.workload.system import TrainingConfig, load_workload_system

LISTING1 = EXAMPLES / "workloads" / "listing1.toml"
LISTING1_PAR = dict(T=4, C=2, E=2, D=4, P=2)


def listing1(overlap: list[str] | None = None) -> IterationModel:
    system = load_workload_system(LISTING1)
    if overlap is not None:
        system = system.model_copy(update={"training": system.training.model_copy(update={"overlap": overlap})})
    return IterationModel(load_model("llama3-70b-moe8"), system.parallelism(**LISTING1_PAR), system)


def test_ring_and_direct_formulas() -> None:
    assert analytic.ring_reduce_scatter_time_s(1, 1e9, 1e10, 1e-6) == 0.0
    assert analytic.ring_reduce_scatter_time_s(4, 1e9, 1e10, 1e-6) == pytest.approx(3e-6 + 0.75 * 1e9 / 2e10)
    assert analytic.direct_reduce_scatter_time_s(4, 1e9, 1e10, 1e-6) == pytest.approx(1e-6 + 0.75 * 1e9 / 2e10)
    one = analytic.hierarchical_all_reduce_time_s(1e9, [analytic.HierarchyLevel(8, 1e10, 1e-6)])
    assert one == pytest.approx(2 * analytic.ring_reduce_scatter_time_s(8, 1e9, 1e10, 1e-6))
    two = analytic.hierarchical_all_reduce_stages_s(
        1e9, [analytic.HierarchyLevel(4, 1e10, 0.0), analytic.HierarchyLevel(2, 1e9, 0.0, "direct")]
    )
    assert two[1] == pytest.approx(2 * 0.5 * (1e9 / 4) / 2e9)  # the second level works on V / 4


@settings(max_examples=40, deadline=None)
@given(m=st.integers(2, 8), p=st.integers(64, 512), k=st.sampled_from([2.0, 4.0, 8.0]), volume=st.floats(1e8, 1e11))
def test_closed_forms_approximate_their_exact_forms(m: int, p: int, k: float, volume: float) -> None:
    nB, alpha = 400e9, 300e-9
    exact = analytic.two_d_ring_all_reduce_time_s(m, p, volume, nB, alpha)
    assert exact == pytest.approx(4 * m * p * alpha + volume / (2 * nB), rel=0.05)  # eq. 7's approximation
    hyperx = analytic.hyperx_all_reduce_time_s(m, p, k, volume, nB, alpha)
    closed = 4 * alpha + (2 / k + 1 / m) * volume / (2 * nB)  # eq. 13's approximation
    assert closed * (1 - 1 / m**2) - 1e-12 <= hyperx <= closed * 1.0001
    if 2 / k + 1 / m < 1:  # §4.2: the hierarchical algorithm (eq. 8) beats the 2D ring (eq. 7)
        assert analytic.mesh_hierarchical_all_reduce_time_s(m, p, k, volume, nB, alpha) < 4 * m * p * alpha + volume / (
            2 * nB
        )


def with_dp_order(order: str, ports: dict[str, int], par: dict[str, int]) -> IterationModel:
    system = load_workload_system(LISTING1).with_ports(ports)
    system = system.model_copy(
        update={"training": system.training.model_copy(update={"dp_all_reduce_order": order, "overlap": []})}
    )
    return IterationModel(load_model("llama3-70b-moe8"), system.parallelism(**par), system)


def test_dp_all_reduce_levels(tmp_path: Path) -> None:
    assert TrainingConfig().dp_all_reduce_order == "De-first"  # the paper's (Fig. 16), the default
    assert all_reduce_levels(["C", "E", "De"], "De-first") == ["De", "E", "C"]
    assert all_reduce_levels(["C", "E", "De"], "C-first") == ["C", "E", "De"]
    bad = tmp_path / "bad.toml"
    bad.write_text(LISTING1.read_text().replace("[training]\n", '[training]\ndp_all_reduce_order = "E-first"\n'))
    with pytest.raises(ConfigError) as err:
        load_workload_system(bad)
    assert "training.dp_all_reduce_order = 'E-first': " in str(err.value)
    assert str(err.value).endswith('e.g. dp_all_reduce_order = "De-first"') and "\n" not in str(err.value)


@settings(max_examples=30, deadline=None)
@given(c_ports=st.integers(1, 3), de_ports=st.integers(1, 4), order=st.sampled_from(["De-first", "C-first"]))
def test_two_level_all_reduce_volume_per_dimension(c_ports: int, de_ports: int, order: str) -> None:
    """D.ffn spans C x De (C = 2, De = 4 here): the first level reduce-scatters and all-gathers the
    whole volume V, the second V / p_first; each level is a bidirectional ring, 2 [(p-1) alpha +
    (p-1)/p V_level / (2 B)]. Swapping the order changes the time by V f_C f_De (1/B_C - 1/B_De)
    (f = (p-1)/p), whatever the latency: the level with more bandwidth should go first."""
    par = dict(T=4, C=2, E=2, D=8, P=1)
    it = with_dp_order(order, {"C": c_ports, "E": 1, "De": de_ports, "P": 0}, par)
    (coll,) = [c for c in it.collectives if c.name == "D.ffn"]
    V, F = coll.volume_bytes, coll.frequency
    p = {"C": 2, "De": 4}
    B = {d: it.links[d].bw_bytes_per_s for d in p}
    alpha = it.links["C"].alpha_s
    first, second = ("De", "C") if order == "De-first" else ("C", "De")
    volume = {first: V, second: V / p[first]}
    terms = {t.dim: t for t in it.terms if t.collective == "D.ffn"}
    assert set(terms) == {"C", "De"}
    for d in p:
        expected = 2 * ((p[d] - 1) * alpha + (p[d] - 1) / p[d] * volume[d] / (2 * B[d]))
        assert float(terms[d].time_s(B[d])) == pytest.approx(F * expected, rel=1e-12)
    other = with_dp_order(
        "C-first" if order == "De-first" else "De-first", {"C": c_ports, "E": 1, "De": de_ports, "P": 0}, par
    )
    here, there = (float(x.evaluate().by_collective_s["D.ffn"]) for x in (it, other))
    c_first, de_first = (here, there) if order == "C-first" else (there, here)
    f = {d: (p[d] - 1) / p[d] for d in p}
    assert c_first - de_first == pytest.approx(
        F * V * f["C"] * f["De"] * (1 / B["C"] - 1 / B["De"]), rel=1e-9, abs=1e-12
    )


def test_eq10_structure_and_breakdown() -> None:
    it = listing1(["D", "P"])
    r = it.evaluate()
    hidden = sum(max(r.windows_s[c], float(r.comm_hidden_class_s[c])) for c in ("D", "P"))
    assert float(r.total_s) == pytest.approx(r.compute_exposed_s + float(r.comm_exposed_s) + hidden)
    assert r.compute_exposed_s + sum(r.windows_s.values()) == pytest.approx(it.compute_total_s)
    assert sum(float(v) for v in r.by_parallelism_s.values()) == pytest.approx(
        sum(float(v) for v in r.by_collective_s.values())
    )
    assert set(r.by_parallelism_s) == {"T", "C", "E", "D", "P"}
    exposed = listing1([]).evaluate()  # no overlap: every communication adds up
    assert float(exposed.total_s) == pytest.approx(
        it.compute_total_s + sum(float(v) for v in exposed.by_collective_s.values())
    )
    assert float(r.total_s) <= float(exposed.total_s)


@settings(max_examples=30, deadline=None)
@given(
    dim=st.sampled_from(["T", "C", "E", "De", "P"]),
    factor=st.floats(1.0, 100.0),
    overlap=st.sampled_from([[], ["D"], ["D", "P"]]),
)
def test_iteration_time_is_non_increasing_in_bandwidth(dim: str, factor: float, overlap: list[str]) -> None:
    it = listing1(overlap)
    base = it.links[dim].bw_bytes_per_s
    grid = base * np.linspace(1.0, factor, 7)
    times = np.asarray(it.evaluate({dim: grid}).total_s)
    assert np.all(np.diff(times) <= 1e-12 * times[:-1])
    assert float(times[0]) == pytest.approx(float(it.evaluate().total_s))


def test_workload_cli_json_and_errors() -> None:
    res = run_railx("workload", "llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=4,P=2", "--system", LISTING1, "--json")
    assert res.rc == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["chips"] == 64 and report["parallel"]["De"] == 2
    assert report["iteration_s"] == pytest.approx(float(listing1().evaluate().total_s))
    assert {c["collective"] for c in report["collectives"]} >= {"T.attention", "C", "E", "D.qkv", "P"}
    table = run_railx("workload", "llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=4,P=2", "--system", LISTING1)
    assert table.rc == 0 and "iteration" in table.stdout
    for args, field in [
        (("llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=2,P=2"), "parallel: T*C*D*P"),
        (("llama3-70b", "--parallel", "T=3"), "parallel.T = 3"),
        (("gpt-9", "--parallel", "T=4"), "model = 'gpt-9'"),
        (("llama3-70b", "--parallel", "X=4"), "--parallel 'X=4'"),
    ]:
        bad = run_railx("workload", *args, "--system", LISTING1)
        assert bad.rc == 2 and bad.stderr.startswith(f"error: {field}") and bad.stderr.count("\n") == 1, bad.stderr


def test_with_ports_sets_axis_ports_and_refuses_a_dimension_off_the_axes() -> None:
    system = load_workload_system(LISTING1)
    assert system.with_ports({"C": 3}).mapping["C"] == system.mapping["C"].model_copy(update={"ports": 3})
    assert system.with_ports({"C": 3}).mapping["T"] == "mesh"
    with pytest.raises(ConfigError) as err:
        system.with_ports({"T": 2})  # T is on the mesh, which has no ports
    assert (
        str(err.value)
        == 'mapping.T: T is not on an axis, so it has no ports to set; e.g. T = { axis = "x", ports = 2 }'
    )
