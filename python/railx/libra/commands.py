"""`railx libra`: LIBRA's optimisation on LIBRA's own input files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from railx.config import ConfigError, is_one_of
from railx.libra.constraints import load_constraints
from railx.libra.cost import load_cost_model
from railx.libra.loops import LOOP_NAMES, TimeExpr, build_time
from railx.libra.network import load_network
from railx.libra.optimize import OBJECTIVES, Design, LibraResult, optimize
from railx.libra.workload import load_communicator, load_workload

__all__ = ["register", "result_json"]


def _design_json(d: Design) -> dict[str, object]:
    return {
        "bw_per_dim": list(d.bw_per_dim_GBps),
        "time_s": d.time_s,
        "workload_times_s": d.workload_times_s,
        "cost_usd": d.cost_usd,
    }


def result_json(r: LibraResult) -> dict[str, object]:
    """The JSON record of a result: bandwidths in GB/s per NPU, times in seconds, costs in dollars."""
    return {
        "network": r.network,
        "objective": r.objective,
        **_design_json(r.optimum),
        "baseline": _design_json(r.baseline),
        "speedup": r.speedup,
        "perf_per_cost_gain": r.perf_per_cost_gain,
        "solver": r.solver,
    }


def _table(r: LibraResult) -> Table:
    table = Table(title=f"LIBRA {r.objective} on {r.network}")
    table.add_column("design")
    for i in range(len(r.optimum.bw_per_dim_GBps)):
        table.add_column(f"bw{i} GB/s", justify="right")
    table.add_column("time s", justify="right")
    table.add_column("cost $", justify="right")
    for name, d in (("optimum", r.optimum), ("EqualBW", r.baseline)):
        table.add_row(name, *(f"{b:.2f}" for b in d.bw_per_dim_GBps), f"{d.time_s:.6g}", f"{d.cost_usd:,.0f}")
    table.caption = f"speedup {r.speedup:.3f}x, perf-per-cost gain {r.perf_per_cost_gain:.3f}x ({r.solver})"
    return table


def libra(
    network: Annotated[
        str, typer.Option("--network", help="LIBRA network YAML, or a notation like RI(4)_FC(8)_RI(4)_SW(32).")
    ],
    workload: Annotated[
        list[Path], typer.Option("--workload", help="ASTRA-sim 1.0 workload text file (repeat for several).")
    ],
    communicator: Annotated[
        list[Path], typer.Option("--communicator", help="Communicator YAML, one per --workload, same order.")
    ],
    cost: Annotated[Path, typer.Option("--cost", help="LIBRA cost-model YAML ($ per GB/s).")],
    objective: Annotated[
        str, typer.Option("--objective", help="perf (PerfOpt) or perf-per-cost (PerfPerCostOpt).")
    ] = "perf",
    total_bw: Annotated[
        float | None, typer.Option("--total-bw", help="Sum of all dimensions' bandwidth, GB/s per NPU.")
    ] = None,
    constraints: Annotated[
        Path | None, typer.Option("--constraints", help="Constraints TOML (see docs/workloads.md).")
    ] = None,
    weight: Annotated[
        list[float] | None, typer.Option("--weight", help="Weight of each --workload (default 1).")
    ] = None,
    loop: Annotated[str, typer.Option("--loop", help="Training loop: no-overlap or tp-dp-overlap.")] = "no-overlap",
    cost_dims: Annotated[
        str | None,
        typer.Option("--cost-dims", help="Comma-separated cost dimension per network dimension (for a notation)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")] = False,
) -> None:
    """Optimise per-dimension bandwidth of a multi-dimensional network (LIBRA), globally.

    Reads LIBRA's own input files, solves with an open convex solver and compares with EqualBW.
    """
    if not is_one_of(objective, OBJECTIVES):
        raise ConfigError(f"--objective = {objective!r}: must be perf or perf-per-cost")
    if not is_one_of(loop, LOOP_NAMES):
        raise ConfigError(f"--loop = {loop!r}: must be no-overlap or tp-dp-overlap")
    if len(communicator) != len(workload):
        raise ConfigError(
            f"--communicator: {len(communicator)} given for {len(workload)} --workload; give one per workload, same order"
        )
    weights_in = weight or [1.0] * len(workload)
    if len(weights_in) != len(workload) or any(w <= 0 for w in weights_in):
        raise ConfigError(f"--weight: give one positive weight per --workload ({len(workload)}), e.g. --weight 1")
    net = load_network(network)
    if cost_dims is not None:
        net = net.with_cost_dimensions([c.strip() for c in cost_dims.split(",")])
    cost_model = load_cost_model(cost)
    times: dict[str, TimeExpr] = {}
    weights: dict[str, float] = {}
    for w_path, c_path, w in zip(workload, communicator, weights_in):
        wl = load_workload(w_path)
        name = wl.name if wl.name not in times else f"{wl.name}#{len(times)}"
        times[name] = build_time(wl, load_communicator(c_path, net), loop)
        weights[name] = w
    cons = load_constraints(constraints, len(net.dims)).with_total(total_bw)
    result = optimize(net, cost_model, times, weights, cons, objective)
    if as_json:
        print(json.dumps(result_json(result), indent=2))
        return
    Console().print(_table(result))


def register(app: typer.Typer) -> None:
    """Adds `railx libra`."""
    app.command("libra")(libra)
