"""Command-line option definitions shared across subcommands' modules."""

from __future__ import annotations

from typing import Any

import typer

__all__ = ["SEED_MAX", "seed_option"]

# Seeds reach the core as unsigned 64-bit integers: the CLI refuses what they cannot hold up front,
# with click's usage error, instead of a conversion error from the binding.
SEED_MAX = 2**64 - 1


def seed_option(help: str) -> Any:
    """`--seed`, an integer in 0..2^64-1; `help` says what it seeds."""
    return typer.Option("--seed", min=0, max=SEED_MAX, help=help)
