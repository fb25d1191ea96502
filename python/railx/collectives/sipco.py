"""SiPCO / Flex-SiPCO all-reduce on SiPAC (paper 003 §4, Algorithm 1; docs/collectives.md):
the analytic model, the job's CU sets and the levels a job spans.

A job's CUs differ in the address digits of l-hat levels (its *spanned* levels); SiPCO cuts the
vector into r l-hat chunks and takes l-hat + 1 steps, each a lightpath through one WSS. The
paper bounds the time by (l-hat + 1)(alpha + (r - 1) 2n / (r l-hat) beta): per step and link, the
link's own r - 1 chunks and up to r - 1 transit chunks forwarded for non-communicating CUs. A job
filling its sub-SiPAC has no transit chunk, so each link carries r - 1 chunks per step and the
schedule takes (l-hat + 1)(alpha + (r - 1) n / (r l-hat) beta): `sipco_all_reduce_time_s`, which
the flow level reproduces exactly on a contention-free system (tests/test_sipco.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from railx._core import System as CoreSystem
from railx.config import ConfigError
from railx.messages import shown

__all__ = [
    "flex_sipco_bound_s",
    "level_ports",
    "parse_cus",
    "sipco_all_reduce_time_s",
    "sipco_estimate_s",
    "spanned_levels",
]


def sipco_all_reduce_time_s(radix: int, levels_spanned: int, size_bytes: float, bw_Bps: float, alpha_s: float) -> float:
    """SiPCO all-reduce of `size_bytes` per CU over a job filling a SiPAC(radix, levels_spanned)
    (no transit chunks): (l-hat + 1)(alpha + (r - 1) n / (r l-hat) / B), B the per-port bandwidth
    of the spanned levels' links, alpha one lightpath's latency (two fibre hops)."""
    r, lh = radix, levels_spanned
    return (lh + 1) * (alpha_s + (r - 1) * size_bytes / (r * lh) / bw_Bps)


def flex_sipco_bound_s(radix: int, levels_spanned: int, size_bytes: float, bw_Bps: float, alpha_s: float) -> float:
    """The paper's upper bound for Flex-SiPCO (§4): (l-hat + 1)(alpha + (r - 1) 2n / (r l-hat) beta),
    beta = 1 / B: a link may carry its own r - 1 chunks and r - 1 transit chunks in one step."""
    return sipco_all_reduce_time_s(radix, levels_spanned, 2.0 * size_bytes, bw_Bps, alpha_s)


def spanned_levels(radix: int, levels: int, cus: Iterable[int]) -> list[int]:
    """The levels in whose address digit two CUs of the job differ (l-hat = their number)."""
    digits = np.array([[(cu // radix**level) % radix for level in range(levels)] for cu in cus])
    return [level for level in range(levels) if len(set(digits[:, level])) > 1]


def level_ports(core: CoreSystem) -> tuple[list[float], float]:
    """Per level, the bandwidth of a CU's port (bytes/s, from the built network), and the latency
    of one lightpath CU -> WSS -> CU (two fibre hops)."""
    links = core.links()
    out = np.flatnonzero(links["src"] == 0)  # CU 0's ports, one per level (rail = level)
    order = np.argsort(links["rail"][out])
    bw = [float(b) for b in links["bandwidth_Bps"][out][order]]
    return bw, 2.0 * float(links["latency_s"][out[0]])


def sipco_estimate_s(core: CoreSystem, cus: Sequence[int] | None) -> tuple[int, list[int], float, float]:
    """(radix, spanned levels, beta's bandwidth, alpha) of SiPCO for `cus` (None: every CU) on a
    SiPAC system; the bandwidth is the slowest spanned level's port (with an uneven level split
    a step waits for its slowest level)."""
    if core.family != "sipac":
        raise ConfigError(
            f"algo: sipco and flex-sipco schedule by SiPAC CU addresses, not a {core.family} system's; "
            "use a sipac system (e.g. flex-sipac-512) or --algo direct"
        )
    dims = core.group_dims()
    radix, levels = dims[0][0], len(dims)
    job = list(range(core.chips)) if cus is None else list(cus)
    spanned = spanned_levels(radix, levels, job)
    bw, alpha_s = level_ports(core)
    return radix, spanned, min(bw[level] for level in spanned), alpha_s


def parse_cus(text: str, chips: int) -> list[int]:
    """A job's CUs from `0-63,128-191` (ranges and single ids, comma-separated), sorted; refuses
    bad syntax, CUs outside 0..chips-1 and CUs listed twice (overlapping ranges)."""
    seen: set[int] = set()
    for part in text.split(","):
        lo_text, dash, hi_text = part.strip().partition("-")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if dash else lo
        except ValueError:
            raise ConfigError(
                f"cus = {shown(text)}: {shown(part)} is not a CU id or range; use e.g. --cus 0-63,128-191"
            ) from None
        if lo > hi:
            raise ConfigError(
                f"cus = {shown(text)}: range {shown(part)} runs backwards; write it low-high, e.g. {hi}-{lo}"
            )
        if lo < 0 or hi >= chips:
            raise ConfigError(
                f"cus = {shown(text)}: CU {hi if hi >= chips else lo} is outside the system's {chips} CUs; "
                f"use ids in 0-{chips - 1}"
            )
        ids = set(range(lo, hi + 1))
        if ids & seen:
            raise ConfigError(
                f"cus = {shown(text)}: CU {min(ids & seen)} is listed twice (ranges overlap); list each CU once"
            )
        seen |= ids
    if len(seen) < 2:
        raise ConfigError(f"cus = {shown(text)}: a job's collective needs at least 2 CUs; e.g. --cus 0-63")
    return sorted(seen)
