"""Flow-level simulation (docs/flow.md): message DAGs run as flows on routed
paths that share link bandwidth max-min fairly; a message takes its path latency plus its bytes
over its rate. Large translation-invariant workloads run aggregated (one flow per orbit of
messages), exactly. The simulator lives in the Rust core; these are thin, typed wrappers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from railx._core import flow_collective, flow_collectives, flow_simulate, flow_symmetric_traffic
from railx.config import ConfigError
from railx.progress import ProgressCallback
from railx.systems import SystemLike, core_of

if TYPE_CHECKING:
    from railx._core import FlowCollective

__all__ = [
    "CollectiveFlow",
    "CollectiveJob",
    "Messages",
    "FlowResult",
    "SymmetricTraffic",
    "collective",
    "collectives",
    "simulate",
    "simulate_symmetric",
    "symmetric_traffic",
]

SymmetricTraffic = Literal["all-to-all"]


@dataclass(frozen=True)
class Messages:
    """A message DAG in columns. Message i goes from chip `src[i]` to `dst[i]`, carries
    `bytes[i]` and is injected `delay_s[i]` after the last message it waits for has arrived;
    it waits for `deps[dep_start[i]:dep_start[i+1]]`, all earlier messages."""

    src: np.ndarray
    dst: np.ndarray
    bytes: np.ndarray
    delay_s: np.ndarray
    dep_start: np.ndarray
    deps: np.ndarray

    @classmethod
    def from_lists(
        cls,
        src: Sequence[int],
        dst: Sequence[int],
        nbytes: Sequence[int],
        delay_s: Sequence[float] | None = None,
        after: Sequence[Sequence[int]] | None = None,
    ) -> Messages:
        """Messages from plain lists; `after[i]` lists the messages message i waits for."""
        n = len(src)
        after = after if after is not None else [[] for _ in range(n)]
        starts = np.zeros(n + 1, dtype=np.uint64)
        starts[1:] = np.cumsum([len(a) for a in after], dtype=np.uint64)
        deps = [d for a in after for d in a]
        return cls(
            src=np.asarray(src, dtype=np.uint32),
            dst=np.asarray(dst, dtype=np.uint32),
            bytes=np.asarray(nbytes, dtype=np.uint64),
            delay_s=np.asarray(delay_s if delay_s is not None else [0.0] * n, dtype=np.float64),
            dep_start=starts,
            deps=np.asarray(deps, dtype=np.uint32),
        )

    def __len__(self) -> int:
        return len(self.src)

    def _columns(
        self,
    ) -> tuple[
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint64],
        npt.NDArray[np.float64],
        npt.NDArray[np.uint64],
        npt.NDArray[np.uint32],
    ]:
        """The columns in the dtypes the core takes: src, dst, bytes, delay_s, dep_start, deps."""
        return (
            np.ascontiguousarray(self.src, dtype=np.uint32),
            np.ascontiguousarray(self.dst, dtype=np.uint32),
            np.ascontiguousarray(self.bytes, dtype=np.uint64),
            np.ascontiguousarray(self.delay_s, dtype=np.float64),
            np.ascontiguousarray(self.dep_start, dtype=np.uint64),
            np.ascontiguousarray(self.deps, dtype=np.uint32),
        )


@dataclass(frozen=True)
class FlowResult:
    """Outcome of a flow-level run. `flows` were simulated for `messages` messages (more when
    aggregated). Times are per simulated flow. A resource is a link, or an orbit of links when
    aggregated: `resource_of_link[l]` is link l's; `utilisation[r, b]` is resource r's mean
    utilisation in time bin b (width `bin_s`), present when bins were asked for."""

    completion_s: float
    flows: int
    messages: int
    events: int
    start_s: np.ndarray
    arrival_s: np.ndarray
    resource_of_link: np.ndarray
    resource_capacity_Bps: np.ndarray
    utilisation: np.ndarray | None = None
    mean_utilisation: np.ndarray | None = None
    bin_s: float | None = None

    def link_utilisation(self) -> np.ndarray:
        """Mean utilisation of every link over the run (needs bins > 0)."""
        if self.mean_utilisation is None:
            raise ValueError("no timeline was recorded; run with bins > 0")
        return self.mean_utilisation[self.resource_of_link]


def _run(
    system: SystemLike,
    messages: Messages,
    routing: str | None,
    misroutes: int | None,
    job: str | None,
    bins: int,
    symmetric: bool,
    progress: ProgressCallback | None,
) -> FlowResult:
    raw = flow_simulate(core_of(system), *messages._columns(), routing, misroutes, job, bins, symmetric, progress)
    return FlowResult(**raw)


def simulate(
    system: SystemLike,
    messages: Messages,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    bins: int = 0,
    progress: ProgressCallback | None = None,
) -> FlowResult:
    """Runs `messages` on any system, one flow per message, routed by `routing` (None: the
    system's default; adaptive routing splits a flow evenly over the hops it offers); `bins` > 0
    records a utilisation timeline. `progress(done, total, unit)` hears the messages arrived at
    most 10 times a second; returning False stops the run with railx.Cancelled
    (railx.progress)."""
    return _run(system, messages, routing, misroutes, job, bins, False, progress)


def simulate_symmetric(
    network: SystemLike,
    representatives: Messages,
    routing: str | None = None,
    bins: int = 0,
    progress: ProgressCallback | None = None,
) -> FlowResult:
    """Runs a DAG invariant under translations of the node grid, given as one representative
    message per orbit (dependencies name representatives), aggregated: exact, and fast at
    hyper-scale. Raises RailxError when the network is not translation invariant (e.g. HyperX).
    `progress` as in :func:`simulate`, counting representatives."""
    return _run(network, representatives, routing, None, None, bins, True, progress)


def symmetric_traffic(network: SystemLike, kind: SymmetricTraffic, nbytes: int) -> Messages:
    """Representatives of a translation-invariant workload: `all-to-all` (`nbytes` per pair).
    Collective schedules run with :func:`collective`."""
    if nbytes < 1:
        raise ConfigError(f"bytes = {nbytes}: a message carries at least one byte; e.g. 1048576 for 1 MiB")
    return Messages(**flow_symmetric_traffic(core_of(network), kind, nbytes))


@dataclass(frozen=True)
class CollectiveFlow:
    """A collective at flow level: completion time, the flows simulated for `messages` messages,
    rate recomputations, whether the run was aggregated over a symmetry group of the system (RailX:
    node translations; a peer: its family's declared symmetries, docs/flow.md), and `orbit`, the
    messages each flow stands for (the group's order; 1 when not aggregated)."""

    completion_s: float
    flows: int
    messages: int
    events: int
    aggregated: bool
    orbit: int
    job_completion_s: tuple[float, ...] = ()
    """Each job's completion, in the order of the jobs (one entry for a single collective)."""


@dataclass(frozen=True)
class CollectiveJob:
    """One job of :func:`collectives`: `op` by `algo` over the chips `cus` (rank i on cus[i]),
    `size_bytes` per rank, cut into `chunks` pipelined chunks."""

    op: str
    algo: str
    size_bytes: int
    cus: Sequence[int]
    chunks: int = 1


def collective(
    system: SystemLike,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    reduce_s_per_byte: float = 0.0,
    routing: str | None = None,
    misroutes: int | None = None,
    cus: Sequence[int] | None = None,
    progress: ProgressCallback | None = None,
) -> CollectiveFlow:
    """Runs the explicit schedule of `op` by `algo` (railx.collectives) over every chip of any
    system, routed by `routing` (None: the system's default), aggregated (exact) over the largest
    subgroup of the system's symmetry group under which the network and the schedule are invariant
    (RailX: node translations, every one on a torus, whole rows of nodes for a ring over all chips;
    a peer: its family's declared symmetries, docs/flow.md), the full message DAG otherwise; its flows
    must fit the resource budget (docs/architecture.md, Resource budget; ConfigError beyond).
    `reduce_s_per_byte`: delay before forwarding data just reduced, per byte. `cus`: a peer job's
    chips (rank i on cus[i]) instead of every chip. `progress` as in :func:`simulate`, counting
    flows."""
    if size_bytes < 1:
        raise ConfigError(f"size_bytes = {size_bytes}: a collective moves at least one byte; e.g. 1048576")
    if chunks < 1:
        raise ConfigError(f"chunks = {chunks}: a schedule has at least one chunk; use chunks = 1 for no pipelining")
    raw = flow_collective(
        core_of(system),
        op,
        algo,
        size_bytes,
        chunks,
        reduce_s_per_byte,
        routing,
        misroutes,
        None if cus is None else list(cus),
        progress,
    )
    return _collective_flow(raw)


def _collective_flow(raw: FlowCollective) -> CollectiveFlow:
    fields = {k: v for k, v in raw.items() if k != "job_completion_s"}
    return CollectiveFlow(**fields, job_completion_s=tuple(float(t) for t in raw["job_completion_s"]))  # type: ignore[arg-type]


def collectives(
    system: SystemLike,
    jobs: Sequence[CollectiveJob],
    reduce_s_per_byte: float = 0.0,
    routing: str | None = None,
    misroutes: int | None = None,
) -> CollectiveFlow:
    """Runs several jobs' collective schedules at once on a peer system (e.g. a SiPAC): the
    union of their message DAGs, started together and sharing the network, one flow per
    message. Every job holds its own CUs (a CU in two jobs raises RailxError naming both).
    `job_completion_s` gives each job's completion; `completion_s`, the slowest's, is the mix's
    job completion time. One job is exactly :func:`collective` over `cus`."""
    for i, job in enumerate(jobs):
        if job.size_bytes < 1:
            raise ConfigError(f"jobs[{i}].size_bytes = {job.size_bytes}: a collective moves at least one byte")
        if job.chunks < 1:
            raise ConfigError(f"jobs[{i}].chunks = {job.chunks}: a schedule has at least one chunk; use 1")
    raw = flow_collectives(
        core_of(system),
        [
            {"op": j.op, "algo": j.algo, "size_bytes": j.size_bytes, "cus": list(j.cus), "chunks": j.chunks}
            for j in jobs
        ],
        reduce_s_per_byte,
        routing,
        misroutes,
    )
    return _collective_flow(raw)
