"""Reading LIBRA's YAML input files (network, cost model, communicator) with PyYAML."""

from __future__ import annotations

from pathlib import Path

import yaml

from railx.config import ConfigError, read_text

__all__ = ["parse_yaml", "read_yaml"]


def read_yaml(path: str | Path) -> dict[str, object]:
    """The file's top-level mapping; a one-line error for an unreadable or malformed file."""
    return parse_yaml(read_text(path), str(path))


def parse_yaml(text: str, source: str) -> dict[str, object]:
    """A LIBRA YAML text's top-level mapping; errors name `source` (the file it came from)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or "malformed YAML"
        raise ConfigError(f"{where}: not valid YAML ({problem}); LIBRA files hold `Key: value` lines") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected `Key: value` lines at the top level (a mapping)")
    return data
