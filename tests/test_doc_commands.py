"""Every command the docs show runs as written (issue 24, item 3).

Each ```sh block of README.md and docs/*.md is one test: its commands run in order, in a fresh
copy of the repository's `examples/`, `benchmarks/` and `docs/` (the working directory of a fresh
clone, so a command's outputs never land in the checkout), and each must exit 0. A command the
docs cannot run as written here says so just above its block, in an HTML comment a reader sees
in the source (CONTRIBUTING.md, Commands in the docs):

    <!-- test: PREFIX ++ ARGS -->          the block's commands starting with PREFIX run with ARGS
                                           appended (a short variant of a slow run)
    <!-- test: PREFIX => COMMAND -->       they are replaced by COMMAND
    <!-- test: PREFIX => skip: REASON -->  they are not run, for REASON

PREFIX is the start of the command as written, its `# comment` left out.

A directive that matches no command of its block fails the test, so the two cannot drift apart.
`railx ...` and `python3 benchmarks/...` commands run in this process (one interpreter start for
all of them); anything else runs in bash with `railx` on the PATH.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.conftest import REPO, run_railx

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
COPIED = ("examples", "benchmarks", "docs")  # what a command may read or write, copied per block
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
DIRECTIVE = re.compile(r"<!-- test: (.*?) -->", re.DOTALL)


@dataclass
class Block:
    """One ```sh block: where it is, its commands and the directives written just above it."""

    doc: Path
    line: int
    commands: list[str]
    directives: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"


def commands_of(text: str) -> list[str]:
    """The block's commands: continuation lines joined, blank and comment-only lines dropped."""
    joined = re.sub(r"\\\n\s*", "", text)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def blocks_of(doc: Path) -> list[Block]:
    text = doc.read_text()
    blocks, previous_end = [], 0
    for match in BLOCK.finditer(text):
        above = text[previous_end : match.start()]
        # Directives belong to the block they stand right above: only blank lines between.
        tail = re.search(r"((?:<!-- test: .*? -->\s*)+)$", above, re.DOTALL)
        directives = DIRECTIVE.findall(tail.group(1)) if tail else []
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(doc, line, commands_of(match.group(1)), [" ".join(d.split()) for d in directives]))
        previous_end = match.end()
    return blocks


ALL_BLOCKS = [block for doc in DOCS for block in blocks_of(doc)]


def words(command: str) -> list[str]:
    """The command's words, its trailing `# comment` dropped (shell quoting respected)."""
    return shlex.split(command, comments=True)


def plan(block: Block) -> list[tuple[list[str], str | None]]:
    """Each command of the block as it will run (its words, directives applied) or, when skipped,
    the reason."""
    planned: list[tuple[list[str], str | None]] = [(words(command), None) for command in block.commands]
    for directive in block.directives:
        prefix, sep, rest = directive.partition(" ++ ")
        if not sep:
            prefix, sep, rest = directive.partition(" => ")
        assert sep, (
            f"{block.id}: directive {directive!r} is none of 'PREFIX ++ ARGS', 'PREFIX => COMMAND', 'PREFIX => skip: REASON'"
        )
        matched = [i for i, (argv, _) in enumerate(planned) if " ".join(argv).startswith(prefix)]
        assert matched, f"{block.id}: directive {directive!r} matches no command of its block"
        for i in matched:
            argv, _ = planned[i]
            if sep == " ++ ":
                redirect = argv.index(">") if ">" in argv else len(argv)
                planned[i] = ([*argv[:redirect], *shlex.split(rest), *argv[redirect:]], None)
            elif rest.startswith("skip: "):
                planned[i] = (argv, rest.removeprefix("skip: "))
            else:
                planned[i] = (words(rest), None)
    return planned


def run_benchmark(argv: list[str], cwd: Path) -> tuple[int, str]:
    """`python3 benchmarks/NAME.py ARGS` in this process, as its own `__main__`."""
    script = cwd / argv[1]
    saved_argv, saved_cwd, saved_path = sys.argv, os.getcwd(), list(sys.path)
    stdout, stderr = io.StringIO(), io.StringIO()
    rc = 0
    try:
        os.chdir(cwd)
        sys.argv = [str(script), *argv[2:]]
        sys.path.insert(0, str(script.parent))
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                runpy.run_path(str(script), run_name="__main__")
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
    return rc, stderr.getvalue()


def run_shell(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Anything else in bash, with a `railx` on the PATH that runs this checkout's package."""
    bin_dir = cwd / ".bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        shim = bin_dir / "railx"
        shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m railx.cli "$@"\n')
        shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(REPO / "python"))
    proc = subprocess.run(["bash", "-c", shlex.join(argv)], cwd=cwd, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stderr


def run(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Runs one command in `cwd`; a `> FILE` at its end sends its stdout there."""
    target = None
    if ">" in argv:
        at = argv.index(">")
        argv, target = argv[:at], cwd / argv[at + 1]
    if argv[0] == "railx":
        result = run_railx(*argv[1:], cwd=cwd)
        rc, out, err = result.rc, result.stdout, result.stderr
    elif argv[:2] == ["python3", argv[1]] and argv[1].startswith("benchmarks/"):
        rc, err = run_benchmark(argv, cwd)
        out = ""
    else:
        rc, err = run_shell(argv, cwd)
        out = ""
    if target is not None:
        target.write_text(out)
    return rc, err


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    for name in COPIED:
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_docs_have_command_blocks() -> None:
    assert len(ALL_BLOCKS) >= 15
    assert all(block.commands for block in ALL_BLOCKS)


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[block.id for block in ALL_BLOCKS])
def test_doc_commands_run(block: Block, clone: Path) -> None:
    failures = []
    for argv, skip in plan(block):
        if skip is not None:
            print(f"skipped {shlex.join(argv)}: {skip}")
            continue
        wall_s, cpu_s = time.perf_counter(), time.process_time()
        rc, err = run(argv, clone)
        # Seen with `pytest -s`: which commands the test's time goes to (CPU: this process only).
        print(
            f"{time.perf_counter() - wall_s:7.1f} s wall {time.process_time() - cpu_s:7.1f} s CPU  {shlex.join(argv)}"
        )
        if rc != 0:
            failures.append(f"{shlex.join(argv)}\n  exit {rc}: {err.strip()[-2000:]}")
    assert not failures, f"{block.id}:\n" + "\n".join(failures)
