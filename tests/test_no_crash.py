"""No input crashes the CLI (issue 24, item 4): each hostile input found ends in one line on
stderr and exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_railx

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
