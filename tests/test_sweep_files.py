"""Sweep analyses whose options name files (docs/sweeps.md, File options): LIBRA (`railx libra`)
and job packing (`railx allocate`). The files are read when the spec is loaded and their text
travels with the point, so the record equals the CLI's, the content hash follows the files'
contents (not their paths), the worker needs no file at all, and a missing file fails at load
with one line naming the axis and the option."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import run_railx
from railx.config import ConfigError
from railx.sweep import parse_spec
from railx.sweep.point import run_point

ROOT = Path(__file__).resolve().parents[1]
LIBRA = ROOT / "examples" / "libra"
LIBRA_FILES = ("network-3d.yml", "transformer.txt", "transformer-3d.yml", "cost-3d.yml", "constraints.toml")


def libra_spec(axes: list[Any] | None = None, **options: Any) -> dict[str, Any]:
    base = {
        "network": "network-3d.yml",
        "workload": ["transformer.txt"],
        "communicator": ["transformer-3d.yml"],
        "cost": "cost-3d.yml",
    }
    return {"sweep": {"name": "t", "analysis": "libra"}, "options": base | options, "axis": axes or []}


@pytest.fixture
def libra_dir(tmp_path: Path) -> Path:
    for name in LIBRA_FILES:
        shutil.copy(LIBRA / name, tmp_path / name)
    return tmp_path


def cli_json(*args: Any) -> dict[str, Any]:
    result = run_railx(*args, "--json")
    assert result.rc == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("objective", ["perf", "perf-per-cost"])
def test_the_libra_record_is_railx_libra_json(libra_dir: Path, objective: str) -> None:
    sweep = parse_spec(libra_spec(objective=objective, total_bw=400.0, constraints="constraints.toml"), libra_dir, "t")
    record = run_point(sweep.points[0].inputs)["record"]
    expected = cli_json(
        "libra", "--network", libra_dir / "network-3d.yml", "--workload", libra_dir / "transformer.txt",
        "--communicator", libra_dir / "transformer-3d.yml", "--cost", libra_dir / "cost-3d.yml",
        "--objective", objective, "--total-bw", "400", "--constraints", libra_dir / "constraints.toml",
    )  # fmt: skip
    assert record == expected
    # The budget and the constraints hold (bw0 >= bw1, bw2 <= 100), and the optimum is no slower
    # than EqualBW at the same budget (PerfOpt), or no worse in performance per cost (PerfPerCostOpt).
    bw = record["bw_per_dim"]
    assert sum(bw) == pytest.approx(400.0, rel=1e-6) and bw[0] >= bw[1] - 1e-6 and bw[2] <= 100 + 1e-6
    gain = record["speedup"] if objective == "perf" else record["perf_per_cost_gain"]
    assert gain >= 1 - 1e-9


def test_a_libra_notation_stays_inline(libra_dir: Path) -> None:
    sweep = parse_spec(libra_spec(network="RI(4)_FC(8)_SW(32)", cost_dims="InterChiplet,InterPackage,InterPod",
                                  total_bw=300.0), libra_dir, "t")  # fmt: skip
    assert sweep.points[0].inputs["options"]["network"] == "RI(4)_FC(8)_SW(32)"
    from_file = parse_spec(libra_spec(total_bw=300.0), libra_dir, "t")
    # The notation with the file's cost dimensions is the file's network: the same optimum.
    assert run_point(sweep.points[0].inputs)["record"] == run_point(from_file.points[0].inputs)["record"]


def test_the_worker_parses_the_shipped_text_not_the_files(libra_dir: Path) -> None:
    sweep = parse_spec(libra_spec(total_bw=200.0), libra_dir, "t")
    before = run_point(sweep.points[0].inputs)
    for name in LIBRA_FILES:
        (libra_dir / name).unlink()  # a worker on another machine has none of them
    after = run_point(sweep.points[0].inputs)
    assert after["error"] is None and after["record"] == before["record"]
    workload = sweep.points[0].inputs["options"]["workload"][0]
    assert workload == {"file": "transformer.txt", "text": (LIBRA / "transformer.txt").read_text()}


def test_the_hash_follows_file_contents_not_paths(libra_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    key = parse_spec(libra_spec(), libra_dir, "t").points[0].key
    elsewhere = tmp_path_factory.mktemp("moved")
    for name in LIBRA_FILES:
        shutil.copy(libra_dir / name, elsewhere / name)
    assert parse_spec(libra_spec(), elsewhere, "t").points[0].key == key  # moved, same contents
    for name in LIBRA_FILES[:4]:
        path = libra_dir / name
        path.write_text(path.read_text() + "\n# edited\n")
        edited = parse_spec(libra_spec(), libra_dir, "t").points[0].key
        assert edited != key, name
        key = edited


@pytest.mark.parametrize(
    ("options", "axes", "expected"),
    [
        ({"cost": "missing.yml"}, None, "options: options.cost = 'missing.yml': no such file"),
        (
            {},
            [{"grid": {"options.workload": [["transformer.txt"], ["gone.txt"]]}}],
            "axis 1 (grid: options.workload): options.workload = 'gone.txt': no such file",
        ),
        ({"network": "ring-of-4"}, None, "or a notation like RI(4)_FC(8)_RI(4)_SW(32)"),
        ({"cost": None}, None, "options: options.cost is required: give a LIBRA cost-model YAML file"),
    ],
)
def test_a_missing_file_fails_at_spec_load_naming_axis_and_option(
    libra_dir: Path, options: dict[str, Any], axes: list[Any] | None, expected: str
) -> None:
    data = libra_spec(axes, **options)
    data["options"] = {k: v for k, v in data["options"].items() if v is not None}
    with pytest.raises(ConfigError) as info:
        parse_spec(data, libra_dir, "t")
    assert expected in str(info.value) and "\n" not in str(info.value)


# --- railx allocate ----------------------------------------------------------------------------

SYSTEM = '[system]\nm = 2\nn = 1\nR = 8\ngrid = [4, 4]\n\n[topology]\npreset = "torus"\n'
JOBS = '[[jobs]]\nname = "big"\nshape = [3, 2]\n\n[[jobs]]\nname = "small"\nshape = [1, 1]\ntopology = { preset = "torus" }\n'


@pytest.fixture
def allocate_dir(tmp_path: Path) -> Path:
    (tmp_path / "system.toml").write_text(SYSTEM)
    (tmp_path / "failed.json").write_text("[[0, 0], [3, 2]]")
    (tmp_path / "jobs.toml").write_text(JOBS)
    return tmp_path


def allocate_spec(**options: Any) -> dict[str, Any]:
    return {"sweep": {"name": "t", "analysis": "allocate", "base": "system.toml"}, "options": options}


@pytest.mark.parametrize("jobs", ["all", "single", "jobs.toml"])
def test_the_allocate_record_is_railx_allocate_json(allocate_dir: Path, jobs: str) -> None:
    sweep = parse_spec(allocate_spec(failed="failed.json", jobs=jobs), allocate_dir, "t")
    result = run_point(sweep.points[0].inputs)
    assert result["error"] is None, result["error"]
    record = result["record"]
    cli_jobs = jobs if jobs != "jobs.toml" else allocate_dir / "jobs.toml"
    out = allocate_dir / f"out-{jobs}"
    expected = cli_json("allocate", allocate_dir / "system.toml", "--failed", allocate_dir / "failed.json",
                        "--jobs", cli_jobs, "--out", out)  # fmt: skip
    # The same packing; the CLI's OCS files are paths in --out, the sweep's their names.
    assert record == expected | {"ocs_files": [Path(p).name for p in expected["ocs_files"]]}
    # No job covers a failed node, and jobs never overlap.
    failed = {tuple(f) for f in record["failed"]}
    cells = [(x, y) for job in record["jobs"] for x in job["xs"] for y in job["ys"]]
    assert not failed & set(cells) and len(cells) == len(set(cells))


def test_allocate_takes_failed_nodes_inline_as_from_a_file(allocate_dir: Path) -> None:
    inline = parse_spec(allocate_spec(failed=[[0, 0], [3, 2]]), allocate_dir, "t").points[0]
    from_file = parse_spec(allocate_spec(failed="failed.json"), allocate_dir, "t").points[0]
    assert run_point(inline.inputs)["record"] == run_point(from_file.inputs)["record"]


def test_allocate_refuses_a_missing_jobs_file_and_a_peer_base(allocate_dir: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"^options: options.jobs = 'nope.toml': no such file .*\"all\" or \"single\""
    ):
        parse_spec(allocate_spec(failed="failed.json", jobs="nope.toml"), allocate_dir, "t")
    with pytest.raises(ConfigError, match=r"^options: options.failed is required"):
        parse_spec(allocate_spec(), allocate_dir, "t")
    peer = parse_spec(allocate_spec(failed=[]) | {"sweep": {"name": "t", "analysis": "allocate", "base": "ft2"}},
                      allocate_dir, "t")  # fmt: skip
    assert "allocate reads a RailX configuration" in run_point(peer.points[0].inputs)["error"]


# --- shipped names or files: cost's catalog, workload's and allocate-bw's model -----------------


def test_a_catalog_or_model_file_travels_as_text_and_a_shipped_name_stays_inline(tmp_path: Path) -> None:
    from railx.cost.catalog import CATALOG_DIR
    from railx.workload.catalogue import MODELS_DIR

    shutil.copy(CATALOG_DIR / "railx-table6.toml", tmp_path / "prices.toml")
    shutil.copy(MODELS_DIR / "llama3-70b.toml", tmp_path / "model.toml")
    shutil.copy(ROOT / "examples" / "workloads" / "listing1.toml", tmp_path / "listing1.toml")
    cost = {"sweep": {"name": "t", "analysis": "cost", "base": "ft2"},
            "axis": [{"grid": {"options.catalog": ["railx-table6", "prices.toml"]}}]}  # fmt: skip
    named, from_file = parse_spec(cost, tmp_path, "t").points
    assert named.inputs["options"]["catalog"] == "railx-table6"
    assert from_file.inputs["options"]["catalog"]["file"] == "prices.toml"
    assert run_point(named.inputs)["record"] == run_point(from_file.inputs)["record"]
    work = {"sweep": {"name": "t", "analysis": "workload", "base": "listing1.toml"}, "options": {"parallel": "T=4,D=16"},
            "axis": [{"grid": {"options.model": ["llama3-70b", "model.toml"]}}]}  # fmt: skip
    named, from_file = parse_spec(work, tmp_path, "t").points
    (tmp_path / "model.toml").unlink()  # the worker reads the shipped text, not the file
    assert run_point(named.inputs)["record"] == run_point(from_file.inputs)["record"]
    baseline = ROOT / "examples" / "sweeps" / "systems" / "fat-tree-1296.toml"
    shutil.copy(baseline, tmp_path / "fat-tree-1296.toml")
    by_file = parse_spec(cost | {"options": {"baseline": "fat-tree-1296.toml"}, "axis": []}, tmp_path, "t").points[0]
    (tmp_path / "fat-tree-1296.toml").unlink()
    from railx.cost import figures, load_catalog, relative_to, resolve_system

    catalog = load_catalog("railx-table6")
    expected = relative_to([figures(resolve_system("ft2"), catalog)], figures(resolve_system(str(baseline)), catalog))
    assert run_point(by_file.inputs)["record"] == json.loads(json.dumps(expected[0]))
    with pytest.raises(ConfigError, match=r"^axis 1 \(grid: options.catalog\): options.catalog = 'nope': no such file"):
        parse_spec(cost | {"axis": [{"grid": {"options.catalog": ["nope"]}}]}, tmp_path, "t")
