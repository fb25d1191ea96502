"""Sweep specs (docs/sweeps.md): a TOML file naming an analysis, a base system, options and axes,
checked and expanded into points before anything runs. Each point's resolved inputs (the base's
configuration document with the axes' values applied, and every option with its default) are
validated through railx's own schema, and keyed by a content hash of (analysis, resolved inputs,
railx version)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import railx
from railx.config import Config, ConfigError, one_line_error, read_toml
from railx.messages import shown, shown_name
from railx.platforms import expand_platform
from railx.sweep.axes import Axis, parse_axis, product
from railx.sweep.files import resolve_files
from railx.sweep.paths import BASE, OPTIONS, apply_overrides
from railx.sweep.registry import ANALYSES, Analysis, resolve_options
from railx.systems import PRESETS, System, resolve_system

__all__ = ["DEFAULT_RETRIES", "Point", "Sweep", "load_spec", "parse_spec", "point_key"]

DEFAULT_RETRIES = 1
_SWEEP_KEYS = ("name", "analysis", "base", "retries")


@dataclass(frozen=True)
class Point:
    """One point: its place in the sweep, its content hash, the axes' values that made it, and its
    resolved inputs (what a worker needs: analysis, base name and label, base document, options)."""

    seq: int
    key: str
    assignment: dict[str, Any]
    inputs: dict[str, Any]


@dataclass(frozen=True)
class Sweep:
    """A checked spec: its name, analysis, retries per failed point, and its points in order."""

    name: str
    analysis: str
    retries: int
    points: list[Point]


def point_key(inputs: dict[str, Any], version: str = railx.__version__) -> str:
    """The content hash (SHA-256, hex) of a point: its analysis, resolved inputs and railx version."""
    text = json.dumps({"inputs": inputs, "railx_version": version}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _locate(text: str, spec_dir: Path) -> str:
    """A preset name as it is; a file relative to the spec's directory if it is there, else as given."""
    if text in PRESETS:
        return text
    beside = spec_dir / text
    return str(beside) if beside.is_file() else text


def _base(analysis: Analysis, text: Any, spec_dir: Path, where: str) -> tuple[str, str, dict[str, Any] | None]:
    """The base's name, label (a preset's, else its name) and configuration document."""
    if analysis.base == "none":
        if text is not None:
            raise ConfigError(f"{where}: base = {shown(text)}: {analysis.name} takes no base; its inputs are options.*")
        return "none", "none", None
    if text is None:
        if analysis.base == "optional-system":
            return "none", "none", None
        example = (
            "examples/workloads/listing1.toml" if analysis.base == "workload-system" else "examples/hyperx-9x9.toml"
        )
        raise ConfigError(f'{where}: {analysis.name} needs a base; e.g. base = "{example}"')
    if isinstance(text, dict):
        return _inline_base(analysis, text, where)
    if not isinstance(text, str):
        raise ConfigError(f"{where}: base = {shown(text)}: give a preset name, a TOML file path or a table")
    located = _locate(text, spec_dir)
    try:
        if analysis.base == "workload-system":
            return Path(located).stem, Path(located).stem, read_toml(located, f"base = {shown(text)}")
        system = resolve_system(located)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return system.name, system.label, (system.railx if system.railx is not None else {"peer": system.peer})


def _inline_base(analysis: Analysis, table: dict[str, Any], where: str) -> tuple[str, str, dict[str, Any]]:
    """A base given as a table: a configuration document as its file would hold it, with an
    optional `name` (default "inline")."""
    document = dict(table)
    name = document.pop("name", "inline")
    if not isinstance(name, str) or not name:
        raise ConfigError(f'{where}: base.name = {shown(name)}: give a non-empty string; e.g. name = "torus-36x36"')
    if analysis.base != "workload-system" and isinstance(document.get("peer"), dict):
        try:
            document["peer"] = expand_platform(document["peer"])
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return name, name, document


def _validate(analysis: Analysis, name: str, document: dict[str, Any] | None) -> None:
    """The base document checked by railx's own schema (RailX configuration, peer builder, or
    workload system): a ConfigError with its one-line message."""
    if document is None:
        return
    if analysis.base == "workload-system":
        from railx.workload.system import WorkloadSystem

        try:
            WorkloadSystem.model_validate(document)
        except ValidationError as exc:
            raise ConfigError(one_line_error(exc, WorkloadSystem)) from None
    elif "peer" in document:
        extra = sorted(set(document) - {"peer"})
        if extra:
            raise ConfigError(f"{shown_name(extra[0])}: unknown key next to peer; a peer document holds only peer.*")
        System(name, name, peer=document["peer"]).bom()
    else:
        Config.from_dict(document)


def parse_spec(data: dict[str, Any], spec_dir: Path, default_name: str) -> Sweep:
    """A spec's parsed TOML, checked and expanded (relative files are found beside the spec)."""
    extra = sorted(set(data) - {"sweep", OPTIONS, "axis"})
    if extra:
        raise ConfigError(f"{shown_name(extra[0])}: unknown table; a spec has [sweep], [options] and [[axis]]")
    head = data.get("sweep")
    if not isinstance(head, dict):
        raise ConfigError('sweep: the [sweep] table is missing; e.g. [sweep] analysis = "plan"')
    unknown = sorted(set(head) - set(_SWEEP_KEYS))
    if unknown:
        raise ConfigError(f"sweep.{shown_name(unknown[0])}: unknown key; valid keys here are {', '.join(_SWEEP_KEYS)}")
    name = head.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise ConfigError(f'sweep.name = {shown(name)}: give a non-empty string; e.g. name = "fig17b"')
    analysis_name = head.get("analysis")
    if analysis_name not in ANALYSES:
        raise ConfigError(
            f"sweep.analysis = {shown(analysis_name)}: unknown analysis; use one of {', '.join(ANALYSES)}"
        )
    analysis = ANALYSES[analysis_name]
    retries = head.get("retries", DEFAULT_RETRIES)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise ConfigError(f"sweep.retries = {shown(retries)}: retries are an integer >= 0; e.g. retries = 1")
    options = data.get(OPTIONS, {})
    if not isinstance(options, dict):
        raise ConfigError("options: must be a table of option = value")
    tables = data.get("axis", [])
    if not isinstance(tables, list):
        raise ConfigError(
            'axis: write each axis as an [[axis]] table; e.g. [[axis]] grid = { "options.size" = [1, 2] }'
        )
    axes: list[Axis] = [parse_axis(i + 1, t) for i, t in enumerate(tables)]
    axis_of = {path: axis.label for axis in axes for path in axis.paths}
    for path, label in axis_of.items():
        if analysis.base in ("optional-system", "none") and path != BASE and not path.startswith(f"{OPTIONS}."):
            raise ConfigError(
                f"{label}: {shown_name(path)}: {analysis.name} reads only options.* and base; e.g. options.rate"
            )
    bases: dict[str, tuple[str, str, dict[str, Any] | None]] = {}
    checked: set[str] = set()
    texts: dict[Path, str] = {}  # the files options name, read once per spec
    points = []
    for seq, assignment in enumerate(product(axes)):
        base_text = assignment.get(BASE, head.get("base"))
        where = axis_of.get(BASE, "sweep.base")
        key = json.dumps(base_text)
        if key not in bases:
            bases[key] = _base(analysis, base_text, spec_dir, where)
        base_name, label, document = bases[key]
        system_paths = {p: v for p, v in assignment.items() if p != BASE and not p.startswith(f"{OPTIONS}.")}
        option_paths = {p[len(OPTIONS) + 1 :]: v for p, v in assignment.items() if p.startswith(f"{OPTIONS}.")}
        if document is not None and system_paths:
            document = apply_overrides(document, system_paths, axis_of)
        doc_key = json.dumps([base_name, document], sort_keys=True)
        if doc_key not in checked:
            try:
                _validate(analysis, base_name, document)
            except ConfigError as exc:
                labels = sorted({axis_of[p] for p in system_paths}) or [where]
                raise ConfigError(f"{'; '.join(labels)}: {exc}") from None
            checked.add(doc_key)
        opts = apply_overrides(options, option_paths, {p[len(OPTIONS) + 1 :]: a for p, a in axis_of.items()})
        inputs = {
            "analysis": analysis.name,
            "base": base_name,
            "label": label,
            "document": document,
            "options": resolve_files(
                analysis.files, resolve_options(analysis, opts, axis_of), spec_dir, axis_of, texts
            ),
        }
        points.append(Point(seq, point_key(inputs), assignment, inputs))
    return Sweep(name, analysis.name, retries, points)


def load_spec(path: str | Path) -> Sweep:
    """Reads, checks and expands a spec file; a one-line ConfigError naming the axis or key at fault."""
    path = Path(path)
    return parse_spec(read_toml(path, f"spec {path}"), path.parent, path.stem)
