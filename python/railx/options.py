"""Command-line option definitions shared across subcommands' modules."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = ["SEED_MAX", "SYSTEM_HELP", "OverridesArg", "seed_option", "system_argument"]

# Seeds reach the core as unsigned 64-bit integers: the CLI refuses what they cannot hold up front,
# with click's usage error, instead of a conversion error from the binding.
SEED_MAX = 2**64 - 1


def seed_option(help: str) -> Any:
    """`--seed`, an integer in 0..2^64-1; `help` says what it seeds."""
    return typer.Option("--seed", min=0, max=SEED_MAX, help=help)


SYSTEM_HELP = "RailX configuration (.toml), a [peer] file, or a preset name (see `railx cost`)."


def system_argument(help: str = SYSTEM_HELP) -> Any:
    """The SYSTEM argument, named so in every subcommand; `help` says which kinds it takes."""
    return typer.Argument(metavar="SYSTEM", help=help, show_default=False)


OverridesArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="KEY=VALUE",
        help="Override fields of SYSTEM's file, e.g. system.k=4 topology.preset=torus sim.load=0.3 "
        "(values as in TOML).",
        show_default=False,
    ),
]
"""KEY=VALUE overrides after SYSTEM (railx.overrides)."""
