"""CLI: `railx route` — a route, the deadlock check, or route statistics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from railx.config import ConfigError
from railx.network import realize
from railx.routing import check_deadlock, parse_chip, route, route_stats

console = Console()


def register(app: typer.Typer) -> None:
    """Adds `route` to the railx command."""

    @app.command("route")
    def route_cmd(
        config: Annotated[Path, typer.Argument(help="TOML configuration.", show_default=False)],
        src: Annotated[Optional[str], typer.Option("--from", help="Source chip: id or X,Y,x,y.")] = None,
        dst: Annotated[Optional[str], typer.Option("--to", help="Destination chip: id or X,Y,x,y.")] = None,
        deadlock: Annotated[bool, typer.Option("--check-deadlock", help="Check the channel dependency graph.")] = False,
        stats: Annotated[bool, typer.Option("--stats", help="Hop statistics over all (or sampled) pairs.")] = False,
        routing: Annotated[str, typer.Option("--routing", help="minimal, dateline (rings) or adaptive.")] = "minimal",
        misroutes: Annotated[int, typer.Option("--misroutes", min=0, max=8, help="Free misrouted hops of adaptive routing.")] = 1,
        job: Annotated[Optional[str], typer.Option("--job", help="Which job to route in (configurations with jobs).")] = None,
        samples: Annotated[int, typer.Option("--samples", min=1, help="Pairs sampled on large networks.")] = 100_000,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the sampled pairs.")] = 0,
        vcs: Annotated[Optional[int], typer.Option("--vcs", min=1, max=255, help="VCs the hardware has (checked with --check-deadlock).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """One route (--from/--to), the deadlock check (--check-deadlock) or hop statistics (--stats).

        The deadlock check builds the channel dependency graph over every pair up to ~12K chips,
        and checks the structural argument on sampled routes beyond.
        """
        modes = [src is not None or dst is not None, deadlock, stats]
        if sum(modes) != 1 or (modes[0] and (src is None or dst is None)):
            raise ConfigError("route: give --from CHIP --to CHIP, or --check-deadlock, or --stats; e.g. --from 0 --to 17")
        network = realize(config)
        if modes[0]:
            assert src is not None and dst is not None
            report = route(network, parse_chip(network, src), parse_chip(network, dst), routing, misroutes, job)  # type: ignore[arg-type]
        elif deadlock:
            report = check_deadlock(network, routing, misroutes, job, samples, seed, vcs)  # type: ignore[arg-type]
        else:
            report = route_stats(network, routing, misroutes, job, samples, seed)  # type: ignore[arg-type]
        if as_json:
            print(json.dumps(report, indent=2))
            return
        if modes[0]:
            table = Table(title=f"{routing} route {report['src']} -> {report['dst']}: {report['hops']['Ho']} Ho + {report['hops']['Hi']} Hi")
            for col in ("from [X,Y,x,y]", "to [X,Y,x,y]", "hop", "vc"):
                table.add_column(col)
            for hop in report["path"]:
                table.add_row(str(hop["from"]), str(hop["to"]), "optical" if hop["external"] else "mesh", str(hop["vc"]))
            console.print(table)
            return
        table = Table(title=f"{routing} routing: {'deadlock check' if deadlock else 'route statistics'}")
        table.add_column("quantity")
        table.add_column("value", justify="right")
        for key, value in report.items():
            if key != "cycle":
                table.add_row(key, f"{value:.4g}" if isinstance(value, float) else str(value))
        console.print(table)
        if report.get("cycle"):
            console.print("[red]dependency cycle[/red] (link: from chip -> to chip @ vc):")
            console.print(" -> ".join(f"{c['link']}: {c['from_chip']}->{c['to_chip']}@{c['vc']}" for c in report["cycle"]))
