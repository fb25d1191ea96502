"""Running sweeps from Python and reading their points back in order: what the benchmarks that
reproduce a figure do (`railx sweep` then `railx.results.load`, in one call)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from railx.progress import shows_progress
from railx.results import load
from railx.sweep.engine import dask_client, run_sweep
from railx.sweep.spec import Sweep
from railx.sweep.store import Store
from railx.systems import System

__all__ = ["Runner", "base_table", "runner"]


def base_table(system: System) -> dict[str, Any]:
    """A system as a spec's inline base (`base = { name = ..., ... }`): its name and its
    configuration document, as its file would hold it."""
    return {"name": system.name, **(system.railx if system.railx is not None else {"peer": system.peer})}


class Runner:
    """Runs sweeps on one Dask client into one store; `frame(sweep)` is the sweep's points in
    order as `railx.results.load` gives them (records parsed, one column per swept path)."""

    def __init__(self, client: Any, store: Path) -> None:
        self.client, self.store = client, store

    def frame(self, sweep: Sweep) -> pd.DataFrame:
        """Computes the sweep's missing points (with a progress bar on a terminal), then returns
        all of them in the sweep's order."""
        with Store(self.store) as db:
            run_sweep(sweep, db, client=self.client, quiet=not shows_progress(False))
        return load(self.store, sweep.name)


@contextlib.contextmanager
def runner(scheduler: str | None = None, workers: int | None = None, store: Path | None = None) -> Iterator[Runner]:
    """A :class:`Runner` on the cluster at `scheduler`, or on an embedded one of `workers`
    processes; `store` is kept (a second run reads its points), else a temporary store is used."""
    with contextlib.ExitStack() as stack:
        if store is None:
            store = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "results.duckdb"
        client = stack.enter_context(dask_client(scheduler, workers))
        yield Runner(client, store)
