"""No option is silently ignored (issue 24, item 5): an option that the rest of the command line
makes meaningless is a one-line error (exit 2) naming it, never dropped without a word."""

from __future__ import annotations

import pytest
from tests.conftest import run_railx
from tests.test_no_crash import assert_one_line_error

RAILX = "examples/hyperx-5x5.toml"
SIM = ("sim", RAILX, "--cycles", "1", "--warmup", "0")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        # --misroutes belongs to RailX's adaptive routing only: every other routing, and the default.
        ((*SIM, "--misroutes", "2"), ("misroutes = 2", "only RailX's adaptive routing", "--routing adaptive")),
        ((*SIM, "--routing", "dateline", "--misroutes", "2"), ("misroutes = 2", "not dateline")),
        (("route", RAILX, "--stats", "--misroutes", "1"), ("misroutes = 1", "not minimal")),
        (("route", RAILX, "--stats", "--vcs", "2"), ("--vcs 2: only --check-deadlock",)),
        # Traffic options belong to their pattern.
        (
            (*SIM, "--permutation", "transpose"),
            ("permutation = 'transpose'", "only traffic permutation", "not uniform"),
        ),
        ((*SIM, "--traffic", "all-to-all", "--hotspot-fraction", "0.5"), ("hotspot_fraction = 0.5", "not all-to-all")),
        ((*SIM, "--hotspot-chips", "3"), ("hotspot_chips = [3]", "only traffic hotspot")),
        (("sim", RAILX, "--size-flits", "4"), ("size_flits = 4", "only traffic all-to-all")),
        # A finite all-to-all runs to completion: a load or a measuring window would be ignored.
        (("sim", RAILX, "--traffic", "all-to-all", "--size-flits", "4", "--load", "0.2"), ("load = 0.2", "completion")),
        ((*SIM, "--traffic", "all-to-all", "--size-flits", "4"), ("warmup = 0", "runs to completion")),
        # A sweep's points set their own loads; a single run's outputs have no sweep form.
        ((*SIM, "--sweep", "0.1", "--load", "0.3"), ("load = 0.3", "a single run's option, not a sweep's")),
        ((*SIM, "--sweep", "0.1", "--links", "l.csv"), ("links = l.csv", "not a sweep's")),
    ],
)
def test_routing_and_sim_options(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_one_line_error(run_railx(*args), *needles)


COLLECTIVE = ("collective", RAILX, "--size", "1MiB")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        ((*COLLECTIVE, "--chunks", "4"), ("chunks = 4: not used at fidelity analytic", "unpipelined")),
        ((*COLLECTIVE, "--reduce-s-per-byte", "1e-11"), ("reduce_s_per_byte = 1e-11", "no reduction delay")),
        ((*COLLECTIVE, "--flit-bytes", "64"), ("flit_bytes = 64: not used at fidelity analytic",)),
        ((*COLLECTIVE, "--fidelity", "flow", "--flit-bytes", "64"), ("flit_bytes = 64: not used at fidelity flow",)),
        ((*COLLECTIVE, "--fidelity", "flow", "--link-model", "paper"), ("link_model = 'paper'", "fidelity flow")),
        # The paper's link model prices lines by the paper's conventions: it routes nothing.
        ((*COLLECTIVE, "--routing", "balanced"), ("routing = 'balanced'", "the paper's link model routes nothing")),
        ((*COLLECTIVE, "--misroutes", "1"), ("misroutes = 1", "routes nothing")),
        (
            ("collective", "flex-sipac-512", "--algo", "sipco", "--size", "1MB", "--routing", "digit-order"),
            ("routing = 'digit-order'", "SiPCO's model routes nothing"),
        ),
        # The routed model does route: a misroute count without adaptive routing is still refused.
        ((*COLLECTIVE, "--link-model", "routed", "--misroutes", "1"), ("misroutes = 1", "adaptive")),
    ],
)
def test_collective_options(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_one_line_error(run_railx(*args), *needles)


def test_collective_options_that_apply_still_run() -> None:
    flow = run_railx(*COLLECTIVE, "--fidelity", "flow", "--chunks", "2", "--routing", "adaptive", "--misroutes", "1")
    routed = run_railx(*COLLECTIVE, "--link-model", "routed", "--routing", "balanced", "--json")
    assert flow.rc == 0 and routed.rc == 0, (flow.stderr, routed.stderr)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("cost", "ft2", "--table6"), ("systems = ft2", "--table6 recomputes the paper's own rows")),
        (("cost", "hx4mesh", "--railonly-table2"), ("systems = hx4mesh", "--railonly-table2")),
        (("cost", "--table6", "--railonly-table2"), ("give one",)),
        (("cost", "--table6", "--hb-domain", "8"), ("--hb-domain 8: only --railonly-table2 takes it",)),
        (("cost", "ft2", "--hb-domain", "8"), ("--hb-domain 8",)),
        (("cost", "--table6", "--catalog", "railonly"), ("--catalog railonly", "drop --catalog")),
        (("cost", "--railonly-table2", "--baseline", "hx4mesh"), ("--baseline hx4mesh",)),
        (("cost", "--railonly-table2", "--plot", "t.png"), ("--plot t.png", "not --railonly-table2")),
        # An HB domain that does not divide the GPU counts would floor the domain count.
        (("cost", "--railonly-table2", "--hb-domain", "3"), ("hb_domain = 3: must divide", "32768, 65536")),
        (("cost", "--railonly-table2", "--hb-domain", "65536"), ("hb_domain = 65536: must divide",)),
    ],
)
def test_cost_options(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_one_line_error(run_railx(*args), *needles)


def test_table2_takes_an_hb_domain_that_divides() -> None:
    result = run_railx("cost", "--railonly-table2", "--hb-domain", "128", "--json")
    assert result.rc == 0, result.stderr


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        # One given failure set is evaluated, not sampled: sampling options would be ignored.
        (("--samples", "5"), ("--samples 5", "samples nothing", "drop --samples, or add --plot")),
        (("--seed", "3"), ("--seed 3", "samples nothing", "drop --seed")),
    ],
)
def test_availability_sampling_options_without_sampling(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_one_line_error(
        run_railx("availability", "examples/jobs.toml", "--failed", "examples/failed.json", *args), *needles
    )


def test_availability_sampling_options_that_apply_still_run(tmp_path) -> None:
    rate = run_railx("availability", "examples/jobs.toml", "--rate", "0.01", "--samples", "2", "--seed", "3", "--json")
    assert rate.rc == 0, rate.stderr
    plot = tmp_path / "fig17.png"
    failed = ("availability", "examples/jobs.toml", "--failed", "examples/failed.json")
    with_plot = run_railx(*failed, "--samples", "1", "--seed", "3", "--plot", plot, "--json")
    assert with_plot.rc == 0, with_plot.stderr


def test_multitenant_sigma_beside_jobs() -> None:
    result = run_railx("multitenant", "--cus", "64", "--job", "40", "--job", "24", "--size", "1MB", "--sigma", "0.5")
    assert_one_line_error(result, "--sigma 0.5", "instead of --job", "not both")
