"""`railx sim`: the flit-level simulator through the CLI and the Python API, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_railx, run_railx_process
from railx.config import ConfigError
from railx.sim import (
    FlitSettings,
    chip_link_bandwidth,
    preset_routing,
    preset_settings,
    simulate,
    step_saturation,
    sweep,
)
from railx.systems import resolve_system

QUICK = ("--warmup", "200", "--cycles", "800")


@pytest.fixture()
def torus(tmp_path: Path) -> Path:
    path = tmp_path / "torus8.toml"
    path.write_text('[peer]\nfamily = "torus3d"\ndims = [8, 8, 1]\nports_per_direction = 1\n')
    return path


def test_json_keys_and_accepted_equals_offered_at_low_load(torus: Path) -> None:
    result = run_railx("sim", torus, "--traffic", "uniform", "--load", "0.2", *QUICK, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    for key in ("offered", "accepted", "latency", "cycles", "flits_delivered"):
        assert key in report
    assert set(report["latency"]) >= {"mean", "p50", "p99", "max"}
    assert report["cycles"] == 1000 and report["routing"] == "dateline"
    assert report["accepted"] == pytest.approx(report["offered"], rel=0.03)
    assert report["offered"] == pytest.approx(0.2, rel=0.1)
    assert report["latency"]["p50"] <= report["latency"]["p99"] <= report["latency"]["max"]


def test_railx_all_to_all_and_link_export(examples: Path, tmp_path: Path) -> None:
    links = tmp_path / "links.csv"
    result = run_railx(
        "sim",
        examples / "hyperx-5x5.toml",
        "--traffic",
        "all-to-all",
        "--load",
        "0.1",
        *QUICK,
        "--links",
        links,
        "--json",
    )
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["chips"] == 100 and report["routing"] == "minimal"
    rows = links.read_text().splitlines()
    assert rows[0] == "link,src,dst,utilisation" and len(rows) > 100


def test_finite_all_to_all_reports_completion(torus: Path) -> None:
    result = run_railx("sim", torus, "--traffic", "all-to-all", "--size-flits", "4", "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["completed"] and report["flits_delivered"] == 64 * 63 * 4
    assert report["completion_cycles"] > 0


def test_the_old_all_to_all_spelling_gives_the_same_run(torus: Path) -> None:
    quick = FlitSettings(warmup_cycles=100, measure_cycles=300)
    new, new_util = simulate(str(torus), "all-to-all", 0.1, settings=quick)
    old, old_util = simulate(str(torus), "alltoall", 0.1, settings=quick)  # type: ignore[arg-type]
    assert old == new and (old_util == new_util).all() and new["traffic"] == "all-to-all"
    result = run_railx("sim", torus, "--traffic", "alltoall", "--size-flits", "2", "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["traffic"] == "all-to-all-finite" and report["flits_delivered"] == 64 * 63 * 2


def test_sweep_writes_a_plot(torus: Path, tmp_path: Path) -> None:
    png = tmp_path / "sweep.png"
    result = run_railx("sim", torus, "--sweep", "0.1,0.3", *QUICK, "--plot", png, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert [round(p["offered"], 1) for p in report["points"]] == [0.1, 0.3]
    assert png.stat().st_size > 1000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--load", "0"), "load = 0: the offered load"),
        (("--load", "5"), "load = 5: the offered load is flits/cycle/chip in (0, 4]"),
        (("--traffic", "tornado"), "traffic = 'tornado': unknown traffic pattern"),
        (("--buffer-flits", "2"), "buffer_flits = 2: virtual cut-through"),
        (("--cycles", "10000000000000"), "cycles = "),
        (("--plot", "x.png"), "plot: --plot draws a sweep"),
        (("--traffic", "permutation", "--permutation", "zigzag"), "permutation = zigzag: unknown permutation"),
        (("--vcs-per-class", "11"), "vcs_per_class = 11: routing = dateline names 6 virtual channels"),
        (("--injection-queues", "lifo"), "injection_queues = 'lifo': unknown queueing; use single or per-message"),
        (("--head-delay", "2000000"), "head_delay_cycles = 2000000: delays above 1,000,000 cycles"),
        (("--speedup", "17"), "switch_speedup = 17: must be in 1..=16"),
        (
            ("--flow-control", "store-and-forward"),
            "flow_control = 'store-and-forward': unknown flow control; use cut-through or wormhole",
        ),
        (
            ("--flow-control", "wormhole"),
            "flow_control = wormhole: a packet's flits advance one by one only with flit switch allocation",
        ),
        (("--switch-allocation", "word"), "switch_allocation = 'word': unknown switch allocation; use packet or flit"),
        (
            ("--switch-allocation", "flit", "--speedup", "2"),
            "switch_speedup = 2: output queues are modelled with packet switch allocation only",
        ),
        (("--speedup", "2", "--output-buffer", "3"), "output_buffer_flits = 3: with switch_speedup > 1"),
        (("--preset", "booksim"), "preset = booksim: unknown simulator preset; use table5 or cnsim"),
    ],
)
def test_bad_input_gets_one_line(torus: Path, args: tuple[str, ...], message: str) -> None:
    result = run_railx("sim", torus, *args)
    assert result.rc == 2
    assert message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1


def test_api_results_do_not_depend_on_threads(torus: Path) -> None:
    runs = [
        simulate(
            str(torus), "uniform", 0.5, settings=FlitSettings(warmup_cycles=100, measure_cycles=300, threads=t, seed=3)
        )
        for t in (1, 2)
    ]
    (a, ua), (b, ub) = runs
    a.pop("threads")
    b.pop("threads")
    assert a == b and (ua == ub).all()


def test_api_sweep_needs_loads(torus: Path) -> None:
    with pytest.raises(ConfigError, match="loads = \\[\\]"):
        sweep(str(torus), [])


def test_vcs_per_class_multiplies_the_physical_vcs_and_keeps_low_load_results(torus: Path) -> None:
    reports = []
    for per_class in ("1", "4"):
        result = run_railx("sim", torus, "--load", "0.2", *QUICK, "--vcs-per-class", per_class, "--json")
        assert result.rc == 0, result.stderr
        reports.append(json.loads(result.stdout))
    one, four = reports
    assert four["vcs"] == 4 * one["vcs"]
    assert four["accepted"] == pytest.approx(one["accepted"], rel=0.01)


def test_router_options_keep_low_load_results(torus: Path) -> None:
    reports = []
    for args in (
        (),
        ("--injection-queues", "per-message"),
        ("--head-delay", "2"),
        ("--speedup", "2"),
        ("--switch-allocation", "flit"),
        ("--switch-allocation", "flit", "--flow-control", "wormhole"),
        ("--routing", "dateline-partition"),
        ("--router-delay", "2"),
    ):
        result = run_railx("sim", torus, "--load", "0.2", *QUICK, *args, "--json")
        assert result.rc == 0, result.stderr
        reports.append(json.loads(result.stdout))
    base = reports[0]
    for other in reports[1:]:
        assert other["accepted"] == pytest.approx(base["accepted"], rel=0.01)
    # Idle cycles between packets only add latency; output queues do not slow a packet down.
    assert reports[2]["latency"]["mean"] >= base["latency"]["mean"]
    assert reports[3]["latency"]["mean"] <= base["latency"]["mean"]
    # A cycle more per router: about one more cycle per router on the way (hops + 1 routers).
    assert reports[-1]["latency"]["mean"] > base["latency"]["mean"] + 2


@pytest.mark.parametrize("command", ["sim", "route", "cost"])
def test_help_shows_the_peer_table_name(command: str) -> None:
    # Rich markup would swallow an unescaped "[peer]".
    result = run_railx_process(command, "--help")
    assert result.rc == 0, result.stderr
    assert "[peer]" in result.stdout


def test_cnsim_preset_configures_the_authors_simulator(examples: Path) -> None:
    system = resolve_system(str(examples / "hyperx-5x5.toml"))
    settings = preset_settings("cnsim", system, threads=2, seed=5)
    assert (settings.router_delay_cycles, settings.packetization_cycles) == (0, 2)
    assert (settings.arbitration, settings.link_latency, settings.injection_queues) == ("oldest", "head", "per-message")
    assert (settings.ejection, settings.alloc_iterations) == ("on-arrival", 64)
    assert (settings.vc_allocation, settings.input_pace) == ("ahead", "output")
    assert (settings.warmup_cycles, settings.measure_cycles, settings.threads, settings.seed) == (500, 1000, 2, 5)
    # No injection port of its own: a chip injects as fast as its links take packets. Here (m = 2,
    # n = 2, k = 4) every chip has 2 mesh neighbours, joined by `lanes` links of k flits/cycle
    # each, and 2n rail ports of 1 flit/cycle.
    net = system.network()
    mesh = [(int(a), int(b)) for a, b, c in zip(net["src"], net["dst"], net["class"]) if c == 0]
    lanes = mesh.count(mesh[0])
    assert settings.injection_flits_per_cycle == chip_link_bandwidth(system) == 2 * lanes * 4 + 2 * 2
    assert preset_settings("table5", system) == FlitSettings()
    assert preset_routing("cnsim") == "phased" and preset_routing("table5") is None
    with pytest.raises(ConfigError, match="preset = x: unknown simulator preset"):
        preset_settings("x", system)


def test_cnsims_input_pace_vc_allocation_and_ejection_through_the_api(torus: Path) -> None:
    base = FlitSettings(warmup_cycles=200, measure_cycles=800, injection_flits_per_cycle=1.0)
    cnsim = FlitSettings(
        **{**base.__dict__, "vc_allocation": "ahead", "input_pace": "output", "ejection": "on-arrival"}
    )
    low = [simulate(str(torus), "uniform", 0.2, settings=s)[0] for s in (base, cnsim)]
    assert low[1]["accepted"] == pytest.approx(low[0]["accepted"], rel=0.01)
    with pytest.raises(ConfigError, match="input_pace = 'slow': unknown input port pace; use link or output"):
        simulate(str(torus), "uniform", 0.2, settings=FlitSettings(input_pace="slow"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ejection = 'now': unknown ejection; use port or on-arrival"):
        simulate(str(torus), "uniform", 0.2, settings=FlitSettings(ejection="now"))  # type: ignore[arg-type]
    for field, value in (("input_pace", "output"), ("ejection", "on-arrival")):
        flit = FlitSettings(**{field: value, "switch_allocation": "flit"})  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match=f"{field} = {value}: .* packet switch allocation only"):
            simulate(str(torus), "uniform", 0.2, settings=flit)


def test_cnsim_preset_from_the_cli_is_the_api_run(examples: Path) -> None:
    toml = str(examples / "hyperx-5x5.toml")
    result = run_railx(
        "sim", toml, "--preset", "cnsim", "--load", "0.1", "--warmup", "100", "--cycles", "300", "--json"
    )
    assert result.rc == 0, result.stderr
    cli = json.loads(result.stdout)
    settings = preset_settings("cnsim", toml)
    settings.warmup_cycles, settings.measure_cycles = 100, 300
    api, _ = simulate(toml, "uniform", 0.1, settings=settings, routing="phased")
    assert cli == api and cli["routing"] == "phased" and cli["vcs"] == 3
    assert cli["accepted"] == pytest.approx(0.1, rel=0.1)


def test_step_saturation_stops_at_cnsims_rule(torus: Path) -> None:
    settings = FlitSettings(warmup_cycles=200, measure_cycles=400, injection_flits_per_cycle=1.0, seed=1)
    found = step_saturation(str(torus), settings=settings, step=0.1)
    points = found["points"]
    # Loads 0.1, 0.2, ... until the packets delivered fall below 5x those left in flight.
    assert [p["offered"] for p in points] == pytest.approx([0.1 * (i + 1) for i in range(len(points))], rel=0.1)
    last = points[-1]
    in_flight = (last["flits_in_flight"] + last["flits_at_sources"]) / settings.packet_flits
    assert found["saturation_load"] is not None and last["latency"]["packets"] < 5 * in_flight
    for p in points[:-1]:
        assert p["latency"]["packets"] >= 5 * (p["flits_in_flight"] + p["flits_at_sources"]) / 4
    assert found["peak_accepted"] == max(p["accepted"] for p in points)
