"""CLI: `railx route` — a route, the deadlock check, or route statistics, on a RailX configuration
or a peer system (a `[peer]` TOML file or a preset name)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from railx.config import ConfigError
from railx.options import OverridesArg, seed_option, system_argument
from railx.progress import live_progress
from railx.routing import check_deadlock, parse_chip, route, route_stats
from railx.routing.options import MisroutesOpt, RoutingOpt
from railx.systems import resolve_system
from railx.tables import cell, console, print_table


def register(app: typer.Typer) -> None:
    """Adds `route` to the railx command."""

    @app.command("route")
    def route_cmd(
        system_arg: Annotated[str, system_argument()],
        overrides: OverridesArg = None,
        src: Annotated[
            str | None, typer.Option("--from", help="Source chip: id, or X,Y,x,y on a RailX system.")
        ] = None,
        dst: Annotated[
            str | None, typer.Option("--to", help="Destination chip: id, or X,Y,x,y on a RailX system.")
        ] = None,
        deadlock: Annotated[bool, typer.Option("--check-deadlock", help="Check the channel dependency graph.")] = False,
        stats: Annotated[bool, typer.Option("--stats", help="Hop statistics over all (or sampled) pairs.")] = False,
        routing: RoutingOpt = None,
        misroutes: MisroutesOpt = None,
        job: Annotated[
            str | None, typer.Option("--job", help="Which job to route in (RailX configurations with jobs only).")
        ] = None,
        samples: Annotated[int, typer.Option("--samples", min=1, help="Pairs sampled on large networks.")] = 100_000,
        seed: Annotated[int, seed_option("Seed of the sampled pairs.")] = 0,
        vcs: Annotated[
            int | None,
            typer.Option("--vcs", min=1, max=255, help="VCs the hardware has (checked with --check-deadlock)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """One route (--from/--to), the deadlock check (--check-deadlock) or hop statistics (--stats).

        The deadlock check builds the channel dependency graph over every pair up to ~12K chips,
        and beyond checks the structural argument on sampled routes (functions whose VC rises at
        every hop: RailX minimal and adaptive, torus3d minimal; others are refused there).
        """
        modes = [src is not None or dst is not None, deadlock, stats]
        if sum(modes) != 1 or (modes[0] and (src is None or dst is None)):
            raise ConfigError(
                "route: give --from CHIP --to CHIP, or --check-deadlock, or --stats; e.g. --from 0 --to 17"
            )
        if vcs is not None and not deadlock:
            raise ConfigError(f"--vcs {vcs}: only --check-deadlock checks a VC budget; add it or drop --vcs")
        system = resolve_system(system_arg, overrides)
        if modes[0]:
            assert src is not None and dst is not None
            report = route(system, parse_chip(system, src), parse_chip(system, dst), routing, misroutes, job)
        elif deadlock:
            with live_progress("deadlock check", as_json) as progress:
                report = check_deadlock(system, routing, misroutes, job, samples, seed, vcs, progress)
        else:
            with live_progress("route statistics", as_json) as progress:
                report = route_stats(system, routing, misroutes, job, samples, seed, progress)
        if as_json:
            print(json.dumps(report, indent=2))
            return
        name = report["routing"]
        if modes[0]:
            _print_route(report, peer=system.peer is not None)
            return
        table = Table(title=f"{name} routing: {'deadlock check' if deadlock else 'route statistics'}")
        table.add_column("quantity")
        table.add_column("value", justify="right")
        for key, value in report.items():
            if key != "cycle":
                table.add_row(key, cell(value, ".4g"))
        print_table(table)
        if report.get("cycle"):
            console.print("[red]dependency cycle[/red] (link: from -> to @ vc):")
            console.print(
                " -> ".join(f"{c['link']}: {c['from_chip']}->{c['to_chip']}@{c['vc']}" for c in report["cycle"])
            )


def _print_route(report: dict[str, Any], peer: bool) -> None:
    """A route hop by hop: RailX chips as [X,Y,x,y]; peer vertices as ids (switches after chips)."""
    hops = report["hops"]
    table = Table(
        title=f"{report['routing']} route {report['src']} -> {report['dst']}: {hops['Ho']} Ho + {hops['Hi']} Hi"
    )
    where = "vertex" if peer else "[X,Y,x,y]"
    for col in (f"from {where}", f"to {where}", "hop", "vc"):
        table.add_column(col)
    outside, inside = ("network", "board/HB") if peer else ("optical", "mesh")
    for hop in report["path"]:
        table.add_row(str(hop["from"]), str(hop["to"]), outside if hop["external"] else inside, str(hop["vc"]))
    print_table(table)
