"""LIBRA's evaluation (paper 004 §VI: Figs. 10, 13-18) recomputed with railx's LIBRA model.

    python3 benchmarks/libra_eval.py [--inputs PATH_TO_LIBRA_INPUTS] [--out docs/reproductions/libra]
                                     [--workers N] [--scheduler ADDRESS] [--store FILE]

Settings are the paper's (§V-B, §VI): EqualBW (budget / dimensions) as the baseline; the
shipped workloads with their communicators (DLRM's spans every dimension, benchmarks/libra_dlrm;
MSFT-1T on Table III's other networks, benchmarks/libra_derived); the 3D-4K and 4D-4K networks
with the shipped cost models; budgets of 100-1,000 GB/s per NPU (the paper gives the range, not
its points: here every 100 GB/s). Every design is optimised with LIBRA's model (perfectly
pipelined collectives, every group using its dimension's whole bandwidth) and then also
evaluated two ways the paper's ASTRA-sim runs differ from that model (railx.libra.evaluation):
- `chunked`: each collective split into 64 chunks (railx.libra.chunked), as in the paper;
- `subgroups`: a group smaller than a fully-connected dimension reaches only its members' links
  (railx.libra.collective.group_share); this changes only GPT-3 on 4D-4K (TP 4 and DP 2 on FC(8)).

Every optimisation is a point of the libra analysis run by railx's sweep engine, its evaluations
asked for with the analysis's `evaluate` option: Figs. 10, 13-16, 17 (own and equally weighted
group designs) and 18 are the shipped specs examples/sweeps/libra-eval.toml, libra-fig10.toml,
libra-fig17.toml and libra-fig18.toml (their paths of LIBRA's files pointed at --inputs, by
default the copy in examples/libra-inputs); the rings-at-half sensitivity (`ring_bw_share = 0.5`)
and Fig. 17's groups weighted by 1 / each workload's own time are sweeps built here. Fig. 17
evaluates every workload on every design (railx.libra.figures, no optimisation).
Writes one JSON file and one PNG per figure to --out and prints a table per figure with the
paper's statements beside the results.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

from railx.libra.figures import (
    ALL_FIVE,
    CONSTRAINT_SETS,
    LLMS,
    BUDGETS_GBps,
    by_constraints,
    cross_slowdowns,
    design_name,
    price_rows,
    stored_designs,
    sweep_rows,
    utilization_rows,
)
from railx.sweep import Sweep, parse_spec
from railx.sweep.batch import Runner, runner

HERE = Path(__file__).resolve().parent
SPEC = HERE.parent / "examples" / "sweeps" / "libra-eval.toml"
DEFAULT_INPUTS = HERE.parent / "examples" / "libra-inputs"
INPUTS_PREFIX = "../libra-inputs/"  # how the spec names LIBRA's files (from examples/sweeps)
EVALUATE = ["chunked", "subgroups", "utilization"]
SHIPPED_COMMUNICATORS = {
    "3D-4K": {"GPT_3": "GPT_3_3d", "MSFT_1T": "MSFT_1T_3d", "Turing_NLG": "Turing_NLG_3D", "ResNet_50": "ResNet_50_3d"},
    "4D-4K": {"GPT_3": "GPT_3_4d", "MSFT_1T": "MSFT_1T_4d", "Turing_NLG": "Turing_NLG_4D", "ResNet_50": "ResNet_50_4d"},
}
# Table III's other networks (and Fig. 10's 2D one, which the paper does not name). The paper
# does not give their cost dimensions; they are priced like the shipped network of the same
# dimensionality (3D: InterPackage, InterNode, InterPod; 4D: InterChiplet first). Their network
# files and MSFT-1T's communicators on them (TP 128 on the inner dimensions, DP over the last) are
# benchmarks/libra_derived; the value is the cost model's dimensionality.
DERIVED_NETWORKS = {
    "2D-4K": "4d",  # Fig. 10 only: times, not costs
    "3D-512": "3d",
    "3D-1K": "3d",
    "4D-2K": "4d",
}
# The spec's cases (Figs. 13-16), in its order: each over BUDGETS_GBps x both objectives.
SPEC_CASES = (
    *((net, w) for net in ("3D-4K", "4D-4K") for w in LLMS),
    ("4D-4K", "ResNet_50"),
    ("4D-4K", "DLRM"),
    *((net, "MSFT_1T") for net in ("3D-512", "3D-1K", "4D-2K")),
)
# Figs. 17 and 18 use 4D-4K at 1,000 GB/s per NPU without naming constraints; LIBRA ships two
# sets, and `multiple_constraints` (4D, 1,000 GB/s) is its default configuration, so both are run
# (their files in benchmarks/, railx.libra.figures.CONSTRAINT_SETS).
CONSTRAINTS_4D = {name: {"options.constraints": str(HERE / f"{stem}.toml")} for stem, name in CONSTRAINT_SETS.items()}


def case_options(network: str, workloads: tuple[str, ...]) -> dict[str, Any]:
    """The libra analysis's file options for workloads on a network, as the spec names them:
    relative to the spec (examples/sweeps), LIBRA's files under examples/libra-inputs."""
    prefix, repo = INPUTS_PREFIX, "../../benchmarks/"
    if network in SHIPPED_COMMUNICATORS:
        dims = network[:2].lower()
        out: dict[str, Any] = {
            "options.network": f"{prefix}network/{dims}_network.yml",
            "options.cost": f"{prefix}cost_model/{dims}_cost_model.yml",
        }
        comms = [
            f"{repo}libra_dlrm/DLRM_{dims}.yml"
            if w == "DLRM"
            else f"{prefix}communicator/{SHIPPED_COMMUNICATORS[network][w]}.yml"
            for w in workloads
        ]
    else:
        if workloads != ("MSFT_1T",):
            raise ValueError(f"{network}: only MSFT-1T has a communicator (TP 128, DP over the rest)")
        out = {
            "options.network": f"{repo}libra_derived/{network}_network.yml",
            "options.cost": f"{prefix}cost_model/{DERIVED_NETWORKS[network]}_cost_model.yml",
        }
        comms = [f"{repo}libra_derived/MSFT_1T_{network}.yml"]
    return out | {
        "options.workload": [f"{prefix}workload/{w}.txt" for w in workloads],
        "options.communicator": comms,
    }


def _rebased(value: Any, inputs: Path) -> Any:
    """A spec value with its paths of LIBRA's files under `inputs` instead."""
    if isinstance(value, str) and value.startswith(INPUTS_PREFIX):
        return str(inputs / value.removeprefix(INPUTS_PREFIX))
    if isinstance(value, list):
        return [_rebased(v, inputs) for v in value]
    if isinstance(value, dict):
        return {k: _rebased(v, inputs) for k, v in value.items()}
    return value


def shipped_sweep(name: str, inputs: Path) -> Sweep:
    """A shipped spec (examples/sweeps/<name>.toml) with LIBRA's files read from `inputs`."""
    path = SPEC.parent / f"{name}.toml"
    return parse_spec(_rebased(tomllib.loads(path.read_text()), inputs), SPEC.parent, name)


def built_sweep(name: str, inputs: Path, points: list[dict[str, Any]]) -> Sweep:
    """A libra sweep of these points (paths of LIBRA's files under `inputs`)."""
    data = {"sweep": {"name": name, "analysis": "libra", "retries": 0}, "axis": [{"list": _rebased(points, inputs)}]}
    return parse_spec(data, SPEC.parent, name)


class Engine:
    """Runs the figures' sweeps on one runner and returns their records in order."""

    def __init__(self, run_on: Runner, inputs: Path) -> None:
        self.run_on, self.inputs = run_on, inputs
        self._spec_rows: list[dict[str, object]] | None = None

    def records(self, sweep: Sweep) -> list[dict[str, Any]]:
        return [r for _, r in self.points(sweep)]

    def points(self, sweep: Sweep) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Each point's analysis options (file options as their name and text) and record, in the
        sweep's order."""
        frame = self.run_on.frame(sweep)
        for point in frame.to_dict("records"):
            if isinstance(point["error"], str):
                raise SystemExit(f"{sweep.name} point {point['point']}: {point['error']}")
        return [(p.inputs["options"], r) for p, r in zip(sweep.points, frame["record"])]

    def run(self, name: str, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.records(built_sweep(name, self.inputs, points))

    def spec_rows(self, cases: list[tuple[str, str]]) -> list[dict[str, object]]:
        """The shipped spec's rows of these cases (the whole spec runs once, with the first
        figure that asks: Figs. 13-16 share it)."""
        if self._spec_rows is None:
            self._spec_rows = sweep_rows(self.records(shipped_sweep("libra-eval", self.inputs)))
        return [r for r in self._spec_rows if (r["network"], r["workload"]) in cases]


def _stat(rows: list[dict], objective: str, key: str) -> tuple[float, float]:
    values = [r[objective][key] for r in rows]
    return float(np.mean(values)), float(np.max(values))


def fig10(engine: Engine) -> dict[str, object]:
    """MSFT-1T at 300 GB/s on 2D, 3D and 4D networks (the shipped spec libra-fig10): EqualBW's
    bandwidth utilisation and the speed-up that full utilisation (and PerfOpt) would give."""
    return {"rows": utilization_rows(engine.records(shipped_sweep("libra-fig10", engine.inputs)))}


def fig13_14(engine: Engine) -> dict[str, object]:
    """Turing-NLG, GPT-3 and MSFT-1T on 3D-4K and 4D-4K over the budget sweep; the same with
    rings at half bandwidth (every ring collective reaching half its links' bandwidth, as if it
    used one direction) as a sensitivity."""
    cases = [(net, w) for net in ("3D-4K", "4D-4K") for w in LLMS]
    rows = engine.spec_rows(cases)
    half_points = [
        case_options(net, (w,)) | {"options.ring_bw_share": 0.5, "options.total_bw": b, "options.objective": o}
        for net, w in cases
        for b in BUDGETS_GBps
        for o in ("perf", "perf-per-cost")
    ]
    half = sweep_rows(engine.run("libra-eval-rings-at-half", half_points))
    summary = {
        f"{obj} {key}": _stat(rows, obj, key)
        for obj in ("perf", "perf-per-cost")
        for key in (
            "speedup_analytic",
            "speedup_chunked",
            "speedup_subgroups",
            "ppc_analytic",
            "ppc_chunked",
            "ppc_subgroups",
        )
    }
    summary.update(
        {
            f"rings at half: {obj} {key}": _stat(half, obj, key)
            for obj in ("perf", "perf-per-cost")
            for key in ("speedup_analytic", "ppc_analytic")
        }
    )
    return {"rows": rows, "summary_mean_max": summary}


def fig15(engine: Engine) -> dict[str, object]:
    """ResNet-50 and DLRM on 4D-4K; how much cheaper PerfPerCostOpt's designs are than PerfOpt's."""
    rows = engine.spec_rows([("4D-4K", "ResNet_50"), ("4D-4K", "DLRM")])
    cheaper = [1 - r["perf-per-cost"]["cost_usd"] / r["perf"]["cost_usd"] for r in rows]  # type: ignore[index]
    return {"rows": rows, "mean_cheaper": float(np.mean(cheaper)), "cheaper": cheaper}


def fig16(engine: Engine) -> dict[str, object]:
    """MSFT-1T on 3D-512, 3D-1K and 4D-2K."""
    return {"rows": engine.spec_rows([(net, "MSFT_1T") for net in ("3D-512", "3D-1K", "4D-2K")])}


def fig17(engine: Engine) -> dict[str, object]:
    """4D-4K at 1,000 GB/s: each workload's PerfOpt design, every workload run on every design
    (slowdown over its own design), and group designs over the LLMs and over all five, under each
    of CONSTRAINTS_4D. The paper's weights are not stated: `normalised` weighs each workload by
    1 / its own optimal time (the group minimises the sum of slowdowns), `equal` sums raw times.
    The shipped spec libra-fig17 has the own and equal designs; the normalised ones need the own
    designs' times, so they are a second sweep built here."""
    stored = by_constraints(engine.points(shipped_sweep("libra-fig17", engine.inputs)))
    return {name: _cross_designs(engine, name, stored[name]) for name in CONSTRAINTS_4D}


def _cross_designs(engine: Engine, name: str, stored: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, object]:
    by_name, times = stored_designs(stored)
    own = {w: by_name[w] for w in ALL_FIVE}
    normalised_points = [
        case_options("4D-4K", members)
        | CONSTRAINTS_4D[name]
        | {"options.objective": "perf", "options.weight": [1.0 / own[w]["time_s"] for w in members]}
        for members in (LLMS, ALL_FIVE)
    ]
    normalised = engine.run(f"libra-eval-fig17-groups-{name.replace(' ', '-')}", normalised_points)
    designs = {w: r["bw_per_dim"] for w, r in own.items()}
    for members, r in zip((LLMS, ALL_FIVE), normalised):
        designs[design_name(members, "normalised")] = r["bw_per_dim"]
        designs[design_name(members, "equal")] = by_name[design_name(members, "equal")]["bw_per_dim"]
    return cross_slowdowns(designs, own, times)


def fig18(engine: Engine) -> dict[str, object]:
    """4D-4K at 1,000 GB/s, PerfPerCostOpt, with the inter-Package link priced $1-$5 per GB/s,
    under each of CONSTRAINTS_4D (the shipped spec libra-fig18: each price a cost-model file, the
    shipped one with that price, in benchmarks/libra_derived)."""
    stored = by_constraints(engine.points(shipped_sweep("libra-fig18", engine.inputs)))
    out: dict[str, object] = {}
    for name in CONSTRAINTS_4D:
        rows = price_rows(stored[name])
        gains = [r["ppc_gain"] for r in rows]
        llm = [r["ppc_gain"] for r in rows if r["workload"] in LLMS]
        out[name] = {
            "rows": rows,
            "mean_max_all": (float(np.mean(gains)), float(np.max(gains))),
            "mean_max_llms": (float(np.mean(llm)), float(np.max(llm))),
        }
    return out


def _sweep_table(rows: list[dict]) -> list[str]:
    lines = [
        f"{'network':<7} {'workload':<11} {'GB/s':>5} | {'PerfOpt bw':<24} {'spdup':>6} {'chunk':>6} {'subgr':>6} "
        f"{'ppc':>6} | {'PerfPerCost bw':<24} {'spdup':>6} {'ppc':>6} {'ppc ch':>6} {'$M':>6} {'Eq $M':>6}"
    ]
    for r in rows:
        p, q = r["perf"], r["perf-per-cost"]
        lines.append(
            f"{r['network']:<7} {r['workload']:<11} {r['budget_GBps']:>5.0f} | {'/'.join(f'{b:.0f}' for b in p['bw_GBps']):<24} "
            f"{p['speedup_analytic']:>6.3f} {p['speedup_chunked']:>6.3f} {p['speedup_subgroups']:>6.3f} {p['ppc_analytic']:>6.2f} | "
            f"{'/'.join(f'{b:.0f}' for b in q['bw_GBps']):<24} {q['speedup_analytic']:>6.3f} {q['ppc_analytic']:>6.2f} "
            f"{q['ppc_chunked']:>6.2f} {q['cost_usd'] / 1e6:>6.2f} {r['equalbw_cost_usd'] / 1e6:>6.2f}"
        )
    return lines


def _mean_max(rows: list[dict], objective: str, key: str) -> str:
    mean, top = _stat(rows, objective, key)
    return f"{mean:.2f}x (max {top:.2f}x)"


def report_fig10(data: dict) -> list[str]:
    lines = [
        f"{'network':<7} {'notation':<26} {'EqualBW util':>12} {'PerfOpt util':>12} {'100% spdup':>10} {'PerfOpt':>8}"
    ]
    for r in data["rows"]:
        lines.append(
            f"{r['network']:<7} {r['notation']:<26} {r['equalbw_utilization']:>12.2%} {r['perfopt_utilization']:>12.2%} "
            f"{r['speedup_full_utilization']:>10.3f} {r['speedup_perfopt']:>8.3f}"
        )
    utils = [r["equalbw_utilization"] for r in data["rows"]]
    top = max(r["speedup_full_utilization"] for r in data["rows"])
    return [
        *lines,
        f"railx: EqualBW utilisation mean {np.mean(utils):.2%} (max {max(utils):.2%}); 100% gives up to {top:.2f}x",
        "paper: 57.53% / 39.02% / 66.74% (2D/3D/4D), mean 53.11% (66.74% max); 100% gives up to 1.83x",
    ]


def report_fig13_14(data: dict) -> list[str]:
    rows = data["rows"]
    return [
        *_sweep_table(rows),
        f"speed-up PerfOpt: railx {_mean_max(rows, 'perf', 'speedup_analytic')}, chunked "
        f"{_mean_max(rows, 'perf', 'speedup_chunked')}, subgroups {_mean_max(rows, 'perf', 'speedup_subgroups')}; "
        "paper 1.23x (max 2.00x); no allocation beats full utilisation, whose speed-up is at most "
        f"{max(r['full_utilization_speedup'] for r in rows):.2f}x",
        f"perf-per-cost PerfOpt: railx {_mean_max(rows, 'perf', 'ppc_analytic')}, subgroups "
        f"{_mean_max(rows, 'perf', 'ppc_subgroups')}; paper 5.40x (max 12.24x)",
        f"perf-per-cost PerfPerCostOpt: railx {_mean_max(rows, 'perf-per-cost', 'ppc_analytic')}, chunked "
        f"{_mean_max(rows, 'perf-per-cost', 'ppc_chunked')}, subgroups "
        f"{_mean_max(rows, 'perf-per-cost', 'ppc_subgroups')}; paper 9.16x (max 13.02x)",
        "sensitivity, rings at half bandwidth (mean, max): "
        + "; ".join(
            f"{k.removeprefix('rings at half: ')} {m:.2f}x, {t:.2f}x"
            for k, (m, t) in data["summary_mean_max"].items()
            if k.startswith("rings")
        ),
    ]


def report_fig15(data: dict) -> list[str]:
    return [
        *_sweep_table(data["rows"]),
        f"PerfPerCostOpt designs cheaper than PerfOpt's: railx {data['mean_cheaper']:.2%} on average; paper 15.41%",
    ]


def report_fig16(data: dict) -> list[str]:
    rows = data["rows"]
    by_net = {net: [r for r in rows if r["network"] == net] for net in dict.fromkeys(r["network"] for r in rows)}
    summary = [
        f"{net}: PerfOpt speed-up {_mean_max(rs, 'perf', 'speedup_analytic')}, perf-per-cost "
        f"{_mean_max(rs, 'perf', 'ppc_analytic')}; PerfPerCostOpt perf-per-cost {_mean_max(rs, 'perf-per-cost', 'ppc_analytic')}"
        for net, rs in by_net.items()
    ]
    return [*_sweep_table(rows), *summary, "paper: values only in the figure's bars (not stated in the text)"]


def _report_cross(data: dict) -> list[str]:
    workloads = list(next(iter(data["slowdown"].values())))
    lines = [f"{'design (4D-4K, 1000 GB/s)':<34} {'bw GB/s':<22} " + " ".join(f"{w:>10}" for w in workloads)]
    for design, row in data["slowdown"].items():
        bw = "/".join(f"{b:.0f}" for b in data["designs"][design])
        lines.append(f"{design:<34} {bw:<22} " + " ".join(f"{row[w]:>10.3f}" for w in workloads))
    worst = {w: max(s for o, s in data["slowdown"][w].items() if o != w) for w in workloads}
    groups = {d: np.mean(list(r.values())) for d, r in data["slowdown"].items() if d.startswith("group")}
    return [
        *lines,
        "worst slowdown of the others on each workload's design: "
        + ", ".join(f"{w} {s:.2f}x" for w, s in worst.items()),
        "group designs' mean slowdown: " + ", ".join(f"{d} {s:.3f}x" for d, s in groups.items()),
    ]


def report_fig17(data: dict) -> list[str]:
    return [
        *(line for cons, part in data.items() for line in (f"-- constraints: {cons}", *_report_cross(part))),
        "paper: worst slowdown ResNet-50 1.77x, DLRM 1.02x, Turing-NLG 1.77x, GPT-3 1.15x, MSFT-1T 1.04x; group 1.01x mean",
    ]


def _report_prices(data: dict) -> list[str]:
    lines = [f"{'$/GBps':>6} " + " ".join(f"{w:>10}" for w in ALL_FIVE)]
    for price in sorted({r["link_usd_per_GBps"] for r in data["rows"]}):
        gains = {r["workload"]: r["ppc_gain"] for r in data["rows"] if r["link_usd_per_GBps"] == price}
        lines.append(f"{price:>6.0f} " + " ".join(f"{gains[w]:>10.2f}" for w in ALL_FIVE))
    (mean_all, max_all), (mean_llm, max_llm) = data["mean_max_all"], data["mean_max_llms"]
    return [
        *lines,
        f"perf-per-cost over EqualBW: all five {mean_all:.2f}x (max {max_all:.2f}x), LLMs {mean_llm:.2f}x (max {max_llm:.2f}x)",
    ]


def report_fig18(data: dict) -> list[str]:
    return [
        *(line for cons, part in data.items() for line in (f"-- constraints: {cons}", *_report_prices(part))),
        "paper: 4.06x on average (max 5.59x)",
    ]


def _sweep_axes(ax_speed, ax_ppc, rows: list[dict], title: str) -> None:
    series = dict.fromkeys((r["network"], r["workload"]) for r in rows)
    for i, (net, w) in enumerate(series):
        pts = [r for r in rows if (r["network"], r["workload"]) == (net, w)]
        budgets = [r["budget_GBps"] for r in pts]
        for objective, style in (("perf", "-o"), ("perf-per-cost", "--s")):
            label = f"{w}+{net} {'PerfOpt' if objective == 'perf' else 'PerfPerCostOpt'}"
            ax_speed.plot(budgets, [r[objective]["speedup_analytic"] for r in pts], style, color=f"C{i}", label=label)
            ax_ppc.plot(budgets, [r[objective]["ppc_analytic"] for r in pts], style, color=f"C{i}", label=label)
    ax_speed.axhline(1.0, color="grey", lw=0.8)
    for ax, what in ((ax_speed, "speed-up over EqualBW"), (ax_ppc, "perf-per-cost over EqualBW")):
        ax.set_xlabel("bandwidth per NPU (GB/s)")
        ax.set_ylabel(what)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.set_title(title)
    ax_ppc.legend(fontsize=7)


def _sweep_plotter(title: str) -> Callable[[dict, object], object]:
    def draw(data: dict, plt) -> object:
        fig, (a, b) = plt.subplots(1, 2, figsize=(14, 5))
        _sweep_axes(a, b, data["rows"], title)
        return fig

    return draw


def plot_fig10(data: dict, plt) -> object:
    fig, a = plt.subplots(figsize=(7, 5))
    util = np.linspace(0.2, 1.0, 81)
    for i, r in enumerate(data["rows"]):
        full_s = r["equalbw_time_s"] / r["speedup_full_utilization"]  # compute + bytes / budget
        curve = (r["compute_s"] + (full_s - r["compute_s"]) / util) / r["equalbw_time_s"]
        a.plot(util * 100, curve, color=f"C{i}", label=r["network"])
        a.plot(r["equalbw_utilization"] * 100, 1.0, "o", color=f"C{i}")
        a.plot(r["perfopt_utilization"] * 100, 1 / r["speedup_perfopt"], "*", color=f"C{i}", markersize=12)
    a.set_xlabel("network bandwidth utilisation (%)")
    a.set_ylabel("iteration time / EqualBW's")
    a.set_ylim(bottom=0)
    a.set_title("MSFT-1T, 300 GB/s per NPU (Fig. 10): o EqualBW, * PerfOpt")
    a.grid(alpha=0.3)
    a.legend()
    return fig


def plot_fig17(data: dict, plt) -> object:
    fig, axes = plt.subplots(1, len(data), figsize=(6.5 * len(data), 5.5))
    for a, (cons, part) in zip(axes, data.items()):
        designs = list(part["slowdown"])
        workloads = list(part["slowdown"][designs[0]])
        matrix = np.array([[part["slowdown"][d][w] for w in workloads] for d in designs])
        image = a.imshow(matrix, cmap="Oranges", vmin=1.0)
        for i in range(len(designs)):
            for j in range(len(workloads)):
                a.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8, color="k")
        a.set_xticks(range(len(workloads)), workloads, rotation=30, ha="right")
        a.set_yticks(range(len(designs)), [f"design: {d}" for d in designs], fontsize=8)
        a.set_title(f"Fig. 17: slowdown over own PerfOpt design (4D-4K, {cons})", fontsize=9)
        fig.colorbar(image, ax=a)
    return fig


def plot_fig18(data: dict, plt) -> object:
    fig, axes = plt.subplots(1, len(data), figsize=(7 * len(data), 5), sharey=True)
    for a, (cons, part) in zip(axes, data.items()):
        for w in ALL_FIVE:
            pts = [r for r in part["rows"] if r["workload"] == w]
            a.plot([r["link_usd_per_GBps"] for r in pts], [r["ppc_gain"] for r in pts], "-o", label=w)
        a.set_xlabel("inter-Package link price ($ per GB/s)")
        a.set_ylabel("PerfPerCostOpt perf-per-cost over EqualBW")
        a.set_ylim(bottom=0)
        a.set_title(f"Fig. 18: 4D-4K, {cons}")
        a.grid(alpha=0.3)
        a.legend()
    return fig


@dataclass(frozen=True)
class Figure:
    """How a figure's data are computed, printed and drawn."""

    compute: Callable[[Engine], dict]
    report: Callable[[dict], list[str]]
    draw: Callable[[dict, object], object]


FIGURES = {
    "fig10": Figure(fig10, report_fig10, plot_fig10),
    "fig13_14": Figure(fig13_14, report_fig13_14, _sweep_plotter("LLMs on 3D-4K and 4D-4K (Figs. 13, 14)")),
    "fig15": Figure(fig15, report_fig15, _sweep_plotter("ResNet-50, DLRM on 4D-4K (Fig. 15)")),
    "fig16": Figure(fig16, report_fig16, _sweep_plotter("MSFT-1T on 3D-512, 3D-1K, 4D-2K (Fig. 16)")),
    "fig17": Figure(fig17, report_fig17, plot_fig17),
    "fig18": Figure(fig18, report_fig18, plot_fig18),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS, help="LIBRA's shipped input directory")
    parser.add_argument("--out", type=Path, default=Path("docs/reproductions/libra"), help="directory for JSON/PNG")
    parser.add_argument("--figure", choices=sorted(FIGURES), action="append", help="only these figures")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    args = parser.parse_args()
    if not args.inputs.is_dir():
        parser.error(f"--inputs {args.inputs}: no such directory; give LIBRA's shipped inputs")
    args.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start_all = time.perf_counter()
    with runner(args.scheduler, args.workers, args.store) as run_on:
        engine = Engine(run_on, args.inputs.resolve())
        for name in args.figure or FIGURES:
            figure = FIGURES[name]
            start = time.perf_counter()
            data = figure.compute(engine)
            seconds = time.perf_counter() - start
            (args.out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
            drawing = figure.draw(data, plt)
            drawing.tight_layout()
            drawing.savefig(args.out / f"{name}.png", dpi=110)
            plt.close(drawing)
            print(f"== {name} ({seconds:.1f} s)")
            print("\n".join(figure.report(data)))
    print(f"total wall time {time.perf_counter() - start_all:.1f} s")


if __name__ == "__main__":
    main()
