"""The repository explains itself: its code, docs, tests and benchmarks cite only documents that
are in the repository (README.md, docs/) or papers by title and section, never a design file
kept elsewhere."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

# Spelled in two parts so that this file does not cite it either.
OUTSIDE_DOCUMENT = "DESIGN" + ".md"
SOURCES = ("crates", "python", "tests", "benchmarks", "docs", "examples")
TEXT_SUFFIXES = {".rs", ".py", ".pyi", ".md", ".toml", ".json", ".txt"}


def _text_files() -> list[Path]:
    files = [REPO / "README.md"]
    for top in SOURCES:
        files += [p for p in (REPO / top).rglob("*") if p.suffix in TEXT_SUFFIXES and p.is_file()]
    return files


def test_no_file_cites_a_document_outside_the_repository() -> None:
    files = _text_files()
    assert len(files) > 50  # the walk found the sources
    citing = [str(p.relative_to(REPO)) for p in files if OUTSIDE_DOCUMENT in p.read_text(errors="replace")]
    assert citing == []
