"""Progress and interrupt of long core runs (railx.progress): a watched run gives the same result as
an unwatched one, a callback can stop a run (railx.Cancelled) or raise through it, the CLI shows
no bar when its output is not a terminal, and Ctrl-C ends a long flit-level run with exit 130."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import railx
from conftest import REPO, run_railx
from railx import Cancelled, System
from railx.collectives.commands import collective_report
from railx.flowsim import collective
from railx.progress import shows_progress
from railx.routing import check_deadlock, route_stats
from railx.sim import FlitSettings, simulate

TORUS = System("torus-4x4", "4 x 4 torus", peer={"family": "torus3d", "dims": [4, 4, 1], "ports_per_direction": 1})


class Calls:
    """A progress callback that records its calls and returns False from its `stop_at`-th on."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.calls: list[tuple[int, int | None, str]] = []
        self.stop_at = stop_at

    def __call__(self, done: int, total: int | None, unit: str) -> bool:
        self.calls.append((done, total, unit))
        return self.stop_at is None or len(self.calls) < self.stop_at


@settings(max_examples=5, deadline=None)
@given(load=st.floats(0.05, 0.6), seed=st.integers(0, 1000), threads=st.sampled_from([1, 2]))
def test_a_watched_flit_run_equals_an_unwatched_one(load: float, seed: int, threads: int) -> None:
    config = FlitSettings(warmup_cycles=200, measure_cycles=600, seed=seed, threads=threads)
    plain, plain_links = simulate(TORUS, "uniform", load, settings=config)
    watched, watched_links = simulate(TORUS, "uniform", load, settings=config, progress=Calls())
    assert plain == watched
    assert plain_links.tolist() == watched_links.tolist()


def test_watched_flow_collectives_and_route_checks_equal_unwatched_ones() -> None:
    calls = Calls()
    assert collective(TORUS, "all-reduce", "ring", 1 << 20, progress=calls) == collective(
        TORUS, "all-reduce", "ring", 1 << 20
    )
    flit = collective_report(TORUS, "all-reduce", "ring", 1 << 16, "flit", progress=Calls())
    assert flit == collective_report(TORUS, "all-reduce", "ring", 1 << 16, "flit")
    assert check_deadlock(TORUS, progress=Calls()) == check_deadlock(TORUS)
    assert route_stats(TORUS, progress=Calls()) == route_stats(TORUS)


def long_run(progress: Any) -> None:
    """A rate run of two million cycles (minutes), which only a callback can cut short."""
    config = FlitSettings(warmup_cycles=0, measure_cycles=2_000_000)
    simulate(TORUS, "uniform", 0.1, settings=config, progress=progress)


def test_a_callback_returning_false_at_its_kth_call_cancels_the_run() -> None:
    calls = Calls(stop_at=3)
    with pytest.raises(
        Cancelled, match=r"^flit-level run cancelled after \d+ of 2000000 cycles by its progress observer$"
    ):
        long_run(calls)
    assert len(calls.calls) == 3
    done = [c[0] for c in calls.calls]
    assert done == sorted(done) and all(c[1:] == (2_000_000, "cycles") for c in calls.calls)


def test_a_callback_that_raises_stops_the_run_with_its_exception() -> None:
    def boom(done: int, total: int | None, unit: str) -> None:
        raise ValueError(f"stop at {done} {unit}")

    with pytest.raises(ValueError, match=r"^stop at \d+ cycles$"):
        long_run(boom)


def test_the_cli_shows_no_progress_when_stdout_is_not_a_terminal(tmp_path: Path) -> None:
    torus = tmp_path / "torus.toml"
    torus.write_text('[peer]\nfamily = "torus3d"\ndims = [4, 4, 1]\nports_per_direction = 1\n')
    assert not shows_progress(quiet=False)  # pytest captures stdout
    for args in (
        ("sim", torus, "--warmup", "100", "--cycles", "300"),
        ("route", torus, "--check-deadlock"),
        ("collective", torus, "--size", "65536", "--algo", "ring", "--fidelity", "flit"),
    ):
        result = run_railx(*args)
        assert result.rc == 0, result.stderr
        assert result.stderr == ""
    result = run_railx("sim", torus, "--warmup", "100", "--cycles", "300", "--json")
    assert result.stderr == "" and json.loads(result.stdout)["cycles"] == 400


def _read_until(fd: int, needle: bytes, limit_s: float) -> bytes:
    """What the terminal shows until `needle` appears (or `limit_s` passes, or the program ends)."""
    seen = b""
    end = time.monotonic() + limit_s
    while needle not in seen and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the program closed its terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_ctrl_c_stops_a_long_flit_run_with_exit_130(tmp_path: Path) -> None:
    """On a terminal the bar appears; SIGINT then ends the run within seconds, exit status 130 and
    one line saying so."""
    torus = tmp_path / "torus.toml"
    torus.write_text('[peer]\nfamily = "torus3d"\ndims = [4, 4, 1]\nports_per_direction = 1\n')
    leader, follower = pty.openpty()
    env = dict(os.environ, COLUMNS="160", TERM="xterm", PYTHONPATH=str(REPO / "python"))
    cmd = [sys.executable, "-m", "railx.cli", "sim", str(torus), "--warmup", "0", "--cycles", "100000000"]
    # As from a terminal: Ctrl-C's default disposition, whatever this process inherited (a run in
    # the background, or under nohup, starts with SIGINT ignored and would pass that on).
    proc = subprocess.Popen(
        cmd,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(follower)
    try:
        # The bar names the run's unit once the simulation has started.
        shown = _read_until(leader, b"cycles", limit_s=120)
        assert b"cycles" in shown, shown.decode(errors="replace")
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=20)
        rest = _read_until(leader, b"\n", limit_s=5) + _read_until(leader, b"nothing was written", limit_s=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    assert rc == 130
    assert b"interrupted: flit-level uniform stopped, nothing was written" in shown + rest


def test_a_watched_plan_equals_an_unwatched_one() -> None:
    """A plan's metrics with a callback (two jobs: two regions) are the plan without one; the
    core's reports (source nodes walked, summed over the regions) are tested in
    crates/railx-core/tests/progress.rs."""
    network = railx.realize(REPO / "examples" / "jobs.toml")
    assert network.plan(Calls()) == network.plan()


def test_a_watched_routed_workload_equals_an_unwatched_one() -> None:
    """The lines of a routed system's workload measured with a callback are those without (the
    reports are tested in crates/railx-core/tests/progress.rs)."""
    from railx.workload import IterationModel, load_model, load_workload_system

    system = load_workload_system(REPO / "examples" / "workloads" / "tpuv4-64.toml")
    model, par = load_model("llama3-70b-moe8"), system.parallelism(T=4, C=2, E=2, D=4, P=2)
    assert IterationModel(model, par, system, progress=Calls()).links == IterationModel(model, par, system).links


def test_python_loops_report_every_step_once() -> None:
    """The hooks of the long Python loops (availability's sweeps, multitenant's networks) and
    `tracked` count to their totals in order, and change no result."""
    from railx.availability.montecarlo import sweep
    from railx.multitenant import evaluate, map_jobs
    from railx.progress import tracked

    seen: list[tuple[int, int]] = []
    watched = sweep([(4, 4), (6, 6)], rates=[0.01, 0.1], samples=3, on_sample=lambda d, t: seen.append((d, t)))
    assert watched == sweep([(4, 4), (6, 6)], rates=[0.01, 0.1], samples=3)
    assert seen == [(d, 12) for d in range(1, 13)]
    networks: list[tuple[int, int]] = []
    mix = [map_jobs([40, 24], 64)]
    rows = evaluate(["superpod", "sipac"], ["M", "F"], mix, [1 << 20], on_network=lambda d, t: networks.append((d, t)))
    assert networks == [(1, 3), (2, 3), (3, 3)]  # F only on SiPAC
    assert rows == evaluate(["superpod", "sipac"], ["M", "F"], mix, [1 << 20])
    assert list(tracked([3, 1, 2], "steps", "steps")) == [3, 1, 2]
