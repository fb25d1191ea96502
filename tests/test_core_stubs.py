"""The type stubs of the compiled module (python/railx/_core.pyi) against the module itself: every
name and signature (mypy's stubtest), and every dict the core returns, key by key, with the Python
type or NumPy dtype of each value exactly as the stubs' TypedDicts declare it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from railx import _core
from railx.sim import FlitSettings, _settings_json, _Traffic
from railx.systems import System

STUB = Path(_core.__file__).with_name("_core.pyi")
RAILX = System(
    "railx", "railx", railx={"system": {"m": 2, "n": 1, "R": 8, "grid": [3, 3]}, "topology": {"preset": "torus"}}
)
FAT_TREE = System("fat-tree", "fat-tree", peer={"family": "fat-tree", "radix": 8, "chips": 32})
MiB = 1 << 20


def _stub_types() -> tuple[dict[str, dict[str, tuple[ast.expr, bool]]], dict[str, ast.expr]]:
    """The stub's TypedDicts (field -> (annotation, required)) and its type aliases."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    dicts: dict[str, dict[str, tuple[ast.expr, bool]]] = {}
    aliases: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if bases == ["TypedDict"] or (bases and bases[0] in dicts):
                fields = dict(dicts[bases[0]]) if bases[0] in dicts else {}
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        fields[item.target.id] = _required(item.annotation)
                dicts[node.name] = fields
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func) == "TypedDict":
                table = value.args[1]
                assert isinstance(table, ast.Dict)
                dicts[name] = {
                    ast.literal_eval(k): _required(v) for k, v in zip(table.keys, table.values) if k is not None
                }
            elif name != "__all__":
                aliases[name] = value
    return dicts, aliases


def _required(annotation: ast.expr) -> tuple[ast.expr, bool]:
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "NotRequired":
        return annotation.slice, False
    return annotation, True


DICTS, ALIASES = _stub_types()


def _conforms(value: Any, annotation: ast.expr) -> bool:
    """Whether `value` is of the stub type `annotation` (the forms the stub uses)."""
    text = ast.unparse(annotation)
    if text in ALIASES:
        return _conforms(value, ALIASES[text])
    if text in DICTS:
        return _conforms_dict(value, text) == []
    scalars = {"int": int, "float": float, "str": str, "bool": bool}
    if text in scalars:
        return isinstance(value, scalars[text]) and (text == "bool" or not isinstance(value, bool))
    assert isinstance(annotation, ast.Subscript), text
    head, args = ast.unparse(annotation.value), annotation.slice
    items = args.elts if isinstance(args, ast.Tuple) else [args]
    if head == "npt.NDArray":
        return isinstance(value, np.ndarray) and value.dtype == np.dtype(getattr(np, ast.unparse(args).split(".")[1]))
    if head == "list":
        return isinstance(value, list) and all(_conforms(v, args) for v in value)
    if head == "tuple":
        return isinstance(value, tuple) and len(value) == len(items) and all(map(_conforms, value, items))
    if head == "Literal":
        return value in [ast.literal_eval(i) for i in items]
    raise AssertionError(f"the test does not know the stub type {text}")


def _conforms_dict(value: Any, name: str) -> list[str]:
    """What is wrong with `value` as the TypedDict `name` (nothing: an empty list)."""
    if not isinstance(value, dict):
        return [f"{name}: not a dict but {type(value).__name__}"]
    fields = DICTS[name]
    problems = [f"{name}.{k}: returned but not in the stub" for k in value if k not in fields]
    for key, (annotation, required) in fields.items():
        if key not in value:
            problems += [f"{name}.{key}: missing"] if required else []
        elif not _conforms(value[key], annotation):
            problems.append(f"{name}.{key}: {value[key]!r} is not {ast.unparse(annotation)}")
    return problems


def test_the_stub_matches_every_name_and_signature_of_the_module() -> None:
    pytest.importorskip("mypy.stubtest")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(STUB.parents[1]), os.environ.get("PYTHONPATH")) if p)
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "railx._core"], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_stub_declares_the_dicts_the_tests_check() -> None:
    assert {"LinkArrays", "DagArrays", "CollectiveCounts", "CollectivePlan", "PlanLine", "FlowReport"} <= set(DICTS)
    assert {"FlowCollective", "FlitRun", "FlitCollective"} <= set(DICTS)


@pytest.mark.parametrize("system", [RAILX, FAT_TREE], ids=["railx", "fat-tree"])
def test_links_and_group_dims_are_as_declared(system: System) -> None:
    assert _conforms_dict(system.core.links(), "LinkArrays") == []
    assert _conforms(system.core.group_dims(), ast.parse("list[_GroupDim]", mode="eval").body)


def test_collective_results_are_as_declared() -> None:
    core = RAILX.core
    assert _conforms_dict(_core.collective_counts(core, "allreduce", "ring", MiB), "CollectiveCounts") == []
    assert _conforms_dict(_core.collective_dag(core, "allreduce", "ring", MiB), "DagArrays") == []
    plain = _core.collective_plan(core, "allreduce", "hierarchical")
    measured = _core.collective_plan(core, "allreduce", "hierarchical", measure=True)
    assert _conforms_dict(plain, "CollectivePlan") == [] and _conforms_dict(measured, "CollectivePlan") == []
    # The optional fields appear exactly when measured.
    assert all("alpha_s" not in line for line in plain["lines"])
    assert all({"alpha_s", "bw_Bps"} <= set(line) for line in measured["lines"])
    assert _conforms_dict(_core.flow_collective(core, "allreduce", "ring", MiB), "FlowCollective") == []
    assert _conforms_dict(_core.flit_collective(core, "allreduce", "ring", 64 << 10), "FlitCollective") == []


@pytest.mark.parametrize("bins", [0, 4])
def test_flow_report_is_as_declared_with_and_without_a_timeline(bins: int) -> None:
    dag = _core.collective_dag(RAILX.core, "allreduce", "ring", MiB)
    columns = (dag["src"], dag["dst"], dag["bytes"], dag["delay_s"], dag["dep_start"], dag["deps"])
    report = _core.flow_simulate(RAILX.core, *columns, bins=bins)
    assert _conforms_dict(report, "FlowReport") == []
    assert ("utilisation" in report) == (bins > 0)


def test_flit_run_is_as_declared() -> None:
    settings = _settings_json(RAILX, FlitSettings(warmup_cycles=100, measure_cycles=200))
    traffic = json.dumps(asdict(_Traffic("uniform", 0.1)))
    assert _conforms_dict(_core.flit_simulate(RAILX.core, settings, traffic), "FlitRun") == []
