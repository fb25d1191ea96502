"""How the CLI prints tables: every number whole, at any width.

A table wider than the console (80 columns when output goes to a file or a pipe, else the
terminal's width, `COLUMNS` overriding both) is split into several tables of whole columns, each
repeating the first (key) columns; a cell wraps at spaces, and a single word wider than the whole
console folds onto the next line rather than being cut to `…`. Cells are text: :func:`cell`
turns a value (None, a float, a dict, a list) into what a reader expects, never a Python repr.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Column, Table

__all__ = ["cell", "console", "print_table", "table"]

console = Console()
"""The console every command prints to (stdout)."""

_UNBOUNDED = 1 << 20  # columns: wider than any table

MISSING = "-"
"""What a cell shows for a value that does not apply (None)."""


def cell(value: Any, float_format: str = ".6g") -> str:
    """`value` as a table cell: None as '-', a float with `float_format`, a dict as 'key: value'
    pairs, a list as comma-separated items, a diameter {Ho, Hi} as 'a Ho + b Hi'."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, float_format)
    if isinstance(value, Mapping):
        if set(value) == {"Ho", "Hi"}:
            return f"{value['Ho']} Ho + {value['Hi']} Hi"
        return ", ".join(f"{key}: {cell(item, float_format)}" for key, item in value.items())
    if isinstance(value, Sequence) and not isinstance(value, str):
        return ", ".join(cell(item, float_format) for item in value)
    return str(value)


def table(title: str | None, *columns: str, numeric: Sequence[str] = ()) -> Table:
    """An empty table with these column headers; the `numeric` ones right-justified."""
    out = Table(title=title)
    for name in columns:
        out.add_column(name, justify="right" if name in numeric else "left")
    return out


def _with_columns(source: Table, indices: Sequence[int]) -> Table:
    """`source` keeping only the columns at `indices` (rows and styles as they are); every column
    folds a word too wide for it instead of cutting it."""
    part = copy.copy(source)
    part.columns = [
        dataclasses.replace(source.columns[i], _index=position, overflow="fold") for position, i in enumerate(indices)
    ]
    return part


def _min_width(console: Console, part: Table) -> int:
    """The narrowest `part` can be without breaking a word (measured unclamped by the console)."""
    return Measurement.get(console, console.options.update_width(_UNBOUNDED), part).minimum


def _content_range(console: Console, column: Column) -> tuple[int, int]:
    """A column's narrowest width without breaking a word, and its widest, in characters of
    content (padding excluded): over its header and cells."""
    options = console.options.update_width(_UNBOUNDED)
    measured = [Measurement.get(console, options, item) for item in (column.header, *column.cells)]
    return max(m.minimum for m in measured), max(m.maximum for m in measured)


def _fit(part: Table, width: int, console: Console) -> Table:
    """`part` with each column's width set so the table fits `width` without breaking a word
    (rich's own narrowing can squeeze a column below its longest word): every column starts at
    its longest word and the room left goes, a character at a time, to the columns that would
    still wrap. A part that cannot fit (one word wider than the console) is left to fold."""
    ranges = [_content_range(console, column) for column in part.columns]
    lows = [low for low, _ in ranges]
    overhead = _min_width(console, part) - sum(lows)  # borders and padding
    room = width - overhead - sum(lows)
    if room < 0 or sum(high for _, high in ranges) <= width - overhead:
        return part
    widths = list(lows)
    while room > 0:
        wanting = [i for i, (_, high) in enumerate(ranges) if widths[i] < high]
        for i in wanting[:room]:
            widths[i] += 1
        room -= len(wanting[:room])
    for column, chosen in zip(part.columns, widths):
        column.width = chosen
    return part


def split_columns(source: Table, width: int, console: Console, keys: int = 1) -> list[Table]:
    """`source` as tables that each fit in `width` columns without breaking a word: the first
    `keys` columns (what names a row) in every one, the others in order, as many per table as
    fit (at least one)."""
    count = len(source.columns)
    key = list(range(min(keys, count)))
    groups: list[list[int]] = []
    if count <= len(key) or _min_width(console, _with_columns(source, range(count))) <= width:
        groups = [list(range(count))]
    else:
        group: list[int] = []
        for index in range(len(key), count):
            if group and _min_width(console, _with_columns(source, [*key, *group, index])) > width:
                groups.append([*key, *group])
                group = []
            group.append(index)
        groups.append([*key, *group])
    parts = [_fit(_with_columns(source, group), width, console) for group in groups]
    if len(parts) > 1:
        for number, part in enumerate(parts, start=1):
            part.title = f"{source.title or ''} ({number}/{len(parts)})".lstrip()
    return parts


def print_table(source: Table, out: Console | None = None, keys: int = 1) -> None:
    """Prints `source` on `out` (default: :data:`console`) with every cell whole: split into
    several tables when it is wider than the console, each repeating the first `keys` columns
    (see the module's docstring)."""
    out = out or console
    for part in split_columns(source, out.width, out, keys):
        out.print(part)
