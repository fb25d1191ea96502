"""The command-line options of every subcommand that routes (route, sim, collective): one
definition each, so the same option reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["MisroutesOpt", "RoutingOpt"]

RoutingOpt = Annotated[
    str | None,
    typer.Option(
        "--routing",
        help="Routing function; default: the system's first. RailX: minimal, dateline (deadlock-free on rings at "
        "flit level), adaptive, balanced (mesh crossings XY or YX). Peers: their family's own: torus3d "
        "dateline|minimal|dateline-partition (BookSim2's), fat-tree updown, hyperx and dragonfly minimal|valiant, "
        "rail-only minimal, hammingmesh dimension-order, sipac digit-order.",
    ),
]
MisroutesOpt = Annotated[
    int | None,
    typer.Option(
        "--misroutes", min=0, max=8, help="Free misrouted hops of RailX adaptive routing (default 1; RailX only)."
    ),
]
