"""Where a training job runs: a RailX plant, a chip's sustained FLOP/s, the batch, the overlap
classes and the mapping of each parallelism dimension to the mesh or to ports of a physical axis.

File format (TOML)::

    [system]                       # the RailX plant, same keys as a RailX configuration
    m = 2
    n = 4
    R = 16
    grid = [4, 4]
    [chip]
    sustained_tflops = 400         # dense matmul FLOP/s one chip sustains, in 1e12
    [training]
    micro_batch = 1
    micro_batches = 8
    sequence = 8192
    dtype_bytes = 2
    overlap = ["D"]                # parallelisms whose traffic hides under compute (D and/or P)
    dp_all_reduce_order = "De-first"   # DP all-reduce levels: De, E, C ("De-first") or C, E, De
    [mapping]                      # "mesh", or ports per chip edge of axis x or y
    T = "mesh"
    C = { axis = "x", ports = 2 }
    E = { axis = "x", ports = 2, kind = "all-to-all" }
    De = { axis = "y", ports = 2 }
    P = { axis = "y", ports = 2 }
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, ValidationError

from railx.config import GBPS, NS, ConfigError, Strict, SystemConfig, one_line_error, read_toml
from railx.workload.traffic import DIMS, Dim, Parallelism

__all__ = [
    "DP_ALL_REDUCE_ORDERS",
    "AxisMapping",
    "ChipConfig",
    "DimLink",
    "DpAllReduceOrder",
    "OverlapClass",
    "TrainingConfig",
    "WorkloadSystem",
    "load_workload_system",
]

TFLOPS = 1e12  # FLOP/s in one TFLOP/s

OverlapClass = Literal["D", "P"]
"""A parallelism whose traffic may hide under compute (eq. 10): data-parallel or pipeline."""

DpAllReduceOrder = Literal["De-first", "C-first"]
DP_ALL_REDUCE_ORDERS: tuple[str, ...] = get_args(DpAllReduceOrder)
"""Level order of the hierarchical DP all-reduces (D.vocab over E x De, D.qkv over C x E x De, D.ffn
over C x De): "De-first" reduce-scatters over the data-parallel replicas first (De, then E, then C),
so the context level carries 1/(E De) of the gradients, as the RailX paper's Fig. 16 discussion charges
DP traffic to the DP ports; "C-first" runs the levels in rank order (C, E, De)."""


class AxisMapping(Strict):
    """A parallelism dimension on `ports` ports per chip edge of physical axis `axis`, wired as
    rings or as rail-ring all-to-all."""

    axis: Literal["x", "y"]
    ports: int = Field(ge=0, examples=[1])
    kind: Literal["ring", "all-to-all"] = "ring"


class ChipConfig(Strict):
    """The chip's sustained dense-matmul throughput."""

    sustained_tflops: float = Field(gt=0, allow_inf_nan=False, examples=[400.0])

    @property
    def flops_per_s(self) -> float:
        """Sustained FLOP/s."""
        return self.sustained_tflops * TFLOPS


_DEFAULT_OVERLAP: list[OverlapClass] = ["D"]
"""Data-parallel traffic hides under the backward pass unless a file says otherwise."""


class TrainingConfig(Strict):
    """Batch shape, which parallelisms' traffic overlaps compute (eq. 10), and the level order of the
    DP all-reduces (see :data:`DP_ALL_REDUCE_ORDERS`)."""

    micro_batch: int = Field(default=1, gt=0)
    micro_batches: int = Field(default=1, gt=0)
    sequence: int = Field(default=4096, gt=0)
    dtype_bytes: int = Field(default=2, gt=0, le=8)
    overlap: list[OverlapClass] = Field(default_factory=lambda: _DEFAULT_OVERLAP.copy())
    dp_all_reduce_order: DpAllReduceOrder = Field(default="De-first", examples=["De-first"])


class DimLink(Strict):
    """What one parallelism dimension gets: per-rank bandwidth per direction, step latency, kind."""

    bw_bytes_per_s: float
    alpha_s: float
    kind: Literal["ring", "all-to-all"]
    place: str


_DEFAULT_MAPPING: dict[Dim, Literal["mesh"] | AxisMapping] = {"T": "mesh"}
"""Tensor parallelism on the mesh unless a file maps it."""


class WorkloadSystem(Strict):
    """A whole workload-system file."""

    system: SystemConfig
    chip: ChipConfig
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    mapping: dict[Dim, Literal["mesh"] | AxisMapping] = Field(default_factory=lambda: _DEFAULT_MAPPING.copy())

    @property
    def chips(self) -> int:
        """Chips in the plant: P * Q * m^2."""
        return self.system.plant()["chips"]

    def parallelism(self, T: int = 1, C: int = 1, E: int = 1, D: int = 1, P: int = 1) -> Parallelism:
        """The parallelism with this file's batch shape."""
        t = self.training
        return Parallelism(
            T=T,
            C=C,
            E=E,
            D=D,
            P=P,
            micro_batch=t.micro_batch,
            micro_batches=t.micro_batches,
            sequence=t.sequence,
            dtype_bytes=t.dtype_bytes,
        )

    def axis_ports(self) -> dict[str, int]:
        """Ports per chip edge of each axis (n for x and y)."""
        return {"x": self.system.n, "y": self.system.n}

    def check(self, par: Parallelism) -> None:
        """The parallelism fills the chips, every dimension with more than one rank is mapped, the
        mesh holds what is mapped on it and no axis gives out more than n ports."""
        if par.ranks != self.chips:
            raise ConfigError(
                f"parallel: T*C*D*P = {par.T}*{par.C}*{par.D}*{par.P} = {par.ranks} must equal the system's "
                f"{self.chips} chips (grid x m^2); e.g. D = {max(1, self.chips // (par.T * par.C * par.P))}"
            )
        mesh_ranks = 1
        used = {"x": 0, "y": 0}
        for dim in DIMS:
            size, where = par.size(dim), self.mapping.get(dim)
            if size > 1 and where is None:
                raise ConfigError(
                    f'mapping.{dim}: {dim} = {size} needs a place; e.g. {dim} = {{ axis = "x", ports = 1 }} or {dim} = "mesh"'
                )
            if where == "mesh":
                mesh_ranks *= size
            elif isinstance(where, AxisMapping):
                used[where.axis] += where.ports
                if size > 1 and where.ports == 0:
                    raise ConfigError(
                        f"mapping.{dim}.ports = 0: {dim} = {size} needs at least one port; e.g. ports = 1"
                    )
        if mesh_ranks > self.system.m**2:
            raise ConfigError(
                f"mapping: dimensions on the mesh hold {mesh_ranks} ranks > m^2 = {self.system.m**2} chips of a node; move one to an axis"
            )
        for axis, count in used.items():
            if count > self.system.n:
                raise ConfigError(
                    f"mapping: ports on axis {axis} add up to {count} > n = {self.system.n}; lower some ports"
                )

    def link(self, dim: Dim, ports: float | None = None) -> DimLink:
        """Bandwidth and latency a rank has in dimension `dim` (`ports` overrides the mapping's):
        the mesh link (intra_bw) on the mesh; ports * port_bw / m on an axis, since the m chips along
        a rail share it."""
        where = self.mapping.get(dim, "mesh")
        s = self.system
        if where == "mesh":
            return DimLink(bw_bytes_per_s=s.intra_bw_Bps, alpha_s=s.alpha_in_ns * NS, kind="ring", place="mesh")
        n = where.ports if ports is None else ports
        return DimLink(
            bw_bytes_per_s=n * s.port_bw_GBps * GBPS / s.m,
            alpha_s=s.alpha_out_ns * NS,
            kind=where.kind,
            place=f"{where.axis}:{n}",
        )

    def with_ports(self, ports: Mapping[Dim, int]) -> WorkloadSystem:
        """A copy with other port counts for some axis-mapped dimensions."""
        mapping = dict(self.mapping)
        for dim, n in ports.items():
            where = mapping.get(dim)
            if not isinstance(where, AxisMapping):
                raise ConfigError(
                    f'mapping.{dim}: {dim} is not on an axis, so it has no ports to set; e.g. {dim} = {{ axis = "x", ports = {n} }}'
                )
            mapping[dim] = where.model_copy(update={"ports": n})
        return self.model_copy(update={"mapping": mapping})


def load_workload_system(path: str | Path) -> WorkloadSystem:
    """Reads and validates a workload-system TOML file."""
    path = Path(path)
    data = read_toml(path, f"--system {path}")
    try:
        return WorkloadSystem.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {one_line_error(exc, WorkloadSystem)}") from None
