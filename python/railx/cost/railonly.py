"""Rail-only Table II (paper 002, §V.E) recomputed: a rail-optimised non-blocking Clos of the
fewest tiers ("SOTA": the `rail-optimised` peer, the same HB domains and one Clos over every NIC)
against Rail-only (HB domains of K GPUs, a minimum-tier Clos per rail) for
32,768 and 65,536 GPUs and switch radix 64, 128, 256, priced with the paper's model (`railonly`
catalog: $694 and 18 W per switch port, $199 and 9 W per transceiver).

The printed table's counts were lost in extraction; what survives is the savings column, read
row by row (32,768 GPUs: radix 64, 128, 256; then 65,536 GPUs) as PAPER_SAVINGS. Each GPU has
one 400G NIC port; the HB domain (NVLink) is priced with the GPUs in both designs.

Two figures of the paper's text are checked against the same model (docs/reproductions.md,
"Rail-only"): the switch ratio at radix 64 (:func:`switch_ratio`) and the cost and power of a
full-bisection Clos for 30,000 GPUs (:func:`clos_30k_anchor`).
"""

from __future__ import annotations

from typing import Any

from railx.config import ConfigError
from railx.cost.catalog import load_catalog
from railx.cost.model import figures
from railx.messages import shown
from railx.systems import System

__all__ = [
    "GPUS",
    "PAPER_SAVINGS",
    "RADICES",
    "clos_30k_anchor",
    "consistent_hb_domains",
    "savings_match",
    "switch_ratio",
    "table2",
]

GPUS: tuple[int, ...] = (32768, 65536)
RADICES: tuple[int, ...] = (64, 128, 256)
# DGX GH200: 3.6 Tb/s of NVLink per GPU over a 400 Gb/s NIC port (paper 002, §II-A, §III).
HB_PORTS_PER_GPU = 9.0
# (GPUs, radix) -> (cost saving %, power saving %), as printed.
PAPER_SAVINGS: dict[tuple[int, int], tuple[str, str]] = {
    (32768, 64): ("38", "37"),
    (32768, 128): ("77", "75"),
    (32768, 256): ("62", "60"),
    (65536, 64): ("38", "37"),
    (65536, 128): ("38", "37"),
    (65536, 256): ("77", "75"),
}


def _sota(gpus: int, radix: int, hb_domain: int = 1) -> System:
    spec = {
        "family": "rail-optimised",
        "radix": radix,
        "hb_domain": hb_domain,
        "hb_ports_per_chip": HB_PORTS_PER_GPU,
        "domains": gpus // hb_domain,
    }
    return System(f"sota-{gpus}-r{radix}", "rail-optimised Clos", peer=spec)


def _rail_only(gpus: int, radix: int, hb_domain: int) -> System:
    spec = {
        "family": "rail-only",
        "radix": radix,
        "hb_domain": hb_domain,
        "hb_ports_per_chip": HB_PORTS_PER_GPU,
        "dims": [{"size": gpus // hb_domain, "rails": 1}],
    }
    return System(f"railonly-{gpus}-r{radix}-k{hb_domain}", "Rail-only", peer=spec)


def table2(hb_domain: int = 256, catalog: str = "railonly", port_basis: str | None = None) -> list[dict[str, Any]]:
    """The six rows: counts, cost and power of both designs, savings, and the paper's savings;
    switches priced on `port_basis` (None: the catalog's, "used"). `hb_domain` must divide both
    GPU counts (whole HB domains): another is a ConfigError, never rounded down."""
    if hb_domain < 1 or any(gpus % hb_domain for gpus in GPUS):
        raise ConfigError(
            f"hb_domain = {hb_domain}: must divide Table II's GPU counts ({', '.join(map(str, GPUS))}: whole HB "
            "domains); use a power of two up to 32768, e.g. 256"
        )
    cat = load_catalog(catalog, port_basis)
    rows = []
    for gpus in GPUS:
        for radix in RADICES:
            sota = figures(_sota(gpus, radix, hb_domain), cat)
            rail = figures(_rail_only(gpus, radix, hb_domain), cat)
            cost_saving = 1 - rail["cost_usd"] / sota["cost_usd"]
            power_saving = 1 - rail["power_w"] / sota["power_w"]
            paper_cost, paper_power = PAPER_SAVINGS[(gpus, radix)]
            rows.append(
                {
                    "gpus": gpus,
                    "radix": radix,
                    "hb_domain": hb_domain,
                    "port_basis": cat.port_basis,
                    "sota_tiers": sota["switch_tiers"],
                    "railonly_tiers": rail["switch_tiers"],
                    "sota_switches": sota["packet_switches"],
                    "railonly_switches": rail["packet_switches"],
                    "sota_transceivers": sota["aot"],
                    "railonly_transceivers": rail["aot"],
                    "sota_cost_usd": sota["cost_usd"],
                    "railonly_cost_usd": rail["cost_usd"],
                    "sota_power_w": sota["power_w"],
                    "railonly_power_w": rail["power_w"],
                    "cost_saving_usd": sota["cost_usd"] - rail["cost_usd"],
                    "power_saving_w": sota["power_w"] - rail["power_w"],
                    "cost_saving_pct": 100 * cost_saving,
                    "power_saving_pct": 100 * power_saving,
                    "paper_cost_saving_pct": paper_cost,
                    "paper_power_saving_pct": paper_power,
                    "match": savings_match(100 * cost_saving, 100 * power_saving, paper_cost, paper_power),
                }
            )
    return rows


def savings_match(cost_pct: float, power_pct: float, paper_cost: str, paper_power: str) -> bool:
    """Whether recomputed savings (%) equal the printed ones: the cost rounded; the power rounded
    or truncated, since the paper prints 37.5% as 37 where it rounds elsewhere."""
    return round(cost_pct) == int(paper_cost) and int(paper_power) in (round(power_pct), int(power_pct))


def consistent_hb_domains(candidates: list[int] | None = None) -> list[int]:
    """HB-domain sizes K for which all six recomputed savings equal the printed ones. Default
    candidates: every power of two from 1 to 32,768 (K must divide the GPU counts)."""
    ks = candidates if candidates is not None else [2**i for i in range(16)]
    return [k for k in ks if all(row["match"] for row in table2(hb_domain=k))]


def switch_ratio(gpus: int = 32768, radix: int = 64, hb_domain: int = 256) -> dict[str, Any]:
    """Rail-only's switches over the rail-optimised Clos's (the paper's "three-quarters" at radix
    64), with the closed form: a filled non-blocking L-tier Clos of N endpoints has (2L-1) N/R
    switches, so 3 tiers against 2 per rail is 3/5 whatever N and K."""
    sota = _sota(gpus, radix, hb_domain).bom()
    rail = _rail_only(gpus, radix, hb_domain).bom()
    tiers = (sota["switch_tiers"], rail["switch_tiers"])
    return {
        "gpus": gpus,
        "radix": radix,
        "sota_switches": _packet_switches(sota),
        "railonly_switches": _packet_switches(rail),
        "ratio": _packet_switches(rail) / _packet_switches(sota),
        "closed_form": (2 * tiers[1] - 1) / (2 * tiers[0] - 1),
        "paper": 0.75,
    }


def _packet_switches(bom: dict[str, Any]) -> int:
    return sum(s["count"] for s in bom["packet_switches"])


def clos_30k_anchor(gpus: int = 30000, radix: int = 64, catalog: str = "railonly") -> dict[str, Any]:
    """A full-bisection Clos of `gpus` 400G GPUs priced with Table II's model, beside the paper's
    "$200 million and ~4.6 MW" (§I). Every switch port and transceiver costs between $22.1 and
    $38.6 per watt ($199 / 9 W and $694 / 18 W), so no count of them gives the paper's
    $43.5 per watt: `usd_per_w_range` against `paper_usd_per_w`."""
    cat = load_catalog(catalog)
    row = figures(_sota(gpus, radix), cat)
    switch, aot = cat.packet_switch, cat.aot
    if not (switch and aot and switch.usd_per_port and switch.watts_per_port and aot.usd and aot.watts):
        raise ConfigError(
            f"catalog {shown(catalog)}: the dollars-per-watt bound needs switch ports and transceivers priced "
            "per port and per unit with their watts; use catalog = 'railonly'"
        )
    ratios = (aot.usd / aot.watts, switch.usd_per_port / switch.watts_per_port)
    paper_usd, paper_w = 200e6, 4.6e6
    return {
        "gpus": gpus,
        "radix": radix,
        "tiers": row["switch_tiers"],
        "cost_usd": row["cost_usd"],
        "power_w": row["power_w"],
        "paper_cost_usd": paper_usd,
        "paper_power_w": paper_w,
        "usd_per_w_range": (min(ratios), max(ratios)),
        "paper_usd_per_w": paper_usd / paper_w,
        "missing_usd_per_gpu": (paper_usd - row["cost_usd"]) / gpus,
    }
