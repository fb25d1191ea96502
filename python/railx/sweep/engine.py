"""The sweep engine: points run as Dask tasks (a slow point alone, fast ones a fraction of a
second's worth to a task). By default an embedded `LocalCluster` of worker
processes (nothing to start); with a scheduler address, an existing Dask cluster (`dask scheduler`
and `dask worker`, or dask-jobqueue on SLURM/PBS). Workers import railx and return each point's
record to this process, which alone writes the store, one transaction per finished point. A point
whose analysis raises (or whose worker dies) is resubmitted up to `retries` times, then recorded
with its one-line error; the sweep goes on."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import time
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from railx.config import ConfigError
from railx.messages import shown
from railx.sweep.point import one_line, run_points
from railx.sweep.progress import SweepProgress
from railx.sweep.spec import Point, Sweep
from railx.sweep.store import Store

__all__ = ["SweepSummary", "default_workers", "dask_client", "run_sweep"]

_WORKER_POLL_S = 1.0  # how often the progress bar's worker count is refreshed
TASK_TARGET_S = 0.25  # work per task once a point's time is known
MAX_CHUNK = 64  # points per task at most
IN_FLIGHT_PER_WORKER = 3  # tasks queued per worker: one running, the next ones ready


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did: its points, how many were already stored, computed, failed (after
    retries) and retried, its wall time and the workers it ran on."""

    sweep: str
    analysis: str
    points: int
    unique_points: int
    already_stored: int
    computed: int
    failed: int
    retries_used: int
    wall_s: float
    workers: int
    store: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_workers() -> int:
    """Worker processes of the embedded cluster when none are asked for: the machine's cores."""
    return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client: on the cluster at `scheduler` (tcp://HOST:PORT), or on an embedded
    LocalCluster of `workers` single-threaded worker processes."""
    from distributed import Client, LocalCluster

    if workers is not None and workers < 1:
        raise ConfigError(f"workers = {workers}: a cluster needs at least one worker; e.g. --workers 2")
    if scheduler is not None:
        if workers is not None:
            raise ConfigError(
                f"workers = {workers}: --workers sizes the embedded cluster; a cluster at --scheduler has its own "
                "workers (start more with `dask worker`), so drop one of the two"
            )
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise ConfigError(
                f"scheduler = {shown(scheduler)}: cannot connect ({one_line(exc)}); start one with `dask scheduler` "
                "or drop --scheduler for an embedded cluster"
            ) from None
        with client:
            yield client
        return
    cluster = LocalCluster(
        n_workers=workers or default_workers(),
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port: several sweeps may run side by side
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        yield client


def _worker_count(client: Any) -> int:
    return len(client.nthreads())


def pending_points(sweep: Sweep, stored: set[str]) -> list[Point]:
    """The sweep's points not in the store, each content key once, in the sweep's order."""
    seen = set(stored)
    out = []
    for point in sweep.points:
        if point.key not in seen:
            seen.add(point.key)
            out.append(point)
    return out


def run_sweep(
    sweep: Sweep,
    store: Store,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    retries: int | None = None,
    retry_failed: bool = False,
    quiet: bool = True,
    client: Any = None,
) -> SweepSummary:
    """Computes the sweep's missing points and writes each to `store` as it finishes. Points
    stored with an error are kept unless `retry_failed`. `client`: an open Dask client to use
    instead of starting one (e.g. to run several sweeps on one cluster)."""
    start = time.perf_counter()
    retries = sweep.retries if retries is None else retries
    if retries < 0:
        raise ConfigError(f"retries = {retries}: retries are an integer >= 0; e.g. --retries 1")
    stored = store.keys("ok") if retry_failed else store.keys()
    pending = pending_points(sweep, stored)
    unique = len({p.key for p in sweep.points})
    done_before = unique - len(pending)
    failed = retried = workers_seen = 0
    # The cluster first: a bad address or option fails before the store or the screen is touched.
    if client is not None or not pending:
        scope: contextlib.AbstractContextManager[Any] = contextlib.nullcontext(client)
    else:
        scope = dask_client(scheduler, workers)
    with scope as dask:
        store.register(sweep)
        with SweepProgress(unique, done_before, quiet) as progress:
            if pending:
                workers_seen = _worker_count(dask)
                progress.set_workers(workers_seen)
                failed, retried = _compute(dask, pending, store, retries, progress)
                workers_seen = max(workers_seen, progress.workers)
    return SweepSummary(
        sweep=sweep.name,
        analysis=sweep.analysis,
        points=len(sweep.points),
        unique_points=unique,
        already_stored=done_before,
        computed=len(pending),
        failed=failed,
        retries_used=retried,
        wall_s=time.perf_counter() - start,
        workers=workers_seen,
        store=str(store.path),
    )


def chunk_size(per_point_s: float | None) -> int:
    """Points per task: one until a point's time is known, then enough for about
    :data:`TASK_TARGET_S` of work (at most :data:`MAX_CHUNK`): a slow point is a task of its own,
    fast ones share a task's scheduling cost, and a kill loses at most a task's worth of work."""
    if per_point_s is None:
        return 1
    return max(1, min(MAX_CHUNK, int(TASK_TARGET_S / max(per_point_s, 1e-9))))


def _compute(client: Any, pending: list[Point], store: Store, retries: int, progress: SweepProgress) -> tuple[int, int]:
    """Runs the points as tasks (chunks of points), resubmitting failed points; writes each final
    result. Returns (points failed after their retries, resubmissions)."""
    from distributed import as_completed

    todo: deque[tuple[Point, int]] = deque((p, 1) for p in pending)
    owner: dict[str, list[tuple[Point, int]]] = {}
    token, serial = uuid.uuid4().hex[:8], itertools.count()
    queue = as_completed([], with_results=True, raise_errors=False)
    workers = max(1, _worker_count(client))
    point_s: list[float] = []  # analysis times seen so far, to size chunks
    failed = retried = 0

    def submit() -> None:
        per_point_s = sum(point_s) / len(point_s) if point_s else None
        while todo and len(owner) < IN_FLIGHT_PER_WORKER * workers:
            chunk = [todo.popleft() for _ in range(min(chunk_size(per_point_s), len(todo)))]
            future = client.submit(run_points, [p.inputs for p, _ in chunk], key=f"railx-points-{token}-{next(serial)}")
            owner[future.key] = chunk
            queue.add(future)

    submit()
    polled = time.perf_counter()
    # Results that arrive together are written together: one transaction, each row whole.
    for batch in queue.batches():
        finished: list[tuple[Point, dict[str, Any], int]] = []
        for future, outcome in batch:
            chunk = owner.pop(future.key)
            future.release()
            if isinstance(outcome, BaseException):  # the worker died or the task could not run
                lost = {"record": None, "error": one_line(outcome), "wall_s": 0.0, "host": "-"}
                results = [lost] * len(chunk)
            else:
                results = outcome
                point_s.extend(r["wall_s"] for r in results)
            for (point, attempt), result in zip(chunk, results):
                if result["error"] is not None and attempt <= retries:
                    todo.append((point, attempt + 1))
                    retried += 1
                else:
                    finished.append((point, result, attempt))
        store.write_many(finished)
        for _point, result, _attempt in finished:
            failed += result["error"] is not None
            progress.advance(result["error"] is not None)
        if time.perf_counter() - polled > _WORKER_POLL_S:
            workers = max(1, _worker_count(client))
            progress.set_workers(workers)
            polled = time.perf_counter()
        submit()
    return failed, retried
