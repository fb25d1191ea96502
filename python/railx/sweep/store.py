"""The result store: one embedded DuckDB file (docs/sweeps.md, Store schema).

`points` holds one row per computed point, keyed by its content hash: inputs, the record (typed
columns for the common figures and the full record as JSON), the error if any, attempts, wall time
and host. A point is written in a transaction as soon as it finishes, so a killed sweep leaves
only whole rows and loses only the points still running. `sweep_points` lists each sweep's points in order (the axes' values of each); the
`results` view joins the two. Points that finish together are committed together (each row
whole), so a fast sweep does not pay one commit per point.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

import railx
from railx.config import ConfigError
from railx.messages import shown
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
_POINT_TYPES = {"key": "VARCHAR", "analysis": "VARCHAR", "base": "VARCHAR", "railx_version": "VARCHAR",
                "inputs": "JSON", "status": "VARCHAR", "error": "VARCHAR", "attempts": "INTEGER", **FIGURES,
                "record": "JSON", "wall_s": "DOUBLE", "host": "VARCHAR"}  # fmt: skip
# Rows go in from a DataFrame, typed column by column: one statement for a batch, where DuckDB's
# executemany runs one statement per row (~60x slower).
_INSERT = (
    f"INSERT OR REPLACE INTO points ({', '.join(_POINT_TYPES)}) "
    f"SELECT {', '.join(f'CAST({name} AS {kind})' for name, kind in _POINT_TYPES.items())} FROM incoming"
)


class Store:
    """An open store (DuckDB holds one writer per file: open it from one process at a time)."""

    def __init__(self, path: str | Path = DEFAULT_STORE, read_only: bool = False) -> None:
        self.path = Path(path)
        if read_only and not self.path.is_file():
            raise ConfigError(f"store = {shown(str(self.path))}: no such store; run a sweep first or give --store FILE")
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise ConfigError(
                f"store = {shown(str(self.path))}: cannot open it ({first}); is a sweep still writing it?"
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
            import pandas as pd

            self.con.register("incoming", pd.DataFrame(rows, columns=["sweep", "seq", "key", "point"], dtype=object))
            try:
                self.con.execute(
                    "INSERT INTO sweep_points SELECT CAST(sweep AS VARCHAR), CAST(seq AS INTEGER), "
                    "CAST(key AS VARCHAR), CAST(point AS JSON) FROM incoming"
                )
            finally:
                self.con.unregister("incoming")
        self.con.execute("COMMIT")

    def keys(self, status: str | None = None) -> set[str]:
        """Keys of the stored points (with `status` `ok` or `error` only, if given)."""
        if status is None:
            rows = self.con.execute("SELECT key FROM points").fetchall()
        else:
            rows = self.con.execute("SELECT key FROM points WHERE status = ?", [status]).fetchall()
        return {r[0] for r in rows}

    def write(self, point: Point, result: dict[str, Any], attempts: int) -> None:
        """One finished point, in one transaction."""
        self.write_many([(point, result, attempts)])

    def write_many(self, finished: list[tuple[Point, dict[str, Any], int]]) -> None:
        """Points that finished together (point, result, attempts), in one transaction: each row
        whole, and one commit for all of them, which is what keeps the store's cost per point low
        when points finish faster than a commit."""
        rows = []
        for point, result, attempts in finished:
            record = result["record"]
            analysis = ANALYSES[point.inputs["analysis"]]
            figures = figures_of(analysis, record) if record is not None else dict.fromkeys(FIGURES)
            rows.append(
                [
                    point.key, point.inputs["analysis"], point.inputs["base"], railx.__version__,
                    json.dumps(point.inputs, sort_keys=True), "error" if result["error"] else "ok", result["error"],
                    attempts, *figures.values(), None if record is None else json.dumps(record),
                    result["wall_s"], result["host"],
                ]
            )  # fmt: skip
        if not rows:
            return
        import pandas as pd

        incoming = pd.DataFrame(rows, columns=list(_POINT_TYPES), dtype=object)
        self.con.register("incoming", incoming)
        try:
            self.con.execute(_INSERT)  # one statement: one transaction
        finally:
            self.con.unregister("incoming")

    def query(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Runs SQL on the store: column names and rows; a one-line ConfigError for bad SQL."""
        try:
            cursor = self.con.execute(sql, list(params))
        except duckdb.Error as exc:
            raise ConfigError(f"query: {str(exc).splitlines()[0]}") from None
        names = [d[0] for d in cursor.description] if cursor.description else []
        return names, cursor.fetchall() if cursor.description else []
