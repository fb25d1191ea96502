"""Running one point, on whichever worker Dask places it: the base is built (once per worker
and base), the analysis runs, and the record, wall time and host go back to the client. Nothing
is written here: no shared filesystem is assumed."""

from __future__ import annotations

import json
import socket
import time
from functools import lru_cache
from typing import Any

import numpy as np

from railx.sweep.registry import ANALYSES
from railx.systems import System

__all__ = ["one_line", "run_point", "run_points"]


@lru_cache(maxsize=16)
def _base(kind: str, name: str, label: str, document_json: str) -> Any:
    """The base object, cached per worker so a sweep over options builds its network once."""
    document = json.loads(document_json)
    if document is None:
        return None
    if kind == "workload-system":
        from railx.workload.system import WorkloadSystem

        return WorkloadSystem.model_validate(document)
    if "peer" in document:
        return System(name, label, peer=document["peer"])
    return System(name, label, railx=document)


def _plain(value: Any) -> Any:
    """NumPy scalars and arrays, tuples and the like as JSON values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def one_line(exc: BaseException) -> str:
    """An exception as one line: railx's errors as they read, others with their type."""
    from railx._core import RailxError

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return text if isinstance(exc, RailxError) and text else f"{type(exc).__name__}: {text}".rstrip(": ")


def run_point(inputs: dict[str, Any]) -> dict[str, Any]:
    """Runs one point's analysis: `{"record": ..., "error": None, "wall_s", "host"}`, or with the
    one-line `error` and no record when the analysis raised."""
    start = time.perf_counter()
    analysis = ANALYSES[inputs["analysis"]]
    record: dict[str, Any] | None = None
    error: str | None = None
    try:
        document = json.dumps(inputs["document"], sort_keys=True)
        base = _base(analysis.base, inputs["base"], inputs.get("label", inputs["base"]), document)
        record = json.loads(json.dumps(analysis.run(base, inputs["options"]), default=_plain))
    except Exception as exc:  # a point's failure is data: recorded, retried, and the sweep goes on
        error = one_line(exc)
    return {"record": record, "error": error, "wall_s": time.perf_counter() - start, "host": socket.gethostname()}


def run_points(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Several points in one task (the engine sizes chunks to a fraction of a second of work, so
    the scheduler's cost per task is shared by the chunk's points)."""
    return [run_point(inputs) for inputs in chunk]
