"""Every table the CLI prints keeps every number at 80 columns with stdout redirected (the case
where rich used to cut cells to `…`): no cell cut, no Python repr of a dict, no `None`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.table import Table

from railx.tables import cell, split_columns

REPO = Path(__file__).resolve().parents[1]

FAILED = [[1, 1], [3, 2]]

# One invocation of every table-printing command (short variants of slow ones); "{tmp}" is a
# fresh folder, "{failed}" a failed-nodes file in it.
COMMANDS: dict[str, list[str]] = {
    "plan": ["plan", "examples/hyperx-9x9.toml"],
    "plan-jobs": ["plan", "examples/jobs.toml"],
    "ocs": ["ocs", "examples/jobs.toml", "--out", "{tmp}/ocs"],
    "availability-failed": ["availability", "examples/jobs.toml", "--failed", "{failed}"],
    "availability-rate": ["availability", "examples/jobs.toml", "--rate", "0.01", "--samples", "3"],
    "allocate": ["allocate", "examples/jobs.toml", "--failed", "{failed}", "--jobs", "all", "--out", "{tmp}/alloc"],
    "workload": [
        "workload",
        "llama3-70b-moe8",
        "--parallel",
        "T=4,C=2,E=2,D=4,P=2",
        "--system",
        "examples/workloads/listing1.toml",
    ],
    "allocate-bw": [
        "allocate-bw",
        "llama3-70b-moe8",
        "--parallel",
        "T=4,C=2,E=2,D=4,P=2",
        "--system",
        "examples/workloads/listing1.toml",
        "--reconfig-ms",
        "1",
    ],
    "traffic": ["traffic", "gpt-1t", "--parallel", "T=8,P=8,D=64", "--hb-domain", "256", "--global-batch", "4096"],
    "rail-failures": ["rail-failures", "--hb-domain", "8", "--domains", "16", "--spare-domains", "1"],
    "libra": [
        "libra",
        "--network",
        "examples/libra/network-3d.yml",
        "--workload",
        "examples/libra/transformer.txt",
        "--communicator",
        "examples/libra/transformer-3d.yml",
        "--cost",
        "examples/libra/cost-3d.yml",
        "--total-bw",
        "400",
    ],
    "cost-systems": ["cost", "ft2", "railx7mesh", "tpuv4", "flex-sipac-512"],
    "cost-table6": ["cost", "--table6"],
    "cost-railonly-table2": ["cost", "--railonly-table2"],
    "scale": ["scale"],
    "route": ["route", "examples/hyperx-5x5.toml", "--from", "0", "--to", "1,4,1,1"],
    "route-deadlock": ["route", "examples/hyperx-5x5.toml", "--check-deadlock"],
    "route-stats": ["route", "examples/hyperx-5x5.toml", "--stats"],
    "collective": ["collective", "examples/torus-9x9.toml", "--op", "all-reduce", "--algo", "hierarchical", "--sweep"],
    "sim": ["sim", "examples/hyperx-5x5.toml", "--cycles", "300", "--warmup", "100"],
    "sim-sweep": ["sim", "examples/hyperx-5x5.toml", "--cycles", "300", "--warmup", "100", "--sweep", "0.1,0.3"],
    "wavelengths": ["wavelengths", "examples/wavelengths/flex-sipac-jobs.toml"],
    "multitenant": ["multitenant", "--cus", "64", "--job", "40", "--job", "24", "--size", "1MB"],
}


def run_at_80_columns(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    failed = tmp / "failed.json"
    failed.write_text(json.dumps(FAILED))
    argv = [a.format(tmp=tmp, failed=failed) for a in args]
    env = dict(os.environ, COLUMNS="80", PYTHONPATH=str(REPO / "python"))
    env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "railx.cli", *argv], capture_output=True, text=True, env=env, cwd=REPO, timeout=300
    )


@pytest.mark.parametrize("name", list(COMMANDS))
def test_tables_keep_every_number_at_80_columns(name: str, tmp_path: Path) -> None:
    result = run_at_80_columns(COMMANDS[name], tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "─" in out, f"{name}: no table printed"
    assert "…" not in out, f"{name}: a cell cut to …:\n{out}"
    assert "None" not in out, f"{name}: None in a cell:\n{out}"
    assert "{'" not in out, f"{name}: a dict's repr in a cell:\n{out}"
    assert max(len(line) for line in out.splitlines()) <= 80, f"{name}: wider than 80 columns:\n{out}"


def test_cell_formats_values_as_text() -> None:
    assert cell(None) == "-"
    assert cell(0.1234567891) == "0.123457"
    assert cell(True) == "yes"
    assert cell({"Ho": 2, "Hi": 12}) == "2 Ho + 12 Hi"
    assert cell({"X": 1.5, "Y": None}) == "X: 1.5, Y: -"
    assert cell([1, 2.5, "a"]) == "1, 2.5, a"
    assert cell("text") == "text"


def _wide_table(columns: int) -> Table:
    table = Table(title="wide")
    for i in range(columns):
        table.add_column(f"column {i}", justify="right")
    table.add_row(*(f"{123456789.125 * (i + 1):,.3f}" for i in range(columns)))
    return table


@pytest.mark.parametrize("columns", [1, 2, 5, 12])
def test_split_keeps_the_key_column_and_every_other_once(columns: int) -> None:
    from rich.console import Console

    console = Console(width=80, file=open(os.devnull, "w"))  # noqa: SIM115
    parts = split_columns(_wide_table(columns), 80, console)
    headers = [[str(c.header) for c in part.columns] for part in parts]
    assert all(h[0] == "column 0" for h in headers)
    rest = [name for h in headers for name in h[1:]]
    assert rest == [f"column {i}" for i in range(1, columns)]
    with console.capture() as captured:
        for part in parts:
            console.print(part)
    text = captured.get()
    assert "…" not in text
    for i in range(columns):
        assert f"{123456789.125 * (i + 1):,.3f}" in text  # every number whole, on one line


def test_sweep_and_results_tables_keep_every_number(tmp_path: Path) -> None:
    store = str(tmp_path / "table6.duckdb")
    ran = run_at_80_columns(["sweep", "examples/sweeps/table6.toml", "--workers", "1", "--store", store], tmp_path)
    sql = "SELECT seq, base, chips, cost_usd, record FROM results ORDER BY seq"
    queried = run_at_80_columns(["results", "--store", store, "query", sql], tmp_path)
    for result in (ran, queried):
        assert result.returncode == 0, result.stderr
        for bad in ("…", "None", "{'"):
            assert bad not in result.stdout, result.stdout
    assert "4.15872e+08" in queried.stdout  # ft2's cost ($415,872,000), whole
