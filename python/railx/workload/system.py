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

Or any system railx builds, each parallelism dimension measured on its routed network
(:mod:`railx.workload.routed`): instead of `[system]` plant + `[mapping]`, give

    system = "tpuv4"               # a preset name, or a system file (relative to this file)
    routing = "minimal"            # optional: one of the system's routing functions (default: its first)

or a `[peer]` table (as in a peer system file), or a `[system]` plant with a `[topology]` (a RailX
configuration). `[chip]` and `[training]` are the same in both modes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, ValidationError, ValidationInfo, field_validator

from railx.config import (
    GBPS,
    NS,
    ConfigError,
    Strict,
    SystemConfig,
    TopologyConfig,
    one_line_error,
    read_toml,
)
from railx.systems import PRESETS, System, resolve_system
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
    """A whole workload-system file: where the job runs (a RailX plant with its `mapping`, the
    RailX paper's port model; or any system, measured on its routed network), the chip and the
    training batch."""

    system: SystemConfig | str | None = Field(default=None, examples=["tpuv4"])
    peer: dict[str, Any] | None = Field(default=None, validate_default=True)
    topology: TopologyConfig | None = None
    routing: str | None = Field(default=None, examples=["minimal"])
    chip: ChipConfig
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    mapping: dict[Dim, Literal["mesh"] | AxisMapping] = Field(default_factory=lambda: _DEFAULT_MAPPING.copy())

    @field_validator("peer")
    @classmethod
    def _one_system(cls, peer: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if "system" not in info.data:
            return peer  # `system` itself failed and says why
        if info.data["system"] is not None and peer is not None:
            raise ValueError("the system is given twice, as system and as [peer]; keep one")
        if info.data["system"] is None and peer is None:
            raise ValueError(
                'no system given: add a [system] plant, system = "<preset or file>" or a [peer] table; '
                'e.g. system = "tpuv4"'
            )
        return peer

    @field_validator("topology")
    @classmethod
    def _topology_of_a_plant(cls, topology: TopologyConfig | None, info: ValidationInfo) -> TopologyConfig | None:
        if topology is not None and not isinstance(info.data.get("system"), SystemConfig):
            raise ValueError(
                "a [topology] goes with a [system] plant table (a RailX configuration); drop it, or name a system file"
            )
        return topology

    @field_validator("mapping")
    @classmethod
    def _mapping_of_a_bare_plant(
        cls, mapping: dict[Dim, Literal["mesh"] | AxisMapping], info: ValidationInfo
    ) -> dict[Dim, Literal["mesh"] | AxisMapping]:
        if not _mapped(info.data.get("system"), info.data.get("topology")):
            raise ValueError(
                "places parallelisms on a RailX plant's ports (the paper's model) and needs a [system] plant "
                "without [topology]; drop [mapping] to measure the system's routed network"
            )
        return mapping

    @field_validator("routing")
    @classmethod
    def _routing_of_a_network(cls, routing: str | None, info: ValidationInfo) -> str | None:
        if routing is not None and _mapped(info.data.get("system"), info.data.get("topology")):
            raise ValueError(
                "a [mapping]'s port model routes nothing; give the plant a [topology] to measure it routed, or drop routing"
            )
        return routing

    @property
    def mapped(self) -> bool:
        """Whether the RailX paper's port model prices the dimensions (a `[system]` plant with its
        `[mapping]`, or with neither `[mapping]` nor `[topology]`: T on the mesh), rather than the
        measurement on a routed network."""
        return _mapped(self.system, self.topology)

    def network_system(self) -> System:
        """The system the routed measurement runs on (built once per distinct spec)."""
        if isinstance(self.system, str):
            return _resolved(self.system)
        if self.peer is not None:
            return _peer_system(json.dumps(self.peer, sort_keys=True))
        if self.mapped:
            raise ConfigError(
                "system: a [system] plant with a [mapping] is priced by its ports, not routed; "
                'give it a [topology] (e.g. preset = "torus") to measure it'
            )
        assert isinstance(self.system, SystemConfig) and self.topology is not None
        data = {
            "system": self.system.model_dump(exclude_none=True),
            "topology": self.topology.model_dump(exclude_none=True),
        }
        return _railx_system(json.dumps(data, sort_keys=True))

    def describe(self) -> str:
        """One line naming the system and where its links come from."""
        if self.mapped:
            plant = self.plant().plant()
            grid = "x".join(map(str, plant["grid"]))
            return f"RailX plant m={plant['m']} n={plant['n']} grid {grid}, mapped ports"
        system = self.network_system()
        routing = self.routing or system.routing_names()[0]
        name = system.family if system.name == system.family else f"{system.name} ({system.family})"
        return f"{name}, routed {routing}"

    @property
    def chips(self) -> int:
        """Chips in the system: P * Q * m^2 of a RailX plant, or the built system's."""
        if self.mapped:
            assert isinstance(self.system, SystemConfig)
            return self.system.plant()["chips"]
        return self.network_system().chips

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

    def plant(self) -> SystemConfig:
        """The RailX plant of the mapped model, or a one-line error naming what needs one."""
        if not self.mapped:
            raise ConfigError(
                "system: splitting ports needs a [system] plant with a [mapping] (the RailX paper's port model); "
                "this system is measured on its routed network; e.g. examples/workloads/listing1.toml"
            )
        assert isinstance(self.system, SystemConfig)
        return self.system

    def axis_ports(self) -> dict[str, int]:
        """Ports per chip edge of each axis (n for x and y)."""
        n = self.plant().n
        return {"x": n, "y": n}

    def check(self, par: Parallelism) -> None:
        """The parallelism fills the chips; on a mapped plant also every dimension with more than one
        rank is mapped, the mesh holds what is mapped on it and no axis gives out more than n ports."""
        chips = self.chips
        if par.ranks != chips:
            where = " (grid x m^2)" if self.mapped else ""
            raise ConfigError(
                f"parallel: T*C*D*P = {par.T}*{par.C}*{par.D}*{par.P} = {par.ranks} must equal the system's "
                f"{chips} chips{where}; e.g. D = {max(1, chips // (par.T * par.C * par.P))}"
            )
        if self.mapped:
            self._check_mapping(par)

    def _check_mapping(self, par: Parallelism) -> None:
        plant = self.plant()
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
        if mesh_ranks > plant.m**2:
            raise ConfigError(
                f"mapping: dimensions on the mesh hold {mesh_ranks} ranks > m^2 = {plant.m**2} chips of a node; move one to an axis"
            )
        for axis, count in used.items():
            if count > plant.n:
                raise ConfigError(f"mapping: ports on axis {axis} add up to {count} > n = {plant.n}; lower some ports")

    def links(self, par: Parallelism) -> dict[Dim, DimLink]:
        """What each dimension of `par` gets: from the mapping (:meth:`link`) on a mapped plant,
        else measured on the system's routed network (:func:`railx.workload.routed.routed_links`)."""
        if self.mapped:
            return {d: self.link(d) for d in DIMS}
        from railx.workload.routed import routed_links

        return routed_links(self.network_system(), par, self.routing)

    def link(self, dim: Dim, ports: float | None = None) -> DimLink:
        """Bandwidth and latency a rank has in dimension `dim` (`ports` overrides the mapping's):
        the mesh link (intra_bw) on the mesh; ports * port_bw / m on an axis, since the m chips along
        a rail share it."""
        where = self.mapping.get(dim, "mesh")
        s = self.plant()
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


def _mapped(system: object, topology: object) -> bool:
    return isinstance(system, SystemConfig) and topology is None


@lru_cache(maxsize=16)
def _resolved(name_or_path: str) -> System:
    return resolve_system(name_or_path)


@lru_cache(maxsize=16)
def _peer_system(spec_json: str) -> System:
    peer = json.loads(spec_json)
    family = str(peer.get("family", "peer"))
    return System(family, family, peer=peer)


@lru_cache(maxsize=16)
def _railx_system(config_json: str) -> System:
    return System("railx", "RailX", railx=json.loads(config_json))


def load_workload_system(path: str | Path) -> WorkloadSystem:
    """Reads and validates a workload-system TOML file; a system file it names is read relative to
    it, and the system must exist and be valid (a preset, a readable and valid file, a valid
    [peer] table or RailX configuration)."""
    path = Path(path)
    data = read_toml(path, f"--system {path}")
    try:
        ws = WorkloadSystem.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {one_line_error(exc, WorkloadSystem)}") from None
    if isinstance(ws.system, str):
        name = ws.system
        if name not in PRESETS and Path(name).suffix and not Path(name).is_absolute():
            name = str(path.parent / name)
        ws = ws.model_copy(update={"system": name})
    if not ws.mapped:
        try:
            ws.network_system().bom()  # validates the system now (by counting; nothing is built)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None
    return ws
