"""Collectives at flow level: equal to the analytic model on contention-free schedules, the CLI's
`--fidelity flow` (aggregated on a torus over every translation, or over whole rows of nodes for
the 1D ring) and its one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fig15_torus
from railx.collectives.commands import collective_report


@pytest.mark.parametrize("algo", ["hierarchical", "2d-ring", "multi-rail"])
@pytest.mark.parametrize("size", [1 << 10, 1 << 20, 1 << 30])
def test_flow_equals_analytic_where_nothing_contends(tmp_path: Path, algo: str, size: int) -> None:
    """One chip per node (m = 1) on a 4 x 4 torus: every step of every ring is one hop on its own
    link (the X and Y stages of the two halves use different links), so a step takes exactly
    alpha_out + piece / port_bw at both fidelities, and the parts (X-first, Y-first) have equal
    stage times, so the analytic max-per-stage equals the flow's max-per-part."""
    system = fig15_torus(tmp_path, 1, 4)
    analytic = collective_report(system, "all-reduce", algo, size)
    flow = collective_report(system, "all-reduce", algo, size, fidelity="flow")
    assert flow["aggregated"]
    assert flow["time_s"] == pytest.approx(analytic["time_s"], rel=1e-9)


def test_flow_report_keys_and_aggregation(tmp_path: Path) -> None:
    system = fig15_torus(tmp_path, 2, 3)
    hier = collective_report(system, "all-reduce", "hierarchical", 1 << 20, fidelity="flow")
    assert {"time_s", "algbw_Bps", "busbw_Bps", "fidelity", "algo", "flows", "events", "aggregated", "orbit"} <= set(
        hier
    )
    assert hier["aggregated"] and hier["orbit"] == 9 and hier["flows"] * 9 == hier["messages"]
    # The ring over all chips is invariant under whole-row translations only: orbits of 3.
    ring = collective_report(system, "all-reduce", "bidir-ring", 1 << 20, fidelity="flow")
    assert ring["aggregated"] and ring["orbit"] == 3 and ring["flows"] * 3 == ring["messages"]
    # Contention and multi-hop ring steps make the flow time no shorter than the analytic one
    # for the 1D ring, whose model assumes a dedicated double-bandwidth ring.
    assert ring["time_s"] >= collective_report(system, "all-reduce", "bidir-ring", 1 << 20)["time_s"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from railx.cli import main; main()", "collective", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_flow_and_errors(tmp_path: Path) -> None:
    system = fig15_torus(tmp_path, 2, 3)
    out = run_cli(system, "--algo", "2d-ring", "--size", "65536", "--fidelity", "flow", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["fidelity"] == "flow" and report["aggregated"] is True and report["events"] > 0
    # 1,024 chips: a 1D ring in 2^30 chunks, over any memory budget even over orbits of 8 rows
    big = fig15_torus(tmp_path, 4, 8)
    for args, message in [
        (
            (big, "--algo", "bidir-ring", "--size", "8", "--chunks", str(2**30), "--fidelity", "flow"),
            f"error: chunks = {2**30}: this bidir-ring schedule (aggregated over 8",
        ),
        ((system, "--size", "8", "--fidelity", "flow", "--routing", "zigzag"), "error: routing = zigzag"),
        (
            (system, "--size", "8", "--fidelity", "flow", "--reduce-s-per-byte", "-1"),
            "error: Invalid value for '--reduce-s-per-byte': must be a finite number >= 0, not -1",
        ),
    ]:
        out = run_cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr
