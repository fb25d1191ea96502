"""The analyses a sweep can run: each a pure function from a point's resolved inputs (its base,
built once per worker, and its options) to a JSON-serialisable record, calling railx's public
functions, the same ones behind the CLI subcommands.

Each analysis names what its base is (`system`: a RailX configuration, a `[peer]` file or a
preset; `workload-system`: a `railx workload --system` file; `optional-system`; `none`: the
options hold the whole input), its options with
their defaults (an option's type is its default's; None takes any value), and which of its
record's values fill the store's typed columns (:data:`FIGURES`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from railx.config import ConfigError, parse_bytes
from railx.files import parse_toml
from railx.messages import shown, shown_name
from railx.sweep.files import FileOption, file_text
from railx.systems import System, system_from_document

__all__ = ["ANALYSES", "FIGURES", "Analysis", "BaseKind", "figures_of", "resolve_options"]

BaseKind = Literal["system", "workload-system", "optional-system", "none"]

#: The store's typed columns (DuckDB types) for the figures most analyses report; the full record
#: is kept as JSON beside them.
FIGURES: dict[str, str] = {
    "chips": "BIGINT",
    "time_s": "DOUBLE",
    "busbw_Bps": "DOUBLE",
    "cost_usd": "DOUBLE",
    "power_w": "DOUBLE",
    "availability": "DOUBLE",
    "iteration_s": "DOUBLE",
    "acyclic": "BOOLEAN",
    "mean_hops": "DOUBLE",
    "accepted": "DOUBLE",
    "latency_cycles": "DOUBLE",
}


@dataclass(frozen=True)
class Analysis:
    """A registered analysis: `run(base, options) -> record`; `figures` maps a typed column of
    :data:`FIGURES` to the record's (dotted) key holding it; `files` declares the options that
    name a file, which the spec's loader reads (railx.sweep.files) so that `run` gets their text."""

    name: str
    summary: str
    base: BaseKind
    options: dict[str, Any]
    run: Callable[[Any, dict[str, Any]], dict[str, Any]]
    figures: dict[str, str] = field(default_factory=dict)
    files: dict[str, FileOption] = field(default_factory=dict)


def _railx_only(system: System, what: str) -> dict[str, Any]:
    """The base's RailX configuration; a one-line error for any other family."""
    if system.railx is None:
        raise ConfigError(
            f"base = {system.name}: {what} reads a RailX configuration, not a {system.family} system; "
            "use a RailX TOML or preset (e.g. railx7mesh)"
        )
    return system.railx


def _plan(system: System, options: dict[str, Any]) -> dict[str, Any]:
    _railx_only(system, "plan")
    return json.loads(system.core.plan_json())


def _route_stats(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.routing import route_stats

    return route_stats(system, o["routing"], o["misroutes"], o["job"], o["samples"], o["seed"])


def _deadlock(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.routing import check_deadlock

    return check_deadlock(system, o["routing"], o["misroutes"], o["job"], o["samples"], o["seed"], o["vcs"])


def _cost(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.cost import figures, load_catalog, relative_to, resolve_system
    from railx.cost.catalog import parse_catalog

    given = o["catalog"]
    catalog = (
        load_catalog(given, o["port_basis"])
        if isinstance(given, str)
        else parse_catalog(given["text"], given["file"], o["port_basis"])
    )
    given = o["baseline"]
    baseline = resolve_system(given) if isinstance(given, str) else _system_file(given)
    return relative_to([figures(system, catalog)], figures(baseline, catalog))[0]


def _system_file(value: dict[str, str]) -> System:
    """A system from a file option's text (a RailX configuration or a [peer] table), named by
    the file's stem as `railx.systems.resolve_system` names a file's system."""
    document = parse_toml(value["text"], value["file"])
    return system_from_document(document, Path(value["file"]).stem, value["file"])


def _bytes(value: Any, name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        return parse_bytes(value, name)
    raise ConfigError(f'{name} = {shown(value)}: give bytes as a number or with a unit; e.g. 1048576 or "1MiB"')


def _collective(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.collectives.commands import collective_report

    return collective_report(
        system, o["op"], o["algo"], _bytes(o["size"], "options.size"), o["fidelity"], o["chunks"],
        o["reduce_s_per_byte"], o["routing"], o["flit_bytes"], o["link_model"], o["misroutes"],
    )  # fmt: skip


def _flow_sim(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.flowsim import Messages, simulate, simulate_symmetric, symmetric_traffic

    if o["traffic"] != "all-to-all":
        raise ConfigError(
            f'options.traffic = {shown(o["traffic"])}: the flow-sim analysis runs all-to-all; use "all-to-all" (collectives: the collective analysis with fidelity = "flow")'
        )
    size = _bytes(o["size"], "options.size")
    if o["aggregated"]:
        result = simulate_symmetric(system, symmetric_traffic(system, "all-to-all", size), o["routing"])
    else:
        n = system.chips
        pairs = [(s, d) for s in range(n) for d in range(n) if s != d]
        messages = Messages.from_lists([s for s, _ in pairs], [d for _, d in pairs], [size] * len(pairs))
        result = simulate(system, messages, o["routing"], o["misroutes"])
    return {
        "system": system.name,
        "traffic": "all-to-all",
        "size_bytes": size,
        "chips": system.chips,
        "time_s": result.completion_s,
        "flows": result.flows,
        "events": result.events,
        "messages": result.messages,
        "aggregated": bool(o["aggregated"]),
    }


def _flit_settings_defaults() -> dict[str, Any]:
    from railx.sim import FlitSettings

    return {f.name: getattr(FlitSettings(), f.name) for f in fields(FlitSettings)}


_FLIT_TRAFFIC = {
    "traffic": "uniform",
    "load": 0.1,
    "routing": None,
    "misroutes": None,
    "job": None,
    "permutation": None,  # None: the pattern's default (railx.sim.simulate); only its pattern takes it
    "hotspot_chips": None,
    "hotspot_fraction": None,
    "size_flits": None,
}


def _flit_sim(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.sim import FlitSettings, canonical_traffic, simulate

    settings = FlitSettings(**{k: o[k] for k in _flit_settings_defaults()})
    report, _utilisation = simulate(
        system, canonical_traffic(o["traffic"]), o["load"], settings=settings, routing=o["routing"],
        misroutes=o["misroutes"], job=o["job"], permutation=o["permutation"], hotspot_chips=o["hotspot_chips"],
        hotspot_fraction=o["hotspot_fraction"], size_flits=o["size_flits"],
    )  # fmt: skip
    return report


def _parallel(value: Any) -> dict[str, int]:
    from railx.workload.commands import parse_parallel

    if isinstance(value, str):
        return parse_parallel(value)
    if isinstance(value, dict):
        return parse_parallel(",".join(f"{k}={v}" for k, v in value.items()))
    raise ConfigError(f'options.parallel = {shown(value)}: give "T=4,D=8" or a table {{ T = 4, D = 8 }}')


def _iteration(workload_system: Any, o: dict[str, Any]) -> Any:
    """The IterationModel of options model, parallel and dp_all_reduce_order on the base."""
    from railx.workload.catalogue import load_model, parse_model
    from railx.workload.iteration import IterationModel

    given = o["model"]
    model = load_model(given) if isinstance(given, str) else parse_model(given["text"], given["file"])
    if o["dp_all_reduce_order"] is not None:
        training = workload_system.training.model_copy(update={"dp_all_reduce_order": o["dp_all_reduce_order"]})
        workload_system = workload_system.model_copy(update={"training": training})
    par = workload_system.parallelism(**_parallel(o["parallel"]))
    par.check(model)
    return IterationModel(model, par, workload_system)


def _workload(workload_system: Any, o: dict[str, Any]) -> dict[str, Any]:
    it = _iteration(workload_system, o)
    model, par = it.model, it.par
    r = it.evaluate()
    return {
        "model": model.name,
        "parallel": {"T": par.T, "C": par.C, "E": par.E, "D": par.D, "De": par.De, "P": par.P},
        "chips": par.ranks,
        "iteration_s": float(r.total_s),
        "compute_total_s": float(it.compute_total_s),
        "compute_exposed_s": float(r.compute_exposed_s),
        "comm_exposed_s": float(r.comm_exposed_s),
        "by_parallelism_s": {k: float(v) for k, v in r.by_parallelism_s.items()},
        "by_collective_s": {k: float(v) for k, v in r.by_collective_s.items()},
    }


def _availability(system: System | None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.availability import availability
    from railx.config import Config

    grid = o["grid"]
    if grid is None:
        if system is None or system.railx is None:
            raise ConfigError("options.grid: not given and no RailX base to take it from; e.g. grid = [64, 64]")
        grid = Config.from_dict(system.railx).system.plant()["grid"]
    if not (isinstance(grid, list) and len(grid) == 2 and all(isinstance(g, int) and g > 0 for g in grid)):
        raise ConfigError(f"options.grid = {shown(grid)}: give [P, Q] nodes; e.g. grid = [64, 64]")
    if (o["rate"] is None) == (o["count"] is None):
        raise ConfigError(
            "options: give exactly one of rate (per-node failure probability) or count; e.g. rate = 0.001"
        )
    stats = availability(
        (grid[0], grid[1]), rate=o["rate"], count=o["count"], samples=o["samples"], seed=o["seed"],
        solver=o["solver"], time_limit_s=o["time_limit_s"],
    )  # fmt: skip
    return asdict(stats) | {"grid": list(grid)}


def _wavelengths(_base: None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.wavelengths.allocation import allocate, allocation_json
    from railx.wavelengths.config import wavelength_config

    spec = wavelength_config({k: o[k] for k in ("r", "L", "w", "jobs")}, "options")
    return allocation_json(allocate(spec.topology(), spec.w, spec.job_list(), exact=o["exact"]))


_TRAFFIC_OPTIONS = ("model", "job", "parallel", "hb_domain", "gpus", "micro_batch", "global_batch", "sequence",
                    "all_reduce", "ring")  # fmt: skip


def _traffic(_base: None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.workload.traffic_commands import traffic_report

    parallel = None if o["parallel"] is None else ",".join(f"{k}={v}" for k, v in _parallel(o["parallel"]).items())
    report, _matrix = traffic_report(**{k: o[k] for k in _TRAFFIC_OPTIONS} | {"parallel": parallel})
    return report


def _railonly_slowdown(_base: None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.collectives.railonly import slowdown_rows

    return slowdown_rows((o["platform"],), o["domains"], o["fidelity"], o["pair_bytes"])[0]


def _multitenant(_base: None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.multitenant.commands import iteration_records, mixes, topology_builder
    from railx.multitenant.evaluation import evaluate
    from railx.multitenant.workloads import iteration_messages

    if o["workload"] is not None and o["size"] is not None:
        raise ConfigError("options.workload and options.size: give one; a workload fixes its own message sizes")
    build = topology_builder(o["allocation"])
    sigmas = None if o["sigma"] is None else [o["sigma"]]
    mix = mixes(o["cus"], o["job"], sigmas, o["jobs"], o["granule"])
    sizes = sorted(iteration_messages(o["workload"])) if o["workload"] else [_bytes(o["size"] or "1MB", "options.size")]
    rows = evaluate([o["topology"]], [o["algo"]], mix, sizes, build=build)
    if not rows:
        raise ConfigError(
            f'options.algo = {shown(o["algo"])}: Flex-SiPCO runs on flex-sipac and sipac only, not {o["topology"]}; use algo = "M"'
        )
    if o["workload"]:
        return iteration_records(rows, o["workload"])[0] | {"sigma": rows[0].sigma}
    return asdict(rows[0])


def _allocate_bw(workload_system: Any, o: dict[str, Any]) -> dict[str, Any]:
    from railx.workload.commands import bandwidth_split_report

    it = _iteration(workload_system, o)
    report, _static, _dynamic = bandwidth_split_report(it, o["method"], o["reconfig_ms"])
    return report | {"chips": it.par.ranks}


def _libra(_base: None, o: dict[str, Any]) -> dict[str, Any]:
    from railx.libra.commands import libra_problem, result_json, solve
    from railx.libra.evaluation import evaluate

    network = o["network"] if isinstance(o["network"], str) else file_text(o["network"])
    constraints = None if o["constraints"] is None else file_text(o["constraints"])
    problem = libra_problem(
        network, [file_text(w) for w in o["workload"]], [file_text(c) for c in o["communicator"]],
        file_text(o["cost"]), objective=o["objective"], total_bw=o["total_bw"], constraints=constraints,
        weights=o["weight"], loop=o["loop"], cost_dims=o["cost_dims"], ring_bw_share=o["ring_bw_share"],
    )  # fmt: skip
    result = solve(problem, o["objective"])
    # With no evaluation asked for, the record is `railx libra --json`'s.
    extra = {"evaluation": evaluate(problem, result, o["evaluate"], o["chunks"])} if o["evaluate"] else {}
    return result_json(result) | extra


_LIBRA_FILES = {
    "network": FileOption("a LIBRA network YAML file", 'network = "4d_network.yml"', required=True,
                          inline=lambda v: isinstance(v, str) and "(" in v,
                          inline_help="a notation like RI(4)_FC(8)_RI(4)_SW(32)"),
    "workload": FileOption("an ASTRA-sim 1.0 workload text file", 'workload = ["GPT_3.txt"]', required=True),
    "communicator": FileOption("a LIBRA communicator YAML file", 'communicator = ["GPT_3_4d.yml"] (one per workload)',
                               required=True),
    "cost": FileOption("a LIBRA cost-model YAML file", 'cost = "4d_cost_model.yml"', required=True),
    "constraints": FileOption("a constraints TOML file", 'constraints = "constraints.toml"'),
}  # fmt: skip


def _allocate(system: System, o: dict[str, Any]) -> dict[str, Any]:
    from railx.availability.commands import allocate_jobs
    from railx.availability.failures import blocked_matrix, parse_failed
    from railx.availability.packing import parse_job_requests
    from railx.config import Config

    config = Config.from_dict(_railx_only(system, "allocate"))
    p, q = config.system.plant()["grid"]
    grid, failed = (p, q), o["failed"]
    blocked = (
        blocked_matrix(failed, grid, "options.failed")
        if isinstance(failed, list)
        else parse_failed(failed["text"], failed["file"], grid)
    )
    jobs = o["jobs"] if isinstance(o["jobs"], str) else parse_job_requests(o["jobs"]["text"], o["jobs"]["file"])
    packing, ocs = allocate_jobs(config, blocked, jobs, o["topology"], o["min_nodes"])
    return packing.to_dict() | {"ocs_files": [name for name, _text in ocs]}


_ALLOCATE_FILES = {
    "failed": FileOption("a failed-nodes JSON file", 'failed = "failed.json"', required=True,
                         inline=lambda v: isinstance(v, list), inline_help="a list of [x, y] nodes"),
    "jobs": FileOption("a jobs TOML file", 'jobs = "jobs.toml"', inline=lambda v: v in ("all", "single"),
                       inline_help='"all" or "single"'),
}  # fmt: skip


def _builtin_catalog(value: Any) -> bool:
    from railx.cost.catalog import BUILTIN_CATALOGS

    return value in BUILTIN_CATALOGS


def _preset(value: Any) -> bool:
    from railx.systems import PRESETS

    return value in PRESETS


_COST_FILES = {
    "catalog": FileOption("a price catalog TOML file", 'catalog = "my-prices.toml"', inline=_builtin_catalog,
                          inline_help="a shipped catalog (railx-table6, railonly, ...)"),
    "baseline": FileOption("a system TOML file", 'baseline = "fat-tree-1296.toml"', inline=_preset,
                           inline_help="a preset (ft2, railx7mesh, ...)"),
}  # fmt: skip
#: A model is a shipped key (keys may hold dots: moe-1.3b) or, ending in .toml, a model file.
_MODEL_FILE = {
    "model": FileOption("a model TOML file", 'model = "my-model.toml"',
                        inline=lambda v: isinstance(v, str) and not v.endswith(".toml"),
                        inline_help="a shipped model key (e.g. llama3-70b)"),
}  # fmt: skip

_ROUTING = {"routing": None, "misroutes": None, "job": None}
#: Options holding a byte count: a number, or text with a unit ("1MiB").
BYTE_OPTIONS = frozenset({"size"})

ANALYSES: dict[str, Analysis] = {
    a.name: a
    for a in [
        Analysis("plan", "RailX plan: realized metrics beside the closed forms (railx plan)", "system", {}, _plan,
                 {"chips": "chips"}),
        Analysis("route-stats", "hop statistics over all or sampled pairs (railx route --stats)", "system",
                 _ROUTING | {"samples": 1_000_000, "seed": 0}, _route_stats, {"mean_hops": "mean_inter_node_hops"}),
        Analysis("deadlock", "channel-dependency deadlock check (railx route --check-deadlock)", "system",
                 _ROUTING | {"samples": 100_000, "seed": 0, "vcs": None}, _deadlock, {"acyclic": "acyclic"}),
        Analysis("cost", "bill of materials, cost and power (railx cost)", "system",
                 {"catalog": "railx-table6", "port_basis": None, "baseline": "ft2"}, _cost,
                 {"chips": "chips", "cost_usd": "cost_usd", "power_w": "power_w"}, _COST_FILES),
        Analysis("collective", "a collective's time at analytic, flow or flit fidelity (railx collective)", "system",
                 {"op": "all-reduce", "algo": "hierarchical", "size": "1MiB", "fidelity": "analytic", "chunks": 1,
                  "reduce_s_per_byte": 0.0, "flit_bytes": None, "link_model": None} | _ROUTING, _collective,
                 {"chips": "ranks", "time_s": "time_s", "busbw_Bps": "busbw_Bps"}),
        Analysis("flow-sim", "all-to-all on the flow-level simulator (railx.flowsim)", "system",
                 {"traffic": "all-to-all", "size": "64KiB", "aggregated": False, "routing": None, "misroutes": None},
                 _flow_sim, {"chips": "chips", "time_s": "time_s"}),
        Analysis("flit-sim", "one run of the flit-level simulator (railx sim)", "system",
                 _FLIT_TRAFFIC | _flit_settings_defaults(), _flit_sim,
                 {"chips": "chips", "accepted": "accepted", "latency_cycles": "latency.mean"}),
        Analysis("workload", "training iteration time, eq. 10 (railx workload)", "workload-system",
                 {"model": "llama3-70b", "parallel": "T=1", "dp_all_reduce_order": None}, _workload,
                 {"chips": "chips", "iteration_s": "iteration_s"}, _MODEL_FILE),
        Analysis("availability", "Monte Carlo availability of the largest job, Fig. 17 (railx availability --rate)",
                 "optional-system",
                 {"grid": None, "rate": None, "count": None, "samples": 100, "seed": 0, "solver": "auto",
                  "time_limit_s": 30.0}, _availability, {"availability": "availability_mean"}),
        Analysis("wavelengths", "Flex-SiPAC wavelength allocation, eq. 1 of paper 003 (railx wavelengths --json)",
                 "none", {"r": 4, "L": 2, "w": 12, "jobs": [], "exact": None}, _wavelengths),
        Analysis("traffic", "GPU-pair traffic of one training iteration by type, Rail-only §III (railx traffic --json)",
                 "none", dict.fromkeys(_TRAFFIC_OPTIONS) | {"ring": "bidirectional"}, _traffic, {"chips": "gpus"}),
        Analysis("railonly-slowdown", "Rail-only's forwarding slow-down, eq. 3 / eq. 2 - 1 of paper 002 (per platform)",
                 "none", {"platform": "dgx-a100", "domains": 16, "fidelity": "analytic", "pair_bytes": 1 << 20},
                 _railonly_slowdown, {"time_s": "eq3_s"}),
        Analysis("multitenant", "job completion time of a job mix's all-reduces on one topology, paper 003 §6 "
                 "(railx multitenant --json)", "none",
                 {"cus": 64, "topology": "flex-sipac", "algo": "M", "size": None, "workload": None, "job": [],
                  "sigma": None, "jobs": 2, "granule": 8, "allocation": "relaxed"}, _multitenant, {"time_s": "jct_s"}),
        Analysis("allocate-bw", "ports split among parallelisms, eq. 11 of paper 000 (railx allocate-bw --json)",
                 "workload-system", {"model": "llama3-70b", "parallel": "T=1", "dp_all_reduce_order": None,
                                     "method": "auto", "reconfig_ms": None}, _allocate_bw,
                 {"chips": "chips", "iteration_s": "static.time_s"}, _MODEL_FILE),
        Analysis("libra", "LIBRA's per-dimension bandwidth optimum beside EqualBW, paper 004 (railx libra --json)",
                 "none", {"network": None, "workload": [], "communicator": [], "cost": None, "objective": "perf",
                          "total_bw": None, "constraints": None, "weight": None, "loop": "no-overlap",
                          "cost_dims": None, "ring_bw_share": 1.0, "evaluate": [], "chunks": 64}, _libra, {"time_s": "time_s", "cost_usd": "cost_usd"}, _LIBRA_FILES),
        Analysis("allocate", "jobs packed onto the healthy nodes of a RailX, their OCS verified (railx allocate --json)",
                 "system", {"failed": None, "jobs": "all", "topology": "torus", "min_nodes": 1}, _allocate,
                 files=_ALLOCATE_FILES),
    ]
}  # fmt: skip


def _type_ok(value: Any, default: Any) -> bool:
    if default is None or value is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, int):
        return isinstance(value, int)
    return isinstance(value, type(default))


def resolve_options(analysis: Analysis, given: dict[str, Any], axis_of: dict[str, str]) -> dict[str, Any]:
    """Every option of `analysis`: its defaults with `given` on top; a one-line ConfigError naming
    the option (and its axis, when an axis set it) for an unknown name or a value of the wrong type."""
    for name, value in given.items():
        where = axis_of.get(f"options.{name}", "options")
        if name not in analysis.options:
            valid = ", ".join(analysis.options) or "none"
            raise ConfigError(
                f"{where}: options.{shown_name(name)}: not an option of {analysis.name}; its options are {valid}"
            )
        default = analysis.options[name]
        if name in BYTE_OPTIONS and isinstance(value, int) and not isinstance(value, bool):
            continue  # a byte count given as a number rather than as text with a unit
        if not _type_ok(value, default):
            raise ConfigError(
                f"{where}: options.{name} = {shown(value)}: expected a {type(default).__name__} like its default {default!r}"
            )
    return analysis.options | given


def figures_of(analysis: Analysis, record: dict[str, Any]) -> dict[str, Any]:
    """The typed columns' values from a record (None where it has no such figure)."""
    out: dict[str, Any] = dict.fromkeys(FIGURES)
    for column, key in analysis.figures.items():
        value: Any = record
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        out[column] = value
    return out
