"""Outputs are atomic (python/railx/atomic.py, docs/architecture.md): `railx ocs` and `railx
network`, SIGKILLed mid-write, leave either the previous file intact or the complete new one,
never a truncated file; the same kills of a control that writes in place do truncate it, so the
test can see the failure it guards against.

The written files are large (2.5 MB of OCS tables, 4 MB of network) so that writing takes a
while. A first, whole run shows how long the write lasts. The kills are chosen rather than
random: at fixed fractions of the write's length counted from its start (seen as its temporary
file appearing, or the file itself changing when written in place), since on a loaded machine
when the write starts varies by more than a write of a few megabytes lasts; plus one kill before
the write starts and one after it would end. That kills land mid-write is checked: a kill
mid-write leaves the hidden temporary file behind. The runs are forked from one process that
imported railx once (tests/fork_runner.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from railx.atomic import TEMPORARY_PREFIX

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the runs it kills")

# When the kills come, as fractions of the write's length from its start: mostly inside it.
MID_WRITE = (0.02, 0.1, 0.2, 0.35, 0.5, 0.7)
# One kill early in the run, before anything is written; one after the write would end.
AROUND_WRITE = (("start", 0.01), ("writing", 3.0))

# The old file comes from a small plant, the new one from a large one: different bytes.
OLD_PLANT = "m = 2\nn = 1\nR = 16\n"
PLANTS = {"ocs": "m = 1\nn = 8\nR = 256\n", "network": "m = 2\nn = 2\nR = 64\n"}


@dataclass(frozen=True)
class Case:
    """A command writing `target` (relative to the run's folder), run on `config`."""

    argv: list[str]
    target: str


def _config(plant: str) -> str:
    return f'[system]\n{plant}\n[topology]\npreset = "torus"\n'


def _case(command: str, config: str) -> Case:
    if command == "ocs":
        return Case(["ocs", config, "--out", "out", "--json"], "out/system.ocs.json")
    return Case(["network", config, "--out", "net.json", "--json"], "net.json")


class Runner:
    """The fork server: `run(argv, cwd, kill_after_s)` -> its answer."""

    def __init__(self) -> None:
        script = Path(__file__).with_name("fork_runner.py")
        self.process = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb"),
        )
        assert self.process.stdout is not None and json.loads(self.process.stdout.readline())["ready"]

    def run(
        self,
        case: Case,
        cwd: Path,
        kill_after_s: float | None = None,
        after_writing: bool = False,
        in_place: bool = False,
    ) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {
            "argv": case.argv,
            "cwd": str(cwd),
            "kill_after_s": kill_after_s,
            "from": "writing" if after_writing else "start",
            "watch": case.target,
            "in_place": in_place,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return dict(json.loads(self.process.stdout.readline()))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture(scope="module")
def runner() -> Any:
    server = Runner()
    yield server
    server.close()


def _kill_moments(write_s: float) -> list[tuple[str, float]]:
    """(count from, seconds) of every kill of a write lasting `write_s`."""
    return [("writing", f * write_s) for f in MID_WRITE] + [
        (f, s * (write_s if f == "writing" else 1)) for f, s in AROUND_WRITE
    ]


def _kill_during_writes(
    runner: Runner, case: Case, cwd: Path, old: bytes, new: bytes, write_s: float, in_place: bool = False
) -> Counter[str]:
    """Kills `case` at each moment of `_kill_moments`, the old file in place before each run:
    how many runs left the old file, the new one or another ("truncated"), and whether the kill
    came mid-write (its temporary file left behind), after the run's end, or before that."""
    target = cwd / case.target
    outcomes: Counter[str] = Counter()
    for since, kill_after_s in _kill_moments(write_s):
        target.write_bytes(old)
        answer = runner.run(case, cwd, kill_after_s, since == "writing", in_place)
        found = target.read_bytes()
        state = "old" if found == old else "new" if found == new else "truncated"
        left = list(target.parent.glob(f"{TEMPORARY_PREFIX}*"))
        for path in left:
            path.unlink()
        when = "mid-write" if left else "killed" if answer["killed"] else "finished"
        outcomes[f"{when}: {state}"] += 1
    return outcomes


def _old_and_new(runner: Runner, command: str, cwd: Path) -> tuple[Case, bytes, bytes, float]:
    """The case writing the new file, the old file's and the new file's bytes, and how long the
    new file's write lasts (from a whole run)."""
    (cwd / "old.toml").write_text(_config(OLD_PLANT))
    (cwd / "new.toml").write_text(_config(PLANTS[command]))
    old_case, new_case = _case(command, "old.toml"), _case(command, "new.toml")
    target = cwd / new_case.target
    assert runner.run(old_case, cwd)["status"] == 0
    old = target.read_bytes()
    full = runner.run(new_case, cwd)
    assert full["status"] == 0 and full["replaced_s"] is not None, full
    new = target.read_bytes()
    start_s = full["writing_s"] if full["writing_s"] is not None else full["replaced_s"]
    assert old != new and len(new) > 2_000_000, len(new)
    return new_case, old, new, max(full["replaced_s"] - start_s, 0.005)


@pytest.mark.parametrize("command", ["ocs", "network"])
def test_a_killed_write_leaves_the_old_file_or_the_new_one(command: str, runner: Runner, tmp_path: Path) -> None:
    case, old, new, write_s = _old_and_new(runner, command, tmp_path)
    outcomes = _kill_during_writes(runner, case, tmp_path, old, new, write_s)
    print(f"\n{command}: SIGKILLs over a write of {write_s * 1e3:.1f} ms: {dict(sorted(outcomes.items()))}")
    assert not any(k.endswith("truncated") for k in outcomes), f"a kill left a truncated file: {outcomes}"
    # The kills reached the write: some left the temporary file, and the old file stood.
    assert outcomes["mid-write: old"] >= 2, outcomes
    assert outcomes["mid-write: new"] == 0, outcomes  # a rename ends the write: nothing left behind


def test_the_same_kills_truncate_a_file_written_in_place(runner: Runner, tmp_path: Path) -> None:
    """The control: railx network with its atomic write replaced by a write in place."""
    case, old, new, write_s = _old_and_new(runner, "network", tmp_path)
    outcomes = _kill_during_writes(runner, case, tmp_path, old, new, write_s, in_place=True)
    print(f"\nnetwork written in place: SIGKILLs over a write of {write_s * 1e3:.1f} ms: {dict(outcomes)}")
    assert outcomes["killed: truncated"] >= 2, outcomes
