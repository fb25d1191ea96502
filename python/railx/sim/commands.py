"""CLI: `railx sim` — the flit-level simulator: one run, or a load sweep with a plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated, TypedDict

import typer
from rich.console import Console
from rich.table import Table

from railx.config import ConfigError, make_dir
from railx.options import seed_option
from railx.progress import live_progress
from railx.routing.options import MisroutesOpt, RoutingOpt
from railx.sim import (
    FlitSettings,
    canonical_traffic,
    parse_flow_control,
    parse_injection_queues,
    parse_switch_allocation,
    preset_routing,
    preset_settings,
    simulate,
    sweep,
)
from railx.systems import resolve_system

console = Console()


class _RunOptions(TypedDict):
    """What a single run and a sweep share."""

    settings: FlitSettings
    routing: str | None
    misroutes: int | None
    job: str | None
    permutation: str
    hotspot_chips: list[int]
    hotspot_fraction: float


def _loads(text: str) -> list[float]:
    try:
        loads = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"sweep = {text!r}: give offered loads separated by commas; e.g. 0.1,0.2,0.4") from None
    if not loads:
        raise ConfigError(f"sweep = {text!r}: give at least one load; e.g. 0.1,0.2,0.4")
    return loads


def _plot(report: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = report["points"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    offered = [p["offered"] for p in points]
    a.plot(offered, [p["accepted"] for p in points], "o-", label="accepted")
    a.plot(offered, offered, ":", color="grey", label="offered")
    a.set_xlabel("offered (flits/cycle/chip)")
    a.set_ylabel("accepted (flits/cycle/chip)")
    a.legend()
    b.plot(offered, [p["latency"]["mean"] for p in points], "o-")
    b.set_xlabel("offered (flits/cycle/chip)")
    b.set_ylabel("mean packet latency (cycles)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def register(app: typer.Typer) -> None:
    """Adds `sim` to the railx command."""

    @app.command("sim")
    def sim_cmd(
        system: Annotated[
            str,
            typer.Argument(
                help="RailX configuration (.toml), a \\[peer] file, or a preset name (see `railx cost`).",
                show_default=False,
            ),
        ],
        traffic: Annotated[
            str, typer.Option("--traffic", help="uniform, all-to-all (or alltoall), permutation or hotspot.")
        ] = "uniform",
        load: Annotated[
            float,
            typer.Option(
                "--load", help="Offered load in flits/cycle per chip (at most the chip's injection bandwidth)."
            ),
        ] = 0.1,
        cycles: Annotated[
            int | None,
            typer.Option(
                "--cycles", min=1, help="Measured cycles, after the warm-up (default: the preset's; Table 5: 10000)."
            ),
        ] = None,
        warmup: Annotated[
            int | None,
            typer.Option(
                "--warmup", min=0, help="Warm-up cycles before measuring (default: the preset's; Table 5: 5000)."
            ),
        ] = None,
        preset: Annotated[
            str,
            typer.Option(
                "--preset",
                help="Simulator settings: table5 (the paper's Table 5, with the options below) or cnsim (the RailX authors' simulator: its router, links, injection and 500 + 1000 cycles, routing phased on RailX; the router, link and injection options below are then not used).",
            ),
        ] = "table5",
        routing: RoutingOpt = None,
        misroutes: MisroutesOpt = None,
        job: Annotated[
            str | None, typer.Option("--job", help="Job to simulate in (RailX configurations with jobs only).")
        ] = None,
        threads: Annotated[
            int, typer.Option("--threads", min=1, max=1024, help="Worker threads (results do not depend on it).")
        ] = 1,
        seed: Annotated[int, seed_option("Seed of the traffic's random choices.")] = 0,
        permutation: Annotated[
            str, typer.Option("--permutation", help="With --traffic permutation: random, transpose or bit-complement.")
        ] = "random",
        hotspot_chips: Annotated[
            str, typer.Option("--hotspot-chips", help="With --traffic hotspot: chip ids, comma-separated.")
        ] = "0",
        hotspot_fraction: Annotated[
            float,
            typer.Option("--hotspot-fraction", help="With --traffic hotspot: share of packets sent to the hotspots."),
        ] = 0.2,
        size_flits: Annotated[
            int | None,
            typer.Option(
                "--size-flits",
                min=1,
                help="With --traffic all-to-all: flits per pair, run to completion (reports completion_cycles).",
            ),
        ] = None,
        injection: Annotated[
            float | None,
            typer.Option(
                "--injection", help="Chip injection bandwidth in flits/cycle (default: its ports, 1 flit/cycle each)."
            ),
        ] = None,
        router_delay: Annotated[
            int,
            typer.Option(
                "--router-delay",
                min=0,
                help="Cycles from a packet's head reaching a router to its first chance to leave (Table 5: 1).",
            ),
        ] = 1,
        head_delay: Annotated[
            int,
            typer.Option(
                "--head-delay",
                min=0,
                help="Idle cycles between the packets leaving one input VC (0: pipelined router; 2: a non-speculative one such as BookSim2's default).",
            ),
        ] = 0,
        injection_queues: Annotated[
            str,
            typer.Option(
                "--injection-queues",
                help="How a chip queues what it sends: single (one FIFO, as BookSim2's source queue) or per-message (a queue per message, up to 64, leaving side by side).",
            ),
        ] = "single",
        switch_allocation: Annotated[
            str,
            typer.Option(
                "--switch-allocation",
                help="What the switch allocator grants: packet (a whole packet holds its input and output) or flit (each flit on its own, as BookSim2's router).",
            ),
        ] = "packet",
        flow_control: Annotated[
            str,
            typer.Option(
                "--flow-control",
                help="cut-through (a packet takes a VC with room for all of it) or, with --switch-allocation flit, wormhole (a free VC with room for one flit).",
            ),
        ] = "cut-through",
        speedup: Annotated[
            int,
            typer.Option(
                "--speedup",
                min=1,
                help="Crossbar speedup: packets cross the switch this many times faster than the links into output queues (1: an input-queued router, as the paper's Table 5).",
            ),
        ] = 1,
        output_buffer: Annotated[
            int, typer.Option("--output-buffer", min=1, help="With --speedup above 1: output queue per port, in flits.")
        ] = 16,
        packet_flits: Annotated[int, typer.Option("--packet-flits", min=1, help="Flits per packet.")] = 4,
        buffer_flits: Annotated[
            int, typer.Option("--buffer-flits", min=1, help="Input buffer per virtual channel, in flits.")
        ] = 16,
        vcs_per_class: Annotated[
            int,
            typer.Option(
                "--vcs-per-class",
                min=1,
                help="Physical virtual channels (each with its own buffer) behind every VC the routing function names; a packet takes any free one of its class. 1 = the routing's VCs as they are.",
            ),
        ] = 1,
        long_latency: Annotated[
            int,
            typer.Option(
                "--long-latency", min=0, help="Cycles of latency of inter-node (optical, copper, switch) links."
            ),
        ] = 10,
        short_latency: Annotated[
            int, typer.Option("--short-latency", min=0, help="Cycles of latency of intra-node links.")
        ] = 1,
        sweep_loads: Annotated[
            str | None, typer.Option("--sweep", help="Offered loads to sweep, comma-separated (instead of --load).")
        ] = None,
        plot: Annotated[
            Path | None,
            typer.Option("--plot", help="With --sweep: write accepted throughput and latency vs load to this PNG."),
        ] = None,
        links_out: Annotated[
            Path | None,
            typer.Option("--links", help="Write per-link utilisation to this CSV (link, src, dst, utilisation)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """Cycle-based flit-level simulation of traffic on any system.

        Paper Table 5 defaults: 4-flit packets, 16-flit VC buffers, links of 1 flit/cycle and 10
        cycles between nodes, k flits/cycle and 1 cycle inside. Prints offered and accepted throughput (flits/cycle/chip), packet latency (cycles) and
        link utilisation; with --sweep, one row per load and the saturation load.
        """
        if plot is not None and sweep_loads is None:
            raise ConfigError("plot: --plot draws a sweep; add --sweep LOADS, e.g. --sweep 0.1,0.2,0.4")
        if plot is not None:
            make_dir(plot.parent, f"--plot {plot}")  # before the run, not when it is over
        pattern = canonical_traffic(traffic)
        sys_ = resolve_system(system)
        settings = FlitSettings(
            packet_flits=packet_flits,
            buffer_flits=buffer_flits,
            vcs_per_class=vcs_per_class,
            short_latency_cycles=short_latency,
            long_latency_cycles=long_latency,
            injection_flits_per_cycle=injection,
            injection_queues=parse_injection_queues(injection_queues),
            router_delay_cycles=router_delay,
            head_delay_cycles=head_delay,
            switch_allocation=parse_switch_allocation(switch_allocation),
            flow_control=parse_flow_control(flow_control),
            switch_speedup=speedup,
            output_buffer_flits=output_buffer,
            threads=threads,
            seed=seed,
        )
        if preset != "table5":
            settings = preset_settings(preset, sys_, threads=threads, seed=seed)
            if routing is None and sys_.family == "railx":
                routing = preset_routing(preset)
        if warmup is not None:
            settings.warmup_cycles = warmup
        if cycles is not None:
            settings.measure_cycles = cycles
        try:
            hot = [int(c) for c in hotspot_chips.split(",") if c.strip()]
        except ValueError:
            raise ConfigError(
                f"hotspot_chips = {hotspot_chips!r}: give chip ids separated by commas; e.g. 0,17"
            ) from None
        common: _RunOptions = {
            "settings": settings,
            "routing": routing,
            "misroutes": misroutes,
            "job": job,
            "permutation": permutation,
            "hotspot_chips": hot,
            "hotspot_fraction": hotspot_fraction,
        }
        if sweep_loads is not None:
            with live_progress(f"{pattern} load sweep", as_json) as progress:
                report = sweep(sys_, _loads(sweep_loads), pattern, progress=progress, **common)
            if plot is not None:
                _plot(report, plot, f"{sys_.name}: {pattern}")
            if as_json:
                print(json.dumps(report, indent=2))
                return
            table = Table(title=f"{sys_.name}: {pattern} load sweep ({report['points'][0]['routing']} routing)")
            for col in ("offered", "accepted", "latency mean", "p99", "max link util."):
                table.add_column(col, justify="right")
            for p in report["points"]:
                table.add_row(
                    f"{p['offered']:.4f}",
                    f"{p['accepted']:.4f}",
                    f"{p['latency']['mean']:.1f}",
                    str(p["latency"]["p99"]),
                    f"{p['max_link_utilisation']:.3f}",
                )
            console.print(table)
            saturation = report["saturation_load"]
            reached = "not reached" if saturation is None else f"{saturation:.4f}"
            console.print(f"saturation load: {reached}  peak accepted: {report['peak_accepted']:.4f} flits/cycle/chip")
            return
        with live_progress(f"flit-level {pattern}", as_json) as progress:
            report, utilisation = simulate(sys_, pattern, load, size_flits=size_flits, progress=progress, **common)
        if links_out is not None:
            net = sys_.network()
            with links_out.open("w", newline="") as fh:
                out = csv.writer(fh)
                out.writerow(["link", "src", "dst", "utilisation"])
                for i, u in enumerate(utilisation):
                    out.writerow([i, int(net["src"][i]), int(net["dst"][i]), f"{u:.6f}"])
        if as_json:
            print(json.dumps(report, indent=2))
            return
        table = Table(title=f"{sys_.name}: {report['traffic']} ({report['routing']} routing, {report['chips']} chips)")
        table.add_column("quantity")
        table.add_column("value", justify="right")
        rows = {
            "offered (flits/cycle/chip)": report["offered"],
            "accepted (flits/cycle/chip)": report["accepted"],
            "latency mean / p50 / p99 / max (cycles)": "{mean:.1f} / {p50} / {p99} / {max}".format(**report["latency"]),
            "cycles (measured)": f"{report['cycles']} ({report['measured_cycles']})",
            "flits delivered": report["flits_delivered"],
            "link utilisation mean / max": f"{report['mean_link_utilisation']:.3f} / {report['max_link_utilisation']:.3f}",
            "completion cycles": report["completion_cycles"],
        }
        for key, value in rows.items():
            table.add_row(key, f"{value:.4f}" if isinstance(value, float) else str(value))
        console.print(table)
        if report["deadlock"]:
            d = report["deadlock"]
            console.print(
                f"[red]deadlock[/red]: nothing moved for {d['stalled_cycles']} cycles (cycle {d['detected_at']}); blocked channels (link: from chip -> to chip @ vc):"
            )
            console.print(
                " -> ".join(f"{c['link']}: {c['from_chip']}->{c['to_chip']}@{c['vc']}" for c in d["channels"])
            )
