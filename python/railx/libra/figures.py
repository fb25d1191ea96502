"""LIBRA's evaluation (paper 004 §VI) read from the libra analysis's records: the paper's names for
its networks, the values it prints, and each design's gains over EqualBW. One source for the
benchmark (benchmarks/libra_eval.py) and the report (`railx report`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "BUDGETS_GBps",
    "NETWORK_NAMES",
    "OBJECTIVES",
    "PAPER_FIG13_14",
    "PAPER_FIG15_CHEAPER",
    "gains",
    "sweep_rows",
]

#: The budgets of the Figs. 13-16 sweep (GB/s per NPU). The paper gives the range, 100 to 1,000,
#: not its points: railx uses every 100 GB/s.
BUDGETS_GBps = tuple(float(b) for b in range(100, 1001, 100))

OBJECTIVES = ("perf", "perf-per-cost")

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
