"""The shipped sweeps the benchmarks run (examples/sweeps: Fig. 14, Fig. 15 at three levels, LIBRA's
budget sweep and its evaluation)
validate, and a tiny variant of each gives what railx's own functions give; a base given inline
in a spec is the same system as its file."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from railx.collectives import RailxParams, estimate
from railx.collectives.commands import collective_report
from railx.config import read_toml
from railx.libra.chunked import ChunkedAlgebra
from railx.libra.commands import libra_problem, result_json, solve
from railx.libra.loops import NumericAlgebra, build_time
from railx.libra.network import parse_network
from railx.libra.utilization import bandwidth_utilization, full_utilization_time_s
from railx.libra.workload import parse_communicator, parse_workload
from railx.sim import FlitSettings, sweep, sweep_summary
from railx.sweep import Sweep, load_spec, parse_spec
from railx.sweep.batch import base_table
from railx.sweep.point import run_point
from railx.systems import System, resolve_system

SPECS = Path(__file__).resolve().parents[1] / "examples" / "sweeps"


def records(sweep_: Sweep) -> list[dict[str, Any]]:
    out = [run_point(p.inputs) for p in sweep_.points]
    assert all(r["error"] is None for r in out), [r["error"] for r in out]
    return [r["record"] for r in out]


def test_fig14_specs_tiny_variant_is_the_core_load_sweep(tmp_path: Path) -> None:
    """fig14.toml on a 3 x 3 grid with short runs: its points, run one by one in ascending load,
    are railx.sim.sweep's (points, saturation load and peak)."""
    settings = FlitSettings(warmup_cycles=60, measure_cycles=120, threads=1)
    data = read_toml(SPECS / "fig14.toml")
    data["options"] |= asdict(settings)
    data["axis"] = [{"grid": {"system.grid": [[3, 3]], "system.k": [2], "options.load": [0.3, 0.9]}}]
    got = sweep_summary(records(parse_spec(data, SPECS, "fig14")))
    system = resolve_system(str(SPECS / "systems" / "fig14-railx-hyperx.toml"))
    doc = json.loads(json.dumps(system.railx))
    doc["system"] |= {"grid": [3, 3], "k": 2}
    expected = sweep(System("tiny", "tiny", railx=doc), [0.3, 0.9], "all-to-all", settings=settings)
    assert got == json.loads(json.dumps(expected))
    assert len(load_spec(SPECS / "fig14-peers.toml").points) == 3 * 11


def _fig15_key(inputs: dict[str, Any]) -> tuple[int, str, int]:
    return inputs["document"]["system"]["R"] // 2, inputs["options"]["algo"], inputs["options"]["size"]


@pytest.mark.parametrize("level", ["fig15", "fig15-flow", "fig15-flit"])
def test_fig15_specs_tiny_points_equal_railx_functions(level: str) -> None:
    """The 16- and 64-chip points at 1 KiB of each Fig. 15 level equal the function behind it:
    the closed form (within rounding), the flow-level schedule and `railx collective --fidelity flit`."""
    whole = load_spec(SPECS / f"{level}.toml")
    small = [p for p in whole.points if _fig15_key(p.inputs)[0] <= 2 and _fig15_key(p.inputs)[2] == 1024]
    assert len(small) == 6
    for point, record in zip(small, records(replace(whole, points=small))):
        p, algo, size = _fig15_key(point.inputs)
        options = point.inputs["options"]
        if level == "fig15":
            params = RailxParams(m=4, n=1, p=p, q=p, port_bw_Bps=100e9, intra_bw_Bps=400e9, alpha_out_s=300e-9,
                                 alpha_in_s=10e-9)  # fmt: skip
            assert record["time_s"] == pytest.approx(estimate("all-reduce", algo, size, params).time_s, rel=1e-12)
        else:
            system = System("fig15-torus", "fig15-torus", railx=point.inputs["document"])
            expected = collective_report(
                system, "all-reduce", algo, size, options["fidelity"], routing=options["routing"]
            )
            assert record == json.loads(json.dumps(expected))
    counts = {"fig15": 7 * 3 * 11, "fig15-flow": (7 * 2 + 5) * 3, "fig15-flit": 3 * 3 * 2}
    assert len(whole.points) == counts[level]


def test_libra_budget_spec_equals_railx_libra() -> None:
    whole = load_spec(SPECS / "libra-budget.toml")
    assert len(whole.points) == 2 * 10
    ends = [whole.points[0], whole.points[-1]]  # perf at 100 GB/s, perf-per-cost at 1,000 GB/s
    libra = SPECS.parent / "libra"

    def text(name: str) -> tuple[str, str]:
        return name, (libra / name).read_text()

    for point, record in zip(ends, records(replace(whole, points=ends))):
        o = point.inputs["options"]
        problem = libra_problem(
            text("network-3d.yml"), [text("transformer.txt")], [text("transformer-3d.yml")], text("cost-3d.yml"),
            objective=o["objective"], total_bw=o["total_bw"], constraints=text("constraints.toml"),
        )  # fmt: skip
        expected = solve(problem, o["objective"])
        assert record == json.loads(json.dumps(result_json(expected)))
        assert math.fsum(record["bw_per_dim"]) == pytest.approx(o["total_bw"], rel=1e-6)


def test_libra_eval_spec_is_the_benchmarks_cases() -> None:
    """libra-eval.toml lists the benchmark's cases (Figs. 13-16), LIBRA's files from
    examples/libra-inputs, over every budget and both objectives, with every evaluation."""
    bench = _benchmark("libra_eval")
    data = read_toml(SPECS / "libra-eval.toml")
    assert data["sweep"] == {"name": "libra-eval", "analysis": "libra"}
    assert data["options"] == {"evaluate": bench.EVALUATE, "chunks": 64}
    cases, grid = data["axis"]
    assert cases["list"] == [bench.case_options(net, (w,)) for net, w in bench.SPEC_CASES]
    assert grid["grid"] == {
        "options.total_bw": list(bench.BUDGETS_GBps),
        "options.objective": ["perf", "perf-per-cost"],
    }


def test_libra_eval_spec_loads_from_any_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # every path is relative to the spec
    assert len(load_spec(SPECS / "libra-eval.toml").points) == 11 * 10 * 2


def test_libra_eval_spec_tiny_variant_equals_railx_functions() -> None:
    """The spec's options on examples/libra's transformer (300 GB/s, both objectives): the
    record is `railx libra --json`'s plus each evaluation, equal to railx.libra's own models."""
    data = read_toml(SPECS / "libra-eval.toml")
    files = {"network": "network-3d.yml", "cost": "cost-3d.yml", "workload": "transformer.txt"}
    comm_file = "transformer-3d.yml"
    data["axis"] = [
        {
            "list": [
                {f"options.{k}": f"../libra/{v}" for k, v in files.items() if k != "workload"}
                | {"options.workload": ["../libra/transformer.txt"], "options.communicator": [f"../libra/{comm_file}"]}
            ]
        },
        {"grid": {"options.total_bw": [300.0], "options.objective": ["perf", "perf-per-cost"]}},
    ]
    libra = SPECS.parent / "libra"

    def text(name: str) -> tuple[str, str]:
        return name, (libra / name).read_text()

    net = parse_network(text(files["network"])[1], files["network"])
    workload = parse_workload(text(files["workload"])[1], "transformer", files["workload"])
    comm = parse_communicator(text(comm_file)[1], comm_file, net)
    analytic, subgroups = build_time(workload, comm), build_time(workload, comm, network=net)
    sweep_ = parse_spec(data, SPECS, "libra-eval")
    for point, record in zip(sweep_.points, records(sweep_)):
        objective = point.inputs["options"]["objective"]
        problem = libra_problem(
            text(files["network"]), [text(files["workload"])], [text(comm_file)], text(files["cost"]),
            objective=objective, total_bw=300.0,
        )  # fmt: skip
        expected = solve(problem, objective)
        evaluation = record.pop("evaluation")
        assert record == json.loads(json.dumps(result_json(expected)))
        designs = {"time_s": record["bw_per_dim"], "baseline_time_s": record["baseline"]["bw_per_dim"]}
        for key, bw in designs.items():
            bw_GBps = np.array(bw)
            assert evaluation["chunked"][key] == analytic.evaluate(ChunkedAlgebra(bw_GBps, 64))
            assert evaluation["subgroups"][key] == subgroups.evaluate(NumericAlgebra(bw_GBps))
            # Chunks must fill and drain the pipeline: never faster than LIBRA's model.
            assert evaluation["chunked"][key] >= (record["time_s"] if key == "time_s" else record["baseline"]["time_s"])
        u = evaluation["utilization"]
        assert u["optimum"] == bandwidth_utilization(analytic, np.array(record["bw_per_dim"]))
        assert u["baseline"] == bandwidth_utilization(analytic, np.array(record["baseline"]["bw_per_dim"]))
        assert u["full_time_s"] == full_utilization_time_s(analytic, 300.0)
        assert u["compute_s"] == analytic.constant_s
        # No allocation beats every dimension busy all the time.
        assert u["full_time_s"] <= record["time_s"] and 0 < u["optimum"] <= 1 and 0 < u["baseline"] <= 1


def test_libra_ring_bw_share_slows_only_the_rings() -> None:
    """ring_bw_share = 0.5: each collective's bytes on a ring dimension count double. On a network
    with no ring the record is unchanged; the optimum's time at a halved ring share is at least
    LIBRA's (every design is slower)."""

    def run(network: str, share: float) -> dict[str, Any]:
        data = {
            "sweep": {"name": "t", "analysis": "libra"},
            "options": {
                "network": network, "cost_dims": "InterChiplet,InterPackage,InterPod",
                "workload": ["../libra/transformer.txt"], "communicator": ["../libra/transformer-3d.yml"],
                "cost": "../libra/cost-3d.yml", "total_bw": 300.0, "ring_bw_share": share,
            },
        }  # fmt: skip
        return records(parse_spec(data, SPECS, "t"))[0]

    assert run("FC(4)_FC(8)_SW(32)", 0.5) == run("FC(4)_FC(8)_SW(32)", 1.0)
    full, half = run("RI(4)_FC(8)_SW(32)", 1.0), run("RI(4)_FC(8)_SW(32)", 0.5)
    assert half["time_s"] >= full["time_s"] and half["baseline"]["time_s"] > full["baseline"]["time_s"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "evaluate",
            ["chunked", "tiles"],
            "evaluate = 'tiles': not a model; use any of chunked, subgroups, utilization",
        ),
        ("chunks", 0, "chunks = 0: must be a positive integer, e.g. 64"),
        ("ring_bw_share", 0.0, "ring_bw_share = 0.0: must be in (0, 1], e.g. 0.5"),
    ],
)
def test_libra_evaluation_options_are_checked(option: str, value: Any, message: str) -> None:
    data = {
        "sweep": {"name": "t", "analysis": "libra"},
        "options": {
            "network": "../libra/network-3d.yml", "workload": ["../libra/transformer.txt"],
            "communicator": ["../libra/transformer-3d.yml"], "cost": "../libra/cost-3d.yml", "total_bw": 300.0,
            "evaluate": ["chunked"], option: value,
        },
    }  # fmt: skip
    (point,) = parse_spec(data, SPECS, "t").points
    error = run_point(point.inputs)["error"]
    assert message in error and "\n" not in error


@pytest.mark.parametrize("base", ["fig14-railx-hyperx.toml", "fat-tree-1296.toml"])
def test_an_inline_base_is_its_file(base: str) -> None:
    system = resolve_system(str(SPECS / "systems" / base))
    inline = {"name": system.name} | ({"peer": system.peer} if system.railx is None else system.railx)
    assert base_table(system) == inline
    data = {
        "sweep": {"name": "t", "analysis": "cost"},
        "axis": [{"list": [{"base": f"systems/{base}"}, {"base": inline}]}],
    }
    from_file, from_table = parse_spec(data, SPECS, "t").points
    assert from_file.key == from_table.key  # same name, label and document: the same point
    assert records(parse_spec(data, SPECS, "t"))[0]["cost_usd"] > 0


def test_an_inline_base_is_validated_naming_the_axis() -> None:
    data = {
        "sweep": {"name": "t", "analysis": "cost"},
        "axis": [{"list": [{"base": {"name": "bad", "peer": {"family": "fat-tree", "radix": 7, "chips": 16}}}]}],
    }
    with pytest.raises(Exception, match=r"^axis 1 \(list: base\): ") as info:
        parse_spec(data, SPECS, "t")
    assert "\n" not in str(info.value)


def _benchmark(name: str) -> Any:
    import importlib.util

    path = SPECS.parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_benchmarks_sweeps_validate() -> None:
    """The sweeps the benchmarks build in Python load (every point checked by railx's schema)."""
    fig14 = _benchmark("fig14")
    systems = list(fig14.SYSTEMS.values())
    sweep_ = fig14.load_sweep(systems, [0.5, 0.1], FlitSettings(), "minimal")
    assert len(sweep_.points) == 2 * len(systems)
    assert [p.inputs["options"]["load"] for p in sweep_.points[:2]] == [0.1, 0.5]  # ascending, as the core's
    comparison = _benchmark("system_comparison")
    assert len(comparison.comparison_sweep(comparison.SYSTEMS, comparison.QUESTIONS).points) == 5 * 3 * 2
    allocation = _benchmark("allocation")
    assert len(allocation.solvers_sweep().points) == 9
    assert len(_benchmark("fig15").fig15_sweeps()) == 3
