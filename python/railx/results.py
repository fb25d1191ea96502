"""Reading a sweep store (docs/sweeps.md): `load` as a DataFrame, `query` with SQL, `export` to
Parquet or CSV. The store is a DuckDB file; its `results` view joins each sweep's points (in
order, with the axes' values) to their stored rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from railx.atomic import atomic_path, checked_path
from railx.config import ConfigError, is_one_of
from railx.messages import shown
from railx.sweep.store import DEFAULT_STORE, Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXPORT_FORMATS", "export", "load", "query"]

ExportFormat = Literal["parquet", "csv"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("parquet", "csv")


def _select(sweep: str | None) -> tuple[str, list[Any]]:
    if sweep is None:
        return "SELECT * FROM results ORDER BY sweep, seq", []
    return "SELECT * FROM results WHERE sweep = ? ORDER BY seq", [sweep]


def load(store: str | Path = DEFAULT_STORE, sweep: str | None = None, expand: bool = True) -> pd.DataFrame:
    """The store's results as a pandas DataFrame, one row per point of each sweep (or of `sweep`),
    in order. With `expand`, each swept path (`options.rate`, `system.k`, ...) becomes a column
    and `record` and `inputs` are parsed from JSON."""
    with Store(store, read_only=True) as db:
        sql, params = _select(sweep)
        try:
            frame = db.con.execute(sql, params).df()
        except Exception as exc:
            raise ConfigError(f"store = {shown(str(store))}: {str(exc).splitlines()[0]}") from None
    if sweep is not None and frame.empty:
        raise ConfigError(f"sweep = {shown(sweep)}: not in {store}; `railx results query` lists sweeps")
    if expand and not frame.empty:
        points = [json.loads(p) for p in frame["point"]]
        for path in dict.fromkeys(k for p in points for k in p):
            if path not in frame.columns:  # `base` is already a column: the base's resolved name
                frame[path] = [p.get(path) for p in points]
        frame["record"] = [json.loads(r) if isinstance(r, str) else None for r in frame["record"]]  # NULL: an error
        frame["inputs"] = [json.loads(r) for r in frame["inputs"]]
    return frame


def query(sql: str, store: str | Path = DEFAULT_STORE) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Runs SQL on the store (tables `points`, `sweep_points`, view `results`): names and rows."""
    with Store(store, read_only=True) as db:
        return db.query(sql)


def export(out: str | Path, fmt: str, store: str | Path = DEFAULT_STORE, sweep: str | None = None) -> int:
    """Writes the results (of `sweep`, or all) to `out` as Parquet or CSV, atomically; returns the
    rows written."""
    out = checked_path(out, "out")
    if not is_one_of(fmt, EXPORT_FORMATS):
        raise ConfigError(f"format = {shown(fmt)}: unknown export format; use {' or '.join(EXPORT_FORMATS)}")
    with Store(store, read_only=True) as db:
        # COPY takes no parameters: the sweep name and the path go in as quoted SQL literals.
        sql = "SELECT * FROM results" + ("" if sweep is None else f" WHERE sweep = {_literal(sweep)}")
        sql += " ORDER BY sweep, seq"
        count = db.con.execute(f"SELECT count(*) FROM ({sql})").fetchone()
        options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
        with atomic_path(out) as temporary:
            db.con.execute(f"COPY ({sql}) TO {_literal(str(temporary))} ({options})")
    return int(count[0]) if count else 0


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
