"""Live progress of a sweep on stderr: done / total, rate, ETA, failures and workers (quiet with
--json); Ctrl-C stops it cleanly, keeping every point already stored. A long single analysis's
bar is railx.progress.live_progress."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

__all__ = ["SweepProgress"]


class SweepProgress:
    """A progress bar for one sweep, or nothing when `quiet`. `advance` counts finished points."""

    def __init__(self, total: int, already_done: int, quiet: bool, console: Console | None = None) -> None:
        self.total, self.done, self.failed, self.workers = total, already_done, 0, 0
        self._start, self._computed = time.perf_counter(), 0
        self._progress: Progress | None = None
        if not quiet:
            self._progress = Progress(
                TextColumn("sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[failed]} failed, {task.fields[workers]} workers"),
                console=console or Console(stderr=True),
                transient=False,
            )
            self._task = self._progress.add_task("sweep", total=total, completed=already_done, **self._fields())

    def _fields(self) -> dict[str, Any]:
        elapsed = time.perf_counter() - self._start
        rate = f"{self._computed / elapsed:.1f} pts/s" if elapsed > 0 and self._computed else "- pts/s"
        return {"rate": rate, "failed": self.failed, "workers": self.workers}

    def __enter__(self) -> SweepProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self, failed: bool) -> None:
        self.done += 1
        self._computed += 1
        self.failed += failed
        self.refresh()

    def set_workers(self, workers: int) -> None:
        """The cluster's worker count; the first call starts the rate's clock (the cluster is up)."""
        if not self.workers:
            self._start = time.perf_counter()
        self.workers = workers
        self.refresh()

    def refresh(self) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done, **self._fields())
