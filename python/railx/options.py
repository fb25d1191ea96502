"""Command-line option definitions shared across subcommands' modules."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer._click.core import ParameterSource

__all__ = [
    "SEED_MAX",
    "SYSTEM_HELP",
    "FiniteNumber",
    "OverridesArg",
    "given_names",
    "given_or_from_file",
    "number_option",
    "seed_option",
    "system_argument",
]

# Seeds reach the core as unsigned 64-bit integers: the CLI refuses what they cannot hold up front,
# with click's usage error, instead of a conversion error from the binding.
SEED_MAX = 2**64 - 1


def seed_option(help: str) -> Any:
    """`--seed`, an integer in 0..2^64-1; `help` says what it seeds."""
    return typer.Option("--seed", min=0, max=SEED_MAX, help=help)


@dataclass(frozen=True)
class FiniteNumber:
    """How a float option's text is read: a finite number within its range (`low`, `high`; an end
    excluded when `low_open` or `high_open`). Anything else is one usage error naming the option
    and the whole rule, `Invalid value for '--load': must be a finite number >= 0, not nan`: click's
    own range check would call NaN merely out of range."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def rule(self) -> str:
        """The rule in words: `a finite number >= 0`, `a finite number > 0 and <= 1`."""
        ends = []
        if self.low is not None:
            ends.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            ends.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        return " ".join(["a finite number", " and ".join(ends)]).strip()

    def _fits(self, x: float) -> bool:
        above = self.low is None or (x > self.low if self.low_open else x >= self.low)
        below = self.high is None or (x < self.high if self.high_open else x <= self.high)
        return math.isfinite(x) and above and below

    def __call__(self, value: object) -> float:
        try:
            x = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            x = math.nan
        if not self._fits(x):
            # typer reads options through pydantic; a custom error keeps the message as written.
            from pydantic_core import PydanticCustomError

            raise PydanticCustomError(
                "finite_number", "must be {rule}, not {value}", {"rule": self.rule(), "value": value}
            )
        return x


def number_option(
    *decls: str,
    help: str,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    **kwargs: Any,
) -> Any:
    """A float option (or a repeatable one) read by :class:`FiniteNumber`: NaN, an infinity or a
    number out of range is one usage error saying what the option must be. Closed ends are also
    the option's `min`/`max`, shown in its help."""
    return typer.Option(
        *decls,
        parser=FiniteNumber(low, high, low_open, high_open),
        min=None if low_open else low,
        max=None if high_open else high,
        help=help,
        **kwargs,
    )


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
