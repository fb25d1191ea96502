"""The `railx` command: plan a system, write and verify its OCS configuration, export its network.

Every subcommand prints a readable table by default and takes `--json` for machine output. Bad
input ends with one line on stderr (`error: ...`) and exit status 2.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import typer
import typer._click as click  # typer vendors click: its Context, Command and formatter
from typer.core import TyperGroup

from railx import __version__
from railx._core import ConfigError, InternalError, RailxError
from railx.messages import one_line
from railx.options import OverridesArg, system_argument


@dataclass(frozen=True)
class LazyCommand:
    """A subcommand defined in a subsystem's module (which has `register(app)`): the module is
    imported only when the command runs or shows its help; `summary` is its line in `railx --help`
    (tests/test_cli_conventions.py checks it is the first paragraph of the command's own help)."""

    module: str
    summary: str


# Each subsystem keeps its commands beside its code, in a module with `register(app)`; `railx
# --help` and the commands below load none of them, so start-up does not pay for NumPy, SciPy,
# cvxpy, matplotlib, Dask or DuckDB.
COMMANDS: dict[str, LazyCommand] = {
    "availability": LazyCommand(
        "railx.availability.commands",
        "Largest single job with failed nodes (--failed), or availability at a failure rate (--rate).",
    ),
    "allocate": LazyCommand(
        "railx.availability.commands", "Pack jobs onto healthy nodes and write their verified OCS files."
    ),
    "workload": LazyCommand(
        "railx.workload.commands",
        "Iteration time of training MODEL with a parallelism on a system (RailX, any peer, or HB domains "
        "joined by rails).",
    ),
    "allocate-bw": LazyCommand(
        "railx.workload.commands",
        "Split each axis's ports among its parallelisms to minimise the iteration time.",
    ),
    "traffic": LazyCommand(
        "railx.workload.traffic_commands",
        "Who sends how many bytes to whom in one training iteration, by type (TP, CP, EP, DP, PP).",
    ),
    "rail-failures": LazyCommand(
        "railx.availability.rail_failures_commands",
        "What each failure costs a job on Rail-only vs Rail-optimised, with the paper's remedies.",
    ),
    "libra": LazyCommand(
        "railx.libra.commands", "Optimise per-dimension bandwidth of a multi-dimensional network (LIBRA), globally."
    ),
    "cost": LazyCommand(
        "railx.cost.commands",
        "Bill of materials, cost, cost per injection and global bandwidth, and power of systems.",
    ),
    "scale": LazyCommand("railx.cost.commands", "Largest system per family vs switch radix."),
    "route": LazyCommand(
        "railx.routing.commands",
        "One route (--from/--to), the deadlock check (--check-deadlock) or hop statistics (--stats).",
    ),
    "collective": LazyCommand(
        "railx.collectives.commands",
        "Time of a collective on any system (RailX or a peer), at analytic, flow or flit level.",
    ),
    "sim": LazyCommand("railx.sim.commands", "Cycle-based flit-level simulation of traffic on any system."),
    "wavelengths": LazyCommand(
        "railx.wavelengths.commands",
        "Allocate the wavelengths of a Flex-SiPAC network to its jobs (paper 003, eq. 1).",
    ),
    "sweep": LazyCommand(
        "railx.sweep.commands",
        "Run an analysis over a design space, resumably (Dask tasks, a DuckDB store).",
    ),
    "results": LazyCommand(
        "railx.sweep.commands",
        'Query or export a sweep store: railx results query "SQL", railx results export --format '
        "parquet|csv --out FILE.",
    ),
    "multitenant": LazyCommand(
        "railx.multitenant.commands",
        "Job completion time (the slowest job's all-reduce) of a job mix on five topologies.",
    ),
    "report": LazyCommand(
        "railx.report.commands",
        "Write a self-contained HTML report: every reproduction (the paper's claim, railx's figure, paper vs "
        "railx with a verdict, the explanation of each difference), every other sweep of the store (a table "
        "and plots chosen from its axes) and the OCS wiring of a small RailX; figures also as PNG, tables as CSV.",
    ),
}


def _plain_help(command: click.Command) -> click.Command:
    """`command` and its subcommands with plain help (click's layout): no Rich panels, so flags
    show no `<bool>` value, nothing is cut at 80 columns, and help needs no Rich import."""
    command.rich_markup_mode = None  # type: ignore[attr-defined]
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)
    return command


_WHOLE = 10_000  # a short-help length limit no summary reaches


class _AsGiven:
    """An option value's coercion that leaves it as given (see `_RailxGroup.get_help_option`)."""

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        return value


class _RailxGroup(TyperGroup):
    """The `railx` command: plan, ocs and network are defined here; the others (COMMANDS) are
    imported from their subsystem's module when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *(name for name in COMMANDS if name not in self.commands)]

    def get_help_option(self, ctx: click.Context) -> Any:
        # typer coerces every option's value through pydantic, even the None this --help holds
        # when a subcommand is the one asked for help (`railx plan X --help`); building that
        # coercion imports pydantic, a third of the start-up budget, for nothing. Its value
        # needs no coercion: pass it through (if typer keeps its coercion elsewhere, a no-op).
        option = super().get_help_option(ctx)
        if option is not None and getattr(option, "_runtime_param", False) is None:
            option._runtime_param = _AsGiven()  # type: ignore[assignment]
        return option

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            self._load(COMMANDS[name].module)
        return super().get_command(ctx, name)

    def _load(self, module: str) -> None:
        commands = typer.Typer()
        importlib.import_module(module).register(commands)
        for name, command in typer.main.get_group(commands).commands.items():
            self.add_command(_plain_help(command), name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # A lazy command's summary comes from COMMANDS (help loads no module), the others' from
        # their help: whole first paragraphs (the formatter wraps them), never cut.
        rows = [
            (name, COMMANDS[name].summary if name in COMMANDS else self.commands[name].get_short_help_str(_WHOLE))
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class _DefaultsToSynth(TyperGroup):
    """`railx ocs SYSTEM ...` means `railx ocs synth SYSTEM ...`; `railx ocs verify FILE` verifies."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["synth", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_RailxGroup,
    help="railx: design, configure and evaluate interconnection networks for AI training: RailX "
    "optical-circuit-switched networks and the fabrics they are compared with.\n\n"
    "SYSTEM is a RailX configuration (a TOML file: m, n, R, grid, bandwidths and its topology; see "
    "examples/), a peer file (a [peer] table) or a preset name (see railx cost); commands that need a "
    "RailX plant take a configuration. KEY=VALUE arguments after SYSTEM override a field of its file "
    "(system.k=4, sim.load=0.3).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
ocs_app = typer.Typer(
    cls=_DefaultsToSynth,
    help="Write a system's OCS configuration (railx ocs SYSTEM --out DIR) or verify one (railx ocs verify FILE).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(ocs_app, name="ocs")


def _print_version(value: bool) -> None:
    if value:
        print(f"railx {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print railx's version and exit."),
    ] = False,
) -> None:
    """railx's options before the command."""


ConfigArg = Annotated[Path, system_argument("RailX configuration (TOML; see examples/).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]


@app.command()
def plan(config: ConfigArg, overrides: OverridesArg = None, as_json: JsonOpt = False) -> None:
    """Plant summary and metrics of the realized network beside the paper's closed forms.

    Bandwidths are per chip in units of one port's bandwidth; diameters count optical (Ho) and
    mesh (Hi) hops.
    """
    from railx.config import load_config
    from railx.network import realize
    from railx.progress import live_progress
    from railx.tables import cell, console, print_table, table

    network = realize(load_config(config, overrides))
    with live_progress("plan metrics", as_json) as progress:
        report = network.plan(progress)
    if as_json:
        print(json.dumps(report, indent=2))
        return
    quantities = table(
        f"RailX plan: {config}", "quantity", "realized", "closed form", numeric=("realized", "closed form")
    )
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
        quantities.add_row(key, cell(report[key]), cell(closed.get(key)))
    quantities.add_row("circuits", cell(report["circuits"]), "")
    quantities.add_row("switch_ports_used", cell(report["switch_ports_used"]), "")
    quantities.add_row("max_route_latency_s", cell(report["max_route_latency_s"]), "")
    print_table(quantities)
    if len(report["regions"]) > 1:
        columns = {
            "name": "job",
            "chips": "chips",
            "diameter_inter_node": "diameter",
            "diameter_hops": "hops",
            "a2a_bound_per_chip": "a2a bound",
            "unused_rails": "unused rails X,Y",
        }
        jobs = table("jobs", *columns.values())
        for region in report["regions"]:
            jobs.add_row(*(cell(region[key]) for key in columns))
        print_table(jobs)
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
    overrides: OverridesArg = None,
    as_json: JsonOpt = False,
) -> None:
    """Synthesise the cross-connect tables (railx.ocs/v1 JSON) that realise SYSTEM's topology."""
    from railx.config import load_config
    from railx.network import realize
    from railx.tables import print_table, table

    network = realize(load_config(config, overrides))
    paths = network.write_ocs(out)
    summary: list[_OcsFileSummary] = [
        {"file": str(p), "switches": len(d["switches"]), "circuits": sum(len(s["circuits"]) for s in d["switches"])}
        for p, d in zip(paths, (json.loads(text) for _name, text in network.ocs_files()))
    ]
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    written = table("OCS configuration written", "file", "switches", "circuits", numeric=("switches", "circuits"))
    for row in summary:
        written.add_row(row["file"], str(row["switches"]), str(row["circuits"]))
    print_table(written)


@ocs_app.command("verify")
def ocs_verify(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="railx.ocs/v1 JSON file to check.", show_default=False)],
    topology: Annotated[
        Path | None,
        typer.Option("--topology", help="Configuration whose intended topology the circuits must rebuild."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an OCS file: ports exist, one circuit per port, + to - only; with --topology, that the
    circuits rebuild exactly the intended topology. Exits 2 with the first problem found."""
    from railx.network import verify_ocs_file
    from railx.tables import console

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
    overrides: OverridesArg = None,
    fmt: Annotated[
        str, typer.Option("--format", help="json (railx.network/v1 edge list) or graphml (networkx reads it).")
    ] = "json",
    as_json: JsonOpt = False,
) -> None:
    """Export the realized chip-level network (mesh and optical links with bandwidth and latency)."""
    from railx.config import is_one_of, load_config, output_file
    from railx.network import NETWORK_FORMATS, realize
    from railx.tables import console

    if not is_one_of(fmt, NETWORK_FORMATS):
        raise ConfigError(f"format = {fmt}: unknown network format; use {' or '.join(NETWORK_FORMATS)}")
    output_file(out, f"--out {out}")  # before the work, not when it is done
    net = realize(load_config(config, overrides))
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
            print(f"error: {one_line(message)}{where}", file=sys.stderr)
        sys.exit(code)
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(1)
    except InternalError as exc:
        # A bug in railx, not the input's fault: its own exit status, so scripts can tell.
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        sys.exit(70)
    except RailxError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
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
