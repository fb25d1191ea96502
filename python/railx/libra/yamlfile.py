"""Reading LIBRA's YAML input files (network, cost model, communicator) with PyYAML."""

from __future__ import annotations

from pathlib import Path

import yaml

from railx.config import ConfigError, read_text

__all__ = ["read_yaml"]


def read_yaml(path: str | Path) -> dict[str, object]:
    """The file's top-level mapping; a one-line error for an unreadable or malformed file."""
    path = Path(path)
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or "malformed YAML"
        raise ConfigError(f"{where}: not valid YAML ({problem}); LIBRA files hold `Key: value` lines") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected `Key: value` lines at the top level (a mapping)")
    return data
