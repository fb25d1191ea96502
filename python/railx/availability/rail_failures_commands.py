"""`railx rail-failures`: single GPU, HB-domain and rail-switch failures on Rail-only and
Rail-optimised networks (Rail-only paper §IV-C)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from railx.availability.rail_failures import DESIGNS, FAILURES, FailureKind, RailCluster, Remedies, failure_outcome
from railx.config import ConfigError, is_one_of
from railx.messages import shown
from railx.tables import console, print_table

__all__ = ["rail_failures", "register"]


def rail_failures(
    hb_domain: Annotated[int, typer.Option("--hb-domain", min=1, help="GPUs per HB domain (K).")],
    domains: Annotated[int, typer.Option("--domains", min=1, help="HB domains the job runs on.")],
    failure: Annotated[
        str | None, typer.Option("--failure", help="gpu, hb-domain or rail-switch (default: all three).")
    ] = None,
    spare_domains: Annotated[
        int, typer.Option("--spare-domains", min=0, help="Idle whole HB domains to migrate to.")
    ] = 0,
    idle_gpus: Annotated[int, typer.Option("--idle-gpus", min=0, help="Idle GPUs in each job domain.")] = 0,
    gpus_per_rail_switch: Annotated[
        int, typer.Option("--gpus-per-rail-switch", min=0, help="GPU ports of a rail switch (0: one switch per rail).")
    ] = 0,
    no_migrate: Annotated[
        bool, typer.Option("--no-migrate", help="Do not move a broken domain's work to a spare domain.")
    ] = False,
    optical: Annotated[
        bool,
        typer.Option("--optical", help="Optical switches between GPUs and rail switches (or in the HB domain's core)."),
    ] = False,
    optical_set: Annotated[
        int, typer.Option("--optical-set", min=1, help="GPUs the optical layer swaps per failure.")
    ] = 1,
    optical_spares: Annotated[
        int, typer.Option("--optical-spares", min=0, help="Spare GPUs reachable through the optical switches.")
    ] = 0,
    spare_rail_switches: Annotated[
        int, typer.Option("--spare-rail-switches", min=0, help="Redundant rail switches that take over a failed one.")
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")] = False,
) -> None:
    """What each failure costs a job on Rail-only vs Rail-optimised, with the paper's remedies.

    For each failure and design: GPUs lost (failed or cut off from the network), HB domains broken
    and moved to spare domains, the job's GPUs after recovery (of before), healthy GPUs idled (stranded in broken domains),
    GPUs still usable in the cluster, and, below the table, how it recovered.
    """
    kinds: tuple[FailureKind, ...] = FAILURES
    if failure is not None:
        if not is_one_of(failure, FAILURES):
            raise ConfigError(
                f"--failure = {shown(failure)}: must be gpu, hb-domain or rail-switch; e.g. --failure gpu"
            )
        kinds = (failure,)
    cluster = RailCluster(hb_domain, domains, spare_domains, idle_gpus, gpus_per_rail_switch)
    remedies = Remedies(not no_migrate, optical, optical_set, optical_spares, spare_rail_switches)
    outcomes = [failure_outcome(design, kind, cluster, remedies) for kind in kinds for design in DESIGNS]
    if as_json:
        print(json.dumps([asdict(o) for o in outcomes], indent=2))
        return
    table = Table(
        title=f"failures: {domains} HB domains of {hb_domain} GPUs ({idle_gpus} idle each), {spare_domains} spare",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    for col in ("failure", "design", "lost", "broken", "moved", "job GPUs", "idled", "usable"):
        width = {"failure": 11, "design": 14}.get(col, len(col))
        table.add_column(col, justify="left" if col in ("failure", "design") else "right", min_width=width)
    for o in outcomes:
        table.add_row(
            o.failure,
            o.design,
            str(o.unavailable_gpus),
            str(o.broken_domains),
            str(o.migrated_domains),
            f"{o.job_gpus_after}/{o.job_gpus_before}",
            str(o.stranded_gpus),
            str(o.usable_gpus),
        )
    print_table(table)
    for o in outcomes:
        console.print(f"{o.failure}, {o.design}: {o.recovery}")


def register(app: typer.Typer) -> None:
    """Adds `railx rail-failures`."""
    app.command("rail-failures")(rail_failures)
