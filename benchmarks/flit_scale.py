"""Benchmark: the flit-level simulator at the paper's full scale (issue 23, item 4).

The 200,704-chip RailX7Mesh 2D-HyperX (examples/railx7mesh-hyperx.toml: R = 128, m = 7, n = 9,
a 64 x 64-node HyperX of 7 x 7 meshes with 9 lanes per mesh edge) under uniform traffic or
all-to-all at a load below saturation, railx's default router (Table 5), 2 threads. Target:
10,000 measured cycles within 15 minutes and 16 GiB on the 2-core reference machine.

Each case runs in a child process so that its peak memory is its own. It prints, besides the wall
time and peak, the two memory figures docs/simulation.md quotes:
- the set-up time: the wall time of the idle run below, so that a short run's rate, and the full
  run's time extrapolated from it, leave it out;
- per router: the peak of an idle run (load 1e-6, 1 cycle: every router and buffer built, no
  packet) less the memory of the realized network before the simulator starts, over the routers;
- per in-flight flit: the loaded run's peak less the idle run's, over the flits in flight at once
  (Little's law: accepted flits/cycle/chip x chips x mean latency in cycles).
A progress line goes to stderr every 5% of the cycles, with the rate and the time left.

Not a test: `PYTHONPATH=python python benchmarks/flit_scale.py [--cycles N] [--warmup N]
[--load X] [--traffic uniform|all-to-all] [--threads N] [--config FILE]`. `--cycles 200
--warmup 100` gives the rate in a few minutes, from which the full run's time is extrapolated
(printed beside the target).

Huge pages: the run waits on memory (every router's records are touched each cycle, 7 GiB of
them), and with 4 KiB pages most of those touches miss the TLB too. The child asks glibc's
allocator for transparent huge pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1`:
the allocator marks the memory it takes from the kernel for huge pages, and one arena keeps the
worker threads' allocations in that memory too); on the 2-core reference machine this cuts
the time per cycle by 8-23% (docs/simulation.md, Huge pages). `--no-huge-pages` runs with the allocator's
defaults. Any other run gets the same by setting that variable before Python starts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

CONFIG = Path(__file__).resolve().parent.parent / "examples" / "railx7mesh-hyperx.toml"
TARGET_S = 15 * 60
TARGET_GIB = 16.0
TARGET_CYCLES = 10_000
# glibc's allocator tunables for transparent huge pages (module docstring); read at process start,
# so they go into the child's environment.
HUGE_PAGE_TUNABLES = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"
# A load no router notices: the idle run builds every router and buffer and moves (almost) nothing.
IDLE_LOAD = 1e-6


def cpu_s() -> float:
    """CPU seconds this process has used, all threads (on a busy machine, where wall time says
    more about the others' work than this run's, CPU time over the threads estimates its wall
    time alone)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_gib() -> float:
    """This process's peak resident memory (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def child(args: argparse.Namespace) -> None:
    """One run in this process; prints a JSON line of its figures."""
    from railx import ConfigError
    from railx.sim import FlitSettings, simulate
    from railx.systems import resolve_system

    start = time.perf_counter()
    system = resolve_system(str(args.config))
    system.core  # noqa: B018 -- builds the network now, to time it and measure its memory apart
    built_s = time.perf_counter() - start
    network_gib = peak_gib()
    settings = FlitSettings(warmup_cycles=args.warmup, measure_cycles=args.cycles, threads=args.threads)
    last = [0.0]

    def progress(done: int, total: int | None, unit: str) -> bool:
        # A line per 5% of the run: a log file gets the rate as well as a terminal does.
        if total and done / total >= last[0] + 0.05:
            last[0] = done / total
            elapsed = time.perf_counter() - run_start
            left = elapsed * (total - done) / max(done, 1)
            print(
                f"  {done:,}/{total:,} {unit} {elapsed:6.0f} s, about {left:5.0f} s left", file=sys.stderr, flush=True
            )
        return True

    run_start, cpu_start = time.perf_counter(), cpu_s()
    try:
        report, _ = simulate(system, args.traffic, args.load, settings=settings, progress=progress)
    except ConfigError as exc:
        sys.exit(f"error: {exc}")
    wall, cpu = time.perf_counter() - run_start, cpu_s() - cpu_start
    print(
        json.dumps(
            {
                "chips": report["chips"],
                "routers": report["routers"],
                "build_s": built_s,
                "network_gib": network_gib,
                "wall_s": wall,
                "cpu_s": cpu,
                "peak_gib": peak_gib(),
                "router_cycles": report["router_cycles"],
                "flit_hops": report["flit_hops"],
                "accepted": report["accepted"],
                "offered": report["offered"],
                "latency": report["latency"]["mean"],
            }
        )
    )


def run(args: argparse.Namespace, load: float, warmup: int, cycles: int) -> dict:
    """`child` in a fresh process with these figures."""
    command = [sys.executable, __file__, "--child", "--config", str(args.config), "--traffic", args.traffic]
    command += ["--load", str(load), "--warmup", str(warmup), "--cycles", str(cycles), "--threads", str(args.threads)]
    # The full run is this benchmark's purpose, and its work estimate (about 3e11 steps) is over
    # the default work budget: the child runs without one unless RAILX_WORK_BUDGET is set.
    env = {**os.environ, "RAILX_WORK_BUDGET": os.environ.get("RAILX_WORK_BUDGET", "inf")}
    if args.huge_pages:
        env["GLIBC_TUNABLES"] = ":".join(filter(None, (os.environ.get("GLIBC_TUNABLES"), HUGE_PAGE_TUNABLES)))
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env)
    if done.returncode != 0:
        sys.exit(done.returncode)  # the child has printed its one-line error
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--traffic", choices=("uniform", "all-to-all"), default="uniform")
    parser.add_argument("--load", type=float, default=0.1, help="offered flits/cycle/chip (default 0.1)")
    parser.add_argument("--warmup", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=TARGET_CYCLES, help="measured cycles")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--no-huge-pages",
        dest="huge_pages",
        action="store_false",
        help="run with the allocator's defaults (4 KiB pages) instead of transparent huge pages",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    # The tunables are glibc's; elsewhere (musl, macOS) the run keeps the allocator's defaults.
    args.huge_pages &= platform.libc_ver()[0] == "glibc"
    if args.child:
        child(args)
        return
    idle = run(args, IDLE_LOAD, 0, 1)
    loaded = run(args, args.load, args.warmup, args.cycles)
    routers, chips = idle["routers"], idle["chips"]
    per_router = (idle["peak_gib"] - idle["network_gib"]) * 2**30 / routers
    in_flight = loaded["accepted"] * chips * loaded["latency"]
    per_flit = (loaded["peak_gib"] - idle["peak_gib"]) * 2**30 / max(in_flight, 1.0)
    cycles = args.warmup + args.cycles
    # The idle run's wall time is the simulator's set-up (routers, destinations, tables); the
    # rest of the loaded run's scales with the cycles.
    per_cycle_s = (loaded["wall_s"] - idle["wall_s"]) / cycles
    full_s = idle["wall_s"] + per_cycle_s * (args.warmup + TARGET_CYCLES)
    per_cycle_cpu_s = (loaded["cpu_s"] - idle["cpu_s"]) / cycles
    full_cpu_s = idle["cpu_s"] + per_cycle_cpu_s * (args.warmup + TARGET_CYCLES)
    pages = f"huge pages ({HUGE_PAGE_TUNABLES})" if args.huge_pages else "the allocator's default pages"
    print(f"{args.config.name}: {chips:,} chips, {routers:,} routers, {pages}")
    print(f"  network built in {loaded['build_s']:.1f} s, {loaded['network_gib']:.2f} GiB")
    print(
        f"  {args.traffic} at {args.load} (accepted {loaded['accepted']:.4f}), {args.warmup:,} + {args.cycles:,} cycles, "
        f"{args.threads} threads: {loaded['wall_s']:.1f} s, {loaded['router_cycles'] / loaded['wall_s']:.3e} router-cycles/s, "
        f"{loaded['flit_hops'] / loaded['wall_s']:.3e} flit-hops/s, mean latency {loaded['latency']:.1f} cycles"
    )
    print(
        f"  set-up {idle['wall_s']:.1f} s ({idle['cpu_s']:.1f} CPU-s), then {per_cycle_s:.3f} s per cycle "
        f"({per_cycle_cpu_s:.3f} CPU-s over {args.threads} threads)"
    )
    print(f"  peak {loaded['peak_gib']:.2f} GiB (target {TARGET_GIB:.0f} GiB)")
    print(
        f"  {args.warmup:,} + {TARGET_CYCLES:,} cycles at this rate: {full_s:.0f} s, {full_cpu_s:.0f} CPU-s "
        f"(target {TARGET_S} s wall)" + ("" if cycles >= TARGET_CYCLES else ", extrapolated")
    )
    print(
        f"  memory per router {per_router:,.0f} B; per in-flight flit {per_flit:,.0f} B ({in_flight:,.0f} flits in flight)"
    )


if __name__ == "__main__":
    main()
