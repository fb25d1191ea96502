"""Command-line option definitions shared across subcommands' modules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import typer
from typer._click.core import ParameterSource

__all__ = [
    "SEED_MAX",
    "SYSTEM_HELP",
    "OverridesArg",
    "given_names",
    "given_or_from_file",
    "seed_option",
    "system_argument",
]

# Seeds reach the core as unsigned 64-bit integers: the CLI refuses what they cannot hold up front,
# with click's usage error, instead of a conversion error from the binding.
SEED_MAX = 2**64 - 1


def seed_option(help: str) -> Any:
    """`--seed`, an integer in 0..2^64-1; `help` says what it seeds."""
    return typer.Option("--seed", min=0, max=SEED_MAX, help=help)


SYSTEM_HELP = "RailX configuration (.toml), a [peer] file, or a preset name (listed by `railx cost --help`)."


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


def given_names(ctx: Any, table: dict[str, Any] | None, names: Iterable[str]) -> set[str]:
    """Which of command `ctx`'s parameters `names` were set: on the command line or in `table`."""
    return {
        name
        for name in names
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None) or (table and name in table)
    }


def given_or_from_file(ctx: Any, table: dict[str, Any] | None, names: Iterable[str]) -> dict[str, Any]:
    """The values of command `ctx`'s parameters `names`: as given on the command line, else as a
    file's `table` sets them (a `[sim]` table, say), else the option's default."""
    out: dict[str, Any] = {}
    for name in names:
        from_line = ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
        out[name] = table[name] if table and name in table and not from_line else ctx.params[name]
    return out
