"""CLI: `railx sim` — the flit-level simulator: one run, or a load sweep with a plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated, TypedDict

import typer
from rich.table import Table

from railx.atomic import atomic_path, save_figure
from railx.config import MAX_INJECTION, MIN_INJECTION, Config, ConfigError, SimConfig, make_dir, output_file
from railx.options import OverridesArg, given_names, given_or_from_file, number_option, seed_option, system_argument
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
)
from railx.sim import sweep as load_sweep
from railx.systems import resolve_system
from railx.tables import cell, console, print_table


class _RunOptions(TypedDict):
    """What a single run and a sweep share."""

    settings: FlitSettings
    routing: str | None
    misroutes: int | None
    job: str | None
    permutation: str | None
    hotspot_chips: list[int] | None
    hotspot_fraction: float | None


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
    save_figure(fig, path, dpi=130)


#: The settings a preset other than table5 fixes (the router, the links and injection).
_PRESET_FIXES = ("packet_flits", "buffer_flits", "vcs_per_class", "short_latency", "long_latency", "injection",
                 "injection_queues", "router_delay", "head_delay", "switch_allocation", "flow_control", "speedup",
                 "output_buffer")  # fmt: skip


def _refuse_unused(o: SimConfig, given: set[str], links_out: Path | None) -> None:
    """A one-line ConfigError for a setting given (on the line or in [sim]) that the run would
    silently ignore."""
    if o.preset != "table5":
        for name in _PRESET_FIXES:
            if name in given:
                raise ConfigError(
                    f"{name} = {getattr(o, name)}: the {o.preset} preset fixes the router, links and injection; "
                    f"drop --{name.replace('_', '-')} or use --preset table5"
                )
    if o.size_flits is not None:
        # A finite all-to-all runs to completion: it has no offered load and no window.
        for name in ("load", "warmup", "cycles"):
            if name in given:
                raise ConfigError(
                    f"{name} = {getattr(o, name)}: a finite all-to-all (size_flits) runs to completion, without a "
                    f"load or a measuring window; drop --{name}"
                )
    if o.sweep is not None:
        # What only a single run uses would be silently dropped by a sweep.
        single = {"load": o.load if "load" in given else None, "size_flits": o.size_flits, "links": links_out}
        for name, value in single.items():
            if value is not None:
                raise ConfigError(f"{name} = {value}: a single run's option, not a sweep's; drop --{name} or --sweep")


def register(app: typer.Typer) -> None:
    """Adds `sim` to the railx command."""

    @app.command("sim")
    def sim_cmd(
        ctx: typer.Context,
        system: Annotated[str, system_argument()],
        overrides: OverridesArg = None,
        traffic: Annotated[
            str, typer.Option("--traffic", help="uniform, all-to-all (or alltoall), permutation or hotspot.")
        ] = "uniform",
        load: Annotated[
            float,
            number_option(
                "--load", low=0, help="Offered load in flits/cycle per chip (at most the chip's injection bandwidth)."
            ),
        ] = 0.1,
        cycles: Annotated[
            int,
            typer.Option(
                "--cycles", min=1, help="Measured cycles, after the warm-up (--preset cnsim: 1000 unless given)."
            ),
        ] = 10000,
        warmup: Annotated[
            int,
            typer.Option("--warmup", min=0, help="Warm-up cycles before measuring (--preset cnsim: 500 unless given)."),
        ] = 5000,
        preset: Annotated[
            str,
            typer.Option(
                "--preset",
                help="Simulator settings: table5 (the paper's Table 5, with the router, link and injection options "
                "below) or cnsim (the RailX authors' simulator: its router, links and injection, 500 + 1000 cycles, "
                "routing phased on RailX; the router, link and injection options are then refused).",
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
            number_option(
                "--hotspot-fraction",
                low=0,
                high=1,
                help="With --traffic hotspot: share of packets sent to the hotspots.",
            ),
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
            number_option(
                "--injection",
                low=MIN_INJECTION,
                high=MAX_INJECTION,
                help="Chip injection bandwidth in flits/cycle (default: its ports, 1 flit/cycle each).",
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
        sweep: Annotated[
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

        Every option can also be set in SYSTEM's file, in a [sim] table (names as here, dashes as
        underscores: [sim] load = 0.3, buffer_flits = 8), or as sim.NAME=VALUE after SYSTEM; an
        option on the command line overrides both.
        """
        sys_ = resolve_system(system, overrides)
        o = Config.validate_sim(given_or_from_file(ctx, sys_.sim, SimConfig.model_fields))
        given = given_names(ctx, sys_.sim, SimConfig.model_fields)  # on the line or in [sim]
        if plot is not None and o.sweep is None:
            raise ConfigError("plot: --plot draws a sweep; add --sweep LOADS, e.g. --sweep 0.1,0.2,0.4")
        if plot is not None:
            make_dir(plot.parent, f"--plot {plot}")  # before the run, not when it is over
        if links_out is not None:
            output_file(links_out, f"--links {links_out}")
        _refuse_unused(o, given, links_out)
        pattern = canonical_traffic(o.traffic)
        if o.preset == "table5":
            settings = FlitSettings(
                packet_flits=o.packet_flits,
                buffer_flits=o.buffer_flits,
                vcs_per_class=o.vcs_per_class,
                short_latency_cycles=o.short_latency,
                long_latency_cycles=o.long_latency,
                injection_flits_per_cycle=o.injection,
                injection_queues=parse_injection_queues(o.injection_queues),
                router_delay_cycles=o.router_delay,
                head_delay_cycles=o.head_delay,
                switch_allocation=parse_switch_allocation(o.switch_allocation),
                flow_control=parse_flow_control(o.flow_control),
                switch_speedup=o.speedup,
                output_buffer_flits=o.output_buffer,
                warmup_cycles=o.warmup,
                measure_cycles=o.cycles,
                threads=o.threads,
                seed=o.seed,
            )
        else:
            # The preset's settings, its measuring window unless --warmup or --cycles is given.
            settings = preset_settings(o.preset, sys_, threads=o.threads, seed=o.seed)
            settings.warmup_cycles = o.warmup if "warmup" in given else settings.warmup_cycles
            settings.measure_cycles = o.cycles if "cycles" in given else settings.measure_cycles
        routing = o.routing
        if routing is None and sys_.family == "railx":
            routing = preset_routing(o.preset)
        common: _RunOptions = {
            "settings": settings,
            "routing": routing,
            "misroutes": o.misroutes,
            "job": o.job,
            # Given only (railx.sim refuses a pattern's option given to another pattern).
            "permutation": o.permutation if "permutation" in given else None,
            "hotspot_chips": o.hotspot_chips if "hotspot_chips" in given else None,
            "hotspot_fraction": o.hotspot_fraction if "hotspot_fraction" in given else None,
        }
        if o.sweep is not None:
            with live_progress(f"{pattern} load sweep", as_json) as progress:
                report = load_sweep(sys_, o.sweep, pattern, progress=progress, **common)
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
            print_table(table)
            saturation = report["saturation_load"]
            reached = "not reached" if saturation is None else f"{saturation:.4f}"
            console.print(f"saturation load: {reached}  peak accepted: {report['peak_accepted']:.4f} flits/cycle/chip")
            return
        with live_progress(f"flit-level {pattern}", as_json) as progress:
            report, utilisation = simulate(sys_, pattern, o.load, size_flits=o.size_flits, progress=progress, **common)
        if links_out is not None:
            net = sys_.network()
            with atomic_path(links_out) as temporary, temporary.open("x", newline="") as fh:
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
            table.add_row(key, cell(value, ".4f"))
        print_table(table)
        if report["deadlock"]:
            d = report["deadlock"]
            console.print(
                f"[red]deadlock[/red]: nothing moved for {d['stalled_cycles']} cycles (cycle {d['detected_at']}); blocked channels (link: from chip -> to chip @ vc):"
            )
            console.print(
                " -> ".join(f"{c['link']}: {c['from_chip']}->{c['to_chip']}@{c['vc']}" for c in d["channels"])
            )
