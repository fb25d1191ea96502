"""Plots of the report, drawn with matplotlib and inlined as SVG: vector output scales with the
page, its text stays text (searchable, selectable; `svg.fonttype = none`) and the page needs no
JavaScript. The same figure is also written as a PNG for slides and papers.

Readability rules applied everywhere: units in the axis labels, a logarithmic axis when the
values span two decades or more, legends outside the data area, and a value axis from zero when
it shows a ratio (so that a 3% difference looks like 3%)."""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import LogNorm, Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from railx.atomic import save_figure
from railx.config import make_dir

__all__ = ["Chart", "Series", "bar_chart", "heatmap_chart", "line_chart", "spans_decades"]

DECADES_FOR_LOG = 2.0  # log scale once max / min reaches 10**2
_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)
_ID = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def _scoped_ids(svg: str, prefix: str) -> str:
    """The SVG with every id, and every reference to one, prefixed: matplotlib numbers its groups
    per figure (figure_1, axes_1, ...), so several figures inlined in one page would repeat them."""
    return _ID.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)


def spans_decades(values: Sequence[float]) -> bool:
    """Whether positive `values` span at least :data:`DECADES_FOR_LOG` decades (then a log axis
    shows them better); any value <= 0 rules a log axis out."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite or min(finite) <= 0:
        return False
    return math.log10(max(finite) / min(finite)) >= DECADES_FOR_LOG


@dataclass(frozen=True)
class Series:
    """One line or bar group: a label and its points."""

    label: str
    x: Sequence[float]
    y: Sequence[float]


@dataclass
class Chart:
    """A figure of the report: an id (the PNG's name and the HTML anchor), a title, a caption and
    the matplotlib figure."""

    id: str
    title: str
    figure: Figure
    caption: str = ""
    _svg: str | None = field(default=None, repr=False)

    def write(self, directory: Path) -> tuple[str, Path]:
        """Saves `directory/<id>.png` and returns the inline SVG text and the PNG's path."""
        make_dir(directory)
        png = directory / f"{self.id}.png"
        # Text as text; a fixed salt keeps the SVG's ids (hashes) the same from run to run.
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": self.id}):
            save_figure(self.figure, png, dpi=150, metadata={"Software": None})
            # The layout is settled by the first drawing; the second keeps it instead of redoing it.
            self.figure.set_layout_engine("none")
            buffer = io.StringIO()
            self.figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        self._svg = _scoped_ids(_PROLOG.sub("", buffer.getvalue(), count=1), self.id)
        return self._svg, png

    def to_html(self, png_href: str) -> str:
        """The figure element: the inline SVG, its caption and a link to the PNG (after `write`)."""
        if self._svg is None:
            raise RuntimeError(f"chart {self.id}: write() it before rendering the page")
        caption = f" {html.escape(self.caption)}" if self.caption else ""
        return (
            f"<figure class='chart' id='{html.escape(self.id)}'>{self._svg}"
            f"<figcaption><b>{html.escape(self.title)}.</b>{caption} "
            f"<a class='png' href='{html.escape(png_href)}'>PNG</a></figcaption></figure>"
        )


def _plain_log_ticks(ax: Axes) -> None:
    """Log axes labelled 0.1, 1, 10 rather than 10^-1, 10^0, 10^1 where that stays short (0.001
    to 1000), and as powers of ten beyond."""
    plain = FuncFormatter(lambda v, _: f"{v:g}" if 1e-3 <= v < 1e4 else f"$10^{{{round(math.log10(v))}}}$")
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(plain)


def _figure(panels: int, width_in: float = 6.4, columns: int | None = None) -> tuple[Figure, list[Axes]]:
    """A figure of `panels` axes, `columns` to a row (default: all in one row), each about
    `width_in` wide, with room on the right for a legend."""
    columns = min(panels, columns or panels)
    rows = -(-panels // columns)
    width = width_in * columns if columns > 1 else width_in + 2.2
    figure = Figure(figsize=(width, 3.8 * rows), layout="constrained")
    axes = list(figure.subplots(rows, columns, squeeze=False).flat)
    for unused in axes[panels:]:
        unused.set_visible(False)
    return figure, axes[:panels]


def line_chart(
    id: str,
    title: str,
    panels: Sequence[tuple[str, Sequence[Series]]],
    xlabel: str,
    ylabel: str,
    *,
    ratio: bool = False,
    caption: str = "",
    markers: bool = True,
    columns: int | None = None,
) -> Chart:
    """Lines of y over x, one per series, in one or more panels sharing a legend placed to the
    right of the data, `columns` panels to a row. `ratio`: the y axis shows a ratio and starts at
    zero (never log)."""
    figure, axes = _figure(len(panels), width_in=6.4 if not columns else 4.6, columns=columns)
    for ax, (panel_title, series) in zip(axes, panels):
        for s in series:
            ax.plot(s.x, s.y, marker="o" if markers else None, markersize=3, label=s.label)
        xs = [float(v) for s in series for v in s.x]
        ys = [float(v) for s in series for v in s.y if v is not None and math.isfinite(v)]
        if spans_decades(xs):
            ax.set_xscale("log")
        if ratio:
            ax.set_ylim(bottom=0, top=max(ys, default=1) * 1.05 or 1)
        elif spans_decades(ys):
            ax.set_yscale("log")
        elif ys and min(ys) >= 0:
            ax.set_ylim(bottom=0)
        _plain_log_ticks(ax)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if panel_title:
            ax.set_title(panel_title, fontsize="medium")
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    if labels:
        figure.legend(handles, labels, loc="outside right upper", fontsize="small")
    return Chart(id, title, figure, caption)


def bar_chart(
    id: str,
    title: str,
    categories: Sequence[str],
    groups: Sequence[tuple[str, Sequence[float]]],
    ylabel: str,
    *,
    ratio: bool = False,
    caption: str = "",
) -> Chart:
    """Grouped bars: one group per category, one bar per (label, values) pair; log scale when
    the values span decades (unless `ratio`: then from zero)."""
    figure, (ax,) = _figure(1, width_in=max(6.4, 0.45 * len(categories) * len(groups)))
    width = 0.8 / max(1, len(groups))
    positions = np.arange(len(categories))
    for i, (label, values) in enumerate(groups):
        ax.bar(positions + (i - (len(groups) - 1) / 2) * width, values, width, label=label)
    values = [float(v) for _, vs in groups for v in vs]
    if not ratio and spans_decades(values):
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xticks(positions, categories, rotation=35, ha="right", fontsize="small")
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    figure.legend(loc="outside right upper", fontsize="small")
    return Chart(id, title, figure, caption)


def heatmap_chart(
    id: str,
    title: str,
    xs: Sequence[object],
    ys: Sequence[object],
    values: np.ndarray,
    xlabel: str,
    ylabel: str,
    zlabel: str,
    *,
    caption: str = "",
) -> Chart:
    """A heatmap of `values[i, j]` at (xs[j], ys[i]), the axes' values as tick labels, a colour
    bar with the value's unit (logarithmic when it spans decades), each cell's value written in
    it when the grid is small."""
    figure, (ax,) = _figure(1)
    finite = values[np.isfinite(values)]
    log = spans_decades(list(finite))
    norm: Normalize = LogNorm() if log else Normalize(vmin=min(0.0, float(finite.min(initial=0))))
    image = ax.imshow(np.ma.masked_invalid(values), origin="lower", aspect="auto", norm=norm, cmap="viridis")
    ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=35, ha="right", fontsize="small")
    ax.set_yticks(range(len(ys)), [str(y) for y in ys], fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    figure.colorbar(image, ax=ax, label=zlabel)
    if values.size <= 144:
        for (i, j), v in np.ndenumerate(values):
            if math.isfinite(v):
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize="x-small", color="white")
    return Chart(id, title, figure, caption)
