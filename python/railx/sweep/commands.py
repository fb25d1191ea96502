"""CLI: `railx sweep SPEC` (run a design-space sweep on Dask into a DuckDB store) and `railx
results` (query and export a store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from railx.config import ConfigError
from railx.progress import shows_progress
from railx.results import EXPORT_FORMATS, export, query
from railx.sweep.engine import run_sweep
from railx.sweep.spec import load_spec
from railx.sweep.store import DEFAULT_STORE, Store
from railx.tables import cell, console, print_table

__all__ = ["register"]

StoreOpt = Annotated[Path, typer.Option("--store", help="DuckDB result store (one file; created if missing).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]


def sweep(
    spec: Annotated[
        Path,
        typer.Argument(
            metavar="SPEC", help="Sweep spec (TOML; see examples/sweeps/ and docs/sweeps.md).", show_default=False
        ),
    ],
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Address of an existing Dask scheduler, e.g. tcp://10.0.0.1:8786; default: an embedded local cluster.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Worker processes of the embedded cluster (default: the cores).",
            show_default=False,
        ),
    ] = None,
    store: StoreOpt = Path(DEFAULT_STORE),
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue a sweep in an existing store (re-running a spec does the same; this also checks the store exists).",
        ),
    ] = False,
    retries: Annotated[
        int | None,
        typer.Option(
            "--retries",
            min=0,
            help="Resubmissions of a failing point before its error is recorded (default: the spec's, else 1).",
            show_default=False,
        ),
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Also recompute points stored with an error.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check the spec and count its points; run nothing.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run an analysis over a design space, resumably (Dask tasks, a DuckDB store).

    Every point of the spec's axes is a Dask task; each finished point is written to the store at once, keyed by a hash of its inputs, so an interrupted sweep resumes where it stopped and a re-run computes only missing points.

    Analyses: plan, route-stats, deadlock, cost, collective, flow-sim, flit-sim, workload, availability, wavelengths, traffic, railonly-slowdown, multitenant, allocate-bw.
    """
    checked = load_spec(spec)
    if dry_run:
        summary: dict[str, Any] = {"sweep": checked.name, "analysis": checked.analysis, "points": len(checked.points),
                                   "unique_points": len({p.key for p in checked.points})}  # fmt: skip
        if as_json:
            print(json.dumps(summary, indent=2))
        else:
            console.print(
                f"{checked.name}: {summary['points']} points of {checked.analysis} ({summary['unique_points']} distinct)"
            )
        return
    if resume and not store.is_file():
        raise ConfigError(f"--store {store}: no store to resume; drop --resume to start one")
    with Store(store) as db:
        try:
            result = run_sweep(
                checked,
                db,
                scheduler=scheduler,
                workers=workers,
                retries=retries,
                retry_failed=retry_failed,
                quiet=not shows_progress(as_json),
            )
        except KeyboardInterrupt:
            stored = len({p.key for p in checked.points} & db.keys())
            Console(stderr=True).print(
                f"interrupted: {stored} of {len(checked.points)} points of {checked.name} are in {store}; "
                "run the same command with --resume to compute the rest"
            )
            raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(result.to_dict(), indent=2))
        return
    table = Table(title=f"sweep {result.sweep} ({result.analysis}) -> {result.store}")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key, value in result.to_dict().items():
        if key not in ("sweep", "analysis", "store"):
            table.add_row(key, cell(value, ".3f"))
    print_table(table)
    if result.failed:
        console.print(
            f"[yellow]{result.failed} points failed[/yellow]: railx results query "
            f"\"SELECT seq, error FROM results WHERE sweep = '{result.sweep}' AND status = 'error'\""
        )


results_app = typer.Typer(
    help='Query or export a sweep store: railx results query "SQL", railx results export --format parquet|csv --out FILE.',
    no_args_is_help=True,
)


@results_app.callback()
def _results_store(
    ctx: typer.Context,
    store: Annotated[Path, typer.Option("--store", help="DuckDB result store written by railx sweep.")] = Path(
        DEFAULT_STORE
    ),
) -> None:
    """Tables: points (one row per computed point), sweep_points (each sweep's points in order);
    view results (the two joined). See docs/sweeps.md, Store schema."""
    ctx.obj = store


@results_app.command("query")
def results_query(
    ctx: typer.Context,
    sql: Annotated[
        str,
        typer.Argument(
            metavar="SQL",
            help="SQL, e.g. \"SELECT seq, time_s FROM results WHERE sweep = 'fig15'\".",
            show_default=False,
        ),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Run SQL on the store and print the rows."""
    names, rows = query(sql, ctx.obj)
    if as_json:
        print(json.dumps([dict(zip(names, row)) for row in rows], indent=2, default=str))
        return
    table = Table()
    for name in names:
        table.add_column(name)
    for row in rows:
        table.add_row(*(cell(v) for v in row))
    print_table(table)


@results_app.command("export")
def results_export(
    ctx: typer.Context,
    fmt: Annotated[str, typer.Option("--format", help=f"{' or '.join(EXPORT_FORMATS)}.")],
    out: Annotated[Path, typer.Option("--out", help="File to write.")],
    sweep_name: Annotated[str | None, typer.Option("--sweep", help="Only this sweep's points (default: all).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the results (one row per point of each sweep) as Parquet or CSV."""
    rows = export(out, fmt, ctx.obj, sweep_name)
    if as_json:
        print(json.dumps({"file": str(out), "format": fmt, "rows": rows}))
    else:
        console.print(f"wrote {out} ({fmt}): {rows} rows")


def register(app: typer.Typer) -> None:
    """Adds `railx sweep` and `railx results` to the railx command."""
    app.command("sweep")(sweep)
    app.add_typer(results_app, name="results")
