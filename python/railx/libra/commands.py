"""`railx libra`: LIBRA's optimisation on LIBRA's own input files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from railx.config import ConfigError, is_one_of, read_text
from railx.libra.constraints import ConstraintSet, parse_constraints
from railx.libra.cost import CostModel, parse_cost_model
from railx.libra.loops import LOOP_NAMES, LoopName, TimeExpr, build_time
from railx.libra.network import LibraNetwork, parse_network, parse_notation
from railx.libra.optimize import OBJECTIVES, Design, LibraResult, optimize
from railx.libra.workload import Communicator, LibraWorkload, parse_communicator, parse_workload
from railx.messages import shown
from railx.options import number_option
from railx.tables import print_table

__all__ = ["LibraProblem", "Text", "libra_problem", "register", "result_json", "solve"]


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


#: A LIBRA input file: where it came from (its path, or its name in a sweep) and its text.
Text = tuple[str, str]


@dataclass(frozen=True)
class LibraProblem:
    """LIBRA's inputs parsed: what `optimize` takes, and each workload's parsed files (for
    evaluating a design under other time models, railx.libra.evaluation)."""

    network: LibraNetwork
    cost_model: CostModel
    times: dict[str, TimeExpr]
    weights: dict[str, float]
    constraints: ConstraintSet
    parsed: dict[str, tuple[LibraWorkload, Communicator]]
    loop: LoopName
    ring_bw_share: float = 1.0

    def time_of(self, name: str, subgroups: bool = False) -> TimeExpr:
        """Workload `name`'s time expression; with `subgroups`, a group reaches only its
        members' links of a fully-connected dimension (railx.libra.collective.group_share)."""
        wl, comm = self.parsed[name]
        time = build_time(wl, comm, self.loop, network=self.network if subgroups else None)
        if self.ring_bw_share == 1.0:
            return time
        return time.with_bandwidth_share(
            tuple(self.ring_bw_share if d.kind == "RI" else 1.0 for d in self.network.dims)
        )


def libra_problem(
    network: str | Text,
    workloads: Sequence[Text],
    communicators: Sequence[Text],
    cost: Text,
    *,
    objective: str = "perf",
    total_bw: float | None = None,
    constraints: Text | None = None,
    weights: Sequence[float] | None = None,
    loop: str = "no-overlap",
    cost_dims: str | None = None,
    ring_bw_share: float = 1.0,
) -> LibraProblem:
    """LIBRA's input files' texts parsed and checked (what `railx libra` and the sweep's libra
    analysis solve): `network` a notation like `RI(4)_FC(8)_SW(32)` or a network YAML file, one
    communicator per workload (same order), a workload named by its file's stem;
    `ring_bw_share` < 1 has every collective reach only that share of a ring dimension's
    bandwidth (a sensitivity, not LIBRA's model)."""
    if not is_one_of(objective, OBJECTIVES):
        raise ConfigError(f"--objective = {shown(objective)}: must be perf or perf-per-cost")
    if not is_one_of(loop, LOOP_NAMES):
        raise ConfigError(f"--loop = {shown(loop)}: must be no-overlap or tp-dp-overlap")
    if len(communicators) != len(workloads):
        raise ConfigError(
            f"--communicator: {len(communicators)} given for {len(workloads)} --workload; give one per workload, same order"
        )
    if not 0 < ring_bw_share <= 1:
        raise ConfigError(f"ring_bw_share = {shown(ring_bw_share)}: must be in (0, 1], e.g. 0.5 (1 is LIBRA's model)")
    weights_in = list(weights or [1.0] * len(workloads))
    if len(weights_in) != len(workloads) or any(w <= 0 for w in weights_in):
        raise ConfigError(f"--weight: give one positive weight per --workload ({len(workloads)}), e.g. --weight 1")
    if isinstance(network, str):
        if "(" not in network:
            raise ConfigError(f"--network {network}: no such file, and not a notation like RI(4)_FC(8)_RI(4)_SW(32)")
        net = parse_notation(network)
    else:
        net = parse_network(network[1], network[0])
    if cost_dims is not None:
        net = net.with_cost_dimensions([c.strip() for c in cost_dims.split(",")])
    cost_model = parse_cost_model(cost[1], cost[0])
    weight_of: dict[str, float] = {}
    parsed: dict[str, tuple[LibraWorkload, Communicator]] = {}
    for (w_source, w_text), (c_source, c_text), w in zip(workloads, communicators, weights_in):
        wl = parse_workload(w_text, Path(w_source).stem, w_source)
        name = wl.name if wl.name not in parsed else f"{wl.name}#{len(parsed)}"
        parsed[name] = (wl, parse_communicator(c_text, c_source, net))
        weight_of[name] = w
    cons = (
        ConstraintSet(len(net.dims))
        if constraints is None
        else parse_constraints(constraints[1], constraints[0], len(net.dims))
    )
    problem = LibraProblem(net, cost_model, {}, weight_of, cons.with_total(total_bw), parsed, loop, ring_bw_share)
    problem.times.update({name: problem.time_of(name) for name in parsed})
    return problem


def solve(problem: LibraProblem, objective: str) -> LibraResult:
    """LIBRA's optimum of a parsed problem for `objective` (perf or perf-per-cost)."""
    return optimize(
        problem.network,
        problem.cost_model,
        problem.times,
        problem.weights,
        problem.constraints,
        objective,  # type: ignore[arg-type]
    )


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
        float | None,
        number_option("--total-bw", low=0, low_open=True, help="Sum of all dimensions' bandwidth, GB/s per NPU."),
    ] = None,
    constraints: Annotated[
        Path | None, typer.Option("--constraints", help="Constraints TOML (see docs/workloads.md).")
    ] = None,
    weight: Annotated[
        list[float] | None,
        number_option("--weight", low=0, low_open=True, help="Weight of each --workload (default 1)."),
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
    problem = libra_problem(
        network if not Path(network).is_file() else (network, read_text(network, f"--network {network}")),
        [(str(p), read_text(p, f"--workload {p}")) for p in workload],
        [(str(p), read_text(p, f"--communicator {p}")) for p in communicator],
        (str(cost), read_text(cost, f"--cost {cost}")),
        objective=objective,
        total_bw=total_bw,
        constraints=None
        if constraints is None
        else (str(constraints), read_text(constraints, f"--constraints {constraints}")),
        weights=weight,
        loop=loop,
        cost_dims=cost_dims,
    )
    result = solve(problem, objective)
    if as_json:
        print(json.dumps(result_json(result), indent=2))
        return
    print_table(_table(result))


def register(app: typer.Typer) -> None:
    """Adds `railx libra`."""
    app.command("libra")(libra)
