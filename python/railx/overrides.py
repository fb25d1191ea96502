"""`KEY=VALUE` overrides of a configuration's fields on the command line, as BookSim2 takes them:
`railx sim cfg.toml system.k=4 sim.load=0.3` sets `k` in `[system]` and `load` in `[sim]`.

A key is a dotted path of tables ending in a field (`topology.preset`, `peer.dims`); a value is
written as in TOML (`4`, `0.3`, `"hyperx"`, `[8, 8]`, `true`), and a bare word that is not TOML
(`hyperx`) is taken as a string. The overridden document is validated as the file would be, so an
unknown key or a bad value is the same one-line error naming the field.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomllib

from railx._core import ConfigError
from railx.messages import shown

__all__ = ["apply_overrides", "is_override", "parse_override", "systems_with_overrides"]

EXAMPLE = "e.g. system.k=4 or sim.load=0.3"


def parse_override(text: str) -> tuple[list[str], Any]:
    """`KEY=VALUE` as (the key's path of names, the value)."""
    key, sep, raw = text.partition("=")
    path = key.strip().split(".")
    if not sep or not all(part.strip() for part in path):
        raise ConfigError(f"{shown(text)}: an override is KEY=VALUE with a dotted key; {EXAMPLE}")
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # a bare word: a string, as `topology.preset=hyperx`
    return [part.strip() for part in path], value


def is_override(argument: str) -> bool:
    """Whether a command-line argument is a `KEY=VALUE` override rather than a system: it holds
    `=` and names no file (a preset name never holds one)."""
    return "=" in argument and not Path(argument).is_file()


def systems_with_overrides(arguments: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`SYSTEM [KEY=VALUE]... [SYSTEM [KEY=VALUE]...]...` (a command taking several systems) as
    (system, its overrides): each override sets a field of the system before it, so one file can
    be given twice with different fields (`ft2 ft2 peer.chips=1024`)."""
    out: list[tuple[str, list[str]]] = []
    for argument in arguments:
        if not is_override(argument):
            out.append((argument, []))
        elif not out:
            raise ConfigError(
                f"{argument!r}: an override follows the SYSTEM whose field it sets; e.g. ft2 peer.chips=1024"
            )
        else:
            out[-1][1].append(argument)
    return out


def apply_overrides(document: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of a configuration document with each `KEY=VALUE` of `overrides` set, in order.
    A key whose table is missing creates it (validation then names a table that is unknown);
    a key that crosses a value that is not a table is an error here."""
    out = copy.deepcopy(document)
    for text in overrides:
        path, value = parse_override(text)
        table = out
        for depth, name in enumerate(path[:-1]):
            inner = table.setdefault(name, {})
            if not isinstance(inner, dict):
                where = ".".join(path[: depth + 1])
                raise ConfigError(f"{shown(text)}: {where} is a value, not a table; {EXAMPLE}")
            table = inner
        table[path[-1]] = value
    return out
