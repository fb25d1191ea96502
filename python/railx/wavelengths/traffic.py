"""The jobs' traffic matrix T and its wavelength targets t (paper 003, §3.C).

Each job runs one all-reduce among its CUs. Its logical traffic (who sends how much to whom, in
units of one CU's all-reduce message) comes from the collective; a pair that is not one WSS apart
has no wavelength of its own, so its traffic is relayed, split evenly over the shortest paths
through the job's own CUs. T therefore holds traffic on direct-neighbour pairs inside jobs only:
cross-job traffic is zero by construction (the paper filters it out; here no job ever routes
through another job's CU).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import networkx as nx
import numpy as np

from railx.config import ConfigError
from railx.messages import shown
from railx.wavelengths.addressing import SiPAC

__all__ = [
    "COLLECTIVES",
    "Collective",
    "Job",
    "logical_traffic",
    "traffic_matrix",
    "validate_jobs",
    "wavelength_targets",
]

Collective = Literal["ring", "mesh", "sipco"]
COLLECTIVES: tuple[Collective, ...] = ("ring", "mesh", "sipco")


@dataclass(frozen=True)
class Job:
    """A job: a name, its CUs (order and repeats do not matter) and the all-reduce collective it runs."""

    name: str
    cus: tuple[int, ...]
    collective: str


def validate_jobs(topology: SiPAC, jobs: Sequence[Job]) -> None:
    """One-line `ConfigError` for an unknown collective, a job of fewer than 2 CUs, a CU outside
    the network, or two jobs sharing a CU."""
    owner: dict[int, str] = {}
    for k, job in enumerate(jobs):
        if job.collective not in COLLECTIVES:
            raise ConfigError(
                f"jobs[{k}].collective = {shown(job.collective)}: unknown; use one of {', '.join(COLLECTIVES)}"
            )
        if len(set(job.cus)) < 2:
            raise ConfigError(
                f"jobs[{k}].cus: job {shown(job.name)} has {len(set(job.cus))} CU; an all-reduce needs 2 or more"
            )
        outside = [c for c in job.cus if not 0 <= c < topology.N]
        if outside:
            raise ConfigError(
                f"jobs[{k}].cus: CU {outside[0]} of job {shown(job.name)} is outside the {topology.N} CUs 0..{topology.N - 1}"
            )
        for cu in job.cus:
            if cu in owner:
                raise ConfigError(
                    f"jobs[{k}].cus: CU {cu} is in both job {shown(owner[cu])} and job {shown(job.name)}; give each CU to one job"
                )
            owner[cu] = job.name


def _job_graph(topology: SiPAC, cus: Sequence[int]) -> nx.Graph:
    """The job's CUs, joined where they share a WSS."""
    graph = nx.Graph()
    members = sorted(set(cus))
    graph.add_nodes_from(members)
    inside = set(members)
    graph.add_edges_from((i, j) for i in members for j in topology.neighbours(i) if j in inside and i < j)
    return graph


def logical_traffic(topology: SiPAC, job: Job) -> dict[tuple[int, int], float]:
    """Bytes CU i sends to CU j in one all-reduce of the job, in units of the message size n.

    ring: each CU sends 2 (k - 1) / k to the next CU of the job (reduce-scatter then all-gather
    around the ring of its CUs in address order); mesh: each CU sends 2 / k to every other CU (a
    chunk of n / k each way in the reduce-scatter and the all-gather); sipco (the paper's
    co-designed collective, which talks to direct neighbours only): the same 2 (k - 1) / k,
    split evenly over the CU's neighbours inside the job (only proportions within a CU matter to
    the targets, so Flex-SiPCO's step-by-step volumes are not needed).
    """
    cus = sorted(set(job.cus))
    k = len(cus)
    per_cu = 2 * (k - 1) / k
    if job.collective == "ring":
        return {(cus[x], cus[(x + 1) % k]): per_cu for x in range(k)}
    if job.collective == "mesh":
        return {(i, j): 2 / k for i in cus for j in cus if i != j}
    graph = _job_graph(topology, cus)
    return {(i, j): per_cu / graph.degree[i] for i in graph.nodes for j in graph.neighbors(i)}


def traffic_matrix(topology: SiPAC, jobs: Sequence[Job]) -> np.ndarray:
    """T (N x N, message units): every job's logical traffic routed onto direct-neighbour pairs.

    A demand between CUs more than one WSS apart is split evenly over all shortest paths that
    stay inside the job; a job whose CUs are not joined through its own CUs is an error.
    """
    validate_jobs(topology, jobs)
    T = np.zeros((topology.N, topology.N))
    for k, job in enumerate(jobs):
        graph = _job_graph(topology, job.cus)
        if not nx.is_connected(graph):
            parts = sorted(sorted(c) for c in nx.connected_components(graph))
            raise ConfigError(
                f"jobs[{k}].cus: job {shown(job.name)} has CUs {parts[0][0]} and {parts[1][0]} with no path through "
                f"WSSs inside the job; give it a range aligned to r = {topology.r} (e.g. cus = [0, {topology.r}])"
            )
        if job.collective == "mesh":
            _add_uniform_demand(T, graph, 2 / graph.number_of_nodes())
            continue
        for (src, dst), volume in logical_traffic(topology, job).items():
            if graph.has_edge(src, dst):
                # Neighbours: the edge is the one shortest path (no search over the job).
                T[src, dst] += volume
                continue
            paths = list(nx.all_shortest_paths(graph, src, dst))
            for path in paths:
                for a, b in zip(path, path[1:]):
                    T[a, b] += volume / len(paths)
    return T


def _add_uniform_demand(T: np.ndarray, graph: nx.Graph, volume: float) -> None:
    """Adds `volume` between every ordered pair of the graph's CUs, each demand split evenly over
    its shortest paths: per arc, volume x its edge betweenness (Brandes' algorithm, O(V E)), the
    same sum as enumerating the paths pair by pair and thousands of times faster at 512 CUs."""
    betweenness = nx.edge_betweenness_centrality(graph.to_directed(), normalized=False)
    for (a, b), share in betweenness.items():
        T[a, b] += volume * share


def wavelength_targets(T: np.ndarray, w: int) -> np.ndarray:
    """t: T in wavelengths, each CU's row scaled to its w transmit wavelengths.

    Eq. 1 compares lambda_ij (a count of wavelengths) with t_ij directly, and the text asks for
    wavelengths "in proportion to the volume of traffic", so t is T per CU: CU i's w wavelengths
    divided among its destinations in proportion to what it sends them. Rows of idle CUs stay 0.
    """
    rows = T.sum(axis=1, keepdims=True)
    return np.divide(w * T, rows, out=np.zeros_like(T, dtype=float), where=rows > 0)
