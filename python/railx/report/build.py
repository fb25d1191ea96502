"""`railx report`: from a result store (or the shipped reproduction specs run into a temporary
one) to the report directory: index.html, its assets, every figure as PNG and every table as CSV."""

from __future__ import annotations

import contextlib
import html
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from railx import __version__
from railx.atomic import checked_path, write_text
from railx.config import ConfigError
from railx.report.catalogue import REPO, Reproduction, catalogue, spec_path
from railx.report.network import circuits_table, small_system, wiring_chart
from railx.report.page import Section, write_page
from railx.report.prose import docs_section, markdown_html
from railx.report.reproductions import BUILDERS
from railx.report.sweeps import sweep_anchor, sweep_findings
from railx.report.utilisation import link_utilisation, utilisation_chart, utilisation_table
from railx.sweep import Store, dask_client, load_spec, run_sweep

__all__ = ["ReportSummary", "build_report", "quick_specs", "run_specs", "stored_sweeps"]


@dataclass(frozen=True)
class ReportSummary:
    """What a report holds and how long it took: the page, its sections, figures and tables, the
    reproductions shown and missing, the user sweeps, and the time to run specs and to build."""

    page: str
    sections: list[str]
    figures: int
    tables: int
    reproductions: list[str]
    missing: list[str]
    sweeps: list[str]
    run_s: float
    build_s: float

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def quick_specs() -> list[Path]:
    """The shipped specs run when no store is given: those of the catalogue's quick entries."""
    return [spec_path(name) for r in catalogue() if r.quick for name in r.specs]


def run_specs(
    specs: list[Path], store: Path, *, workers: int | None = None, client: Any = None, quiet: bool = True
) -> None:
    """Runs each spec's missing points into `store` (one embedded Dask cluster for all of them,
    unless `client` is given), each sweep with its progress bar unless `quiet`."""
    sweeps = [load_spec(path) for path in specs]  # every spec checked before anything runs
    with Store(store) as db:
        stored = db.keys()
        pending = any({p.key for p in sweep.points} - stored for sweep in sweeps)
        scope = contextlib.nullcontext(client) if client is not None or not pending else dask_client(None, workers)
        with scope as dask:
            for sweep in sweeps:
                run_sweep(sweep, db, client=dask, quiet=quiet)


def stored_sweeps(store: Path) -> list[str]:
    """The sweeps a store holds, in the order they were first registered."""
    from railx.results import query

    _, rows = query("SELECT sweep FROM sweep_points GROUP BY sweep ORDER BY min(rowid)", store)
    return [r[0] for r in rows]


def _claim_html(repro: Reproduction) -> str:
    return f"<p class='claim'><b>The paper's claim ({html.escape(repro.paper)}).</b> {html.escape(repro.claim)}</p>"


def _explanation_html(repro: Reproduction, explained_in: dict[tuple[str, str], Reproduction]) -> str:
    """The docs section explaining the differences; once per section: a later reproduction
    sharing it links to the first."""
    first = explained_in.setdefault((repro.doc, repro.section), repro)
    if first is not repro:
        return (
            f"<p class='explanation'>Differences and their causes: see <a href='#{first.anchor}'>"
            f"{html.escape(first.title)}</a> (the same section of {html.escape(repro.doc)}).</p>"
        )
    text = docs_section(REPO / repro.doc, repro.section)
    return (
        f"<details open class='explanation'><summary>Differences and their causes "
        f"(from {html.escape(repro.doc)}, “{html.escape(repro.section)}”)</summary>{markdown_html(text)}</details>"
    )


def _reproduction_section(
    repro: Reproduction, frames: dict[str, Any], explained_in: dict[tuple[str, str], Reproduction]
) -> Section:
    findings = BUILDERS[repro.id]({name: frames[name] for name in repro.specs})
    return Section(
        repro.anchor,
        f"{repro.title} ({repro.paper})",
        intro_html=_claim_html(repro),
        charts=findings.charts,
        tables=findings.tables,
        tables_first=1,  # the verdict
        outro_html=_explanation_html(repro, explained_in),
    )


def _missing_section(missing: list[Reproduction]) -> Section:
    items = "".join(
        f"<li>{html.escape(r.title)}: <code>"
        + html.escape(" && ".join(f"railx sweep examples/sweeps/{s}.toml --store STORE" for s in r.specs))
        + "</code></li>"
        for r in missing
    )
    return Section(
        "repro-missing",
        "Reproductions not in this store",
        intro_html=f"<p>Run their specs into the store and build the report again:</p><ul>{items}</ul>",
    )


def _network_section() -> Section:
    network = small_system()
    return Section(
        "network",
        "Network: the OCS wiring of a small RailX",
        intro_html="<p>Drawn from the circuits railx synthesises for the switches (its OCS tables), not from the "
        "intended topology: what is shown is what the switches would be programmed with.</p>",
        charts=[wiring_chart(network)],
        tables=[circuits_table(network.ocs())],
    )


def _utilisation_section() -> Section:
    data = link_utilisation()
    return Section(
        "utilisation",
        "Network: link utilisation from the flit and flow simulators",
        intro_html="<p>The same 64-chip RailX torus under each simulator's workload: where the load goes, link by "
        "link.</p>",
        charts=[utilisation_chart(data)],
        tables=[utilisation_table(data)],
    )


def build_report(
    out: str | Path,
    store: str | Path | None = None,
    specs: Sequence[str | Path] = (),
    *,
    workers: int | None = None,
    client: Any = None,
    quiet: bool = True,
) -> ReportSummary:
    """Builds the report into `out`. With `store`, from that store (after running `specs` into
    it); without, from a temporary store into which the catalogue's quick specs and `specs` are
    run first. Every reproduction whose sweeps are stored gets its section; every other stored
    sweep is shown as a user sweep. The specs run with progress bars unless `quiet`."""
    from railx.results import load

    out = checked_path(out, "out")
    spec_paths = [Path(s) for s in specs]
    for path in spec_paths:
        if not path.is_file():
            raise ConfigError(
                f"--spec {path}: no such file; give a sweep spec (TOML), e.g. examples/sweeps/table6.toml"
            )
    with tempfile.TemporaryDirectory() as scratch:
        store_path = Path(store) if store is not None else Path(scratch) / "report.duckdb"
        if store is not None and not spec_paths and not store_path.is_file():
            # With --spec the specs fill a new store, as README.md's report commands show.
            raise ConfigError(
                f"--store {store_path}: no such store; run `railx sweep` into it, give --spec to fill it, or drop --store"
            )
        start = time.perf_counter()
        run_specs(
            ([] if store is not None else quick_specs()) + spec_paths,
            store_path,
            workers=workers,
            client=client,
            quiet=quiet,
        )
        run_s = time.perf_counter() - start
        start = time.perf_counter()
        names = stored_sweeps(store_path)
        frames = {name: load(store_path, name) for name in names}
    shown: list[Reproduction] = []
    missing: list[Reproduction] = []
    used: set[str] = set()
    for repro in catalogue():
        if all(name in frames for name in repro.specs):
            shown.append(repro)
            used.update(repro.specs)
        else:
            missing.append(repro)
    explained_in: dict[tuple[str, str], Reproduction] = {}
    repro_sections = [_reproduction_section(r, frames, explained_in) for r in shown]
    if missing:
        repro_sections.append(_missing_section(missing))
    sections = [Section("reproductions", "Reproductions", children=repro_sections)]
    user = [n for n in names if n not in used]
    if user:
        children = []
        for name in user:
            table, charts = sweep_findings(name, frames[name])
            analysis = frames[name]["analysis"].iloc[0] if len(frames[name]) else "-"
            children.append(
                Section(sweep_anchor(name), f"Sweep {name} ({analysis})",
                        intro_html=f"<p>{len(frames[name])} points.</p>", charts=charts, tables=[table])
            )  # fmt: skip
        sections.append(Section("sweeps", "Sweeps", children=children))
    sections += [_network_section(), _utilisation_section()]
    source = "a temporary store of the shipped quick specs" if store is None else f"store {store_path}"
    meta = html.escape(f"railx {__version__}, from {source}; figures: inline SVG (PNG beside), tables: CSV beside.")
    page = write_page(out, "railx report", meta, sections)
    every = [s for top in sections for s in top.walk()]
    summary = ReportSummary(
        page=str(page),
        sections=[s.id for s in every],
        figures=sum(len(s.charts) for s in every),
        tables=sum(len(s.tables) for s in every),
        reproductions=[r.id for r in shown],
        missing=[r.id for r in missing],
        sweeps=user,
        run_s=run_s,
        build_s=time.perf_counter() - start,
    )
    write_text(out / "report.json", json.dumps(summary.to_dict(), indent=2) + "\n")
    return summary
