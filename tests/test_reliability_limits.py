"""Bounded memory and time for any input (issue 25, items 1-3): each case runs in a fresh process
under an address-space limit (RLIMIT_AS) and a timeout, and must end in exit 2 with one line on
stderr naming the input that drives the size: no traceback, no abort, no out-of-memory kill.

The resource budget (docs/architecture.md, Resource budget) defaults to half of what the limit
leaves, so the refusals here come from the estimator, before anything large is allocated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
HYPERX = str(REPO / "examples/hyperx-9x9.toml")
TORUS = str(REPO / "examples/torus-9x9.toml")
LIMIT_BYTES = 3 << 30  # the address space a case may map (the interpreter and NumPy take ~1 GiB)
TIMEOUT_S = 120


def _limited(
    code: str, *args: str, work_budget: str | None = None, memory_budget: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs `python -c code args...` under the memory limit and the timeout (and work and memory
    budgets other than the defaults when given)."""
    prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({LIMIT_BYTES}, {LIMIT_BYTES}))\n"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), COLUMNS="200", NO_COLOR="1", TERM="dumb")
    env.pop("RAILX_MEMORY_BUDGET", None)
    env.pop("RAILX_WORK_BUDGET", None)
    if work_budget is not None:
        env["RAILX_WORK_BUDGET"] = work_budget
    if memory_budget is not None:
        env["RAILX_MEMORY_BUDGET"] = memory_budget
    return subprocess.run(
        [sys.executable, "-c", prelude + code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=TIMEOUT_S,
    )


def cli(*args: str, work_budget: str | None = None) -> subprocess.CompletedProcess[str]:
    code = "import sys; from railx.cli import main; sys.argv = ['railx', *sys.argv[1:]]; main()"
    return _limited(code, *args, work_budget=work_budget)


def api(call: str, **budgets: str) -> subprocess.CompletedProcess[str]:
    """Runs one API call; a refusal prints `error: MESSAGE` and exits 2, as the CLI does."""
    code = textwrap.dedent(f"""
        import sys, railx
        from railx import ConfigError
        try:
            {call}
        except ConfigError as e:
            print("error:", e, file=sys.stderr)
            sys.exit(2)
    """)
    return _limited(code, **budgets)


def assert_refused(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def config(tmp_path: Path, system: str, topology: str = 'preset = "torus"') -> str:
    path = tmp_path / "system.toml"
    path.write_text(f"[system]\n{system}\n[topology]\n{topology}\n")
    return str(path)


# Item 1: refuse by estimate, before allocating; the refusal names the driver and what fits.


def test_mesh_of_1024_on_a_hyperx_names_m(tmp_path: Path) -> None:
    path = config(tmp_path, "m = 1024\nn = 2\nR = 128\ngrid = [9, 9]", 'preset = "hyperx"')
    line = assert_refused(cli("plan", path), "system.m = 1024", "of memory", "the largest system.m that fits is")
    assert int(line.rsplit("fits is ", 1)[1].split()[0]) < 1024


@pytest.mark.parametrize("radix", [8192, 65536])
def test_torus_of_radix_beyond_memory_names_R(tmp_path: Path, radix: int) -> None:
    path = config(tmp_path, f"m = 1\nn = 1\nR = {radix}")
    line = assert_refused(cli("plan", path), f"system.R = {radix}", "the largest system.R that fits is")
    assert int(line.rsplit("fits is ", 1)[1].split()[0]) % 2 == 0  # a valid (even) radix


def test_all_to_all_row_of_10000_nodes(tmp_path: Path) -> None:
    path = config(
        tmp_path,
        "m = 10\nn = 1000\nR = 20000\ngrid = [10000, 1]",
        'x = [{size = 10000, kind = "all-to-all", rails = 9999}]\ny = []',
    )
    assert_refused(cli("plan", path), "system.grid[0] (P) = 10000", "RAILX_MEMORY_BUDGET")


def test_grid_of_10000_by_10000(tmp_path: Path) -> None:
    path = config(tmp_path, "m = 1\nn = 1\nR = 20000\ngrid = [10000, 10000]")
    assert_refused(cli("plan", path), "system.grid[", "the largest system.grid[")


def test_65k_chip_torus_metrics_are_refused_by_work(tmp_path: Path) -> None:
    # 256 x 256 nodes: the network fits, its all-pairs metrics would run for half an hour.
    path = config(tmp_path, "m = 1\nn = 1\nR = 512")
    assert_refused(cli("plan", path), "the metrics of this RailX network", "steps of work", "RAILX_WORK_BUDGET")


def test_m_and_n_of_1024(tmp_path: Path) -> None:
    path = config(tmp_path, "m = 1024\nn = 1024\nR = 128\ngrid = [4, 4]")
    assert_refused(cli("plan", path), "system.m = 1024", "the largest system.m that fits is")


def test_hamiltonian_rails_of_2_31() -> None:
    assert_refused(api("railx.hamiltonian_rails(2**31 - 1)"), "s = 2147483647", "the largest s that fits is")


def test_flit_collective_chunks_count_in_the_estimate() -> None:
    proc = cli("collective", HYPERX, "--fidelity", "flit", "--size", "1MB", "--chunks", "1000000")
    assert_refused(proc, "chunks = 1000000", "the largest chunks that fits is")


def test_flit_collective_chunks_of_2_31_through_the_binding() -> None:
    call = (
        "from railx._core import flit_collective; "
        f"flit_collective(railx.System.resolve('{TORUS}').core, 'all-reduce', 'ring', 1 << 20, chunks=2**31 - 1)"
    )
    assert_refused(api(call), "chunks = 2147483647")


def test_huge_buffers_through_the_binding_json() -> None:
    settings_json = json.dumps({"buffer_flits": 2**32 - 1})
    call = (
        "from railx._core import flit_simulate; "
        f"flit_simulate(railx.System.resolve('{HYPERX}').core, '{settings_json}', "
        """'{"pattern": "uniform", "load": 0.1}')"""
    )
    assert_refused(api(call), "buffer_flits = 4294967295", "the largest buffer_flits that fits is")


def test_n_of_2_32_through_the_binding_json() -> None:
    system = {"m": 4, "n": 2**32 - 1, "R": 128, "grid": [9, 9], "port_bw_Bps": 5e10, "intra_bw_Bps": 1e11}
    system |= {"alpha_out_s": 3e-7, "alpha_in_s": 1e-8}
    spec = json.dumps({"system": system, "topology": {"preset": "torus"}})
    assert_refused(api(f"railx._core.railx_plant_json('{json.dumps(system)}')"), "system.n = 4294967295")
    assert_refused(api(f"railx._core.System('{spec}')"), "system.n = 4294967295", "32-bit")


# Item 2: bounded loops.


def test_scale_radix_is_bounded() -> None:
    assert_refused(cli("scale", "--radix", "2147483648"), "radix = 2147483648", "4..=16384")


def test_reduce_delay_of_a_second_per_byte_at_flit_level_is_refused_in_time() -> None:
    proc = cli("collective", TORUS, "--fidelity", "flit", "--size", "1MB", "--reduce-s-per-byte", "1")
    assert_refused(proc, "reduce_s_per_byte = 1.000e0", "steps of work", "the largest reduce_s_per_byte that fits")


def test_a_reduce_delay_is_simulated_at_flit_level_up_to_the_largest_that_fits(tmp_path: Path) -> None:
    """The flit level holds each message that forwards reduced data for its delay, cycle by cycle:
    a ring all-reduce over p ranks forwards reduced data in p - 1 steps, so the delay adds
    (p - 1) d S / p (the flow level's increase, exactly). Beyond the work budget the delay is
    refused, and the largest value the refusal names runs and adds the same."""
    path = config(tmp_path, "m = 2\nn = 1\nR = 4")  # 16 chips, a 2 x 2 torus of 2 x 2 meshes
    size, ranks = 2**20, 16

    def flit_time_s(delay: float, work_budget: str | None = None) -> subprocess.CompletedProcess[str]:
        args = ("--op", "all-reduce", "--algo", "ring", "--size", str(size), "--routing", "dateline", "--json")
        return cli(
            "collective", path, *args, "--fidelity", "flit", "--reduce-s-per-byte", str(delay), work_budget=work_budget
        )

    def added_s(proc: subprocess.CompletedProcess[str]) -> float:
        assert proc.returncode == 0, proc.stderr[-500:]
        return float(json.loads(proc.stdout)["time_s"]) - base_s

    base_s = float(json.loads(flit_time_s(0.0).stdout)["time_s"])
    assert added_s(flit_time_s(1e-10)) == pytest.approx((ranks - 1) * 1e-10 * size / ranks, rel=0.01)
    line = assert_refused(flit_time_s(1.0, "1e8"), "reduce_s_per_byte = 1.000e0", "steps of work")
    fits = float(line.rsplit("fits is ", 1)[1].split()[0])
    assert added_s(flit_time_s(fits, "1e8")) == pytest.approx((ranks - 1) * fits * size / ranks, rel=0.01)


def test_huge_cycles_and_size_flits_are_refused_by_work() -> None:
    # A rate run's source queues outgrow memory before its cycles outgrow the work budget.
    assert_refused(cli("sim", HYPERX, "--cycles", str(2**62)), f"cycles = {2**62 + 5000}:", "the largest cycles that")
    assert_refused(
        cli("sim", HYPERX, "--traffic", "all-to-all", "--size-flits", str(2**31)), "size_flits = ", "steps of work"
    )


def test_route_samples_are_refused_by_the_estimate() -> None:
    # Samples beyond the pairs there are route every pair once: the 1,296-chip torus's 1.7M
    # pairs at 1,000 steps each, over a work budget of 1e8 steps.
    proc = cli("route", TORUS, "--stats", "--samples", str(2**62), work_budget="1e8")
    assert_refused(proc, f"samples = {2**62}:", "the largest samples that fits is 100000 ")


def test_availability_samples_and_time_limit_have_bounds() -> None:
    assert_refused(cli("availability", HYPERX, "--rate", "0.01", "--samples", "1000000"), "--samples")
    assert_refused(cli("availability", HYPERX, "--rate", "0.01", "--time-limit", "1e9"), "--time-limit")


def largest_that_fits(line: str) -> int:
    """The value a refusal says is the largest that fits."""
    return int(line.rsplit("fits is ", 1)[1].split()[0])


# What were fixed caps are on the work budget: the exhaustive deadlock check (up to 12,000 chips
# before), a routed link measurement (20M messages), the symbolic check (20,000 messages).


def test_an_exhaustive_deadlock_check_is_refused_by_the_work_budget() -> None:
    # About 1e7 steps estimated: 1,296 chips walked as 81 node groups.
    proc = cli("route", HYPERX, "--check-deadlock", work_budget="1e6")
    line = assert_refused(proc, "chips = 1296:", "the exhaustive deadlock check of routing = minimal", "steps of work")
    assert 2 <= largest_that_fits(line) < 1296


def test_a_routed_link_measurement_is_refused_by_the_work_budget() -> None:
    args = ("--op", "all-to-all", "--algo", "direct", "--size", "1MB", "--fidelity", "analytic")
    proc = cli("collective", HYPERX, *args, "--link-model", "routed", work_budget="2e6")
    line = assert_refused(proc, "ranks = 1296:", "direct line (link_model = routed", "steps of work")
    assert 2 <= largest_that_fits(line) < 1296


def test_a_symbolic_check_is_refused_by_the_budgets_and_what_fits_runs(tmp_path: Path) -> None:
    """Before the schedule is built (its messages, from the plan) and before it is checked (the
    ancestors' n^2 bits): following each refusal's largest chunks reaches a check that runs."""
    path = config(tmp_path, "m = 2\nn = 1\nR = 4")  # 16 chips

    def check(chunks: int) -> subprocess.CompletedProcess[str]:
        core = f"railx.System.resolve({path!r}).core"
        call = f"railx._core.collective_check({core}, 'all-reduce', 'ring', 1 << 20, {chunks})"
        return api(call, work_budget="1e8", memory_budget="64MiB")

    chunks, refusals = 10**6, 0
    while (proc := check(chunks)).returncode != 0:
        line = assert_refused(proc, f"chunks = {chunks}:")
        chunks, refusals = largest_that_fits(line), refusals + 1
        assert refusals <= 3, line
    assert refusals >= 1 and 1 <= chunks < 10**6


# Item 3: no silent wrap.


def test_max_scale_overflow_and_zero_are_errors() -> None:
    assert_refused(api("railx.max_scale(2**31 - 1, 2, 128)"), "m = 2147483647", "2^64")
    assert_refused(api("railx.max_scale(0, 2, 128)"), "m = 0", "positive")


def test_infinite_k_names_the_field(tmp_path: Path) -> None:
    path = config(tmp_path, "m = 4\nn = 2\nR = 128\ngrid = [9, 9]\nk = 1e308")
    assert_refused(cli("plan", path), "k = 1e+308", "beyond floating point")


# Property: any grid and mesh either plans or is refused in one line, within the limit.


@settings(max_examples=6, deadline=None)
@given(
    m=st.sampled_from([1, 2, 64, 512, 1024]),
    n=st.sampled_from([1, 2, 1024]),
    half=st.sampled_from([2, 3, 1000, 4096, 1 << 19]),
)
def test_any_plant_is_planned_or_refused_in_one_line(m: int, n: int, half: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        path.write_text(f'[system]\nm = {m}\nn = {n}\nR = {2 * half}\n[topology]\npreset = "torus"\n')
        proc = cli("plan", str(path), "--json")
    if proc.returncode == 0:
        assert json.loads(proc.stdout)["chips"] == m * m * half * half
    else:
        assert_refused(proc)
