"""LLM training workloads: the model catalogue, per-iteration traffic (RailX paper Table 4),
compute, and iteration time (eq. 10) on a RailX system with a parallelism mapping."""

from railx.workload.catalogue import ModelSpec, available_models, load_model
from railx.workload.iteration import IterationModel, IterationTime
from railx.workload.system import WorkloadSystem, load_workload_system
from railx.workload.traffic import Collective, Parallelism, compute_flops, traffic

__all__ = [
    "Collective",
    "IterationModel",
    "IterationTime",
    "ModelSpec",
    "Parallelism",
    "WorkloadSystem",
    "available_models",
    "compute_flops",
    "load_model",
    "load_workload_system",
    "traffic",
]
