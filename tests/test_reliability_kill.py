"""Outputs are atomic (python/railx/atomic.py, docs/architecture.md): `railx ocs` and `railx
network`, SIGKILLed at random (seeded) moments, leave either the previous file intact or the
complete new one, never a truncated file.

The written files are large (2.5 MB of OCS tables, 12 MB of network) so that writing takes a
while. A first, whole run shows when the write starts and how long it lasts. Half the kills come
at a random moment of the whole run (up to a little after the write), half at a random moment
from the write's start (seen as its temporary file appearing) to a little after its end, since
on a loaded machine when the write starts varies by more than a write of a few megabytes lasts.
That kills land mid-write is checked: a kill mid-write leaves the hidden temporary file behind.
The runs are forked from one process that imported railx once (tests/fork_runner.py), which
keeps 60 killed runs within about 30 s.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from railx.atomic import TEMPORARY_PREFIX

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the runs it kills")

ATTEMPTS = 30  # kills per command
SEED = 25

# The old file comes from a small plant, the new one from a large one: different bytes.
OLD_PLANT = "m = 2\nn = 1\nR = 16\n"
PLANTS = {"ocs": "m = 1\nn = 8\nR = 256\n", "network": "m = 2\nn = 2\nR = 128\n"}


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
        self, case: Case, cwd: Path, kill_after_s: float | None = None, after_writing: bool = False
    ) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {
            "argv": case.argv,
            "cwd": str(cwd),
            "kill_after_s": kill_after_s,
            "from": "writing" if after_writing else "start",
            "watch": case.target,
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


@pytest.mark.parametrize("command", ["ocs", "network"])
def test_a_killed_write_leaves_the_old_file_or_the_new_one(command: str, runner: Runner, tmp_path: Path) -> None:
    (tmp_path / "old.toml").write_text(_config(OLD_PLANT))
    (tmp_path / "new.toml").write_text(_config(PLANTS[command]))
    old_case, new_case = _case(command, "old.toml"), _case(command, "new.toml")
    target = tmp_path / new_case.target

    # The old file, then the complete new one and when, in a run, it is written.
    assert runner.run(old_case, tmp_path)["status"] == 0
    old = target.read_bytes()
    full = runner.run(new_case, tmp_path)
    assert full["status"] == 0 and full["replaced_s"] is not None, full
    new = target.read_bytes()
    done_s = full["replaced_s"]
    start_s = full["writing_s"] if full["writing_s"] is not None else done_s
    write_s = max(done_s - start_s, 0.01)
    assert old != new and len(new) > 2_000_000, len(new)

    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    for attempt in range(ATTEMPTS):
        target.write_bytes(old)
        after_writing = attempt % 2 == 1
        kill_after_s = rng.uniform(0.0, 1.5 * write_s if after_writing else done_s + write_s)
        answer = runner.run(new_case, tmp_path, kill_after_s, after_writing)
        found = target.read_bytes()
        state = "old" if found == old else "new" if found == new else f"other ({len(found):,} bytes)"
        assert state in ("old", "new"), f"attempt left a {state} file, neither the old nor the new one"
        left = list(target.parent.glob(f"{TEMPORARY_PREFIX}*"))
        for path in left:
            path.unlink()
        when = "mid-write" if left else "killed" if answer["killed"] else "finished"
        outcomes[f"{when}: {state}"] += 1
    window = f"{start_s:.3f} s to {done_s:.3f} s"
    print(f"\n{command}: {ATTEMPTS} SIGKILLs around the write ({window}): {dict(sorted(outcomes.items()))}")
    # The kills reached the write: some left the temporary file, and the old file stood.
    assert outcomes["mid-write: old"] >= ATTEMPTS // 10, outcomes
    assert outcomes["mid-write: new"] == 0, outcomes  # a rename ends the write: nothing left behind
    assert outcomes["killed: new"] + outcomes["finished: new"] >= 1, outcomes
