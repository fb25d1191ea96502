"""Routing on any system (a realized RailX network or a peer): routes, deadlock checks, route
statistics and all-to-all link loads. The routing functions live in the Rust core; each family
offers its own by name (:func:`routing_names`, the default first): RailX `minimal`, `dateline`,
`adaptive`, `balanced`; a 3D torus `dateline`, `minimal`, `dateline-partition`; a fat-tree
`updown`; HyperX and Dragonfly `minimal`, `valiant`; Rail-only `minimal`; HammingMesh
`dimension-order`. These are thin, typed wrappers."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from railx._core import System as CoreSystem
from railx.config import Config, ConfigError
from railx.systems import SystemLike, core_of

__all__ = ["check_deadlock", "link_load", "parse_chip", "route", "route_stats", "routing_names"]


def routing_names(system: SystemLike) -> list[str]:
    """The routing functions the system offers, its default first."""
    return list(core_of(system).routing_names())


def _railx_config(system: SystemLike) -> Config | None:
    from railx.network import Network
    from railx.systems import resolve_system

    if isinstance(system, Network):
        return system.config
    if isinstance(system, CoreSystem):  # built from JSON: the configuration is not kept
        return None
    resolved = resolve_system(system) if isinstance(system, str) else system
    return Config.from_dict(resolved.railx) if resolved.railx is not None else None


def parse_chip(system: SystemLike, text: str) -> int:
    """A chip given as its id (`17`) or, on a RailX system, its coordinates `X,Y,x,y`."""
    parts = text.replace(" ", "").split(",")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ConfigError(f"chip = {text!r}: give a chip id or coordinates X,Y,x,y; e.g. 0 or 1,2,0,3") from None
    if len(values) == 1:
        return values[0]
    config = _railx_config(system)
    if config is None:
        whose = "a built core system's" if isinstance(system, CoreSystem) else "a peer system's"
        raise ConfigError(f"chip = {text!r}: {whose} chips are given by id; e.g. 0")
    if len(values) != 4:
        raise ConfigError(f"chip = {text!r}: coordinates are four numbers X,Y,x,y; e.g. 1,2,0,3")
    spec = config.system
    p = spec.grid[0] if spec.grid is not None else spec.R // 2
    q = spec.grid[1] if spec.grid is not None else spec.R // 2
    x_node, y_node, x, y = values
    m = spec.m
    if not (0 <= x_node < p and 0 <= y_node < q and 0 <= x < m and 0 <= y < m):
        raise ConfigError(f"chip = {text!r}: outside the system; use 0 <= X < {p}, 0 <= Y < {q}, 0 <= x, y < {m}")
    return ((y_node * p + x_node) * m + y) * m + x


def route(
    system: SystemLike,
    src: int,
    dst: int,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
) -> dict[str, Any]:
    """The route from chip `src` to chip `dst` under `routing` (None: the family's default): hops
    `{Ho, Hi}` and the path hop by hop (RailX chips as coordinates, a peer's vertices as ids)."""
    return json.loads(core_of(system).route_json(src, dst, routing, misroutes, job))


def check_deadlock(
    system: SystemLike,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    samples: int = 100_000,
    seed: int = 0,
    vcs: int | None = None,
) -> dict[str, Any]:
    """Channel-dependency check: `acyclic`, `vcs_used`, `method` (exhaustive or structural) and a
    `cycle` when one is found. With `vcs`, the hardware's VC budget, a function needing more is
    refused."""
    return json.loads(core_of(system).deadlock_json(routing, misroutes, job, samples, seed, vcs))


def route_stats(
    system: SystemLike,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    samples: int = 1_000_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Hop statistics over all pairs, or over `samples` seeded pairs when there are more."""
    return json.loads(core_of(system).route_stats_json(routing, misroutes, job, samples, seed))


def link_load(
    system: SystemLike, routing: str | None = None, misroutes: int | None = None, job: str | None = None
) -> np.ndarray:
    """Per-link load under uniform all-to-all traffic, in units of one chip's injection rate,
    indexed like the system's `links()`."""
    return core_of(system).link_load(routing, misroutes, job)
