"""Every analysis on every family, through one system handle: a small instance of RailX and of each
peer, and per analysis a property its result must satisfy, or the documented one-line error where
the analysis does not apply (docs/architecture.md shows the matrix). And every RailX preset gives
the same answers as its expanded general form, at analytic, flow and flit level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railx.collectives.analytic import direct_all_to_all_time_s, ring_reduce_scatter_time_s
from railx.collectives.commands import collective_report
from railx.config import ConfigError
from railx.flowsim import Messages, simulate
from railx.routing import check_deadlock, route_stats
from railx.sim import FlitSettings
from railx.sim import simulate as flit_simulate
from railx.systems import System
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import DimLink, WorkloadSystem
from railx.workload.traffic import Parallelism

MiB = 1 << 20

FAMILIES: dict[str, dict[str, Any]] = {
    "railx": {"system": {"m": 2, "n": 1, "R": 8, "grid": [3, 3]}, "topology": {"preset": "torus"}},
    "fat-tree": {"family": "fat-tree", "radix": 8, "chips": 32},
    "rail-only": {
        "family": "rail-only",
        "radix": 8,
        "hb_domain": 4,
        "hb_ports_per_chip": 4,
        "dims": [{"size": 8, "rails": 1}],
    },
    "rail-optimised": {
        "family": "rail-optimised",
        "radix": 8,
        "hb_domain": 4,
        "hb_model": "switch",
        "hb_ports_per_chip": 4,
        "domains": 8,
    },
    "hammingmesh": {"family": "hammingmesh", "a": 2, "boards": [2, 3], "radix": 8},
    "torus3d": {"family": "torus3d", "dims": [4, 4, 2], "cube": 2, "board": [2, 2], "ports_per_direction": 1},
    "tpuv4": {
        "family": "torus3d",
        "dims": [4, 4, 2],
        "cube": 2,
        "board": [2, 2],
        "ports_per_direction": 1,
        "ocs_radix": 16,
    },
    "hyperx": {"family": "hyperx", "dims": [4, 4], "terminals": 2, "radix": 8},
    "dragonfly": {"family": "dragonfly", "groups": 5, "routers": 4, "terminals": 2, "global_ports": 1, "radix": 8},
    "sipac": {"family": "sipac", "radix": 4, "levels": 2, "wavelengths": 4, "wavelength_rate_Bps": 12.5e9},
}
# Families whose chips form no high-bandwidth domain: hierarchical does not apply.
UNGROUPED = {"fat-tree", "sipac"}


def system(family: str) -> System:
    spec = FAMILIES[family]
    return System(family, family, railx=spec) if family == "railx" else System(family, family, peer=spec)


@pytest.fixture(scope="module", params=list(FAMILIES))
def sys_(request: pytest.FixtureRequest) -> System:
    return system(request.param)


def test_route_stats_cover_every_pair(sys_: System) -> None:
    stats = route_stats(sys_)
    assert stats["pairs"] == sys_.chips * (sys_.chips - 1) and stats["sampled"] is False
    assert sum(stats["hop_histogram"]) == stats["pairs"]
    assert stats["mean_inter_node_hops"] <= stats["max_inter_node_hops"]


def test_default_routing_is_deadlock_free(sys_: System) -> None:
    report = check_deadlock(sys_, "dateline" if sys_.family == "railx" else None)
    assert report["acyclic"] is True and report["cycle"] is None


def test_flit_uniform_traffic_below_saturation_is_all_accepted(sys_: System) -> None:
    settings_ = FlitSettings(warmup_cycles=300, measure_cycles=1500, seed=1)
    routing = "dateline" if sys_.family == "railx" else None
    report, utilisation = flit_simulate(sys_, "uniform", 0.05, settings=settings_, routing=routing)
    assert report["deadlock"] is None
    assert report["accepted"] == pytest.approx(0.05, rel=0.15)
    assert len(utilisation) == len(sys_.network()["src"])


def domains(sys_: System) -> np.ndarray:
    """Each chip's high-bandwidth domain: its coordinates in the group's non-local dimensions
    (chip ids number the ranks of these whole-system groups)."""
    key, place, stride = np.zeros(sys_.chips, dtype=np.int64), 1, 1
    chips = np.arange(sys_.chips)
    for size, kind, _axis in sys_.core.group_dims():
        if kind != "local":
            key += (chips // stride) % size * place
            place *= size
        stride *= size
    return key


def test_flow_all_to_all_is_at_least_the_domain_egress_bound(sys_: System) -> None:
    # Every byte bound for another high-bandwidth domain leaves its own over the links that
    # leave the domain: completion >= the busiest domain's egress bytes over their bandwidth.
    n, size = sys_.chips, 1 << 16
    src = [s for s in range(n) for d in range(n) if s != d]
    dst = [d for s in range(n) for d in range(n) if s != d]
    result = simulate(sys_, Messages.from_lists(src, dst, [size] * len(src)))
    domain, links = domains(sys_), sys_.network()
    chip_src, chip_dst = links["src"] < n, links["dst"] < n
    bound_s = 0.0
    for d in np.unique(domain):
        inside = domain == d
        members = int(inside.sum())
        # Links leaving the domain: from a member to a chip outside it, or to a switch.
        leaving = chip_src & inside[np.minimum(links["src"], n - 1)]
        leaving &= ~chip_dst | ~inside[np.minimum(links["dst"], n - 1)]
        egress_Bps = float(links["bandwidth_Bps"][leaving].sum())
        bound_s = max(bound_s, members * (n - members) * size / egress_Bps)
    assert result.completion_s >= bound_s * (1 - 1e-9)


def report(sys_: System, algo: str, fidelity: str) -> dict[str, Any]:
    routing = "dateline" if sys_.family == "railx" and fidelity == "flit" else None
    return collective_report(sys_, "allreduce", algo, MiB, fidelity, link_model="routed", routing=routing)


def test_ring_all_reduce_at_flow_level_is_its_routed_analytic_model(sys_: System) -> None:
    # Every step of a ring is one message per rank on links measured exactly as the flow level
    # shares them; the flow level can only be faster where ranks run ahead of the lock-step
    # model (the Dragonfly's uneven paths).
    for algo in ("ring", "bidir-ring"):
        analytic = report(sys_, algo, "analytic")["time_s"]
        flow = report(sys_, algo, "flow")["time_s"]
        assert 0.99 * analytic <= flow <= analytic * (1 + 1e-6), (algo, flow / analytic)


def test_hierarchical_beats_the_ring_where_the_system_has_a_grouping(sys_: System) -> None:
    if sys_.family in UNGROUPED:
        with pytest.raises(ConfigError, match="^algo = hierarchical: hierarchical needs a grouping"):
            report(sys_, "hierarchical", "analytic")
        return
    for fidelity in ("analytic", "flow"):
        assert report(sys_, "hierarchical", fidelity)["time_s"] < report(sys_, "bidir-ring", fidelity)["time_s"]


def test_flit_level_collectives_agree_with_the_flow_level(sys_: System) -> None:
    algos = ["bidir-ring"] if sys_.family in UNGROUPED else ["bidir-ring", "hierarchical"]
    for algo in algos:
        flit = report(sys_, algo, "flit")["time_s"]
        flow = report(sys_, algo, "flow")["time_s"]
        assert 0.75 <= flit / flow <= 1.25, (algo, flit / flow)


# A parallelism of llama3-70b-moe8 (64 heads, 8 experts, 80 layers) filling each instance.
WORKLOAD_PARALLEL: dict[str, dict[str, int]] = {
    "railx": {"T": 2, "D": 9, "P": 2},
    "fat-tree": {"T": 4, "C": 2, "E": 2, "D": 4},
    "rail-only": {"T": 4, "E": 2, "D": 4, "P": 2},
    "rail-optimised": {"T": 4, "E": 2, "D": 4, "P": 2},
    "hammingmesh": {"T": 2, "C": 2, "E": 2, "D": 6},
    "torus3d": {"T": 2, "C": 2, "E": 2, "D": 4, "P": 2},
    "tpuv4": {"T": 2, "C": 2, "E": 2, "D": 4, "P": 2},
    "hyperx": {"T": 2, "E": 4, "D": 8, "P": 2},
    "dragonfly": {"T": 2, "E": 2, "D": 4, "P": 5},
    "sipac": {"T": 2, "E": 2, "D": 4, "P": 2},
}


def workload_system(sys_: System) -> WorkloadSystem:
    """The family's instance as a workload system (every overlap off: all communication adds up)."""
    spec = FAMILIES[sys_.name]
    where = spec if sys_.family == "railx" else {"peer": spec}
    training = {"micro_batches": 4, "sequence": 4096, "overlap": []}
    return WorkloadSystem.model_validate({**where, "chip": {"sustained_tflops": 400.0}, "training": training})


def test_workload_iteration_time_runs_on_the_routed_links(sys_: System) -> None:
    # T (or E) over every chip is one line of the whole system in chip order, measured as the
    # flow level runs it: the reduce-scatter the iteration model prices for T (bidirectional ring,
    # or direct where that is no slower) and E's all-to-all equal the flow level's on the chips.
    ws, n = workload_system(sys_), sys_.chips
    t = ws.links(Parallelism(T=n))["T"]
    if t.kind == "ring":
        modelled = ring_reduce_scatter_time_s(n, MiB, t.bw_bytes_per_s, t.alpha_s)
        flow = collective_report(sys_, "reduce-scatter", "bidir-ring", MiB, "flow")["time_s"]
    else:  # a direct reduce-scatter step is the direct all-to-all's step
        modelled = direct_all_to_all_time_s(n, MiB, t.bw_bytes_per_s, t.alpha_s)
        flow = collective_report(sys_, "all-to-all", "direct", MiB, "flow")["time_s"]
    assert flow == pytest.approx(float(modelled), rel=0.01)
    e = ws.links(Parallelism(E=n, D=n))["E"]
    flow = collective_report(sys_, "all-to-all", "direct", MiB, "flow")["time_s"]
    assert flow == pytest.approx(float(direct_all_to_all_time_s(n, MiB, e.bw_bytes_per_s, e.alpha_s)), rel=0.01)
    # Eq. 10 with nothing overlapped: compute plus every collective's time, so at least the compute.
    it = IterationModel(load_model("llama3-70b-moe8"), ws.parallelism(**WORKLOAD_PARALLEL[sys_.name]), ws)
    r = it.evaluate()
    comm_s = sum(float(v) for v in r.by_collective_s.values())
    assert float(r.total_s) == pytest.approx(it.compute_total_s + comm_s) and comm_s > 0
    assert all(link.place.startswith("routed ") for d, link in it.links.items() if it.par.size(d) > 1)


# The torus's cube links are no faster than its other links, and its extent-2 z dimension joins
# each pair by two links (both wrap-arounds), so a pair across cubes there is the faster one.
DOMAIN_NO_FASTER = {"torus3d", "tpuv4"}


def test_a_dimension_inside_a_high_bandwidth_domain_is_no_slower_than_one_across(sys_: System) -> None:
    # L ranks inside a domain (T: consecutive chips, the family's innermost group dimension)
    # against L ranks across domains (De after C = chips / L), both free to use the ring or the
    # direct primitive: reduce-scattering 1 GiB takes no longer inside.
    if sys_.name in DOMAIN_NO_FASTER:
        pytest.skip("a torus's cube links are no faster than the links across cubes")
    ws, n = workload_system(sys_), sys_.chips
    size = sys_.core.group_dims()[0][0]
    inside = ws.links(Parallelism(T=size, D=n // size))["T"]
    across = ws.links(Parallelism(C=n // size, D=size))["De"]

    def time_s(link: DimLink) -> float:
        formula = ring_reduce_scatter_time_s if link.kind == "ring" else direct_all_to_all_time_s
        return float(formula(size, 1 << 30, link.bw_bytes_per_s, link.alpha_s))

    assert time_s(inside) <= time_s(across)


def test_the_paper_link_model_is_railx_only() -> None:
    with pytest.raises(ConfigError, match="^link_model = paper: the paper's link model prices RailX systems only"):
        collective_report(system("hyperx"), "allreduce", "ring", MiB, link_model="paper")


def railx_pair(m: int, n: int, p: int, q: int, kind: str) -> tuple[System, System]:
    """A RailX preset and the same network written in the general form (the rails the preset
    resolves to: every rail of a torus axis; whole copies of K*_s for a HyperX axis)."""
    base = {"m": m, "n": n, "R": 2 * max(p, q), "grid": [p, q]}
    r = m * n

    def axis(size: int) -> list[dict[str, Any]]:
        if kind == "torus":
            return [{"size": size, "kind": "ring", "rails": r}]
        return [{"size": size, "kind": "all-to-all", "rails": (r // (size - 1)) * (size - 1)}]

    preset = System("preset", "preset", railx={"system": base, "topology": {"preset": kind}})
    general = System("general", "general", railx={"system": base, "topology": {"x": axis(p), "y": axis(q)}})
    return preset, general


@settings(max_examples=6, deadline=None)
@given(
    m=st.sampled_from([1, 2]),
    n=st.integers(1, 3),
    p=st.sampled_from([3, 5]),
    q=st.sampled_from([3, 5]),
    kind=st.sampled_from(["torus", "hyperx"]),
)
def test_a_preset_equals_its_general_form_in_every_analysis(m: int, n: int, p: int, q: int, kind: str) -> None:
    if kind == "hyperx" and m * n < max(p, q) - 1:
        return  # the preset needs r >= extent - 1 rails per axis
    preset, general = railx_pair(m, n, p, q, kind)
    assert preset.core.plan_json() == general.core.plan_json()
    assert route_stats(preset) == route_stats(general)
    algo = "direct" if kind == "hyperx" else "2d-ring"
    for fidelity, model in (("analytic", "paper"), ("analytic", "routed"), ("flow", None), ("flit", None)):
        routing = "dateline" if fidelity == "flit" and kind == "torus" else None
        a, b = (
            collective_report(s, "allreduce", algo, 1 << 16, fidelity, link_model=model, routing=routing)
            for s in (preset, general)
        )
        assert a["time_s"] == b["time_s"] and a["messages"] == b["messages"], (fidelity, model)


def test_three_error_types_with_one_base(tmp_path: Path) -> None:
    import railx

    for kind in (railx.ConfigError, railx.VerificationError, railx.InternalError):
        assert issubclass(kind, railx.RailxError)
    assert not issubclass(railx.InternalError, railx.ConfigError)
    assert not issubclass(railx.VerificationError, railx.ConfigError)
    # A port in two circuits: the file parses (not a ConfigError) but does not verify.
    ocs = {
        "format": "railx.ocs/v1",
        "system": {"m": 2, "n": 1, "R": 8, "grid": [2, 2]},
        "switches": [{"id": "X/0/0", "dim": "X", "line": 0, "rail": 0, "radix": 8, "circuits": [[1, 2], [1, 2]]}],
    }
    path = tmp_path / "bad.ocs.json"
    path.write_text(json.dumps(ocs))
    with pytest.raises(railx.VerificationError, match='^switch "X/0/0" .*: port 1 is in two circuits'):
        railx.verify_ocs_file(path)
