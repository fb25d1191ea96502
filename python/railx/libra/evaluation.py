"""A LIBRA design measured under time models other than the one LIBRA optimises with.

LIBRA optimises with perfectly pipelined collectives, every group using its dimension's whole
bandwidth; its paper measures the designs in ASTRA-sim, which differs in two ways, each a model
here: `chunked` splits every collective into chunks (railx.libra.chunked), and `subgroups` has a
group smaller than a fully-connected dimension reach only its members' links
(railx.libra.collective.group_share). `utilization` is the share of the bandwidth each design
keeps busy and the time a design using all of it would take (railx.libra.utilization).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from railx.config import ConfigError
from railx.libra.chunked import ChunkedAlgebra
from railx.libra.commands import LibraProblem
from railx.libra.loops import Algebra, NumericAlgebra, TimeExpr
from railx.libra.optimize import LibraResult
from railx.libra.utilization import bandwidth_utilization, full_utilization_time_s
from railx.messages import shown

__all__ = ["MODELS", "evaluate"]

#: The evaluations a design can be given.
MODELS = ("chunked", "subgroups", "utilization")


def _weighted_s(times: dict[str, TimeExpr], weights: dict[str, float], algebra: Algebra[Any]) -> float:
    """The weighted sum of the workloads' iteration seconds under `algebra`."""
    return sum(weights[name] * float(expr.evaluate(algebra)) for name, expr in times.items())


def _times_both(
    problem: LibraProblem,
    result: LibraResult,
    times: dict[str, TimeExpr],
    algebra: Callable[[np.ndarray], Algebra[Any]],
) -> dict[str, float]:
    """Weighted iteration seconds of the optimum and of EqualBW under one algebra."""
    out = {}
    for key, design in (("time_s", result.optimum), ("baseline_time_s", result.baseline)):
        out[key] = _weighted_s(times, problem.weights, algebra(np.array(design.bw_per_dim_GBps)))
    return out


def _utilization(problem: LibraProblem, result: LibraResult) -> dict[str, float]:
    total = sum((problem.times[n].scaled(problem.weights[n]) for n in problem.times), TimeExpr(0.0, ()))
    cons = problem.constraints
    budget = cons.total_bw_GBps if cons.total_bw_GBps is not None else float(np.sum(result.optimum.bw_per_dim_GBps))
    return {
        "optimum": bandwidth_utilization(total, np.array(result.optimum.bw_per_dim_GBps)),
        "baseline": bandwidth_utilization(total, np.array(result.baseline.bw_per_dim_GBps)),
        "full_time_s": full_utilization_time_s(total, budget),
        "compute_s": total.constant_s,
    }


def evaluate(
    problem: LibraProblem, result: LibraResult, models: Sequence[str], chunks: int
) -> dict[str, dict[str, float]]:
    """Each of `models` (MODELS) for `result`'s optimum and EqualBW baseline of `problem`: for
    `chunked` and `subgroups` their weighted times (`time_s`, `baseline_time_s`, seconds), for
    `utilization` both designs' bandwidth utilisation, the full-utilisation time at the budget
    (`full_time_s`) and the compute time (`compute_s`)."""
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise ConfigError(f"evaluate = {shown(unknown[0])}: not a model; use any of {', '.join(MODELS)}")
    if chunks < 1:
        raise ConfigError(f"chunks = {shown(chunks)}: must be a positive integer, e.g. 64 (the paper's)")
    out: dict[str, dict[str, float]] = {}
    for model in models:
        if model == "chunked":
            out[model] = _times_both(problem, result, problem.times, lambda bw: ChunkedAlgebra(bw, chunks))
        elif model == "subgroups":
            sub = {name: problem.time_of(name, subgroups=True) for name in problem.parsed}
            out[model] = _times_both(problem, result, sub, NumericAlgebra)
        else:
            out[model] = _utilization(problem, result)
    return out
