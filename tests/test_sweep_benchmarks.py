"""The shipped sweeps the benchmarks run (examples/sweeps: Fig. 14, Fig. 15 at three levels, LIBRA)
validate, and a tiny variant of each gives what railx's own functions give; a base given inline
in a spec is the same system as its file."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from railx.collectives import RailxParams, estimate
from railx.collectives.commands import collective_report
from railx.config import read_toml
from railx.libra.commands import libra_from_texts, result_json
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
        expected = libra_from_texts(
            text("network-3d.yml"), [text("transformer.txt")], [text("transformer-3d.yml")], text("cost-3d.yml"),
            objective=o["objective"], total_bw=o["total_bw"], constraints=text("constraints.toml"),
        )  # fmt: skip
        assert record == json.loads(json.dumps(result_json(expected)))
        assert math.fsum(record["bw_per_dim"]) == pytest.approx(o["total_bw"], rel=1e-6)


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
