"""Reproduction of RailX Fig. 14 (paper §6.3) with the flit-level simulator.

(a) All-to-all accepted throughput vs offered load on ~1.3K-chip systems with 8 ports per chip:
    RailX 2D-HyperX (m=4, n=2, 9 x 9 nodes, 1,296 chips) with k = 2, 3, 4; a 36 x 36 2D torus
    (2 ports per direction); a HammingMesh and a non-blocking fat-tree (8 planes) where railx has
    their routing functions; each system's cost from railx's cost model (catalog railx-table6),
    giving peak throughput per dollar.
(b) The RailX k sweep: k = 1, 2, 3, 4.

Writes fig14.json, fig14.csv and fig14.png to OUT (default docs/reproductions/fig14). Not a
test: `PYTHONPATH=python python benchmarks/fig14.py [--quick] [--warmup W --cycles C]
[--vcs-per-class P] [--threads T] [--systems NAMES] [--out DIR]`, or from recorded data only:
`--replot DIR...` (redraw each DIR's fig14.png from its fig14.json) and `--per-musd DIR...`
(peak throughput per M$ of every recorded system under both switch pricing bases, as a
Markdown table; costs are recomputed, so a rerun or a price change updates them; a run's own
cost_usd and throughput_per_musd are on the catalog's basis, recorded as port_basis).
Options of a run (--quick: 1,000 + 2,000 cycles and fewer loads;
otherwise Table 5's 5,000 + 10,000 unless --warmup/--cycles say otherwise; --vcs-per-class: the
physical VCs behind each VC the routing function names, 1 = literal; --railx-routing: RailX's
routing function, default minimal, e.g. balanced; --speedup S: crossbar speedup into 64-flit
output queues, 1 = input-queued as Table 5; --railx-only: skip the peers; --systems: only
these, by name, including MATCHED systems that are not in the paper's figure). Systems whose
routing railx does not have yet are reported and skipped.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from dataclasses import asdict
from pathlib import Path

from railx.config import ConfigError
from railx.cost.catalog import PORT_BASES, load_catalog
from railx.cost.model import figures
from railx.cost.throughput import throughput_per_cost
from railx.sim import FlitSettings, sweep_summary
from railx.sweep import Sweep, parse_spec
from railx.sweep.batch import base_table, runner
from railx.systems import System

ROOT = Path(__file__).resolve().parent.parent


def railx_hyperx(k: float) -> System:
    config = {
        "system": {
            "m": 4,
            "n": 2,
            "R": 128,
            "grid": [9, 9],
            "port_bw_GBps": 50,
            "k": k,
            "alpha_out_ns": 300,
            "alpha_in_ns": 10,
        },
        "topology": {"preset": "hyperx"},
    }
    return System(f"railx-k{k:g}", f"RailX 2D-HyperX k={k:g}", railx=config)


PEERS = [
    System("torus-36x36", "2D torus 36x36", peer={"family": "torus3d", "dims": [36, 36, 1], "ports_per_direction": 2}),
    System(
        "hx4mesh",
        "HammingMesh Hx4Mesh 9x9 boards",
        peer={"family": "hammingmesh", "a": 4, "boards": [9, 9], "planes": 2, "radix": 64, "tiers": 1},
    ),
    System(
        "fat-tree",
        "Non-blocking fat-tree, 8 planes",
        peer={"family": "fat-tree", "radix": 64, "tiers": 2, "chips": 1296, "planes": 8},
    ),
]
# Not in the paper's figure, run with --systems. The HammingMesh matched to RailX: one plane halves
# the ports per chip (4), the board links (RailX k = 1) and the all-to-all bound (1.0
# flits/cycle/chip against RailX's 1.125); it uses as many switch ports and transceivers as
# RailX's OCS plant, so it costs the same per used port.
MATCHED = [
    System(
        "hx4mesh-1plane",
        "HammingMesh Hx4Mesh 9x9 boards, 1 plane",
        peer={"family": "hammingmesh", "a": 4, "boards": [9, 9], "planes": 1, "radix": 64, "tiers": 1},
    ),
]
RAILX_K = (1, 2, 3, 4)
SYSTEMS: dict[str, System] = {s.name: s for s in [railx_hyperx(k) for k in RAILX_K] + PEERS + MATCHED}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--warmup", type=int, help="warm-up cycles (default: Table 5's 5,000; --quick 1,000)")
    parser.add_argument("--cycles", type=int, help="measured cycles (default: Table 5's 10,000; --quick 2,000)")
    parser.add_argument(
        "--vcs-per-class", type=int, default=1, help="physical VCs per VC the routing function names (1: literal)"
    )
    parser.add_argument(
        "--railx-routing", default="minimal", help="routing function of the RailX systems (minimal, balanced, ...)"
    )
    parser.add_argument(
        "--speedup",
        type=int,
        default=1,
        help="crossbar speedup into output queues of 64 flits (1: input-queued, Table 5)",
    )
    parser.add_argument("--railx-only", action="store_true", help="run the RailX k sweep only")
    parser.add_argument("--systems", help=f"run only these, comma-separated: {', '.join(SYSTEMS)}")
    parser.add_argument("--loads", help="offered loads, comma-separated (default: 0.1 to 1.0 by 0.1, and 1.2)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reproductions" / "fig14")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    parser.add_argument("--replot", type=Path, nargs="+", metavar="DIR", help="redraw DIR/fig14.png from its JSON")
    parser.add_argument(
        "--per-musd", type=Path, nargs="+", metavar="DIR", help="throughput per M$ of DIR/fig14.json, both bases"
    )
    args = parser.parse_args()
    if args.replot or args.per_musd:
        for out in args.replot or []:
            replot(out)
        if args.per_musd:
            print(per_musd_table(args.per_musd))
        return
    systems = [railx_hyperx(k) for k in RAILX_K] + ([] if args.railx_only else PEERS)
    if args.systems:
        wanted = args.systems.split(",")
        unknown = sorted(set(wanted) - set(SYSTEMS))
        if unknown:
            parser.error(f"--systems: unknown {', '.join(unknown)}; valid: {', '.join(SYSTEMS)}")
        systems = [SYSTEMS[name] for name in wanted]
    run(args, systems)


def load_sweep(systems: list[System], loads: list[float], settings: FlitSettings, railx_routing: str) -> Sweep:
    """Fig. 14 as one sweep of the flit-sim analysis (examples/sweeps/fig14.toml and
    fig14-peers.toml are its shipped form): every system at every offered load, all-to-all."""
    data = {
        "sweep": {"name": "fig14-benchmark", "analysis": "flit-sim", "retries": 0},
        "options": {"traffic": "all-to-all"} | asdict(settings),
        "axis": [
            {
                "list": [
                    {"base": base_table(s), "options.routing": railx_routing if s.railx is not None else None}
                    for s in systems
                ]
            },
            {"grid": {"options.load": sorted(loads)}},
        ],
    }
    return parse_spec(data, ROOT, "fig14-benchmark")


def run(args: argparse.Namespace, systems: list[System]) -> None:
    """Simulates every system over the offered loads and writes fig14.json, .csv and .png."""
    warmup, measure = (1000, 2000) if args.quick else (5000, 10000)
    warmup = warmup if args.warmup is None else args.warmup
    measure = measure if args.cycles is None else args.cycles
    loads = [0.2, 0.5, 0.8, 1.0] if args.quick else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2]
    if args.loads:
        loads = [float(x) for x in args.loads.split(",")]
    settings = FlitSettings(
        warmup_cycles=warmup,
        measure_cycles=measure,
        vcs_per_class=args.vcs_per_class,
        switch_speedup=args.speedup,
        output_buffer_flits=64,
        threads=args.threads,
    )
    catalog = load_catalog("railx-table6")
    sweep = load_sweep(systems, loads, settings, args.railx_routing)
    with runner(args.scheduler, args.workers, args.store) as run_on:
        frame = run_on.frame(sweep)
    results = []
    for system in systems:
        rows = frame[frame["base"] == system.name]
        errors = [e for e in rows["error"] if isinstance(e, str)]  # NULL reads back as None or NaN
        try:
            if errors:
                raise ConfigError(errors[0])
            cost = figures(system, catalog)["cost_usd"]
        except ConfigError as exc:
            print(f"skipped {system.name}: {exc}")
            continue
        sim = sweep_summary(list(rows["record"]))
        peak = sim["peak_accepted"]
        chips = sim["points"][0]["chips"]
        row = {
            "system": system.name,
            "label": system.label,
            "chips": chips,
            "cost_usd": cost,
            "peak_accepted": peak,
            "saturation_load": sim["saturation_load"],
            "throughput_per_musd": peak * chips / (cost / 1e6),
            "curve": [(p["offered"], p["accepted"], p["latency"]["mean"]) for p in sim["points"]],
        }
        results.append(row)
        print(
            f"{system.name:14} chips {chips:5} cost ${cost / 1e6:7.2f}M (switches per {catalog.port_basis} port) "
            f"peak accepted {peak:.3f} flits/cycle/chip  {row['throughput_per_musd']:.1f} flits/cycle per M$"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    data = {
        "warmup_cycles": warmup,
        "measure_cycles": measure,
        "vcs_per_class": args.vcs_per_class,
        "switch_speedup": args.speedup,
        "railx_routing": args.railx_routing,
        "port_basis": catalog.port_basis,
        "loads": loads,
        "results": results,
    }
    (args.out / "fig14.json").write_text(json.dumps(data, indent=2))
    with (args.out / "fig14.csv").open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["system", "offered", "accepted", "latency_mean_cycles"])
        for row in results:
            for offered, accepted, latency in row["curve"]:
                out.writerow([row["system"], f"{offered:.4f}", f"{accepted:.4f}", f"{latency:.1f}"])
    plot(results, args.out / "fig14.png", setup(data))


def setup(data: dict) -> str:
    """The run's settings, for the plot's title (keys absent from older runs take their defaults)."""
    return (
        f"{data['warmup_cycles']:,} + {data['measure_cycles']:,} cycles, {data['vcs_per_class']} VC(s) per routing "
        f"VC class, speedup {data.get('switch_speedup', 1)}, RailX routing {data.get('railx_routing', 'minimal')}"
    )


def replot(out: Path) -> None:
    """Redraws OUT/fig14.png from OUT/fig14.json, without simulating."""
    data = json.loads((out / "fig14.json").read_text())
    plot(data["results"], out / "fig14.png", setup(data))
    print(f"wrote {out / 'fig14.png'}")


def per_musd_table(dirs: list[Path]) -> str:
    """A Markdown table: each recorded system's cost and peak throughput per M$ under both switch
    pricing bases, a row per system and run directory (named relative to their common parent)."""
    parent = Path(os.path.commonpath([out.resolve() for out in dirs])) if len(dirs) > 1 else dirs[0].resolve().parent
    head = ["system", "run", "peak (flits/cycle/chip)"]
    head += [f"cost M$ ({basis})" for basis in PORT_BASES] + [f"per M$ ({basis})" for basis in PORT_BASES]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for out in dirs:
        results = json.loads((out / "fig14.json").read_text())["results"]
        for row in throughput_per_cost(results, SYSTEMS):
            cells = [row["label"], str(out.resolve().relative_to(parent)), f"{row['peak_accepted']:.3f}"]
            cells += [f"{row['cost_usd'][basis] / 1e6:.2f}" for basis in PORT_BASES]
            cells += [f"{row['per_musd'][basis]:.1f}" for basis in PORT_BASES]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results: list[dict], path: Path, setup: str) -> None:
    """Draws (a) the ~1.3K-chip systems and (b) the RailX k sweep, accepted vs offered load, both
    axes from zero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for row in results:
        ax = b if row["system"].startswith("railx") else a
        offered, accepted, _ = zip(*row["curve"], strict=True)
        ax.plot(offered, accepted, "o-", label=row["label"])
        if row["system"] == "railx-k2":
            a.plot(offered, accepted, "o-", label=row["label"])
    for ax, title in ((a, "(a) ~1.3K chips, 8 ports/chip"), (b, "(b) RailX, intra-node k x external")):
        ax.set_xlabel("offered (flits/cycle/chip)")
        ax.set_ylabel("accepted (flits/cycle/chip)")
        ax.set_title(title)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        if ax.lines:
            ax.legend(fontsize=7)
    fig.suptitle(f"Fig. 14 all-to-all ({setup})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


if __name__ == "__main__":
    main()
