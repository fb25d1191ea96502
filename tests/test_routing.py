"""`railx route`: routes, the deadlock check and statistics through the CLI, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import railx
from conftest import run_railx
from railx.routing import check_deadlock, link_load, parse_chip, route, route_stats


def test_route_between_coordinates_is_a_chain_to_the_destination(examples: Path) -> None:
    result = run_railx("route", examples / "hyperx-5x5.toml", "--from", "0,0,0,0", "--to", "4,4,1,1", "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    path = report["path"]
    assert path[0]["from"] == [0, 0, 0, 0] and path[-1]["to"] == [4, 4, 1, 1]
    for a, b in zip(path, path[1:]):
        assert a["to"] == b["from"]
    assert report["hops"]["Ho"] == sum(h["external"] for h in path) == 2
    # VC = inter-node hops so far, never falling.
    assert [h["vc"] for h in path] == sorted(h["vc"] for h in path)


@pytest.mark.parametrize(
    ("config", "routing", "vcs"),
    [("hyperx-9x9.toml", "minimal", 3), ("hyperx-5x5.toml", "balanced", 6), ("torus-9x9.toml", "dateline", 4)],
)
def test_check_deadlock_keys_and_values(examples: Path, config: str, routing: str, vcs: int) -> None:
    result = run_railx("route", examples / config, "--check-deadlock", "--routing", routing, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["acyclic"] is True and report["cycle"] is None
    assert report["method"] == "exhaustive"
    assert report["vcs_used"] == vcs


def test_stats_keys_match_the_plan(examples: Path) -> None:
    result = run_railx("route", examples / "hyperx-9x9.toml", "--stats", "--samples", "5000", "--json")
    report = json.loads(result.stdout)
    for key in ("max_inter_node_hops", "mean_inter_node_hops", "max_hops", "pairs", "sampled"):
        assert key in report
    assert report["sampled"] is True and report["pairs"] == 5000
    plan = railx.realize(examples / "hyperx-9x9.toml").plan()
    assert report["max_inter_node_hops"] == plan["diameter_inter_node"] == 2
    assert report["max_hops"]["Hi"] <= plan["diameter_hops"]["Hi"] <= 5 * 4 - 6


def test_link_load_sums_to_route_lengths(examples: Path) -> None:
    network = railx.realize(examples / "hyperx-5x5.toml")
    load = link_load(network)
    stats = route_stats(network)
    n = network.chips
    assert load.shape == network.links()["src"].shape
    assert load.sum() == pytest.approx(n * (stats["mean_inter_node_hops"] + stats["mean_intra_node_hops"]))


def test_jobs_are_routed_one_at_a_time(examples: Path) -> None:
    network = railx.realize(examples / "jobs.toml")
    assert check_deadlock(network, job="dense-train", routing="dateline")["acyclic"]
    result = run_railx("route", examples / "jobs.toml", "--stats")
    assert result.rc == 2 and "moe-train" in result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--from", "0", "--to", "99999"], ("chip = 99999", "not a chip")),
        (["--from", "9,9,0,0", "--to", "0"], ("outside the system",)),
        (["--from", "a", "--to", "0"], ("chip id or coordinates",)),
        (["--check-deadlock", "--routing", "dateline"], ("routing = dateline", "no ring dimension")),
        (
            ["--check-deadlock", "--routing", "valiant"],
            ("routing = valiant", "use one of minimal, dateline, adaptive, balanced"),
        ),
        (["--check-deadlock", "--vcs", "2"], ("vcs = 2", "needs 3 virtual channels")),
        (["--stats", "--check-deadlock"], ("give --from CHIP --to CHIP",)),
    ],
)
def test_bad_route_input_is_one_line(examples: Path, args: list[str], words: tuple[str, ...]) -> None:
    result = run_railx("route", examples / "hyperx-5x5.toml", *args)
    assert result.rc == 2
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error:")
    for word in words:
        assert word in line, line


def test_parse_chip_matches_the_id_formula(examples: Path) -> None:
    network = railx.realize(examples / "hyperx-5x5.toml")  # P = 5, m = 2
    assert parse_chip(network, "3,2,1,0") == ((2 * 5 + 3) * 2 + 0) * 2 + 1
    assert route(network, 0, 0)["path"] == []


def test_a_built_core_system_is_taken_where_a_system_is() -> None:
    """`railx._core.System` is a SystemLike: chips by id or by coordinates (resolved by the core),
    and collectives on it are those of the routed link model (it keeps no configuration)."""
    from railx.collectives.commands import collective_report
    from railx.systems import System

    spec = {"system": {"m": 2, "n": 1, "R": 8, "grid": [3, 3]}, "topology": {"preset": "torus"}}
    system = System("railx", "railx", railx=spec)
    assert parse_chip(system.core, "5") == 5
    assert parse_chip(system, "1,0,0,0") == 4  # (Y*P + X)*m*m + y*m + x
    assert parse_chip(system.core, "1,0,0,0") == 4
    with pytest.raises(railx.ConfigError) as err:
        parse_chip(system.core, "3,0,0,0")
    assert str(err.value) == (
        "chip = 3,0,0,0: X = 3 is outside the system (0 <= X < 3); use 0 <= X < 3, 0 <= Y < 3, 0 <= x, y < 2"
    )
    on_core = collective_report(system.core, "allreduce", "ring", 1 << 20)
    assert on_core["link_model"] == "routed"
    assert on_core["time_s"] == collective_report(system, "allreduce", "ring", 1 << 20, link_model="routed")["time_s"]
