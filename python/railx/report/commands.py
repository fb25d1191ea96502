"""CLI: `railx report` (an HTML report of the reproductions and sweeps of a result store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from railx.progress import shows_progress
from railx.report.build import build_report
from railx.tables import console

__all__ = ["register"]


def report(
    out: Annotated[Path, typer.Option("--out", help="Directory to write index.html, assets/ (PNG, CSV) into.")],
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="DuckDB result store written by railx sweep (created by --spec if missing); default: run the shipped quick reproduction specs into a temporary store.",
            show_default=False,
        ),
    ] = None,
    spec: Annotated[
        list[Path] | None,
        typer.Option("--spec", help="A sweep spec to run (into the store) and show; repeatable.", show_default=False),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="Worker processes for the specs to run (default: the cores).", show_default=False
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report's summary as JSON.")] = False,
) -> None:
    """Write a self-contained HTML report: every reproduction (the paper's claim, railx's figure, paper vs railx with a verdict, the explanation of each difference), every other sweep of the store (a table and plots chosen from its axes) and the OCS wiring of a small RailX; figures also as PNG, tables as CSV."""
    summary = build_report(out, store, spec or [], workers=workers, quiet=not shows_progress(as_json))
    if as_json:
        print(json.dumps(summary.to_dict(), indent=2))
        return
    console.print(
        f"wrote {summary.page}: {len(summary.reproductions)} reproductions, {len(summary.sweeps)} other sweeps, "
        f"{summary.figures} figures, {summary.tables} tables (specs {summary.run_s:.1f} s, page {summary.build_s:.1f} s)"
    )
    if summary.missing:
        console.print(
            f"not shown, their sweeps not being in the store: {', '.join(summary.missing)} (the page gives the commands)"
        )


def register(app: typer.Typer) -> None:
    """Adds `railx report` to the railx command."""
    app.command("report")(report)
