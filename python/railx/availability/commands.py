"""CLI: `railx availability` (largest single job, Monte Carlo availability, Fig. 17 plots) and
`railx allocate` (pack jobs onto healthy nodes and write their OCS configuration)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from railx.atomic import write_file_set
from railx.availability.failures import load_failed
from railx.availability.montecarlo import availability, sweep
from railx.availability.packing import JobRequest, Packing, allocation_config, load_job_requests, pack_jobs
from railx.availability.single_job import SOLVERS, largest_allocation
from railx.config import TOPOLOGY_PRESETS, Config, ConfigError, TopologyConfig, is_one_of, load_config, make_dir
from railx.messages import shown
from railx.network import OCS_SUFFIX, realize, verify_ocs_text
from railx.options import OverridesArg, given_names, number_option, seed_option, system_argument
from railx.progress import live_progress
from railx.tables import cell, console, print_table

#: Failure rates of the Fig. 17(b) plot.
PLOT_RATES = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)


# Bounds on the options whose cost grows with them: the paper samples 100 failure sets per rate;
# a MILP sample past an hour is not a sample.
MAX_SAMPLES = 100_000
MAX_TIME_LIMIT_S = 3600.0


def _grid(config: Config) -> tuple[int, int]:
    p, q = config.system.plant()["grid"]
    return p, q


def _print(rows: dict, title: str) -> None:
    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key, value in rows.items():
        table.add_row(key, cell(value, ".4g"))
    print_table(table)


def _plot(grid: tuple[int, int], samples: int, seed: int, time_limit_s: float, path: Path, quiet: bool) -> Path:
    """Fig. 17(a) and (b) for this grid, side by side in one image file (a progress bar over the
    sweeps' samples unless `quiet`)."""
    from railx.availability.plots import plot_fig17

    p, q = grid
    counts = sorted({round(i * min(p, q) / 8) for i in range(9)})
    grids = sorted({(max(2, p // 4), max(2, q // 4)), (max(2, p // 2), max(2, q // 2)), grid})
    with live_progress("Fig. 17 sweeps", quiet) as bar:
        # One bar over both sweeps: (a) by failure count on this grid, then (b) by rate on three grids.
        first_total = len(counts) * samples
        total = first_total + len(grids) * len(PLOT_RATES) * samples

        def on_sample(offset: int) -> Callable[[int, int], None] | None:
            if bar is None:
                return None
            shown = bar

            def hook(done: int, _of_sweep: int) -> None:
                shown(offset + done, total, "samples")

            return hook

        common = partial(sweep, samples=samples, seed=seed, time_limit_s=time_limit_s)
        by_count = common([grid], counts=counts, on_sample=on_sample(0))
        by_rate = common(grids, rates=list(PLOT_RATES), on_sample=on_sample(first_total))
    return plot_fig17(by_count, by_rate, path)


def _refuse_sampling_without_samples(ctx: typer.Context, nothing_sampled: bool) -> None:
    """--samples and --seed shape the random failure sets of --rate and of --plot's sweeps: with
    --failed alone nothing is sampled, so either is a one-line error rather than ignored."""
    given = sorted(given_names(ctx, None, ("samples", "seed")))
    if nothing_sampled and given:
        name = given[0]
        raise ConfigError(
            f"--{name} {ctx.params[name]}: --failed FILE evaluates that one failure set and samples nothing; "
            f"drop --{name}, or add --plot to sample the Fig. 17 sweeps"
        )


#: `railx allocate --jobs` values that are not a jobs file: fill every healthy node, or the largest job.
JOB_MODES = ("all", "single")


def allocate_jobs(
    config: Config,
    blocked: np.ndarray,
    jobs: str | list[JobRequest],
    topology: str = "torus",
    min_nodes: int = 1,
) -> tuple[Packing, list[tuple[str, str]]]:
    """Packs jobs onto the healthy nodes (`jobs`: "all", "single" or the requests of a jobs file)
    and returns the packing with the verified `railx.ocs/v1` documents of the allocated system
    (file name, text): what `railx allocate` writes."""
    if not is_one_of(topology, TOPOLOGY_PRESETS):
        raise ConfigError(f"--topology = {topology}: unknown preset; use torus, hyperx or dragonfly")
    preset = TopologyConfig(preset=topology)
    if jobs == "all":
        packing = pack_jobs(blocked, None, topology=preset, min_nodes=min_nodes)
    elif jobs == "single":
        packing = pack_jobs(blocked, None, topology=preset, min_nodes=min_nodes, max_jobs=1)
    elif isinstance(jobs, str):
        raise ConfigError(f"--jobs = {shown(jobs)}: use all, single or a TOML jobs file")
    else:
        packing = pack_jobs(blocked, jobs)
    allocated = allocation_config(config, packing)
    ocs = realize(allocated).ocs_files()
    for _name, text in ocs:
        verify_ocs_text(text, allocated)
    return packing, ocs


def register(app: typer.Typer) -> None:
    """Adds `availability` and `allocate` to the railx command."""

    @app.command("availability")
    def availability_cmd(
        ctx: typer.Context,
        config: Annotated[Path, system_argument("RailX configuration (TOML; its grid is used).")],
        overrides: OverridesArg = None,
        failed: Annotated[
            Path | None, typer.Option("--failed", help="JSON list of failed nodes [[x, y], ...].")
        ] = None,
        rate: Annotated[
            float | None,
            number_option("--rate", low=0, high=1, help="Failure rate per node (e.g. 0.001 = 0.1%), sampled."),
        ] = None,
        samples: Annotated[
            int, typer.Option("--samples", min=1, max=MAX_SAMPLES, help="Random samples with --rate.")
        ] = 100,
        seed: Annotated[int, seed_option("Seed of the sampling.")] = 0,
        solver: Annotated[str, typer.Option("--solver", help="auto, algorithm2, components or milp.")] = "auto",
        time_limit: Annotated[
            float,
            number_option("--time-limit", low=0.001, high=MAX_TIME_LIMIT_S, help="Seconds per MILP-solved sample."),
        ] = 30.0,
        plot: Annotated[
            Path | None,
            typer.Option(
                "--plot", help="Write Fig. 17(a) and (b)-style plots side by side to this image (PNG or SVG)."
            ),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """Largest single job with failed nodes (--failed), or availability at a failure rate (--rate).

        A failed node removes its row or its column from a job; the answer says which solver found
        it and whether it is proven optimal.
        """
        cfg = load_config(config, overrides)
        grid = _grid(cfg)
        if (failed is None) == (rate is None):
            raise ConfigError("availability: give exactly one of --failed FILE or --rate R; e.g. --rate 0.001")
        if not is_one_of(solver, SOLVERS):
            raise ConfigError(f"--solver = {solver}: unknown solver; use auto, algorithm2, components or milp")
        if plot is not None:
            make_dir(plot.parent, f"--plot {plot}")  # before the run, not when it is over
        _refuse_sampling_without_samples(ctx, failed is not None and plot is None)
        if failed is not None:
            blocked = load_failed(failed, grid)
            with live_progress("largest single job", quiet=as_json):  # elapsed time; a MILP may take --time-limit
                found = largest_allocation(blocked, solver, time_limit)
            report: dict = {
                "grid": list(grid),
                "failed_nodes": int(blocked.sum()),
                "max_single_job_nodes": found.nodes,
                "availability": found.nodes / (grid[0] * grid[1]),
                "rows_kept": list(found.rows),
                "cols_kept": list(found.cols),
                "solver": found.solver,
                "optimal": found.optimal,
                "upper_bound_nodes": found.upper_bound_nodes,
                "seconds": found.seconds,
            }
            shown = {k: v for k, v in report.items() if k not in ("rows_kept", "cols_kept")}
            shown["job"] = f"{len(found.cols)} columns x {len(found.rows)} rows"
        else:
            with live_progress("Monte Carlo availability", quiet=as_json) as bar:

                def on_sample(done: int) -> None:
                    if bar is not None:
                        bar(done, samples, "samples")

                stats = availability(
                    grid,
                    rate=rate,
                    samples=samples,
                    seed=seed,
                    solver=solver,
                    time_limit_s=time_limit,
                    on_sample=on_sample,
                )
            report = stats.to_dict()
            shown = {k: v for k, v in report.items() if k != "solvers"}
            shown["solvers"] = ", ".join(f"{k}: {v}" for k, v in stats.solvers.items())
        if plot is not None:
            report["plot"] = str(_plot(grid, samples, seed, time_limit, plot, as_json))
            shown["plot"] = report["plot"]
        if as_json:
            print(json.dumps(report, indent=2))
        else:
            _print(shown, f"availability of a {grid[0]} x {grid[1]}-node RailX")

    @app.command("allocate")
    def allocate_cmd(
        config: Annotated[Path, system_argument("RailX configuration (TOML; its plant is used).")],
        failed: Annotated[Path, typer.Option("--failed", help="JSON list of failed nodes [[x, y], ...].")],
        jobs: Annotated[
            str,
            typer.Option("--jobs", help="'all' (fill every healthy node), 'single' (largest job) or a TOML jobs file."),
        ],
        out: Annotated[Path, typer.Option("--out", help="Directory for allocation.json and the OCS files.")],
        overrides: OverridesArg = None,
        topology: Annotated[
            str, typer.Option("--topology", help="Preset for jobs placed by 'all'/'single'.")
        ] = "torus",
        min_nodes: Annotated[int, typer.Option("--min-nodes", min=1, help="Smallest job 'all' creates.")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ) -> None:
        """Pack jobs onto healthy nodes and write their verified OCS files.

        Jobs are rows x columns of healthy nodes, never overlapping, never on a failed node; each
        job's railx.ocs/v1 file is verified against its topology; allocation.json lists the jobs.
        """
        cfg = load_config(config, overrides)
        requests = jobs if jobs in JOB_MODES else load_job_requests(jobs)
        packing, ocs = allocate_jobs(cfg, load_failed(failed, _grid(cfg)), requests, topology, min_nodes)
        make_dir(out, f"--out {out}")
        paths = [out / name for name, _text in ocs]
        report = packing.to_dict() | {"ocs_files": [str(p) for p in paths]}
        # An earlier run's OCS files for jobs not placed now are removed: the folder holds one set.
        write_file_set(out, [*ocs, ("allocation.json", json.dumps(report, indent=2) + "\n")], f"*{OCS_SUFFIX}")
        grid = packing.grid
        if as_json:
            print(json.dumps(report, indent=2))
            return
        table = Table(title=f"jobs on a {grid[0]} x {grid[1]}-node RailX with {len(packing.failed)} failed nodes")
        for col in ("job", "columns x rows", "nodes", "topology"):
            table.add_column(col)
        for job in packing.jobs:
            table.add_row(job.name, f"{len(job.xs)} x {len(job.ys)}", str(job.nodes), job.topology.preset or "general")
        print_table(table)
        console.print(
            f"used {report['used_nodes']} nodes, {report['unused_healthy_nodes']} healthy nodes unused"
            + (f", not placed: {', '.join(packing.unplaced)}" if packing.unplaced else "")
        )
        console.print(f"wrote {out / 'allocation.json'} and {len(paths)} OCS files (verified)")
