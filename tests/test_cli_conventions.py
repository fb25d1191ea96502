"""The CLI's conventions: start-up loads no heavy module, `railx --version`, help without fake
`<bool>` values, SYSTEM as the system argument's name everywhere, `KEY=VALUE` overrides of any
configuration field, and the simulator's settings in a `[sim]` table under the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer._click as click
from hypothesis import given
from hypothesis import strategies as st
from typer.main import get_command

from conftest import REPO, all_commands, run_railx
from railx import __version__
from railx.cli import COMMANDS, app
from railx.config import SimConfig
from railx.overrides import apply_overrides

HYPERX = "examples/hyperx-5x5.toml"
HEAVY = ("cvxpy", "matplotlib", "scipy", "dask", "duckdb", "numpy", "pydantic", "pandas", "networkx")


def test_help_and_a_subcommands_help_import_no_heavy_module() -> None:
    # A fresh interpreter: what `railx --help` and `railx plan CONFIG --help` load.
    code = f"""
import sys
import typer._click as click
from typer.main import get_command
import railx.cli
group = get_command(railx.cli.app)
with click.Context(group, info_name="railx") as ctx:
    group.get_help(ctx)
    plan = group.get_command(ctx, "plan")
    with click.Context(plan, info_name="plan", parent=ctx) as sub:
        plan.get_help(sub)
print(",".join(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "", f"loaded at start-up: {out.stdout.strip()}"


def test_summaries_in_the_top_help_are_each_commands_own() -> None:
    group = get_command(app)
    with click.Context(group, info_name="railx") as ctx:
        for name, lazy in COMMANDS.items():
            help_text = group.get_command(ctx, name).help or ""
            assert lazy.summary == " ".join(help_text.split("\n\n")[0].split()), name


def test_version() -> None:
    result = run_railx("--version")
    assert result.rc == 0
    assert result.stdout.strip() == f"railx {__version__}"


# The subcommands that take a system, and nothing but SYSTEM names it.
TAKE_A_SYSTEM = ("plan", "network", "ocs synth", "availability", "allocate", "cost", "route", "collective", "sim")


def test_every_help_shows_flags_without_a_value_and_names_the_system_SYSTEM() -> None:
    commands = all_commands()
    for path, command in commands.items():
        result = run_railx(*path.split(), "--help")
        assert result.rc == 0, (path, result.stderr)
        assert "<bool>" not in result.stdout, path
        assert "\\[" not in result.stdout, path  # no rich-markup escapes in plain help
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        assert all((p.metavar or "").replace("=", "").isupper() for p in arguments), path
        if path in TAKE_A_SYSTEM:
            assert arguments[0].metavar == "SYSTEM", path
        for param in command.params:
            if "--system" in getattr(param, "opts", ()):
                assert param.metavar == "SYSTEM", path


def test_sim_options_match_the_sim_table() -> None:
    # Same names, defaults and ranges: a [sim] table and the command line mean the same thing.
    sim = all_commands()["sim"]
    options = {p.name: p for p in sim.params if p.param_type_name == "option"}
    for name, field in SimConfig.model_fields.items():
        option = options[name]
        default = field.get_default(call_default_factory=True)
        if name == "hotspot_chips":
            assert option.default == ",".join(map(str, default))
        else:
            assert option.default == default, name
        bounds = {type(m).__name__: m for m in field.metadata}
        low = bounds["Ge"].ge if "Ge" in bounds else None
        high = bounds["Le"].le if "Le" in bounds else None
        if low is not None or high is not None:
            assert (option.min, option.max) == (low, high), name


def _sim(tmp_path: Path, table: str, *args: str) -> dict:
    config = tmp_path / "hyperx.toml"
    config.write_text((REPO / HYPERX).read_text() + "\n[sim]\n" + table)
    result = run_railx("sim", config, "--json", *args)
    assert result.rc == 0, result.stderr
    return json.loads(result.stdout)


def test_sim_table_sets_the_run_and_the_command_line_overrides_it(tmp_path: Path) -> None:
    table = "load = 0.05\ncycles = 200\nwarmup = 50\npacket_flits = 2\n"
    from_file = _sim(tmp_path, table)
    assert from_file["cycles"] == 250 and from_file["measured_cycles"] == 200
    assert from_file["offered"] == pytest.approx(0.05, rel=0.2)
    overridden = _sim(tmp_path, table, "--cycles", "300")
    assert overridden["measured_cycles"] == 300
    by_key = _sim(tmp_path, table, "sim.cycles=100", "sim.warmup=20")
    assert by_key["measured_cycles"] == 100 and by_key["cycles"] == 120
    # The option beats a KEY=VALUE of the same setting.
    assert _sim(tmp_path, table, "sim.cycles=100", "--cycles", "150")["measured_cycles"] == 150


def test_a_config_with_a_sim_table_still_plans(tmp_path: Path) -> None:
    config = tmp_path / "hyperx.toml"
    config.write_text((REPO / HYPERX).read_text() + "\n[sim]\nload = 0.3\n")
    assert run_railx("plan", config, "--json").rc == 0


def test_key_value_overrides_any_field(tmp_path: Path) -> None:
    base = json.loads(run_railx("plan", HYPERX, "--json").stdout)
    torus = json.loads(run_railx("plan", HYPERX, "topology.preset=torus", "--json").stdout)
    assert base["chips"] == torus["chips"]
    assert torus["diameter_inter_node"] > base["diameter_inter_node"]
    # A preset's fields too: a peer's table.
    small = run_railx("route", "hyperx", "peer.dims=[4,4]", "--stats", "--json")
    assert small.rc == 0, small.stderr
    assert json.loads(small.stdout)["pairs"] == (16 * 16) * (16 * 16 - 1)


def test_cost_takes_overrides_after_each_system() -> None:
    # Each KEY=VALUE sets a field of the SYSTEM before it: one preset priced twice, two rows.
    result = run_railx("cost", "ft2", "ft2", "peer.chips=1024", HYPERX, "system.m=3", "--json")
    assert result.rc == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert list(rows) == ["ft2", "ft2 peer.chips=1024", f"{HYPERX} system.m=3"]
    assert rows["ft2"]["chips"] == 2048 and rows["ft2 peer.chips=1024"]["chips"] == 1024
    # A non-blocking two-tier fat-tree costs the same per chip at half the chips (switches scale).
    assert rows["ft2 peer.chips=1024"]["cost_usd"] == pytest.approx(rows["ft2"]["cost_usd"] / 2)
    assert rows[f"{HYPERX} system.m=3"]["chips"] == 25 * 9


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("cost", "peer.chips=1024", "ft2"), "'peer.chips=1024': an override follows the SYSTEM whose field it sets"),
        (("cost", "ft2", "peer.chip=1024"), "unknown field `chip`"),
        (("cost", HYPERX, "system.k=-1"), "system.k = -1: Input should be greater than 0"),
    ],
)
def test_bad_cost_overrides_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    result = run_railx(*args)
    assert result.rc == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr, result.stderr


WORKLOAD = ("llama3-70b-moe8", "--parallel", "T=4,C=2,E=2,D=4,P=2", "--system", "examples/workloads/listing1.toml")


def test_workload_and_allocate_bw_take_overrides_of_the_system_file() -> None:
    def run(command: str, *overrides: str) -> dict:
        result = run_railx(command, *WORKLOAD, *overrides, "--json")
        assert result.rc == 0, result.stderr
        return json.loads(result.stdout)

    base, slower = run("workload"), run("workload", "chip.sustained_tflops=200")
    # Half the FLOP/s: twice the compute, the communication unchanged.
    assert slower["compute_total_s"] == pytest.approx(2 * base["compute_total_s"])
    assert slower["comm_exposed_s"] == pytest.approx(base["comm_exposed_s"])
    assert run("workload", "training.micro_batches=16")["micro_batches"] == 16
    assert run("allocate-bw", "training.micro_batches=16")["mapped_time_s"] > run("allocate-bw")["mapped_time_s"]
    bad = run_railx("workload", *WORKLOAD, "chip.sustained_tflops=-3")
    assert bad.rc == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "chip.sustained_tflops = -3: Input should be greater than 0" in bad.stderr


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("sytem.k=4", "sytem: unknown table; valid keys here are system, topology, jobs, sim (did you mean system?)"),
        ("system.kk=4", "system.kk: unknown key; valid keys here are m, n, R"),
        ("system.k=abc", "system.k = 'abc': Input should be a valid number"),
        ("system.k=-1", "system.k = -1: Input should be greater than 0"),
        ("system", "'system': an override is KEY=VALUE with a dotted key"),
        ("system.m.x=3", "system.m is a value, not a table"),
        ("sim.cycles=0", "sim.cycles = 0: Input should be greater than or equal to 1"),
    ],
)
def test_bad_overrides_are_one_line_errors(override: str, message: str) -> None:
    command = "sim" if override.startswith("sim.") else "plan"
    result = run_railx(command, HYPERX, override)
    assert result.rc == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr, result.stderr


def test_a_bad_sim_table_in_a_peer_file_names_the_field(tmp_path: Path) -> None:
    peer = tmp_path / "peer.toml"
    peer.write_text('[peer]\nfamily = "hyperx"\ndims = [4, 4]\nterminals = 2\nradix = 16\n[sim]\nbuffers = 3\n')
    result = run_railx("sim", peer)
    assert result.rc == 2
    assert "sim.buffers: unknown key; valid keys here are traffic, load" in result.stderr


def test_availability_plot_is_one_image_file(tmp_path: Path) -> None:
    plot = tmp_path / "figures" / "fig17.png"
    result = run_railx("availability", HYPERX, "--rate", "0.01", "--samples", "2", "--plot", plot, "--json")
    assert result.rc == 0, result.stderr
    assert json.loads(result.stdout)["plot"] == str(plot)
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert [p.name for p in plot.parent.iterdir()] == ["fig17.png"]


NAMES = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)
TOML_VALUES = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.lists(st.integers(0, 100), max_size=4),
    # a bare word is a string, unless TOML reads it otherwise (true, false, inf, nan)
    st.from_regex(r"[a-z][a-z-]{0,8}", fullmatch=True).filter(lambda w: w not in ("true", "false", "inf", "nan")),
)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value)


@given(path=st.lists(NAMES, min_size=1, max_size=3), value=TOML_VALUES)
def test_an_override_sets_its_field_and_nothing_else(path: list[str], value: object) -> None:
    document = {"system": {"m": 4, "n": 2}, "topology": {"preset": "hyperx"}}
    before = json.dumps(document, sort_keys=True)
    out = apply_overrides(document, [f"{'.'.join(path)}={_toml(value)}"])
    assert json.dumps(document, sort_keys=True) == before  # the input is left as it was
    if any(not isinstance(t, dict) for t in _tables_on(document, path[:-1])):
        return  # crossing a value: refused (tested above)
    inner = out
    for name in path[:-1]:
        inner = inner[name]
    assert inner[path[-1]] == pytest.approx(value) if isinstance(value, float) else inner[path[-1]] == value
    untouched = {key for key in document if key != path[0]}
    assert all(out[key] == document[key] for key in untouched)


def _tables_on(document: dict, path: list[str]) -> list[object]:
    seen: list[object] = []
    table: object = document
    for name in path:
        if not isinstance(table, dict) or name not in table:
            break
        table = table[name]
        seen.append(table)
    return seen
