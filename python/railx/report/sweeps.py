"""Any sweep of a store, shown without knowing its purpose: a table of every point (axes and
typed figures) and plots chosen from the axes — a line over the one numeric axis with one series
per value of the others, a heatmap over two numeric axes (one per value of the others), bars
when no axis is numeric."""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from railx.report.plots import Chart, Series, bar_chart, heatmap_chart, line_chart
from railx.report.tables import Table
from railx.sweep.registry import FIGURES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["axis_label", "metric_label", "numeric_axes", "sweep_anchor", "sweep_findings"]

MAX_PLOTTED_METRICS = 3  # figures per sweep: the first few typed figures it reports
MAX_HEATMAPS = 4  # heatmaps per metric (one per value of the other axes)

# What each typed figure is, in which unit; `True`: a ratio (its axis starts at zero).
_METRICS: dict[str, tuple[str, bool]] = {
    "time_s": ("time (s)", False),
    "busbw_Bps": ("bus bandwidth (B/s)", False),
    "cost_usd": ("cost (USD)", False),
    "power_w": ("power (W)", False),
    "availability": ("availability (fraction of nodes)", True),
    "iteration_s": ("iteration time (s)", False),
    "mean_hops": ("mean hops per route", False),
    "accepted": ("accepted load (flits/cycle/chip)", False),
    "latency_cycles": ("mean packet latency (cycles)", False),
}
_AXES: dict[str, str] = {
    "options.size": "message size (bytes)",
    "options.load": "offered load (flits/cycle/chip)",
    "options.rate": "failure rate per node",
    "options.count": "failed nodes",
    "system.R": "OCS radix R (ports)",
    "system.k": "k (intra-node over external bandwidth)",
    "system.m": "m (chips per mesh side)",
    "system.n": "n (ports per chip edge)",
}
_SUFFIX_UNITS = {"_s": "s", "_ns": "ns", "_ms": "ms", "_Bps": "B/s", "_GBps": "GB/s", "_bytes": "bytes", "_w": "W"}
_NOT_PLOTTED = ("chips", "acyclic")


def metric_label(name: str) -> str:
    """A typed figure's axis label, with its unit."""
    return _METRICS.get(name, (name, False))[0]


def axis_label(path: str) -> str:
    """A swept path's axis label, with its unit where the path says it."""
    if path in _AXES:
        return _AXES[path]
    for suffix, unit in _SUFFIX_UNITS.items():
        if path.endswith(suffix):
            return f"{path} ({unit})"
    return path


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def numeric_axes(frame: pd.DataFrame, axes: list[str]) -> list[str]:
    """The axes whose values are all numbers and take more than one value."""
    return [a for a in axes if all(_is_number(v) for v in frame[a]) and frame[a].nunique() > 1]


def _axes_of(frame: pd.DataFrame) -> list[str]:
    paths: dict[str, None] = {}
    for point in frame["point"]:
        paths.update(dict.fromkeys(json.loads(point) if isinstance(point, str) else point))
    return list(paths)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def sweep_anchor(name: str) -> str:
    """The page anchor of a sweep's section (its figures' and table's ids start with it)."""
    return f"sweep-{_slug(name)}"


def sweep_findings(name: str, frame: pd.DataFrame) -> tuple[Table, list[Chart]]:
    """The sweep's table (every point) and its plots."""
    axes = _axes_of(frame)
    metrics = [m for m in FIGURES if m in frame.columns and frame[m].notna().any()]
    rows = [
        [int(r["seq"]), *(_text(r[a]) if not _is_number(r[a]) else r[a] for a in axes),
         *(None if _missing(r[m]) else r[m] for m in metrics), r["error"] or "ok"]
        for _, r in frame.iterrows()
    ]  # fmt: skip
    table = Table(
        f"{sweep_anchor(name)}-points", f"Sweep {name}: every point", ["seq", *axes, *metrics, "status"], rows
    )
    ok = frame[frame["status"] == "ok"]
    plotted = [m for m in metrics if m not in _NOT_PLOTTED][:MAX_PLOTTED_METRICS]
    charts: list[Chart] = []
    if ok.empty:
        return table, charts
    numeric = numeric_axes(ok, axes)
    varying = [a for a in axes if ok[a].map(_text).nunique() > 1]
    for metric in plotted:
        if len(numeric) >= 2:
            charts += _heatmaps(
                name, ok, metric, numeric[-1], numeric[-2], [a for a in varying if a not in numeric[-2:]]
            )
        elif len(numeric) == 1:
            charts.append(_lines(name, ok, metric, numeric[0], [a for a in varying if a != numeric[0]]))
        else:
            labels = [", ".join(f"{a} = {_text(r[a])}" for a in varying) or str(r["seq"]) for _, r in ok.iterrows()]
            charts.append(
                bar_chart(f"{sweep_anchor(name)}-{_slug(metric)}", f"Sweep {name}: {metric} per point", labels,
                          [(metric, [float(v) for v in ok[metric]])], metric_label(metric),
                          ratio=_METRICS.get(metric, ("", False))[1])
            )  # fmt: skip
    return table, charts


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _groups(frame: pd.DataFrame, others: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """The frame split by the values of the `others` axes (as text: values may be lists), in
    order of first appearance, each with its label."""
    if not others:
        return [("", frame)]
    keys = [tuple(_text(frame.at[i, a]) for a in others) for i in frame.index]
    out = []
    for values in dict.fromkeys(keys):
        mask = [k == values for k in keys]
        out.append((", ".join(f"{a} = {v}" for a, v in zip(others, values)), frame[mask]))
    return out


def _lines(name: str, frame: pd.DataFrame, metric: str, x: str, others: list[str]) -> Chart:
    series = []
    for label, part in _groups(frame, others):
        part = part.groupby(x, sort=True)[metric].mean()
        series.append(Series(label or metric, [float(v) for v in part.index], [float(v) for v in part.values]))
    return line_chart(
        f"{sweep_anchor(name)}-{_slug(metric)}",
        f"Sweep {name}: {metric} against {x}",
        [("", series)],
        axis_label(x),
        metric_label(metric),
        ratio=_METRICS.get(metric, ("", False))[1],
    )


def _heatmaps(name: str, frame: pd.DataFrame, metric: str, x: str, y: str, others: list[str]) -> list[Chart]:
    charts = []
    groups = _groups(frame, others)
    shown = f"the first {MAX_HEATMAPS} of {len(groups)} combinations of the other axes; the table has every point"
    for i, (label, part) in enumerate(groups[:MAX_HEATMAPS]):
        grid = part.pivot_table(index=y, columns=x, values=metric, aggfunc="mean").sort_index().sort_index(axis=1)
        charts.append(
            heatmap_chart(
                f"{sweep_anchor(name)}-{_slug(metric)}-{i}",
                f"Sweep {name}: {metric} over {x} and {y}" + (f" ({label})" if label else ""),
                list(grid.columns),
                list(grid.index),
                grid.to_numpy(dtype=float),
                axis_label(x),
                axis_label(y),
                metric_label(metric),
                caption=shown if len(groups) > MAX_HEATMAPS else "",
            )
        )
    return charts
