"""Peers' symmetry groups through the Python API and the CLI: a collective at flow level runs
aggregated over the family's declared symmetries and equals the full message DAG's run; the
routed analytic model is unchanged by measuring one message per orbit (the Rust tests check it
against the full measurement)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from railx._core import collective_dag
from railx.cli import app
from railx.flowsim import Messages, collective, simulate
from railx.systems import System, core_of

PEERS = {
    "fat-tree": ({"family": "fat-tree", "radix": 8, "tiers": 2, "chips": 32, "planes": 2}, 32),
    "rail-only": (
        {"family": "rail-only", "radix": 4, "hb_domain": 2, "hb_ports_per_chip": 2, "dims": [{"size": 8, "rails": 2}]},
        16,
    ),
    "hammingmesh": ({"family": "hammingmesh", "a": 2, "boards": [3, 2], "planes": 2, "radix": 8}, 6),
    "tpuv4": (
        {"family": "torus3d", "dims": [4, 4, 4], "cube": 2, "board": [1, 1], "ports_per_direction": 1, "ocs_radix": 64},
        8,
    ),
}
SIZE = (1 << 12) * 9 * 5 * 7  # every unit count here divides it


@pytest.mark.parametrize("name", sorted(PEERS))
def test_direct_all_to_all_aggregates_over_the_whole_group_and_equals_the_full_run(name: str) -> None:
    spec, order = PEERS[name]
    system = System(name, name, peer=spec)
    agg = collective(system, "all-to-all", "direct", SIZE)
    assert agg.aggregated and agg.orbit == order
    assert agg.flows * order == agg.messages
    full = simulate(system, Messages(**collective_dag(core_of(system), "all-to-all", "direct", SIZE)))
    assert full.messages == agg.messages
    assert agg.completion_s == pytest.approx(full.completion_s, rel=1e-9)


def test_the_cli_reports_the_orbit_of_a_peer_flow_run(tmp_path) -> None:
    spec, order = PEERS["hammingmesh"]
    path = tmp_path / "hm.toml"
    path.write_text("[peer]\n" + "\n".join(f"{k} = {json.dumps(v)}" for k, v in spec.items()) + "\n")
    args = ["collective", str(path), "--op", "all-to-all", "--algo", "direct", "--size", "1MB", "--fidelity", "flow"]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)
    row = row[0] if isinstance(row, list) else row
    assert row["aggregated"] is True and row["orbit"] == order
