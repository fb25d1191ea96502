"""The result store: one embedded DuckDB file (docs/sweeps.md, Store schema).

`points` holds one row per computed point, keyed by its content hash: inputs, the record (typed
columns for the common figures and the full record as JSON), the error if any, attempts, wall time
and host. A point is written in one transaction when it finishes, so a killed sweep leaves only
whole rows. `sweep_points` lists each sweep's points in order (the axes' values of each); the
`results` view joins the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

import railx
from railx.config import ConfigError
from railx.sweep.registry import ANALYSES, FIGURES, figures_of
from railx.sweep.spec import Point, Sweep

__all__ = ["DEFAULT_STORE", "Store"]

DEFAULT_STORE = "railx-results.duckdb"

_FIGURE_COLUMNS = ",\n".join(f"    {name} {kind}" for name, kind in FIGURES.items())
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS points (
    key VARCHAR PRIMARY KEY,
    analysis VARCHAR NOT NULL,
    base VARCHAR NOT NULL,
    railx_version VARCHAR NOT NULL,
    inputs JSON NOT NULL,
    status VARCHAR NOT NULL,
    error VARCHAR,
    attempts INTEGER NOT NULL,
{_FIGURE_COLUMNS},
    record JSON,
    wall_s DOUBLE NOT NULL,
    host VARCHAR NOT NULL,
    finished_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP)
);
CREATE TABLE IF NOT EXISTS sweep_points (
    sweep VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    key VARCHAR NOT NULL,
    point JSON NOT NULL,
    PRIMARY KEY (sweep, seq)
);
CREATE OR REPLACE VIEW results AS
    SELECT s.sweep, s.seq, s.point, p.* FROM sweep_points s JOIN points p USING (key);
"""
_POINT_COLUMNS = ("key", "analysis", "base", "railx_version", "inputs", "status", "error", "attempts",
                  *FIGURES, "record", "wall_s", "host")  # fmt: skip
_INSERT = (
    f"INSERT OR REPLACE INTO points ({', '.join(_POINT_COLUMNS)}) VALUES ({', '.join('?' for _ in _POINT_COLUMNS)})"
)


class Store:
    """An open store (DuckDB holds one writer per file: open it from one process at a time)."""

    def __init__(self, path: str | Path = DEFAULT_STORE, read_only: bool = False) -> None:
        self.path = Path(path)
        if read_only and not self.path.is_file():
            raise ConfigError(f"store = {str(self.path)!r}: no such store; run a sweep first or give --store FILE")
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise ConfigError(
                f"store = {str(self.path)!r}: cannot open it ({first}); is a sweep still writing it?"
            ) from None
        if not read_only:
            self.con.execute(_SCHEMA)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def register(self, sweep: Sweep) -> None:
        """Records the sweep's points in order (one transaction), replacing an earlier version of it."""
        rows = [(sweep.name, p.seq, p.key, json.dumps(p.assignment)) for p in sweep.points]
        self.con.execute("BEGIN")
        self.con.execute("DELETE FROM sweep_points WHERE sweep = ?", [sweep.name])
        if rows:
            self.con.executemany("INSERT INTO sweep_points VALUES (?, ?, ?, ?)", rows)
        self.con.execute("COMMIT")

    def keys(self, status: str | None = None) -> set[str]:
        """Keys of the stored points (with `status` `ok` or `error` only, if given)."""
        if status is None:
            rows = self.con.execute("SELECT key FROM points").fetchall()
        else:
            rows = self.con.execute("SELECT key FROM points WHERE status = ?", [status]).fetchall()
        return {r[0] for r in rows}

    def write(self, point: Point, result: dict[str, Any], attempts: int) -> None:
        """One finished point, in one transaction (an INSERT is atomic on its own)."""
        record = result["record"]
        figures = (
            figures_of(ANALYSES[point.inputs["analysis"]], record) if record is not None else dict.fromkeys(FIGURES)
        )
        self.con.execute(
            _INSERT,
            [
                point.key, point.inputs["analysis"], point.inputs["base"], railx.__version__,
                json.dumps(point.inputs, sort_keys=True), "error" if result["error"] else "ok", result["error"],
                attempts, *figures.values(), None if record is None else json.dumps(record),
                result["wall_s"], result["host"],
            ],
        )  # fmt: skip

    def query(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Runs SQL on the store: column names and rows; a one-line ConfigError for bad SQL."""
        try:
            cursor = self.con.execute(sql, list(params))
        except duckdb.Error as exc:
            raise ConfigError(f"query: {str(exc).splitlines()[0]}") from None
        names = [d[0] for d in cursor.description] if cursor.description else []
        return names, cursor.fetchall() if cursor.description else []
