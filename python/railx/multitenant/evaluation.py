"""Job completion time of a mix's all-reduces (paper 003, §6.B): every job runs one all-reduce
of the same message size at the same time on the network its topology builds for the mix, and
the mix's JCT is its slowest job's.

Algorithms (`ALGORITHMS`), each a function of (topology, mix, message bytes) giving every job's
completion time:

- `M`, mesh (direct) all-reduce at flow level: each CU sends chunk j (n / k bytes) to CU j of
  its job (reduce-scatter), then every CU sends its reduced chunk to every other CU of the job
  (all-gather): two steps of the same traffic. Every job's step is simulated at once, so jobs
  share the network (see `mesh_step_times`).
- `F`, Flex-SiPCO (Flex-SiPAC and static SiPAC only) at flow level: every job's Flex-SiPCO
  schedule (railx.collectives, Algorithm 1 with stand-ins for non-communicating CUs) run at once
  on the `sipac` peer (`sipac_wss`: CU addresses, WSS vertices with optical multicast; on
  Flex-SiPAC each job's CUs move their wavelengths onto the levels the job spans), one flow
  simulation per message size (see `flex_sipco_all_reduce`). The paper's analytic upper bound
  (l-hat + 1)(alpha + (r - 1) 2n / (r l-hat) beta) is reported beside it (`JctRow.bound_s`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from railx.collectives.sipco import flex_sipco_bound_s, spanned_levels
from railx.config import ConfigError
from railx.flowsim import CollectiveJob, Messages, collectives, simulate
from railx.messages import shown
from railx.multitenant.baselines import HOP_LATENCY_S, TOPOLOGIES, FlexSipacShape, sipac_wss
from railx.multitenant.jobs import JobMix
from railx.systems import System

__all__ = [
    "PAPER_FIG7_REDUCTION_1MB",
    "ALGORITHMS",
    "ALGORITHM_FIDELITY",
    "JctRow",
    "evaluate",
    "flex_sipco_all_reduce",
    "flex_sipco_bound",
    "jct",
    "mesh_all_reduce",
    "mesh_closed_form_s",
]


def _mesh_step(mix: JobMix, unit_bytes: int) -> tuple[Messages, np.ndarray]:
    """One mesh step of every job, all starting at 0: `unit_bytes` from each CU to each other
    CU of its job (the chunk of a message of k x unit_bytes); and each message's job."""
    src, dst, owner = [], [], []
    for job in range(len(mix.ranges)):
        cus = np.fromiter(mix.cus(job), dtype=np.int64)
        if len(cus) < 2:
            continue
        a, b = np.meshgrid(cus, cus, indexing="ij")
        off = a != b
        src.append(a[off])
        dst.append(b[off])
        owner.append(np.full(int(off.sum()), job))
    if not src:
        raise ConfigError("jobs: every job has a single CU; an all-reduce needs a job of 2 or more CUs")
    count = sum(len(x) for x in src)
    messages = Messages(
        src=np.concatenate(src).astype(np.uint32),
        dst=np.concatenate(dst).astype(np.uint32),
        bytes=np.full(count, unit_bytes, dtype=np.uint64),
        delay_s=np.zeros(count),
        dep_start=np.zeros(count + 1, dtype=np.uint64),
        deps=np.zeros(0, dtype=np.uint32),
    )
    return messages, np.concatenate(owner)


def mesh_step_times(system: System, mix: JobMix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk of every job's mesh step as (seconds per byte of message u, seconds of
    latency lat, its job): a job's step for a message of n bytes takes the max over its chunks
    of n u + lat.

    Exact at flow level, from two simulations: every flow of the step starts at once and moves
    a fixed share of n (n / k for a job of k), so the max-min fair rates, which change only when
    flows finish, follow the same sequence at every n, and every flow's last byte leaves at a
    time proportional to n; its arrival adds its path latency (the flow level's alpha-beta
    form). Two runs at n0 and 2 n0 give each chunk's u and lat; a job's step is its slowest
    chunk. Chunks are n / k bytes, fractional below k bytes, as in the alpha-beta model."""
    unit = 1 << 12
    messages, owner = _mesh_step(mix, unit)
    doubled = Messages(
        messages.src, messages.dst, messages.bytes * 2, messages.delay_s, messages.dep_start, messages.deps
    )
    first = simulate(system, messages).arrival_s
    second = simulate(system, doubled).arrival_s
    per_unit = (second - first) / unit  # seconds per chunk byte
    latency = first - per_unit * unit
    sizes = np.array([len(mix.cus(j)) for j in range(len(mix.ranges))], dtype=float)
    return per_unit / sizes[owner], latency, owner


def mesh_all_reduce(system: System, mix: JobMix, sizes_bytes: Sequence[int]) -> np.ndarray:
    """Mesh all-reduce time of every job (columns) at every message size (rows), in seconds:
    two steps (reduce-scatter, all-gather) of the same traffic, each as `mesh_step_times`. Jobs'
    steps overlap in full (each starts with the other jobs' steps), which is exact where jobs
    share no link and otherwise counts their contention over the whole step."""
    per_byte, latency, owner = mesh_step_times(system, mix)
    jobs = len(mix.ranges)
    out = np.zeros((len(sizes_bytes), jobs))
    for row, n in enumerate(sizes_bytes):
        np.maximum.at(out[row], owner, 2 * (n * per_byte + latency))
    return out


def mesh_closed_form_s(k: int, size_bytes: int, port_Bps: float, latency_s: float) -> float:
    """Mesh all-reduce of k CUs on a non-blocking switch (alpha-beta): two steps, each CU
    sending (k - 1) chunks of n / k through its port: 2 (alpha + (k - 1) (n / k) / B)."""
    return 2 * (latency_s + (k - 1) * (size_bytes / k) / port_Bps)


def _check_sipco_topology(topology: str) -> None:
    if topology not in ("flex-sipac", "sipac"):
        raise ConfigError(f"algo = F on {topology}: Flex-SiPCO runs on Flex-SiPAC or SiPAC; use algo M there")


def flex_sipco_bound(topology: str, mix: JobMix, size_bytes: int) -> np.ndarray:
    """ANALYTIC BOUND, not a simulation: every job's Flex-SiPCO all-reduce time by the paper's
    bound. On Flex-SiPAC a job's CUs move all w wavelengths onto the l-hat levels it spans
    (port = w rate / l-hat); on static SiPAC every port keeps w / L. Single-CU jobs take 0."""
    _check_sipco_topology(topology)
    shape = FlexSipacShape.for_cus(mix.n_cus)
    out = np.zeros(len(mix.ranges))
    for job in range(len(mix.ranges)):
        cus = mix.cus(job)
        levels = len(spanned_levels(shape.r, shape.L, cus))
        if levels == 0:
            continue
        ports = levels if topology == "flex-sipac" else shape.L
        out[job] = flex_sipco_bound_s(shape.r, levels, size_bytes, shape.w * shape.rate_Bps / ports, HOP_LATENCY_S)
    return out


def flex_sipco_all_reduce(
    topology: str, mix: JobMix, sizes_bytes: Sequence[int], shape: FlexSipacShape | None = None
) -> np.ndarray:
    """Flex-SiPCO all-reduce time of every job (columns) at every message size (rows), in
    seconds, at flow level: all jobs' schedules in one run on `sipac_wss` (reconfigured on
    Flex-SiPAC, static on SiPAC), sharing the network; single-CU jobs take 0. A job too sparse
    for the schedule's stand-ins raises (use M)."""
    _check_sipco_topology(topology)
    shape = shape or FlexSipacShape.for_cus(mix.n_cus)
    system = sipac_wss(mix, topology == "flex-sipac", shape)
    active = [job for job in range(len(mix.ranges)) if mix.sizes[job] >= 2]
    out = np.zeros((len(sizes_bytes), len(mix.ranges)))
    if not active:
        return out
    for row, n in enumerate(sizes_bytes):
        jobs = [CollectiveJob("all-reduce", "flex-sipco", int(n), list(mix.cus(j))) for j in active]
        out[row, active] = collectives(system, jobs).job_completion_s
    return out


ALGORITHM_FIDELITY: dict[str, str] = {"M": "flow", "F": "flow"}
ALGORITHMS: tuple[str, ...] = tuple(ALGORITHM_FIDELITY)

#: Fig. 7's claim (paper 003, §6): at 1 MB Flex-SiPAC's JCT is this much lower than the DGX-H100
#: SuperPOD's (the range over the job mixes), as fractions.
PAPER_FIG7_REDUCTION_1MB: tuple[float, float] = (0.26, 0.29)


def jct(per_job_s: np.ndarray) -> float:
    """The mix's job completion time: its slowest job's."""
    return float(np.max(per_job_s))


@dataclass(frozen=True)
class JctRow:
    """One result: a topology and algorithm (its fidelity), a mix (sizes joined by +, its
    skewness), a message size, the mix's JCT and every job's completion time, in seconds; for F,
    `bound_s`, the mix's JCT by the paper's analytic bound (None for M)."""

    topology: str
    algo: str
    fidelity: str
    mix: str
    sigma: float
    size_bytes: int
    jct_s: float
    per_job_s: tuple[float, ...]
    bound_s: float | None = None


def evaluate(
    topologies: Sequence[str],
    algos: Sequence[str],
    mixes: Sequence[JobMix],
    sizes_bytes: Sequence[int],
    build: Callable[[str, JobMix], System] | None = None,
    on_network: Callable[[int, int], None] | None = None,
) -> list[JctRow]:
    """JCT per topology x algorithm x mix x message size; F only on Flex-SiPAC and SiPAC. Each
    network is built once per mix (`build`, default the topology's own builder for mesh jobs).
    `on_network(done, total)` is called after each (mix, topology, algorithm) is evaluated (a
    progress bar's hook)."""
    for name in topologies:
        if name not in TOPOLOGIES:
            raise ConfigError(f"topology = {shown(name)}: unknown; use one of {', '.join(TOPOLOGIES)}")
    for algo in algos:
        if algo not in ALGORITHM_FIDELITY:
            raise ConfigError(f"algo = {shown(algo)}: unknown; use M (mesh) or F (Flex-SiPCO)")
    build = build or (lambda name, mix: TOPOLOGIES[name].build(mix, "mesh"))
    runs = [
        (mix, name, algo)
        for mix in mixes
        for name in topologies
        for algo in algos
        if algo == "M" or name in ("flex-sipac", "sipac")
    ]
    rows = []
    for done, (mix, name, algo) in enumerate(runs, start=1):
        if algo == "M":
            times = mesh_all_reduce(build(name, mix), mix, sizes_bytes)
            bounds: list[float | None] = [None] * len(sizes_bytes)
        else:
            times = flex_sipco_all_reduce(name, mix, sizes_bytes)
            bounds = [jct(flex_sipco_bound(name, mix, n)) for n in sizes_bytes]
        for n, per_job, bound in zip(sizes_bytes, times, bounds):
            rows.append(
                JctRow(
                    name,
                    algo,
                    ALGORITHM_FIDELITY[algo],
                    mix.label(),
                    mix.sigma,
                    int(n),
                    jct(per_job),
                    tuple(float(t) for t in per_job),
                    bound,
                )
            )
        if on_network is not None:
            on_network(done, len(runs))
    return rows
