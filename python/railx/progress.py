"""Live progress of one long core run (a flit- or flow-level simulation, a deadlock check, route
statistics) and a clean Ctrl-C.

The core calls a progress callback ``callback(done, total, unit)`` at most 10 times a second
with how far it is: ``done`` of ``total`` (None when unknown) ``unit``s (``cycles``, ``flits``,
``messages``, ``destinations``, ``routes``). A callback that returns ``False`` stops the run with
:class:`railx.Cancelled`; one that raises stops it and its exception propagates. Whether a
callback is given never changes a result. Every such run watches for Ctrl-C (KeyboardInterrupt
within about a tenth of a second), callback or not.

:func:`live_progress` is the CLI's side: a bar with rate and ETA on stderr when stdout and
stderr are terminals and the output is not JSON, and one line and exit status 130 on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["ProgressCallback", "live_progress", "shows_progress", "tracked"]

T = TypeVar("T")

ProgressCallback = Callable[[int, "int | None", str], "bool | None"]
"""``callback(done, total, unit)``; returning ``False`` cancels the run."""


class _Rate(ProgressColumn):
    """Units per second, in the run's own unit."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        unit = task.fields.get("unit", "")
        return Text("-" if speed is None else f"{speed:,.0f} {unit}/s")


class _Count(ProgressColumn):
    """done / total unit (total `?` while unknown)."""

    def render(self, task: Task) -> Text:
        total = "?" if task.total is None else f"{int(task.total):,}"
        return Text(f"{int(task.completed):,} / {total} {task.fields.get('unit', '')}")


def shows_progress(quiet: bool) -> bool:
    """Whether a command shows a live bar: not under --json (`quiet`), and only when stdout and
    stderr are terminals (a pipe or a file gets the result alone)."""
    return not quiet and sys.stdout.isatty() and sys.stderr.isatty()


@contextlib.contextmanager
def live_progress(what: str, quiet: bool) -> Iterator[ProgressCallback | None]:
    """A progress bar for one long run called `what`: yields the callback to hand to the run (None
    when no bar is shown, see :func:`shows_progress`). Ctrl-C inside ends the command with one
    line on stderr and exit status 130, bar or not."""
    import typer

    callback: ProgressCallback | None = None
    progress: Progress | None = None
    if shows_progress(quiet):
        progress = Progress(
            TextColumn(what),
            BarColumn(),
            TaskProgressColumn(),
            _Count(),
            _Rate(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        task = progress.add_task(what, total=None, unit="")
        bar = progress

        def callback(done: int, total: int | None, unit: str) -> None:
            bar.update(task, completed=done, total=total, unit=unit)

    try:
        with progress if progress is not None else contextlib.nullcontext():
            yield callback
    except KeyboardInterrupt:
        print(f"interrupted: {what} stopped, nothing was written", file=sys.stderr)
        raise typer.Exit(130) from None


def tracked(items: Sequence[T], what: str, unit: str, quiet: bool = False) -> Iterator[T]:
    """Each of `items` in turn, under a bar (:func:`live_progress`) counting them in `unit`s with
    rate and ETA: a loop of long steps, such as a benchmark's cases or a sweep's points done one
    by one in Python. The bar shows nothing when `quiet` or not on a terminal."""
    with live_progress(what, quiet) as bar:
        for done, item in enumerate(items):
            if bar is not None:
                bar(done, len(items), unit)
            yield item
