"""The axes of a sweep and the points they span (docs/sweeps.md, Spec format).

An axis assigns values to one or more dotted paths; a sweep's points are the Cartesian product of
its axes' points. Four kinds:

- `grid`: every combination of each path's values;
- `zip`: the paths' value lists side by side (equal lengths);
- `list`: explicit points, each a table of path -> value;
- `random`: `count` points drawn from a seeded generator, each path from `uniform = [lo, hi]`,
  `log_uniform = [lo, hi]` (optionally `integer = true`) or `choice = [...]`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from railx.config import ConfigError
from railx.messages import shown, shown_name

__all__ = ["AXIS_KINDS", "Axis", "parse_axis", "product"]

AXIS_KINDS = ("grid", "zip", "list", "random")
_DISTRIBUTIONS = ("uniform", "log_uniform", "choice")


@dataclass(frozen=True)
class Axis:
    """One axis: its label for messages (`axis 2 (grid: options.rate)`), its paths and its points."""

    label: str
    paths: tuple[str, ...]
    points: tuple[dict[str, Any], ...]


def _label(index: int, kind: str, paths: list[str]) -> str:
    return f"axis {index} ({kind}: {', '.join(map(shown_name, paths)) or 'no paths'})"


def _value_lists(label: str, table: Any, kind: str) -> dict[str, list[Any]]:
    if not isinstance(table, dict) or not table:
        raise ConfigError(
            f'{label}: {kind} needs a table of path -> list of values; e.g. {kind} = {{ "options.size" = [1, 2] }}'
        )
    for path, values in table.items():
        if not isinstance(values, list):
            raise ConfigError(
                f"{label}: {shown_name(path)} = {shown(values)}: give a list of values; e.g. [{shown(values)}]"
            )
        if not values:
            raise ConfigError(f"{label}: {shown_name(path)} has no values; an axis needs at least one, e.g. [1, 2]")
    return table


def _draw(label: str, path: str, rule: Any, rng: np.random.Generator) -> Any:
    if not isinstance(rule, dict) or sum(k in rule for k in _DISTRIBUTIONS) != 1:
        raise ConfigError(
            f"{label}: {shown_name(path)}: give exactly one of uniform = [lo, hi], log_uniform = [lo, hi] or choice = [...]"
        )
    extra = sorted(set(rule) - {*_DISTRIBUTIONS, "integer"})
    if extra:
        raise ConfigError(
            f"{label}: {shown_name(path)}.{shown_name(extra[0])}: unknown key; valid keys are uniform, log_uniform, choice, integer"
        )
    if "choice" in rule:
        values = rule["choice"]
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{label}: {shown_name(path)}: choice needs a non-empty list; e.g. choice = [1, 2, 4]")
        return values[int(rng.integers(len(values)))]
    kind = "uniform" if "uniform" in rule else "log_uniform"
    bounds = rule[kind]
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
        or not bounds[0] <= bounds[1]
        or (kind == "log_uniform" and bounds[0] <= 0)
    ):
        floor = " with 0 < lo" if kind == "log_uniform" else ""
        raise ConfigError(
            f"{label}: {shown_name(path)}: {kind} = {shown(bounds)}: give [lo, hi] with lo <= hi{floor}; e.g. [1, 100]"
        )
    lo, hi = float(bounds[0]), float(bounds[1])
    value = float(rng.uniform(lo, hi)) if kind == "uniform" else math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return round(value) if rule.get("integer", False) else value


def parse_axis(index: int, table: Any) -> Axis:
    """One `[[axis]]` table of a spec, checked and expanded; a one-line ConfigError naming the axis."""
    if not isinstance(table, dict):
        raise ConfigError(f"axis {index}: an [[axis]] is a table with one of {', '.join(AXIS_KINDS)}")
    kinds = [k for k in AXIS_KINDS if k in table]
    if len(kinds) != 1:
        raise ConfigError(
            f"axis {index}: give exactly one of {', '.join(AXIS_KINDS)} (found {', '.join(kinds) or 'none'}); "
            'e.g. grid = { "options.size" = [1, 2] }'
        )
    kind = kinds[0]
    allowed = {kind, "count", "seed"} if kind == "random" else {kind}
    extra = sorted(set(table) - allowed)
    if extra:
        raise ConfigError(
            f"axis {index} ({kind}): {shown_name(extra[0])}: unknown key; valid keys here are {', '.join(sorted(allowed))}"
        )
    body = table[kind]
    if kind == "list":
        if not isinstance(body, list) or not body or not all(isinstance(p, dict) and p for p in body):
            raise ConfigError(
                f"axis {index} (list): give a non-empty list of points, each a table of path -> value; "
                'e.g. list = [{ "options.size" = 1 }]'
            )
        paths = list(dict.fromkeys(path for point in body for path in point))
        label = _label(index, kind, paths)
        for point in body:
            missing = sorted(set(paths) - set(point))
            if missing:
                raise ConfigError(f"{label}: a point lacks {shown_name(missing[0])}; give every point the same paths")
        return Axis(label, tuple(paths), tuple(dict(p) for p in body))
    if kind == "random":
        paths = list(body) if isinstance(body, dict) else []
        label = _label(index, kind, paths)
        count, seed = table.get("count"), table.get("seed", 0)
        if not isinstance(body, dict) or not body:
            raise ConfigError(
                f'{label}: random needs a table of path -> distribution; e.g. random = {{ "options.rate" = {{ uniform = [0, 0.01] }} }}'
            )
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ConfigError(
                f"{label}: count = {shown(count)}: a random axis draws at least one point; e.g. count = 10"
            )
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ConfigError(f"{label}: seed = {shown(seed)}: a seed is an integer >= 0; e.g. seed = 0")
        rng = np.random.default_rng(seed)
        points = tuple({path: _draw(label, path, body[path], rng) for path in paths} for _ in range(count))
        return Axis(label, tuple(paths), points)
    paths = list(body) if isinstance(body, dict) else []
    label = _label(index, kind, paths)
    lists = _value_lists(label, body, kind)
    if kind == "zip":
        lengths = {len(v) for v in lists.values()}
        if len(lengths) != 1:
            counts = ", ".join(f"{shown_name(p)}: {len(lists[p])}" for p in paths)
            raise ConfigError(f"{label}: zipped lists differ in length ({counts}); give them equal lengths")
        combos: list[tuple[Any, ...]] = list(zip(*(lists[p] for p in paths)))
    else:
        combos = list(itertools.product(*(lists[p] for p in paths)))
    return Axis(label, tuple(paths), tuple(dict(zip(paths, combo)) for combo in combos))


def product(axes: list[Axis]) -> list[dict[str, Any]]:
    """The sweep's points: one of each axis's points, merged; the first axis varies slowest."""
    seen: dict[str, str] = {}
    for axis in axes:
        for path in axis.paths:
            if path in seen:
                raise ConfigError(
                    f"{axis.label}: {shown_name(path)} is already swept by {shown_name(seen[path])}; sweep each path on one axis"
                )
            seen[path] = axis.label
    return [
        {k: v for point in combo for k, v in point.items()} for combo in itertools.product(*(a.points for a in axes))
    ]
