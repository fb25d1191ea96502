"""Shared fixtures: where the repository's examples are, and how to run the `railx` command; and the
hypothesis profiles: `ci` (derandomized, so every CI run draws the same examples; chosen when the
CI environment variable is set) and `dev` (random exploration, new examples every run; the default
elsewhere; `HYPOTHESIS_PROFILE=ci` or `dev` chooses one explicitly)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@dataclass(frozen=True)
class CliResult:
    rc: int
    stdout: str
    stderr: str


def run_railx(*args: str | os.PathLike[str], cwd: Path = REPO) -> CliResult:
    """Runs the CLI's entry point (`railx.cli.main`) in this process, as `railx ARGS...` would in
    `cwd`: argument parsing, exit status and stdout/stderr included, without a new interpreter
    each time."""
    from railx import cli

    argv = ["railx", *map(str, args)]
    stdout, stderr = io.StringIO(), io.StringIO()
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    sys.argv = argv
    rc = 0
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                cli.main()
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
    return CliResult(rc, stdout.getvalue(), stderr.getvalue())


def all_commands() -> dict[str, Any]:
    """Every leaf command of `railx` (a click command) by its path (`ocs synth`, `results query`),
    every module loaded."""
    import typer._click as click
    from typer.main import get_command

    from railx.cli import app

    group = get_command(app)
    out: dict[str, Any] = {}
    with click.Context(group, info_name="railx") as ctx:

        def walk(command: Any, path: str, parent: Any) -> None:
            if hasattr(command, "list_commands"):  # a group (typer vendors click without Group)
                with click.Context(command, info_name=path, parent=parent) as sub:
                    for name in command.list_commands(sub):
                        walk(command.get_command(sub, name), f"{path} {name}".strip(), sub)
            else:
                out[path] = command

        for name in group.list_commands(ctx):
            walk(group.get_command(ctx, name), name, ctx)
    return out


def run_railx_process(*args: str | os.PathLike[str], console_script: bool = False) -> CliResult:
    """Runs the CLI in a fresh process (`python -m railx.cli ...`, or the `railx` console script)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb")
    head = ["railx"] if console_script else [sys.executable, "-m", "railx.cli"]
    proc = subprocess.run([*head, *map(str, args)], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="session")
def examples() -> Path:
    return EXAMPLES


def fig15_torus(tmp_path: Path, m: int, p: int) -> str:
    """A TOML file of a p x p torus of m x m meshes with the paper's Fig. 15 link parameters."""
    from railx.collectives.params import fig15_torus_toml

    path = tmp_path / f"fig15-torus-m{m}-p{p}.toml"
    path.write_text(fig15_torus_toml(m, p))
    return str(path)
