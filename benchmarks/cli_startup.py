"""Start-up time of the `railx` command: `railx --help`, a subcommand's help and small commands,
each the median of several fresh processes, against the 0.5 s target.

    python3 benchmarks/cli_startup.py [--runs 9] [--against OTHER/python]

Each case runs `python -m railx.cli ARGS` (what the `railx` console script runs, without the
launcher in front of it) with this checkout's package first on the path; the bare interpreter
(`python -c pass`) is measured the same way. Two figures per case: wall time (what a user waits)
and CPU time (user + system of the child): on a shared, loaded machine wall time includes waiting
for a core, and CPU time is what the wall time is on an idle one. With `--against`, the same cases
run from another checkout's `python/` folder (the main branch, say), alternating run by run so
both see the same load; the ratio (of CPU times) is the figure to compare.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from railx.progress import tracked

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 0.5

CASES: list[tuple[str, list[str]]] = [
    ("railx --help", ["--help"]),
    ("railx plan examples/hyperx-9x9.toml --help", ["plan", "examples/hyperx-9x9.toml", "--help"]),
    ("railx --version", ["--version"]),
    ("railx scale --json", ["scale", "--json"]),
    ("railx plan examples/hyperx-9x9.toml", ["plan", "examples/hyperx-9x9.toml"]),
]


def run_s(args: list[str], python_path: Path | None) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process: `python -m railx.cli ARGS`, or the bare
    interpreter for []; NaN when the command fails (an option the other checkout lacks, say)."""
    env = dict(os.environ, COLUMNS="80")
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    command = [sys.executable, "-m", "railx.cli", *args] if args else [sys.executable, "-c", "pass"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (wall, cpu) if done.returncode == 0 else (math.nan, math.nan)


def _s(value: float) -> str:
    return "    n/a" if math.isnan(value) else f"{value:6.3f}s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="processes per case (the median is shown)")
    parser.add_argument("--against", type=Path, help="another checkout's python/ folder, measured alternately")
    args = parser.parse_args()
    sources = {"this": REPO / "python"} | ({"against": args.against.resolve()} if args.against else {})
    cases = [("python -c pass (bare interpreter)", [])] + CASES
    width = max(len(name) for name, _ in cases)
    heads = "  ".join(f"{source + ' wall':>12} {source + ' CPU':>12}" for source in sources)
    print(f"{'case':<{width}}  {heads}" + ("  CPU ratio" if args.against else ""))
    print(f"(median of {args.runs} processes each; target {TARGET_S} s)")
    for name, argv in tracked(cases, "start-up cases", "cases"):
        runs: dict[str, list[tuple[float, float]]] = {source: [] for source in sources}
        for _ in range(args.runs):
            for source, path in sources.items():  # alternating: both see the same load
                runs[source].append(run_s(argv, path))
        wall = {source: statistics.median(w for w, _ in rs) for source, rs in runs.items()}
        cpu = {source: statistics.median(c for _, c in rs) for source, rs in runs.items()}
        row = f"{name:<{width}}  " + "  ".join(f"{_s(wall[s]):>12} {_s(cpu[s]):>12}" for s in sources)
        if args.against:
            ratio = cpu["this"] / cpu["against"]
            row += "        n/a" if math.isnan(ratio) else f"  {ratio:9.2f}"
        if argv:
            row += "  ok" if cpu["this"] < TARGET_S else "  over target"
        print(row, flush=True)


if __name__ == "__main__":
    main()
