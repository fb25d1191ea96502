"""Design-space sweeps (docs/sweeps.md): spec validation with one-line errors naming the axis, the
content hash, the Dask engine (embedded, and a real multi-process cluster), the DuckDB store
surviving kill -9 and resuming, retries of failing points, and the results API."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import railx
from conftest import run_railx
from railx.availability import availability
from railx.collectives.commands import collective_report
from railx.config import ConfigError
from railx.results import export, load, query
from railx.sweep import ANALYSES, Analysis, Store, load_spec, parse_spec, point_key, run_sweep
from railx.systems import System

ROOT = Path(__file__).resolve().parents[1]
TINY_RAILX = {"system": {"m": 2, "n": 1, "R": 8, "grid": [3, 3]}, "topology": {"preset": "torus"}}
TINY_FAT_TREE = {"family": "fat-tree", "radix": 8, "chips": 32}


def write_base(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text('[system]\nm = 2\nn = 1\nR = 8\ngrid = [3, 3]\n\n[topology]\npreset = "torus"\n')
    return path


def spec(
    analysis: str = "collective", base: str | None = "tiny.toml", axes: list[Any] | None = None, **options: Any
) -> dict[str, Any]:
    head: dict[str, Any] = {"analysis": analysis, "name": "t"}
    if base is not None:
        head["base"] = base
    return {"sweep": head, "options": options, "axis": axes or []}


def error_of(data: dict[str, Any], tmp_path: Path) -> str:
    write_base(tmp_path)
    with pytest.raises(ConfigError) as info:
        parse_spec(data, tmp_path, "t")
    message = str(info.value)
    assert "\n" not in message
    return message


# --- spec validation -------------------------------------------------------------------------


def test_a_bad_axis_path_fails_naming_the_axis(tmp_path: Path) -> None:
    message = error_of(spec(axes=[{"list": [{"options.size": 1024}]}, {"grid": {"system.kk": [1, 2]}}]), tmp_path)
    assert message.startswith("axis 2 (grid: system.kk): system.kk: unknown key; valid keys here are m, n, R")


def test_an_unknown_option_fails_naming_the_axis(tmp_path: Path) -> None:
    message = error_of(spec(axes=[{"grid": {"options.sise": [1, 2]}}]), tmp_path)
    assert message.startswith("axis 1 (grid: options.sise): options.sise: not an option of collective")


def test_a_value_the_schema_refuses_fails_naming_the_axis(tmp_path: Path) -> None:
    message = error_of(spec(axes=[{"zip": {"system.k": [2, -1]}}]), tmp_path)
    assert message.startswith("axis 1 (zip: system.k): system.k = -1: Input should be greater than 0")


def test_an_unknown_analysis_fails_listing_the_registered_ones(tmp_path: Path) -> None:
    message = error_of(spec(analysis="plann"), tmp_path)
    assert message == f"sweep.analysis = 'plann': unknown analysis; use one of {', '.join(ANALYSES)}"


@pytest.mark.parametrize(
    ("axis", "expected"),
    [
        ({"grid": {"options.size": []}}, "axis 1 (grid: options.size): options.size has no values"),
        (
            {"zip": {"options.size": [1], "options.chunks": []}},
            "axis 1 (zip: options.size, options.chunks): options.chunks has no values",
        ),
        ({"list": []}, "axis 1 (list): give a non-empty list of points"),
        ({"random": {"options.size": {"choice": [1]}}, "count": 0}, "axis 1 (random: options.size): count = 0"),
    ],
)
def test_an_empty_axis_fails_naming_it(tmp_path: Path, axis: dict[str, Any], expected: str) -> None:
    assert error_of(spec(axes=[axis]), tmp_path).startswith(expected)


def test_a_path_on_two_axes_and_unequal_zips_are_refused(tmp_path: Path) -> None:
    twice = spec(axes=[{"grid": {"options.size": [1]}}, {"list": [{"options.size": 2}]}])
    assert "options.size is already swept by axis 1" in error_of(twice, tmp_path)
    unequal = spec(axes=[{"zip": {"options.size": [1, 2], "options.chunks": [1]}}])
    assert "zipped lists differ in length (options.size: 2, options.chunks: 1)" in error_of(unequal, tmp_path)


def test_the_cli_reports_a_bad_spec_in_one_line_and_counts_a_good_one(tmp_path: Path) -> None:
    write_base(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\nanalysis = "collective"\nbase = "tiny.toml"\n\n[[axis]]\ngrid = { "system.kk" = [1] }\n')
    result = run_railx("sweep", bad, "--store", tmp_path / "s.duckdb")
    assert result.rc == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: axis 1 (grid: system.kk): system.kk: unknown key")
    assert not (tmp_path / "s.duckdb").exists()  # nothing ran, no store was created
    good = run_railx("sweep", ROOT / "examples" / "sweeps" / "fig15.toml", "--dry-run", "--json")
    assert good.rc == 0 and json.loads(good.stdout)["points"] == 231
    both = run_railx(
        "sweep",
        ROOT / "examples" / "sweeps" / "table6.toml",
        "--scheduler",
        "tcp://127.0.0.1:1",
        "--workers",
        "2",
        "--store",
        tmp_path / "s.duckdb",
    )
    assert both.rc == 2 and both.stderr.startswith("error: workers = 2: --workers sizes the embedded cluster")
    missing = run_railx("results", "--store", tmp_path / "none.duckdb", "query", "SELECT 1")
    assert missing.rc == 2 and "no such store" in missing.stderr


def test_axes_span_their_product_in_order(tmp_path: Path) -> None:
    write_base(tmp_path)
    data = spec(
        axes=[
            {"grid": {"options.algo": ["ring", "hierarchical"], "options.size": [1024, 2048]}},
            {"zip": {"system.k": [1, 4], "system.alpha_in_ns": [5.0, 20.0]}},
            {"random": {"options.chunks": {"choice": [1, 2, 4]}}, "count": 3, "seed": 7},
        ]
    )
    sweep = parse_spec(data, tmp_path, "t")
    assert len(sweep.points) == 4 * 2 * 3
    first = sweep.points[0]
    assert first.inputs["document"]["system"]["k"] == 1 and first.inputs["document"]["system"]["alpha_in_ns"] == 5.0
    assert first.inputs["options"]["algo"] == "ring" and first.inputs["options"]["size"] == 1024
    # Defaults are resolved into the inputs, so they are part of the hash.
    assert first.inputs["options"]["fidelity"] == "analytic"
    # The random axis is seeded: the same spec draws the same points.
    again = parse_spec(data, tmp_path, "t")
    assert [p.key for p in again.points] == [p.key for p in sweep.points]
    assert {p.assignment["options.chunks"] for p in sweep.points} <= {1, 2, 4}


# --- content hash ----------------------------------------------------------------------------

INPUTS = {
    "analysis": "collective",
    "base": "tiny",
    "document": TINY_RAILX,
    "options": {"op": "all-reduce", "algo": "ring", "size": 1024, "routing": None},
}


def test_the_content_hash_is_stable() -> None:
    # Independent of key order, and recorded: a change of the hash's definition orphans every store.
    shuffled = {k: INPUTS[k] for k in reversed(list(INPUTS))}
    assert point_key(INPUTS, "0.1.0") == point_key(shuffled, "0.1.0")
    assert point_key(INPUTS, "0.1.0") == "6913e32233c32f6296deecd5aa772196604fe5d417c77eff3d09dad2c72328ed"


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    else:
        yield path


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    return {k: replaced(v, path[1:], new) if k == path[0] else v for k, v in value.items()}


@given(
    st.sampled_from(list(leaves(INPUTS))),
    st.one_of(st.integers(), st.text(max_size=5), st.none(), st.floats(allow_nan=False)),
)
@settings(max_examples=60, deadline=None)
def test_the_content_hash_changes_with_every_input(path: tuple[Any, ...], new: Any) -> None:
    old: Any = INPUTS
    for part in path:
        old = old[part]
    if new == old and type(new) is type(old):
        return
    assert point_key(replaced(INPUTS, path, new), "0.1.0") != point_key(INPUTS, "0.1.0")


def test_the_content_hash_changes_with_the_railx_version() -> None:
    assert point_key(INPUTS, "0.1.0") != point_key(INPUTS, "0.1.1")
    assert point_key(INPUTS) == point_key(INPUTS, railx.__version__)


# --- engine and store ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """One cluster for the in-process runs: a worker thread in this process, behind a scheduler on a
    TCP port, so that `railx sweep --scheduler` in a subprocess can use it too."""
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        with Client(cluster) as c:
            yield c


COLLECTIVE_AXES = [
    {"grid": {"options.algo": ["ring", "hierarchical"], "options.size": [1024, 1 << 20]}},
    {"list": [{"system.k": 2}, {"system.k": 4}]},
]


def rows(store: Path, sweep: str = "t") -> list[tuple[Any, ...]]:
    """The rows that must not depend on where or when a point ran (not wall time, host, date)."""
    with duckdb.connect(str(store), read_only=True) as con:
        return con.execute(
            "SELECT seq, key, point, status, error, attempts, chips, time_s, availability, record::VARCHAR "
            "FROM results WHERE sweep = ? ORDER BY seq",
            [sweep],
        ).fetchall()


def test_a_sweep_stores_what_the_analysis_returns_and_reruns_compute_nothing(tmp_path: Path, client: Any) -> None:
    write_base(tmp_path)
    sweep = parse_spec(spec(axes=COLLECTIVE_AXES, op="all-reduce"), tmp_path, "t")
    with Store(tmp_path / "s.duckdb") as store:
        summary = run_sweep(sweep, store, client=client)
        again = run_sweep(sweep, store, client=client)
    assert (summary.computed, summary.failed, summary.already_stored) == (8, 0, 0)
    assert (again.computed, again.already_stored) == (0, 8)
    frame = load(tmp_path / "s.duckdb", "t")
    assert list(frame["seq"]) == list(range(8)) and set(frame["status"]) == {"ok"}
    for _, row in frame.iterrows():
        system = System("tiny", "tiny", railx=TINY_RAILX | {"system": TINY_RAILX["system"] | {"k": row["system.k"]}})
        direct = collective_report(system, "all-reduce", row["options.algo"], row["options.size"])
        assert row["record"] == json.loads(json.dumps(direct))
        assert row["time_s"] == direct["time_s"] and row["chips"] == 36 == direct["ranks"]


def test_a_failing_point_is_retried_then_recorded_and_the_sweep_goes_on(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def flaky(_base: Any, options: dict[str, Any]) -> dict[str, Any]:
        calls.append(options["n"])
        if options["n"] == 2:
            raise ConfigError("n = 2: refused on purpose\nsecond line")
        return {"chips": options["n"]}

    monkeypatch.setitem(
        ANALYSES, "flaky", Analysis("flaky", "test", "optional-system", {"n": 0}, flaky, {"chips": "chips"})
    )
    data = spec(analysis="flaky", base=None, axes=[{"grid": {"options.n": [1, 2, 3]}}])
    data["sweep"]["retries"] = 2
    sweep = parse_spec(data, tmp_path, "t")
    with Store(tmp_path / "s.duckdb") as store:
        summary = run_sweep(sweep, store, client=client)
    assert (summary.failed, summary.retries_used) == (1, 2)
    assert sorted(calls) == [1, 2, 2, 2, 3]  # the failing point ran 1 + retries times
    got = {r[0]: r[3:7] for r in rows(tmp_path / "s.duckdb")}
    assert got[1] == ("error", "n = 2: refused on purpose", 3, None)
    assert got[0] == ("ok", None, 1, 1) and got[2] == ("ok", None, 1, 3)


def test_results_query_and_export(tmp_path: Path, client: Any) -> None:
    write_base(tmp_path)
    sweep = parse_spec(spec(axes=COLLECTIVE_AXES[:1]), tmp_path, "t")
    store = tmp_path / "s.duckdb"
    with Store(store) as db:
        run_sweep(sweep, db, client=client)
    names, got = query("SELECT count(*) AS n, min(time_s) > 0 AS positive FROM results WHERE sweep = 't'", store)
    assert names == ["n", "positive"] and got == [(4, True)]
    with pytest.raises(ConfigError, match="^query: .*no_such"):
        query("SELECT * FROM no_such", store)
    assert export(tmp_path / "r.csv", "csv", store, "t") == 4
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 5
    assert export(tmp_path / "r.parquet", "parquet", store) == 4
    with duckdb.connect() as con:
        assert con.execute(f"SELECT count(*) FROM '{tmp_path / 'r.parquet'}'").fetchone() == (4,)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env() -> dict[str, str]:
    return os.environ | {"PYTHONPATH": str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_a_sweep_on_a_multi_process_cluster_gives_the_in_process_rows(tmp_path: Path, client: Any) -> None:
    write_base(tmp_path)
    sweep = parse_spec(spec(axes=COLLECTIVE_AXES, op="all-reduce"), tmp_path, "t")
    with Store(tmp_path / "local.duckdb") as store:
        run_sweep(sweep, store, client=client)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]  # the `dask` command of this interpreter
    quiet = {"env": env(), "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [
        subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet)
    ]
    try:
        for _ in range(2):
            worker = [*dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"]
            procs.append(subprocess.Popen(worker, **quiet))
        from distributed import Client

        with Client(address, timeout="30s") as remote:
            remote.wait_for_workers(2, timeout=60)
            pids = remote.run(os.getpid)
            assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
            with Store(tmp_path / "cluster.duckdb") as store:
                summary = run_sweep(sweep, store, client=remote)
        assert summary.workers == 2 and summary.computed == 8
        assert rows(tmp_path / "cluster.duckdb") == rows(tmp_path / "local.duckdb")
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


def stored_keys(store: Path, scratch: Path) -> set[str] | None:
    """The points a running sweep has committed so far: read from a copy of the store and its
    write-ahead log (the running sweep holds the file's lock). None if the copy is mid-write."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        for suffix in ("", ".wal"):
            if Path(f"{store}{suffix}").exists():
                shutil.copy(f"{store}{suffix}", scratch / f"copy.duckdb{suffix}")
        with duckdb.connect(str(scratch / "copy.duckdb"), read_only=True) as con:
            return {r[0] for r in con.execute("SELECT key FROM points").fetchall()}
    except (duckdb.Error, OSError):
        return None


def test_kill_9_then_resume_recomputes_nothing_finished_and_leaves_no_partial_rows(tmp_path: Path, client: Any) -> None:
    # Slow-enough points (a few tenths of a second each, one per task): Monte Carlo availability,
    # deterministic here (every sample settled by enumeration, none by the time-limited MILP).
    spec_file = tmp_path / "avail.toml"
    spec_file.write_text(
        '[sweep]\nname = "t"\nanalysis = "availability"\n\n'
        '[options]\ngrid = [16, 16]\nsamples = 300\nsolver = "auto"\n\n'
        '[[axis]]\ngrid = { "options.rate" = [0.010, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016, 0.017, 0.018, 0.019] }\n'
    )
    store = tmp_path / "killed.duckdb"
    # The sweep runs on the test's cluster (no worker processes to start); SIGKILL ends the sweep
    # process itself, the one that writes the store, at an arbitrary point of its run.
    command = [sys.executable, "-m", "railx.cli", "sweep", str(spec_file), "--store", str(store), "--json"]
    command += ["--scheduler", client.scheduler.address]
    proc = subprocess.Popen(command, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: set[str] | None = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        seen = stored_keys(store, tmp_path / "peek")
        if seen and len(seen) >= 2:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.2)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the sweep ended before it could be killed mid-run"
    assert seen is not None
    with duckdb.connect(str(store), read_only=True) as con:
        before = dict(con.execute("SELECT key, finished_at FROM points").fetchall())
        partial = con.execute("SELECT count(*) FROM points WHERE status <> 'ok' OR record IS NULL").fetchone()
    assert set(before) >= seen and 2 <= len(before) < 10 and partial == (0,)

    resumed = subprocess.run([*command, "--resume"], env=env(), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert (summary["already_stored"], summary["computed"], summary["failed"]) == (len(before), 10 - len(before), 0)
    with duckdb.connect(str(store), read_only=True) as con:
        after = dict(con.execute("SELECT key, finished_at FROM points").fetchall())
    assert all(after[k] == v for k, v in before.items())  # no finished point recomputed

    with Store(tmp_path / "whole.duckdb") as whole:
        run_sweep(load_spec(spec_file), whole, client=client)
    assert rows(store) == rows(tmp_path / "whole.duckdb")
    assert all("milp" not in json.loads(r[9])["solvers"] for r in rows(store))
    first = rows(store)[0]
    direct = availability((16, 16), rate=0.010, samples=300)
    assert first[8] == direct.availability_mean


# --- reproductions and analyses as sweeps ----------------------------------------------------


def test_the_table6_spec_gives_the_table6_reproduction(tmp_path: Path, client: Any) -> None:
    from railx.cost import compare, table6

    sweep = load_spec(ROOT / "examples" / "sweeps" / "table6.toml")
    with Store(tmp_path / "s.duckdb") as store:
        run_sweep(sweep, store, client=client)
    records = list(load(tmp_path / "s.duckdb", "table6")["record"])
    assert records == json.loads(json.dumps(table6()))
    # Hence the same cells match the printed table as `railx cost --table6` reports.
    assert [c["match"] for c in compare(records)] == [c["match"] for c in compare(table6())]


def test_the_railonly_table2_specs_give_the_table2_reproduction(tmp_path: Path, client: Any) -> None:
    from railx.cost import table2

    store = tmp_path / "s.duckdb"
    with Store(store) as db:
        for name in ("railonly-table2", "railonly-table2-railonly"):
            run_sweep(load_spec(ROOT / "examples" / "sweeps" / f"{name}.toml"), db, client=client)
    sota, rail = load(store, "railonly-table2"), load(store, "railonly-table2-railonly")
    rows = table2()
    assert list(sota["cost_usd"]) == [r["sota_cost_usd"] for r in rows]
    assert list(rail["cost_usd"]) == [r["railonly_cost_usd"] for r in rows]
    assert list(rail["power_w"]) == [r["railonly_power_w"] for r in rows]
    savings = [100 * (1 - r / s) for r, s in zip(rail["cost_usd"], sota["cost_usd"])]
    assert savings == pytest.approx([r["cost_saving_pct"] for r in rows], rel=1e-12)


def test_the_fig16_spec_gives_the_fig16_curves(tmp_path: Path, client: Any) -> None:
    import math
    from dataclasses import replace

    from railx.allocation.sweep import fig16_table

    whole = load_spec(ROOT / "examples" / "sweeps" / "fig16.toml")
    shortest = [
        p
        for p in whole.points
        if p.assignment["training.sequence"] == 8192 and p.assignment["training.overlap"] == ["D"]
    ]
    with Store(tmp_path / "s.duckdb") as db:
        run_sweep(replace(whole, points=shortest), db, client=client)
    frame = load(tmp_path / "s.duckdb", "fig16")
    expected = fig16_table(sequences=(8192,))[1]  # the DP-overlapped row
    assert list(frame["mapping.C.ports"]) == list(range(11))
    for got, want, error in zip(frame["iteration_s"], expected.times_s, frame["error"]):
        # A split leaving C or De without a port cannot communicate: infinite there, an error here.
        assert (error is not None) if math.isinf(want) else got == pytest.approx(want, rel=1e-12)
    assert int(frame["iteration_s"].idxmin()) == expected.best_c_ports


def test_every_shipped_spec_is_valid() -> None:
    specs = list((ROOT / "examples" / "sweeps").glob("*.toml"))
    counts = {path.stem: len(load_spec(path).points) for path in specs}
    assert counts == {
        "table6": 12,
        "fig14": 4 * 11,
        "fig14-peers": 3 * 11,
        "fig15": 7 * 3 * 11,
        "fig17a": 9,
        "fig17b": 3 * 7,
        "listing1-parallelism": 5,
        "railonly-table2": 6,
        "fig16": 2 * 6 * 11,
        "railonly-table2-railonly": 6,
        "wavelengths": 4,
        "traffic": 4 * 2,
        "libra-budget": 2 * 10,
        "fig15-flow": (7 * 2 + 5) * 3,
        "fig15-flit": 3 * 3 * 2,
        "railonly-slowdown": 2 * 7,
        "flexsipac-fig7-64": 7 * 4 * 4,
        "flexsipac-fig7-512": 7 * 4 * 6,
        "flexsipac-fig8-64": 7 * 4 * 3,
        "flexsipac-fig8-512": 7 * 3 * 3,
        "libra-eval": 11 * 10 * 2,
        "libra-fig10": 3,
        "libra-fig17": 2 * 7,
        "libra-fig18": 2 * 5 * 5,
    }


def test_registered_analyses_keep_their_properties_through_a_sweep(tmp_path: Path, client: Any) -> None:
    write_base(tmp_path)
    store = tmp_path / "s.duckdb"
    specs = {
        "plan": spec("plan", axes=[{"list": [{"system.grid": [3, 3]}, {"system.grid": [4, 3]}]}]),
        "deadlock": spec("deadlock", routing="dateline"),
        "route-stats": spec("route-stats"),
        "flow-sim": spec("flow-sim", size=65536, axes=[{"grid": {"options.aggregated": [False, True]}}]),
        "flit-sim": spec("flit-sim", load=0.05, routing="dateline", warmup_cycles=300, measure_cycles=1500, seed=1),
        "workload": spec(
            "workload",
            base=str(ROOT / "examples" / "workloads" / "listing1.toml"),
            model="llama3-70b-moe8",
            parallel="T=4,C=2,E=2,D=4,P=2",
        ),
    }
    with Store(store) as db:
        for name, data in specs.items():
            data["sweep"]["name"] = name
            assert run_sweep(parse_spec(data, tmp_path, name), db, client=client).failed == 0
    plan = load(store, "plan")
    assert list(plan["chips"]) == [4 * 9, 4 * 12]  # m^2 P Q: the grid axis reached the configuration
    assert load(store, "deadlock")["acyclic"].tolist() == [True]
    stats = load(store, "route-stats")["record"][0]
    assert stats["pairs"] == 36 * 35 and sum(stats["hop_histogram"]) == stats["pairs"]
    flow = load(store, "flow-sim")["time_s"].tolist()
    assert flow[1] == pytest.approx(flow[0], rel=1e-9)  # aggregation over translations is exact on a torus
    flit = load(store, "flit-sim")
    assert flit["accepted"][0] == pytest.approx(0.05, rel=0.15) and flit["record"][0]["deadlock"] is None
    assert flit["latency_cycles"][0] == flit["record"][0]["latency"]["mean"]
    work = load(store, "workload")["record"][0]
    assert work["chips"] == 64 and work["parallel"] == {"T": 4, "C": 2, "E": 2, "D": 4, "De": 2, "P": 2}
    assert work["iteration_s"] == pytest.approx(work["compute_exposed_s"] + work["comm_exposed_s"], rel=0.5)


# --- progress of long single analyses --------------------------------------------------------


def test_monte_carlo_availability_reports_every_sample_and_stops_cleanly_on_interrupt() -> None:
    import typer

    from railx.progress import live_progress

    seen: list[int] = []
    with live_progress("Monte Carlo availability", quiet=True) as bar:
        assert bar is None  # quiet: no bar, the run is unchanged
        stats = availability((8, 8), rate=0.05, samples=7, on_sample=seen.append)
    assert seen == list(range(1, 8)) and stats.samples == 7
    assert stats == availability((8, 8), rate=0.05, samples=7)  # the hook changes nothing

    def interrupt(n: int) -> None:
        if n == 3:
            raise KeyboardInterrupt

    with pytest.raises(typer.Exit) as info, live_progress("Monte Carlo availability", quiet=True):
        availability((8, 8), rate=0.05, samples=7, on_sample=interrupt)
    assert info.value.exit_code == 130


def test_option_types_follow_their_defaults(tmp_path: Path) -> None:
    message = error_of(spec(axes=[{"list": [{"options.algo": 3}]}]), tmp_path)
    assert message.startswith("axis 1 (list: options.algo): options.algo = 3: expected a str like its default")
    message = error_of(spec(axes=[{"grid": {"options.chunks": [1.5]}}]), tmp_path)
    assert message.startswith("axis 1 (grid: options.chunks): options.chunks = 1.5: expected a int")
    write_base(tmp_path)
    sizes = parse_spec(spec(axes=[{"grid": {"options.size": [1024, "1MiB"]}}]), tmp_path, "t")
    assert [p.inputs["options"]["size"] for p in sizes.points] == [1024, "1MiB"]  # bytes as a number or text


# --- analyses beyond the first nine ------------------------------------------------------------

WAVELENGTH_JOBS = [
    {"name": "ring-8", "cus": [0, 8], "collective": "ring"},
    {"name": "mesh-4", "cus": [8, 12], "collective": "mesh"},
]


def test_the_wavelengths_analysis_stores_railx_wavelengths_record(tmp_path: Path, client: Any) -> None:
    from railx.wavelengths import SiPAC, allocate, allocation_json
    from railx.wavelengths.traffic import Job

    data = spec("wavelengths", base=None, jobs=WAVELENGTH_JOBS, axes=[{"grid": {"options.w": [4, 12]}}])
    with Store(tmp_path / "s.duckdb") as store:
        assert run_sweep(parse_spec(data, tmp_path, "t"), store, client=client).failed == 0
    frame = load(tmp_path / "s.duckdb", "t")
    jobs = [Job(j["name"], tuple(range(*j["cus"])), j["collective"]) for j in WAVELENGTH_JOBS]
    for _, row in frame.iterrows():
        direct = allocation_json(allocate(SiPAC(4, 2), row["options.w"], jobs))
        assert row["record"] == json.loads(json.dumps(direct))
        objective = row["record"]["objective"]
        # The relaxation bounds the integer optimum from below (to the solver's tolerance), and the
        # exact optimum bounds the heuristic.
        assert (
            objective["relaxation"] <= objective["exact"] * (1 + 1e-6) and objective["exact"] <= objective["heuristic"]
        )
        assert row["record"]["colouring"]["valid"]


def test_the_wavelengths_analysis_takes_no_base_and_checks_its_jobs(tmp_path: Path) -> None:
    message = error_of(spec("wavelengths", base="tiny.toml"), tmp_path)
    assert message.startswith("sweep.base: base = 'tiny.toml': wavelengths takes no base")
    jobs = [{"name": "a", "cus": [0, 20], "collective": "ring"}]
    sweep = parse_spec(spec("wavelengths", base=None, jobs=jobs), tmp_path, "t")
    from railx.sweep.point import run_point

    error = run_point(sweep.points[0].inputs)["error"]
    assert error == "options: jobs[0].cus: CU 16 of job 'a' is outside the 16 CUs 0..15"


def test_the_traffic_analysis_stores_railx_traffic_record(tmp_path: Path, client: Any) -> None:
    from railx.workload.catalogue import load_model
    from railx.workload.matrix import Placement, traffic_matrix
    from railx.workload.traffic import Parallelism

    axes = [{"list": [{"options.parallel": "T=2,P=2,D=2"}, {"options.parallel": {"T": 4, "D": 2}}]}]
    data = spec("traffic", base=None, model="gpt-1t", hb_domain=2, axes=axes)
    with Store(tmp_path / "s.duckdb") as store:
        assert run_sweep(parse_spec(data, tmp_path, "t"), store, client=client).failed == 0
    frame = load(tmp_path / "s.duckdb", "t")
    assert list(frame["chips"]) == [8, 8]
    for sizes, (_, row) in zip([{"T": 2, "P": 2, "D": 2}, {"T": 4, "D": 2}], frame.iterrows(), strict=True):
        par = Parallelism(**sizes, micro_batch=1, micro_batches=1, sequence=2048)
        direct = traffic_matrix(load_model("gpt-1t"), par, Placement(8, 2))
        assert row["record"]["pair_shares"] == direct.pair_shares()
        assert row["record"]["volume_shares"] == direct.volume_shares()
        assert row["record"]["total_bytes"] == float(direct.total().sum())
    # 8 GPUs, 56 ordered pairs: T=2,P=2,D=2 has 4 TP, 4 DP and 4 PP groups of 2 GPUs, 8 pairs each.
    assert frame["record"][0]["pair_shares"] == pytest.approx({"TP": 1 / 7, "DP": 1 / 7, "PP": 1 / 7, "none": 4 / 7})
    # T=4 across HB domains of 2: half of TP's bytes go through the NICs.
    shares = frame["record"][1]["volume_shares"]
    assert shares["TP (HB)"] == pytest.approx(shares["TP (NIC)"])


def test_the_traffic_analysis_refuses_a_job_with_a_model(tmp_path: Path) -> None:
    from railx.sweep.point import run_point

    sweep = parse_spec(spec("traffic", base=None, job="megatron-gpt-146b", model="gpt-1t"), tmp_path, "t")
    assert run_point(sweep.points[0].inputs)["error"].startswith("--job takes the model")


def test_the_railonly_slowdown_analysis_stores_one_slowdown_row_per_platform(tmp_path: Path, client: Any) -> None:
    from railx.collectives.railonly import slowdown_rows

    axes = [{"grid": {"options.platform": ["dgx-a100", "dgx-h100"]}}]
    data = spec("railonly-slowdown", base=None, domains=4, pair_bytes=65536, axes=axes)
    with Store(tmp_path / "s.duckdb") as store:
        assert run_sweep(parse_spec(data, tmp_path, "t"), store, client=client).failed == 0
    frame = load(tmp_path / "s.duckdb", "t")
    direct = slowdown_rows(("dgx-a100", "dgx-h100"), domains=4, pair_bytes=65536)
    assert list(frame["record"]) == json.loads(json.dumps(direct))
    assert list(frame["time_s"]) == [r["eq3_s"] for r in direct]
    for row in frame["record"]:
        # eq. 3 over eq. 2 is the slow-down, and 4 domains of 8 GPUs give y (x-1) / (x (y-1)) C_S / C_F.
        assert row["eq3_s"] / row["eq2_s"] - 1 == pytest.approx(row["analytic"])
        assert row["analytic"] == pytest.approx(4 * 7 / (8 * 3) * row["nic_Bps"] / row["hb_Bps"])
    from railx.sweep.point import run_point

    bad = parse_spec(spec("railonly-slowdown", base=None, platform="dgx-z"), tmp_path, "t")
    assert run_point(bad.points[0].inputs)["error"].startswith("platform = 'dgx-z': unknown platform; use one of")


def test_the_multitenant_analysis_stores_one_jct_row_per_topology(tmp_path: Path, client: Any) -> None:
    from dataclasses import asdict

    from railx.multitenant import evaluate, map_jobs
    from railx.multitenant.commands import topology_builder

    axes = [{"grid": {"options.topology": ["superpod", "flex-sipac", "sipac"]}}]
    data = spec("multitenant", base=None, cus=64, job=[32, 16], size=1 << 20, axes=axes)
    with Store(tmp_path / "s.duckdb") as store:
        assert run_sweep(parse_spec(data, tmp_path, "t"), store, client=client).failed == 0
    frame = load(tmp_path / "s.duckdb", "t")
    mix = map_jobs([32, 16], 64)
    direct = evaluate(["superpod", "flex-sipac", "sipac"], ["M"], [mix], [1 << 20], build=topology_builder("relaxed"))
    assert list(frame["record"]) == json.loads(json.dumps([asdict(r) for r in direct]))
    assert list(frame["time_s"]) == [max(r.per_job_s) for r in direct]  # JCT: the slowest job's
    assert {r["mix"] for r in frame["record"]} == {"32+16"} and frame["record"][0]["sigma"] == 0.5  # eq. 2
    from railx.sweep.point import run_point

    bad = parse_spec(spec("multitenant", base=None, topology="superpod", algo="F"), tmp_path, "t")
    assert run_point(bad.points[0].inputs)["error"].startswith("options.algo = 'F': Flex-SiPCO runs on flex-sipac")


def test_the_multitenant_analysis_runs_a_workloads_iteration(tmp_path: Path) -> None:
    """`workload`: one training iteration's all-reduces, the record equal to `railx multitenant
    --workload --json`'s row, with the F bound summed the same way."""
    from railx.multitenant import evaluate, map_jobs
    from railx.multitenant.commands import iteration_records, topology_builder
    from railx.multitenant.workloads import iteration_messages
    from railx.sweep.point import run_point

    data = spec("multitenant", base=None, cus=64, job=[48, 16], topology="sipac", algo="F", workload="vgg16")
    record = run_point(parse_spec(data, tmp_path, "t").points[0].inputs)["record"]
    rows = evaluate(["sipac"], ["F"], [map_jobs([48, 16], 64)], sorted(iteration_messages("vgg16")),
                    build=topology_builder("relaxed"))  # fmt: skip
    assert record == json.loads(json.dumps(iteration_records(rows, "vgg16")[0] | {"sigma": rows[0].sigma}))
    counts = iteration_messages("vgg16")
    assert record["jct_s"] == pytest.approx(sum(counts[r.size_bytes] * r.jct_s for r in rows), rel=1e-12)
    assert record["bound_s"] == pytest.approx(sum(counts[r.size_bytes] * r.bound_s for r in rows), rel=1e-12)
    assert 1e3 * record["jct_s"] == pytest.approx(10.480, abs=5e-4)  # docs/reproductions.md, Fig. 8 at 64 CUs
    both = parse_spec(spec("multitenant", base=None, workload="vgg16", size="1MB"), tmp_path, "t")
    assert run_point(both.points[0].inputs)["error"] == (
        "options.workload and options.size: give one; a workload fixes its own message sizes"
    )


def test_the_allocate_bw_analysis_stores_railx_allocate_bw_record(tmp_path: Path, client: Any) -> None:
    from railx.workload.catalogue import load_model
    from railx.workload.commands import bandwidth_split_report, parse_parallel
    from railx.workload.iteration import IterationModel
    from railx.workload.system import load_workload_system

    listing1 = ROOT / "examples" / "workloads" / "listing1.toml"
    parallel = "T=4,C=2,E=2,D=4,P=2"
    axes = [{"grid": {"options.method": ["exhaustive", "milp"]}}]
    data = spec("allocate-bw", base=str(listing1), model="llama3-70b-moe8", parallel=parallel, reconfig_ms=0.5)
    data["axis"] = axes
    with Store(tmp_path / "s.duckdb") as store:
        assert run_sweep(parse_spec(data, tmp_path, "t"), store, client=client).failed == 0
    frame = load(tmp_path / "s.duckdb", "t")
    system = load_workload_system(listing1)
    model = load_model("llama3-70b-moe8")
    it = IterationModel(model, system.parallelism(**parse_parallel(parallel)), system)
    for method, (_, row) in zip(["exhaustive", "milp"], frame.iterrows(), strict=True):
        direct, _, _ = bandwidth_split_report(it, method, 0.5)
        assert row["record"] == json.loads(json.dumps(direct | {"chips": 64}))
        assert row["iteration_s"] == direct["static"]["time_s"] <= direct["mapped_time_s"]
    # Both methods find eq. 11's optimum.
    assert frame["iteration_s"][0] == pytest.approx(frame["iteration_s"][1], rel=1e-12)
