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

from railx.config import ConfigError
from railx.messages import shown
from railx.progress import ProgressCallback
from railx.systems import SystemLike, core_of

__all__ = ["check_deadlock", "link_load", "parse_chip", "route", "route_stats", "routing_names"]


def routing_names(system: SystemLike) -> list[str]:
    """The routing functions the system offers, its default first."""
    return list(core_of(system).routing_names())


def parse_chip(system: SystemLike, text: str) -> int:
    """A chip given as its id (`17`) or, on a RailX system, its coordinates `X,Y,x,y`."""
    parts = text.replace(" ", "").split(",")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ConfigError(f"chip = {shown(text)}: give a chip id or coordinates X,Y,x,y; e.g. 0 or 1,2,0,3") from None
    if len(values) == 1:
        if values[0] < 0:
            raise ConfigError(f"chip = {shown(text)}: chip ids are >= 0; e.g. 0 (ids as in `railx network`)")
        return values[0]
    core = core_of(system)
    if core.family != "railx":
        raise ConfigError(f"chip = {shown(text)}: a peer system's chips are given by id; e.g. 0")
    if len(values) != 4 or min(values) < 0:
        raise ConfigError(f"chip = {shown(text)}: coordinates are four numbers X,Y,x,y >= 0; e.g. 1,2,0,3")
    return int(core.railx_chip(values))


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
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Channel-dependency check: `acyclic`, `vcs_used`, `method` (exhaustive or structural) and a
    `cycle` when one is found. With `vcs`, the hardware's VC budget, a function needing more is
    refused. `progress(done, total, unit)` hears the destinations walked (exhaustive) or routes
    checked (structural) at most 10 times a second; False stops it with railx.Cancelled."""
    return json.loads(core_of(system).deadlock_json(routing, misroutes, job, samples, seed, vcs, progress))


def route_stats(
    system: SystemLike,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    samples: int = 1_000_000,
    seed: int = 0,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Hop statistics over all pairs, or over `samples` seeded pairs when there are more;
    `progress` as in :func:`check_deadlock`, counting routes."""
    return json.loads(core_of(system).route_stats_json(routing, misroutes, job, samples, seed, progress))


def link_load(
    system: SystemLike, routing: str | None = None, misroutes: int | None = None, job: str | None = None
) -> np.ndarray:
    """Per-link load under uniform all-to-all traffic, in units of one chip's injection rate,
    indexed like the system's `links()`. Routes take the routing's first choice; each hop's load
    is split evenly over the parallel lanes offered with it (links joining the same two chips)."""
    return core_of(system).link_load(routing, misroutes, job)
