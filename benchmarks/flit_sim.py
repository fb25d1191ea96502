"""Benchmark: the flit-level simulator against BookSim2 (issue 7).

1. Uniform traffic on the 36 x 36 torus (1,296 routers, one chip each, DOR with datelines,
   16-flit VC buffers, 4-flit packets, every link 1 flit/cycle and 1 cycle of latency, injection
   1 flit/cycle as BookSim2's) at offered 0.108 flits/cycle/node for 15,000 cycles;
2. the Fig. 14 RailX configuration (2D-HyperX m=4, n=2, 9 x 9 nodes, 1,296 chips, k=2; Table 5
   defaults) under all-to-all at 0.8 flits/cycle/chip for 15,000 cycles (5,000 + 10,000);
each with 1 and 2 threads: wall seconds, simulated router-cycles/s and flit-hops/s, and the
speed-up over BookSim2's measured ~197,000 router-cycles/s (5,462 cycles in ~36 s) and its
flit-hops/s at the same load (~0.108 x 18 mean hops per router-cycle);
3. the torus saturation sweep, to compare with BookSim2's 0.13 flits/cycle/node (and its
   zero-load latency of about 81 cycles; the peak varies by a few percent with the seed, so
   the two configurations meant to match BookSim2 run seeds 0-5, the others seed 0): railx's
   default router (pipelined, packet switch allocation) with `dateline` routing; BookSim2's
   pipeline timing as its zero-load latency implies (4 cycles a hop: a 2-cycle router, and one
   idle cycle between the packets of a VC) on railx's router with BookSim2's torus routing
   (`dateline-partition`); BookSim2's router as railx models it (that timing, flit-by-flit
   switch allocation, wormhole) with BookSim2's routing and with railx's `dateline`; and
   BookSim2's default non-speculative pipeline (5 cycles a hop: a 3-cycle router, two idle
   cycles between packets), which the reported latency rules out.
The torus runs are configured as BookSim2 was, including its single source FIFO per node.
4. (--cnsim) the RailX authors' simulator, CNSim: saturation throughput of uniform traffic on the
   Fig. 14 RailX (9 x 9 2D-HyperX, m=4, n=2) for k = 1, 2, 4 with railx's defaults (Table 5,
   `minimal` routing, one source FIFO, injection 8 flits/cycle), with the `cnsim` preset
   (`phased` routing) and with the preset's VC allocation and input pace set back to railx's
   (`vc_allocation="with-switch"`, `input_pace="link"`), beside CNSim built from its public
   `railx` branch and run here (0.515, 0.769, 0.804) and issue 23's 0.51, 0.89, 0.92; saturation
   found as CNSim finds it (`railx.sim.step_saturation`: loads in steps of 0.05, from 0.3, which
   every case accepts whole; stop when the packets delivered in the window are fewer than 5
   times those left in flight). Cycles: the preset's own 500 warm-up + 1,000 measured (CNSim's),
   the defaults 1,000 + 2,000 (Table 5's 5,000 + 10,000 would take about 20 minutes more;
   --cycles-defaults changes it). Also the zero-load latency: railx's at offered 0.02, and
   CNSim's from its timing model over 20,000 sampled routes (a packet waits 2 cycles of
   packetization, then each hop takes its link's latency plus the cycle its router routes and
   allocates it; the packet is done once the last hop's latency has passed and its tail has
   arrived, the tail trailing the head by ceil(4 / w) - 1 cycles on a link of w flits/cycle).
   With --cnsim-binary PATH (a local build of CNSim; docs/simulation.md says how to build it)
   that CNSim runs its own saturation search beside railx's, both from 0.05 with the same
   cycles, 1 and 2 threads: their saturation, wall and CPU seconds and router-cycles/s.

Not a test: `PYTHONPATH=python python benchmarks/flit_sim.py [--quick] [--speed | --saturation]
[--repeat N]`, or `--cnsim` (--quick: 3,000 cycles, a shorter sweep; --speed or --saturation: that part only;
--repeat: runs of each speed case, taking turns, the fastest reported with the median beside
it; 3 by default). Wall times depend on what else runs on the machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import re
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from railx.progress import tracked
from railx.routing import route
from railx.sim import FlitSettings, preset_routing, preset_settings, simulate, step_saturation, sweep
from railx.systems import System, resolve_system

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TORUS = System(
    "torus-36x36", "36 x 36 2D torus", peer={"family": "torus3d", "dims": [36, 36, 1], "ports_per_direction": 1}
)
BOOKSIM_ROUTER_CYCLES_PER_S = 1296 * 5462 / 36
BOOKSIM_SATURATION = 0.13
# Mean DOR hops on a 36-ring pair of dimensions (k/4 each) times the load: flit-hops per router-cycle.
BOOKSIM_FLIT_HOPS_PER_S = BOOKSIM_ROUTER_CYCLES_PER_S * 0.108 * 18


def timed(system: System, traffic: str, load: float, settings: FlitSettings, routing: str | None = None) -> dict:
    start = time.perf_counter()
    report, _ = simulate(system, traffic, load, settings=settings, routing=routing)  # type: ignore[arg-type]
    wall = time.perf_counter() - start
    return {
        "wall_s": wall,
        "router_cycles_per_s": report["router_cycles"] / wall,
        "flit_hops_per_s": report["flit_hops"] / wall,
        "report": report,
    }


TORUS_SETTINGS = dict(
    long_latency_cycles=1, short_latency_cycles=1, injection_flits_per_cycle=1.0, injection_queues="single"
)
# BookSim2's pipeline timing (4 cycles a hop; one idle cycle between the packets of a VC), and
# with it its flit-by-flit switch allocation and wormhole flow control.
BOOKSIM2_TIMING = {"router_delay_cycles": 2, "head_delay_cycles": 1}
BOOKSIM2_ROUTER = {**BOOKSIM2_TIMING, "switch_allocation": "flit", "flow_control": "wormhole"}
# BookSim2 ends a run as unstable when its mean packet latency (source queueing included)
# passes `latency_thres`, 500 cycles by default.
BOOKSIM2_LATENCY_THRESHOLD = 500.0


def speed(cycles: int, repeats: int) -> None:
    """Wall time, router-cycles/s and flit-hops/s of the torus and Fig. 14 runs, 1 and 2 threads.

    Every case runs `repeats` times, the cases taking turns so that each sees the machine's
    slow and fast spells alike; the fastest run is reported (as `timeit` does: the slower ones
    measure what else ran on the machine), with the median beside it.
    """
    railx = resolve_system(str(EXAMPLES / "hyperx-9x9.toml"))
    warmup = cycles // 3
    torus_cases = [
        ("torus 36x36 uniform 0.108", {}, "dateline"),
        ("  same, BookSim2's timing and routing", BOOKSIM2_TIMING, "dateline-partition"),
        ("  same, BookSim2's router and routing", BOOKSIM2_ROUTER, "dateline-partition"),
    ]
    # (name, threads, whether BookSim2's flit-hops/s applies: the torus load only, the run)
    cases: list[tuple[str, int, bool, Callable[[], dict]]] = []
    for (name, router, routing), threads in itertools.product(torus_cases, (1, 2)):
        settings = FlitSettings(**TORUS_SETTINGS, **router, warmup_cycles=0, measure_cycles=cycles, threads=threads)  # type: ignore[arg-type]
        cases.append((name, threads, True, functools.partial(timed, TORUS, "uniform", 0.108, settings, routing)))
    for threads in (1, 2):
        settings = FlitSettings(warmup_cycles=warmup, measure_cycles=cycles - warmup, threads=threads)
        cases.append(
            (
                "RailX 9x9 HyperX m=4 n=2 k=2 all-to-all 0.8",
                threads,
                False,
                functools.partial(timed, railx, "all-to-all", 0.8, settings),
            )
        )
    runs: list[list[dict]] = [[] for _ in cases]
    for _ in range(repeats):
        for (_, _, _, run), done in zip(cases, runs):
            done.append(run())
    print(
        f"fastest of {repeats} runs (median in brackets); BookSim2: {BOOKSIM_ROUTER_CYCLES_PER_S:.3e} router-cycles/s; issue 23's target: 100x on the torus, single-threaded and with 2 threads"
    )
    print(
        f"{'case':44} {'thr':>3} {'wall s':>7} {'router-cyc/s':>13} {'x BookSim':>15} {'flit-hops/s':>12} {'x BookSim':>9} {'accepted':>8}"
    )
    for (name, threads, on_torus, _), done in zip(cases, runs):
        best = min(done, key=lambda r: r["wall_s"])
        median = statistics.median(r["router_cycles_per_s"] for r in done) / BOOKSIM_ROUTER_CYCLES_PER_S
        hops_x = f"{best['flit_hops_per_s'] / BOOKSIM_FLIT_HOPS_PER_S:9.1f}" if on_torus else f"{'':>9}"
        print(
            f"{name:44} {threads:>3} {best['wall_s']:7.2f} {best['router_cycles_per_s']:13.3e} "
            f"{best['router_cycles_per_s'] / BOOKSIM_ROUTER_CYCLES_PER_S:6.1f} ({median:5.1f}) {best['flit_hops_per_s']:12.3e} "
            f"{hops_x} {best['report']['accepted']:8.4f}"
        )


def saturation(cycles: int, quick: bool) -> None:
    """The torus load sweeps: accepted and mean latency per offered load, the peak accepted,
    and the highest load BookSim2's latency threshold would call stable."""
    loads = [0.12, 0.125, 0.13, 0.1325, 0.135, 0.1375, 0.14, 0.145, 0.15, 0.16] if not quick else [0.12, 0.14]
    # The two configurations meant to match BookSim2 run six seeds (the peak moves by 2-3% from
    # seed to seed), the others one.
    all_seeds = tuple(range(6)) if not quick else (0,)
    routers = {
        "railx's default router, dateline": ({}, "dateline", (0,)),
        "railx's router, BookSim2's timing and routing (dateline-partition)": (
            BOOKSIM2_TIMING,
            "dateline-partition",
            all_seeds,
        ),
        "BookSim2's router and routing (dateline-partition)": (BOOKSIM2_ROUTER, "dateline-partition", all_seeds),
        "BookSim2's router, dateline": (BOOKSIM2_ROUTER, "dateline", (0,)),
        "BookSim2's non-speculative pipeline and routing": (
            {**BOOKSIM2_ROUTER, "router_delay_cycles": 3, "head_delay_cycles": 2},
            "dateline-partition",
            (0,),
        ),
    }
    for name, (router, routing, seeds) in tracked(list(routers.items()), "torus saturation sweeps", "routers"):
        zero, _ = simulate(
            TORUS,
            "uniform",
            0.005,
            settings=FlitSettings(**TORUS_SETTINGS, **router, warmup_cycles=1000, measure_cycles=3000),
            routing=routing,
        )  # type: ignore[arg-type]
        print(
            f"\ntorus 36x36 uniform saturation sweep, {name} (zero-load latency {zero['latency']['mean']:.1f}; BookSim2: ~81, accepted 0.130 at 0.13, 0.074 at 0.16):"
        )
        peaks = []
        for seed in seeds:
            settings = FlitSettings(
                **TORUS_SETTINGS,
                **router,
                warmup_cycles=cycles // 3,
                measure_cycles=cycles - cycles // 3,
                threads=2,
                seed=seed,
            )  # type: ignore[arg-type]
            points = sweep(TORUS, loads, "uniform", settings=settings, routing=routing)["points"]
            peak = max(p["accepted"] for p in points)
            peaks.append(peak)
            stable = [load for load, p in zip(loads, points) if p["latency"]["mean"] <= BOOKSIM2_LATENCY_THRESHOLD]
            print(f"  seed {seed}  " + "  ".join(f"{load:.4f}:{p['accepted']:.4f}" for load, p in zip(loads, points)))
            print("          latency " + "  ".join(f"{p['latency']['mean']:.0f}" for p in points))
            print(
                f"          peak {peak:.4f} ({100 * (peak / BOOKSIM_SATURATION - 1):+.1f}%); mean latency within "
                f"{BOOKSIM2_LATENCY_THRESHOLD:.0f} cycles up to offered {max(stable, default=0.0):.4f}"
            )
        if len(peaks) > 1:
            mean = statistics.mean(peaks)
            print(
                f"  mean peak over seeds {seeds[0]}-{seeds[-1]}: {mean:.4f} ({100 * (mean / BOOKSIM_SATURATION - 1):+.1f}%; issue 7's target: within 5%)"
            )


#: CNSim's saturation throughput of uniform traffic on the Fig. 14 RailX (flits/cycle/chip), by k:
#: as issue 23 gives it, and as CNSim built from its public `railx` branch reports it when run
#: here (2026-11-27, docs/simulation.md, Against CNSim).
CNSIM_ISSUE_SATURATION = {1: 0.51, 2: 0.89, 4: 0.92}
CNSIM_SATURATION = {1: 0.515, 2: 0.769, 4: 0.804}
CNSIM_PACKETIZATION_CYCLES = 2


def fig14_railx(k: int) -> System:
    """The Fig. 14 RailX: a 9 x 9 2D-HyperX of 4 x 4-chip nodes, n = 2, mesh lanes of k flits/cycle."""
    config = {
        "system": {"m": 4, "n": 2, "R": 128, "grid": [9, 9], "port_bw_GBps": 50, "k": k},
        "topology": {"preset": "hyperx"},
    }
    return System(f"railx-k{k}", f"RailX 2D-HyperX k={k}", railx=config)


def cnsim_zero_load(system: System, k: int, samples: int, packet_flits: int = 4) -> float:
    """CNSim's mean zero-load latency of uniform traffic, from its timing model over `samples`
    seeded routes (`phased`, the routes CNSim takes): 2 cycles of packetization, each hop its
    link's latency plus one routing cycle, done when the last link's latency has passed and the
    tail, ceil(L / w) - 1 cycles behind the head on a link of w flits/cycle, has arrived."""
    import random

    rng = random.Random(0)
    chips = system.chips
    total = 0
    for _ in range(samples):
        src = rng.randrange(chips)
        dst = rng.randrange(chips - 1)
        dst += dst >= src
        path = route(system, src, dst, "phased")["path"]
        delays = [(10, 1) if hop["external"] else (1, k) for hop in path]
        *before, (latency, width) = delays
        tail = -(-packet_flits // width) - 1
        total += CNSIM_PACKETIZATION_CYCLES + 1 + sum(l + 1 for l, _ in before) + max(latency, tail)
    return total / samples


def cnsim_table(defaults_cycles: tuple[int, int]) -> None:
    print("\nUniform saturation on the Fig. 14 RailX (9 x 9 2D-HyperX, m=4, n=2) against CNSim:")
    print(
        f"{'k':>2} {'railx defaults':>15} {'cnsim preset':>13} {'with-switch, link':>18} {'CNSim':>6} {'issue':>6}"
        f" {'preset/CNSim':>13} {'zero-load: defaults':>20} {'preset':>7} {'CNSim':>6}  wall s"
    )
    for k, reference in tracked(list(CNSIM_SATURATION.items()), "CNSim comparison", "k values"):
        start = time.perf_counter()
        system = fig14_railx(k)
        warmup, measure = defaults_cycles
        table5 = FlitSettings(warmup_cycles=warmup, measure_cycles=measure, threads=2)
        cnsim = preset_settings("cnsim", system, threads=2)
        with_switch = dataclasses.replace(cnsim, vc_allocation="with-switch", input_pace="link")
        peaks = []
        latencies = []
        for settings, routing in ((table5, None), (cnsim, preset_routing("cnsim"))):
            found = step_saturation(system, settings=settings, routing=routing, first_load=0.3)
            peaks.append(found["peak_accepted"])
            report, _ = simulate(system, "uniform", 0.02, settings=settings, routing=routing)
            latencies.append(report["latency"]["mean"])
        other = step_saturation(system, settings=with_switch, routing=preset_routing("cnsim"), first_load=0.3)
        reference_latency = cnsim_zero_load(system, k, 20_000)
        print(
            f"{k:>2} {peaks[0]:>15.3f} {peaks[1]:>13.3f} {other['peak_accepted']:>18.3f} {reference:>6.3f}"
            f" {CNSIM_ISSUE_SATURATION[k]:>6.2f} {peaks[1] / reference - 1:>+13.1%}"
            f" {latencies[0]:>20.1f} {latencies[1]:>7.1f} {reference_latency:>6.1f}  {time.perf_counter() - start:.0f}"
        )


CNSIM_INI = """[Network]
topology = RailX2DHyperX
internal_bandwidth = {k}
external_latency = 10

[Workload]
traffic = uniform

[Simulation]
injection_increment = 0.05
threads = {threads}

[Files]
output_file = {out}/output.csv
log_file = {out}/log.txt
"""


def run_cnsim(binary: Path, k: int, threads: int) -> tuple[float, int, float, float]:
    """A locally built CNSim's own saturation search on the Fig. 14 RailX (uniform traffic, its
    defaults: loads 0.05, 0.10, ..., 500 + 1,000 cycles each): its reported saturation
    throughput, the loads it ran, and its wall and CPU seconds (its start-up included)."""
    with tempfile.TemporaryDirectory() as out:
        ini = Path(out) / "railx_2d_hyperx.ini"
        ini.write_text(CNSIM_INI.format(k=k, threads=threads, out=out))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([str(binary), str(ini)], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = re.search(r"Maximum average receiving traffic: ([0-9.eE+-]+)", done.stdout)
    if found is None:
        raise SystemExit(f"{binary}: no saturation in its output; is it CNSim's railx branch?")
    loads = done.stdout.count("Injection rate:")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(found.group(1)), loads, wall, cpu


def cnsim_binary_table(binary: Path) -> None:
    """CNSim (a local build of its public `railx` branch) beside railx's `cnsim` preset, each
    searching saturation its own way over the same loads (0.05 upwards) and cycles (500 +
    1,000 a load): saturation throughput, wall and CPU seconds, and router-cycles/s over the
    loads each ran (CNSim's last load may stop early, at its first 500-cycle wait)."""
    print(f"\nCNSim ({binary}) beside railx's cnsim preset, uniform, Fig. 14 RailX; saturation searches from 0.05:")
    print(
        f"{'k':>2} {'thr':>3} {'CNSim sat':>9} {'railx sat':>9} {'CNSim wall/cpu s':>17} {'railx wall/cpu s':>17}"
        f" {'CNSim rc/s':>11} {'railx rc/s':>11} {'cpu ratio':>9}"
    )
    for k, threads in itertools.product(CNSIM_SATURATION, (1, 2)):
        system = fig14_railx(k)
        peer, peer_loads, peer_wall, peer_cpu = run_cnsim(binary, k, threads)
        settings = preset_settings("cnsim", system, threads=threads)
        cpu_start, start = time.process_time(), time.perf_counter()
        found = step_saturation(system, settings=settings, routing=preset_routing("cnsim"))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        window = settings.warmup_cycles + settings.measure_cycles
        peer_rate = system.chips * window * peer_loads / peer_wall
        rate = system.chips * window * len(found["points"]) / wall
        print(
            f"{k:>2} {threads:>3} {peer:>9.3f} {found['peak_accepted']:>9.3f} {peer_wall:>8.1f}/{peer_cpu:<8.1f}"
            f" {wall:>8.1f}/{cpu:<8.1f} {peer_rate:>11.3e} {rate:>11.3e} {peer_cpu / cpu:>9.2f}"
        )


def positive(text: str) -> int:
    """A whole number of at least 1 (an argparse type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1; e.g. 3")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description="The flit-level simulator against BookSim2 (issue 7).")
    parser.add_argument("--quick", action="store_true", help="3,000 cycles and a shorter sweep")
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--speed", action="store_true", help="the speed cases only")
    part.add_argument("--saturation", action="store_true", help="the saturation sweeps only")
    part.add_argument("--cnsim", action="store_true", help="the table against CNSim only (about 20 minutes)")
    parser.add_argument(
        "--cycles-defaults",
        type=positive,
        nargs=2,
        default=(1000, 2000),
        metavar=("WARMUP", "MEASURED"),
        help="cycles of the railx-defaults runs of --cnsim (default 1000 2000)",
    )
    parser.add_argument(
        "--cnsim-binary",
        type=Path,
        metavar="PATH",
        help="with --cnsim: also run a locally built CNSim (its railx branch; docs/simulation.md) beside railx and time both",
    )
    parser.add_argument(
        "--repeat",
        type=positive,
        default=3,
        metavar="N",
        help="runs of each speed case, taking turns; the fastest is reported (default 3)",
    )
    args = parser.parse_args()
    if args.cnsim:
        if args.cnsim_binary is not None:
            cnsim_binary_table(args.cnsim_binary)
        cnsim_table(tuple(args.cycles_defaults))
        return
    cycles = 3000 if args.quick else 15000
    if not args.saturation:
        speed(cycles, args.repeat)
    if not args.speed:
        saturation(cycles, args.quick)


if __name__ == "__main__":
    main()
