"""LLM training workloads: the model catalogue, per-iteration traffic (RailX paper Table 4),
compute, iteration time (eq. 10) on a RailX system with a parallelism mapping, published jobs and
their GPU-pair traffic matrices (Rail-only paper §III)."""

from railx.workload.catalogue import ModelSpec, available_models, load_model
from railx.workload.iteration import IterationModel, IterationTime
from railx.workload.jobs import JobSpec, available_jobs, load_job
from railx.workload.matrix import Placement, TrafficMatrix, traffic_matrix
from railx.workload.system import WorkloadSystem, WorkloadSystemLike, as_workload_system, load_workload_system
from railx.workload.traffic import Collective, Parallelism, compute_flops, traffic

__all__ = [
    "Collective",
    "IterationModel",
    "IterationTime",
    "JobSpec",
    "ModelSpec",
    "Parallelism",
    "Placement",
    "TrafficMatrix",
    "WorkloadSystem",
    "WorkloadSystemLike",
    "as_workload_system",
    "available_jobs",
    "available_models",
    "compute_flops",
    "load_job",
    "load_model",
    "load_workload_system",
    "traffic",
    "traffic_matrix",
]
