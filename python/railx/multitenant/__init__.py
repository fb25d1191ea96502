"""Multi-tenant all-reduce evaluation (paper 003, §6): job mixes and their skewness, the
baselines normalised to one per-CU bandwidth, and each mix's job completion time per topology
and algorithm (docs/multitenant.md)."""

from railx.multitenant.baselines import TOPOLOGIES, FlexSipacShape, Topology
from railx.multitenant.evaluation import ALGORITHMS, JctRow, evaluate, jct, mesh_all_reduce
from railx.multitenant.jobs import JobMix, map_jobs, mix_for_sigma, random_mixes, skewness, two_job_mixes

__all__ = [
    "ALGORITHMS",
    "TOPOLOGIES",
    "FlexSipacShape",
    "JctRow",
    "JobMix",
    "Topology",
    "evaluate",
    "jct",
    "map_jobs",
    "mesh_all_reduce",
    "mix_for_sigma",
    "random_mixes",
    "skewness",
    "two_job_mixes",
]
