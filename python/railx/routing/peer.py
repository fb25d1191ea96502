"""Routing on the peer systems (fat-tree, Rail-only, HammingMesh, 3D torus, HyperX, Dragonfly):
routes, deadlock checks and route statistics of the routing functions the Rust core offers for
each family (`railx_core::routing::peer`). Chips are numbered `0..chips-1` as the peer's builder
lays them out; switches follow them."""

from __future__ import annotations

import json
from typing import Any

from railx._core import RailxError, peer_deadlock_json, peer_route_json, peer_route_stats_json, peer_routing_names
from railx.config import ConfigError
from railx.systems import System

__all__ = ["routing_names", "peer_route", "peer_check_deadlock", "peer_route_stats"]


def _spec(system: System) -> str:
    if system.peer is None:
        raise ConfigError(
            f"system = {system.name!r}: a RailX system is routed with railx.routing on its realized network"
        )
    return json.dumps(system.peer)


def _call(system: System, fn: Any, *args: Any) -> dict[str, Any]:
    try:
        return json.loads(fn(_spec(system), *args))
    except RailxError as exc:
        raise ConfigError(f"{system.name}: {exc}") from None


def routing_names(system: System) -> list[str]:
    """The routing functions the system's family offers, its default first."""
    try:
        return list(peer_routing_names(_spec(system)))
    except RailxError as exc:
        raise ConfigError(f"{system.name}: {exc}") from None


def peer_route(system: System, src: int, dst: int, routing: str | None = None) -> dict[str, Any]:
    """The route from chip `src` to chip `dst`: hops `{Ho, Hi}` (switch or cable hops, on-board
    or HB-domain hops) and the path hop by hop (`from`/`to` vertex ids, switches after chips)."""
    return _call(system, peer_route_json, src, dst, routing)


def peer_check_deadlock(
    system: System, routing: str | None = None, samples: int = 100_000, seed: int = 0, vcs: int | None = None
) -> dict[str, Any]:
    """Channel-dependency check: `acyclic`, `vcs_used`, `method` (exhaustive up to ~12K chips,
    else structural on `samples` seeded routes) and a `cycle` when one is found. With `vcs`, a
    function needing more VCs is refused."""
    return _call(system, peer_deadlock_json, routing, samples, seed, vcs)


def peer_route_stats(
    system: System, routing: str | None = None, samples: int = 1_000_000, seed: int = 0
) -> dict[str, Any]:
    """Hop statistics over all pairs, or over `samples` seeded pairs when there are more."""
    return _call(system, peer_route_stats_json, routing, samples, seed)
