"""One training job on RailX and four peers of 4,096 chips: the iteration time (RailX paper eq. 10)
of llama3-70b-moe8 with T=8, C=2, E=8, D=64 (De = 8), P=4, sequence 8192, 16 micro-batches, 400
TFLOP/s per chip, and its breakdown by parallelism, each dimension's link measured on the
system's routed network (railx.workload.routed). The systems are benchmarks/system_comparison.py's
(checked below), plus the same RailX plant with its OCSes set for the job; each row is what

    railx workload llama3-70b-moe8 --parallel T=8,C=2,E=8,D=64,P=4 --system benchmarks/workload_systems/<name>.toml

prints. Not a test: `PYTHONPATH=python python3 benchmarks/workload_systems.py [--json OUT]`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from railx.progress import tracked
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.system import load_workload_system
from system_comparison import SYSTEMS

HERE = Path(__file__).parent
FILES = HERE / "workload_systems"
MODEL = "llama3-70b-moe8"
PARALLEL = {"T": 8, "C": 2, "E": 8, "D": 64, "P": 4}
# The systems in system_comparison.py's order, then the job-shaped RailX (same plant as railx-16x16).
NAMES = [s.name for s in SYSTEMS] + ["railx-16x16-job"]


def same_as_comparison(name: str, path: Path) -> None:
    """The workload file's system is system_comparison.py's system of that name."""
    (system,) = [s for s in SYSTEMS if s.name == name]
    spec = load_workload_system(path).network_system().spec_json()
    assert json.loads(spec) == json.loads(system.spec_json()), name


def row(name: str) -> dict[str, Any]:
    path = FILES / f"{name}.toml"
    if name in {s.name for s in SYSTEMS}:
        same_as_comparison(name, path)
    start = time.perf_counter()
    ws = load_workload_system(path)
    it = IterationModel(load_model(MODEL), ws.parallelism(**PARALLEL), ws)
    r = it.evaluate()
    return {
        "system": name,
        "described": ws.describe(),
        "command": f"railx workload {MODEL} --parallel {','.join(f'{k}={v}' for k, v in PARALLEL.items())} "
        f"--system {path.relative_to(HERE.parent)}",
        "iteration_s": float(r.total_s),
        "compute_exposed_s": r.compute_exposed_s,
        "comm_exposed_s": float(r.comm_exposed_s),
        "comm_hidden_s": {k: float(v) for k, v in r.comm_hidden_class_s.items()},
        "windows_s": r.windows_s,
        "by_parallelism_s": {k: float(v) for k, v in r.by_parallelism_s.items()},
        "links": {
            d: {"place": link.place, "bw_Bps": link.bw_bytes_per_s, "alpha_s": link.alpha_s}
            for d, link in it.links.items()
            if it.par.size(d) > 1
        },
        "took_s": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows as JSON here")
    args = parser.parse_args()
    rows = []
    print(
        "| system | iteration s | exposed compute s | exposed comm s | D hidden (window) s | T s | C s | E s | D s | P s | took s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in tracked(NAMES, "workload on each system", "systems"):
        r = row(name)
        rows.append(r)
        par = r["by_parallelism_s"]
        cells = " | ".join(f"{par.get(d, 0.0):.3f}" for d in ("T", "C", "E", "D", "P"))
        print(
            f"| {name} | {r['iteration_s']:.3f} | {r['compute_exposed_s']:.3f} | {r['comm_exposed_s']:.3f} | "
            f"{r['comm_hidden_s']['D']:.3f} ({r['windows_s']['D']:.3f}) | {cells} | {r['took_s']:.1f} |"
        )
    print()
    for r in rows:
        links = ", ".join(
            f"{d} {link['place'].removeprefix('routed ')} {link['bw_Bps'] / 1e9:.3g} GB/s"
            for d, link in r["links"].items()
        )
        print(f"- {r['system']} ({r['described']}): {links}\n  `{r['command']}`")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
