"""SiPCO / Flex-SiPCO all-reduce with optical multicast (paper 003 §4) through the Python surface:
the analytic model against the flow level on contention-free cases, job CU sets (`--cus`, the
`cus` argument, `collective_time_s`), the data-movement check through the binding, and one-line
errors for bad job sets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx._core import collective_check
from railx.collectives.commands import collective_report, collective_time_s
from railx.collectives.sipco import (
    flex_sipco_bound_s,
    parse_cus,
    sipco_all_reduce_time_s,
    spanned_levels,
)
from railx.config import ConfigError
from railx.systems import PRESETS, System, core_of


def sipac(radix: int, levels: int, wavelengths: int) -> System:
    peer = {"family": "sipac", "radix": radix, "levels": levels, "wavelengths": wavelengths, "wavelength_rate_Bps": 4e9}
    return System("s", "s", peer=peer)


def test_closed_form_and_the_papers_bound() -> None:
    # SiPAC(8, 3), 60 wavelengths: 20 x 4 GB/s = 80 GB/s per port, alpha = 2 x 300 ns.
    t = sipco_all_reduce_time_s(8, 3, 6e6, 80e9, 600e-9)
    assert t == pytest.approx(4 * (600e-9 + 7 * 6e6 / 24 / 80e9))
    # The bound budgets r - 1 transit chunks on top of a link's own r - 1: twice the bandwidth term.
    bound = flex_sipco_bound_s(8, 3, 6e6, 80e9, 600e-9)
    assert bound - 4 * 600e-9 == pytest.approx(2 * (t - 4 * 600e-9))


@pytest.mark.parametrize(
    ("radix", "levels", "wavelengths", "cus"),
    [(8, 3, 60, None), (4, 3, 12, None), (8, 3, 60, list(range(64))), (4, 2, 8, list(range(4)))],
)
def test_flow_equals_the_analytic_model_when_contention_free(
    radix: int, levels: int, wavelengths: int, cus: list[int] | None
) -> None:
    """The whole system, or a job filling a sub-SiPAC (CUs 0..r^l-1 span levels 0..l-1), with
    the even wavelength spread: the flow level is the closed form (within 1%; in fact to 1e-9)."""
    system = sipac(radix, levels, wavelengths)
    algo = "sipco" if cus is None else "flex-sipco"
    size = radix * levels * 250_000
    analytic = collective_report(system, "all-reduce", algo, size, cus=cus)
    flow = collective_report(system, "all-reduce", algo, size, fidelity="flow", cus=cus)
    assert flow["time_s"] == pytest.approx(analytic["time_s"], rel=1e-2)
    assert flow["time_s"] == pytest.approx(analytic["time_s"], rel=1e-9)
    assert flow["time_s"] < analytic["bound_s"]
    assert analytic["levels_spanned"] == (levels if cus is None else len(spanned_levels(radix, levels, cus)))


def test_the_preset_at_every_fidelity_and_the_entry_point() -> None:
    preset = PRESETS["flex-sipac-512"]
    analytic = collective_time_s(preset, None, "sipco", 6_000_000, "analytic")
    assert analytic == pytest.approx(4 * (600e-9 + 7 * 6e6 / 24 / 80e9))
    assert collective_time_s(preset, None, "sipco", 6_000_000, "flow") == pytest.approx(analytic, rel=1e-9)
    job = list(range(64, 128))  # levels 0 and 1, digit 2 fixed at 1: a SiPAC(8, 2)
    assert collective_time_s(preset, job, "flex-sipco", 6_000_000, "flow") == pytest.approx(
        3 * (600e-9 + 7 * 6e6 / 16 / 80e9), rel=1e-9
    )
    # Mesh (direct) all-reduce on the same job's CUs.
    assert collective_time_s(preset, job, "direct", 6_000_000, "flow") > 0


def test_flit_level_runs_on_a_small_instance() -> None:
    system = sipac(4, 2, 4)
    flit = collective_report(system, "all-reduce", "sipco", 1 << 16, fidelity="flit")
    flow = collective_report(system, "all-reduce", "sipco", 1 << 16, fidelity="flow")
    assert flit["time_s"] >= 0.99 * flow["time_s"]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_flex_sipco_is_correct_for_random_job_mappings(data: st.DataObject) -> None:
    """Through the binding: the symbolic checker accepts the schedule of any job with enough CUs
    for its stand-ins, and refuses a sparser one in one line."""
    system = core_of(sipac(4, 3, 3))
    cus = data.draw(st.lists(st.integers(0, 63), min_size=2, max_size=64, unique=True))
    try:
        collective_check(system, "all-reduce", "flex-sipco", 1 << 12, 1, None, cus)
    except ConfigError as e:
        assert "use --algo direct" in str(e) and "\n" not in str(e)
    collective_check(system, "all-reduce", "direct", 1 << 12, 1, None, cus)


def test_parse_cus_and_its_errors() -> None:
    assert parse_cus("0-3,8,10-11", 16) == [0, 1, 2, 3, 8, 10, 11]
    for text, message in [
        ("0-63,60-70", "cus = '0-63,60-70': CU 60 is listed twice"),
        ("0-600", "CU 600 is outside the system's 512 CUs"),
        ("5-2", "runs backwards"),
        ("a-b", "is not a CU id or range"),
        ("7", "at least 2 CUs"),
    ]:
        with pytest.raises(ConfigError, match=message):
            parse_cus(text, 512)


def test_cli_runs_and_one_line_errors() -> None:
    out = run_railx(
        "collective",
        "flex-sipac-512",
        "--algo",
        "flex-sipco",
        "--cus",
        "0-63",
        "--size",
        "6MB",
        "--fidelity",
        "flow",
        "--json",
    )
    assert out.rc == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["ranks"] == 64 and report["time_s"] == pytest.approx(3 * (600e-9 + 7 * 6e6 / 16 / 80e9), rel=1e-9)
    table = run_railx("collective", "flex-sipac-512", "--algo", "sipco", "--size", "1MB")
    assert table.rc == 0 and "sipco" in table.stdout
    for args, message in [
        (("--algo", "flex-sipco", "--cus", "0-63,32-40"), "error: cus = '0-63,32-40': CU 32 is listed twice"),
        (("--algo", "flex-sipco", "--cus", "500-520"), "error: cus = '500-520': CU 520 is outside"),
        (("--algo", "sipco", "--cus", "0-63"), "error: algo = sipco"),
        (("--algo", "flex-sipco", "--op", "all-gather"), "error: op = all-gather"),
        (("--algo", "flex-sipco", "--cus", "0,9,18,27,36,45,54,63,64"), "error: cus = 9 CUs"),
    ]:
        out = run_railx("collective", "flex-sipac-512", "--size", "1MB", *args)
        assert out.rc == 2, (args, out.stderr)
        assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr
    out = run_railx("collective", "ft2", "--algo", "sipco", "--size", "1MB")
    assert out.rc == 2 and "SiPAC" in out.stderr and out.stderr.count("\n") == 1, out.stderr


# --- several jobs at once (railx.flowsim.collectives) ------------------------------------------


def test_concurrent_jobs_one_job_is_the_collective_and_disjoint_jobs_run_as_alone() -> None:
    from railx.flowsim import CollectiveJob, collective, collectives

    system = sipac(4, 3, 12)
    n = 1 << 20
    one = collective(system, "all-reduce", "flex-sipco", n, cus=list(range(16, 48)))
    jobs = collectives(system, [CollectiveJob("all-reduce", "flex-sipco", n, range(16, 48))])
    assert jobs == one and jobs.job_completion_s == (one.completion_s,)
    # Two sub-SiPACs (digit 2 = 0 and 1) and a WSS of a third: they share no link.
    mix = [
        CollectiveJob("all-reduce", "flex-sipco", 2 * n, range(0, 16)),
        CollectiveJob("all-reduce", "direct", n, range(16, 32)),
        CollectiveJob("all-reduce", "flex-sipco", n, range(32, 36)),
    ]
    together = collectives(system, mix)
    alone = [collectives(system, [j]).completion_s for j in mix]
    assert together.job_completion_s == pytest.approx(alone, rel=1e-12)
    assert together.completion_s == max(together.job_completion_s)


def test_concurrent_jobs_sharing_a_cu_are_one_line_errors() -> None:
    from railx.flowsim import CollectiveJob, collectives

    system = sipac(4, 2, 4)
    with pytest.raises(ConfigError, match=r"jobs\[1\]\.cus = 7: CU 7 is also in jobs\[0\]") as e:
        collectives(
            system,
            [
                CollectiveJob("all-reduce", "direct", 1024, range(0, 8)),
                CollectiveJob("all-reduce", "direct", 1024, [7, 9]),
            ],
        )
    assert "\n" not in str(e.value)
