"""Reading input files safely: the one way railx reads a file a user gives it.

Every file input (configurations, OCS files, LIBRA inputs, price catalogs, jobs and failed-node
files, sweep specs, workload models) is read by :func:`read_text`, so each of them has the same
guards, and each failure is one :class:`ConfigError` line naming the file:

- a size limit, :data:`MAX_INPUT_BYTES` (64 MiB): a regular file over it is refused from its size
  before a byte is read, and any other file (``/dev/zero``, a FIFO) is read with that bound, so
  no input can make railx read until memory runs out;
- UTF-8 text only (a binary file given where a text file belongs is refused);
- nesting: a TOML or JSON document nested deeper than :data:`MAX_NESTING` levels of arrays and
  tables is refused (:func:`parse_toml`, :func:`parse_json`), so neither the parser nor what
  walks its result recurses without bound.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, NoReturn

import tomllib

from railx._core import ConfigError

__all__ = [
    "MAX_INPUT_BYTES",
    "MAX_NESTING",
    "check_nesting",
    "parse_json",
    "parse_toml",
    "read_bytes",
    "read_text",
    "read_toml",
    "too_deep",
]

MAX_INPUT_BYTES = 64 * 2**20
"""The largest input file railx reads (64 MiB): a configuration is a few kilobytes, the OCS files
of a 200,000-chip system a few megabytes."""

MAX_NESTING = 64
"""The deepest nesting of arrays and tables (TOML) or arrays and objects (JSON) railx reads; its
own formats nest at most 5 levels."""

# What a text file of each suffix holds, for the hint when a file is not text at all.
_TEXT_KINDS = {".toml": "a TOML file", ".json": "a JSON file", ".yaml": "a YAML file", ".yml": "a YAML file"}


def read_bytes(path: str | Path, label: str | None = None, limit_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """A file's bytes, at most `limit_bytes` of them; one line naming `label` (default: the path)
    when it cannot be read or is larger. A regular file is refused from its size before reading;
    a special file (``/dev/zero``, a FIFO) is read with the bound."""
    where = label or str(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno())
            if stat.S_ISREG(size.st_mode) and size.st_size > limit_bytes:
                _too_large(where, limit_bytes, f"{size.st_size:,} bytes")
            data = f.read(limit_bytes + 1)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read the file ({exc.strerror or exc})") from None
    if len(data) > limit_bytes:
        _too_large(where, limit_bytes, f"a {limit_bytes / 2**20:g} MiB read did not reach its end")
    return data


def _too_large(where: str, limit_bytes: int, size: str) -> NoReturn:
    raise ConfigError(
        f"{where}: over the {limit_bytes / 2**20:g} MiB limit for an input file ({size}); "
        "railx's inputs are far smaller, so check the path"
    )


def read_text(path: str | Path, label: str | None = None) -> str:
    """A file's text (:func:`read_bytes`' bound); one line naming `label` (default: the path) when
    it cannot be read, is too large or is not UTF-8 text (a binary file where text belongs)."""
    data = read_bytes(path, label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = _TEXT_KINDS.get(Path(path).suffix.lower(), "a text file")
        raise ConfigError(
            f"{label or path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); give {kind} instead"
        ) from None


def read_toml(path: str | Path, label: str | None = None) -> dict[str, Any]:
    """A TOML file's data; one line naming `label` (default: the path) when it cannot be read or
    parsed, or nests too deeply."""
    return parse_toml(read_text(path, label), label or str(path))


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text's data; one line naming `source` when it is not valid TOML or nests deeper than
    :data:`MAX_NESTING` levels."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        too_deep(source, "TOML")
    check_nesting(data, source, "TOML")
    return data


def parse_json(text: str, source: str, example: str = "") -> Any:
    """JSON text's data; one line naming `source` (and `example`, a valid document) when it is
    not valid JSON or nests deeper than :data:`MAX_NESTING` levels."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = f"; expected e.g. {example}" if example else ""
        raise ConfigError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}){hint}") from None
    except RecursionError:
        too_deep(source, "JSON")
    check_nesting(data, source, "JSON")
    return data


def check_nesting(data: Any, source: str, kind: str) -> None:
    """Refuses parsed `data` nested deeper than :data:`MAX_NESTING` (one line naming `source`
    and the `kind` of text), walking it without recursion."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            too_deep(source, kind)
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def too_deep(source: str, kind: str) -> NoReturn:
    """The one-line refusal of a `kind` document (TOML, JSON, YAML) nested too deeply."""
    raise ConfigError(
        f"{source}: {kind} nested deeper than {MAX_NESTING} levels of arrays and tables; "
        "railx's files nest a few levels, so flatten it"
    )
