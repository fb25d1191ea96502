"""Type stubs of `railx._core`, the compiled binding over the Rust core (crates/railx-py).

Structured results cross as JSON text (parsed on the Python side) or as dicts of scalars and
NumPy arrays; the TypedDicts below describe those dicts. They exist only for type checking
(`type_check_only`): import them under `typing.TYPE_CHECKING`. `python -m mypy.stubtest
railx._core` checks these signatures against the compiled module.
"""

from collections.abc import Callable, Sequence
from typing import Literal, TypedDict, final, type_check_only

import numpy as np
import numpy.typing as npt
from typing_extensions import NotRequired

__all__ = [
    "RailxError",
    "ConfigError",
    "VerificationError",
    "InternalError",
    "Cancelled",
    "System",
    "flow_simulate",
    "flow_symmetric_traffic",
    "flow_collective",
    "flow_collectives",
    "validate_config",
    "verify_ocs",
    "build_estimate",
    "hamiltonian_rails",
    "max_scale",
    "peer_bom",
    "railx_config_bom",
    "railx_layout_json",
    "railx_plant_json",
    "scalability",
    "collective_plan",
    "collective_counts",
    "collective_dag",
    "collective_check",
    "flit_collective",
    "flit_preset",
    "flit_simulate",
    "flit_sweep",
]

class RailxError(Exception):
    """Base of railx's errors; each message is one line."""

class ConfigError(RailxError):
    """Invalid input: the message names the field, the rule and a valid alternative."""

class VerificationError(RailxError):
    """A verification failed, e.g. an OCS file that does not realise its topology."""

class InternalError(RailxError):
    """An invariant broke inside railx: a bug, not the input's fault."""

class Cancelled(RailxError):
    """A long run stopped because its progress callback returned False."""

_Progress = Callable[[int, int | None, str], bool | None]
"""`progress(done, total, unit)`, called at most 10 times a second; `False` stops the run."""

_DimKind = Literal["local", "ring", "all-to-all"]
"""How a collective group dimension connects its members."""

_GroupDim = tuple[int, _DimKind, str]

_LineAlgo = Literal["ring", "bidir-ring", "direct"]
"""A line's primitive: one-way ring, bidirectional ring, or every rank to every other."""
"""One collective group dimension: (size, kind, axis), innermost first."""

# `System.links()`: one entry per directed link (class: 0 intra-node, 1 optical, 2 copper,
# 3 switch; rail: -1 for none), plus the chip count and one radix per switch. Functional form
# because `class` is a keyword.
_LinkArrays = TypedDict(
    "_LinkArrays",
    {
        "chips": int,
        "switch_radix": npt.NDArray[np.uint32],
        "src": npt.NDArray[np.uint32],
        "dst": npt.NDArray[np.uint32],
        "class": npt.NDArray[np.uint8],
        "bandwidth_Bps": npt.NDArray[np.float64],
        "latency_s": npt.NDArray[np.float64],
        "rail": npt.NDArray[np.int64],
        "lane": npt.NDArray[np.int64],
    },
)

@type_check_only
class LinkArrays(_LinkArrays):
    """`System.links()`."""

@type_check_only
class DagArrays(TypedDict):
    """A message DAG as columns; message i waits for deps[dep_start[i]:dep_start[i + 1]]."""

    src: npt.NDArray[np.uint32]
    dst: npt.NDArray[np.uint32]
    bytes: npt.NDArray[np.uint64]
    delay_s: npt.NDArray[np.float64]
    dep_start: npt.NDArray[np.uint64]
    deps: npt.NDArray[np.uint32]

@type_check_only
class CollectiveCounts(TypedDict):
    """`collective_counts`: the size of a schedule, from its plan."""

    ranks: int
    messages: int
    units_moved: int
    bytes: float

@type_check_only
class PlanLine(TypedDict):
    """One line of a collective plan; `alpha_s` and `bw_Bps` only when measured."""

    dims: list[int]
    size: int
    algo: _LineAlgo
    alpha_s: NotRequired[float]
    bw_Bps: NotRequired[float]

@type_check_only
class CollectivePlan(TypedDict):
    """`collective_plan`: the shape of an algorithm over a group, for the analytic models."""

    ranks: int
    dims: list[_GroupDim]
    rails: list[int]
    lines: list[PlanLine]
    parts: list[list[int]]

@type_check_only
class FlowReport(TypedDict):
    """`flow_simulate`; the utilisation timeline only when `bins` > 0."""

    completion_s: float
    flows: int
    messages: int
    events: int
    start_s: npt.NDArray[np.float64]
    arrival_s: npt.NDArray[np.float64]
    resource_of_link: npt.NDArray[np.uint32]
    resource_capacity_Bps: npt.NDArray[np.float64]
    # resources x bins.
    utilisation: NotRequired[npt.NDArray[np.float32]]
    mean_utilisation: NotRequired[npt.NDArray[np.float64]]
    bin_s: NotRequired[float]

@type_check_only
class FlowCollective(TypedDict):
    """`flow_collective` / `flow_collectives`: completion (the run's and each job's, in the
    order of the jobs) and the size of the (possibly aggregated) run."""

    completion_s: float
    job_completion_s: npt.NDArray[np.float64]
    flows: int
    messages: int
    events: int
    aggregated: bool
    orbit: int

@type_check_only
class FlitRun(TypedDict):
    """`flit_simulate`: the report as JSON and the per-link utilisation (network link order)."""

    report: str
    link_utilisation: npt.NDArray[np.float64]

@type_check_only
class FlitCollective(TypedDict):
    """`flit_collective`: time and the simulator's counters."""

    time_s: float
    cycles: int
    cycle_s: float
    flit_bytes: int
    flit_hops: int
    # The simulator settings used (FlitConfig as JSON).
    settings: str

@final
class System:
    """A system ready for every analysis: a RailX configuration realized from its OCS
    circuits, or a peer built directly."""

    def __new__(cls, spec_json: str) -> System: ...
    @property
    def family(self) -> str: ...
    @property
    def chips(self) -> int: ...
    def railx_chip(self, coords: Sequence[int]) -> int: ...
    def routing_names(self) -> list[str]: ...
    def group_dims(self, job: str | None = None) -> list[_GroupDim]: ...
    def bom_json(self) -> str: ...
    def plan_json(self, progress: _Progress | None = None) -> str: ...
    def ocs_json(self) -> str: ...
    def job_ocs_json(self) -> list[tuple[str, str]]: ...
    def links(self) -> LinkArrays: ...
    def write_network(self, path: str, format: str) -> None: ...
    def route_json(
        self,
        src: int,
        dst: int,
        routing: str | None = None,
        misroutes: int | None = None,
        job: str | None = None,
    ) -> str: ...
    def deadlock_json(
        self,
        routing: str | None = None,
        misroutes: int | None = None,
        job: str | None = None,
        samples: int = 100_000,
        seed: int = 0,
        vcs: int | None = None,
        progress: _Progress | None = None,
    ) -> str: ...
    def route_stats_json(
        self,
        routing: str | None = None,
        misroutes: int | None = None,
        job: str | None = None,
        samples: int = 1_000_000,
        seed: int = 0,
        progress: _Progress | None = None,
    ) -> str: ...
    def measure_lines(
        self,
        sizes: Sequence[int],
        lines: Sequence[tuple[str, Sequence[int], _LineAlgo]],
        routing: str | None = None,
        progress: _Progress | None = None,
    ) -> list[tuple[float, float]]:
        """One step of each line (name for errors, group dimensions, primitive) over ranks numbered
        in mixed radix over `sizes` on chips 0.. in id order, measured on the routed network:
        (alpha_s, bw_Bps per rank and direction) per line."""
    def link_load(
        self, routing: str | None = None, misroutes: int | None = None, job: str | None = None
    ) -> npt.NDArray[np.float64]: ...

def validate_config(config_json: str) -> None: ...
def verify_ocs(ocs_json: str, config_json: str | None = None) -> str: ...
def build_estimate(spec_json: str) -> tuple[float, float]: ...
def hamiltonian_rails(s: int, allow_matching_rail: bool = False) -> list[list[int]]: ...
def max_scale(m: int, n: int, radix: int) -> str: ...
def peer_bom(spec_json: str) -> str: ...
def railx_config_bom(config_json: str) -> str: ...
def railx_layout_json(config_json: str) -> str: ...
def railx_plant_json(system_json: str) -> str: ...
def scalability(radix: int) -> str: ...
def collective_plan(
    system: System,
    op: str,
    algo: str,
    measure: bool = False,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    cus: Sequence[int] | None = None,
) -> CollectivePlan: ...
def collective_counts(
    system: System,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    job: str | None = None,
    cus: Sequence[int] | None = None,
) -> CollectiveCounts: ...
def collective_dag(
    system: System,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    reduce_s_per_byte: float = 0.0,
    job: str | None = None,
    cus: Sequence[int] | None = None,
) -> DagArrays: ...
def collective_check(
    system: System,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    job: str | None = None,
    cus: Sequence[int] | None = None,
) -> None: ...
def flow_simulate(
    system: System,
    src: npt.NDArray[np.uint32],
    dst: npt.NDArray[np.uint32],
    bytes: npt.NDArray[np.uint64],
    delay_s: npt.NDArray[np.float64],
    dep_start: npt.NDArray[np.uint64],
    deps: npt.NDArray[np.uint32],
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    bins: int = 0,
    symmetric: bool = False,
    progress: _Progress | None = None,
) -> FlowReport: ...
def flow_symmetric_traffic(system: System, kind: str, bytes: int) -> DagArrays: ...
def flow_collective(
    system: System,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    reduce_s_per_byte: float = 0.0,
    routing: str | None = None,
    misroutes: int | None = None,
    cus: Sequence[int] | None = None,
    progress: _Progress | None = None,
) -> FlowCollective: ...

@type_check_only
class CollectiveJobSpec(TypedDict):
    """One job of `flow_collectives`: its collective and its CUs (`chunks` defaults to 1)."""

    op: str
    algo: str
    size_bytes: int
    cus: Sequence[int]
    chunks: NotRequired[int]

def flow_collectives(
    system: System,
    jobs: Sequence[CollectiveJobSpec],
    reduce_s_per_byte: float = 0.0,
    routing: str | None = None,
    misroutes: int | None = None,
    progress: _Progress | None = None,
) -> FlowCollective: ...
def flit_preset(name: str) -> str: ...
def flit_simulate(
    system: System,
    config_json: str,
    traffic_json: str,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    progress: _Progress | None = None,
) -> FlitRun: ...
def flit_sweep(
    system: System,
    config_json: str,
    traffic_json: str,
    loads: Sequence[float],
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    progress: _Progress | None = None,
) -> str: ...
def flit_collective(
    system: System,
    op: str,
    algo: str,
    size_bytes: int,
    chunks: int = 1,
    reduce_s_per_byte: float = 0.0,
    routing: str | None = None,
    misroutes: int | None = None,
    flit_bytes: int = 256,
    cus: Sequence[int] | None = None,
    settings_json: str | None = None,
    progress: _Progress | None = None,
) -> FlitCollective: ...
