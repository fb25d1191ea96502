"""`railx multitenant`: job completion time of multi-tenant all-reduces per topology and
algorithm (paper 003, §6; docs/multitenant.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Annotated, Any

import typer
from rich.table import Table

from railx.config import ConfigError, parse_bytes
from railx.messages import shown
from railx.multitenant.baselines import ALLOCATIONS, TOPOLOGIES, FlexSipacShape, flex_sipac
from railx.multitenant.evaluation import ALGORITHMS, JctRow, evaluate
from railx.multitenant.jobs import JobMix, map_jobs, mix_for_sigma
from railx.multitenant.workloads import WORKLOADS, iteration_messages
from railx.options import number_option
from railx.progress import live_progress
from railx.systems import System
from railx.tables import print_table

__all__ = ["iteration_records", "mixes", "register", "topology_builder", "workload_jct"]


def workload_jct(rows: list[JctRow], workload: str) -> dict[tuple[str, str, str], float]:
    """One training iteration's communication time per (topology, algo, mix): its layers'
    all-reduces one after another, all jobs in step layer by layer (the sum over layers of the
    mix's JCT at that layer's size). `rows` must hold every message size of the workload."""
    counts = iteration_messages(workload)
    by_key: dict[tuple[str, str, str], float] = {}
    for row in rows:
        if row.size_bytes in counts:
            key = (row.topology, row.algo, row.mix)
            by_key[key] = by_key.get(key, 0.0) + counts[row.size_bytes] * row.jct_s
    return by_key


def iteration_records(rows: list[JctRow], workload: str) -> list[dict[str, Any]]:
    """One record per (topology, algo, mix): the iteration's communication time (workload_jct)
    and, for F, the paper's analytic bound summed over the layers the same way (None for M)."""
    totals = workload_jct(rows, workload)
    bounds = workload_jct([replace(r, jct_s=r.bound_s) for r in rows if r.bound_s is not None], workload)
    return [
        {"topology": t, "algo": a, "mix": m, "workload": workload, "jct_s": v, "bound_s": bounds.get((t, a, m))}
        for (t, a, m), v in totals.items()
    ]


def mixes(cus: int, jobs: list[int] | None, sigmas: list[float] | None, count: int, granule: int) -> list[JobMix]:
    """The job mixes of `railx multitenant`: the given job sizes mapped from CU 0, else one mix
    per skewness (`count` jobs, sizes multiples of `granule`)."""
    if jobs:
        if sigmas:
            raise ConfigError(f"--sigma {sigmas[0]:g}: mixes instead of --job; give --job sizes or --sigma, not both")
        return [map_jobs(jobs, cus)]
    return [mix_for_sigma(cus, s, count if s > 0 else max(count, 2), granule) for s in (sigmas or [0.0])]


def topology_builder(allocation: str) -> Callable[[str, JobMix], System]:
    """Builds a topology's network for a mix's mesh jobs, Flex-SiPAC's wavelengths allocated by
    `allocation` (relaxed or heuristic)."""
    if allocation not in ALLOCATIONS:
        raise ConfigError(f"--allocation = {shown(allocation)}: unknown; use one of {', '.join(ALLOCATIONS)}")

    def build(name: str, mix: JobMix) -> System:
        if name == "flex-sipac":
            return flex_sipac(mix, "mesh", allocation=allocation)
        return TOPOLOGIES[name].build(mix, "mesh")

    return build


def register(app: typer.Typer) -> None:
    @app.command("multitenant")
    def multitenant_cmd(
        cus: Annotated[
            int, typer.Option(min=1, max=512, help="CUs of the network: 64 or 512 (Flex-SiPAC(8, L))")
        ] = 512,
        topology: Annotated[
            list[str] | None, typer.Option(help=f"repeatable; default all: {', '.join(TOPOLOGIES)}")
        ] = None,
        algo: Annotated[
            list[str] | None,
            typer.Option(help="repeatable: M (mesh) or F (Flex-SiPCO, every job at once), both at flow level"),
        ] = None,
        size: Annotated[list[str] | None, typer.Option(help="all-reduce message, repeatable, e.g. 1MB")] = None,
        workload: Annotated[
            str | None, typer.Option(help=f"instead of --size: one iteration of {', '.join(WORKLOADS)}")
        ] = None,
        job: Annotated[
            list[int] | None, typer.Option(min=1, help="job sizes mapped in order from CU 0, repeatable (e.g. 384 128)")
        ] = None,
        sigma: Annotated[
            list[float] | None,
            number_option(
                "--sigma",
                low=0,
                high=1,
                high_open=True,
                help="instead of --job: mixes of this skewness (eq. 2), repeatable",
            ),
        ] = None,
        jobs: Annotated[int, typer.Option(min=1, help="jobs per --sigma mix (one large, the others smaller)")] = 2,
        granule: Annotated[int, typer.Option(min=1, help="job sizes are multiples of this (8 = the WSS radix)")] = 8,
        allocation: Annotated[
            str,
            typer.Option(
                help="Flex-SiPAC wavelengths: relaxed (eq. 1's fractional optimum; the default, fast) or heuristic (the paper's integer allocation; minutes at 512 CUs)"
            ),
        ] = "relaxed",
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    ) -> None:
        """Job completion time (the slowest job's all-reduce) of a job mix on five topologies.

        All normalised to 1,920 Gb/s per CU: DGX-H100 SuperPOD (one giant switch), SiP-OCS (16
        OCSs, circuits steered to the jobs), TPUv4 (OCS rewired per job), Flex-SiPAC (wavelengths
        allocated to the jobs) and static SiPAC.
        """
        if workload is not None and size:
            raise ConfigError("--workload and --size: give one; a workload fixes its own message sizes")
        sizes = (
            sorted(iteration_messages(workload)) if workload else [parse_bytes(s, "size") for s in (size or ["1MB"])]
        )
        build = topology_builder(allocation)
        FlexSipacShape.for_cus(cus)  # refuses a CU count no Flex-SiPAC(8, L) has before any mix is sized
        mix_list = mixes(cus, job, sigma, jobs, granule)
        with live_progress("multi-tenant JCT", as_json) as bar:

            def on_network(done: int, total: int) -> None:
                if bar is not None:
                    bar(done, total, "networks")

            rows = evaluate(
                topology or list(TOPOLOGIES),
                algo or list(ALGORITHMS),
                mix_list,
                sizes,
                build=build,
                on_network=on_network,
            )
        if workload:
            records = iteration_records(rows, workload)
            if as_json:
                typer.echo(json.dumps(records, indent=2))
                return
            table = Table(title=f"{workload}: one iteration's all-reduces, {cus} CUs")
            for col in ("topology", "algo", "mix", "JCT (ms)"):
                table.add_column(col, justify="right")
            for record in records:
                table.add_row(record["topology"], record["algo"], record["mix"], f"{record['jct_s'] * 1e3:.3f}")
            print_table(table)
            return
        if as_json:
            typer.echo(json.dumps([asdict(r) for r in rows], indent=2))
            return
        table = Table(title=f"multi-tenant all-reduce, {cus} CUs, 1,920 Gb/s per CU")
        for col in ("topology", "algo", "fidelity", "jobs", "sigma", "message", "JCT (us)", "paper's bound (us)"):
            table.add_column(col, justify="right")
        for r in rows:
            bound = "" if r.bound_s is None else f"{r.bound_s * 1e6:.2f}"
            table.add_row(
                r.topology,
                r.algo,
                r.fidelity,
                r.mix,
                f"{r.sigma:.3f}",
                f"{r.size_bytes:,} B",
                f"{r.jct_s * 1e6:.2f}",
                bound,
            )
        print_table(table)
