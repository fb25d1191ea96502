"""Routing on a realized RailX network (DESIGN.md §5): routes, deadlock checks, route statistics
and all-to-all link loads. The routing functions live in the Rust core (`routing`); these are
thin, typed wrappers."""

from __future__ import annotations

import json
from typing import Any, Literal

import numpy as np

from railx.network import Network

__all__ = ["RoutingName", "parse_chip", "route", "check_deadlock", "route_stats", "link_load"]

RoutingName = Literal["minimal", "dateline", "adaptive", "balanced"]


def parse_chip(network: Network, text: str) -> int:
    """A chip given as its id (`17`) or its coordinates `X,Y,x,y`."""
    from railx.config import ConfigError

    parts = text.replace(" ", "").split(",")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ConfigError(f"chip = {text!r}: give a chip id or coordinates X,Y,x,y; e.g. 0 or 1,2,0,3") from None
    if len(values) == 1:
        return values[0]
    if len(values) != 4:
        raise ConfigError(f"chip = {text!r}: coordinates are four numbers X,Y,x,y; e.g. 1,2,0,3")
    system = network.config.system
    p = system.grid[0] if system.grid is not None else system.R // 2
    q = system.grid[1] if system.grid is not None else system.R // 2
    x_node, y_node, x, y = values
    m = system.m
    if not (0 <= x_node < p and 0 <= y_node < q and 0 <= x < m and 0 <= y < m):
        raise ConfigError(f"chip = {text!r}: outside the system; use 0 <= X < {p}, 0 <= Y < {q}, 0 <= x, y < {m}")
    return ((y_node * p + x_node) * m + y) * m + x


def route(
    network: Network, src: int, dst: int, routing: RoutingName = "minimal", misroutes: int = 1, job: str | None = None
) -> dict[str, Any]:
    """The route from chip `src` to chip `dst`: hops `{Ho, Hi}` and the path hop by hop."""
    return json.loads(network._core.route_json(routing, src, dst, misroutes, job))


def check_deadlock(
    network: Network,
    routing: RoutingName = "minimal",
    misroutes: int = 1,
    job: str | None = None,
    samples: int = 100_000,
    seed: int = 0,
    vcs: int | None = None,
) -> dict[str, Any]:
    """Channel-dependency check: `acyclic`, `vcs_used`, `method` (exhaustive or structural) and a
    `cycle` when one is found. With `vcs`, the hardware's VC budget, a function needing more is
    refused."""
    return json.loads(network._core.deadlock_json(routing, misroutes, job, samples, seed, vcs))


def route_stats(
    network: Network,
    routing: RoutingName = "minimal",
    misroutes: int = 1,
    job: str | None = None,
    samples: int = 1_000_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Hop statistics over all pairs, or over `samples` seeded pairs when there are more."""
    return json.loads(network._core.route_stats_json(routing, misroutes, job, samples, seed))


def link_load(
    network: Network, routing: RoutingName = "minimal", misroutes: int = 1, job: str | None = None
) -> np.ndarray:
    """Per-link load under uniform all-to-all traffic, in units of one chip's injection rate,
    indexed like `Network.links()`."""
    return network._core.link_load(routing, misroutes, job)
