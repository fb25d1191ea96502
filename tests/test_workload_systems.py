"""`railx workload` on any system: the shipped examples, the workload-system file's forms and their
one-line errors, and the rule that picks each dimension's primitive (railx.workload.routed)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_railx
from railx.config import ConfigError
from railx.workload.routed import DIRECT_CANDIDATE_MAX_RANKS, routed_links
from railx.workload.system import WorkloadSystem, load_workload_system
from railx.workload.traffic import DIMS, Parallelism

WORKLOADS = sorted((EXAMPLES / "workloads").glob("*.toml"))
TRAINING = "[chip]\nsustained_tflops = 400\n[training]\nmicro_batches = 8\nsequence = 8192\n"


def command_of(path: Path) -> list[str]:
    """The `railx workload ...` line an example's header comment gives."""
    (line,) = [ln for ln in path.read_text().splitlines() if ln.lstrip("# ").startswith("railx workload ")]
    return shlex.split(line.lstrip("# "))[1:]


@pytest.mark.parametrize("path", WORKLOADS, ids=[p.stem for p in WORKLOADS])
def test_every_shipped_workload_example_runs(path: Path) -> None:
    args = command_of(path)
    assert args[args.index("--system") + 1] == f"examples/workloads/{path.name}"
    res = run_railx(*args, "--json")
    assert res.rc == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["chips"] == 64  # every example runs the Listing 1 job
    assert report["iteration_s"] >= report["compute_total_s"]
    # What each dimension got: mapped ports on RailX's plant, measured links on a peer.
    measured = load_workload_system(path).mapped is False
    assert set(report["links"]) == {"T", "C", "E", "De", "P"}
    assert all(link["place"].startswith("routed ") == measured for link in report["links"].values())


def test_a_peer_runs_the_listing1_job_with_the_same_compute_and_traffic() -> None:
    """Same model, parallelism, chip and batch: compute and the collectives' volumes are the
    system's business only through the links."""
    base = json.loads(run_railx(*command_of(EXAMPLES / "workloads" / "listing1.toml"), "--json").stdout)
    peer = json.loads(run_railx(*command_of(EXAMPLES / "workloads" / "tpuv4-64.toml"), "--json").stdout)
    assert peer["compute_total_s"] == base["compute_total_s"]
    volumes = {c["collective"]: c["volume_bytes"] for c in base["collectives"]}
    assert {c["collective"]: c["volume_bytes"] for c in peer["collectives"]} == volumes
    assert peer["system"] == "torus3d, routed dateline"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ws.toml"
    path.write_text(text + TRAINING)
    return path


def test_the_system_can_be_a_preset_a_file_a_peer_table_or_a_railx_configuration(tmp_path: Path) -> None:
    peer = 'family = "hyperx"\ndims = [2, 2]\nterminals = 2\nradix = 8\n'
    (tmp_path / "hx.toml").write_text("[peer]\n" + peer)
    by_file = load_workload_system(write(tmp_path, 'system = "hx.toml"\n'))  # relative to the workload file
    assert by_file.system == str(tmp_path / "hx.toml")
    inline = load_workload_system(write(tmp_path, "[peer]\n" + peer))
    par = Parallelism(T=2, D=4)
    assert by_file.links(par) == inline.links(par) and by_file.chips == inline.chips == 8
    assert load_workload_system(write(tmp_path, 'system = "tpuv4"\n')).chips == 4096
    railx = load_workload_system(
        write(tmp_path, '[system]\nm = 2\nn = 1\nR = 8\ngrid = [3, 3]\n[topology]\npreset = "torus"\n')
    )
    assert not railx.mapped and railx.chips == 36 and railx.describe() == "railx, routed minimal"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('system = "tpuv5"\n', "system = 'tpuv5': not a preset or a file; use one of ft2, "),
        ('system = "tpuv4"\n[peer]\nfamily = "fat-tree"\n', "peer: the system is given twice, as system and as [peer]"),
        ("", "peer = None: no system given: add a [system] plant, "),
        ('system = "tpuv4"\n[mapping]\nT = "mesh"\n', "mapping: places parallelisms on a RailX plant's ports"),
        ('system = "tpuv4"\n[topology]\npreset = "torus"\n', "topology: a [topology] goes with a [system] plant"),
        (
            '[peer]\nfamily = "torus3d"\ndims = [4, 4, 4]\nports_per_direction = 1\nbogus = 1\n',
            "peer topology: unknown field `bogus`",
        ),
        ('routing = "minimal"\n[system]\nm = 2\nn = 1\nR = 8\n', "routing = 'minimal': a [mapping]'s port model"),
    ],
)
def test_workload_system_files_are_refused_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_workload_system(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value), str(err.value)


def test_the_cli_refuses_a_parallelism_off_the_chips_a_routing_and_a_port_split_in_one_line(tmp_path: Path) -> None:
    tpu = "examples/workloads/tpuv4-64.toml"
    valiant = write(
        tmp_path, 'routing = "valiant"\n[peer]\nfamily = "torus3d"\ndims = [4, 4, 4]\nports_per_direction = 1\n'
    )
    cases = [
        (
            ("workload", "llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=2,P=2", "--system", tpu),
            "error: parallel: T*C*D*P = 4*2*2*2 = 32 must equal the system's 64 chips; e.g. D = 4",
        ),
        (
            ("allocate-bw", "llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=4,P=2", "--system", tpu),
            "error: system: splitting ports needs a [system] plant with a [mapping]",
        ),
        (
            ("workload", "llama3-70b", "--parallel", "T=4,D=16", "--system", valiant),
            "error: torus3d: routing = valiant: ",
        ),
    ]
    for args, start in cases:
        res = run_railx(*args)
        assert res.rc == 2 and res.stderr.startswith(start) and res.stderr.count("\n") == 1, res.stderr


FAT_TREE: dict[str, Any] = {"family": "fat-tree", "radix": 8, "chips": 32}
TORUS: dict[str, Any] = {"family": "torus3d", "dims": [4, 4, 2], "cube": 2, "board": [2, 2], "ports_per_direction": 1}


def split(draw: st.DrawFn, chips: int) -> Parallelism:
    """A random parallelism filling `chips` (powers of two)."""
    sizes = {d: 1 for d in DIMS}
    left = chips
    while left > 1:
        d = draw(st.sampled_from(DIMS))
        sizes[d] *= 2
        left //= 2
    return Parallelism(T=sizes["T"], C=sizes["C"], E=sizes["E"], D=sizes["E"] * sizes["De"], P=sizes["P"])


@settings(max_examples=20, deadline=None)
@given(data=st.data(), peer=st.sampled_from([FAT_TREE, TORUS]))
def test_each_dimension_gets_the_primitive_its_collectives_need(data: st.DataObject, peer: dict[str, Any]) -> None:
    """E all-to-all: direct; P sends: a one-way ring; C ring attention: a bidirectional ring; T and
    De: direct exactly where it is no slower than the bidirectional ring at every volume."""
    ws = WorkloadSystem.model_validate({"peer": peer, "chip": {"sustained_tflops": 400.0}})
    par = split(data.draw, 32)
    links = ws.links(par)
    expected = {"E": "routed direct", "P": "routed ring", "C": "routed bidir-ring"}
    for dim in DIMS:
        link, size = links[dim], par.size(dim)
        if size == 1:
            assert link.bw_bytes_per_s == 0.0 and link.place == "none (1 rank)"
            continue
        assert link.bw_bytes_per_s > 0 and link.alpha_s > 0
        if dim in expected:
            assert link.place == expected[dim]
            continue
        sizes = [par.size(d) for d in DIMS]
        line = [DIMS.index(dim)]
        (ring, direct) = ws.network_system().core.measure_lines(
            sizes, [(dim, line, "bidir-ring"), (dim, line, "direct")]
        )
        direct_no_slower = direct[1] >= ring[1] and direct[0] <= (size - 1) * ring[0]
        chosen = direct if direct_no_slower else ring
        assert link.place == ("routed direct" if direct_no_slower else "routed bidir-ring")
        assert (link.alpha_s, link.bw_bytes_per_s) == chosen
    assert DIRECT_CANDIDATE_MAX_RANKS >= 32  # every T and De here had the direct candidate


def test_routed_links_of_one_rank_dimensions_carry_nothing() -> None:
    ws = WorkloadSystem.model_validate({"peer": FAT_TREE, "chip": {"sustained_tflops": 400.0}})
    links = routed_links(ws.network_system(), Parallelism(D=32))
    assert [d for d in DIMS if links[d].bw_bytes_per_s > 0] == ["De"]
