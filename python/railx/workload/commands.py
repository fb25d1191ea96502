"""`railx workload` (iteration time and breakdown) and `railx allocate-bw` (RailX static and
dynamic port split)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypedDict

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from railx.allocation.dynamic import DynamicSplit, dynamic_split
from railx.allocation.static import SPLIT_METHODS, StaticSplit, static_split
from railx.config import ConfigError, is_one_of
from railx.messages import shown
from railx.options import OverridesArg, number_option
from railx.progress import ProgressCallback, live_progress
from railx.tables import console, print_table
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.search import best_parallelism
from railx.workload.system import DP_ALL_REDUCE_ORDERS, load_workload_system
from railx.workload.traffic import DIMS, Dim, Pattern

__all__ = ["bandwidth_split_report", "parse_parallel", "register"]

ModelArg = Annotated[
    str,
    typer.Argument(
        metavar="MODEL", help="Model key (e.g. llama3-70b, mixtral-8x22b) or a model .toml file.", show_default=False
    ),
]
ParallelOpt = Annotated[str, typer.Option("--parallel", help="Parallel sizes, e.g. T=4,C=2,E=2,D=4,P=2 (D = E * De).")]
WorkloadParallelOpt = Annotated[
    str,
    typer.Option(
        "--parallel",
        help="Parallel sizes, e.g. T=4,C=2,E=2,D=4,P=2 (D = E * De); or 'best': the fastest T x P x D of a "
        "dense model that fits chip.memory_GB, with N_B = --global-batch / (micro_batch x D).",
    ),
]
GlobalBatchOpt = Annotated[
    int | None,
    typer.Option("--global-batch", min=1, help="Sequences per iteration, for --parallel best.", show_default=False),
]
SystemOpt = Annotated[
    Path,
    typer.Option(
        "--system",
        metavar="SYSTEM",
        help="Workload system TOML: where the job runs (a RailX [system] plant with its [mapping]; or "
        'system = "<preset or system file>", a [peer] table, or a plant with [topology], measured on the routed '
        "network; or an [hb_domains] table: HB domains joined by rails), [chip] and [training]. "
        "See docs/workloads.md.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]
DpOrderOpt = Annotated[
    str | None,
    typer.Option(
        "--dp-all-reduce-order",
        help="Level order of the DP all-reduces: De-first (De, E, C; the paper's) or C-first (C, E, De). "
        "Overrides training.dp_all_reduce_order.",
        show_default=False,
    ),
]


def parse_parallel(text: str) -> dict[str, int]:
    """`T=4,C=2,D=8` -> {'T': 4, 'C': 2, 'D': 8}; unknown or repeated keys are errors."""
    out: dict[str, int] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in ("T", "C", "E", "D", "P"):
            raise ConfigError(
                f"--parallel {shown(item)}: expected KEY=N with KEY one of T, C, E, D, P; e.g. --parallel T=4,D=8"
            )
        if key in out:
            raise ConfigError(f"--parallel: {key} given twice")
        try:
            out[key] = int(value)
        except ValueError:
            raise ConfigError(f"--parallel {key}={shown(value)}: must be a positive integer; e.g. {key}=2") from None
    return out


def _iteration_model(
    model: str,
    parallel: str,
    system: Path,
    overrides: list[str] | None,
    dp_order: str | None,
    ports: bool = False,
    global_batch: int | None = None,
    progress: ProgressCallback | None = None,
) -> IterationModel:
    """The model on the system (its file with KEY=VALUE `overrides`); with `ports`, a RailX plant
    with a port mapping is required; `parallel` "best" searches the fastest parallelisation for
    `global_batch`; `progress` hears the lines a routed system's measurement has done."""
    spec, sys_cfg = load_model(model), load_workload_system(system, overrides)
    if ports:
        sys_cfg.plant()
    if dp_order is not None:
        if dp_order not in DP_ALL_REDUCE_ORDERS:
            raise ConfigError(
                f"--dp-all-reduce-order = {shown(dp_order)}: must be one of {', '.join(DP_ALL_REDUCE_ORDERS)}; "
                "e.g. --dp-all-reduce-order De-first"
            )
        training = sys_cfg.training.model_copy(update={"dp_all_reduce_order": dp_order})
        sys_cfg = sys_cfg.model_copy(update={"training": training})
    if parallel.strip() == "best":
        if global_batch is None or global_batch < 1:
            raise ConfigError(
                "--parallel best: needs --global-batch N (sequences per iteration); e.g. --global-batch 4096"
            )
        return IterationModel(spec, best_parallelism(spec, sys_cfg, global_batch).par, sys_cfg)
    if global_batch is not None:
        raise ConfigError(
            "--global-batch: only with --parallel best (otherwise [training] micro_batches sets the batch); "
            "e.g. --parallel best --global-batch 4096"
        )
    par = sys_cfg.parallelism(**parse_parallel(parallel))
    par.check(spec)
    return IterationModel(spec, par, sys_cfg, progress=progress)


class _LinkRow(TypedDict):
    """What one parallelism dimension gets, as `railx workload` reports it."""

    ranks: int
    place: str
    kind: str
    bw_Bps: float
    alpha_s: float


class _CollectiveRow(TypedDict):
    """One collective of `railx workload`, as printed in its table and its JSON."""

    collective: str
    pattern: Pattern
    group_size: int
    group_of_rank0: list[int]
    volume_bytes: float
    frequency: float
    time_s: float
    hidden_under: str | None


def _f(x: object) -> float:
    return float(np.asarray(x))


def workload(
    model: ModelArg,
    parallel: WorkloadParallelOpt,
    system: SystemOpt,
    overrides: OverridesArg = None,
    global_batch: GlobalBatchOpt = None,
    dp_order: DpOrderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Iteration time of training MODEL with a parallelism on a system (RailX, any peer, or HB
    domains joined by rails).

    Eq. 10: compute, hidden and exposed communication, and each collective of Table 4 with its time;
    per dimension the link it gets (a RailX plant's mapped ports, measured on the routed network, or
    an hb_domains system's HB and NIC bandwidths). With chip.peak_tflops also HFU and MFU.
    """
    with live_progress("measuring the routed network", as_json) as progress:
        it = _iteration_model(
            model, parallel, system, overrides, dp_order, global_batch=global_batch, progress=progress
        )
    r = it.evaluate()
    total_s = _f(r.total_s)
    utilisation = {"hfu": it.hfu(total_s), "mfu": it.mfu(total_s)} if it.system.chip.peak_tflops is not None else {}
    links: dict[str, _LinkRow] = {
        d: {
            "ranks": it.par.size(d),
            "place": link.place,
            "kind": link.kind,
            "bw_Bps": link.bw_bytes_per_s,
            "alpha_s": link.alpha_s,
        }
        for d, link in it.links.items()
        if it.par.size(d) > 1
    }
    rows: list[_CollectiveRow] = [
        {
            "collective": c.name,
            "pattern": c.pattern,
            "group_size": c.group_size(it.par),
            "group_of_rank0": it.par.group(0, c.dims),
            "volume_bytes": c.volume_bytes,
            "frequency": c.frequency,
            "time_s": _f(r.by_collective_s.get(c.name, 0.0)),
            "hidden_under": c.parallelism if c.parallelism in it.overlap else None,
        }
        for c in it.collectives
    ]
    report = {
        "model": it.model.name,
        "parallel": {"T": it.par.T, "C": it.par.C, "E": it.par.E, "D": it.par.D, "De": it.par.De, "P": it.par.P},
        "micro_batches": it.par.micro_batches,
        "global_batch": it.global_batch,
        "chips": it.par.ranks,
        "system": it.system.describe(),
        "links": links,
        "dp_all_reduce_order": it.system.training.dp_all_reduce_order,
        "iteration_s": _f(r.total_s),
        "compute_total_s": it.compute_total_s,
        "compute_exposed_s": r.compute_exposed_s,
        "overlap_windows_s": r.windows_s,
        "comm_hidden_s": {k: _f(v) for k, v in r.comm_hidden_class_s.items()},
        "comm_exposed_s": _f(r.comm_exposed_s),
        "by_parallelism_s": {k: _f(v) for k, v in r.by_parallelism_s.items()},
        "collectives": rows,
        **utilisation,
    }
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table(
        title=f"{it.model.name}: T={it.par.T} C={it.par.C} E={it.par.E} D={it.par.D} P={it.par.P} on {it.par.ranks} chips"
    )
    for col in ("collective", "pattern", "group", "volume MB", "per iter", "time s", "overlap"):
        table.add_column(col, justify="left" if col in ("collective", "pattern", "overlap") else "right")
    for row in rows:
        table.add_row(
            row["collective"],
            row["pattern"],
            str(row["group_size"]),
            f"{row['volume_bytes'] / 1e6:.3f}",
            f"{row['frequency']:g}",
            f"{row['time_s']:.4g}",
            row["hidden_under"] and f"hides in {row['hidden_under']}" or "exposed",
        )
    print_table(table)
    per_dim = Table(title=escape(f"links per dimension ({report['system']})"))
    for col in ("dim", "ranks", "link", "GB/s per rank per direction", "alpha us"):
        per_dim.add_column(col, justify="left" if col in ("dim", "link") else "right")
    for d, link in links.items():
        per_dim.add_row(
            d, str(link["ranks"]), link["place"], f"{link['bw_Bps'] / 1e9:.4g}", f"{link['alpha_s'] * 1e6:.4g}"
        )
    print_table(per_dim)
    hidden = ", ".join(
        f"{k}: {_f(v):.4g} s comm vs {r.windows_s[k]:.4g} s window" for k, v in r.comm_hidden_class_s.items()
    )
    console.print(
        f"iteration {report['iteration_s']:.4g} s = compute {r.compute_exposed_s:.4g} s + exposed comm "
        f"{report['comm_exposed_s']:.4g} s + overlapped classes ({hidden or 'none'})"
    )
    if utilisation:
        console.print(
            f"HFU {utilisation['hfu']:.1%}, MFU {utilisation['mfu']:.1%} (global batch {it.global_batch}, "
            f"recompute {it.system.training.recompute}, peak {it.system.chip.peak_tflops:g} TFLOP/s)"
        )


def bandwidth_split_report(
    it: IterationModel, method: str = "auto", reconfig_ms: float | None = None
) -> tuple[dict[str, Any], StaticSplit, DynamicSplit | None]:
    """`railx allocate-bw`'s record for a model on a RailX plant with a port mapping: the iteration
    time as mapped, the static optimum of eq. 11 and, with `reconfig_ms`, dynamic C/E switching;
    with the splits themselves."""
    if not is_one_of(method, SPLIT_METHODS):
        raise ConfigError(f"--method = {shown(method)}: must be auto, exhaustive or milp")
    it.system.plant()
    mapped = _f(it.evaluate().total_s)
    best = static_split(it, method)
    mapped_ports: dict[Dim, int] = {d: w.ports for d, w in it.system.mapping.items() if w != "mesh"}
    report: dict[str, Any] = {
        "dp_all_reduce_order": it.system.training.dp_all_reduce_order,
        "mapped_ports": mapped_ports,
        "mapped_time_s": mapped,
        "static": {"ports": best.ports, "time_s": best.time_s, "method": best.method, "candidates": best.candidates},
    }
    dyn = None
    if reconfig_ms is not None:
        dyn = dynamic_split(it, reconfig_ms * 1e-3)
        report["dynamic"] = {
            "shared_ports": dyn.shared_ports,
            "reconfigurations": dyn.reconfigurations,
            "gaps_s": list(dyn.gaps_s),
            "reconfiguration_delay_s": dyn.reconfiguration_delay_s,
            "exposed_reconfiguration_s": dyn.exposed_reconfiguration_s,
            "time_s": dyn.dynamic_time_s,
            "pays": dyn.pays,
            "break_even_delay_s": dyn.break_even_delay_s,
        }
    return report, best, dyn


def allocate_bw(
    model: ModelArg,
    parallel: ParallelOpt,
    system: SystemOpt,
    overrides: OverridesArg = None,
    method: Annotated[str, typer.Option("--method", help="auto, exhaustive or milp.")] = "auto",
    reconfig_ms: Annotated[
        float | None,
        number_option(
            "--reconfig-ms",
            low=0,
            help="Also evaluate dynamic C/E switching with this OCS reconfiguration delay (ms).",
        ),
    ] = None,
    dp_order: DpOrderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Split each axis's ports among its parallelisms to minimise the iteration time.

    RailX eq. 11; with --reconfig-ms, also time-multiplex C and E (§5.2) and say when it pays.
    """
    it = _iteration_model(model, parallel, system, overrides, dp_order, ports=True)
    report, best, dyn = bandwidth_split_report(it, method, reconfig_ms)
    mapped_ports: dict[Dim, int] = report["mapped_ports"]
    mapped: float = report["mapped_time_s"]
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table(title=f"port split for {it.model.name} (DP all-reduce {it.system.training.dp_all_reduce_order})")
    table.add_column("allocation")
    dims = sorted(best.ports, key=DIMS.index)
    for d in dims:
        table.add_column(f"{d} ports", justify="right")
    table.add_column("iteration s", justify="right")
    table.add_row("as mapped", *(str(mapped_ports.get(d, "-")) for d in dims), f"{mapped:.5g}")
    table.add_row(f"static optimum ({best.method})", *(str(best.ports[d]) for d in dims), f"{best.time_s:.5g}")
    if dyn is not None:
        table.add_row(
            f"dynamic C/E ({reconfig_ms:g} ms switch)",
            *(str(dyn.shared_ports) if d in ("C", "E") else str(best.ports[d]) for d in dims),
            f"{dyn.dynamic_time_s:.5g}",
        )
    print_table(table)
    if dyn is not None:
        edge = "never" if dyn.break_even_delay_s is None else f"up to {dyn.break_even_delay_s * 1e3:.4g} ms"
        console.print(
            f"dynamic switching {'pays' if dyn.pays else 'does not pay'}: {dyn.reconfigurations:g} reconfigurations, "
            f"{dyn.exposed_reconfiguration_s:.4g} s exposed; it pays for delays {edge}"
        )


def register(app: typer.Typer) -> None:
    """Adds `railx workload` and `railx allocate-bw`."""
    app.command("workload")(workload)
    app.command("allocate-bw")(allocate_bw)
