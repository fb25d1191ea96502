"""CLI: `railx collective` — the time of a collective on a RailX system, by algorithm, and the
size of its explicit schedule (messages, bytes)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from railx._core import collective_counts
from railx.collectives.models import bus_bandwidth_factor, estimate
from railx.collectives.params import RailxParams
from railx.collectives.plans import ALGORITHMS, OPS
from railx.config import Config, ConfigError, parse_bytes
from railx.systems import resolve_system

console = Console()

FIDELITIES = ("analytic", "flow", "flit")
# Bytes per flit at --fidelity flit: a cycle is then 2.56 ns at 100 GB/s, so a 300 ns hop is 117
# cycles and a 10 ns mesh hop 4 (both within 3%), while 1 MB is only 4,096 flits
# (railx_core::sim::flit_collective::DEFAULT_FLIT_BYTES).
DEFAULT_FLIT_BYTES = 256
# Local reduction delay per byte forwarded after reducing it. The papers give none (eq. 6-13 are
# pure alpha-beta), so the default adds none; a reduction of 100 GB/s would be 1e-11.
DEFAULT_REDUCE_S_PER_BYTE = 0.0
SWEEP_SIZES = [1 << e for e in range(10, 31, 2)]  # 1 KB .. 1 GB


@lru_cache(maxsize=2)
def _network(railx_toml_json: str) -> Any:
    """The realized network of a RailX configuration (cached: a sweep realizes it once)."""
    from railx.network import Network

    return Network(Config.from_dict(json.loads(railx_toml_json)))


def collective_report(
    system: str,
    op: str,
    algo: str,
    size_bytes: int,
    fidelity: str = "analytic",
    chunks: int = 1,
    reduce_s_per_byte: float = DEFAULT_REDUCE_S_PER_BYTE,
    routing: str = "minimal",
    flit_bytes: int = DEFAULT_FLIT_BYTES,
) -> dict[str, Any]:
    """Time, algorithm and bus bandwidth of `op` by `algo` on a RailX system (preset or TOML file),
    with the message and byte counts of its schedule. `fidelity`: `analytic` (alpha-beta model)
    or `flow` (the schedule on the flow-level simulator, routed by `routing`, with a reduction
    delay of `reduce_s_per_byte`; the result also has `flows`, `events`, `aggregated` and `orbit`,
    the messages each flow stands for) or
    `flit` (the schedule's message DAG on the flit-level simulator with flits of `flit_bytes`,
    up to 1,296 chips and 1e8 flits; the result also has `cycles`, `cycle_s` and `flit_bytes`)."""
    if fidelity not in FIDELITIES:
        raise ConfigError(
            f"fidelity = {fidelity!r}: not a fidelity of this command; use --fidelity analytic, flow or flit"
        )
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
    sys = resolve_system(system)
    if sys.railx is None:
        raise ConfigError(
            f"system = {system!r}: a {sys.family} system; collective schedules run on RailX systems (a RailX TOML or railx4mesh, railx7mesh)"
        )
    params = RailxParams.from_config(sys.railx)
    est = estimate(op, algo, size_bytes, params)
    counts = collective_counts(Config.from_dict(sys.railx).to_core_json(), op, algo, size_bytes, chunks)
    report: dict[str, Any] = {
        "system": sys.name,
        "op": op,
        "algo": algo,
        "fidelity": fidelity,
        "ranks": est.ranks,
        "size_bytes": size_bytes,
        "time_s": est.time_s,
        "chunks": chunks,
        "messages": counts["messages"],
        "bytes": counts["bytes"],
    }
    if fidelity == "flow":
        from railx.flowsim import collective

        run = collective(
            _network(json.dumps(sys.railx, sort_keys=True)), op, algo, size_bytes, chunks, reduce_s_per_byte, routing
        )  # type: ignore[arg-type]
        report.update(
            time_s=run.completion_s,
            flows=run.flows,
            events=run.events,
            aggregated=run.aggregated,
            orbit=run.orbit,
            routing=routing,
            reduce_s_per_byte=reduce_s_per_byte,
        )
    if fidelity == "flit":
        from railx._core import flit_collective

        net = _network(json.dumps(sys.railx, sort_keys=True))
        run = flit_collective(net._core, op, algo, size_bytes, chunks, reduce_s_per_byte, routing, flit_bytes)
        report.update(
            time_s=run["time_s"],
            cycles=run["cycles"],
            cycle_s=run["cycle_s"],
            flit_bytes=flit_bytes,
            routing=routing,
            reduce_s_per_byte=reduce_s_per_byte,
        )
    report["algbw_Bps"] = size_bytes / report["time_s"]
    report["busbw_Bps"] = report["algbw_Bps"] * bus_bandwidth_factor(op, est.ranks)
    return report


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
    fig.savefig(path, dpi=120)
    plt.close(fig)


def register(app: typer.Typer) -> None:
    """Adds `collective` to the railx command."""

    @app.command("collective")
    def collective_cmd(
        system: Annotated[
            str,
            typer.Argument(
                help="RailX system: a TOML configuration or a preset name (railx4mesh, railx7mesh).", show_default=False
            ),
        ],
        op: Annotated[str, typer.Option("--op", help=f"Operation: {', '.join(OPS)}.")] = "allreduce",
        algo: Annotated[
            str, typer.Option("--algo", help=f"Algorithm: {', '.join(ALGORITHMS)} (two-step: all-to-all only).")
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
                help="How the time is computed: analytic (alpha-beta model), flow (the explicit schedule on the flow-level simulator; aggregated and exact on a torus) or flit (the schedule on the cycle-level flit simulator; up to 1,296 chips and 1e8 flits).",
            ),
        ] = "analytic",
        routing: Annotated[
            str,
            typer.Option(
                "--routing",
                help="With --fidelity flow or flit: routing function: minimal, dateline, adaptive or balanced (use dateline at flit level on tori: deadlock-free).",
            ),
        ] = "minimal",
        reduce_s_per_byte: Annotated[
            float,
            typer.Option(
                "--reduce-s-per-byte",
                help="With --fidelity flow or flit: local reduction delay before forwarding reduced data, seconds per byte (default 0: the papers' models have none).",
            ),
        ] = DEFAULT_REDUCE_S_PER_BYTE,
        flit_bytes: Annotated[
            int,
            typer.Option(
                "--flit-bytes",
                help="With --fidelity flit: bytes per flit; a cycle is flit-bytes over the external port bandwidth, link latencies are rounded to cycles.",
            ),
        ] = DEFAULT_FLIT_BYTES,
        chunks: Annotated[
            int, typer.Option("--chunks", help="Pipelined chunks of the schedule (changes its message count).")
        ] = 1,
        sweep: Annotated[
            bool, typer.Option("--sweep", help="Sizes 1 KB to 1 GB (x4 steps) instead of --size.")
        ] = False,
        plot: Annotated[
            Path | None, typer.Option("--plot", help="With --sweep: write time vs size as a PNG.")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """Time of a collective (all-reduce, reduce-scatter, all-gather, all-to-all) over every chip of
        a RailX system, with its algorithm and bus bandwidth and the size of its explicit schedule."""
        if sweep == (size is not None):
            raise ConfigError("collective: give --size BYTES or --sweep; e.g. --size 1048576")
        if plot is not None and not sweep:
            raise ConfigError(f"plot = {plot}: --plot draws a sweep; add --sweep")
        sizes = SWEEP_SIZES if size is None else [parse_bytes(size, "size")]
        rows = [
            collective_report(system, op, algo, s, fidelity, chunks, reduce_s_per_byte, routing, flit_bytes)
            for s in sizes
        ]  # type: ignore[arg-type]
        if plot is not None:
            _plot(rows, plot)
        if as_json:
            print(json.dumps(rows if sweep else rows[0], indent=2))
            return
        first = rows[0]
        table = Table(title=f"{op} by {algo} on {first['system']} ({first['ranks']:,} chips, {fidelity})")
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
        console.print(table)
        if plot is not None:
            console.print(f"wrote {plot}")
