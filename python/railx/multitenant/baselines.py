"""The networks the jobs of a mix see (paper 003, §6.A.2), each normalised to the same per-CU
bandwidth and built as a railx system the flow level simulates:

- `superpod`: the DGX-H100 SuperPOD as the paper abstracts it, one giant non-blocking switch
  (a 1-tier fat-tree peer, one port of the whole per-CU bandwidth per CU);
- `sip-ocs`: SiP-ML's SiP-OCS, N GPUs with Q ports each on Q OCSs of radix N, every OCS a
  permutation of circuits steered to the jobs by SiP-ML's objective (railx.multitenant.sip_ocs);
- `tpuv4`: TPUv4 with job-aware OCS rewiring: 4^3 blocks whose OCS links join the blocks of a
  job into extended rings along the dimensions it spans (see `tpuv4`);
- `flex-sipac`: Flex-SiPAC with wavelengths allocated to the jobs by eq. 1 (railx.wavelengths):
  each CU pair with lambda_ij wavelengths is a direct lightpath link of lambda_ij x rate;
- `sipac`: static SiPAC, every CU pair of a WSS with the even share w / (L (r - 1)).

Every CU-to-CU hop (a switch traversal, an OCS circuit, a lightpath through a WSS, a torus
link) has the same latency, two 300 ns fibre segments, so the comparison is of topology alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from railx.config import ConfigError
from railx.messages import shown
from railx.multitenant.jobs import JobMix
from railx.multitenant.sip_ocs import Steering, steer_job
from railx.systems import System
from railx.wavelengths import Instance, Job, SiPAC, heuristic, relax, traffic_matrix, wavelength_targets
from railx.wavelengths.exact import EXACT_MAX_VARIABLES

__all__ = [
    "ALLOCATIONS",
    "CU_BANDWIDTH_BPS",
    "HOP_LATENCY_S",
    "TOPOLOGIES",
    "FlexSipacShape",
    "Topology",
    "flex_sipac",
    "flex_sipac_admissible",
    "port_wavelengths",
    "sip_ocs",
    "sipac_static",
    "sipac_wss",
    "superpod",
    "tpuv4",
]

CU_BANDWIDTH_BPS = 1920e9 / 8
"""Per-CU bandwidth, per direction: 1,920 Gb/s (paper 003: 60 wavelengths x 32 Gb/s)."""
HOP_LATENCY_S = 600e-9
"""One CU-to-CU hop: two fibre segments of 300 ns (railx's optical hop)."""
TPU_BLOCK = 4
"""TPUv4 blocks are TPU_BLOCK^3 chips."""
SIP_OCS_DEFAULT_Q = 16


@dataclass(frozen=True)
class FlexSipacShape:
    """The Flex-SiPAC of the evaluation: SiPAC(r, L), w wavelengths of `rate_Bps` per CU."""

    r: int = 8
    L: int = 3
    w: int = 60
    rate_Bps: float = 4e9

    @property
    def n_cus(self) -> int:
        return int(self.r**self.L)

    def topology(self) -> SiPAC:
        return SiPAC(self.r, self.L)

    @classmethod
    def for_cus(cls, n_cus: int) -> FlexSipacShape:
        """Radix 8 (the preset flex-sipac-512's), as many levels as n_cus needs (64: 2, 512: 3)."""
        levels = round(np.log(n_cus) / np.log(8))
        if 8**levels != n_cus:
            raise ConfigError(f"cus = {n_cus}: Flex-SiPAC(8, L) has 8^L CUs; use 64 or 512")
        return cls(8, int(levels))


def _graph(name: str, label: str, n_cus: int, links: dict[tuple[int, int], float], switches: int = 0) -> System:
    peer: dict[str, Any] = {
        "family": "graph",
        "chips": n_cus,
        "switches": switches,
        "links": [
            {"src": a, "dst": b, "bandwidth_Bps": bw, "latency_s": HOP_LATENCY_S}
            for (a, b), bw in sorted(links.items())
        ],
    }
    return System(name, label, peer=peer)


def superpod(mix: JobMix) -> System:
    """One giant non-blocking switch, one port of CU_BANDWIDTH_BPS per CU (two 300 ns hops)."""
    radix = mix.n_cus + mix.n_cus % 2
    peer = {
        "family": "fat-tree",
        "radix": max(radix, 2),
        "tiers": 1,
        "chips": mix.n_cus,
        "planes": 1,
        "link": {"port_bw_Bps": CU_BANDWIDTH_BPS, "long_latency_s": HOP_LATENCY_S / 2},
    }
    return System("superpod", "DGX-H100 SuperPOD (giant switch)", peer=peer)


def sip_ocs(mix: JobMix, q: int = SIP_OCS_DEFAULT_Q) -> System:
    """SiP-OCS with its Q OCSs steered to the jobs by SiP-ML's objective (railx.multitenant.sip_ocs):
    each job's circuits among its own GPUs, chosen for the mesh all-to-all paper 003 estimates
    (the exact MILP for small jobs, the Cayley heuristic beyond), each circuit 1/Q of the per-CU
    bandwidth; traffic between GPUs without a circuit is relayed over shortest paths."""
    if q < 1:
        raise ConfigError(f"q = {q}: SiP-OCS has at least one OCS; e.g. q = {SIP_OCS_DEFAULT_Q}")
    links: dict[tuple[int, int], float] = defaultdict(float)
    for job in range(len(mix.ranges)):
        cus = list(mix.cus(job))
        if len(cus) < 2:
            continue
        circuits = _steering(len(cus), q).circuits()
        for a, b in zip(*np.nonzero(circuits)):
            links[(cus[a], cus[b])] += float(circuits[a, b]) * CU_BANDWIDTH_BPS / q
    return _graph("sip-ocs", f"SiP-OCS (Q = {q}, ILP-steered)", mix.n_cus, links)


@lru_cache(maxsize=64)
def _steering(k: int, q: int) -> Steering:
    """One steering per job size: jobs of one size get the same circuits (cached, the heuristic
    takes seconds at 512 GPUs)."""
    return steer_job(k, q)


def _block_grid(blocks: int) -> tuple[int, int, int]:
    """Blocks per dimension of a group of `blocks`: the most balanced factorisation, largest first."""
    best = (blocks, 1, 1)
    for a in range(1, blocks + 1):
        for b in range(1, blocks // a + 1):
            if blocks % (a * b) == 0:
                c = blocks // (a * b)
                dims = tuple(sorted((a, b, c), reverse=True))
                if max(dims) - min(dims) < max(best) - min(best):
                    best = dims  # type: ignore[assignment]
    return best


def _block_groups(mix: JobMix, blocks: int) -> list[list[int]]:
    """Runs of consecutive blocks joined by the jobs that span them (a job touching blocks b and
    b + 1 joins them); a block no job spans beyond stays alone."""
    size = TPU_BLOCK**3
    join = np.zeros(blocks, dtype=bool)  # join[b]: block b joined to b + 1
    for start, stop in mix.ranges:
        join[start // size : (stop - 1) // size] = True
    groups, current = [], [0]
    for b in range(1, blocks):
        if join[b - 1]:
            current.append(b)
        else:
            groups.append(current)
            current = [b]
    groups.append(current)
    return groups


def tpuv4(mix: JobMix) -> System:
    """TPUv4 with job-aware OCS rewiring: blocks of 4^3 CUs (block b holds CUs 64 b .. 64 b + 63,
    local index x + 4 y + 16 z), a 3D torus each; the OCSs join the blocks a job spans, evenly
    along all dimensions (the group's blocks in the most balanced grid), into one torus of
    extended rings. Jobs that share a block share its group. Six links per CU, each one sixth of
    the per-CU bandwidth."""
    size = TPU_BLOCK**3
    if mix.n_cus % size:
        raise ConfigError(f"cus = {mix.n_cus}: TPUv4 is built of {size}-CU blocks; use a multiple of {size}")
    links: dict[tuple[int, int], float] = {}
    per_link = CU_BANDWIDTH_BPS / 6
    for group in _block_groups(mix, mix.n_cus // size):
        grid = _block_grid(len(group))
        dims = [g * TPU_BLOCK for g in grid]

        def cu_at(x: int, y: int, z: int, group: list[int] = group, grid: tuple[int, int, int] = grid) -> int:
            bx, by, bz = x // TPU_BLOCK, y // TPU_BLOCK, z // TPU_BLOCK
            block = group[bx + grid[0] * (by + grid[1] * bz)]
            lx, ly, lz = x % TPU_BLOCK, y % TPU_BLOCK, z % TPU_BLOCK
            return block * size + lx + TPU_BLOCK * (ly + TPU_BLOCK * lz)

        for x in range(dims[0]):
            for y in range(dims[1]):
                for z in range(dims[2]):
                    here = cu_at(x, y, z)
                    for dim in range(3):
                        step = [x, y, z]
                        step[dim] = (step[dim] + 1) % dims[dim]
                        there = cu_at(step[0], step[1], step[2])
                        links[(here, there)] = per_link
                        links[(there, here)] = per_link
    return _graph("tpuv4", "TPUv4 (job-aware OCS rewiring)", mix.n_cus, links)


def _flex_jobs(mix: JobMix, collective: str) -> list[Job]:
    return [Job(f"job{i}", tuple(mix.cus(i)), collective) for i in range(len(mix.ranges)) if mix.sizes[i] >= 2]


def flex_sipac_admissible(mix: JobMix, shape: FlexSipacShape) -> bool:
    """Whether every job's CUs are joined through WSSs among themselves (the wavelength
    allocation, like Flex-SiPCO, routes a job inside its own CUs)."""
    try:
        traffic_matrix(shape.topology(), _flex_jobs(mix, "sipco"))
    except ConfigError:
        return False
    return True


ALLOCATIONS = ("heuristic", "relaxed")


def _eq1_allocation(
    mix: JobMix, collective: str, shape: FlexSipacShape, allocation: str
) -> tuple[Instance, np.ndarray]:
    """Eq. 1's wavelength allocation for the mix's jobs running `collective`: the instance (its
    arcs) and lambda per arc, by `allocation` (see `flex_sipac`)."""
    if allocation not in ALLOCATIONS:
        raise ConfigError(f"allocation = {shown(allocation)}: unknown; use one of {', '.join(ALLOCATIONS)}")
    topo = shape.topology()
    instance = Instance(topo, shape.w, wavelength_targets(traffic_matrix(topo, _flex_jobs(mix, collective)), shape.w))
    relaxed = relax(instance)
    if allocation == "relaxed":
        return instance, relaxed.lam
    # The completion is an exact solve over arcs x w unit variables: run where the exact solver
    # runs, skipped beyond (a CU the round robin could not fill keeps those wavelengths dark).
    complete = len(instance.t) * shape.w <= EXACT_MAX_VARIABLES
    return instance, heuristic(instance, relaxed, complete=complete).lam


def flex_sipac(
    mix: JobMix, collective: str = "mesh", shape: FlexSipacShape | None = None, allocation: str = "heuristic"
) -> System:
    """Flex-SiPAC with wavelengths allocated to the mix by eq. 1 for the jobs' `collective`
    (mesh, ring or sipco), each pair's lambda_ij wavelengths one lightpath link of
    lambda_ij x rate. `allocation`: `heuristic`, the paper's (rounded relaxation, round-robin
    fill, and the completion where the exact solver runs), or `relaxed`, eq. 1's
    continuous optimum (fractional wavelengths): the integer allocation's uneven links give the
    flow level one event per distinct finishing time, minutes per run at 512 CUs."""
    shape = shape or FlexSipacShape.for_cus(mix.n_cus)
    instance, lam = _eq1_allocation(mix, collective, shape, allocation)
    links = {(int(i), int(j)): float(n) * shape.rate_Bps for (i, j), n in zip(instance.arcs, lam) if n > 1e-9}
    return _graph("flex-sipac", f"Flex-SiPAC({shape.r}, {shape.L}), w = {shape.w}", mix.n_cus, links)


def sipac_static(mix: JobMix, shape: FlexSipacShape | None = None) -> System:
    """Static SiPAC: every CU pair on a WSS holds its even share w / (L (r - 1)) of wavelengths,
    whatever the jobs."""
    shape = shape or FlexSipacShape.for_cus(mix.n_cus)
    share = shape.w / (shape.L * (shape.r - 1)) * shape.rate_Bps
    links = {(int(i), int(j)): share for i, j in shape.topology().arcs}
    return _graph("sipac", f"SiPAC({shape.r}, {shape.L}), static", mix.n_cus, links)


def _whole_split(shares: np.ndarray, w: int) -> list[int]:
    """w wavelengths split in proportion to `shares` (one per level), in whole wavelengths by
    the largest remainder; no share at all: the even spread."""
    if shares.sum() <= 1e-9:
        shares = np.ones(len(shares))
    exact = w * shares / shares.sum()
    split = np.floor(exact).astype(int)
    for level in np.argsort(-(exact - split), kind="stable")[: w - int(split.sum())]:
        split[level] += 1
    return [int(x) for x in split]


def port_wavelengths(mix: JobMix, shape: FlexSipacShape, allocation: str = "relaxed") -> list[list[int]]:
    """Each CU's wavelengths per level port on Flex-SiPAC for the mix's Flex-SiPCO jobs: eq. 1's
    allocation for the jobs' sipco traffic (railx.wavelengths), summed over each level's arcs
    and scaled to the CU's w, in whole wavelengths. A job's CUs thus put their wavelengths on
    the levels it spans, in proportion to their neighbours in the job there (e.g. 25, 25, 10 for
    a box of 8 x 8 x 4); CUs with no traffic keep the even spread."""
    instance, lam = _eq1_allocation(mix, "sipco", shape, allocation)
    per_port = np.zeros((mix.n_cus, shape.L))
    np.add.at(per_port, (instance.arcs[:, 0], shape.topology().arc_levels), lam)
    return [_whole_split(row, shape.w) for row in per_port]


def sipac_wss(mix: JobMix, reconfigured: bool, shape: FlexSipacShape | None = None) -> System:
    """SiPAC(r, L) as the railx `sipac` peer (one switch vertex per WSS, CU addresses, digit
    routing, optical multicast at the WSS), the network Flex-SiPCO's schedule runs on. Static
    (`reconfigured` False): every CU's w wavelengths spread evenly over its L ports. Flex-SiPAC
    (True): each CU's port split is eq. 1's allocation for the jobs' sipco traffic
    (`port_wavelengths`); a port left with none is dark. Within a level the WSS vertex admits
    any allocation of a port's wavelengths among its peers (docs/sipac-topology.md), so the
    per-pair allocation eq. 1 gives is one the vertex carries."""
    shape = shape or FlexSipacShape.for_cus(mix.n_cus)
    peer: dict[str, Any] = {
        "family": "sipac",
        "radix": shape.r,
        "levels": shape.L,
        "wavelengths": shape.w,
        "wavelength_rate_Bps": shape.rate_Bps,
        "link_latency_s": HOP_LATENCY_S / 2,
    }
    if not reconfigured:
        return System("sipac", f"SiPAC({shape.r}, {shape.L}), w = {shape.w}, static", peer=peer)
    peer["cu_level_wavelengths"] = port_wavelengths(mix, shape)
    return System("flex-sipac", f"Flex-SiPAC({shape.r}, {shape.L}), w = {shape.w}, eq. 1 ports", peer=peer)


@dataclass(frozen=True)
class Topology:
    """A network of the comparison: its name, label, and the system a mix sees (built for the
    collective the jobs run, which steers the reconfigurable ones)."""

    name: str
    label: str
    build: Callable[[JobMix, str], System]


TOPOLOGIES: dict[str, Topology] = {
    t.name: t
    for t in [
        Topology("superpod", "DGX-H100 SuperPOD", lambda mix, _c: superpod(mix)),
        Topology("sip-ocs", "SiP-OCS (Q = 16)", lambda mix, _c: sip_ocs(mix)),
        Topology("tpuv4", "TPUv4 (OCS rewired)", lambda mix, _c: tpuv4(mix)),
        Topology("flex-sipac", "Flex-SiPAC", lambda mix, c: flex_sipac(mix, c)),
        Topology("sipac", "SiPAC (static)", lambda mix, _c: sipac_static(mix)),
    ]
}
