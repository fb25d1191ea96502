"""LIBRA (paper 004): per-dimension bandwidth optimisation of multi-dimensional networks, with
LIBRA's own input files and an open convex solver instead of Gurobi."""

from railx.libra.constraints import ConstraintSet, load_constraints, parse_constraint
from railx.libra.cost import CostModel, load_cost_model
from railx.libra.loops import build_time
from railx.libra.network import LibraNetwork, load_network, parse_notation
from railx.libra.optimize import Design, LibraResult, evaluate_design, optimize
from railx.libra.workload import load_communicator, load_workload

__all__ = [
    "ConstraintSet",
    "CostModel",
    "Design",
    "LibraNetwork",
    "LibraResult",
    "build_time",
    "evaluate_design",
    "load_communicator",
    "load_constraints",
    "load_cost_model",
    "load_network",
    "load_workload",
    "optimize",
    "parse_constraint",
    "parse_notation",
]
