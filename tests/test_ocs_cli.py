"""End to end through the `railx` command (README.md, Formats): plan, OCS synthesis and
verification (including tampered files), network export, help, and one-line errors."""

from __future__ import annotations

import copy
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import railx
from conftest import EXAMPLES, CliResult, run_railx, run_railx_process

HYPERX = EXAMPLES / "hyperx-5x5.toml"
TORUS = EXAMPLES / "torus-9x9.toml"
JOBS = EXAMPLES / "jobs.toml"


def assert_one_line_error(result: CliResult, *words: str) -> str:
    """Exit status 2 and exactly one line on stderr, `error: ...`, containing `words`."""
    assert result.rc == 2, (result.rc, result.stdout, result.stderr)
    message = result.stderr.strip()
    assert "\n" not in message, f"not one line:\n{result.stderr}"
    assert message.startswith("error: "), message
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in message, f"no {word!r} in: {message}"
    return message


@pytest.fixture(scope="module")
def ocs_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`railx ocs CONFIG --out DIR` for the 5x5 HyperX, the 9x9 torus and the two-job example."""
    dirs = {}
    for name, config in (("hyperx", HYPERX), ("torus", TORUS), ("jobs", JOBS)):
        out = tmp_path_factory.mktemp(f"ocs-{name}")
        result = run_railx("ocs", config, "--out", out)
        assert result.rc == 0, result.stderr
        dirs[name] = out
    return dirs


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# ------------------------------------------------------------------------------------------------
# Entry points and help


# Most tests call the CLI's entry point in this process (`run_railx`); these run real processes.


def test_both_entry_points_run() -> None:
    assert shutil.which("railx") is not None, "the `railx` console script is not installed"
    for console_script in (False, True):
        result = run_railx_process("--help", console_script=console_script)
        assert result.rc == 0, result.stderr
        for command in ("plan", "ocs", "network"):
            assert command in result.stdout


def test_end_to_end_in_processes(tmp_path: Path) -> None:
    """`railx ocs CONFIG --out DIR`, then `railx ocs verify` of the file and of a tampered copy."""
    result = run_railx_process("ocs", HYPERX, "--out", tmp_path, console_script=True)
    assert result.rc == 0, result.stderr
    path = tmp_path / "system.ocs.json"
    result = run_railx_process("ocs", "verify", path, "--topology", HYPERX)
    assert result.rc == 0, result.stderr
    assert result.stdout.startswith("OK")
    ocs = load(path)
    del switch(ocs, "Y/3/2")["circuits"][0]
    path.write_text(json.dumps(ocs))
    assert_one_line_error(run_railx_process("ocs", "verify", path, "--topology", HYPERX), "Y/3/2")
    assert_one_line_error(run_railx_process("plan", tmp_path / "missing.toml"), "missing.toml")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--help"], ["plan", "ocs", "network", "CONFIG"]),
        (["plan", "--help"], ["config", "--json"]),
        (["ocs", "--help"], ["synth", "verify", "--out"]),
        (["ocs", "synth", "--help"], ["config", "--out", "--json"]),
        (["ocs", "verify", "--help"], ["file", "--topology", "--json"]),
        (["network", "--help"], ["config", "--out", "--format", "graphml", "json"]),
    ],
    ids=["railx", "plan", "ocs", "ocs-synth", "ocs-verify", "network"],
)
def test_help(args: list[str], words: list[str]) -> None:
    result = run_railx(*args)
    assert result.rc == 0, result.stderr
    for word in words:
        assert word in result.stdout, f"{word!r} not in help of {args}"


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "no-such-config.toml"],
        ["ocs", "no-such-config.toml", "--out", "unused-dir"],
        ["network", "no-such-config.toml", "--out", "unused.json"],
        ["ocs", "verify", "no-such-file.ocs.json"],
    ],
    ids=["plan", "ocs", "network", "ocs-verify"],
)
def test_missing_file_is_one_line(args: list[str]) -> None:
    assert_one_line_error(run_railx(*args), "no-such-", "cannot read")


def test_bad_config_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[system]\nm = 2\nn = 2\nR = 16\ngrid = [4, 4]\n[topology]\npreset = "hyperx"\n')
    assert_one_line_error(run_railx("plan", config), "topology.x[0].size", "allow_matching_rail")


# ------------------------------------------------------------------------------------------------
# plan


PLAN_KEYS = (
    "chips",
    "nodes",
    "switches",
    "rails_per_dim",
    "diameter_inter_node",
    "diameter_hops",
    "bisection_bw_per_chip",
    "a2a_bound_per_chip",
)


def test_plan_json_fig7() -> None:
    result = run_railx("plan", HYPERX, "--json")
    assert result.rc == 0, result.stderr
    plan = json.loads(result.stdout)
    for key in (*PLAN_KEYS, "closed_form"):
        assert key in plan, key
    for key in PLAN_KEYS:
        assert key in plan["closed_form"], key
    assert set(plan["diameter_hops"]) == {"Ho", "Hi"}
    assert set(plan["closed_form"]["diameter_hops"]) == {"Ho", "Hi"}
    m = plan["m"]
    assert (plan["chips"], plan["nodes"], plan["switches"], plan["rails_per_dim"]) == (100, 25, 40, 4)
    assert plan["diameter_inter_node"] == 2
    assert plan["diameter_hops"]["Ho"] == 2
    assert plan["diameter_hops"]["Hi"] <= 5 * m - 6 == 4
    closed = plan["closed_form"]
    assert (closed["chips"], closed["nodes"], closed["switches"], closed["diameter_inter_node"]) == (100, 25, 40, 2)
    assert closed["diameter_hops"] == {"Ho": 2, "Hi": 5 * m - 6}
    assert plan["bisection_bw_per_chip"] > 0
    assert plan["a2a_bound_per_chip"] == pytest.approx(2 * plan["bisection_bw_per_chip"])


def test_plan_table_is_readable() -> None:
    result = run_railx("plan", HYPERX)
    assert result.rc == 0, result.stderr
    for word in ("chips", "diameter_inter_node", "closed form", "100"):
        assert word in result.stdout


# ------------------------------------------------------------------------------------------------
# ocs: synthesis and verification


def test_ocs_writes_system_file(ocs_dirs: dict[str, Path]) -> None:
    assert sorted(p.name for p in ocs_dirs["hyperx"].iterdir()) == ["system.ocs.json"]
    ocs = load(ocs_dirs["hyperx"] / "system.ocs.json")
    assert ocs["format"] == "railx.ocs/v1"
    assert ocs["system"] == {"m": 2, "n": 2, "R": 10, "grid": [5, 5]}
    assert "job" not in ocs
    # Every switch of the plant is listed: r * (P + Q) = 4 * 10.
    assert len(ocs["switches"]) == 40
    assert len({s["id"] for s in ocs["switches"]}) == 40
    for switch in ocs["switches"]:
        assert switch["id"] == f"{switch['dim']}/{switch['line']}/{switch['rail']}"
        assert switch["radix"] == 10
        assert len(switch["circuits"]) == 5  # every node's + port on every rail
    assert sum(len(s["circuits"]) for s in ocs["switches"]) == 200


def test_ocs_writes_one_file_per_job(ocs_dirs: dict[str, Path]) -> None:
    names = sorted(p.name for p in ocs_dirs["jobs"].iterdir())
    assert names == ["dense-train.ocs.json", "moe-train.ocs.json", "system.ocs.json"]
    system = load(ocs_dirs["jobs"] / "system.ocs.json")
    jobs = {name: load(ocs_dirs["jobs"] / f"{name}.ocs.json") for name in ("moe-train", "dense-train")}
    assert "job" not in system
    total = Counter()
    for name, ocs in jobs.items():
        assert ocs["format"] == "railx.ocs/v1"
        assert ocs["job"] == name
        assert ocs["system"] == system["system"]
        for switch in ocs["switches"]:
            assert switch["circuits"], "a job file lists only the switches it uses"
            total[switch["id"]] += len(switch["circuits"])
    # The system file is the union of the jobs' circuits on the shared switches.
    assert total == Counter({s["id"]: len(s["circuits"]) for s in system["switches"] if s["circuits"]})


def test_ocs_synth_json_summary(tmp_path: Path) -> None:
    result = run_railx("ocs", "synth", JOBS, "--out", tmp_path, "--json")
    assert result.rc == 0, result.stderr
    summary = json.loads(result.stdout)
    assert [Path(row["file"]).name for row in summary] == [
        "system.ocs.json",
        "moe-train.ocs.json",
        "dense-train.ocs.json",
    ]
    assert summary[0]["circuits"] == summary[1]["circuits"] + summary[2]["circuits"]


@pytest.mark.parametrize(
    ("which", "file", "config"),
    [
        ("hyperx", "system", HYPERX),
        ("hyperx", "system", None),
        ("torus", "system", TORUS),
        ("jobs", "system", JOBS),
        ("jobs", "moe-train", JOBS),
        ("jobs", "dense-train", JOBS),
        ("jobs", "dense-train", None),
    ],
    ids=["hyperx", "hyperx-ports-only", "torus", "jobs-system", "job-moe-train", "job-dense-train", "job-ports-only"],
)
def test_verify_passes(ocs_dirs: dict[str, Path], which: str, file: str, config: Path | None) -> None:
    path = ocs_dirs[which] / f"{file}.ocs.json"
    args = ["ocs", "verify", path, "--json"] + (["--topology", config] if config else [])
    result = run_railx(*args)
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    ocs = load(path)
    assert report["switches"] == len(ocs["switches"])
    assert report["circuits"] == sum(len(s["circuits"]) for s in ocs["switches"])
    if config is None:
        assert report["regions"] == []
    else:
        expected = [file] if file != "system" else [r["name"] for r in railx.realize(config).plan()["regions"]]
        assert [r["name"] for r in report["regions"]] == expected
        assert all(r["strongly_connected"] for r in report["regions"])
        assert sum(r["circuits"] for r in report["regions"]) == report["circuits"]


def test_verify_table_output(ocs_dirs: dict[str, Path]) -> None:
    result = run_railx("ocs", "verify", ocs_dirs["jobs"] / "system.ocs.json", "--topology", JOBS)
    assert result.rc == 0, result.stderr
    assert result.stdout.startswith("OK")
    assert "moe-train" in result.stdout and "dense-train" in result.stdout


def test_verify_against_another_config_names_system(ocs_dirs: dict[str, Path]) -> None:
    result = run_railx("ocs", "verify", ocs_dirs["hyperx"] / "system.ocs.json", "--topology", TORUS)
    assert_one_line_error(result, "error: system:", "grid: [5, 5]", "grid: [9, 9]")


# A corruption: which example's system file, what to do to it, whether port-level verification
# (no --topology) must already refuse it, and what the one-line message must contain.
Mutation = Callable[[dict[str, Any]], None]


def switch(ocs: dict[str, Any], switch_id: str) -> dict[str, Any]:
    (found,) = [s for s in ocs["switches"] if s["id"] == switch_id]
    return found


def _port_in_two_circuits(ocs: dict[str, Any]) -> None:
    # X/0/1: [[1, 6], [3, 4], ...] -> the - port 6 of node 3 also in the second circuit.
    switch(ocs, "X/0/1")["circuits"][1] = [3, 6]


def _two_plus_ports(ocs: dict[str, Any]) -> None:
    switch(ocs, "X/0/1")["circuits"][0] = [1, 3]


def _port_beyond_radix(ocs: dict[str, Any]) -> None:
    switch(ocs, "X/0/1")["circuits"][0] = [1, 10]


def _node_outside_grid(ocs: dict[str, Any]) -> None:
    # Torus 9x9 with R = 128: port 19 exists but belongs to node 9, outside the grid.
    switch(ocs, "X/0/0")["circuits"][-1] = [19, 0]


def _wrong_switch_id(ocs: dict[str, Any]) -> None:
    switch(ocs, "X/0/1")["id"] = "X/0/2"


def _circuit_removed(ocs: dict[str, Any]) -> None:
    del switch(ocs, "X/0/1")["circuits"][2]


def _minus_ends_swapped(ocs: dict[str, Any]) -> None:
    circuits = switch(ocs, "X/0/0")["circuits"]  # [[1, 2], [3, 6], [5, 8], [7, 4], [9, 0]]
    circuits[0][1], circuits[2][1] = circuits[2][1], circuits[0][1]


def _rail_duplicated(ocs: dict[str, Any]) -> None:
    # Rail 1 repeats rail 0's Hamiltonian cycle: each rail a ring, but pairs doubled and missing.
    switch(ocs, "X/0/1")["circuits"] = copy.deepcopy(switch(ocs, "X/0/0")["circuits"])


def _ring_skips_a_node(ocs: dict[str, Any]) -> None:
    circuits = switch(ocs, "X/0/0")["circuits"]  # [[1, 2], [3, 4], [5, 6], ...]
    circuits[0], circuits[1] = [1, 4], [3, 2]  # node 0 -> node 2, skipping node 1


def _wrong_format(ocs: dict[str, Any]) -> None:
    ocs["format"] = "railx.ocs/v2"


def _tampered(ocs_dir: Path, tmp_path: Path, mutate: Mutation) -> Path:
    """A copy of the directory's system.ocs.json with `mutate` applied."""
    ocs = load(ocs_dir / "system.ocs.json")
    mutate(ocs)
    path = tmp_path / "tampered.ocs.json"
    path.write_text(json.dumps(ocs))
    return path


TAMPERING: list[tuple[str, str, Mutation, bool, tuple[str, ...]]] = [
    ("port-in-two-circuits", "hyperx", _port_in_two_circuits, True, ("X/0/1", "port 6 is in two circuits")),
    ("two-plus-ports", "hyperx", _two_plus_ports, True, ("X/0/1", "two + ports")),
    ("port-beyond-radix", "hyperx", _port_beyond_radix, True, ("X/0/1", "port 10 does not exist")),
    ("node-outside-grid", "torus", _node_outside_grid, True, ("X/0/0", "node 9 outside the grid")),
    ("wrong-switch-id", "hyperx", _wrong_switch_id, True, ("X/0/2", 'should be "X/0/1"')),
    ("wrong-format", "hyperx", _wrong_format, True, ("format", "railx.ocs/v2", "railx.ocs/v1")),
    ("circuit-removed", "hyperx", _circuit_removed, False, ("X/0/1", "no circuit on this rail")),
    ("minus-ends-swapped", "hyperx", _minus_ends_swapped, False, ("X/0/0", "cycle of 2 nodes")),
    ("rail-duplicated", "hyperx", _rail_duplicated, False, ("X line 0", "joined 2 times", "exactly 1")),
    ("ring-skips-a-node", "torus", _ring_skips_a_node, False, ("X/0/0", "ring arc 0 -> 2")),
]
CONFIGS = {"hyperx": HYPERX, "torus": TORUS}


@pytest.mark.parametrize(
    ("which", "mutate", "ports_fail", "words"),
    [case[1:] for case in TAMPERING],
    ids=[case[0] for case in TAMPERING],
)
def test_tampered_file_is_refused(
    ocs_dirs: dict[str, Path], tmp_path: Path, which: str, mutate: Mutation, ports_fail: bool, words: tuple[str, ...]
) -> None:
    path = _tampered(ocs_dirs[which], tmp_path, mutate)
    assert_one_line_error(run_railx("ocs", "verify", path, "--topology", CONFIGS[which]), *words)
    ports_only = run_railx("ocs", "verify", path)
    if ports_fail:
        assert_one_line_error(ports_only, *words)
    else:
        assert ports_only.rc == 0, ports_only.stderr


def test_invalid_json_is_refused(ocs_dirs: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "truncated.ocs.json"
    path.write_text((ocs_dirs["hyperx"] / "system.ocs.json").read_text()[:-40])
    assert_one_line_error(run_railx("ocs", "verify", path), "OCS file")
    path.write_text('{\n  "format": "railx.ocs/v1",\n  "system": \n}\n')
    assert_one_line_error(run_railx("ocs", "verify", path), "OCS file")


# The same checks through the Python API, for corruptions beyond those above (no process each).


def _api_cases() -> list[tuple[str, str, Mutation, bool, tuple[str, ...]]]:
    def rail_beyond_r(ocs: dict[str, Any]) -> None:
        s = switch(ocs, "X/0/3")
        s["rail"], s["id"] = 4, "X/0/4"

    def line_outside_grid(ocs: dict[str, Any]) -> None:
        s = switch(ocs, "Y/4/0")
        s["line"], s["id"] = 5, "Y/5/0"

    def radix_mismatch(ocs: dict[str, Any]) -> None:
        switch(ocs, "Y/2/2")["radix"] = 12

    def listed_twice(ocs: dict[str, Any]) -> None:
        ocs["switches"].append(copy.deepcopy(switch(ocs, "Y/2/2")))

    def two_minus_ports(ocs: dict[str, Any]) -> None:
        switch(ocs, "Y/1/3")["circuits"][0] = [0, 2]

    def no_switches(ocs: dict[str, Any]) -> None:
        ocs["switches"] = []

    def unknown_key(ocs: dict[str, Any]) -> None:
        switch(ocs, "X/0/0")["comment"] = "patched"

    def across_jobs(ocs: dict[str, Any]) -> None:
        # moe-train holds X = 0..4, dense-train X = 5..7: join node (4, 0) + to node (5, 0) -.
        sw = switch(ocs, "X/0/0")
        sw["circuits"] = [c for c in sw["circuits"] if 9 not in c and 10 not in c] + [[9, 10]]

    def unused_rail(ocs: dict[str, Any]) -> None:
        # moe-train's Y all-to-all over 8 nodes uses 7 of r = 8 rails; rail 7 must stay dark.
        switch(ocs, "Y/0/7")["circuits"] = [[1, 2]]

    return [
        ("rail-beyond-r", "hyperx", rail_beyond_r, True, ("X/0/4", "rail 4 does not exist")),
        ("line-outside-grid", "hyperx", line_outside_grid, True, ("Y/5/0", "line 5 is outside the grid")),
        ("radix-mismatch", "hyperx", radix_mismatch, True, ("Y/2/2", "radix 12")),
        ("switch-listed-twice", "hyperx", listed_twice, True, ("Y/2/2", "listed twice")),
        ("two-minus-ports", "hyperx", two_minus_ports, True, ("Y/1/3", "two - ports")),
        ("unknown-key", "hyperx", unknown_key, True, ("OCS file", "comment")),
        ("no-switches", "hyperx", no_switches, False, ("X/0/0", "no circuit on this rail")),
        ("circuit-across-jobs", "jobs", across_jobs, False, ("X/0/0", "different jobs")),
        ("circuit-on-unused-rail", "jobs", unused_rail, False, ("Y/0/7", "rail 7 is unused")),
    ]


API_CASES = _api_cases()


@pytest.mark.parametrize(
    ("which", "mutate", "ports_fail", "words"),
    [case[1:] for case in API_CASES],
    ids=[case[0] for case in API_CASES],
)
def test_tampered_file_is_refused_api(
    ocs_dirs: dict[str, Path], tmp_path: Path, which: str, mutate: Mutation, ports_fail: bool, words: tuple[str, ...]
) -> None:
    path = _tampered(ocs_dirs[which], tmp_path, mutate)
    config = {"hyperx": HYPERX, "jobs": JOBS}[which]
    with pytest.raises(railx.RailxError) as info:
        railx.verify_ocs_file(path, config)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, f"no {word!r} in: {message}"
    if ports_fail:
        with pytest.raises(railx.RailxError):
            railx.verify_ocs_file(path)
    else:
        assert railx.verify_ocs_file(path)["regions"] == []


def test_job_file_for_unknown_job_is_refused(ocs_dirs: dict[str, Path], tmp_path: Path) -> None:
    ocs = load(ocs_dirs["jobs"] / "moe-train.ocs.json")
    ocs["job"] = "inference"
    path = tmp_path / "inference.ocs.json"
    path.write_text(json.dumps(ocs))
    with pytest.raises(railx.RailxError, match=r"^job: the configuration has no job named 'inference'$"):
        railx.verify_ocs_file(path, JOBS)


def test_job_files_do_not_verify_as_each_other(ocs_dirs: dict[str, Path], tmp_path: Path) -> None:
    ocs = load(ocs_dirs["jobs"] / "moe-train.ocs.json")
    ocs["job"] = "dense-train"  # moe-train's circuits claimed for dense-train's nodes
    path = tmp_path / "swapped.ocs.json"
    path.write_text(json.dumps(ocs))
    with pytest.raises(railx.RailxError, match="outside the nodes being verified"):
        railx.verify_ocs_file(path, JOBS)


# ------------------------------------------------------------------------------------------------
# network export


def _expected_counts(ocs: dict[str, Any]) -> tuple[int, int, int]:
    m, n = ocs["system"]["m"], ocs["system"]["n"]
    p, q = ocs["system"]["grid"]
    circuits = sum(len(s["circuits"]) for s in ocs["switches"])
    # n mesh lanes each way between adjacent chips.
    return p * q * m * m, p * q * 4 * m * (m - 1) * n, 2 * circuits


@pytest.mark.parametrize("which", ["hyperx", "torus"])
def test_network_graphml(ocs_dirs: dict[str, Path], tmp_path: Path, which: str) -> None:
    config = CONFIGS[which]
    out = tmp_path / "net.graphml"
    result = run_railx("network", config, "--format", "graphml", "--out", out)
    assert result.rc == 0, result.stderr
    graph = nx.read_graphml(out, force_multigraph=True)
    assert isinstance(graph, nx.MultiDiGraph) and graph.is_directed() and graph.is_multigraph()
    chips, mesh, optical = _expected_counts(load(ocs_dirs[which] / "system.ocs.json"))
    assert graph.number_of_nodes() == chips
    assert graph.number_of_edges() == mesh + optical
    classes = Counter()
    system = railx.load_config(config).system
    for _, _, data in graph.edges(data=True):
        classes[data["class"]] += 1
        assert {"class", "bandwidth_Bps", "latency_s"} <= set(data)
        if data["class"] == "inter-node-optical":
            assert 0 <= data["rail"] < system.m * system.n
            assert data["bandwidth_Bps"] == pytest.approx(system.port_bw_GBps * 1e9)
            assert data["latency_s"] == pytest.approx(system.alpha_out_ns * 1e-9)
        else:
            assert data["class"] == "intra-node"
            assert "rail" not in data and 0 <= data["lane"] < system.n
            assert data["bandwidth_Bps"] == pytest.approx(system.intra_bw_Bps)
            assert data["latency_s"] == pytest.approx(system.alpha_in_ns * 1e-9)
    assert classes == {"intra-node": mesh, "inter-node-optical": optical}
    # Every directed link has its reverse (mesh links and full-duplex circuits).
    pairs = Counter((u, v) for u, v, _ in graph.edges(keys=True))
    assert all(pairs[(v, u)] == n for (u, v), n in pairs.items())


def test_network_json(ocs_dirs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "net.json"
    result = run_railx("network", HYPERX, "--out", out, "--format", "json")
    assert result.rc == 0, result.stderr
    network = load(out)
    assert network["format"] == "railx.network/v1"
    assert network["system"] == {"m": 2, "n": 2, "R": 10, "grid": [5, 5]}
    chips, mesh, optical = _expected_counts(load(ocs_dirs["hyperx"] / "system.ocs.json"))
    assert len(network["chips"]) == chips
    assert [c["id"] for c in network["chips"]] == list(range(chips))
    assert len(network["links"]) == mesh + optical
    classes = Counter(link["class"] for link in network["links"])
    assert classes == {"intra-node": mesh, "inter-node-optical": optical}
    for link in network["links"]:
        assert {"src", "dst", "class", "bandwidth_Bps", "latency_s"} <= set(link)
        assert ("rail" in link) == (link["class"] == "inter-node-optical")
        assert ("lane" in link) == (link["class"] == "intra-node")
    # The default format is json, the same file.
    default = tmp_path / "default.json"
    assert run_railx("network", HYPERX, "--out", default).rc == 0
    assert load(default) == network


def test_network_unknown_format(tmp_path: Path) -> None:
    result = run_railx("network", HYPERX, "--format", "xml", "--out", tmp_path / "net.xml")
    assert_one_line_error(result, "xml", "json", "graphml")


# ------------------------------------------------------------------------------------------------
# Output files: nothing written on a refused format; job names cannot clash with or escape --out.


def test_network_unknown_format_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "net.xml"
    assert run_railx("network", HYPERX, "--format", "xml", "--out", out).rc == 2
    assert not out.exists()


def _two_jobs(first: str) -> str:
    return (
        "[system]\nm = 2\nn = 1\nR = 16\ngrid = [4, 4]\n"
        f'[[jobs]]\nname = "{first}"\nnodes = {{ x = [0, 2], y = [0, 2] }}\ntopology = {{ preset = "torus" }}\n'
        '[[jobs]]\nname = "b"\nnodes = { x = [2, 4], y = [0, 2] }\ntopology = { preset = "torus" }\n'
    )


def test_job_named_system_does_not_replace_system_file(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(_two_jobs("system"))
    result = run_railx("ocs", config, "--out", tmp_path / "out")
    if result.rc == 2:  # refusing the name is a fix too
        assert_one_line_error(result, "jobs[0].name")
        return
    assert result.rc == 0, result.stderr
    assert "job" not in load(tmp_path / "out" / "system.ocs.json")


def test_job_name_cannot_escape_out_dir(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(_two_jobs("../escaped"))
    result = run_railx("ocs", config, "--out", tmp_path / "out")
    assert not (tmp_path / "escaped.ocs.json").exists()
    if result.rc == 2:
        assert_one_line_error(result, "jobs[0].name")
