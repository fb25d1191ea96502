"""No input crashes the CLI (issue 24, item 4): each hostile input found ends in one line on
stderr and exit 2, never a traceback."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import all_commands, run_railx

from railx.options import FiniteNumber

HYPERX = "examples/hyperx-9x9.toml"


def assert_one_line_error(result, *needles: str) -> None:
    assert result.rc == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0]


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "bin.toml"
    path.write_bytes(bytes(range(256)) * 2)  # 0x80.. are not UTF-8 on their own
    return path


def test_binary_config_is_one_line(binary: Path) -> None:
    assert_one_line_error(run_railx("plan", binary), "not UTF-8 text", "give a TOML file")
    assert_one_line_error(run_railx("route", binary, "--stats"), "system = ", "not UTF-8 text")


def test_binary_ocs_file_is_one_line(binary: Path) -> None:
    ocs = binary.with_suffix(".json")
    binary.rename(ocs)
    assert_one_line_error(run_railx("ocs", "verify", ocs), "OCS file", "not UTF-8 text", "give a JSON file")


def test_binary_libra_workload_is_one_line(binary: Path) -> None:
    text = binary.with_suffix(".txt")
    binary.rename(text)
    result = run_railx("libra", "--network", "RI(4)_FC(8)", "--workload", text, "--communicator", text, "--cost", text)
    assert_one_line_error(result, "--workload", "not UTF-8 text")


def test_negative_chip_id() -> None:
    assert_one_line_error(run_railx("route", HYPERX, "--from", "-1", "--to", "3"), "chip = '-1'", ">= 0")


def test_chip_id_beyond_the_core_integer() -> None:
    assert_one_line_error(run_railx("route", HYPERX, "--from", str(2**70), "--to", "3"), "src")


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("scale", "--radix", "-64"), "--radix"),
        (("cost", "--railonly-table2", "--hb-domain", "0"), "--hb-domain"),
        (("sim", HYPERX, "--seed", "-1"), "--seed"),
        (("sim", HYPERX, "--seed", str(2**64)), "--seed"),
        (("route", HYPERX, "--stats", "--seed", "-1"), "--seed"),
        (("collective", HYPERX, "--chunks", "0"), "--chunks"),
        (("multitenant", "--granule", "0"), "--granule"),
        (("rail-failures", "--hb-domain", "0", "--domains", "4"), "--hb-domain"),
    ],
)
def test_out_of_range_option_is_a_usage_error(args: tuple[str, ...], option: str) -> None:
    assert_one_line_error(run_railx(*args), f"Invalid value for '{option}'")


@settings(max_examples=25, deadline=None)
@given(
    case=st.sampled_from(
        [
            ("scale", "--radix"),
            ("cost", "--railonly-table2", "--hb-domain"),
            ("sim", HYPERX, "--seed"),
            ("route", HYPERX, "--stats", "--seed"),
            ("route", HYPERX, "--to", "0", "--from"),
            ("multitenant", "--cus"),
            ("collective", HYPERX, "--chunks"),
        ]
    ),
    value=st.one_of(st.integers(max_value=-1), st.integers(min_value=2**64)),
)
def test_negative_or_huge_integers_never_crash(case: tuple[str, ...], value: int) -> None:
    result = run_railx(*case, str(value))
    assert result.rc == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_size_and_sweep_together_say_so() -> None:
    result = run_railx("collective", HYPERX, "--size", "1MB", "--sweep")
    assert_one_line_error(result, "--size 1MB and --sweep: give one")


def test_a_file_where_the_out_folder_belongs(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    result = run_railx("ocs", HYPERX, "--out", taken)
    assert_one_line_error(result, f"--out {taken}", "is a file, not a folder")


def test_plot_folder_checked_before_the_run(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    plot = taken / "sweep.png"
    result = run_railx("sim", HYPERX, "--sweep", "0.1", "--cycles", "10", "--warmup", "0", "--plot", plot)
    assert_one_line_error(result, f"--plot {plot}", "is a file, not a folder")


def test_job_on_a_configuration_without_jobs_says_there_are_none() -> None:
    for args in (("route", HYPERX, "--stats", "--job", "x"), ("sim", HYPERX, "--job", "x", "--cycles", "1")):
        assert_one_line_error(run_railx(*args), "job = x", "no [[jobs]]", "drop the job")


@pytest.mark.parametrize(
    ("option", "needle"),
    [
        ("--load", "Invalid value for '--load': must be a finite number >= 0, not nan"),
        (
            "--hotspot-fraction",
            "Invalid value for '--hotspot-fraction': must be a finite number >= 0 and <= 1, not nan",
        ),
        ("--injection", "Invalid value for '--injection': must be a finite number >= 0.01 and <= 1024, not nan"),
    ],
)
def test_a_nan_number_names_its_field(option: str, needle: str) -> None:
    """Not "traffic: expected value at line 1 column 32" (JSON cannot carry NaN to the core), nor
    click's "must be >= 0", which calls NaN merely out of range."""
    extra = ("--traffic", "hotspot") if option == "--hotspot-fraction" else ()
    result = run_railx("sim", "examples/hyperx-5x5.toml", *extra, option, "nan", "--cycles", "1")
    assert_one_line_error(result, needle)


def _float_options() -> list[tuple[str, str, FiniteNumber]]:
    """(command path, option, its reader) of every float option of every command."""
    out = []
    for path, command in all_commands().items():
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            annotation = getattr(descriptor, "annotation", None)
            if float in (annotation, *get_args(annotation)):
                out.append((path, param.opts[0], descriptor.parameter_info.parser))
    return out


FLOAT_OPTIONS = _float_options()


def test_every_float_option_is_read_as_a_finite_number_in_its_range() -> None:
    assert {option for _, option, _ in FLOAT_OPTIONS} >= {"--load", "--time-limit", "--rate", "--total-bw"}
    for path, option, reader in FLOAT_OPTIONS:
        assert isinstance(reader, FiniteNumber), (path, option)


@pytest.mark.parametrize(("path", "option", "reader"), FLOAT_OPTIONS, ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "abc", "1e999"])
def test_a_float_option_refuses_what_is_not_a_finite_number(
    path: str, option: str, reader: FiniteNumber, value: str
) -> None:
    result = run_railx(*path.split(), option, value)
    assert_one_line_error(result, f"Invalid value for '{option}': must be {reader.rule()}, not {value}")


@pytest.mark.parametrize(
    ("reader", "inside", "outside", "rule"),
    [
        (FiniteNumber(0), [0, 1e300], [-1e-300, math.nan, math.inf], "a finite number >= 0"),
        (FiniteNumber(0, low_open=True), [1e-300], [0, -1], "a finite number > 0"),
        (FiniteNumber(0, 1, high_open=True), [0, 0.999], [1, -0.1], "a finite number >= 0 and < 1"),
        (FiniteNumber(0.001, 3600), [0.001, 3600], [0.0009, 3601], "a finite number >= 0.001 and <= 3600"),
        (FiniteNumber(), [-1e300, 0], [math.nan, -math.inf], "a finite number"),
    ],
)
def test_finite_number_ranges(reader: FiniteNumber, inside: list[float], outside: list[float], rule: str) -> None:
    from pydantic_core import PydanticCustomError

    assert reader.rule() == rule
    assert [reader(str(x)) for x in inside] == inside
    for x in outside:
        with pytest.raises(PydanticCustomError, match=f"must be {rule}, not"):
            reader(str(x))


def test_a_nan_load_in_a_sweep_names_it() -> None:
    result = run_railx("sim", "examples/hyperx-5x5.toml", "--sweep", "0.1,nan", "--cycles", "1")
    assert_one_line_error(result, "loads = [0.1, nan]: every load must be a finite number")


@pytest.fixture
def ocs_file(tmp_path: Path) -> dict:
    run_railx("ocs", "examples/hyperx-5x5.toml", "--out", tmp_path)
    return json.loads((tmp_path / "system.ocs.json").read_text())


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (lambda ocs: ocs.update(switches="nope"), ("switches: expected a list of switches",)),
        (lambda ocs: ocs["switches"][3].update(circuits=[[1, "a"]]), ("switches[3]:", "invalid type")),
        (lambda ocs: ocs["system"].update(m="four"), ("system:", "invalid type")),
        (lambda ocs: ocs["switches"][0]["circuits"].__setitem__(0, [2, 2]), ("circuit [2, 2] joins port 2 to itself",)),
    ],
)
def test_a_malformed_ocs_file_names_the_field(tmp_path: Path, ocs_file: dict, edit, needles: tuple[str, ...]) -> None:
    edit(ocs_file)
    path = tmp_path / "bad.ocs.json"
    path.write_text(json.dumps(ocs_file))
    result = run_railx("ocs", "verify", path)
    assert_one_line_error(result, *needles)
    assert "line 1 column" not in result.stderr


def test_a_misspelt_table_is_named(tmp_path: Path) -> None:
    config = tmp_path / "typo.toml"
    config.write_text(Path(HYPERX).read_text().replace("[system]", "[sytem]"))
    assert_one_line_error(run_railx("plan", config), "sytem: unknown table", "(did you mean system?)")


@pytest.mark.parametrize(
    ("args", "label"),
    [
        (("network", "examples/hyperx-5x5.toml", "--out", "{file}/net.json"), "--out"),
        (("sim", "examples/hyperx-5x5.toml", "--cycles", "1", "--links", "{file}/links.csv"), "--links"),
        (("traffic", "--job", "megatron-gpt-1t", "--heatmap", "{file}/map.png"), "--heatmap"),
        (("availability", "examples/jobs.toml", "--rate", "0.01", "--samples", "2", "--plot", "{file}/p"), "--plot"),
        (
            ("allocate", "examples/jobs.toml", "--failed", "examples/failed.json", "--jobs", "all", "--out", "{file}"),
            "--out",
        ),
        (("cost", "ft2", "--plot", "{file}/cost.png"), "--plot"),
        (("scale", "--plot", "{file}/scale.png"), "--plot"),
    ],
)
def test_a_file_where_an_output_folder_belongs(tmp_path: Path, args: tuple[str, ...], label: str) -> None:
    """An existing file in an output's path is one line naming the option, never `[Errno 17]` or
    `[Errno 20]` (and is found before the work: --links and --heatmap were found after it)."""
    taken = tmp_path / "taken"
    taken.write_text("")
    result = run_railx(*(a.format(file=taken) for a in args))
    assert_one_line_error(result, label, "is a file, not a folder")


def test_an_output_file_path_that_is_a_folder_is_named(tmp_path: Path) -> None:
    result = run_railx("network", "examples/hyperx-5x5.toml", "--out", tmp_path)
    assert_one_line_error(result, f"--out {tmp_path}", "is a folder; give a file path")
