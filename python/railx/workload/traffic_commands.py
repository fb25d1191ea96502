"""`railx traffic`: the GPU-pair traffic matrix of one training iteration (Rail-only paper §III)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from railx.config import ConfigError, is_one_of, output_file
from railx.messages import shown
from railx.tables import console, print_table
from railx.workload.catalogue import load_model
from railx.workload.commands import parse_parallel
from railx.workload.jobs import available_jobs, load_job
from railx.workload.matrix import (
    ALL_REDUCE_ALGOS,
    RING_DIRECTIONS,
    AllReduceAlgo,
    Placement,
    RingDirection,
    TrafficMatrix,
    plot_heatmap,
    traffic_matrix,
)
from railx.workload.traffic import Parallelism

__all__ = ["register", "traffic", "traffic_report"]

_JOB_ONLY = (
    "--job takes the model, parallelism, batch and HB domain from the job file; "
    "give either --job KEY or MODEL --parallel ... --hb-domain K"
)


def _from_options(
    model: str | None,
    parallel: str | None,
    hb_domain: int | None,
    gpus: int | None,
    micro_batch: int,
    global_batch: int | None,
    sequence: int,
) -> tuple[str, Parallelism, Placement]:
    if model is None or parallel is None or hb_domain is None:
        raise ConfigError(
            "traffic: give MODEL with --parallel and --hb-domain (e.g. railx traffic gpt-1t --parallel T=8,P=64,D=6 "
            f"--hb-domain 8 --global-batch 3072), or --job KEY (one of {', '.join(available_jobs())})"
        )
    sizes = parse_parallel(parallel)
    d = sizes.get("D", 1)
    batch = global_batch if global_batch is not None else micro_batch * d
    if batch % (micro_batch * d):
        raise ConfigError(
            f"--global-batch = {batch}: must be a multiple of --micro-batch x D = {micro_batch * d}; "
            f"e.g. --global-batch {micro_batch * d}"
        )
    par = Parallelism(**sizes, micro_batch=micro_batch, micro_batches=batch // (micro_batch * d), sequence=sequence)
    return model, par, Placement(gpus if gpus is not None else par.ranks, hb_domain)


def traffic_report(
    model: str | None = None,
    job: str | None = None,
    parallel: str | None = None,
    hb_domain: int | None = None,
    gpus: int | None = None,
    micro_batch: int | None = None,
    global_batch: int | None = None,
    sequence: int | None = None,
    all_reduce: str | None = None,
    ring: str = "bidirectional",
) -> tuple[dict[str, Any], TrafficMatrix]:
    """The pair traffic of one iteration, from a published job or a model with its parallelism
    (the options of `railx traffic`): its JSON record (shares by type, largest pairs, bytes per
    collective) and the matrix itself."""
    if job is not None:
        if any(x is not None for x in (model, parallel, hb_domain, gpus, micro_batch, global_batch, sequence)):
            raise ConfigError(_JOB_ONLY)
        spec = load_job(job)
        model_key, par, placement = spec.model.value, spec.parallelism(), spec.placement()
        algo = all_reduce or spec.all_reduce.value
        title = spec.name
    else:
        model_key, par, placement = _from_options(
            model, parallel, hb_domain, gpus, micro_batch or 1, global_batch, sequence or 2048
        )
        algo = all_reduce or "ring"
        title = model_key
    if not is_one_of(algo, ALL_REDUCE_ALGOS):
        raise ConfigError(f"--all-reduce = {shown(algo)}: must be ring or hierarchical; e.g. --all-reduce ring")
    if not is_one_of(ring, RING_DIRECTIONS):
        raise ConfigError(f"--ring = {shown(ring)}: must be bidirectional or unidirectional; e.g. --ring bidirectional")
    all_reduce_algo: AllReduceAlgo = algo
    ring_direction: RingDirection = ring
    tm = traffic_matrix(load_model(model_key), par, placement, all_reduce_algo, ring_direction)
    report = {
        "job": title,
        "gpus": placement.gpus,
        "hb_domain": placement.hb_domain,
        "parallel": {"T": par.T, "C": par.C, "E": par.E, "D": par.D, "P": par.P, "micro_batches": par.micro_batches},
        "all_reduce": all_reduce_algo,
        "ring": ring_direction,
        "total_bytes": float(tm.total().sum()),
        "volume_shares": tm.volume_shares(),
        "pair_shares": tm.pair_shares(),
        "max_pair_bytes": tm.max_pair_bytes(),
        "collective_bytes": tm.collective_bytes,
    }
    return report, tm


def traffic(
    model: Annotated[
        str | None,
        typer.Argument(
            metavar="MODEL", help="Model key (e.g. gpt-1t) or a model .toml file; omit with --job.", show_default=False
        ),
    ] = None,
    job: Annotated[
        str | None,
        typer.Option(
            "--job", help="A published job (e.g. megatron-gpt-1t, gh200-gpt-1t, deepspeed-moe-1.3b) or a job .toml."
        ),
    ] = None,
    parallel: Annotated[
        str | None, typer.Option("--parallel", help="Parallel sizes, e.g. T=8,P=64,D=6 (D = E * De).")
    ] = None,
    hb_domain: Annotated[int | None, typer.Option("--hb-domain", min=1, help="GPUs per HB domain (K).")] = None,
    gpus: Annotated[int | None, typer.Option("--gpus", min=1, help="GPUs in the cluster (default: T*C*D*P).")] = None,
    micro_batch: Annotated[
        int | None, typer.Option("--micro-batch", min=1, help="Sequences per micro-batch [default: 1].")
    ] = None,
    global_batch: Annotated[
        int | None,
        typer.Option("--global-batch", min=1, help="Sequences per iteration (default: one micro-batch per rank)."),
    ] = None,
    sequence: Annotated[
        int | None, typer.Option("--sequence", min=1, help="Tokens per sequence [default: 2048].")
    ] = None,
    all_reduce: Annotated[
        str | None,
        typer.Option("--all-reduce", help="DP all-reduce: ring or hierarchical (default: ring, or the job's)."),
    ] = None,
    ring: Annotated[
        str, typer.Option("--ring", help="Ring direction: bidirectional or unidirectional.")
    ] = "bidirectional",
    heatmap: Annotated[Path | None, typer.Option("--heatmap", help="Write a PNG heatmap of the pair traffic.")] = None,
    heatmap_gpus: Annotated[
        int | None, typer.Option("--heatmap-gpus", min=1, help="Show the first N GPUs (default: all, at most 1024).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")] = False,
) -> None:
    """Who sends how many bytes to whom in one training iteration, by type (TP, CP, EP, DP, PP).

    Prints each type's share of the bytes inside HB domains and through the NICs, the share of GPU
    pairs that carry each type (and none), and the largest pair volumes. Ranks run on GPUs in
    [T, C, E, De, P] order; HB domains are K consecutive GPUs.
    """
    if heatmap is not None:
        output_file(heatmap, f"--heatmap {heatmap}")  # before the work, not when it is done
    report, tm = traffic_report(
        model, job, parallel, hb_domain, gpus, micro_batch, global_batch, sequence, all_reduce, ring
    )
    title, placement, all_reduce_algo = report["job"], tm.placement, report["all_reduce"]
    if heatmap is not None:
        plot_heatmap(tm, heatmap_gpus or min(placement.gpus, 1024), heatmap, title)
    report["heatmap"] = str(heatmap) if heatmap is not None else None
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table(
        title=f"{title}: {placement.gpus} GPUs, HB domains of {placement.hb_domain}, {all_reduce_algo} all-reduce"
    )
    for col in ("traffic", "share of bytes"):
        table.add_column(col, justify="left" if col == "traffic" else "right")
    for kind, share in tm.volume_shares().items():
        table.add_row(kind, f"{100 * share:.3g}%")
    print_table(table)
    pairs = ", ".join(f"{k} {100 * v:.3g}%" for k, v in tm.pair_shares().items())
    top = tm.max_pair_bytes()
    console.print(f"GPU pairs carrying: {pairs}")
    console.print(
        f"largest pair: {top['HB'] / 1e9:.4g} GB inside an HB domain, {top['NIC'] / 1e9:.4g} GB across; "
        f"total {float(tm.total().sum()) / 1e12:.4g} TB per iteration"
    )
    if heatmap is not None:
        console.print(f"heatmap written to {heatmap}")


def register(app: typer.Typer) -> None:
    """Adds `railx traffic`."""
    app.command("traffic")(traffic)
