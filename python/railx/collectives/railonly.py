"""The Rail-only paper's collective models (paper 002 §III-B, §IV-B, eq. 1-3) on an x x y grid of
GPUs, x per HB domain (C_F per GPU and direction) and y domains joined by NICs (C_S per GPU):

- eq. 1, hierarchical all-gather of `volume_bytes` (the gathered result):
  (y-1) D / (x y C_S) + (x-1) D / (x C_F);
- eq. 2, direct all-to-all on the rail-optimised network, D bytes per GPU pair:
  max((x-1) D / C_F, x (y-1) D / C_S);
- eq. 3, Rail-only's two-step all-to-all (first over the rails, then forwarded inside the HB
  domain): x (y-1) D / C_S + y (x-1) D / C_F.

They are built from railx.collectives.analytic's alpha-beta pieces (latency 0: the paper prices
bandwidth only). Those pieces follow the RailX convention for a fully connected dimension, a rank
sending over two directions of B each (`(p-1)/p V / (2B)`); a GPU's port of C per direction is
that with B = C/2. The forwarding slowdown eq. 3 / eq. 2 - 1 tends to C_S / C_F when
y (x-1) ~ x (y-1); :func:`slowdown_rows` derives it from the platform presets (railx.platforms)
and sets the flow level's times beside it (the `two-step` and `direct` schedules on the Rail-only
and rail-optimised peers, railx.collectives.commands).
"""

from __future__ import annotations

from typing import Any

from railx.collectives.analytic import HierarchyLevel, direct_all_to_all_time_s, hierarchical_all_reduce_time_s
from railx.config import ConfigError
from railx.messages import shown
from railx.platforms import PLATFORMS, Platform, platform_peer

__all__ = [
    "PAPER_SLOWDOWN",
    "forwarding_slowdown",
    "hierarchical_all_gather_time_s",
    "rail_only_all_to_all_time_s",
    "rail_optimised_all_to_all_time_s",
    "slowdown_rows",
]

# The slow-down factor the paper prints (§IV-B) per platform.
PAPER_SLOWDOWN: dict[str, float] = {"dgx-a100": 0.082, "dgx-h100": 0.112}


def _check(x: int, y: int, hb_Bps: float, nic_Bps: float) -> None:
    for name, value in (("x", x), ("y", y)):
        if not (isinstance(value, int) and value >= 1):
            raise ConfigError(
                f"{name} = {shown(value)}: a grid dimension is a positive integer of GPUs; e.g. {name} = 8"
            )
    for name, bw in (("hb_Bps", hb_Bps), ("nic_Bps", nic_Bps)):
        if not bw > 0:
            raise ConfigError(f"{name} = {shown(bw)}: a bandwidth must be > 0 bytes/s; e.g. {name} = 50e9")


def _dimension_bw(port_Bps: float) -> float:
    """A port of `port_Bps` per direction as analytic's B (a rank sends over 2 directions of B)."""
    return port_Bps / 2.0


def hierarchical_all_gather_time_s(volume_bytes: float, x: int, y: int, hb_Bps: float, nic_Bps: float) -> float:
    """Eq. 1: gather over the rails (y GPUs, D/x each), then inside the HB domain (x GPUs, D):
    half of the hierarchical all-reduce over the same levels (an all-reduce is a reduce-scatter
    and an all-gather)."""
    _check(x, y, hb_Bps, nic_Bps)
    levels = [
        HierarchyLevel(x, _dimension_bw(hb_Bps), 0.0, "direct"),
        HierarchyLevel(y, _dimension_bw(nic_Bps), 0.0, "direct"),
    ]
    return float(hierarchical_all_reduce_time_s(volume_bytes, levels)) / 2.0


def _hb_step_s(per_peer_bytes: float, x: int, hb_Bps: float) -> float:
    """An all-to-all inside the HB domain sending `per_peer_bytes` to each of x-1 peers."""
    return float(direct_all_to_all_time_s(x, x * per_peer_bytes, _dimension_bw(hb_Bps), 0.0))


def _rail_step_s(per_peer_bytes: float, y: int, nic_Bps: float) -> float:
    """An all-to-all over a rail sending `per_peer_bytes` to each of y-1 peers."""
    return float(direct_all_to_all_time_s(y, y * per_peer_bytes, _dimension_bw(nic_Bps), 0.0))


def rail_optimised_all_to_all_time_s(pair_bytes: float, x: int, y: int, hb_Bps: float, nic_Bps: float) -> float:
    """Eq. 2: every GPU sends `pair_bytes` to every other at once, its domain over the HB domain
    and the rest through the full-bisection Clos: the slower of the two."""
    _check(x, y, hb_Bps, nic_Bps)
    return max(_hb_step_s(pair_bytes, x, hb_Bps), _rail_step_s(x * pair_bytes, y, nic_Bps))


def rail_only_all_to_all_time_s(pair_bytes: float, x: int, y: int, hb_Bps: float, nic_Bps: float) -> float:
    """Eq. 3: over the rails first (x D to each rail peer), then inside the HB domain (y D to
    each domain peer, the forwarded blocks with the domain's own)."""
    _check(x, y, hb_Bps, nic_Bps)
    return _rail_step_s(x * pair_bytes, y, nic_Bps) + _hb_step_s(y * pair_bytes, x, hb_Bps)


def forwarding_slowdown(x: int, y: int, hb_Bps: float, nic_Bps: float) -> float:
    """Eq. 3 / eq. 2 - 1 (independent of D)."""
    return (
        rail_only_all_to_all_time_s(1.0, x, y, hb_Bps, nic_Bps)
        / rail_optimised_all_to_all_time_s(1.0, x, y, hb_Bps, nic_Bps)
        - 1.0
    )


def slowdown_rows(
    platforms: tuple[str, ...] = ("dgx-a100", "dgx-h100"),
    domains: int = 16,
    fidelity: str = "analytic",
    pair_bytes: int = 1 << 20,
) -> list[dict[str, Any]]:
    """Per platform: the paper's slow-down, its approximation C_S / C_F, the exact eq. 3 / eq. 2
    for `domains` HB domains, and with `fidelity` `flow` (or `flit`) the same all-to-all
    (`pair_bytes` per pair) simulated: `two-step` on the Rail-only peer, `direct` on the
    rail-optimised one, plus `direct` on Rail-only (one message per pair, forwarded by routing)."""
    from railx.systems import System

    rows = []
    for name in platforms:
        plat: Platform = PLATFORMS[name] if name in PLATFORMS else _unknown(name)
        x, y = plat.gpus_per_domain, domains
        row: dict[str, Any] = {
            "platform": name,
            "x": x,
            "y": y,
            "hb_Bps": plat.hb_Bps,
            "nic_Bps": plat.nic_Bps,
            "paper": PAPER_SLOWDOWN.get(name),
            "approx": plat.nic_Bps / plat.hb_Bps,
            "eq2_s": rail_optimised_all_to_all_time_s(pair_bytes, x, y, plat.hb_Bps, plat.nic_Bps),
            "eq3_s": rail_only_all_to_all_time_s(pair_bytes, x, y, plat.hb_Bps, plat.nic_Bps),
            "analytic": forwarding_slowdown(x, y, plat.hb_Bps, plat.nic_Bps),
        }
        if fidelity != "analytic":
            size = pair_bytes * x * y
            only = System(f"railonly-{name}-{y}", "Rail-only", peer=platform_peer(plat, y, "rail-only"))
            opt = System(f"railopt-{name}-{y}", "rail-optimised", peer=platform_peer(plat, y, "rail-optimised"))

            row |= {
                "fidelity": fidelity,
                "railopt_direct_s": _all_to_all_s(opt, "direct", size, fidelity),
                "railonly_two_step_s": _all_to_all_s(only, "two-step", size, fidelity),
                "railonly_direct_s": _all_to_all_s(only, "direct", size, fidelity),
            }
            row["simulated"] = row["railonly_two_step_s"] / row["railopt_direct_s"] - 1.0
            row["simulated_direct"] = row["railonly_direct_s"] / row["railopt_direct_s"] - 1.0
        rows.append(row)
    return rows


def _all_to_all_s(system: Any, algo: str, size_bytes: int, fidelity: str) -> float:
    from railx.collectives.commands import collective_report

    return float(collective_report(system, "all-to-all", algo, size_bytes, fidelity)["time_s"])


def _unknown(name: str) -> Platform:
    raise ConfigError(f"platform = {shown(name)}: unknown platform; use one of {', '.join(PLATFORMS)}")
