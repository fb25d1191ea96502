"""Options that name a file (docs/sweeps.md, File options).

A cluster's workers need not share the client's filesystem, so a file an option names is read
once, on the client, when the spec is loaded: the option's resolved value becomes the file's name
and text (`{"file": "GPT_3.txt", "text": "..."}`), which travel to the worker with the point and
are covered by its content hash (editing a file computes its points again; moving it does not).
The worker parses the text, never a path. Each analysis declares which of its options are files
(`Analysis.files`); a value the option takes inline (a LIBRA network notation, `jobs = "all"`)
stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from railx.config import ConfigError, read_text
from railx.messages import shown

__all__ = ["FileOption", "file_text", "resolve_files"]


def _never(_value: Any) -> bool:
    return False


@dataclass(frozen=True)
class FileOption:
    """An option naming a file (a list of files when the option's default is a list): `what` the
    file is, with its article ("a LIBRA cost-model YAML file"), and an example for messages, `required` whether the option must be given, and
    `inline` which values are data rather than a file name (described by `inline_help`)."""

    what: str
    example: str
    required: bool = False
    inline: Callable[[Any], bool] = field(default=_never)
    inline_help: str = ""


def file_text(value: dict[str, str]) -> tuple[str, str]:
    """A resolved file option's (file name, text): what railx's parsers take as (source, text)."""
    return value["file"], value["text"]


def _read(value: Any, name: str, option: FileOption, spec_dir: Path, where: str, cache: dict[Path, str]) -> Any:
    if option.inline(value):
        return value
    alternative = f" or {option.inline_help}" if option.inline_help else ""
    if not isinstance(value, str) or not value:
        raise ConfigError(
            f"{where}: options.{name} = {shown(value)}: give {option.what}{alternative}; e.g. {option.example}"
        )
    path = next((p for p in (spec_dir / value, Path(value)) if p.is_file()), None)
    if path is None:
        raise ConfigError(
            f"{where}: options.{name} = {shown(value)}: no such file beside the spec or in the working directory; "
            f"give {option.what}{alternative}; e.g. {option.example}"
        )
    key = path.resolve()
    if key not in cache:
        cache[key] = read_text(path, f"{where}: options.{name} = {shown(value)}")
    return {"file": path.name, "text": cache[key]}


def resolve_files(
    files: dict[str, FileOption],
    options: dict[str, Any],
    spec_dir: Path,
    axis_of: dict[str, str],
    cache: dict[Path, str],
) -> dict[str, Any]:
    """`options` with each file option's files read (relative paths beside the spec first, then
    from the working directory; `cache` shares reads between a spec's points); a one-line
    ConfigError naming the axis (or `options`) and the option for a file that cannot be read or
    a required option not given."""
    out = dict(options)
    for name, option in files.items():
        value = options.get(name)
        where = axis_of.get(f"options.{name}", "options")
        if value is None or (value == [] and not option.inline(value)):
            if option.required:
                alternative = f" or {option.inline_help}" if option.inline_help else ""
                raise ConfigError(
                    f"{where}: options.{name} is required: give {option.what}{alternative}; e.g. {option.example}"
                )
            continue
        if isinstance(value, list) and not option.inline(value):
            out[name] = [_read(v, name, option, spec_dir, where, cache) for v in value]
        else:
            out[name] = _read(value, name, option, spec_dir, where, cache)
    return out
