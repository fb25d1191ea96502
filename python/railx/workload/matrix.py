"""GPU-pair traffic matrix of one training iteration, by traffic type (Rail-only paper §III, Figs. 2-5).

Rank r of the [T, C, E, De, P] grid (railx.workload.traffic) runs on GPU r; HB domains are K
consecutive GPUs and rail k holds the GPUs with r mod K = k. Every collective of
:func:`railx.workload.traffic.traffic` becomes pair traffic by the algorithm that runs it:

- RS / AG (TP) and the CP key/value ring: a ring in rank order; each rank sends (p-1)/p V per
  occurrence to its ring neighbour (bidirectional: half to each neighbour, as railx's ring models
  assume; unidirectional: all to the next).
- All-reduce (DP), `ring`: the same ring with 2(p-1)/p V. `hierarchical` (the paper's §III-B, for a
  group of x GPUs in each of y HB domains): a ring all-reduce of V among the x GPUs of each domain
  (2(x-1)/x V per rank) and one of V/x among the y GPUs of a rail (2(y-1)/y V/x per rank). Both
  send 2(p-1)/p V per rank in total; hierarchical moves all but (y-1)/(xy) of it inside domains.
- All-to-all (EP): V/p to each of the other p-1 members (uniform routing).
- Pipeline sends (PP): of its 2 N_B sends per iteration a stage sends N_B forward to the next stage
  and N_B backward to the previous one; the end stages send one way only.

So a group of p ranks sends (p-1) V f bytes per collective of volume V and frequency f, twice that
for an all-reduce (:func:`group_bytes`); the tests check every matrix against it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from scipy import sparse

from railx.atomic import checked_path, save_figure
from railx.config import ConfigError
from railx.messages import shown
from railx.workload.catalogue import ModelSpec
from railx.workload.traffic import DIMS, Collective, Dim, Parallelism, traffic

__all__ = [
    "ALL_REDUCE_ALGOS",
    "RING_DIRECTIONS",
    "TRAFFIC_TYPES",
    "AllReduceAlgo",
    "Placement",
    "RingDirection",
    "TrafficMatrix",
    "group_bytes",
    "plot_heatmap",
    "rank_groups",
    "traffic_matrix",
]

AllReduceAlgo = Literal["ring", "hierarchical"]
ALL_REDUCE_ALGOS: tuple[AllReduceAlgo, ...] = ("ring", "hierarchical")
RingDirection = Literal["bidirectional", "unidirectional"]
RING_DIRECTIONS: tuple[RingDirection, ...] = ("bidirectional", "unidirectional")
TrafficType = Literal["TP", "CP", "EP", "DP", "PP"]
TRAFFIC_TYPES: tuple[TrafficType, ...] = ("TP", "CP", "EP", "DP", "PP")
_TYPE_OF: dict[str, TrafficType] = {"T": "TP", "C": "CP", "E": "EP", "D": "DP", "P": "PP"}

Flows = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Source GPUs, destination GPUs and bytes of one collective's pair traffic (duplicates add up)."""


@dataclass(frozen=True)
class Placement:
    """GPUs of the cluster and its HB domains of `hb_domain` consecutive GPUs; rank r runs on GPU r."""

    gpus: int
    hb_domain: int

    def check(self, par: Parallelism) -> None:
        """Raises ConfigError (one line) unless the domains tile the GPUs and the ranks fit on them."""
        if self.hb_domain < 1 or self.gpus < 1:
            raise ConfigError(
                f"hb_domain = {self.hb_domain}, gpus = {self.gpus}: both must be positive integers; e.g. hb_domain = 8"
            )
        if par.ranks > self.gpus:
            raise ConfigError(
                f"gpus = {self.gpus}: the parallelism needs T*C*D*P = {par.ranks} GPUs; "
                f"e.g. gpus = {-(-par.ranks // self.hb_domain) * self.hb_domain}"
            )
        if self.gpus % self.hb_domain:
            raise ConfigError(
                f"hb_domain = {self.hb_domain}: must divide the {self.gpus} GPUs (whole HB domains); "
                f"e.g. hb_domain = {max(d for d in range(1, self.hb_domain + 1) if self.gpus % d == 0)}"
            )

    def domain(self, gpu: np.ndarray) -> np.ndarray:
        """HB domain of each GPU."""
        return gpu // self.hb_domain


def rank_groups(par: Parallelism, dims: tuple[Dim, ...]) -> np.ndarray:
    """Every process group spanning `dims`, one row each, members ascending (the ring order).

    Row i lists the ranks that differ only along `dims` (as :meth:`Parallelism.group`)."""
    order = tuple(reversed(DIMS))  # the outermost dimension is axis 0 of the rank grid
    grid = np.arange(par.ranks).reshape([par.size(d) for d in order])
    axes = sorted(order.index(d) for d in dims)
    moved = np.moveaxis(grid, axes, range(grid.ndim - len(axes), grid.ndim))
    return moved.reshape(-1, math.prod(par.size(d) for d in dims))


def group_bytes(coll: Collective, par: Parallelism) -> float:
    """Bytes one process group of `coll` sends per iteration under the module's algorithms:
    (p-1) V f, and 2 (p-1) V f for an all-reduce (ring or hierarchical alike)."""
    p = coll.group_size(par)
    factor = 2.0 if coll.pattern == "all-reduce" else 1.0
    return factor * (p - 1) * coll.volume_bytes * coll.frequency


def _ring(groups: np.ndarray, per_rank_bytes: float, direction: RingDirection) -> Flows:
    """Each member sends per_rank_bytes to its ring neighbour(s) in row order."""
    if groups.shape[1] < 2:
        return _no_flows()
    nxt = np.roll(groups, -1, axis=1)
    if direction == "unidirectional":
        return groups.ravel(), nxt.ravel(), np.full(groups.size, per_rank_bytes)
    prv = np.roll(groups, 1, axis=1)
    src = np.concatenate([groups.ravel(), groups.ravel()])
    return src, np.concatenate([nxt.ravel(), prv.ravel()]), np.full(src.size, per_rank_bytes / 2)


def _all_to_all(groups: np.ndarray, per_peer_bytes: float) -> Flows:
    p = groups.shape[1]
    src = np.broadcast_to(groups[:, :, None], (len(groups), p, p))
    dst = np.broadcast_to(groups[:, None, :], (len(groups), p, p))
    off_diagonal = ~np.eye(p, dtype=bool)[None].repeat(len(groups), axis=0)
    return src[off_diagonal], dst[off_diagonal], np.full(int(off_diagonal.sum()), per_peer_bytes)


def _pipeline(groups: np.ndarray, per_direction_bytes: float) -> Flows:
    """Stage s sends to s+1 (forward) and s-1 (backward)."""
    a, b = groups[:, :-1].ravel(), groups[:, 1:].ravel()
    return np.concatenate([a, b]), np.concatenate([b, a]), np.full(2 * a.size, per_direction_bytes)


def _hierarchical(
    groups: np.ndarray, placement: Placement, volume: float, name: str, direction: RingDirection
) -> Flows:
    """Ring all-reduce inside each HB domain, then across the domains along each rail."""
    n, p = groups.shape
    domains = placement.domain(groups)
    x = int((domains == domains[:, :1]).sum(axis=1).min())
    grid = domains.reshape(n, p // x, x) if p % x == 0 else None
    if grid is None or not ((grid == grid[:, :, :1]).all() and (np.diff(grid[:, :, 0], axis=1) > 0).all()):
        raise ConfigError(
            f"all_reduce = hierarchical: {name}'s groups must hold the same number of GPUs in every HB domain "
            f"they touch (rank 0's group: {groups[0].tolist()}); e.g. all_reduce = ring"
        )
    y = p // x
    inside = groups.reshape(n * y, x)
    across = groups.reshape(n, y, x).transpose(0, 2, 1).reshape(n * x, y)
    parts = [_ring(inside, 2 * (x - 1) / x * volume, direction), _ring(across, 2 * (y - 1) / y * volume / x, direction)]
    return _concat(parts)


def _no_flows() -> Flows:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)


def _concat(parts: list[Flows]) -> Flows:
    if not parts:
        return _no_flows()
    return (
        np.concatenate([f[0] for f in parts]),
        np.concatenate([f[1] for f in parts]),
        np.concatenate([f[2] for f in parts]),
    )


def _flows(
    coll: Collective, par: Parallelism, placement: Placement, all_reduce: AllReduceAlgo, ring: RingDirection
) -> Flows:
    groups = rank_groups(par, coll.dims)
    p = groups.shape[1]
    if p < 2:
        return _no_flows()
    volume = coll.volume_bytes * coll.frequency  # per rank and iteration
    if coll.pattern == "all-reduce":
        if all_reduce == "hierarchical":
            return _hierarchical(groups, placement, volume, coll.name, ring)
        return _ring(groups, 2 * (p - 1) / p * volume, ring)
    if coll.pattern == "all-to-all":
        return _all_to_all(groups, volume / p)
    if coll.parallelism == "P":
        return _pipeline(groups, volume / 2)
    return _ring(groups, (p - 1) / p * volume, ring)  # RS / AG, and CP's key/value ring


@dataclass(frozen=True)
class TrafficMatrix:
    """Bytes GPU i sends GPU j in one iteration, one sparse N x N matrix per traffic type."""

    placement: Placement
    by_type: dict[TrafficType, sparse.csr_array]
    collective_bytes: dict[str, float] = field(default_factory=dict)
    """Total bytes each collective of :func:`traffic` sends (the sum of its pair traffic)."""

    def total(self) -> sparse.csr_array:
        """All types summed."""
        out = sparse.csr_array((self.placement.gpus,) * 2)
        for matrix in self.by_type.values():
            out = out + matrix
        return out

    def split(self, matrix: sparse.csr_array) -> tuple[sparse.csr_array, sparse.csr_array]:
        """(inside HB domains, across them through the NICs)."""
        coo = matrix.tocoo()
        same = self.placement.domain(coo.row) == self.placement.domain(coo.col)
        shape = matrix.shape
        hb, nic = (
            sparse.csr_array((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=shape) for keep in (same, ~same)
        )
        return hb, nic

    def volume_shares(self) -> dict[str, float]:
        """Share of all bytes by type and domain, e.g. {'TP (HB)': 0.8, 'DP (NIC)': 0.1}; only
        non-zero entries."""
        total = float(self.total().sum())
        out: dict[str, float] = {}
        for kind, matrix in self.by_type.items():
            for where, part in zip(("HB", "NIC"), self.split(matrix), strict=True):
                if (b := float(part.sum())) > 0:
                    out[f"{kind} ({where})"] = b / total
        return out

    def pair_shares(self) -> dict[str, float]:
        """Share of the N(N-1) ordered GPU pairs that carry each type ('none': no traffic at all).
        A pair carrying two types counts in both."""
        n = self.placement.gpus
        pairs = n * (n - 1)
        out: dict[str, float] = {
            k: float(m.count_nonzero() / pairs) for k, m in self.by_type.items() if m.count_nonzero()
        }
        out["none"] = float(1.0 - self.total().count_nonzero() / pairs)
        return out

    def max_pair_bytes(self) -> dict[str, float]:
        """Largest pair traffic inside an HB domain and across domains."""
        hb, nic = self.split(self.total())
        return {"HB": float(hb.max()) if hb.nnz else 0.0, "NIC": float(nic.max()) if nic.nnz else 0.0}


def traffic_matrix(
    model: ModelSpec,
    par: Parallelism,
    placement: Placement,
    all_reduce: AllReduceAlgo = "ring",
    ring: RingDirection = "bidirectional",
) -> TrafficMatrix:
    """The pair traffic of one training iteration (module docstring for the algorithms)."""
    if all_reduce not in ALL_REDUCE_ALGOS:
        raise ConfigError(f"all_reduce = {shown(all_reduce)}: must be ring or hierarchical; e.g. all_reduce = ring")
    if ring not in RING_DIRECTIONS:
        raise ConfigError(f"ring = {shown(ring)}: must be bidirectional or unidirectional; e.g. ring = bidirectional")
    collectives = traffic(model, par)
    placement.check(par)
    shape = (placement.gpus, placement.gpus)
    parts: dict[TrafficType, list[Flows]] = {kind: [] for kind in TRAFFIC_TYPES}
    sent: dict[str, float] = {}
    for coll in collectives:
        flows = _flows(coll, par, placement, all_reduce, ring)
        parts[_TYPE_OF[coll.parallelism]].append(flows)
        sent[coll.name] = float(flows[2].sum())
    by_type: dict[TrafficType, sparse.csr_array] = {}
    for kind, kind_flows in parts.items():
        src, dst, data = _concat(kind_flows)
        by_type[kind] = sparse.csr_array((data, (src, dst)), shape=shape)
    for m in by_type.values():
        m.sum_duplicates()
        m.eliminate_zeros()
    return TrafficMatrix(placement, by_type, sent)


def plot_heatmap(tm: TrafficMatrix, gpus: int, path: Path, title: str, max_cells: int = 256) -> None:
    """PNG heatmap (log colour scale, bytes per iteration) of the first `gpus` GPUs' pair traffic.

    Views wider than `max_cells` GPUs sum b x b blocks of pairs into one cell (a pixel cannot show
    each pair, and sampling would drop most of the sparse entries); HB domain boundaries are drawn
    when they are few enough to see."""
    path = checked_path(path, "path")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    if not 1 <= gpus <= tm.placement.gpus:
        raise ConfigError(f"heatmap gpus = {gpus}: must be between 1 and {tm.placement.gpus}; e.g. {tm.placement.gpus}")
    block = -(-gpus // max_cells)
    cells = -(-gpus // block)
    coo = tm.total()[:gpus, :gpus].tocoo()
    grid = np.zeros((cells, cells))
    np.add.at(grid, (coo.row // block, coo.col // block), coo.data)
    shown = np.ma.masked_less_equal(grid, 0.0)
    fig, ax = plt.subplots(figsize=(4.4, 3.6), dpi=100)
    norm = LogNorm(vmin=float(shown.min()), vmax=float(shown.max())) if shown.count() else None
    extent = (-0.5, cells * block - 0.5, cells * block - 0.5, -0.5)
    image = ax.imshow(shown, cmap="viridis", norm=norm, interpolation="nearest", extent=extent)
    k = tm.placement.hb_domain
    if k < gpus and gpus // k <= 32:
        for edge in range(k, gpus, k):
            ax.axhline(edge - 0.5, color="orange", lw=0.3, alpha=0.6)
            ax.axvline(edge - 0.5, color="orange", lw=0.3, alpha=0.6)
    ax.set_xlabel("destination GPU")
    ax.set_ylabel("source GPU")
    ax.set_title(title, fontsize=9)
    unit = "bytes per iteration" if block == 1 else f"bytes per iteration, {block}x{block} GPU blocks"
    fig.colorbar(image, ax=ax, label=unit)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
