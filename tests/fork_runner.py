"""Runs `railx` commands in forked children of one process that has imported railx once, and
SIGKILLs them after a given delay: hundreds of real `railx` runs killed at chosen moments, at the
cost of one import (tests/test_reliability_kill.py).

One JSON request per stdin line, ``{"argv": [...], "cwd": "...", "kill_after_s": 0.1,
"from": "start", "watch": "out/system.ocs.json", "in_place": false}`` (``kill_after_s`` null:
let it finish; ``from`` "writing": count the delay from when the write starts; ``in_place``: the
control, railx with its atomic writes replaced by writes in place, as a writer without them
would do); one JSON answer per stdout line, ``{"status": 0, "killed": false, "elapsed_s": 0.2,
"writing_s": 0.12, "replaced_s": 0.15}``: when the write was first seen starting (a temporary file
of railx.atomic beside the watched file, or the watched file itself changing), and when the
watched file was first seen replaced (another inode), if they were. The server never runs railx
itself, so no thread pool starts in it before a fork.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from railx.atomic import TEMPORARY_PREFIX


@contextmanager
def _in_place(path: str | Path, label: str | None = None) -> Iterator[Path]:
    """railx.atomic.atomic_path without the temporary file: the body writes `path` itself."""
    yield Path(path)


def _child(argv: list[str], cwd: str, in_place: bool) -> None:
    """The forked child: `railx ARGV` as the console script runs it, output discarded."""
    import railx.atomic
    import railx.network
    from railx import cli

    if in_place:
        railx.atomic.atomic_path = railx.network.atomic_path = _in_place  # type: ignore[assignment]

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.chdir(cwd)
    sys.argv = ["railx", *argv]
    code = 1
    try:
        cli.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        os._exit(code)  # no atexit handlers or buffered output of the server's


def _stat(path: str) -> tuple[int, int, int] | None:
    """The file's inode, size and modification time (None: no file)."""
    try:
        s = os.stat(path)
    except FileNotFoundError:
        return None
    return s.st_ino, s.st_size, s.st_mtime_ns


def _writing(watched: str, before: tuple[int, int, int] | None) -> bool:
    """Whether a write of `watched` has started: a temporary file beside it, or (a write in place)
    the file itself changed since `before`."""
    try:
        folder = os.listdir(os.path.dirname(watched))
    except FileNotFoundError:
        return False
    return any(name.startswith(TEMPORARY_PREFIX) for name in folder) or _stat(watched) != before


def _run(
    argv: list[str], cwd: str, kill_after_s: float | None, after_writing: bool, watch: str, in_place: bool
) -> dict[str, object]:
    watched = os.path.join(cwd, watch)
    before = _stat(watched)
    inode = before[0] if before else None
    writing_s = replaced_s = None
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(argv, cwd, in_place)
    deadline = None if kill_after_s is None or after_writing else start + kill_after_s
    killed = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if writing_s is None and _writing(watched, before):
            writing_s = time.perf_counter() - start
            if after_writing and kill_after_s is not None:
                deadline = start + writing_s + kill_after_s
        if replaced_s is None and (_stat(watched) or (None,))[0] != inode:
            replaced_s = time.perf_counter() - start
        if deadline is not None and time.perf_counter() >= deadline:
            os.kill(pid, signal.SIGKILL)
            killed = True
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(0.0005)
    exited = os.WIFEXITED(status)
    return {
        "status": os.WEXITSTATUS(status) if exited else None,
        "killed": killed and not exited,
        "elapsed_s": time.perf_counter() - start,
        "writing_s": writing_s,
        "replaced_s": replaced_s,
    }


def main() -> None:
    import railx.cli  # noqa: F401  (imported once here, inherited by every forked run)

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        after_writing = request.get("from") == "writing"
        answer = _run(
            request["argv"],
            request["cwd"],
            request.get("kill_after_s"),
            after_writing,
            request["watch"],
            bool(request.get("in_place")),
        )
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
