"""Flit-level, cycle-based network simulation (RailX paper §6.1.2, A.6): the Rust core's
simulator on any system railx knows (a RailX configuration, a `[peer]` file or a preset), with
its own routing functions. Thin, typed wrappers; see docs/simulation.md for the model."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np

from railx._core import Cancelled, RailxError, flit_preset, flit_simulate, flit_sweep
from railx.config import ConfigError, is_one_of
from railx.messages import shown
from railx.progress import ProgressCallback
from railx.systems import System, SystemLike

__all__ = [
    "FlitSettings",
    "TrafficName",
    "TRAFFIC",
    "TRAFFIC_ALIASES",
    "canonical_traffic",
    "INJECTION_QUEUES",
    "SWITCH_ALLOCATION",
    "FLOW_CONTROL",
    "ARBITRATION",
    "LINK_LATENCY",
    "PRESETS",
    "SATURATED_BELOW",
    "simulate",
    "sweep",
    "sweep_summary",
    "step_saturation",
    "injection_bandwidth",
    "parse_injection_queues",
    "parse_switch_allocation",
    "parse_flow_control",
    "parse_arbitration",
    "parse_link_latency",
    "preset_settings",
    "preset_routing",
    "chip_link_bandwidth",
]

TrafficName = Literal["uniform", "all-to-all", "permutation", "hotspot"]
InjectionQueuesName = Literal["single", "per-message"]
INJECTION_QUEUES: tuple[InjectionQueuesName, ...] = ("single", "per-message")
SwitchAllocationName = Literal["packet", "flit"]
FlowControlName = Literal["cut-through", "wormhole"]
FLOW_CONTROL: tuple[FlowControlName, ...] = ("cut-through", "wormhole")
SWITCH_ALLOCATION: tuple[SwitchAllocationName, ...] = ("packet", "flit")
VcAllocationName = Literal["with-switch", "ahead"]
VC_ALLOCATION: tuple[VcAllocationName, ...] = ("with-switch", "ahead")
InputPaceName = Literal["link", "output"]
INPUT_PACE: tuple[InputPaceName, ...] = ("link", "output")
EjectionName = Literal["port", "on-arrival"]
EJECTION: tuple[EjectionName, ...] = ("port", "on-arrival")
LinkLatencyName = Literal["flits", "head"]
LINK_LATENCY: tuple[LinkLatencyName, ...] = ("flits", "head")
ArbitrationName = Literal["round-robin", "oldest"]
ARBITRATION: tuple[ArbitrationName, ...] = ("round-robin", "oldest")
PresetName = Literal["table5", "cnsim"]
PRESETS: tuple[PresetName, ...] = ("table5", "cnsim")
TRAFFIC: tuple[TrafficName, ...] = ("uniform", "all-to-all", "permutation", "hotspot")
DEFAULT_LOAD = 0.1  # offered flits/cycle/chip of a single run
# The spelling of earlier releases, still accepted on input (reports use the canonical one).
TRAFFIC_ALIASES: dict[str, TrafficName] = {"alltoall": "all-to-all"}


@dataclass
class FlitSettings:
    """Simulator parameters; the defaults are the RailX paper's Table 5. `injection_flits_per_cycle`
    None means the system's ports per chip (one flit/cycle each), as in the paper's Fig. 14.
    `vcs_per_class` physical VCs (each with `buffer_flits`) stand behind every VC the routing
    function names; a packet is allocated any free one of its class (1: the routing's VCs taken
    literally). `router_delay_cycles`: cycles from a packet's head reaching a router to its first
    chance to leave. `head_delay_cycles`: idle cycles between packets leaving one input VC (the
    next routed and allocated only once it is at the head: one per pipeline stage before switch
    allocation; 0 a pipelined router). BookSim2's router as issue 7's reference ran it is
    `router_delay_cycles=2, head_delay_cycles=1, switch_allocation="flit",
    flow_control="wormhole"` with the torus routing "dateline-partition" (docs/simulation.md).
    `injection_queues` is how a chip queues its packets before injection: "single" (one FIFO, as
    BookSim2's source queue; what is accepted keeps the offered pattern) or "per-message" (a
    queue per message, up to 64: messages leave side by side). `switch_allocation` is what the
    switch allocator grants: "packet" (a whole packet holds its input and output) or "flit"
    (each flit on its own, BookSim2's router: flits of different VCs interleave on a port).
    `flow_control`: "cut-through" (a packet takes a VC with room for all of it) or, with flit
    allocation, "wormhole" (a free VC with room for one flit, as BookSim2's default).
    `switch_speedup` s > 1 makes the crossbar s times faster than the links, a packet crossing
    into its output's queue of `output_buffer_flits` while the link still sends (a combined
    input-output queued router; 1: input-queued, as Table 5 and BookSim2). `arbitration`: which
    request wins an input or output, "round-robin" or "oldest" (the packet generated first, as
    CNSim allocates). `packetization_cycles`: cycles a new packet waits at its source before it
    may be routed, besides `router_delay_cycles`. `link_latency`: what a link's latency delays,
    "flits" (every flit and credit: a pipelined wire) or "head" (only the head's routing at the
    next router; flits enter the buffer as sent, credits return at once: CNSim's model).
    `vc_allocation`: "with-switch" (a packet takes the free output whose VC has most room) or
    "ahead" (CNSim: the first empty VC, else the first with room, held while the packet waits for
    that output). `input_pace`: how long a packet holds its input port, "link" (at the input
    link's rate) or "output" (CNSim: until its tail has left, at the output's pace). `ejection`:
    how a packet leaves at its destination, "port" (it queues in its input VC there and leaves
    through the ejection port) or "on-arrival" (CNSim: never queued there, delivered and its
    credits returned once its head's latency has passed and its tail is in).
    `preset_settings("cnsim", system)` configures
    the simulator as the RailX authors' simulator runs (docs/simulation.md, Against CNSim)."""

    packet_flits: int = 4
    buffer_flits: int = 16
    router_delay_cycles: int = 1
    head_delay_cycles: int = 0
    vcs_per_class: int = 1
    arbitration: ArbitrationName = "round-robin"
    packetization_cycles: int = 0
    alloc_iterations: int = 1
    switch_allocation: SwitchAllocationName = "packet"
    flow_control: FlowControlName = "cut-through"
    switch_speedup: int = 1
    output_buffer_flits: int = 16
    link_latency: LinkLatencyName = "flits"
    vc_allocation: VcAllocationName = "with-switch"
    input_pace: InputPaceName = "link"
    ejection: EjectionName = "port"
    short_latency_cycles: int = 1
    long_latency_cycles: int = 10
    injection_flits_per_cycle: float | None = None
    injection_queues: InjectionQueuesName = "single"
    warmup_cycles: int = 5000
    measure_cycles: int = 10000
    max_cycles: int = 10_000_000
    watchdog_cycles: int = 1000
    flit_bytes: int = 64
    threads: int = 1
    seed: int = 0


@dataclass
class _Traffic:
    pattern: str
    load: float = 0.0
    permutation: str = "random"
    hotspot_chips: list[int] = field(default_factory=list)
    hotspot_fraction: float = 0.2
    size_flits: int | None = None

    @classmethod
    def of(
        cls,
        pattern: TrafficName,
        load: float,
        permutation: str | None,
        hotspot_chips: list[int] | None,
        hotspot_fraction: float | None,
        size_flits: int | None = None,
    ) -> _Traffic:
        """The pattern with its options; an option given (not None) that `pattern` does not take
        is a one-line ConfigError rather than silently ignored."""
        takes = {
            "permutation": (permutation, "permutation"),
            "hotspot_chips": (hotspot_chips, "hotspot"),
            "hotspot_fraction": (hotspot_fraction, "hotspot"),
            "size_flits": (size_flits, "all-to-all"),
        }
        for name, (value, owner) in takes.items():
            if value is not None and pattern != owner:
                raise ConfigError(
                    f"{name} = {shown(value)}: only traffic {owner} takes it, not {pattern}; "
                    f"add --traffic {owner}, or drop --{name.replace('_', '-')}"
                )
        spec = cls(pattern, load, size_flits=size_flits)
        spec.permutation = spec.permutation if permutation is None else permutation
        spec.hotspot_chips = spec.hotspot_chips if hotspot_chips is None else hotspot_chips
        spec.hotspot_fraction = spec.hotspot_fraction if hotspot_fraction is None else hotspot_fraction
        return spec


def injection_bandwidth(system: System) -> float:
    """A chip's injection bandwidth in flits/cycle: its ports, one flit/cycle each."""
    return float(system.bom()["ports_per_chip"])


_Choice = TypeVar("_Choice", bound=str)


def _choice(name: str, value: str, allowed: tuple[_Choice, ...], what: str) -> _Choice:
    if not is_one_of(value, allowed):
        raise ConfigError(f"{name} = {shown(value)}: unknown {what}; use {' or '.join(allowed)}")
    return value


def parse_injection_queues(value: str) -> InjectionQueuesName:
    """A `FlitSettings.injection_queues` from text; a one-line ConfigError if unknown."""
    return _choice("injection_queues", value, INJECTION_QUEUES, "queueing")


def parse_switch_allocation(value: str) -> SwitchAllocationName:
    """A `FlitSettings.switch_allocation` from text; a one-line ConfigError if unknown."""
    return _choice("switch_allocation", value, SWITCH_ALLOCATION, "switch allocation")


def parse_flow_control(value: str) -> FlowControlName:
    """A `FlitSettings.flow_control` from text; a one-line ConfigError if unknown."""
    return _choice("flow_control", value, FLOW_CONTROL, "flow control")


def _finite_json(fields: dict[str, Any]) -> str:
    """The fields as JSON for the core; a NaN or infinite number (which JSON cannot carry) is a
    one-line ConfigError naming its field."""
    for name, value in fields.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{name} = {value}: must be a finite number; e.g. --{name.replace('_', '-')} 0.1")
    return json.dumps(fields)


def parse_arbitration(value: str) -> ArbitrationName:
    """A `FlitSettings.arbitration` from text; a one-line ConfigError if unknown."""
    return _choice("arbitration", value, ARBITRATION, "arbitration")


def parse_link_latency(value: str) -> LinkLatencyName:
    """A `FlitSettings.link_latency` from text; a one-line ConfigError if unknown."""
    return _choice("link_latency", value, LINK_LATENCY, "link latency model")


def chip_link_bandwidth(system: System) -> float:
    """The most a chip's outgoing links carry together, in flits/cycle (the slowest link 1 flit/cycle):
    what a chip can inject when, as in CNSim, packets leave the source straight onto its links."""
    net = system.network()
    rate = net["bandwidth_Bps"] / float(np.min(net["bandwidth_Bps"]))
    chips = system.chips
    src = net["src"]
    per_chip = np.bincount(src[src < chips], weights=rate[src < chips], minlength=chips)
    return float(per_chip.max())


def preset_settings(name: str, system: System | str, *, threads: int = 1, seed: int = 0) -> FlitSettings:
    """The simulator settings of a named preset: "table5" (the RailX paper's Table 5, railx's
    defaults) or "cnsim" (the RailX authors' simulator as it runs a RailX network: a one-stage
    router, 2 cycles of packetization, a link latency on the head alone, oldest-first allocation
    to a maximal matching, VC allocation ahead of the switch, input ports held at the output's
    pace, no source FIFO, no injection port of its own, delivery on arrival, 500 + 1,000 cycles;
    docs/simulation.md, Against CNSim). Run "cnsim" with
    `routing=preset_routing("cnsim")`."""
    try:
        config = json.loads(flit_preset(name))
    except RailxError as exc:
        raise ConfigError(str(exc)) from None
    fields = {f.name for f in dataclasses.fields(FlitSettings)}
    settings = FlitSettings(**{k: v for k, v in config.items() if k in fields})
    settings.threads, settings.seed = threads, seed
    settings.injection_flits_per_cycle = chip_link_bandwidth(System.resolve(system)) if name == "cnsim" else None
    return settings


def preset_routing(name: str) -> str | None:
    """The routing function a preset runs a RailX network with (None: the system's default)."""
    return "phased" if name == "cnsim" else None


def _settings_json(system: System, settings: FlitSettings) -> str:
    # The fields are typed, but a Python caller may still pass any string.
    parse_arbitration(settings.arbitration)
    parse_link_latency(settings.link_latency)
    _choice("vc_allocation", settings.vc_allocation, VC_ALLOCATION, "VC allocation")
    _choice("input_pace", settings.input_pace, INPUT_PACE, "input port pace")
    _choice("ejection", settings.ejection, EJECTION, "ejection")
    parse_injection_queues(settings.injection_queues)
    parse_switch_allocation(settings.switch_allocation)
    parse_flow_control(settings.flow_control)
    config = asdict(settings)
    if config["injection_flits_per_cycle"] is None:
        config["injection_flits_per_cycle"] = injection_bandwidth(system)
    return _finite_json(config)


def canonical_traffic(traffic: str) -> TrafficName:
    """The canonical name of a traffic pattern given by its canonical or its older name; a
    ConfigError for any other name."""
    if traffic in TRAFFIC_ALIASES:
        return TRAFFIC_ALIASES[traffic]
    if not is_one_of(traffic, TRAFFIC):
        raise ConfigError(f"traffic = {shown(traffic)}: unknown traffic pattern; use {', '.join(TRAFFIC)}")
    return traffic


def simulate(
    system: SystemLike,
    traffic: TrafficName = "uniform",
    load: float = DEFAULT_LOAD,
    *,
    settings: FlitSettings | None = None,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    permutation: str | None = None,
    hotspot_chips: list[int] | None = None,
    hotspot_fraction: float | None = None,
    size_flits: int | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[dict[str, Any], np.ndarray]:
    """One run on `system` (a railx.System, a realized railx.Network, a preset name or a file
    path). Returns the report (offered and accepted flits/cycle/chip, latency {mean, p50, p99,
    max} in cycles, cycles, flits_delivered, completion_cycles for a finite all-to-all
    (`size_flits` per pair), deadlock report, ...) and the per-link utilisation, in the order of
    the system's network links. `load` is offered flits/cycle/chip; `routing` defaults to the
    system's first routing function (minimal for RailX, dateline for tori); `misroutes` is
    RailX adaptive routing's free hops (default 1). `permutation` (default random),
    `hotspot_chips` (default chip 0) and `hotspot_fraction` (default 0.2) belong to the
    permutation and hotspot patterns, `size_flits` to all-to-all: given to another pattern, each
    is a ConfigError. `progress(done, total, unit)` hears, at most
    10 times a second, the cycles run (a rate pattern) or flits delivered (a finite all-to-all);
    returning False stops the run with railx.Cancelled (railx.progress)."""
    pattern = canonical_traffic(traffic)
    sys_ = System.resolve(system)
    spec = _Traffic.of(pattern, load, permutation, hotspot_chips, hotspot_fraction, size_flits)
    config = _settings_json(sys_, settings or FlitSettings())
    traffic_json = _finite_json(asdict(spec))
    try:
        out = flit_simulate(sys_.core, config, traffic_json, routing, misroutes, job, progress)
    except Cancelled:
        raise
    except RailxError as exc:
        raise ConfigError(f"{sys_.name}: {exc}") from None
    return json.loads(out["report"]), out["link_utilisation"]


def sweep(
    system: SystemLike,
    loads: list[float],
    traffic: TrafficName = "uniform",
    *,
    settings: FlitSettings | None = None,
    routing: str | None = None,
    misroutes: int | None = None,
    job: str | None = None,
    permutation: str | None = None,
    hotspot_chips: list[int] | None = None,
    hotspot_fraction: float | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Runs `traffic` at each load: `points` (one report each), `saturation_load` (the first
    offered load of which less than 95% was accepted, or None) and `peak_accepted`. `progress` as
    in :func:`simulate`, counting the cycles of every point."""
    pattern = canonical_traffic(traffic)
    if not loads:
        raise ConfigError("loads = []: a sweep needs at least one load; e.g. 0.1,0.2,0.3")
    sys_ = System.resolve(system)
    spec = _Traffic.of(pattern, 0.0, permutation, hotspot_chips, hotspot_fraction)
    config = _settings_json(sys_, settings or FlitSettings())
    if not all(math.isfinite(load) for load in loads):
        raise ConfigError(f"loads = {loads}: every load must be a finite number; e.g. 0.1,0.2,0.4")
    traffic_json = _finite_json(asdict(spec))
    try:
        out = flit_sweep(sys_.core, config, traffic_json, sorted(loads), routing, misroutes, job, progress)
    except Cancelled:
        raise
    except RailxError as exc:
        raise ConfigError(f"{sys_.name}: {exc}") from None
    return json.loads(out)


#: Accepted fraction of the offered load below which a load point counts as saturated (the
#: core's load sweep applies the same rule: crates/railx-core/src/sim/flit/mod.rs).
SATURATED_BELOW = 0.95


def sweep_summary(points: list[dict[str, Any]]) -> dict[str, Any]:
    """What :func:`sweep` reports, from the reports of load points run one by one (e.g. a
    `railx sweep` of the flit-sim analysis), given in ascending order of load: the points,
    `saturation_load`, the offered load of the first point of which less than 95% was accepted,
    or None; `peak_accepted`, the highest accepted."""
    saturated = [p["offered"] for p in points if p["accepted"] < SATURATED_BELOW * p["offered"]]
    return {
        "points": list(points),
        "saturation_load": saturated[0] if saturated else None,
        "peak_accepted": max((p["accepted"] for p in points), default=0.0),
    }


def step_saturation(
    system: System | str,
    traffic: TrafficName = "uniform",
    *,
    settings: FlitSettings,
    routing: str | None = None,
    step: float = 0.05,
    first_load: float | None = None,
    max_load: float | None = None,
) -> dict[str, Any]:
    """Saturation found as CNSim finds it: offered load raised by `step` (0.05) from `step`, a
    fresh run at each (the settings' warm-up and measured cycles), until the packets delivered in
    the window are fewer than 5 times those still in the network or at their sources at its end
    (a mean time in flight of about a fifth of the window); `peak_accepted` is the highest
    accepted load up to and including that point. `first_load` (a multiple of `step`) skips the
    loads below it, which an unsaturated network accepts whole. Returns `points` (one report each),
    `saturation_load` (None if `max_load`, by default the injection bandwidth, came first) and
    `peak_accepted`."""
    sys_ = System.resolve(system)
    limit = max_load if max_load is not None else settings.injection_flits_per_cycle or injection_bandwidth(sys_)
    if not 0 < step <= limit:
        raise ConfigError(f"step = {step}: must be positive and at most the largest load {limit}; e.g. 0.05")
    points: list[dict[str, Any]] = []
    saturation = None
    index = max(1, round((first_load or step) / step))
    while index * step <= limit + 1e-9:
        load = round(index * step, 9)
        report, _ = simulate(sys_, traffic, load, settings=settings, routing=routing)
        points.append(report)
        in_flight_packets = (report["flits_in_flight"] + report["flits_at_sources"]) / settings.packet_flits
        if report["latency"]["packets"] < 5 * in_flight_packets:
            saturation = load
            break
        index += 1
    return {
        "points": points,
        "saturation_load": saturation,
        "peak_accepted": max((p["accepted"] for p in points), default=0.0),
    }
