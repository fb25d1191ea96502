"""LIBRA's evaluation (paper 004 §VI: Figs. 10, 13-18) recomputed with railx's LIBRA model.

    python3 benchmarks/libra_eval.py [--inputs PATH_TO_LIBRA_INPUTS] [--out docs/reproductions/libra]

Settings are the paper's (§V-B, §VI): EqualBW (budget / dimensions) as the baseline; the
shipped workloads with their communicators (DLRM's spans every dimension, benchmarks/libra_dlrm);
the 3D-4K and 4D-4K networks with the shipped cost models; budgets of 100-1,000 GB/s per NPU
(the paper gives the range, not its points: here every 100 GB/s). Every design is optimised with
LIBRA's model (perfectly pipelined collectives, every group using its dimension's whole bandwidth)
and then also evaluated two ways the paper's ASTRA-sim runs differ from that model:
- `chunked`: each collective split into 64 chunks (railx.libra.chunked), as in the paper;
- `subgroups`: a group smaller than a fully-connected dimension reaches only its members' links
  (railx.libra.collective.group_share); this changes only GPT-3 on 4D-4K (TP 4 and DP 2 on FC(8)).
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

import numpy as np

from railx.libra.chunked import ChunkedAlgebra
from railx.libra.constraints import ConstraintSet, parse_constraint
from railx.libra.cost import CostModel, load_cost_model
from railx.libra.loops import Comm, NumericAlgebra, TimeExpr, build_time
from railx.libra.network import LibraNetwork, load_network, parse_notation
from railx.libra.optimize import LibraResult, Objective, optimize
from railx.libra.utilization import bandwidth_utilization, full_utilization_time_s
from railx.libra.workload import Communicator, load_communicator, load_workload

HERE = Path(__file__).resolve().parent
DEFAULT_INPUTS = HERE.parents[1] / "shared" / "peers" / "libra-inputs"
BUDGETS_GBps = tuple(float(b) for b in range(100, 1001, 100))
CHUNKS = 64  # ASTRA-sim's chunks per collective in the paper (§V-B)
LLMS = ("Turing_NLG", "GPT_3", "MSFT_1T")
ALL_FIVE = ("ResNet_50", "DLRM", "Turing_NLG", "GPT_3", "MSFT_1T")
SHIPPED_COMMUNICATORS = {
    "3D-4K": {"GPT_3": "GPT_3_3d", "MSFT_1T": "MSFT_1T_3d", "Turing_NLG": "Turing_NLG_3D", "ResNet_50": "ResNet_50_3d"},
    "4D-4K": {"GPT_3": "GPT_3_4d", "MSFT_1T": "MSFT_1T_4d", "Turing_NLG": "Turing_NLG_4D", "ResNet_50": "ResNet_50_4d"},
}
# Table III's other networks (and Fig. 10's 2D one, which the paper does not name). The paper
# does not give their cost dimensions; they are priced like the shipped network of the same
# dimensionality (3D: InterPackage, InterNode, InterPod; 4D: InterChiplet first).
DERIVED_NETWORKS = {
    "2D-4K": ("SW(128)_SW(32)", ["InterNode", "InterPod"], "4d"),  # Fig. 10 only: times, not costs
    "3D-512": ("SW(16)_SW(8)_SW(4)", ["InterPackage", "InterNode", "InterPod"], "3d"),
    "3D-1K": ("FC(8)_RI(16)_SW(8)", ["InterPackage", "InterNode", "InterPod"], "3d"),
    "4D-2K": ("RI(4)_SW(4)_SW(8)_SW(16)", ["InterChiplet", "InterPackage", "InterNode", "InterPod"], "4d"),
}


# Figs. 17 and 18 use 4D-4K at 1,000 GB/s per NPU without naming constraints; LIBRA ships two
# sets, and `multiple_constraints` (4D, 1,000 GB/s) is its default configuration, so both are run.
CONSTRAINTS_4D = {
    "sum 1000": ConstraintSet(4, total_bw_GBps=1000.0),
    "multiple_constraints": ConstraintSet(
        4,
        tuple(c for t in ("bw0 == 500", "bw0 >= bw1 >= bw2", "bw2 + bw3 == 200") for c in parse_constraint(t, 4)),
        total_bw_GBps=1000.0,
    ),
}


@dataclass(frozen=True)
class Case:
    """One workload on one network: LIBRA's time model and the two ASTRA-sim-like variants."""

    network_name: str
    network: LibraNetwork
    cost: CostModel
    workload: str
    time: TimeExpr  # LIBRA's model
    subgroup_time: TimeExpr  # groups reach only their members' links

    def times_at(self, bw_GBps: tuple[float, ...]) -> dict[str, float]:
        """Iteration seconds at a design: LIBRA's model, chunked, and with subgroup links."""
        bw = np.array(bw_GBps)
        return {
            "analytic": float(self.time.evaluate(NumericAlgebra(bw))),  # type: ignore[arg-type]
            "chunked": float(self.time.evaluate(ChunkedAlgebra(bw, CHUNKS))),  # type: ignore[arg-type]
            "subgroups": float(self.subgroup_time.evaluate(NumericAlgebra(bw))),  # type: ignore[arg-type]
        }

    def solve(self, budget: float | ConstraintSet, objective: Objective) -> LibraResult:
        """LIBRA's optimum (its model) at a total per-NPU budget in GB/s, or under constraints."""
        cons = (
            budget if isinstance(budget, ConstraintSet) else ConstraintSet(len(self.network.dims), total_bw_GBps=budget)
        )
        return optimize(self.network, self.cost, {self.workload: self.time}, {self.workload: 1.0}, cons, objective)


class Inputs:
    """LIBRA's shipped files and the derived networks and communicators."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def network(self, name: str) -> tuple[LibraNetwork, CostModel]:
        if name in SHIPPED_COMMUNICATORS:
            dims = name[:2].lower()
            return load_network(self.root / "network" / f"{dims}_network.yml"), self._cost(dims)
        notation, cost_dims, model = DERIVED_NETWORKS[name]
        return parse_notation(notation).with_cost_dimensions(cost_dims), self._cost(model)

    def _cost(self, dims: str) -> CostModel:
        return load_cost_model(self.root / "cost_model" / f"{dims}_cost_model.yml")

    def communicator(self, network_name: str, network: LibraNetwork, workload: str) -> Communicator:
        if network_name in SHIPPED_COMMUNICATORS:
            if workload == "DLRM":
                return load_communicator(HERE / "libra_dlrm" / f"DLRM_{network_name[:2].lower()}.yml", network)
            return load_communicator(
                self.root / "communicator" / f"{SHIPPED_COMMUNICATORS[network_name][workload]}.yml", network
            )
        if workload != "MSFT_1T":
            raise ValueError(f"{network_name}: only MSFT-1T has a communicator (TP 128, DP over the rest)")
        return msft_1t_communicator(network)

    def case(self, network_name: str, workload: str, cost: CostModel | None = None) -> Case:
        network, shipped_cost = self.network(network_name)
        comm = self.communicator(network_name, network, workload)
        wl = load_workload(self.root / "workload" / f"{workload}.txt")
        return Case(
            network_name,
            network,
            cost or shipped_cost,
            workload,
            build_time(wl, comm),
            build_time(wl, comm, network=network),
        )


def msft_1t_communicator(network: LibraNetwork) -> Communicator:
    """MSFT-1T as the shipped files place it (TP 128 on the inner dimensions, DP on the last):
    every Table III network's dimensions but the last hold exactly 128 NPUs."""
    inner = tuple(d.size for d in network.dims[:-1])
    if int(np.prod(inner)) != 128:
        raise ValueError(f"{network.notation}: the inner dimensions hold {int(np.prod(inner))} NPUs, not TP = 128")
    tp = (*inner, None)
    return Communicator(tp, tp, (*(None,) * len(inner), network.dims[-1].size))


def _design(result: LibraResult, case: Case) -> dict[str, object]:
    """A design's record; speed-ups and perf-per-cost gains over EqualBW under each time model."""
    opt, base = result.optimum, result.baseline
    out: dict[str, object] = {"bw_GBps": [round(b, 3) for b in opt.bw_per_dim_GBps], "cost_usd": opt.cost_usd}
    t_opt, t_base = case.times_at(opt.bw_per_dim_GBps), case.times_at(base.bw_per_dim_GBps)
    for model in t_opt:
        speedup = t_base[model] / t_opt[model]
        out[f"speedup_{model}"] = speedup
        out[f"ppc_{model}"] = speedup * base.cost_usd / opt.cost_usd
    return out


def sweep(case: Case, budgets: tuple[float, ...] = BUDGETS_GBps) -> list[dict[str, object]]:
    """PerfOpt and PerfPerCostOpt at each budget (Figs. 13-16)."""
    rows = []
    for budget in budgets:
        row: dict[str, object] = {"network": case.network_name, "workload": case.workload, "budget_GBps": budget}
        for objective in ("perf", "perf-per-cost"):
            result = case.solve(budget, objective)  # type: ignore[arg-type]
            row[objective] = _design(result, case)
            row["equalbw_cost_usd"] = result.baseline.cost_usd
            row["full_utilization_speedup"] = result.baseline.time_s / full_utilization_time_s(case.time, budget)
        rows.append(row)
    return rows


def _stat(rows: list[dict], objective: str, key: str) -> tuple[float, float]:
    values = [r[objective][key] for r in rows]
    return float(np.mean(values)), float(np.max(values))


def fig10(inputs: Inputs) -> dict[str, object]:
    """MSFT-1T at 300 GB/s on 2D, 3D and 4D networks: EqualBW's bandwidth utilisation and the
    speed-up that full utilisation (and PerfOpt) would give."""
    rows = []
    for name in ("2D-4K", "3D-4K", "4D-4K"):
        case = inputs.case(name, "MSFT_1T")
        result = case.solve(300.0, "perf")
        equal = np.array(result.baseline.bw_per_dim_GBps)
        rows.append(
            {
                "network": name,
                "notation": case.network.notation,
                "equalbw_utilization": bandwidth_utilization(case.time, equal),
                "perfopt_utilization": bandwidth_utilization(case.time, np.array(result.optimum.bw_per_dim_GBps)),
                "speedup_full_utilization": result.baseline.time_s / full_utilization_time_s(case.time, 300.0),
                "speedup_perfopt": result.speedup,
                "compute_s": case.time.constant_s,
                "equalbw_time_s": result.baseline.time_s,
            }
        )
    return {"rows": rows}


def rings_at_half(case: Case) -> Case:
    """The case with every ring dimension delivering half its bandwidth (as if a ring collective
    used one direction of its links): a sensitivity, not railx's model."""
    share = [0.5 if d.kind == "RI" else 1.0 for d in case.network.dims]
    terms = tuple(
        (Comm(tuple(g / s for g, s in zip(node.gb, share)), node.kind), count)
        for node, count in case.time.terms
        if isinstance(node, Comm)
    )
    if len(terms) != len(case.time.terms):
        raise ValueError("rings_at_half: only the no-overlap loop (collectives at the top level)")
    slow = TimeExpr(case.time.constant_s, terms)
    return Case(case.network_name, case.network, case.cost, case.workload, slow, slow)


def fig13_14(inputs: Inputs) -> dict[str, object]:
    """Turing-NLG, GPT-3 and MSFT-1T on 3D-4K and 4D-4K over the budget sweep; the same with
    rings at half bandwidth as a sensitivity."""
    cases = [inputs.case(net, w) for net in ("3D-4K", "4D-4K") for w in LLMS]
    rows = [r for case in cases for r in sweep(case)]
    half = [r for case in cases for r in sweep(rings_at_half(case))]
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


def fig15(inputs: Inputs) -> dict[str, object]:
    """ResNet-50 and DLRM on 4D-4K; how much cheaper PerfPerCostOpt's designs are than PerfOpt's."""
    rows = [r for w in ("ResNet_50", "DLRM") for r in sweep(inputs.case("4D-4K", w))]
    cheaper = [1 - r["perf-per-cost"]["cost_usd"] / r["perf"]["cost_usd"] for r in rows]
    return {"rows": rows, "mean_cheaper": float(np.mean(cheaper)), "cheaper": cheaper}


def fig16(inputs: Inputs) -> dict[str, object]:
    """MSFT-1T on 3D-512, 3D-1K and 4D-2K."""
    return {"rows": [r for net in ("3D-512", "3D-1K", "4D-2K") for r in sweep(inputs.case(net, "MSFT_1T"))]}


def fig17(inputs: Inputs) -> dict[str, object]:
    """4D-4K at 1,000 GB/s: each workload's PerfOpt design, every workload run on every design
    (slowdown over its own design), and group designs over the LLMs and over all five, under each
    of CONSTRAINTS_4D. The paper's weights are not stated: `normalised` weighs each workload by
    1 / its own optimal time (the group minimises the sum of slowdowns), `equal` sums raw times."""
    cases = {w: inputs.case("4D-4K", w) for w in ALL_FIVE}
    return {name: _cross_designs(cases, cons) for name, cons in CONSTRAINTS_4D.items()}


def _cross_designs(cases: dict[str, Case], cons: ConstraintSet) -> dict[str, object]:
    designs: dict[str, tuple[float, ...]] = {}
    own_s, equal_s = {}, {}
    for w, case in cases.items():
        result = case.solve(cons, "perf")
        designs[w] = result.optimum.bw_per_dim_GBps
        own_s[w], equal_s[w] = result.optimum.time_s, result.baseline.time_s
    net, cost = cases["GPT_3"].network, cases["GPT_3"].cost
    for label, members in (("LLMs", LLMS), ("all five", ALL_FIVE)):
        for normalised in (True, False):
            weights = {w: 1.0 / own_s[w] if normalised else 1.0 for w in members}
            result = optimize(net, cost, {w: cases[w].time for w in members}, weights, cons, "perf")
            designs[f"group {label} ({'normalised' if normalised else 'equal'})"] = result.optimum.bw_per_dim_GBps
    slowdown = {
        design: {w: float(c.time.evaluate(NumericAlgebra(np.array(bw)))) / own_s[w] for w, c in cases.items()}
        for design, bw in designs.items()
    }
    speedup = {design: {w: equal_s[w] / (s * own_s[w]) for w, s in row.items()} for design, row in slowdown.items()}
    return {"designs": designs, "slowdown": slowdown, "speedup": speedup}


def fig18(inputs: Inputs) -> dict[str, object]:
    """4D-4K at 1,000 GB/s, PerfPerCostOpt, with the inter-Package link priced $1-$5 per GB/s,
    under each of CONSTRAINTS_4D."""
    _, base_cost = inputs.network("4D-4K")
    out: dict[str, object] = {}
    for name, cons in CONSTRAINTS_4D.items():
        rows = []
        for price in (1.0, 2.0, 3.0, 4.0, 5.0):
            prices = {k: dict(v) for k, v in base_cost.prices_usd_per_GBps.items()}
            prices["InterPackage"]["Link"] = price
            for w in ALL_FIVE:
                result = inputs.case("4D-4K", w, CostModel(prices)).solve(cons, "perf-per-cost")
                rows.append(
                    {
                        "link_usd_per_GBps": price,
                        "workload": w,
                        "bw_GBps": result.optimum.bw_per_dim_GBps,
                        "ppc_gain": result.perf_per_cost_gain,
                    }
                )
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

    compute: Callable[[Inputs], dict]
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
    args = parser.parse_args()
    if not args.inputs.is_dir():
        parser.error(f"--inputs {args.inputs}: no such directory; give LIBRA's shipped inputs")
    args.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inputs = Inputs(args.inputs)
    for name in args.figure or FIGURES:
        figure = FIGURES[name]
        start = time.perf_counter()
        data = figure.compute(inputs)
        seconds = time.perf_counter() - start
        (args.out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
        drawing = figure.draw(data, plt)
        drawing.tight_layout()
        drawing.savefig(args.out / f"{name}.png", dpi=110)
        plt.close(drawing)
        print(f"== {name} ({seconds:.1f} s)")
        print("\n".join(figure.report(data)))


if __name__ == "__main__":
    main()
