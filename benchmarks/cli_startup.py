"""Start-up time of the `railx` command: `railx --help`, a subcommand's help and small commands,
each the median wall time of several fresh processes, against the 0.5 s target.

    python3 benchmarks/cli_startup.py [--runs 9] [--against OTHER/python]

Each case runs `python -m railx.cli ARGS` (what the `railx` console script runs, without the
launcher in front of it) with this checkout's package first on the path; the bare interpreter
(`python -c pass`) is measured the same way, since on a loaded machine it alone can take a good
share of the budget. With `--against`, the same cases run from another checkout's `python/`
folder (the main branch, say), alternating run by run so both see the same load; the ratio is the
figure to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 0.5

CASES: list[tuple[str, list[str]]] = [
    ("railx --help", ["--help"]),
    ("railx plan examples/hyperx-9x9.toml --help", ["plan", "examples/hyperx-9x9.toml", "--help"]),
    ("railx --version", ["--version"]),
    ("railx scale --json", ["scale", "--json"]),
    ("railx plan examples/hyperx-9x9.toml", ["plan", "examples/hyperx-9x9.toml"]),
]


def wall_s(args: list[str], python_path: Path | None) -> float:
    """Wall time of one fresh process: `python -m railx.cli ARGS`, or the bare interpreter for []."""
    env = dict(os.environ, COLUMNS="80")
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    command = [sys.executable, "-m", "railx.cli", *args] if args else [sys.executable, "-c", "pass"]
    start = time.perf_counter()
    subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="processes per case (the median is shown)")
    parser.add_argument("--against", type=Path, help="another checkout's python/ folder, measured alternately")
    args = parser.parse_args()
    sources = {"this": REPO / "python"} | ({"against": args.against.resolve()} if args.against else {})
    cases = [("python -c pass (bare interpreter)", [])] + CASES
    width = max(len(name) for name, _ in cases)
    header = f"{'case':<{width}}  " + "  ".join(f"{name:>8}" for name in sources)
    print(header + ("  ratio" if args.against else "") + f"  (median of {args.runs}, target {TARGET_S} s)")
    for name, argv in cases:
        times: dict[str, list[float]] = {source: [] for source in sources}
        for _ in range(args.runs):
            for source, path in sources.items():  # alternating: both see the same load
                times[source].append(wall_s(argv, path))
        medians = {source: statistics.median(ts) for source, ts in times.items()}
        row = f"{name:<{width}}  " + "  ".join(f"{medians[s]:>7.3f}s" for s in sources)
        if args.against:
            row += f"  {medians['this'] / medians['against']:5.2f}"
        if argv:
            row += "  ok" if medians["this"] < TARGET_S else "  over target"
        print(row, flush=True)


if __name__ == "__main__":
    main()
