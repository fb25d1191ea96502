"""`railx cost` and `railx scale`: bills of materials, cost and power of named systems or
configuration files, the RailX Table 6 and Rail-only Table II reproductions, and scalability."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from railx.config import ConfigError
from railx.cost.catalog import PORT_BASES, load_catalog
from railx.cost.model import figures, relative_to
from railx.cost.plots import plot_cost
from railx.cost.railonly import consistent_hb_domains, table2
from railx.cost.scale import DEFAULT_RADICES, plot_scalability, scalability
from railx.cost.table6 import compare, table6
from railx.options import system_argument
from railx.overrides import systems_with_overrides
from railx.systems import PRESETS, System, resolve_system
from railx.tables import console, print_table

__all__ = ["register"]

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]
DEFAULT_CATALOG = "railx-table6"
DEFAULT_BASELINE = "ft2"
DEFAULT_HB_DOMAIN = 256  # Rail-only's Table II assumes 256-GPU HB domains


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:,.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"


def _systems_table(rows: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title)
    wavelength = any(r["wss"] for r in rows)  # WSS and comb-transceiver columns only where used
    heads = (
        "system",
        "chips",
        "pkt sw",
        "OCS",
        "PCC",
        "AOT",
        *(("WSS", "comb TRx") if wavelength else ()),
        "cost M$",
        "$/chip",
        "cost/inject",
        "GBW % (bisect)",
        "a2a %",
        "cost/GBW",
        "cost/a2a",
        "power MW",
    )
    for head in heads:
        table.add_column(head, justify="left" if head == "system" else "right")
    unpriced: dict[str, str] = {}
    for r in rows:
        power = None if r["power_w"] is None else r["power_w"] / 1e6
        unpriced |= r["unpriced"]
        table.add_row(
            r["name"], f"{r['chips']:,}", f"{r['packet_switches']:,}", f"{r['ocs']:,}", f"{r['pcc']:,}", f"{r['aot']:,}",
            *((f"{r['wss']:,}", f"{r['comb_transceivers']:,}") if wavelength else ()),
            _fixed(r["cost_usd"], 1e-6, ",.1f"), _fixed(r["cost_per_chip_usd"], 1, ",.0f"),
            _fixed(r["cost_per_inject_rel"], 1, ".3f"), f"{100 * r['global_bw_frac']:.2f}",
            f"{100 * r['a2a_frac']:.2f}", _fixed(r["cost_per_global_bw_rel"], 1, ".3f"),
            _fixed(r["cost_per_a2a_bw_rel"], 1, ".3f"), _num(power),
        )  # fmt: skip
    if unpriced:
        table.caption = 'no cost ("-") where the catalog has no price: ' + "; ".join(
            f"{kind}: {why}" for kind, why in unpriced.items()
        )
    return table


def _fixed(value: float | None, scale: float, spec: str) -> str:
    """`value * scale` formatted by `spec`, "-" when there is no value (an unpriced system)."""
    return "-" if value is None else format(value * scale, spec)


def _print_table6(port_basis: str | None, as_json: bool) -> list[dict[str, Any]]:
    """Prints the reproduction; returns its rows (for the plot)."""
    rows = table6(port_basis=port_basis)
    cells = compare(rows)
    if as_json:
        print(json.dumps({"rows": rows, "cells": cells}, indent=2))
        return rows
    print_table(_systems_table(rows, f"RailX Table 6 recomputed ({_pricing(rows)}, baseline ft2)"))
    table = Table(title="Ours vs the printed Table 6 (only the cells that differ)")
    for head in ("row", "column", "ours", "paper", "likely cause"):
        table.add_column(head)
    for c in cells:
        if not c["match"]:
            table.add_row(c["row"], c["header"], c["ours_printed"], c["paper"], c["cause"])
    print_table(table)
    same = sum(c["match"] for c in cells)
    console.print(f"{same} of {len(cells)} cells equal the paper within its printing precision")
    return rows


def _pricing(rows: list[dict[str, Any]]) -> str:
    """The catalog and switch pricing basis the rows were priced with, for a table's title."""
    return f"catalog {rows[0]['catalog']}, switches priced per {rows[0]['port_basis']} port"


def _print_table2(hb_domain: int, port_basis: str | None, as_json: bool) -> None:
    rows = table2(hb_domain=hb_domain, port_basis=port_basis)
    consistent = consistent_hb_domains()
    if as_json:
        print(json.dumps({"rows": rows, "consistent_hb_domains": consistent}, indent=2))
        return
    pricing = f"catalog railonly, switches priced per {rows[0]['port_basis']} port"
    table = Table(title=f"Rail-only Table II recomputed ({pricing}, HB domain K = {hb_domain})")
    heads = ("GPUs", "radix", "tiers SOTA/RO", "switches SOTA", "switches RO", "transceivers SOTA", "transceivers RO",
             "cost saving", "power saving", "paper", "match")  # fmt: skip
    for head in heads:
        table.add_column(head, justify="right")
    for r in rows:
        table.add_row(
            f"{r['gpus']:,}", str(r["radix"]), f"{r['sota_tiers']}/{r['railonly_tiers']}", f"{r['sota_switches']:,}",
            f"{r['railonly_switches']:,}", f"{r['sota_transceivers']:,}", f"{r['railonly_transceivers']:,}",
            f"{r['cost_saving_pct']:.1f}% (${r['cost_saving_usd'] / 1e6:,.1f}M)",
            f"{r['power_saving_pct']:.1f}% ({r['power_saving_w'] / 1e6:.2f} MW)",
            f"{r['paper_cost_saving_pct']}% / {r['paper_power_saving_pct']}%", "yes" if r["match"] else "NO",
        )  # fmt: skip
    print_table(table)
    console.print(f"HB-domain sizes (powers of two) under which every printed saving holds: {consistent}")


def _priced_system(name: str, overrides: list[str]) -> System:
    """SYSTEM with its KEY=VALUE overrides, named by both in its row (one file priced twice, with
    different fields, gives two rows that say which is which)."""
    system = resolve_system(name, overrides)
    if not overrides:
        return system
    shown = " ".join([name, *overrides])
    return replace(system, name=shown, label=shown)


def _refuse_ignored_options(
    systems: list[str] | None,
    catalog: str | None,
    baseline: str | None,
    table6_: bool,
    table2_: bool,
    hb_domain: int | None,
    plot: Path | None,
) -> None:
    """A one-line ConfigError for an option the chosen table would silently ignore."""
    table = "--table6" if table6_ else "--railonly-table2" if table2_ else None
    if table6_ and table2_:
        raise ConfigError("--table6 and --railonly-table2: give one; each prints its own table")
    if table2_ and plot is not None:
        raise ConfigError(f"--plot {plot}: plots systems or --table6, not --railonly-table2; drop --plot")
    if hb_domain is not None and not table2_:
        raise ConfigError(f"--hb-domain {hb_domain}: only --railonly-table2 takes it; add it or drop --hb-domain")
    if table is None:
        return
    if systems:
        raise ConfigError(
            f"systems = {' '.join(systems)}: {table} recomputes the paper's own rows; drop the systems, "
            f"or drop {table} to price them"
        )
    for flag, value in (("--catalog", catalog), ("--baseline", baseline)):
        if value is not None:
            raise ConfigError(f"{flag} {value}: {table} prices with the paper's catalog and baseline; drop {flag}")


def cost(
    systems: Annotated[
        list[str] | None,
        system_argument(
            f"Presets ({', '.join(PRESETS)}) or TOML files (a RailX config, or a [peer] table); each may be "
            "followed by KEY=VALUE overrides of its fields (values as in TOML), e.g. ft2 ft2 peer.chips=1024."
        ),
    ] = None,
    catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog",
            help=f"Price catalog: a TOML file or a built-in name (default {DEFAULT_CATALOG}).",
            show_default=False,
        ),
    ] = None,
    port_basis: Annotated[
        str | None,
        typer.Option(
            "--port-basis",
            help=f"Pay for a switch by the ports the system uses or by every installed port ({', '.join(PORT_BASES)}); "
            "default: the catalog's.",
            show_default=False,
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline", help=f"System whose cost per bandwidth is 1 (default {DEFAULT_BASELINE}).", show_default=False
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also write cost per injection/global bandwidth vs chips (PNG or SVG)."),
    ] = None,
    table6_: Annotated[
        bool, typer.Option("--table6", help="Recompute RailX Table 6 and compare it with the paper.")
    ] = False,
    table2_: Annotated[
        bool, typer.Option("--railonly-table2", help="Recompute Rail-only Table II and compare it with the paper.")
    ] = False,
    hb_domain: Annotated[
        int | None,
        typer.Option(
            "--hb-domain",
            min=1,
            help=f"Rail-only HB-domain size K for --railonly-table2 (default {DEFAULT_HB_DOMAIN}).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Bill of materials, cost, cost per injection and global bandwidth, and power of systems.

    Global bandwidth is given both as the bisection ratio (GBW) and as the all-to-all throughput
    bound (a2a), each as a share of injection; cost ratios are relative to --baseline. A
    switch is paid for by the ports the system uses or whole (--port-basis, printed with
    every table and in every JSON row as port_basis).
    """
    _refuse_ignored_options(systems, catalog, baseline, table6_, table2_, hb_domain, plot)
    catalog = catalog or DEFAULT_CATALOG
    baseline = baseline or DEFAULT_BASELINE
    points: list[dict[str, Any]] = []
    if table6_:
        points = _print_table6(port_basis, as_json)
    elif table2_:
        _print_table2(hb_domain or DEFAULT_HB_DOMAIN, port_basis, as_json)
    elif not systems:
        raise ConfigError(
            "systems: none given; name presets (e.g. railx cost ft2 railx7mesh) or use --table6 / --railonly-table2"
        )
    else:
        cat = load_catalog(catalog, port_basis)
        priced = [_priced_system(name, overrides) for name, overrides in systems_with_overrides(systems)]
        rows = relative_to([figures(s, cat) for s in priced], figures(resolve_system(baseline), cat))
        if as_json:
            print(json.dumps(rows, indent=2))
        else:
            print_table(_systems_table(rows, f"Cost ({_pricing(rows)}, baseline {baseline})"))
        points = rows
    if plot is not None:
        written = plot_cost(load_catalog(catalog, port_basis), points, plot)
        if not as_json:
            console.print(f"wrote {written}")


def scale(
    plot: Annotated[Path | None, typer.Option("--plot", help="Write max chips vs radix, log-log (PNG or SVG).")] = None,
    radix: Annotated[list[int] | None, typer.Option("--radix", min=2, help="Radices to evaluate (repeatable).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Largest system per family vs switch radix.

    RailX eq. 1 and Table 2; TPUv4 (R/2) m^3; fat-trees, Rail-only, HammingMesh, HyperX, Dragonfly;
    Flex-SiPAC R^L (WSS radix, 2 and 3 levels), DGX-H100 SuperPOD 8R and SiP-OCS R (paper 003 Fig. 9).
    """
    rows = scalability(tuple(radix) if radix else DEFAULT_RADICES)
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        radices = sorted({r["radix"] for r in rows})
        table = Table(title="Maximum chips vs switch radix")
        table.add_column("family")
        table.add_column("variant")
        for r in radices:
            table.add_column(f"R={r}", justify="right")
        by_key: dict[tuple[str, str], dict[int, Any]] = {}
        for r in rows:
            by_key.setdefault((r["family"], r["variant"]), {})[r["radix"]] = r["max_chips"]
        for (family, variant), values in by_key.items():
            table.add_row(family, variant, *("unbounded" if values[r] is None else f"{values[r]:,}" for r in radices))
        print_table(table, keys=2)
    if plot is not None:
        written = plot_scalability(rows, plot)
        if not as_json:
            console.print(f"wrote {written}")


def register(app: typer.Typer) -> None:
    """Adds `railx cost` and `railx scale` to the railx command."""
    app.command("cost")(cost)
    app.command("scale")(scale)
