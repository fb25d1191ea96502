"""Throughput per dollar of simulated systems (RailX Fig. 14): each recorded peak accepted rate
(flits/cycle per chip) over the system's cost, the system priced afresh from its bill of
materials under each switch pricing basis, so that rerunning a simulation or changing a price
updates the figures."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from railx.config import ConfigError
from railx.cost.catalog import PORT_BASES, load_catalog
from railx.cost.model import figures
from railx.messages import shown
from railx.systems import System

__all__ = ["throughput_per_cost"]


def throughput_per_cost(
    results: Iterable[Mapping[str, Any]],
    systems: Mapping[str, System],
    catalog: str = "railx-table6",
    bases: Iterable[str] = PORT_BASES,
) -> list[dict[str, Any]]:
    """One row per recorded result (`system`, `chips`, `peak_accepted` in flits/cycle per chip,
    as `benchmarks/fig14.py` writes them): `cost_usd` and `per_musd` (peak flits/cycle over all
    chips per million dollars), each a dict keyed by pricing basis. A result whose system is not
    in `systems`, or whose chip count differs from the system's, is a ConfigError."""
    catalogs = {basis: load_catalog(catalog, basis) for basis in bases}
    rows = []
    for result in results:
        name = result["system"]
        if name not in systems:
            raise ConfigError(f"system = {shown(name)}: not a known system; known: {', '.join(systems)}")
        priced = {basis: figures(systems[name], cat) for basis, cat in catalogs.items()}
        chips = next(iter(priced.values()))["chips"]
        if chips != result["chips"]:
            raise ConfigError(f"{name}.chips = {result['chips']}: the system has {chips}; rerun its simulation")
        flits_per_cycle = result["peak_accepted"] * chips
        rows.append(
            {
                "system": name,
                "label": systems[name].label,
                "chips": chips,
                "peak_accepted": result["peak_accepted"],
                "cost_usd": {basis: row["cost_usd"] for basis, row in priced.items()},
                "per_musd": {basis: flits_per_cycle / (row["cost_usd"] / 1e6) for basis, row in priced.items()},
            }
        )
    return rows
