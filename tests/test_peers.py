"""Peer topologies from Python: graphs consistent with their bills of materials, the size guard,
and invalid specs as one-line ConfigErrors."""

from __future__ import annotations

import numpy as np
import pytest

from railx.config import ConfigError
from railx.cost import PRESETS, System


def _peer(**spec: object) -> System:
    return System("test", "test", peer=dict(spec))


@pytest.mark.parametrize(
    "spec",
    [
        {"family": "fat-tree", "radix": 8, "tiers": 3, "taper": [3, 1], "chips": 96},
        {"family": "hammingmesh", "a": 3, "boards": [4, 2], "planes": 2, "radix": 8},
        {"family": "torus3d", "dims": [8, 4, 4], "ports_per_direction": 2},
        {
            "family": "rail-only",
            "radix": 8,
            "hb_domain": 4,
            "hb_ports_per_chip": 9.0,
            "dims": [{"size": 16, "rails": 1}],
        },
        {"family": "hyperx", "dims": [4, 4], "terminals": 4, "radix": 12},
        {"family": "dragonfly", "groups": 9, "routers": 4, "terminals": 2, "global_ports": 2, "radix": 8},
    ],
)
def test_graph_agrees_with_bill_of_materials(spec: dict) -> None:
    system = _peer(**spec)
    bom, net = system.bom(), system.network()
    assert net["chips"] == bom["chips"]
    assert len(net["switch_radix"]) == sum(s["count"] for s in bom["packet_switches"])
    cls = net["class"]
    assert int((cls == 3).sum()) == 2 * (bom["chip_switch_links"] + bom["switch_switch_links"])
    assert int((cls == 2).sum()) == 2 * bom["pcc"]
    assert int((cls == 1).sum()) == 2 * bom["chip_chip_optical_links"]
    assert int((cls == 0).sum()) == 2 * bom["board_links"]
    # Every switch's degree is within its radix; every chip reaches the network.
    degree = np.bincount(net["src"], minlength=net["chips"] + len(net["switch_radix"]))
    assert (degree[net["chips"] :] <= net["switch_radix"]).all()
    assert (degree[: net["chips"]] > 0).all()


def test_bom_of_every_table6_row_without_a_graph() -> None:
    for name in ("ft4", "ft3-tap49", "hx7mesh-2t", "railx7mesh"):
        assert PRESETS[name].bom()["chips"] > 190_000


def test_huge_graph_is_refused_with_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # 56.6M directed links of 30 bytes, over a 1 GiB memory budget (docs/architecture.md).
    monkeypatch.setenv("RAILX_MEMORY_BUDGET", "1GiB")
    with pytest.raises(
        ConfigError, match=r"chips = \d+: building this fat-tree network needs about 1.6 GiB.*that fits is"
    ):
        PRESETS["ft4"].network()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"family": "fat-tree", "radix": 64, "tiers": 2, "taper": [4], "chips": 100}, "fat_tree.taper[0] = 4: "),
        (
            {"family": "fat-tree", "radix": 64, "tiers": 2, "chips": 5000},
            "fat_tree.chips = 5000: 2 tier(s) of radix 64",
        ),
        ({"family": "fat-tree", "radix": 64, "chips": 100, "colour": 3}, "unknown field `colour`"),
        ({"family": "mesh", "radix": 64}, "unknown variant `mesh`"),
        ({"family": "torus3d", "dims": [16, 16, 16], "ports_per_direction": 0}, "torus3d.ports_per_direction = 0"),
    ],
)
def test_bad_peer_specs_are_one_line_config_errors(spec: dict, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        _peer(**spec).bom()
    assert expected in str(info.value) and "\n" not in str(info.value)
