"""LIBRA's evaluation (paper 004 §VI) read from the libra analysis's records: the paper's names for
its networks, the values it prints, and each design's gains over EqualBW. One source for the
benchmark (benchmarks/libra_eval.py) and the report (`railx report`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from railx.libra.commands import libra_problem
from railx.libra.loops import NumericAlgebra, TimeExpr

__all__ = [
    "BUDGETS_GBps",
    "NETWORK_NAMES",
    "OBJECTIVES",
    "PAPER_FIG10_UTILIZATION",
    "PAPER_FIG10_FULL_SPEEDUP",
    "PAPER_FIG13_14",
    "PAPER_FIG15_CHEAPER",
    "PAPER_FIG17_GROUP_SLOWDOWN",
    "PAPER_FIG17_WORST_SLOWDOWN",
    "PAPER_FIG18_GAIN",
    "ALL_FIVE",
    "CONSTRAINT_SETS",
    "LLMS",
    "by_constraints",
    "cross_slowdowns",
    "design_name",
    "price_rows",
    "gains",
    "stored_designs",
    "sweep_rows",
    "time_expressions",
    "utilization_rows",
]

#: The budgets of the Figs. 13-16 sweep (GB/s per NPU). The paper gives the range, 100 to 1,000,
#: not its points: railx uses every 100 GB/s.
BUDGETS_GBps = tuple(float(b) for b in range(100, 1001, 100))

OBJECTIVES = ("perf", "perf-per-cost")

#: The workloads of Figs. 13-14 (the LLMs) and of Figs. 17-18 (all five).
LLMS = ("Turing_NLG", "GPT_3", "MSFT_1T")
ALL_FIVE = ("ResNet_50", "DLRM", "Turing_NLG", "GPT_3", "MSFT_1T")

#: Figs. 17-18's two constraint sets (the paper names neither), by the stem of their file in
#: benchmarks/: the budget alone, and LIBRA's shipped `multiple_constraints`.
CONSTRAINT_SETS = {"libra_budget_1000": "sum 1000", "libra_constraints": "multiple_constraints"}

#: The paper's names (Table III; Fig. 10's unnamed 2D network) for each network's notation.
NETWORK_NAMES = {
    "SW(128)_SW(32)": "2D-4K",
    "RI(16)_FC(8)_SW(32)": "3D-4K",
    "RI(4)_FC(8)_RI(4)_SW(32)": "4D-4K",
    "SW(16)_SW(8)_SW(4)": "3D-512",
    "FC(8)_RI(16)_SW(8)": "3D-1K",
    "RI(4)_SW(4)_SW(8)_SW(16)": "4D-2K",
}

#: Figs. 13-14 as the text states them: mean (max) over the LLMs on 3D-4K and 4D-4K, as
#: (objective, gain) -> (mean, max). "speedup" is over EqualBW's time, "ppc" over its perf-per-cost.
PAPER_FIG13_14 = {
    ("perf", "speedup"): (1.23, 2.00),
    ("perf", "ppc"): (5.40, 12.24),
    ("perf-per-cost", "ppc"): (9.16, 13.02),
}

#: Fig. 15: PerfPerCostOpt's designs are this much cheaper than PerfOpt's on average.
PAPER_FIG15_CHEAPER = 0.1541

#: Fig. 10 (MSFT-1T, 300 GB/s per NPU; §III-C): EqualBW's bandwidth utilisation per network, and
#: the speed-up full utilisation would give.
PAPER_FIG10_UTILIZATION = {"2D-4K": 0.5753, "3D-4K": 0.3902, "4D-4K": 0.6674}
PAPER_FIG10_FULL_SPEEDUP = {"2D-4K": 1.39, "3D-4K": 1.83, "4D-4K": 1.29}

#: Fig. 17 (4D-4K, 1,000 GB/s): the worst slowdown of the other workloads on the design for each
#: workload, and the group design's mean slowdown.
PAPER_FIG17_WORST_SLOWDOWN = {"ResNet_50": 1.77, "DLRM": 1.02, "Turing_NLG": 1.77, "GPT_3": 1.15, "MSFT_1T": 1.04}
PAPER_FIG17_GROUP_SLOWDOWN = 1.01

#: Fig. 18 (4D-4K, 1,000 GB/s, inter-Package link at $1-$5 per GB/s): PerfPerCostOpt's perf-per-cost
#: over EqualBW, mean (max).
PAPER_FIG18_GAIN = (4.06, 5.59)


def gains(record: dict[str, Any]) -> dict[str, object]:
    """A design's bandwidths and cost, and its speed-up and perf-per-cost gain over EqualBW under
    each time model: LIBRA's (`analytic`) and, when the record holds them, the `chunked` and
    `subgroups` evaluations."""
    base = record["baseline"]
    out: dict[str, object] = {"bw_GBps": [round(b, 3) for b in record["bw_per_dim"]], "cost_usd": record["cost_usd"]}
    times = {"analytic": (record["time_s"], base["time_s"])}
    evaluation = record.get("evaluation", {})
    times |= {
        m: (evaluation[m]["time_s"], evaluation[m]["baseline_time_s"])
        for m in ("chunked", "subgroups")
        if m in evaluation
    }
    for model, (t_opt, t_base) in times.items():
        speedup = t_base / t_opt
        out[f"speedup_{model}"] = speedup
        out[f"ppc_{model}"] = speedup * base["cost_usd"] / record["cost_usd"]
    return out


def sweep_rows(
    records: Iterable[dict[str, Any]], design: Callable[[dict[str, Any]], dict[str, object]] = gains
) -> list[dict[str, Any]]:
    """Rows of a budget sweep (Figs. 13-16), one per network, workload and budget, in the records'
    order, with each objective's design (`design` of its record) side by side. The case is read
    from the record itself: its network's notation, its workloads and EqualBW's budget."""
    rows: dict[tuple[str, str, float], dict[str, Any]] = {}
    for r in records:
        network = NETWORK_NAMES.get(r["network"], r["network"])
        workload = "+".join(r["workload_times_s"])
        budget = round(sum(r["baseline"]["bw_per_dim"]), 6)
        row = rows.setdefault(
            (network, workload, budget), {"network": network, "workload": workload, "budget_GBps": budget}
        )
        row[r["objective"]] = design(r)
        row["equalbw_cost_usd"] = r["baseline"]["cost_usd"]
        if "utilization" in r.get("evaluation", {}):
            row["full_utilization_speedup"] = r["baseline"]["time_s"] / r["evaluation"]["utilization"]["full_time_s"]
    return list(rows.values())


def utilization_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fig. 10's rows from records evaluated for utilisation: EqualBW's and PerfOpt's bandwidth
    utilisation and the speed-ups of full utilisation and of PerfOpt."""
    rows = []
    for r in records:
        u = r["evaluation"]["utilization"]
        rows.append(
            {
                "network": NETWORK_NAMES.get(r["network"], r["network"]),
                "notation": r["network"],
                "equalbw_utilization": u["baseline"],
                "perfopt_utilization": u["optimum"],
                "speedup_full_utilization": r["baseline"]["time_s"] / u["full_time_s"],
                "speedup_perfopt": r["speedup"],
                "compute_s": u["compute_s"],
                "equalbw_time_s": r["baseline"]["time_s"],
            }
        )
    return rows


def _text(stored: Mapping[str, str]) -> tuple[str, str]:
    """A stored file option as the (source, text) pair the parsers take."""
    return stored["file"], stored["text"]


def time_expressions(options: Iterable[Mapping[str, Any]]) -> dict[str, TimeExpr]:
    """Each workload's iteration time as a function of the bandwidths (LIBRA's model, the loop the
    point ran with), from the libra analysis's stored options (file options hold each file's
    name and text): the problem `railx libra` parses."""
    out: dict[str, TimeExpr] = {}
    for o in options:
        network = o["network"] if isinstance(o["network"], str) else _text(o["network"])
        problem = libra_problem(network, [_text(w) for w in o["workload"]], [_text(c) for c in o["communicator"]],
                                _text(o["cost"]), loop=o["loop"])  # fmt: skip
        out |= problem.times
    return out


def stored_designs(
    pairs: Iterable[tuple[Mapping[str, Any], dict[str, Any]]],
) -> tuple[dict[str, dict[str, Any]], dict[str, TimeExpr]]:
    """Fig. 17's stored (options, record) pairs of one constraint set: the records by design name
    (design_name, groups weighted equally) and each own design's workload time expression."""
    pairs = list(pairs)
    by_name = {design_name(list(r["workload_times_s"]), "equal"): r for _, r in pairs}
    return by_name, time_expressions(o for o, r in pairs if len(r["workload_times_s"]) == 1)


def cross_slowdowns(
    designs: Mapping[str, Sequence[float]], own: Mapping[str, dict[str, Any]], times: Mapping[str, TimeExpr]
) -> dict[str, object]:
    """Fig. 17: every workload run on every design (bandwidths per dimension). `own` holds each
    workload's own design's record; `slowdown` is a workload's time over its own optimal time,
    `speedup` EqualBW's time over it."""
    own_s = {w: r["time_s"] for w, r in own.items()}
    slowdown = {
        design: {w: float(t.evaluate(NumericAlgebra(np.array(bw)))) / own_s[w] for w, t in times.items()}
        for design, bw in designs.items()
    }
    speedup = {
        design: {w: own[w]["baseline"]["time_s"] / (s * own_s[w]) for w, s in row.items()}
        for design, row in slowdown.items()
    }
    return {"designs": {d: tuple(bw) for d, bw in designs.items()}, "slowdown": slowdown, "speedup": speedup}


def design_name(workloads: Sequence[str], weighting: str) -> str:
    """Fig. 17's name of a design: the workload's own, or a group's with how it weighs them."""
    if len(workloads) == 1:
        return workloads[0]
    label = {LLMS: "LLMs", ALL_FIVE: "all five"}.get(tuple(workloads), "+".join(workloads))
    return f"group {label} ({weighting})"


def by_constraints(
    pairs: Iterable[tuple[Mapping[str, Any], dict[str, Any]]],
) -> dict[str, list[tuple[Mapping[str, Any], dict[str, Any]]]]:
    """(stored options, record) pairs of Figs. 17-18 grouped by constraint set (CONSTRAINT_SETS'
    names, from the constraints file's name), in their stored order."""
    out: dict[str, list[tuple[Mapping[str, Any], dict[str, Any]]]] = {}
    for options, record in pairs:
        stem = Path(options["constraints"]["file"]).stem
        out.setdefault(CONSTRAINT_SETS.get(stem, stem), []).append((options, record))
    return out


def price_rows(pairs: Iterable[tuple[Mapping[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Fig. 18's rows from (stored options, record) pairs: the inter-Package link price (from the
    cost model the point ran with), the workload, its design and its perf-per-cost gain over EqualBW."""
    rows = []
    for options, r in pairs:
        model = yaml.safe_load(options["cost"]["text"])
        rows.append(
            {
                "link_usd_per_GBps": float(model["InterPackage"]["Link"]),
                "workload": "+".join(r["workload_times_s"]),
                "bw_GBps": r["bw_per_dim"],
                "ppc_gain": r["perf_per_cost_gain"],
            }
        )
    return rows
