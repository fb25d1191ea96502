"""Flit level against flow level for collectives (issue 8): the same explicit schedule on both
simulators, large messages on small RailX tori, where latency is a small part of the time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import fig15_torus
from railx._core import RailxError, flit_collective
from railx.collectives.commands import collective_report
from railx.config import ConfigError
from railx.systems import core_of

SIZE_BYTES = 8 << 20  # 8 MB: the latency terms are under 3% of the time on these systems


@pytest.mark.parametrize("m,rails", [(2, 4), (2, 6), (4, 4)])  # 2x2, 3x3 and 2x2 nodes
@pytest.mark.parametrize(
    "op,algo",
    [
        ("all-reduce", "ring"),
        ("all-reduce", "bidir-ring"),
        ("all-reduce", "2d-ring"),
        ("all-reduce", "hierarchical"),
        ("all-reduce", "multi-rail"),
        ("reduce-scatter", "hierarchical"),
        ("all-gather", "2d-ring"),
    ],
)
def test_flit_within_10_percent_of_flow_for_large_messages(
    tmp_path: Path, m: int, rails: int, op: str, algo: str
) -> None:
    system = fig15_torus(tmp_path, m, rails // 2)
    flow = collective_report(system, op, algo, SIZE_BYTES, fidelity="flow", routing="dateline")
    flit = collective_report(system, op, algo, SIZE_BYTES, fidelity="flit", routing="dateline")
    # Packetisation and router delay only add time; flow control never beats max-min sharing here.
    assert flow["time_s"] <= flit["time_s"] <= 1.10 * flow["time_s"]


def test_flit_all_to_all_is_bounded_by_router_saturation_not_max_min_sharing(tmp_path: Path) -> None:
    # Every chip sending to every other at once is uniform traffic: input-queued routers saturate
    # below the channel-load bound that max-min sharing reaches (docs/collectives.md).
    system = fig15_torus(tmp_path, 2, 2)
    flow = collective_report(system, "all-to-all", "direct", SIZE_BYTES, fidelity="flow", routing="dateline")
    flit = collective_report(system, "all-to-all", "direct", SIZE_BYTES, fidelity="flit", routing="dateline")
    assert 1.1 * flow["time_s"] < flit["time_s"] < 2.0 * flow["time_s"]


def test_flit_report_maps_cycles_to_seconds(tmp_path: Path) -> None:
    r = collective_report(
        fig15_torus(tmp_path, 2, 2), "all-reduce", "ring", 1 << 20, fidelity="flit", routing="dateline"
    )
    assert r["fidelity"] == "flit" and r["flit_bytes"] == 256
    assert r["cycle_s"] == pytest.approx(256 / 100e9)  # flit over the external port bandwidth
    assert r["time_s"] == pytest.approx(r["cycles"] * r["cycle_s"])
    assert r["algbw_Bps"] == pytest.approx((1 << 20) / r["time_s"])
    # A ring step costs at least its hop's latency (117 cycles of 2.56 ns for 300 ns).
    assert r["cycles"] >= 2 * (r["ranks"] - 1) * 117


def test_flit_runs_beyond_fig14s_size_within_10_percent_of_flow(tmp_path: Path) -> None:
    # 1,600 chips (a 10 x 10 torus of 4 x 4 meshes): no chip cap, only the resource budget.
    system = fig15_torus(tmp_path, 4, 10)
    flit = collective_report(system, "all-reduce", "hierarchical", 1 << 20, fidelity="flit", routing="dateline")
    flow = collective_report(system, "all-reduce", "hierarchical", 1 << 20, fidelity="flow", routing="dateline")
    assert flit["ranks"] == 1600
    assert 1.0 <= flit["time_s"] / flow["time_s"] <= 1.10


def test_flit_refuses_large_systems_and_schedules(tmp_path: Path) -> None:
    # The full RailX7Mesh's ring all-reduce: 8e10 messages, far over the memory budget.
    with pytest.raises(RailxError, match="size = 1048576: .*of memory, over the budget.*--fidelity flow"):
        collective_report("railx7mesh", "all-reduce", "ring", 1 << 20, fidelity="flit")
    # 16 GiB: its flits are over the work budget (docs/architecture.md, Resource budget).
    with pytest.raises(RailxError, match="size = 17179869184: .*steps of work.*the largest size that fits"):
        collective_report(fig15_torus(tmp_path, 2, 2), "all-reduce", "ring", 1 << 34, fidelity="flit")
    with pytest.raises(ConfigError, match="flit_bytes = 0"):
        collective_report(fig15_torus(tmp_path, 2, 2), "all-reduce", "ring", 1 << 20, fidelity="flit", flit_bytes=0)
    with pytest.raises(ConfigError, match="fidelity = 'packet'"):
        collective_report(fig15_torus(tmp_path, 2, 2), "all-reduce", "ring", 1 << 20, fidelity="packet")


def test_flit_settings_replace_the_derived_ones(tmp_path: Path) -> None:
    core = core_of(fig15_torus(tmp_path, 2, 2))
    run = flit_collective(core, "all-reduce", "ring", 1 << 20, routing="dateline")
    derived = json.loads(run["settings"])
    assert derived["flit_bytes"] == 256 and derived["injection_queues"] == "per-message"
    one_vc = flit_collective(
        core, "all-reduce", "ring", 1 << 20, routing="dateline", settings_json='{"vcs_per_class": 1}'
    )
    assert json.loads(one_vc["settings"]) == derived | {"vcs_per_class": 1}
    with pytest.raises(RailxError, match="simulator settings.*unknown field `vcs_per_clas`"):
        flit_collective(core, "all-reduce", "ring", 1 << 20, routing="dateline", settings_json='{"vcs_per_clas": 1}')
    with pytest.raises(RailxError, match="settings_json.flit_bytes = 64.*pass flit_bytes"):
        flit_collective(core, "all-reduce", "ring", 1 << 20, routing="dateline", settings_json='{"flit_bytes": 64}')
