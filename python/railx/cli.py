"""The `railx` command: plan a system, write and verify its OCS configuration, export its network.

Every subcommand prints a readable table by default and takes `--json` for machine output. Bad
input ends with one line on stderr (`error: ...`) and exit status 2.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from railx._core import InternalError, RailxError
from railx.config import ConfigError, is_one_of, output_file
from railx.network import NETWORK_FORMATS, realize, verify_ocs_file

console = Console()


class _DefaultsToSynth(TyperGroup):
    """`railx ocs CONFIG ...` means `railx ocs synth CONFIG ...`; `railx ocs verify FILE` verifies."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["synth", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    help="railx: design, configure and evaluate interconnection networks for AI training: RailX "
    "optical-circuit-switched networks and the fabrics they are compared with.\n\n"
    "CONFIG is a TOML file describing the system (m, n, R, grid, bandwidths) and its topology; "
    "see examples/.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
ocs_app = typer.Typer(
    cls=_DefaultsToSynth,
    help="Write a system's OCS configuration (railx ocs CONFIG --out DIR) or verify one (railx ocs verify FILE).",
    no_args_is_help=True,
)
app.add_typer(ocs_app, name="ocs")

ConfigArg = Annotated[Path, typer.Argument(help="TOML configuration file (see examples/).", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict) and set(value) == {"Ho", "Hi"}:
        return f"{value['Ho']} Ho + {value['Hi']} Hi"
    return str(value)


@app.command()
def plan(config: ConfigArg, as_json: JsonOpt = False) -> None:
    """Plant summary and metrics of the realized network beside the paper's closed forms.

    Bandwidths are per chip in units of one port's bandwidth; diameters count optical (Ho) and
    mesh (Hi) hops.
    """
    report = realize(config).plan()
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table(title=f"RailX plan: {config}")
    table.add_column("quantity")
    table.add_column("realized", justify="right")
    table.add_column("closed form", justify="right")
    closed = report["closed_form"]
    for key in (
        "chips",
        "nodes",
        "switches",
        "rails_per_dim",
        "diameter_inter_node",
        "diameter_hops",
        "bisection_bw_per_chip",
        "a2a_bound_per_chip",
    ):
        table.add_row(key, _fmt(report[key]), _fmt(closed.get(key)))
    table.add_row("circuits", _fmt(report["circuits"]), "")
    table.add_row("switch_ports_used", _fmt(report["switch_ports_used"]), "")
    table.add_row("max_route_latency_s", _fmt(report["max_route_latency_s"]), "")
    console.print(table)
    if len(report["regions"]) > 1:
        columns = {
            "name": "job",
            "chips": "chips",
            "diameter_inter_node": "diameter",
            "diameter_hops": "hops",
            "a2a_bound_per_chip": "a2a bound",
            "unused_rails": "unused rails X,Y",
        }
        jobs = Table(title="jobs")
        for title in columns.values():
            jobs.add_column(title)
        for region in report["regions"]:
            jobs.add_row(*(_fmt(region[key]) for key in columns))
        console.print(jobs)
    for note in closed["approximate"]:
        console.print(f"[dim]closed form {note}[/dim]")
    scales = ", ".join(
        f"{s['preset']} {s['chips']:,} chips ({s['grid'][0]}x{s['grid'][1]} nodes)" for s in report["max_scale"]
    )
    console.print(f"[dim]largest system for this m, n, R: {scales}[/dim]")


class _OcsFileSummary(TypedDict):
    """One OCS file `railx ocs synth` wrote: its path and how many switches and circuits it sets."""

    file: str
    switches: int
    circuits: int


@ocs_app.command("synth")
def ocs_synth(
    config: ConfigArg,
    out: Annotated[Path, typer.Option("--out", help="Directory for system.ocs.json (and <job>.ocs.json per job).")],
    as_json: JsonOpt = False,
) -> None:
    """Synthesise the cross-connect tables (railx.ocs/v1 JSON) that realise CONFIG's topology."""
    network = realize(config)
    paths = network.write_ocs(out)
    summary: list[_OcsFileSummary] = [
        {"file": str(p), "switches": len(d["switches"]), "circuits": sum(len(s["circuits"]) for s in d["switches"])}
        for p, d in ((p, json.loads(p.read_text())) for p in paths)
    ]
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    table = Table(title="OCS configuration written")
    for col in ("file", "switches", "circuits"):
        table.add_column(col)
    for row in summary:
        table.add_row(row["file"], str(row["switches"]), str(row["circuits"]))
    console.print(table)


@ocs_app.command("verify")
def ocs_verify(
    file: Annotated[Path, typer.Argument(help="railx.ocs/v1 JSON file to check.", show_default=False)],
    topology: Annotated[
        Path | None,
        typer.Option("--topology", help="Configuration whose intended topology the circuits must rebuild."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an OCS file: ports exist, one circuit per port, + to - only; with --topology, that the
    circuits rebuild exactly the intended topology. Exits 2 with the first problem found."""
    report = verify_ocs_file(file, topology)
    if as_json:
        print(json.dumps(report, indent=2))
        return
    what = "the intended topology" if topology is not None else "valid ports (no --topology: structure not checked)"
    console.print(f"[green]OK[/green] {file}: {report['switches']} switches, {report['circuits']} circuits, {what}")
    for region in report["regions"]:
        console.print(f"  {region['name']}: {region['nodes']} nodes, {region['circuits']} circuits, strongly connected")


@app.command()
def network(
    config: ConfigArg,
    out: Annotated[Path, typer.Option("--out", help="Output file.")],
    fmt: Annotated[
        str, typer.Option("--format", help="json (railx.network/v1 edge list) or graphml (networkx reads it).")
    ] = "json",
    as_json: JsonOpt = False,
) -> None:
    """Export the realized chip-level network (mesh and optical links with bandwidth and latency)."""
    if not is_one_of(fmt, NETWORK_FORMATS):
        raise ConfigError(f"format = {fmt}: unknown network format; use {' or '.join(NETWORK_FORMATS)}")
    output_file(out, f"--out {out}")
    net = realize(config)
    net.write(out, fmt)
    links = net.links()
    summary = {
        "file": str(out),
        "format": fmt,
        "chips": net.chips,
        "links": int(links["src"].size),
        "optical_links": int((links["class"] == 1).sum()),
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    console.print(
        f"wrote {out} ({fmt}): {summary['chips']:,} chips, {summary['links']:,} directed links "
        f"({summary['optical_links']:,} optical)"
    )


# Each subsystem keeps its commands beside its code, in a module with `register(app)`.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "railx.availability.commands",
    "railx.workload.commands",
    "railx.workload.traffic_commands",
    "railx.availability.rail_failures_commands",
    "railx.libra.commands",
    "railx.cost.commands",
    "railx.routing.commands",
    "railx.collectives.commands",
    "railx.sim.commands",
    "railx.wavelengths.commands",
    "railx.sweep.commands",
    "railx.multitenant.commands",
    "railx.report.commands",
)


def _register_subcommands() -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_subcommands()


def _binding_argument(exc: OverflowError) -> str | None:
    """The binding's argument an OverflowError came from (PyO3 notes 'while processing NAME' when a
    Python int does not fit the Rust integer type), else None: any other OverflowError is a bug."""
    for note in getattr(exc, "__notes__", ()):
        if note.startswith("while processing '"):
            return note.removeprefix("while processing ").strip("'")
    return None


def main() -> None:
    """Entry point: runs the app, turning invalid input or a failed verification into one line on
    stderr and exit 2 (an internal error, a bug, into one line and exit 70). Usage errors (an
    option out of its range, say) are one line and exit 2 too; `--help` and running a group
    without arguments print help as click does."""
    try:
        status = app(standalone_mode=False)
    except typer.TyperException as exc:
        # click's errors (typer's vendored click): usage errors, each as one line with where to
        # read the usage; running a group without arguments raises one whose message is the help.
        ctx = getattr(exc, "ctx", None)
        code = getattr(exc, "exit_code", 2)
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        if type(exc).__name__ == "NoArgsIsHelpError":  # its message is the (already shown) help
            if message:
                print(message, file=sys.stderr)
        else:
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            print(f"error: {message}{where}", file=sys.stderr)
        sys.exit(code)
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(1)
    except InternalError as exc:
        # A bug in railx, not the input's fault: its own exit status, so scripts can tell.
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(70)
    except RailxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except OverflowError as exc:
        # A number the core's integer type cannot hold (a negative id, say) reaching the binding
        # unchecked: the input's fault, named by the binding's argument. Others are bugs: re-raised.
        argument = _binding_argument(exc)
        if argument is None:
            raise
        print(f"error: {argument}: {exc}; give a non-negative number within the system's size", file=sys.stderr)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
