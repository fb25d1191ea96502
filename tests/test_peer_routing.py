"""`railx route` on peer systems ([peer] TOML files and preset names): routes, the deadlock check
and statistics of each family's routing functions, and bad input as one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_railx
from railx.config import ConfigError
from railx.routing import check_deadlock, route, routing_names
from railx.systems import System, resolve_system

SMALL: dict[str, dict[str, Any]] = {
    "hyperx": {"family": "hyperx", "dims": [4, 4], "terminals": 2, "radix": 8},
    "dragonfly": {"family": "dragonfly", "groups": 5, "routers": 4, "terminals": 2, "global_ports": 1, "radix": 8},
    "rail-only": {
        "family": "rail-only",
        "radix": 8,
        "hb_domain": 4,
        "hb_ports_per_chip": 4,
        "dims": [{"size": 8, "rails": 1}],
    },
    "hammingmesh": {"family": "hammingmesh", "a": 3, "boards": [2, 3], "radix": 8},
    "fat-tree": {"family": "fat-tree", "radix": 8, "chips": 32},
    "torus3d": {"family": "torus3d", "dims": [4, 4, 4], "ports_per_direction": 1},
}


def peer_file(tmp_path: Path, spec: dict[str, Any]) -> Path:
    """A [peer] TOML file holding `spec` (flat keys and arrays of inline tables)."""

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    path = tmp_path / f"{spec['family']}.toml"
    path.write_text("[peer]\n" + "".join(f"{k} = {value(v)}\n" for k, v in spec.items()))
    return path


@pytest.mark.parametrize(
    ("family", "routing", "vcs"),
    [
        ("hyperx", "minimal", 1),
        ("hyperx", "valiant", 2),
        ("dragonfly", "minimal", 2),
        ("dragonfly", "valiant", 3),
        ("rail-only", "minimal", 1),
        ("hammingmesh", "dimension-order", 3),
        ("fat-tree", "updown", 1),
        ("torus3d", "dateline", 6),
        ("torus3d", "dateline-partition", 6),
    ],
)
def test_every_family_is_checked_exhaustively_and_acyclic(tmp_path: Path, family: str, routing: str, vcs: int) -> None:
    result = run_railx("route", peer_file(tmp_path, SMALL[family]), "--check-deadlock", "--routing", routing, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["acyclic"] is True and report["cycle"] is None
    assert report["method"] == "exhaustive" and report["routing"] == routing
    assert report["vcs_used"] == vcs


def test_a_route_is_a_chain_of_links_from_source_to_destination(tmp_path: Path) -> None:
    result = run_railx("route", peer_file(tmp_path, SMALL["dragonfly"]), "--from", "0", "--to", "39", "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    path = report["path"]
    assert path[0]["from"] == 0 and path[-1]["to"] == 39
    for a, b in zip(path, path[1:]):
        assert a["to"] == b["from"] and a["to"] >= 40, "only switches (ids after the 40 chips) in between"
    # Chip 0 (group 0) to chip 39 (group 4): up, local, global, local, down; VC rises at the global hop.
    assert report["hops"] == {"Ho": 5, "Hi": 0}
    assert [h["vc"] for h in path] == [0, 0, 0, 1, 1]


def test_rail_only_crosses_the_hb_domain_first(tmp_path: Path) -> None:
    # Chip 1 (domain 0, rank 1) to chip 23 (domain 5, rank 3): HB hop to chip 3, then up and down rail 3.
    report = route(System("r", "r", peer=SMALL["rail-only"]), 1, 23)
    assert report["hops"] == {"Ho": 2, "Hi": 1}
    assert report["path"][0]["to"] == 3 and report["path"][0]["external"] is False


def test_stats_cover_every_pair_of_a_preset_sized_family(tmp_path: Path) -> None:
    result = run_railx("route", peer_file(tmp_path, SMALL["hammingmesh"]), "--stats", "--json")
    report = json.loads(result.stdout)
    chips = 3 * 3 * 2 * 3
    assert report["pairs"] == chips * (chips - 1) and report["sampled"] is False
    # At most one tree (up and down a 1-tier tree: 2 links) per board coordinate.
    assert report["max_inter_node_hops"] == 4
    assert report["max_vc"] == 2


def test_presets_route_by_name() -> None:
    result = run_railx("route", "hx4mesh", "--from", "0", "--to", "16383", "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    # Corner to corner on 4 x 4 boards: both trees, landing on the destination itself.
    assert report["routing"] == "dimension-order" and report["hops"] == {"Ho": 4, "Hi": 0}
    assert routing_names(resolve_system("dragonfly")) == ["minimal", "valiant"]


def test_one_routing_registry_names_each_familys_functions_default_first() -> None:
    assert routing_names(resolve_system("dragonfly")) == ["minimal", "valiant"]
    assert routing_names(resolve_system("tpuv4"))[0] == "dateline"
    assert routing_names("examples/torus-9x9.toml") == ["minimal", "dateline", "adaptive", "balanced", "phased"]
    with pytest.raises(ConfigError, match="routing = updown: does not apply to a RailX system"):
        check_deadlock("examples/torus-9x9.toml", "updown")


@pytest.mark.parametrize(
    ("family", "args", "words"),
    [
        ("dragonfly", ["--stats", "--routing", "dateline"], ("routing = dateline", "use one of minimal, valiant")),
        ("hammingmesh", ["--stats", "--routing", "valiant"], ("routing = valiant", "use one of dimension-order")),
        ("dragonfly", ["--from", "0", "--to", "40"], ("chip = 40", "0 to 39")),
        ("dragonfly", ["--from", "0,0,0,0", "--to", "1"], ("chip = '0,0,0,0'", "by id")),
        ("dragonfly", ["--check-deadlock", "--vcs", "1"], ("vcs = 1", "needs 2 virtual channels")),
        ("dragonfly", ["--stats", "--job", "a"], ("job = a", "a dragonfly system has no jobs")),
        (
            "fat-tree",
            ["--stats", "--misroutes", "2"],
            ("misroutes = 2", "only RailX's adaptive routing takes misroutes"),
        ),
    ],
)
def test_bad_peer_route_input_is_one_line(tmp_path: Path, family: str, args: list[str], words: tuple[str, ...]) -> None:
    result = run_railx("route", peer_file(tmp_path, SMALL[family]), *args)
    assert result.rc == 2
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error:")
    for word in words:
        assert word in line, line


def test_peers_too_large_for_the_exhaustive_check_are_refused() -> None:
    # Hx4Mesh's VCs do not rise at every hop, so it is checked exhaustively only: its 16,384 chips are
    # beyond the default work budget.
    result = run_railx("route", "hx4mesh", "--check-deadlock")
    assert result.rc == 2
    assert "routing = dimension-order" in result.stderr and "checked exhaustively only" in result.stderr
