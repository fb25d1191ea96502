"""Reading LIBRA's YAML input files (network, cost model, communicator) with PyYAML."""

from __future__ import annotations

from pathlib import Path

import yaml

from railx.config import ConfigError, read_text
from railx.files import check_nesting, too_deep

__all__ = ["parse_yaml", "read_yaml"]


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases (``*name``): LIBRA's files use none, and aliases of
    aliases make a few lines expand into billions of values (the "billion laughs" file)."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("an alias (*name): railx reads YAML without anchors and aliases; write the value out")
        return super().compose_node(parent, index)


def read_yaml(path: str | Path) -> dict[str, object]:
    """The file's top-level mapping; a one-line error for an unreadable or malformed file."""
    return parse_yaml(read_text(path), str(path))


def parse_yaml(text: str, source: str) -> dict[str, object]:
    """A LIBRA YAML text's top-level mapping; errors name `source` (the file it came from)."""
    try:
        data = yaml.load(text, Loader=_NoAliasLoader)  # a safe loader, aliases refused
    except RecursionError:
        too_deep(source, "YAML")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc) or "malformed YAML"
        raise ConfigError(f"{where}: not valid YAML ({problem}); LIBRA files hold `Key: value` lines") from None
    check_nesting(data, source, "YAML")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected `Key: value` lines at the top level (a mapping)")
    return data
