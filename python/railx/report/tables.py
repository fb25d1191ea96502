"""Tables of the report: one value per cell, shown formatted in the page and written raw as CSV
beside it (for papers and slides)."""

from __future__ import annotations

import csv
import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from railx.atomic import atomic_path
from railx.config import make_dir

__all__ = ["Table", "fixed", "format_cell"]

Formatter = Callable[[Any], str]


def format_cell(value: Any) -> str:
    """The default rendering of a cell: thousands separators for integers, four significant
    digits for other numbers, '-' for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


def fixed(decimals: int) -> Formatter:
    """A formatter with thousands separators and a fixed number of decimals (1,314.4)."""

    def render(value: Any) -> str:
        return format_cell(value) if not isinstance(value, (int, float)) else f"{value:,.{decimals}f}"

    return render


@dataclass(frozen=True)
class Table:
    """A titled table; `formats` maps a column to its formatter (others use :func:`format_cell`)."""

    id: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    caption: str = ""
    formats: dict[str, Formatter] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.id}: a row has {len(row)} cells for {len(self.columns)} columns")

    def to_html(self, csv_href: str | None = None) -> str:
        """The table as an HTML <table> with its caption (and a link to its CSV)."""
        renderers = [self.formats.get(c, format_cell) for c in self.columns]
        head = "".join(f"<th scope='col'>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(r(v))}</td>" for r, v in zip(renderers, row)) + "</tr>"
            for row in self.rows
        )
        link = f" <a class='csv' href='{html.escape(csv_href)}'>CSV</a>" if csv_href else ""
        note = f"<p class='note'>{html.escape(self.caption)}</p>" if self.caption else ""
        return (
            f"<figure class='table' id='{html.escape(self.id)}'><figcaption>{html.escape(self.title)}{link}</figcaption>"
            f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}</figure>"
        )

    def write_csv(self, directory: Path) -> Path:
        """Writes the raw values (not the formatted ones) to `directory/<id>.csv`."""
        make_dir(directory)
        path = directory / f"{self.id}.csv"
        with atomic_path(path) as temporary, temporary.open("x", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(self.columns)
            writer.writerows(["" if v is None else v for v in row] for row in self.rows)
        return path
