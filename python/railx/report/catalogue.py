"""The reproductions catalogue (reproductions.toml): which published tables and figures the
report shows, the paper's claim for each, the shipped sweep specs that compute railx's side, and
the docs section that explains the differences."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tomllib

from railx.config import ConfigError
from railx.messages import shown

__all__ = ["CATALOGUE", "REPO", "Reproduction", "catalogue", "spec_path"]

CATALOGUE = Path(__file__).with_name("reproductions.toml")


def _checkout() -> Path:
    """The repository checkout the shipped specs and docs are read from: the one this package
    lives in (an editable install), else the working directory (a clone after `pip install .`,
    whose package lives in site-packages)."""
    for root in (Path(__file__).resolve().parents[3], Path.cwd()):
        if (root / "examples" / "sweeps").is_dir() and (root / "docs").is_dir():
            return root
    return Path.cwd()


#: The repository checkout: the shipped specs and docs are read from it.
REPO = _checkout()


@dataclass(frozen=True)
class Reproduction:
    """One published table or figure: its claim, the sweeps (spec names in examples/sweeps/)
    computing railx's side, and where its differences are explained."""

    id: str
    title: str
    paper: str
    claim: str
    specs: tuple[str, ...]
    doc: str
    section: str
    quick: bool

    @property
    def anchor(self) -> str:
        return f"repro-{self.id}"


@cache
def catalogue() -> tuple[Reproduction, ...]:
    """The catalogue's entries, in page order."""
    with CATALOGUE.open("rb") as f:
        entries = tomllib.load(f)["reproduction"]
    return tuple(
        Reproduction(
            id=e["id"],
            title=e["title"],
            paper=e["paper"],
            claim=" ".join(e["claim"].split()),
            specs=tuple(e["specs"]),
            doc=e["doc"],
            section=e["section"],
            quick=bool(e["quick"]),
        )
        for e in entries
    )


def spec_path(name: str) -> Path:
    """The shipped spec `examples/sweeps/<name>.toml` of the repository checkout."""
    path = REPO / "examples" / "sweeps" / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(
            f"spec = {shown(name)}: {path} not found; railx report reads the shipped specs from a repository "
            "checkout: run it from the clone's root (or give --store with the sweeps already run)"
        )
    return path
