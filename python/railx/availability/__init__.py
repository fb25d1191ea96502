"""Availability and MLaaS allocation on a RailX with failed nodes (docs/availability.md; RailX
paper A.5): the largest single job, Monte Carlo availability, multi-job packing and the OCS files
that realise it."""

from railx.availability.failures import blocked_matrix, load_failed, sample_failed
from railx.availability.montecarlo import AvailabilityStats, availability, best_case_nodes, sweep, worst_case_nodes
from railx.availability.packing import JobRequest, Packing, PlacedJob, allocation_config, load_job_requests, pack_jobs
from railx.availability.single_job import Allocation, algorithm2, components, largest_allocation, milp_solver

__all__ = [
    "Allocation",
    "AvailabilityStats",
    "JobRequest",
    "Packing",
    "PlacedJob",
    "algorithm2",
    "allocation_config",
    "availability",
    "best_case_nodes",
    "blocked_matrix",
    "components",
    "largest_allocation",
    "load_failed",
    "load_job_requests",
    "milp_solver",
    "pack_jobs",
    "sample_failed",
    "sweep",
    "worst_case_nodes",
]
