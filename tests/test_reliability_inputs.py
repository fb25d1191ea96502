"""Reliability of reads, writes and messages (issue 25, items 4-7): every file read is bounded
(python/railx/files.py), every file written is atomic (python/railx/atomic.py), every echoed
value is escaped and shortened (python/railx/messages.py, railx_core::error), and writers refuse
what is not a path. Each failure is one line and exit 2, never a traceback. Property tests corrupt
configurations and OCS files and call the writers with arbitrary arguments; the cases the issue
found are regression tests here."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import railx.results
from conftest import EXAMPLES, REPO, CliResult, run_railx
from railx.atomic import TEMPORARY_PREFIX, write_text
from railx.config import Config, ConfigError, load_config
from railx.files import MAX_INPUT_BYTES, MAX_NESTING, read_text
from railx.libra.yamlfile import parse_yaml
from railx.messages import MAX_MESSAGE_CHARS, MAX_SHOWN_CHARS, one_line, shown
from railx.network import realize

HYPERX = EXAMPLES / "hyperx-5x5.toml"
TORUS = EXAMPLES / "torus-9x9.toml"
JOBS = EXAMPLES / "jobs.toml"

# What a crafted value holds: newlines, ANSI colour and OSC title sequences, C1 controls, a forged
# success line.
FORGERIES = ["\n", "\r", "\x1b[32m", "\x1b]0;title\x07", "\x9b", "\x00", "\u2028", "\nOK all good\n"]


def assert_one_line(result: CliResult, *words: str) -> str:
    """Exit 2 and one printable line on stderr, `error: ...`, of bounded length, with `words`."""
    assert result.rc == 2, (result.rc, result.stdout[-400:], result.stderr[-400:])
    assert "Traceback" not in result.stderr
    message = result.stderr.removesuffix("\n")
    assert "\n" not in message and message.isprintable(), repr(message[:300])
    assert message.startswith("error: ") and len(message) < MAX_MESSAGE_CHARS + 200, message[:300]
    for word in words:
        assert word in message, f"no {word!r} in: {message}"
    return message


def ocs_text() -> str:
    """The 5 x 5 HyperX's OCS file (4 KB)."""
    return realize(HYPERX).ocs_files()[0][1]


# ------------------------------------------------------------------------------------------------
# Safe messages


@given(st.text())
def test_shown_is_printable_bounded_and_keeps_short_values(value: str) -> None:
    text = shown(value)
    assert text.isprintable() and len(text) <= MAX_SHOWN_CHARS + 30
    if value.isprintable() and len(repr(value)) <= MAX_SHOWN_CHARS:
        assert text == repr(value)
    else:
        assert text.endswith(f" ({len(value):,} chars)") or text == repr(value)


@given(st.text())
def test_one_line_is_printable_and_bounded(message: str) -> None:
    text = one_line(message)
    assert text.isprintable() and len(text) <= MAX_MESSAGE_CHARS + 30


def test_a_10_mb_value_gives_a_short_message() -> None:
    assert shown("A" * 10_000_000) == f"'{'A' * (MAX_SHOWN_CHARS - 1)}… (10,000,000 chars)"


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_crafted_ocs_id_cannot_print_a_line_of_its_own(forgery: str, tmp_path: Path) -> None:
    document = json.loads(ocs_text())
    document["switches"][0]["id"] = f"X/0/0{forgery}\x1b[32mOK\x1b[0m {tmp_path}: 50 switches, the intended topology"
    path = tmp_path / "forged.ocs.json"
    path.write_text(json.dumps(document))
    message = assert_one_line(run_railx("ocs", "verify", path), "switches[0]", "id does not match")
    assert "\x1b" not in message and "\\u{1b}" in message


def test_a_10_mb_ocs_id_gives_a_short_error(tmp_path: Path) -> None:
    document = json.loads(ocs_text())
    document["switches"][0]["id"] = "A" * 10_000_000
    path = tmp_path / "long.ocs.json"
    path.write_text(json.dumps(document))
    message = assert_one_line(run_railx("ocs", "verify", path), "(10,000,000 chars)", "switches[0]")
    assert len(message) < 300, len(message)


def test_a_crafted_value_the_parser_echoes_is_escaped(tmp_path: Path) -> None:
    document = json.loads(ocs_text())
    document["switches"][0]["dim"] = "Z\n\x1b[32mOK\x1b[0m" + "B" * 100_000
    path = tmp_path / "dim.ocs.json"
    path.write_text(json.dumps(document))
    message = assert_one_line(run_railx("ocs", "verify", path), "unknown variant")
    assert "\x1b" not in message and len(message) < MAX_MESSAGE_CHARS + 100


def test_a_crafted_config_value_is_escaped_and_shortened(tmp_path: Path) -> None:
    path = tmp_path / "forged.toml"
    value = "x" * 10**6 + FORGERIES[-1]
    path.write_text(HYPERX.read_text().replace('preset = "hyperx"', f"preset = {json.dumps(value)}"))
    message = assert_one_line(run_railx("plan", path), "topology.preset", f"({len(value):,} chars)")
    assert len(message) < 400, len(message)


# ------------------------------------------------------------------------------------------------
# Safe reads


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 1000 + "]" * 1000,
        "[system]\nm = " + "{x = " * 1000 + "1" + "}" * 1000,
        "a = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1),
    ],
    ids=["arrays-1000", "tables-1000", "arrays-65"],
)
def test_toml_nested_deeply_is_one_line(text: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(text)
    assert_one_line(run_railx("plan", path), "deep.toml", f"nested deeper than {MAX_NESTING} levels")
    with pytest.raises(ConfigError, match="nested deeper"):
        Config.from_toml(text)


def test_json_nested_deeply_is_one_line(tmp_path: Path) -> None:
    failed = tmp_path / "failed.json"
    failed.write_text("[" * 5000 + "]" * 5000)
    result = run_railx("allocate", TORUS, "--failed", failed, "--jobs", "all", "--out", tmp_path / "out")
    assert_one_line(result, "failed.json", "JSON nested deeper")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: " + "[" * 3000 + "]" * 3000, ("nested deeper",)),
        ("a: &x [1, 2]\nb: [*x, *x]\n", ("alias",)),
        ("\n".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)), ("alias",)),
    ],
    ids=["nested", "alias", "billion-laughs"],
)
def test_hostile_yaml_is_one_line(text: str, words: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as info:
        parse_yaml(text, "cost.yml")
    assert "\n" not in str(info.value) and all(w in str(info.value) for w in words), str(info.value)


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with path.open("wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse: nothing to read, so refused by its size alone
    assert_one_line(run_railx("plan", path), "huge.toml", f"{MAX_INPUT_BYTES + 1:,} bytes", "64 MiB limit")
    assert_one_line(run_railx("ocs", "verify", path), f"{MAX_INPUT_BYTES + 1:,} bytes")


# Runs railx from a small parent and prints its peak memory: a child's ru_maxrss starts from its
# parent's resident size at the fork, which in a long test session is itself hundreds of MB.
_MEASURE = """
import os, subprocess, sys
proc = subprocess.Popen([sys.executable, "-m", "railx.cli", *sys.argv[1:]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def _peak_rss_bytes(*args: str) -> tuple[int, str, int]:
    """Runs `railx ARGS` in a fresh process: its exit status, stderr and peak resident memory."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
    )
    rc, peak = proc.stdout.split()
    return int(rc), proc.stderr, int(peak)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("args", [("plan", "/dev/zero"), ("ocs", "verify", "/dev/zero")], ids=["config", "ocs"])
def test_dev_zero_is_read_with_a_bound(args: tuple[str, ...]) -> None:
    rc, stderr, peak_bytes = _peak_rss_bytes(*args)
    assert_one_line(CliResult(rc, "", stderr), "/dev/zero", "64 MiB limit")
    # The bound read holds the limit once (plus the interpreter, numpy and the core).
    assert peak_bytes < 3 * MAX_INPUT_BYTES + 400 * 2**20, peak_bytes


def test_a_folder_given_as_a_file_is_one_line(tmp_path: Path) -> None:
    assert_one_line(run_railx("plan", tmp_path), "cannot read the file")
    with pytest.raises(ConfigError, match="cannot read the file"):
        read_text(tmp_path)


# Mutations that keep the numbers as they are (no digit is added), so a corrupted file never asks
# for a larger system than the original: what is tested is parsing, not the resource estimator.
_NOT_DIGITS = st.binary(min_size=1, max_size=4).filter(lambda b: not any(48 <= c <= 57 for c in b))
_MUTATION = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 10**6), _NOT_DIGITS),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from([f.encode() for f in FORGERIES])),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 8)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.just(0)),
)


def _corrupt(data: bytes, mutations: list[tuple[str, int, Any]]) -> bytes:
    for kind, at, arg in mutations:
        at %= len(data) + 1
        if kind == "insert":
            data = data[:at] + arg + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + arg :]
        else:
            data = data[:at]
    return data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(_MUTATION, min_size=1, max_size=3))
def test_a_corrupted_config_is_valid_or_one_line(mutations: list[tuple[str, int, Any]], tmp_path: Path) -> None:
    path = tmp_path / "corrupted.toml"
    path.write_bytes(_corrupt(HYPERX.read_bytes(), mutations))
    try:
        load_config(path)
    except ConfigError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < MAX_MESSAGE_CHARS + 200, str(exc)[:300]
        assert_one_line(run_railx("plan", path))  # refused as it loads: nothing is built


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(_MUTATION, min_size=1, max_size=3))
def test_a_corrupted_ocs_file_is_valid_or_one_line(mutations: list[tuple[str, int, Any]], tmp_path: Path) -> None:
    path = tmp_path / "corrupted.ocs.json"
    path.write_bytes(_corrupt(ocs_text().encode(), mutations))
    result = run_railx("ocs", "verify", path, "--topology", HYPERX)
    if result.rc != 0:
        assert_one_line(result)
    else:  # still the same circuits: the mutation hit whitespace or was undone
        assert json.loads(path.read_text()) == json.loads(ocs_text())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["id", "dim", "format", "job"]), value=st.text(min_size=1, max_size=2000))
def test_a_crafted_ocs_string_is_one_printable_line(field: str, value: str, tmp_path: Path) -> None:
    document = json.loads(ocs_text())
    if field in ("id", "dim"):
        document["switches"][0][field] = value
    else:
        document[field] = value
    path = tmp_path / "crafted.ocs.json"
    path.write_text(json.dumps(document))
    result = run_railx("ocs", "verify", path, "--topology", HYPERX)
    if result.rc != 0:
        assert_one_line(result)
    else:  # the value drawn is the one the file held
        assert json.loads(ocs_text()) == document


# ------------------------------------------------------------------------------------------------
# Writers: paths checked, outputs atomic


NOT_PATHS = [None, -1, 0, 1.5, [], ["out"], {}, b"out", "", "   ", object()]


@pytest.mark.parametrize("bad", NOT_PATHS, ids=repr)
def test_writers_refuse_what_is_not_a_path(bad: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    network = realize(HYPERX)
    for write, argument in ((network.write, "path"), (network.write_ocs, "out_dir")):
        with pytest.raises(ConfigError, match=rf"^{argument} = .*(not a path|an empty path)"):
            write(bad)
    with pytest.raises(ConfigError, match=r"^out = "):
        railx.results.export(bad, "csv", tmp_path / "no-store.duckdb")
    assert list(tmp_path.iterdir()) == [], "a refused write created a file"


def _public_writers() -> dict[str, Any]:
    """Every public function that writes a file, as a call taking only the path (their other
    arguments are never reached: the path is checked first)."""
    from railx.availability.plots import plot_availability_vs_rate, plot_fig17, plot_size_vs_failures
    from railx.config import output_file
    from railx.cost.plots import plot_cost
    from railx.cost.scale import plot_scalability
    from railx.report.build import build_report
    from railx.report.page import write_page
    from railx.workload.matrix import plot_heatmap

    return {
        "plot_cost": lambda p: plot_cost(None, [], p),  # type: ignore[arg-type]
        "plot_scalability": lambda p: plot_scalability([], p),
        "plot_fig17": lambda p: plot_fig17([], [], p),
        "plot_size_vs_failures": lambda p: plot_size_vs_failures([], p),
        "plot_availability_vs_rate": lambda p: plot_availability_vs_rate([], p),
        "plot_heatmap": lambda p: plot_heatmap(None, 1, p, ""),  # type: ignore[arg-type]
        "output_file": lambda p: output_file(p, "--plot"),
        "write_page": lambda p: write_page(p, "", "", []),
        "build_report": lambda p: build_report(p),
        "write_text": lambda p: write_text(p, ""),
    }


@pytest.mark.parametrize("bad", NOT_PATHS, ids=repr)
def test_every_public_writer_refuses_what_is_not_a_path(
    bad: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, write in _public_writers().items():
        with pytest.raises(ConfigError, match=r"= .*(not a path|an empty path)") as info:
            write(bad)
        assert "\n" not in str(info.value), name
    assert list(tmp_path.iterdir()) == [], "a refused write created a file"


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    bad=st.one_of(
        st.none(),
        st.integers(),
        st.floats(),
        st.booleans(),
        st.lists(st.text(max_size=3), max_size=3),
        st.binary(max_size=5),
        st.text(alphabet=" \t", max_size=3),
    )
)
def test_any_non_path_is_refused_by_the_writers(bad: Any, tmp_path: Path) -> None:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        network = realize(HYPERX)
        with pytest.raises(ConfigError) as info:
            network.write(bad)
        assert str(info.value).startswith("path = ") and "\n" not in str(info.value)
        with pytest.raises(ConfigError):
            network.write_ocs(bad)
        assert not any(tmp_path.iterdir())
    finally:
        os.chdir(cwd)


def test_write_ocs_into_an_empty_path_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^out_dir = '': an empty path"):
        realize(HYPERX).write_ocs("")
    assert not any(tmp_path.iterdir())


def test_an_out_folder_keeps_only_this_runs_ocs_files(tmp_path: Path) -> None:
    out = tmp_path / "ocs"
    assert run_railx("ocs", JOBS, "--out", out).rc == 0
    jobs = sorted(p.name for p in out.iterdir())
    assert len(jobs) > 1 and "system.ocs.json" in jobs
    (out / "notes.txt").write_text("mine")
    assert run_railx("ocs", TORUS, "--out", out).rc == 0
    # The earlier run's job files are gone (they would pass for part of this set); others stay.
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "system.ocs.json"]
    assert run_railx("ocs", "verify", out / "system.ocs.json", "--topology", TORUS).rc == 0


def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    """A file-size limit (RLIMIT_FSIZE) fails the write as a full disk would."""
    out = tmp_path / "net.json"
    out.write_text("the previous network\n")

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal's kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    proc = subprocess.run(
        [sys.executable, "-m", "railx.cli", "network", str(TORUS), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=limit_file_size,
        timeout=300,
    )
    assert_one_line(CliResult(proc.returncode, proc.stdout, proc.stderr), f"{out}: cannot write the file", "unchanged")
    assert out.read_text() == "the previous network\n"
    assert not list(tmp_path.glob(f"{TEMPORARY_PREFIX}*")), "the temporary file was left behind"


def test_an_atomic_write_that_fails_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_text(tmp_path / "report.json", "old\n")

    def full_disk(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(ConfigError, match=r"report.json: cannot write the file \(No space left on device\)"):
        write_text(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_report_rebuilt_into_its_folder_keeps_only_this_builds_assets(tmp_path: Path) -> None:
    """An earlier build's figures and tables that this build did not write are removed (they
    would pass for part of it); what railx does not write there (notes.txt) stays."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from railx.report.page import Section, write_page
    from railx.report.plots import Chart
    from railx.report.tables import Table

    def section(*ids: str, chart: str | None = None) -> Section:
        tables = [Table(i, i, ["x"], [[1]]) for i in ids]
        charts = [Chart(chart, chart, plt.figure())] if chart else []
        return Section("s", "S", tables=tables, charts=charts)

    out = tmp_path / "report"
    write_page(out, "t", "", [section("a", "b", chart="fig")])
    assets = out / "assets"
    assert sorted(p.name for p in assets.iterdir()) == ["a.csv", "b.csv", "fig.png", "report.css"]
    (assets / "notes.txt").write_text("mine")
    page = write_page(out, "t", "", [section("a")])
    assert sorted(p.name for p in assets.iterdir()) == ["a.csv", "notes.txt", "report.css"]
    assert "b.csv" not in page.read_text() and "assets/a.csv" in page.read_text()
    plt.close("all")
