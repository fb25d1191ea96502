"""CLI: `railx collective` — the time of a collective on a RailX system, by algorithm, and the
size of its explicit schedule (messages, bytes)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from railx._core import System as CoreSystem
from railx._core import collective_counts
from railx.atomic import save_figure
from railx.collectives.models import LINK_MODELS, bus_bandwidth_factor, estimate, estimate_routed
from railx.collectives.params import RailxParams
from railx.collectives.plans import ALGORITHMS, OPS, SIPCO_ALGORITHMS, canonical_op
from railx.collectives.sipco import flex_sipco_bound_s, parse_cus, sipco_all_reduce_time_s, sipco_estimate_s
from railx.config import Config, ConfigError, make_dir, parse_bytes
from railx.messages import shown
from railx.network import Network
from railx.options import OverridesArg, number_option, system_argument
from railx.progress import ProgressCallback, live_progress
from railx.routing.options import MisroutesOpt, RoutingOpt
from railx.systems import System, SystemLike, core_of, resolve_system
from railx.tables import console, print_table

FIDELITIES = ("analytic", "flow", "flit")
# Bytes per flit at --fidelity flit: a cycle is then 2.56 ns at 100 GB/s, so a 300 ns hop is 117
# cycles and a 10 ns mesh hop 4 (both within 3%), while 1 MB is only 4,096 flits
# (railx_core::sim::flit_collective::DEFAULT_FLIT_BYTES).
DEFAULT_FLIT_BYTES = 256
# Local reduction delay per byte forwarded after reducing it. The papers give none (eq. 6-13 are
# pure alpha-beta), so the default adds none; a reduction of 100 GB/s would be 1e-11.
DEFAULT_REDUCE_S_PER_BYTE = 0.0
SWEEP_SIZES = [1 << e for e in range(10, 31, 2)]  # 1 KB .. 1 GB


def _railx_config(system: System | Network | CoreSystem) -> Config | None:
    if isinstance(system, Network):
        return system.config
    if isinstance(system, CoreSystem):  # built from JSON: the configuration is not kept
        return None
    return Config.from_dict(system.railx) if system.railx is not None else None


def collective_report(
    system: SystemLike,
    op: str,
    algo: str,
    size_bytes: int,
    fidelity: str = "analytic",
    chunks: int = 1,
    reduce_s_per_byte: float = DEFAULT_REDUCE_S_PER_BYTE,
    routing: str | None = None,
    flit_bytes: int | None = None,
    link_model: str | None = None,
    misroutes: int | None = None,
    cus: Sequence[int] | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Time, algorithm and bus bandwidth of `op` by `algo` over every chip of any system (a
    :class:`railx.System`, a preset name or a TOML file), with the message and byte counts of its
    schedule. `fidelity`: `analytic` (alpha-beta model; `link_model` `paper`, the RailX paper's
    link conventions, default on RailX, or `routed`, each line's links measured on the routed
    network, the only one for peers) or `flow` (the schedule on the flow-level simulator, routed
    by `routing` (None: the system's default), with a reduction delay of `reduce_s_per_byte`;
    the result also has `flows`, `events`, `aggregated` and `orbit`, the messages each flow
    stands for) or `flit` (the schedule's message DAG on the flit-level simulator with flits of
    `flit_bytes` (None: 256), up to 1e8 flits; the result also has `cycles`, `cycle_s` and
    `flit_bytes`). An option the fidelity does not use is a ConfigError, never ignored: `chunks`
    above 1, `reduce_s_per_byte` above 0, `routing` and `misroutes` under the paper's link model
    (or SiPCO's) at analytic fidelity, `link_model` `paper` at flow or flit, `flit_bytes` at
    analytic or flow.
    `cus`: a peer job's chips (e.g. a Flex-SiPAC job's CUs) instead of every chip. `sipco` and
    `flex-sipco` (SiPAC only, all-reduce) are priced analytically by
    :mod:`railx.collectives.sipco` (the result also has `levels_spanned` and `bound_s`, the
    paper's upper bound). `progress` hears a flow or flit run's progress (railx.progress)."""
    op = canonical_op(op)
    if fidelity not in FIDELITIES:
        raise ConfigError(
            f"fidelity = {shown(fidelity)}: not a fidelity of this command; use --fidelity analytic, flow or flit"
        )
    _refuse_unused_options(fidelity, chunks, reduce_s_per_byte, flit_bytes, link_model)
    if flit_bytes is None:
        flit_bytes = DEFAULT_FLIT_BYTES
    if flit_bytes < 1:
        raise ConfigError(
            f"flit_bytes = {flit_bytes}: a flit carries at least one byte; e.g. --flit-bytes {DEFAULT_FLIT_BYTES}"
        )
    if size_bytes < 1:
        raise ConfigError(f"size = {size_bytes}: a collective moves at least one byte; e.g. --size 1048576")
    if chunks < 1:
        raise ConfigError(f"chunks = {chunks}: a schedule has at least one chunk; use --chunks 1 for no pipelining")
    if not reduce_s_per_byte >= 0:
        raise ConfigError(
            f"reduce_s_per_byte = {reduce_s_per_byte}: must be >= 0 seconds per byte; use 0 for no reduction delay"
        )
    resolved = system if isinstance(system, (Network, CoreSystem)) else System.resolve(system)
    name = resolved.name if isinstance(resolved, System) else "network"
    core = core_of(resolved)
    config = _railx_config(resolved)
    model = link_model or ("paper" if config is not None else "routed")
    if model not in LINK_MODELS:
        raise ConfigError(f"link_model = {shown(model)}: unknown link model; use {' or '.join(LINK_MODELS)}")
    if model == "paper" and config is None:
        raise ConfigError(
            f"link_model = paper: the paper's link model prices RailX systems only, not {name}, a "
            f"{core.family} system; use --link-model routed"
        )
    if fidelity == "analytic" and (model == "paper" or algo in SIPCO_ALGORITHMS):
        for option, value in (("routing", routing), ("misroutes", misroutes)):
            if value is not None:
                priced = "SiPCO's model" if algo in SIPCO_ALGORITHMS else "the paper's link model"
                raise ConfigError(
                    f"{option} = {shown(value)}: {priced} routes nothing at analytic fidelity; "
                    "use --link-model routed or --fidelity flow, or drop it"
                )
    if config is not None and config.jobs:
        raise ConfigError(
            f"jobs = {len(config.jobs)}: a collective here runs over every chip of the system; "
            "use a configuration with one [topology] (a job's own TOML)"
        )
    job_cus = None if cus is None else list(cus)
    if job_cus is not None and config is not None:
        raise ConfigError(
            f"cus = {len(job_cus)} chips: a RailX system's jobs are the [[jobs]] of its configuration; "
            "run the job's own TOML instead of listing chips"
        )
    # The schedule's counts first: they check that the algorithm applies, at any scale.
    counts = collective_counts(core, op, algo, size_bytes, chunks, None, job_cus)
    report: dict[str, Any] = {
        "system": name,
        "family": core.family,
        "op": op,
        "algo": algo,
        "fidelity": fidelity,
        "ranks": counts["ranks"],
        "size_bytes": size_bytes,
        "chunks": chunks,
        "messages": counts["messages"],
        "bytes": counts["bytes"],
    }
    if fidelity == "analytic" and algo in SIPCO_ALGORITHMS:
        radix, spanned, bw_Bps, alpha_s = sipco_estimate_s(core, job_cus)
        report.update(
            time_s=sipco_all_reduce_time_s(radix, len(spanned), size_bytes, bw_Bps, alpha_s),
            bound_s=flex_sipco_bound_s(radix, len(spanned), size_bytes, bw_Bps, alpha_s),
            levels_spanned=len(spanned),
            link_model="sipco",
        )
    elif fidelity == "analytic":
        if model == "paper" and config is not None:
            est = estimate(op, algo, size_bytes, RailxParams.from_config(config))
        else:
            est = estimate_routed(op, algo, size_bytes, core, routing, misroutes, job_cus)
        report.update(time_s=est.time_s, link_model=model)
    if fidelity == "flow":
        from railx.flowsim import collective

        run = collective(core, op, algo, size_bytes, chunks, reduce_s_per_byte, routing, misroutes, job_cus, progress)
        report.update(
            time_s=run.completion_s,
            flows=run.flows,
            events=run.events,
            aggregated=run.aggregated,
            orbit=run.orbit,
            routing=routing or core.routing_names()[0],
            reduce_s_per_byte=reduce_s_per_byte,
        )
    if fidelity == "flit":
        from railx._core import flit_collective

        flit_run = flit_collective(
            core,
            op,
            algo,
            size_bytes,
            chunks,
            reduce_s_per_byte,
            routing,
            misroutes,
            flit_bytes,
            job_cus,
            progress=progress,
        )
        report.update(
            time_s=flit_run["time_s"],
            cycles=flit_run["cycles"],
            cycle_s=flit_run["cycle_s"],
            flit_bytes=flit_bytes,
            routing=routing or core.routing_names()[0],
            reduce_s_per_byte=reduce_s_per_byte,
        )
    report["algbw_Bps"] = size_bytes / report["time_s"]
    report["busbw_Bps"] = report["algbw_Bps"] * bus_bandwidth_factor(op, report["ranks"])
    return report


def _refuse_unused_options(
    fidelity: str, chunks: int, reduce_s_per_byte: float, flit_bytes: int | None, link_model: str | None
) -> None:
    """A one-line ConfigError for an option `fidelity` would silently ignore."""
    # option: (its value, whether it was given, why it does not apply, the fidelities ignoring it)
    unused = {
        "chunks": (chunks, chunks != 1, "the analytic models price the unpipelined schedule", ("analytic",)),
        "reduce_s_per_byte": (
            reduce_s_per_byte,
            reduce_s_per_byte != 0,
            "the analytic models have no reduction delay",
            ("analytic",),
        ),
        "flit_bytes": (flit_bytes, flit_bytes is not None, "only the flit level has flits", ("analytic", "flow")),
        # The flow and flit levels route every message: `routed` describes them, `paper` does not.
        "link_model": (
            link_model,
            link_model == "paper",
            "the paper's conventions price the analytic model only",
            ("flow", "flit"),
        ),
    }
    for option, (value, given, why, ignored_at) in unused.items():
        if given and fidelity in ignored_at:
            raise ConfigError(
                f"{option} = {shown(value)}: not used at fidelity {fidelity} ({why}); "
                f"drop --{option.replace('_', '-')} or choose another --fidelity"
            )


def collective_time_s(
    system: SystemLike,
    cus: Sequence[int] | None,
    algo: str,
    size_bytes: int,
    fidelity: str = "flow",
    op: str = "all-reduce",
) -> float:
    """Completion time (s) of `op` by `algo` over a job's chips `cus` (None: every chip) of a
    system, at `fidelity` (analytic, flow or flit): the entry point of multi-job evaluations
    (e.g. Flex-SiPCO on each job of a Flex-SiPAC). See :func:`collective_report`."""
    return float(collective_report(system, op, algo, size_bytes, fidelity, cus=cus)["time_s"])


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.loglog([r["size_bytes"] for r in rows], [r["time_s"] for r in rows], marker="o")
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("time (s)")
    ax.set_title(f"{rows[0]['op']} by {rows[0]['algo']} on {rows[0]['system']} ({rows[0]['ranks']:,} chips)")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def register(app: typer.Typer) -> None:
    """Adds `collective` to the railx command."""

    @app.command("collective")
    def collective_cmd(
        system: Annotated[str, system_argument()],
        overrides: OverridesArg = None,
        op: Annotated[
            str, typer.Option("--op", help=f"Operation: {', '.join(OPS)} (the spellings without hyphens also work).")
        ] = "all-reduce",
        algo: Annotated[
            str,
            typer.Option(
                "--algo",
                help=f"Algorithm: {', '.join(ALGORITHMS + SIPCO_ALGORITHMS)} (two-step: all-to-all only; sipco, flex-sipco: all-reduce on a sipac system, with optical multicast).",
            ),
        ] = "hierarchical",
        size: Annotated[
            str | None,
            typer.Option(
                "--size",
                metavar="BYTES",
                help="Bytes per rank (all-to-all: bytes each rank sends in total): a number, or with a unit, e.g. 1048576, 1MiB, 1.5GB.",
                show_default=False,
            ),
        ] = None,
        fidelity: Annotated[
            str,
            typer.Option(
                "--fidelity",
                help="How the time is computed: analytic (alpha-beta model, see --link-model), flow (the explicit schedule on the flow-level simulator; aggregated, exactly, over the system's symmetry group where the schedule is invariant) or flit (the schedule on the cycle-level flit simulator; up to 1e8 flits).",
            ),
        ] = "analytic",
        routing: RoutingOpt = None,
        misroutes: MisroutesOpt = None,
        link_model: Annotated[
            str | None,
            typer.Option(
                "--link-model",
                help="With --fidelity analytic: paper (the RailX paper's link conventions, eq. 6-13; RailX only, its default) or routed (each line's step measured on the routed network; the peers' default).",
            ),
        ] = None,
        reduce_s_per_byte: Annotated[
            float,
            number_option(
                "--reduce-s-per-byte",
                low=0,
                help="With --fidelity flow or flit: local reduction delay before forwarding reduced data, seconds per byte (default 0: the papers' models have none).",
            ),
        ] = DEFAULT_REDUCE_S_PER_BYTE,
        flit_bytes: Annotated[
            int | None,
            typer.Option(
                "--flit-bytes",
                min=1,
                help=f"With --fidelity flit: bytes per flit (default {DEFAULT_FLIT_BYTES}); a cycle is flit-bytes over the external port bandwidth, link latencies are rounded to cycles.",
                show_default=False,
            ),
        ] = None,
        chunks: Annotated[
            int,
            typer.Option(
                "--chunks",
                min=1,
                help="With --fidelity flow or flit: pipelined chunks of the schedule (changes its message count).",
            ),
        ] = 1,
        cus: Annotated[
            str | None,
            typer.Option(
                "--cus",
                metavar="IDS",
                help="A job on a peer system: its chips (CUs), e.g. 0-63 or 0-31,64-95; the collective runs over them only (RailX jobs are the configuration's [[jobs]]).",
                show_default=False,
            ),
        ] = None,
        sweep: Annotated[
            bool, typer.Option("--sweep", help="Sizes 1 KB to 1 GB (x4 steps) instead of --size.")
        ] = False,
        plot: Annotated[Path | None, typer.Option("--plot", help="With --sweep: write time vs size as a PNG.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """Time of a collective on any system (RailX or a peer), at analytic, flow or flit level.

        All-reduce, reduce-scatter, all-gather or all-to-all over every chip (or a peer job's
        --cus), with its algorithm and bus bandwidth and the size of its explicit schedule.
        """
        if sweep and size is not None:
            raise ConfigError(f"--size {size} and --sweep: give one; --sweep runs its own sizes")
        if not sweep and size is None:
            raise ConfigError("collective: give --size BYTES or --sweep; e.g. --size 1048576")
        if plot is not None and not sweep:
            raise ConfigError(f"plot = {plot}: --plot draws a sweep; add --sweep")
        if plot is not None:
            make_dir(plot.parent, f"--plot {plot}")  # before the run, not when it is over
        sizes = SWEEP_SIZES if size is None else [parse_bytes(size, "size")]
        resolved = resolve_system(system, overrides)
        job = None if cus is None else parse_cus(cus, core_of(resolved).chips)
        quiet = as_json or fidelity == "analytic"
        with live_progress(f"{fidelity}-level {op}", quiet) as progress:
            rows = [
                collective_report(
                    resolved,
                    op,
                    algo,
                    s,
                    fidelity,
                    chunks,
                    reduce_s_per_byte,
                    routing,
                    flit_bytes,
                    link_model,
                    misroutes,
                    job,
                    progress,
                )
                for s in sizes
            ]
        if plot is not None:
            _plot(rows, plot)
        if as_json:
            print(json.dumps(rows if sweep else rows[0], indent=2))
            return
        first = rows[0]
        table = Table(title=f"{first['op']} by {algo} on {first['system']} ({first['ranks']:,} chips, {fidelity})")
        for col in ("size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "messages", "bytes sent"):
            table.add_column(col, justify="right")
        for r in rows:
            table.add_row(
                f"{r['size_bytes']:,}",
                f"{r['time_s'] * 1e6:,.3f}",
                f"{r['algbw_Bps'] / 1e9:,.2f}",
                f"{r['busbw_Bps'] / 1e9:,.2f}",
                f"{r['messages']:,}",
                f"{r['bytes']:,.0f}",
            )
        print_table(table)
        if plot is not None:
            console.print(f"wrote {plot}")
