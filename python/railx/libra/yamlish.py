"""A reader for the small YAML subset LIBRA's input files use: `#` comments, `Key: value`,
`Key: [ a, b, c ]` (flow lists of scalars) and one level of nesting by indentation. Anything else
is refused with the file and line, so a file that needs a full YAML parser says so."""

from __future__ import annotations

from pathlib import Path

from railx.config import ConfigError

__all__ = ["Scalar", "read_yamlish"]

Scalar = int | float | str


def _scalar(text: str) -> Scalar:
    text = text.strip().strip("'\"")
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def _value(text: str, where: str) -> Scalar | list[Scalar]:
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise ConfigError(f"{where}: a list must close on the same line, e.g. Key: [ 4, 8, 32 ]")
        inner = text[1:-1].strip()
        return [_scalar(item) for item in inner.split(",")] if inner else []
    return _scalar(text)


def read_yamlish(path: str | Path) -> dict[str, object]:
    """Parses the file into nested dicts of scalars and lists."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror})") from None
    root: dict[str, object] = {}
    section: dict[str, object] | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        where = f"{path}:{number}"
        key, sep, rest = line.strip().partition(":")
        if not sep or not key:
            raise ConfigError(f"{where}: expected `Key: value`, got {raw.strip()!r}")
        nested = line[0] in " \t"
        if nested and section is None:
            raise ConfigError(f"{where}: indented key {key!r} has no parent key above it")
        target = section if nested else root
        if key in target:  # type: ignore[operator]
            raise ConfigError(f"{where}: key {key!r} appears twice")
        if rest.strip():
            target[key] = _value(rest, where)  # type: ignore[index]
            if not nested:
                section = None
        elif nested:
            raise ConfigError(f"{where}: only one level of nesting is supported (key {key!r})")
        else:
            section = {}
            root[key] = section
    return root
