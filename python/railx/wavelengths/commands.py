"""`railx wavelengths`: Flex-SiPAC wavelength allocation for a job mix (paper 003, §3.C)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from railx.config import ConfigError, read_text
from railx.tables import console, print_table
from railx.wavelengths.allocation import Allocation, allocate, allocation_json, previous_lightpaths
from railx.wavelengths.config import load_wavelength_config
from railx.wavelengths.exact import EXACT_MAX_VARIABLES, Exact
from railx.wavelengths.reconfiguration import Reconfiguration, reconfigure

__all__ = ["register"]


def _allocation_table(a: Allocation) -> Table:
    table = Table(
        title=f"wavelengths per CU pair, Flex-SiPAC(r = {a.instance.topology.r}, L = {a.instance.topology.L}), w = {a.instance.w}"
    )
    for name in ("src", "dst", "WSS", "target t", "relaxed", "heuristic", "exact"):
        table.add_column(name, justify="right")
    for row in allocation_json(a)["allocation"]:
        exact = "-" if row["exact"] is None else str(row["exact"])
        table.add_row(
            str(row["src"]),
            str(row["dst"]),
            row["wss"],
            f"{row['target']:.2f}",
            f"{row['relaxed']:.2f}",
            str(row["heuristic"]),
            exact,
        )
    return table


def _objective(found: Exact | None) -> str:
    return "-" if found is None else f"{found.objective:.4f}"


def _objective_table(a: Allocation) -> Table:
    table = Table(title="eq. 1 objective, sum (lambda - t)^2")
    table.add_column("solution")
    table.add_column("objective", justify="right")
    table.add_column("note")
    table.add_row("relaxation", f"{a.relaxation.objective:.4f}", "continuous, lower bound")
    skipped = "skipped (large); --exact runs it"
    table.add_row("exact", _objective(a.exact), "integer optimum, egress and ingress <= w" if a.exact else skipped)
    table.add_row("heuristic, rounded", f"{a.heuristic.rounded_objective:.4f}", "rounded relaxation, before the fill")
    table.add_row(
        "exact, full", _objective(a.exact_full), "integer optimum with every CU at w" if a.exact_full else skipped
    )
    note = f"every CU at w: {a.heuristic.filled} added round-robin, {a.heuristic.taken_back} taken back to complete"
    table.add_row("heuristic", f"{a.heuristic.objective:.4f}", note)
    if a.gap is not None:
        table.caption = f"heuristic - exact full = {a.gap:.4f}"
    return table


def _diff_table(r: Reconfiguration) -> Table:
    table = Table(title="reconfiguration, per WSS input port (drop first, then add)")
    for name in ("WSS", "in port", "CU", "drop (wavelength->out port)", "add (wavelength->out port)"):
        table.add_column(name)
    for entry in r.diff:
        items = [", ".join(f"{x['wavelength']}->{x['output_port']}" for x in entry[k]) or "-" for k in ("drop", "add")]
        table.add_row(entry["wss"], str(entry["input_port"]), str(entry["cu"]), *items)
    table.caption = (
        f"{r.method}: {r.kept} lightpaths kept, {r.dropped} dropped, {r.added} added; "
        f"at least {r.least_changes} changes are needed (lambda differences)"
    )
    return table


def _reconfiguration_json(r: Reconfiguration) -> dict[str, Any]:
    return {
        "method": r.method,
        "kept": r.kept,
        "dropped": r.dropped,
        "added": r.added,
        "least_changes": r.least_changes,
        "ports": r.diff,
    }


def wavelengths(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG",
            help="Wavelength TOML: r, L, w and the jobs (see examples/wavelengths/flex-sipac-jobs.toml).",
            show_default=False,
        ),
    ],
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous", help="An earlier `railx wavelengths --json` output: print the reconfiguration from it."
        ),
    ] = None,
    exact: Annotated[
        bool | None,
        typer.Option(
            "--exact/--no-exact",
            help=f"Run the exact integer solver (default: when arcs x w <= {EXACT_MAX_VARIABLES:,}).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of tables.")] = False,
) -> None:
    """Allocate the wavelengths of a Flex-SiPAC network to its jobs (paper 003, eq. 1).

    Each job's all-reduce (ring, mesh or sipco) gives the traffic between its CUs, and each CU's w wavelengths are shared among its direct neighbours in proportion.

    Prints the allocation per CU pair (relaxation, the paper's heuristic, the exact optimum) and the objectives, and checks the wavelength assignment: each wavelength once per transmitter, receiver, fibre and WSS output bus. With --previous, also the changes per WSS port from the earlier allocation. See docs/flex-sipac.md.
    """
    spec = load_wavelength_config(config)
    topology = spec.topology()
    old = None
    if previous is not None:
        try:
            data = json.loads(read_text(previous))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{previous}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        old = previous_lightpaths(data, topology, spec.w, str(previous))
    result = allocate(topology, spec.w, spec.job_list(), exact=exact)
    change = None if old is None else reconfigure(topology, spec.w, old, result.colouring.lightpaths)
    if as_json:
        record = allocation_json(result)
        if change is not None:
            # The wavelengths actually configured: the next --previous starts from these.
            record["lightpaths"] = change.lightpaths.tolist()
            record["reconfiguration"] = _reconfiguration_json(change)
        print(json.dumps(record, indent=2))
        return
    print_table(_allocation_table(result))
    print_table(_objective_table(result))
    verdict = "valid" if not result.conflicts else f"INVALID: {result.conflicts[0]}"
    tried = (
        "DSatur not tried: too many lightpaths"
        if result.colouring.dsatur_colours is None
        else f"DSatur used {result.colouring.dsatur_colours} of w = {spec.w}"
    )
    console.print(
        f"wavelength assignment ({result.colouring.method}; {tried}): {verdict}: "
        "each wavelength once per transmitter, receiver, fibre and WSS output bus"
    )
    if change is not None:
        print_table(_diff_table(change))


def register(app: typer.Typer) -> None:
    """Adds `railx wavelengths`."""
    app.command("wavelengths")(wavelengths)
