"""Cost and power of RailX and its peers (docs/cost.md): bills of materials from the Rust
core's builders, priced by a catalog that is data; the RailX Table 6 and Rail-only Table II
reproductions; scalability vs switch radix; plots."""

from __future__ import annotations

from railx.cost.catalog import BUILTIN_CATALOGS, PORT_BASES, Catalog, load_catalog
from railx.cost.model import figures, relative_to
from railx.cost.railonly import consistent_hb_domains, table2
from railx.cost.scale import plot_scalability, scalability
from railx.cost.table6 import compare, table6
from railx.cost.throughput import throughput_per_cost
from railx.systems import PRESETS, System, resolve_system

__all__ = [
    "BUILTIN_CATALOGS",
    "PORT_BASES",
    "PRESETS",
    "Catalog",
    "System",
    "compare",
    "consistent_hb_domains",
    "figures",
    "load_catalog",
    "plot_scalability",
    "relative_to",
    "resolve_system",
    "scalability",
    "table2",
    "table6",
    "throughput_per_cost",
]
