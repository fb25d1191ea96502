"""Writing output files atomically: the one way railx writes a file.

Every file railx writes (OCS files, networks, plots, CSV and JSON, reports, exports) is first
written to a temporary file in the same folder (``.railx-tmp-<random>-<name>``, hidden, same
suffix so writers that infer the format from it still do), flushed to disk, and then renamed over
its final name. A rename within a folder is atomic, so a reader, a ``kill -9`` or a full disk
finds either the previous file intact or the complete new one, never a truncated file. A run
killed mid-write can leave its hidden temporary file behind; it is never read as output.

A failure to write (a full disk, a read-only folder) is one :class:`ConfigError` line naming the
file, and leaves the previous file as it was.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from railx._core import ConfigError
from railx.messages import shown

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "TEMPORARY_PREFIX",
    "atomic_path",
    "checked_path",
    "make_dir",
    "remove_stale",
    "save_figure",
    "write_bytes",
    "write_file_set",
    "write_text",
]

TEMPORARY_PREFIX = ".railx-tmp-"
"""How the name of a file being written starts (before it is renamed into place)."""


def checked_path(path: object, argument: str) -> Path:
    """`path` as a Path, if it is one (``str`` or ``os.PathLike``) and not empty; else one
    :class:`ConfigError` line naming the `argument`: a writer given ``None``, ``-1``, ``[]`` or
    ``''`` refuses rather than writing a file named ``None`` or into the current folder."""
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        text = os.fspath(path)
        if isinstance(text, str) and text.strip():
            return Path(text)
        if isinstance(text, str):
            raise ConfigError(f"{argument} = {shown(text)}: an empty path; give a file or folder path, e.g. 'out/'")
    raise ConfigError(
        f"{argument} = {shown(path, 40)} ({type(path).__name__}): not a path; give a str or os.PathLike, e.g. 'out/'"
    )


@contextmanager
def atomic_path(path: str | Path, label: str | None = None) -> Iterator[Path]:
    """A temporary path beside `path` for the body to write; once the body returns, the file is
    flushed to disk and renamed over `path`. If the body or the rename fails, the temporary file
    is removed and `path` is left as it was; an OSError becomes one line naming `label` (default:
    the path). A `path` that is not one (None, -1, '') is refused as :func:`checked_path` does."""
    path = checked_path(path, label or "path")
    temporary = path.with_name(f"{TEMPORARY_PREFIX}{secrets.token_hex(6)}-{path.name}")
    try:
        yield temporary
        _flush_to_disk(temporary)
        os.replace(temporary, path)
    except OSError as exc:
        # The reason only: an OSError raised with a message alone (the core's) starts with the path.
        reason = exc.strerror or str(exc).replace(f"{temporary}: ", "")
        raise ConfigError(
            f"{label or path}: cannot write the file ({reason}); any previous file is unchanged"
        ) from None
    finally:
        temporary.unlink(missing_ok=True)


def _flush_to_disk(path: Path) -> None:
    """Forces a written file's data to disk, so the rename never exposes a file whose data is lost
    with the machine."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: str | Path, data: bytes, label: str | None = None) -> Path:
    """Writes `data` to `path` atomically (:func:`atomic_path`); returns the path."""
    with atomic_path(path, label) as temporary, open(temporary, "xb") as out:
        out.write(data)
    return Path(path)


def write_text(path: str | Path, text: str, label: str | None = None) -> Path:
    """Writes `text` (UTF-8) to `path` atomically (:func:`atomic_path`); returns the path."""
    return write_bytes(path, text.encode("utf-8"), label)


def write_file_set(folder: Path, files: Sequence[tuple[str, str]], owned: str) -> tuple[list[Path], list[Path]]:
    """Writes each `(name, text)` of `files` into `folder` atomically, then removes the folder's
    other files whose names match `owned` (:func:`remove_stale`). Returns the paths written and
    the paths removed."""
    written = [write_text(folder / name, text) for name, text in files]
    return written, remove_stale(folder, written, (owned,))


def remove_stale(folder: Path, written: Collection[Path], owned: Sequence[str]) -> list[Path]:
    """Removes the files of `folder` whose names match one of the `owned` globs (names only
    railx writes there, e.g. ``*.ocs.json``) and that are not among `written`: an earlier run's
    outputs that this run did not rewrite, which would otherwise pass for part of its output.
    Returns the paths removed; one line naming a file that cannot be removed."""
    keep = {Path(p).name for p in written}
    stale = sorted({p for glob in owned for p in folder.glob(glob) if p.name not in keep and p.is_file()})
    for path in stale:
        try:
            path.unlink()
        except OSError as exc:
            raise ConfigError(
                f"{path}: cannot remove an earlier run's file ({exc.strerror}); remove it by hand"
            ) from None
    return stale


def save_figure(figure: Figure, path: str | Path, **savefig: Any) -> Path:
    """Saves a matplotlib `figure` to `path` atomically (the format from the suffix, as
    ``savefig`` infers it; `savefig` passes its other options); returns the path."""
    with atomic_path(path) as temporary:
        figure.savefig(temporary, **savefig)
    return Path(path)


def make_dir(path: str | Path, label: str | None = None) -> Path:
    """Creates folder `path` (and its parents) if missing; one line naming `label` (default: the
    path) when a file stands where the folder or one of its parents belongs, or `path` is not a
    path (:func:`checked_path`)."""
    path = checked_path(path, label or "folder")
    for part in (path, *path.parents):
        if part.exists() and not part.is_dir():
            raise ConfigError(f"{label or path}: {part} is a file, not a folder; give a folder path") from None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{label or path}: cannot create the folder ({exc.strerror})") from None
    return path
