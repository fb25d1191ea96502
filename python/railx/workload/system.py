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
configuration). Or, with nothing built, HB domains joined by rails (the Rail-only paper's §V
model; K = N is its ideal, one HB domain of every GPU):

    [hb_domains]
    gpus = 16384                   # N
    size = 256                     # K GPUs per HB domain (a divisor of N)
    hb_tbps = 3.6                  # per-GPU HB bandwidth, each direction (Tb/s)
    nic_gbps = 400                 # per-GPU NIC (rail) bandwidth, each direction (Gb/s)

`[chip]` and `[training]` are the same in every mode.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import Field, InstanceOf, ValidationError, ValidationInfo, field_validator

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
from railx.overrides import apply_overrides
from railx.systems import PRESETS, System, SystemLike, resolve_system
from railx.workload.traffic import DIMS, Dim, Parallelism, Recompute

if TYPE_CHECKING:
    from railx.progress import ProgressCallback

__all__ = [
    "DP_ALL_REDUCE_ORDERS",
    "AxisMapping",
    "ChipConfig",
    "DimLink",
    "DpAllReduceOrder",
    "DpOverlap",
    "HbDomainsConfig",
    "OverlapClass",
    "TrainingConfig",
    "WorkloadSystem",
    "WorkloadSystemLike",
    "as_workload_system",
    "load_workload_system",
]

TFLOPS = 1e12  # FLOP/s in one TFLOP/s

OverlapClass = Literal["D", "P"]
"""A parallelism whose traffic may hide under compute (eq. 10): data-parallel or pipeline."""

DpOverlap = Literal["stage", "layer"]
"""How class D's gradient all-reduces hide (with "D" in `overlap`): "stage", all of a stage's under
the last micro-batch's backward; "layer", per-layer buckets, so the all-reduce of the layer whose
gradients come last (one L/P-th of the stage's) is always exposed and the rest hides under the
backward of the stage's other layers (Calculon's DP overlap)."""

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
    """The chip's sustained dense-matmul throughput, its peak (for HFU and MFU) and memory (for the
    parallelisation search)."""

    sustained_tflops: float = Field(gt=0, allow_inf_nan=False, examples=[400.0])
    peak_tflops: float | None = Field(default=None, gt=0, allow_inf_nan=False, examples=[989.0])
    memory_GB: float | None = Field(default=None, gt=0, allow_inf_nan=False, examples=[80.0])

    @property
    def flops_per_s(self) -> float:
        """Sustained FLOP/s."""
        return self.sustained_tflops * TFLOPS

    @property
    def peak_flops_per_s(self) -> float:
        """Peak FLOP/s, or a one-line error when the file gives none."""
        if self.peak_tflops is None:
            raise ConfigError("chip.peak_tflops: needed for HFU and MFU; e.g. peak_tflops = 989 (H100 dense BF16)")
        return self.peak_tflops * TFLOPS

    @property
    def memory_bytes(self) -> float:
        """Memory per chip in bytes, or a one-line error when the file gives none."""
        if self.memory_GB is None:
            raise ConfigError("chip.memory_GB: needed to search parallelisations; e.g. memory_GB = 80 (H100)")
        return self.memory_GB * 1e9


_DEFAULT_OVERLAP: list[OverlapClass] = ["D"]
"""Data-parallel traffic hides under the backward pass unless a file says otherwise."""


class TrainingConfig(Strict):
    """Batch shape, which parallelisms' traffic overlaps compute (eq. 10), the level order of the
    DP all-reduces (see :data:`DP_ALL_REDUCE_ORDERS`), activation recomputation (:data:`railx.workload.traffic.Recompute`),
    the pipeline interleaving (model chunks per stage), how the DP all-reduces hide
    (:data:`DpOverlap`) and whether the pipeline bubble carries communication."""

    micro_batch: int = Field(default=1, gt=0)
    micro_batches: int = Field(default=1, gt=0)
    sequence: int = Field(default=4096, gt=0)
    dtype_bytes: int = Field(default=2, gt=0, le=8)
    overlap: list[OverlapClass] = Field(default_factory=lambda: _DEFAULT_OVERLAP.copy())
    dp_all_reduce_order: DpAllReduceOrder = Field(default="De-first", examples=["De-first"])
    recompute: Recompute = Field(default="none", examples=["selective"])
    interleave: int = Field(default=1, gt=0)
    dp_overlap: DpOverlap = Field(default="stage", examples=["layer"])
    bubble_comm: bool = False
    """True: the (P - 1)/v fill-and-drain slots of the pipeline carry a micro-batch's exposed
    communication as well as its compute (Calculon's bubble); False: compute only."""


class DimLink(Strict):
    """What one parallelism dimension gets: per-rank bandwidth per direction, step latency, kind.

    `domain_ranks` > 1 marks a dimension whose group spans several high-bandwidth domains with
    `domain_ranks` members in each: its reduce-scatters, all-gathers and all-reduces run
    hierarchically, inside each domain first (at `domain_bw_bytes_per_s`, step `domain_alpha_s`,
    direct) and then across the domains (at `bw_bytes_per_s`), as the Rail-only paper's eq. 1;
    its point-to-point, ring and all-to-all traffic is charged at the slower `bw_bytes_per_s`
    (the cross-domain hop is on its critical path)."""

    bw_bytes_per_s: float
    alpha_s: float
    kind: Literal["ring", "all-to-all"]
    place: str
    domain_ranks: int = 1
    domain_bw_bytes_per_s: float = 0.0
    domain_alpha_s: float = 0.0


TBPS = 1e12 / 8  # bytes/s in one Tb/s
GBITPS = 1e9 / 8  # bytes/s in one Gb/s


class HbDomainsConfig(Strict):
    """N GPUs in HB domains of K, each GPU with `hb_tbps` into its domain's switch and `nic_gbps`
    into its rail's switch (each direction): the Rail-only paper's §V system, with nothing built.
    K = N is its ideal (one full-bisection HB domain). Latencies default to 0, as the paper's
    bandwidth-only analysis (§III-B)."""

    gpus: int = Field(gt=0, examples=[16384])
    size: int = Field(gt=0, examples=[256])
    hb_tbps: float = Field(gt=0, allow_inf_nan=False, examples=[3.6])
    nic_gbps: float = Field(gt=0, allow_inf_nan=False, examples=[400.0])
    hb_alpha_us: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    nic_alpha_us: float = Field(default=0.0, ge=0, allow_inf_nan=False)

    @field_validator("size")
    @classmethod
    def _divides(cls, size: int, info: ValidationInfo) -> int:
        gpus = info.data.get("gpus")
        if gpus is not None and gpus % size:
            divisors = [k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256) if gpus % k == 0]
            raise ValueError(f"must divide gpus = {gpus} (HB domains of equal size); e.g. size = {divisors[-1]}")
        return size

    def describe(self) -> str:
        """One line: N, K and the bandwidths."""
        kind = "ideal: one HB domain" if self.size == self.gpus else f"Rail-only, HB domains of {self.size}"
        return f"{self.gpus} GPUs, {kind}, HB {self.hb_tbps:g} Tb/s, NIC {self.nic_gbps:g} Gb/s per GPU"

    def links(self, par: Parallelism) -> dict[Dim, DimLink]:
        """Each dimension's link. Ranks are numbered over [T, C, E, De, P] (T innermost) and an HB
        domain is K consecutive ranks, so a dimension of p ranks at stride s (the product of the
        sizes inside it) lies in one domain when s p <= K, across p domains on one rail when K
        divides s, and otherwise with K/s members in each of p s/K domains. Both networks are
        switches: a rank sends at its full port rate C. The collective formulas take the bandwidth
        per direction of a two-way dimension, so collectives get C/2 (a reduce-scatter then takes
        (p-1)/p V / C, eq. 1), and a pipeline send (one message) gets C."""
        hb_Bps, nic_Bps = self.hb_tbps * TBPS, self.nic_gbps * GBITPS
        hb_alpha, nic_alpha = self.hb_alpha_us * 1e-6, self.nic_alpha_us * 1e-6
        out: dict[Dim, DimLink] = {}
        stride = 1
        for dim in DIMS:
            p = par.size(dim)
            share = 1.0 if dim == "P" else 0.5
            if p == 1 or stride * p <= self.size:  # one rank communicates with nobody
                out[dim] = DimLink(bw_bytes_per_s=hb_Bps * share, alpha_s=hb_alpha, kind="all-to-all", place="HB")
            elif stride % self.size == 0:
                out[dim] = DimLink(bw_bytes_per_s=nic_Bps * share, alpha_s=nic_alpha, kind="all-to-all", place="rail")
            elif self.size % stride == 0 and p % (self.size // stride) == 0:
                inside = self.size // stride
                out[dim] = DimLink(
                    bw_bytes_per_s=nic_Bps * share,
                    alpha_s=nic_alpha,
                    kind="all-to-all",
                    place=f"HB {inside} x rail {p // inside}",
                    domain_ranks=inside,
                    domain_bw_bytes_per_s=hb_Bps * share,
                    domain_alpha_s=hb_alpha,
                )
            else:
                raise ConfigError(
                    f"parallel.{dim} = {p}: its groups (stride {stride}) do not tile HB domains of {self.size} "
                    f"(need stride x {dim} <= {self.size}, or {self.size} dividing the stride, or {dim} a multiple "
                    f"of {self.size}/stride); e.g. powers of two for every size"
                )
            stride *= p
        return out


_DEFAULT_MAPPING: dict[Dim, Literal["mesh"] | AxisMapping] = {"T": "mesh"}
"""Tensor parallelism on the mesh unless a file maps it."""


class WorkloadSystem(Strict):
    """A whole workload-system file: where the job runs (a RailX plant with its `mapping`, the
    RailX paper's port model; or any system, measured on its routed network), the chip and the
    training batch."""

    system: SystemConfig | InstanceOf[System] | str | None = Field(default=None, examples=["tpuv4"])
    """A `[system]` plant; a preset name or system file; or (from Python) a :class:`railx.System`,
    used as it is (see :func:`as_workload_system`)."""
    hb_domains: HbDomainsConfig | None = None
    peer: dict[str, Any] | None = Field(default=None, validate_default=True)
    topology: TopologyConfig | None = None
    routing: str | None = Field(default=None, examples=["minimal"])
    chip: ChipConfig
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    mapping: dict[Dim, Literal["mesh"] | AxisMapping] = Field(default_factory=lambda: _DEFAULT_MAPPING.copy())

    @field_validator("peer")
    @classmethod
    def _one_system(cls, peer: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if "system" not in info.data or "hb_domains" not in info.data:
            return peer  # `system` or `hb_domains` itself failed and says why
        given = [
            name
            for name, value in (
                ("system", info.data["system"]),
                ("[hb_domains]", info.data["hb_domains"]),
                ("[peer]", peer),
            )
            if value is not None
        ]
        if len(given) > 1:
            times = "twice" if len(given) == 2 else f"{len(given)} times"
            raise ValueError(f"the system is given {times}, as {' and as '.join(given)}; keep one")
        if not given:
            raise ValueError(
                'no system given: add a [system] plant, system = "<preset or file>", a [peer] or an [hb_domains] table; '
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
        if routing is not None and info.data.get("hb_domains") is not None:
            raise ValueError("an [hb_domains] system is priced by its bandwidths and routes nothing; drop routing")
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
        if self.hb_domains is not None:
            raise ConfigError(
                "hb_domains: an [hb_domains] system is priced by its bandwidths; nothing is built or routed"
            )
        if isinstance(self.system, System):
            return self.system
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
        if self.hb_domains is not None:
            return self.hb_domains.describe()
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
        """Chips in the system: P * Q * m^2 of a RailX plant, [hb_domains] gpus, or the built system's."""
        if self.hb_domains is not None:
            return self.hb_domains.gpus
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
            interleave=t.interleave,
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

    def links(self, par: Parallelism, progress: ProgressCallback | None = None) -> dict[Dim, DimLink]:
        """What each dimension of `par` gets: from the mapping (:meth:`link`) on a mapped plant, from
        the bandwidths of an [hb_domains] system (:meth:`HbDomainsConfig.links`), else measured on the
        system's routed network (:func:`railx.workload.routed.routed_links`, which tells `progress`
        the lines measured)."""
        if self.hb_domains is not None:
            return self.hb_domains.links(par)
        if self.mapped:
            return {d: self.link(d) for d in DIMS}
        from railx.workload.routed import routed_links

        return routed_links(self.network_system(), par, self.routing, progress)

    def link(self, dim: Dim, ports: float | None = None) -> DimLink:
        """Bandwidth and latency a rank has in dimension `dim` (`ports` overrides the mapping's):
        a chip edge's n mesh lanes (n * intra_bw) on the mesh; ports * port_bw / m on an axis, since
        the m chips along a rail share it."""
        where = self.mapping.get(dim, "mesh")
        s = self.plant()
        if where == "mesh":
            return DimLink(bw_bytes_per_s=s.mesh_edge_bw_Bps, alpha_s=s.alpha_in_ns * NS, kind="ring", place="mesh")
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


WorkloadSystemLike = WorkloadSystem | SystemLike
"""What the workload models take as a system: a :class:`WorkloadSystem` (as read from a file), or
any system every other analysis takes (:data:`railx.systems.SystemLike`: a `railx.System`, a
realized `railx.Network`, a preset name or a system file), or a workload-system file (a TOML
file with a `[chip]` table)."""


def as_workload_system(
    system: WorkloadSystemLike,
    chip: ChipConfig | Mapping[str, Any] | None = None,
    training: TrainingConfig | Mapping[str, Any] | None = None,
    routing: str | None = None,
) -> WorkloadSystem:
    """`system` as a :class:`WorkloadSystem`. A WorkloadSystem, or the path of a workload-system
    file (a TOML file with a `[chip]` table), carries its chip and training: it is returned (read)
    as it is. Any other system is resolved as every analysis resolves one
    (:meth:`railx.System.resolve`; a realized network's built graph is shared) and measured on its
    routed network by `routing` (None: the family's default), with `chip` (required: at least
    `sustained_tflops`) and `training` (default: :class:`TrainingConfig`'s)."""
    if not isinstance(system, WorkloadSystem):
        from_file = _workload_file(system)
        if from_file is None:
            return _on_system(system, chip, training, routing)
        system = from_file
    given = [
        name for name, value in (("chip", chip), ("training", training), ("routing", routing)) if value is not None
    ]
    if given:
        raise ConfigError(
            f"{given[0]}: the workload system already sets its chip, training and routing; "
            f"drop {given[0]}=, or pass a system without them (a preset, a system file, a railx.System)"
        )
    return system


def _on_system(
    system: SystemLike,
    chip: ChipConfig | Mapping[str, Any] | None,
    training: TrainingConfig | Mapping[str, Any] | None,
    routing: str | None,
) -> WorkloadSystem:
    """A bare system (as every analysis resolves one) with its chip, training and routing."""
    if chip is None:
        raise ConfigError(
            "chip: a workload on a system needs the chip's sustained throughput; e.g. chip={'sustained_tflops': 400}"
        )
    document = {"system": System.resolve(system), "chip": chip, "training": training or {}, "routing": routing}
    try:
        return WorkloadSystem.model_validate(document)
    except ValidationError as exc:
        raise ConfigError(one_line_error(exc, WorkloadSystem)) from None


def _workload_file(system: object) -> WorkloadSystem | None:
    """The workload system of a TOML file with a `[chip]` table that `system` names, else None
    (a preset, a system file, an object)."""
    if not isinstance(system, (str, os.PathLike)) or os.fspath(system) in PRESETS:
        return None
    path = Path(system)
    if path.suffix != ".toml" or not path.is_file():
        return None
    data = read_toml(path, f"system = {os.fspath(system)!r}")
    return _from_document(data, path) if "chip" in data else None


def load_workload_system(path: str | Path, overrides: Sequence[str] | None = None) -> WorkloadSystem:
    """Reads and validates a workload-system TOML file, with `KEY=VALUE` `overrides` of its fields
    applied first (railx.overrides); a system file it names is read relative to it, and the system
    must exist and be valid (a preset, a readable and valid file, a valid [peer] table or RailX
    configuration)."""
    path = Path(path)
    return _from_document(apply_overrides(read_toml(path, f"--system {path}"), overrides or ()), path)


def _from_document(data: dict[str, Any], path: Path) -> WorkloadSystem:
    """The workload system of file `path`'s document `data`, validated (see load_workload_system)."""
    try:
        ws = WorkloadSystem.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {one_line_error(exc, WorkloadSystem)}") from None
    if isinstance(ws.system, str):
        name = ws.system
        if name not in PRESETS and Path(name).suffix and not Path(name).is_absolute():
            name = str(path.parent / name)
        ws = ws.model_copy(update={"system": name})
    if not ws.mapped and ws.hb_domains is None:
        try:
            ws.network_system().bom()  # validates the system now (by counting; nothing is built)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None
    return ws
