"""Dotted paths into a sweep point's inputs: `options.size`, `system.k`, `topology.x.0.rails`.

A path's first part says which document it edits: `options` the analysis's options, `base` the
base system itself (a preset name or a file), anything else the base system's configuration
document (a RailX configuration's `system.k`, a peer's `peer.chips`, a workload system's
`training.micro_batches`). A numeric part indexes a list.
"""

from __future__ import annotations

import copy
from typing import Any

from railx.config import ConfigError
from railx.messages import shown

__all__ = ["BASE", "OPTIONS", "apply_overrides", "split_path"]

OPTIONS = "options"
BASE = "base"


def split_path(path: str, where: str) -> list[str | int]:
    """`"topology.x.0.rails"` -> `["topology", "x", 0, "rails"]`; a ConfigError naming `where` for
    an empty part."""
    parts = path.split(".")
    if not path or any(not p for p in parts):
        raise ConfigError(
            f"{where}: path {shown(path)} has an empty part; write dotted keys, e.g. system.k or options.size"
        )
    return [int(p) if p.isdigit() else p for p in parts]


def _set(document: Any, parts: list[str | int], value: Any, where: str, path: str) -> None:
    node = document
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                size = len(node) if isinstance(node, list) else 0
                raise ConfigError(
                    f"{where}: path {shown(path)}: index {part} is not in a list of {size} items; "
                    f"use an index below {size} or a key"
                )
        elif not isinstance(node, dict):
            raise ConfigError(f"{where}: path {shown(path)}: {shown(part)} is a key into a value that has none")
        if last:
            node[part] = copy.deepcopy(value)
            return
        if isinstance(part, str) and part not in node:
            node[part] = {}
        node = node[part]


def apply_overrides(document: dict[str, Any], overrides: dict[str, Any], axis_of: dict[str, str]) -> dict[str, Any]:
    """A deep copy of `document` with each `path -> value` of `overrides` set (paths already
    stripped of their `options.` prefix where relevant). `axis_of` names each path's axis for
    the error message."""
    out = copy.deepcopy(document)
    for path, value in overrides.items():
        where = axis_of.get(path, path)
        _set(out, split_path(path, where), value, where, path)
    return out
