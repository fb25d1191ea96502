"""Figures per system (docs/cost.md): component counts, total cost, cost per chip, cost per
injection bandwidth and per global bandwidth relative to a baseline, global bandwidth as a share
of injection under both definitions the papers use, and power.

Global bandwidth, as a share of a chip's injection bandwidth:
- `global_bw_frac` (the bisection ratio): the worst balanced cut's one-direction capacity over
  half the chips' injection; 1 = full bisection;
- `a2a_frac` (the all-to-all throughput bound): the largest uniform all-to-all rate a chip can
  sustain, the tightest of the bisection bound (2x the ratio) and the family's own bottleneck,
  capped at 1. The RailX paper uses the first for most rows of Table 6 and the second for RailX.

Where the catalog has no price for a part the system uses (it marks the kind `unpriced`, e.g.
Flex-SiPAC's WSS), the counts stay and every cost figure is None, with `unpriced` saying why.
"""

from __future__ import annotations

from typing import Any

from railx.config import ConfigError
from railx.cost.catalog import Catalog
from railx.messages import shown
from railx.systems import System, SystemLike

__all__ = ["figures", "relative_to"]


def figures(system: SystemLike, catalog: Catalog) -> dict[str, Any]:
    """Absolute figures of one system (any :data:`railx.systems.SystemLike`) under one catalog
    (relative ones: see `relative_to`)."""
    system = System.resolve(system)
    bom = system.bom()
    priced = catalog.price(bom)
    cost = priced.cost_usd
    chips = bom["chips"]
    inject_Bps = chips * bom["ports_per_chip"] * system.port_bw_Bps
    glob = bom["global"]
    return {
        "name": system.name,
        "label": system.label,
        "family": bom["family"],
        "chips": chips,
        "ports_per_chip": bom["ports_per_chip"],
        "switch_tiers": bom["switch_tiers"],
        "packet_switches": sum(s["count"] for s in bom["packet_switches"]),
        "packet_switches_by_radix": {str(s["radix"]): s["count"] for s in bom["packet_switches"]},
        "ocs": sum(s["count"] for s in bom["ocs"]),
        "ocs_by_radix": {str(s["radix"]): s["count"] for s in bom["ocs"]},
        "pcc": bom["pcc"],
        "aot": bom["aot"],
        "nics": bom["nics"],
        "wss": sum(s["count"] for s in bom["wss"]),
        "wss_by_radix": {str(s["radix"]): s["count"] for s in bom["wss"]},
        "comb_transceivers": bom["comb_transceivers"],
        "cost_usd": cost,
        "cost_breakdown_usd": priced.breakdown_usd,
        "unpriced": priced.unpriced,
        "cost_per_chip_usd": None if cost is None else cost / chips,
        "inject_Bps": inject_Bps,
        "cost_per_inject_usd_per_GBps": None if cost is None else cost / (inject_Bps / 1e9),
        "global_bw_frac": glob["bisection_frac"],
        "a2a_frac": glob["a2a_frac"],
        "power_w": priced.power_w,
        "unpowered": priced.unpowered,
        "catalog": catalog.name,
        "port_basis": priced.port_basis,
        "switch_ports": priced.switch_ports,
    }


def relative_to(rows: list[dict[str, Any]], baseline: dict[str, Any]) -> list[dict[str, Any]]:
    """Adds cost per injection, per global (bisection) and per all-to-all bandwidth, each
    relative to `baseline`'s (1 = the baseline's cost for the same bandwidth); None for a system
    without a total cost."""
    base_inject = baseline["cost_per_inject_usd_per_GBps"]
    if base_inject is None:
        raise ConfigError(
            f"baseline = {shown(baseline['name'])}: has no total cost (unpriced: {', '.join(baseline['unpriced'])}); "
            "use a priced baseline, e.g. ft2"
        )
    base_global = base_inject / baseline["global_bw_frac"]
    base_a2a = base_inject / baseline["a2a_frac"]
    out = []
    for row in rows:
        per_inject = row["cost_per_inject_usd_per_GBps"]
        if per_inject is None:
            out.append(
                row
                | {
                    "baseline": baseline["name"],
                    "cost_per_inject_rel": None,
                    "cost_per_global_bw_rel": None,
                    "cost_per_a2a_bw_rel": None,
                }
            )
            continue
        out.append(
            row
            | {
                "baseline": baseline["name"],
                "cost_per_inject_rel": per_inject / base_inject,
                "cost_per_global_bw_rel": per_inject / row["global_bw_frac"] / base_global,
                "cost_per_a2a_bw_rel": per_inject / row["a2a_frac"] / base_a2a,
            }
        )
    return out
