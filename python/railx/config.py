"""Configuration files (TOML): a RailX system, its logical topology and optional jobs.

The schema is README.md's Configuration (TOML). Loading validates types, units, positivity and
unknown keys here (pydantic); rules that relate several fields (grid within R/2, factorizations,
rail budgets, decomposition existence, overlapping jobs) are checked by the Rust core, so Python and
Rust users get the same answers. Every failure is a :class:`ConfigError` with a one-line message
that names the field, the rule and a valid alternative.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, TypeGuard, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from railx._core import ConfigError, RailxError, railx_plant_json, validate_config
from railx.atomic import checked_path, make_dir
from railx.files import parse_toml, read_text, read_toml
from railx.messages import shown, shown_name
from railx.overrides import apply_overrides

__all__ = [
    "ConfigError",
    "Config",
    "Strict",
    "one_line_error",
    "parse_bytes",
    "make_dir",
    "output_file",
    "read_text",
    "read_toml",
    "SimConfig",
    "SystemConfig",
    "TopologyConfig",
    "TopologyPreset",
    "TOPOLOGY_PRESETS",
    "DimConfig",
    "is_one_of",
    "JobConfig",
    "JobName",
    "load_config",
]

GBPS = 1e9  # bytes/second in one GB/s
NS = 1e-9  # seconds in one nanosecond


# Byte units, decimal (SI) and binary (IEC), by lower-case name.
BYTE_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
MAX_BYTES = 10**18
MAX_EXPONENT = 40
_BYTE_SIZE = re.compile(r"\s*((?:\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?)\s*([A-Za-z]*)\s*")


_Choice = TypeVar("_Choice", bound=str)


def is_one_of(value: str, allowed: tuple[_Choice, ...]) -> TypeGuard[_Choice]:
    """Whether `value` is one of `allowed` (a Literal type's members), narrowing it to that type
    for the checker; the caller raises its own one-line error when it is not."""
    return value in allowed


def parse_bytes(text: str, field: str) -> int:
    """A byte count written as a number, with a unit or without: ``1048576``, ``1MiB``,
    ``64 KB``, ``1.5GB``, ``1e9``. Decimal units are powers of 1,000, binary ones of 1,024; the
    result must be a whole number of bytes. Raises :class:`ConfigError` naming `field`."""
    match = _BYTE_SIZE.fullmatch(text)
    unit = match.group(3).lower() if match else ""
    if match is None or unit not in BYTE_UNITS:
        raise ConfigError(f"{field} = {shown(text)}: not a byte size; e.g. 1048576, 1MiB or 1.5GB")
    # Bounded before the exact parse, which for an exponent like 1e-999999999 would not end.
    exponent = int(match.group(2) or 0)
    if abs(exponent) > MAX_EXPONENT:
        raise ConfigError(f"{field} = {shown(text)}: exponent {exponent} beyond +-{MAX_EXPONENT}; e.g. 1e9")
    if float(match.group(1)) * BYTE_UNITS[unit] > MAX_BYTES:
        raise ConfigError(f"{field} = {shown(text)}: over {MAX_BYTES:.0e} bytes; e.g. 1TiB")
    count = Fraction(match.group(1)) * BYTE_UNITS[unit]
    if count.denominator != 1:
        raise ConfigError(
            f"{field} = {shown(text)}: not a whole number of bytes ({float(count):g}); e.g. {max(1, round(count))}"
        )
    return int(count)


class Strict(BaseModel):
    """Unknown keys are errors, and values are not coerced across types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class PlantFacts(TypedDict):
    """A RailX plant as the core resolves it (`SystemConfig.plant`)."""

    m: int
    n: int
    R: int
    grid: list[int]
    chips: int
    nodes: int
    switches: int
    rails_per_axis: int


class SystemConfig(Strict):
    """The physical plant (RailX paper §3.2). Bandwidths per direction, latencies per hop."""

    m: int = Field(gt=0, le=1024, description="chips per mesh side", examples=[4])
    n: int = Field(gt=0, le=1024, description="external ports per chip edge", examples=[2])
    R: int = Field(gt=0, le=1 << 20, description="OCS radix (ports per switch), even", examples=[128])
    grid: list[int] | None = Field(
        default=None, min_length=2, max_length=2, description="P x Q nodes; default [R/2, R/2]", examples=[[9, 9]]
    )
    port_bw_GBps: float = Field(
        default=50.0, gt=0, allow_inf_nan=False, description="one external (optical) port, per direction", examples=[50]
    )
    k: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="intra_bw = k * port_bw per mesh lane; a chip edge has n lanes: k * n * port_bw (default 2)",
        examples=[2],
    )
    intra_bw_GBps: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="one mesh lane (n per chip edge), per direction",
        examples=[100],
    )
    alpha_out_ns: float = Field(
        default=300.0, gt=0, allow_inf_nan=False, description="latency of an external (optical) hop", examples=[300]
    )
    alpha_in_ns: float = Field(
        default=10.0, gt=0, allow_inf_nan=False, description="latency of an internal mesh hop", examples=[10]
    )

    @model_validator(mode="after")
    def _one_intra_bandwidth(self) -> SystemConfig:
        if self.k is not None and self.intra_bw_GBps is not None:
            raise ValueError("give k or intra_bw_GBps, not both (e.g. k = 2)")
        # Each value is finite on its own; what the core receives (in SI units) must be too.
        derived = [
            ("port_bw_GBps", self.port_bw_GBps, self.port_bw_GBps * GBPS, "e.g. port_bw_GBps = 50"),
            (
                "k" if self.k is not None else "intra_bw_GBps",
                self.k or self.intra_bw_GBps,
                self.intra_bw_Bps,
                "e.g. k = 2",
            ),
        ]
        for field, value, si, hint in derived:
            if not math.isfinite(si):
                raise ValueError(f"{field} = {value}: gives a bandwidth beyond floating point ({si} B/s); {hint}")
        return self

    @property
    def intra_bw_Bps(self) -> float:
        if self.intra_bw_GBps is not None:
            return self.intra_bw_GBps * GBPS
        return (self.k if self.k is not None else 2.0) * self.port_bw_GBps * GBPS

    @property
    def mesh_edge_bw_Bps(self) -> float:
        """What two adjacent chips exchange per direction: n lanes of intra_bw (k * n * port_bw)."""
        return self.n * self.intra_bw_Bps

    def plant(self) -> PlantFacts:
        """The plant as the core resolves it (grid default applied): m, n, R, grid, chips, nodes,
        switches and rails_per_axis."""
        return cast(PlantFacts, json.loads(railx_plant_json(json.dumps(self.to_core()))))

    def to_core(self) -> dict[str, Any]:
        return {
            "m": self.m,
            "n": self.n,
            "R": self.R,
            "grid": self.grid,
            "port_bw_Bps": self.port_bw_GBps * GBPS,
            "intra_bw_Bps": self.intra_bw_Bps,
            "alpha_out_s": self.alpha_out_ns * NS,
            "alpha_in_s": self.alpha_in_ns * NS,
        }


class DimConfig(Strict):
    """One logical dimension: `size` nodes joined as `kind` over `rails` rails."""

    size: int = Field(gt=0, examples=[3])
    kind: Literal["ring", "all-to-all", "single-link-all-to-all", "global-all-to-all"]
    rails: int = Field(ge=0, examples=[2])


TopologyPreset = Literal["torus", "hyperx", "dragonfly"]
TOPOLOGY_PRESETS: tuple[TopologyPreset, ...] = ("torus", "hyperx", "dragonfly")


class TopologyConfig(Strict):
    """A preset, or per physical axis the logical dimensions innermost first (README.md, Configuration (TOML))."""

    preset: TopologyPreset | None = None
    x: list[DimConfig] | None = None
    y: list[DimConfig] | None = None
    allow_matching_rail: bool = Field(
        default=False, description="opt in to s-2 rings plus one rail of 2-cycles for all-to-all over 4 or 6 nodes"
    )

    def to_core(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class NodesConfig(Strict):
    """A job's nodes: half-open ranges x = [start, stop], y = [start, stop], or explicit lists xs, ys."""

    x: list[int] | None = Field(default=None, min_length=2, max_length=2)
    y: list[int] | None = Field(default=None, min_length=2, max_length=2)
    xs: list[int] | None = None
    ys: list[int] | None = None

    @model_validator(mode="after")
    def _ranges_or_lists(self) -> NodesConfig:
        for axis in ("x", "y"):
            span, listed = getattr(self, axis), getattr(self, axis + "s")
            if (span is None) == (listed is None):
                raise ValueError(
                    f"give exactly one of {axis} = [start, stop] or {axis}s = [...] (e.g. {axis} = [0, 4])"
                )
            if span is not None and not 0 <= span[0] < span[1]:
                raise ValueError(
                    f"{axis} = {span} must be a half-open range with 0 <= start < stop (e.g. {axis} = [0, 4])"
                )
            if listed is not None and any(v < 0 for v in listed):
                raise ValueError(f"{axis}s holds a negative coordinate (coordinates start at 0)")
        return self

    def positions(self, axis: Literal["x", "y"]) -> list[int]:
        span = getattr(self, axis)
        return list(range(*span)) if span is not None else list(getattr(self, axis + "s"))


JobName = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        description="names the job's OCS file <name>.ocs.json, so letters, digits, '.', '_' and '-' only",
        examples=["train-a"],
    ),
]
"""A job's name, wherever a job is declared (configurations, availability job files)."""


class JobConfig(Strict):
    """A job: a name, the nodes it occupies and its own logical topology."""

    name: JobName
    nodes: NodesConfig
    topology: TopologyConfig

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, name: str) -> str:
        if name == "system":
            raise ValueError('"system" is reserved for the whole-system OCS file')
        return name

    def to_core(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "xs": self.nodes.positions("x"),
            "ys": self.nodes.positions("y"),
            "topology": self.topology.to_core(),
        }


def _comma_separated(value: Any, item: type, field: str, example: str) -> Any:
    """A command line's `a,b,c` as a list of `item`; a TOML list passes through."""
    if not isinstance(value, str):
        return value
    try:
        items = [item(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"give {field} separated by commas; e.g. {example}") from None
    if not items:
        raise ValueError(f"give at least one of {field}; e.g. {example}")
    return items


# A chip's injection bandwidth in flits/cycle, as the flit simulator's configuration bounds it.
MIN_INJECTION = 0.01
MAX_INJECTION = 1024.0


class SimConfig(Strict):
    """`[sim]`: the flit-level simulator's settings (`railx sim`), each named as its command-line
    option (dashes as underscores) with the same default and range; an option given on the
    command line overrides the table. Defaults are the RailX paper's Table 5."""

    traffic: str = "uniform"
    load: float = Field(default=0.1, ge=0, allow_inf_nan=False)
    cycles: int = Field(default=10000, ge=1)
    warmup: int = Field(default=5000, ge=0)
    routing: str | None = None
    misroutes: int | None = Field(default=None, ge=0, le=8)
    job: str | None = None
    threads: int = Field(default=1, ge=1, le=1024)
    seed: int = Field(default=0, ge=0, le=2**64 - 1)  # as --seed: the core's unsigned 64-bit seed
    permutation: str = "random"
    hotspot_chips: list[int] = Field(default_factory=lambda: [0])
    hotspot_fraction: float = Field(default=0.2, ge=0, le=1, allow_inf_nan=False)
    size_flits: int | None = Field(default=None, ge=1)
    injection: float | None = Field(default=None, ge=MIN_INJECTION, le=MAX_INJECTION, allow_inf_nan=False)
    router_delay: int = Field(default=1, ge=0)
    head_delay: int = Field(default=0, ge=0)
    injection_queues: str = "single"
    switch_allocation: str = "packet"
    flow_control: str = "cut-through"
    speedup: int = Field(default=1, ge=1)
    output_buffer: int = Field(default=16, ge=1)
    packet_flits: int = Field(default=4, ge=1)
    buffer_flits: int = Field(default=16, ge=1)
    vcs_per_class: int = Field(default=1, ge=1)
    long_latency: int = Field(default=10, ge=0)
    short_latency: int = Field(default=1, ge=0)
    sweep: list[float] | None = Field(default=None, examples=[[0.1, 0.2, 0.4]])
    preset: str = "table5"

    @field_validator("hotspot_chips", mode="before")
    @classmethod
    def _chip_list(cls, value: Any) -> Any:
        return _comma_separated(value, int, "chip ids", "0,17")

    @field_validator("sweep", mode="before")
    @classmethod
    def _load_list(cls, value: Any) -> Any:
        return _comma_separated(value, float, "offered loads", "0.1,0.2,0.4")


class Config(Strict):
    """A whole configuration file: a system with one topology, or with jobs, and optionally the
    simulator's settings (`[sim]`)."""

    system: SystemConfig
    topology: TopologyConfig | None = None
    jobs: list[JobConfig] = Field(default_factory=list)
    sim: SimConfig | None = None

    def to_core(self) -> dict[str, Any]:
        return {
            "system": self.system.to_core(),
            "topology": self.topology.to_core() if self.topology is not None else None,
            "jobs": [job.to_core() for job in self.jobs],
        }

    @staticmethod
    def validate_sim(table: Any) -> SimConfig:
        """A `[sim]` table validated (on its own, as in a peer file), errors naming `sim.FIELD`."""
        try:
            return SimConfig.model_validate(table)
        except ValidationError as exc:
            raise ConfigError(one_line_error(exc, Config, prefix=("sim",))) from None

    def to_core_json(self) -> str:
        """The configuration as the Rust core reads it (SI units, ranges expanded)."""
        return json.dumps(self.to_core())

    @classmethod
    def from_toml(cls, text: str, source: str = "<string>") -> Config:
        """Parses and fully validates TOML text; raises ConfigError with a one-line message."""
        return cls.from_dict(parse_toml(text, source))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Validates a parsed configuration (schema here, cross-field rules in the core)."""
        try:
            config = cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(one_line_error(exc, cls)) from None
        try:
            validate_config(config.to_core_json())
        except RailxError as exc:
            raise ConfigError(str(exc)) from None
        return config


def output_file(path: str | Path, label: str) -> Path:
    """Checks, before any work, that a file can be written at `path`: its folder is made (one
    line naming `label` when a file stands in the way, as make_dir) and a folder at `path` itself
    is a one-line ConfigError, as is a `path` that is not one (None, -1, '': checked_path)."""
    path = checked_path(path, label)
    if path.is_dir():
        raise ConfigError(f"{label}: {path} is a folder; give a file path, e.g. {path / 'out'}")
    make_dir(path.parent, label)
    return path


def load_config(path: str | Path, overrides: Sequence[str] | None = None) -> Config:
    """Reads and validates a TOML configuration file, with `KEY=VALUE` `overrides` of its fields
    applied first (railx.overrides)."""
    if not overrides:
        return Config.from_toml(read_text(path), source=str(path))
    return Config.from_dict(apply_overrides(read_toml(path), overrides))


def _field_path(loc: tuple[Any, ...]) -> str:
    """`('jobs', 0, 'topology', 'x', 1, 'rails')` -> `jobs[0].topology.x[1].rails`; a key read
    from the file is escaped and shortened (railx.messages.shown_name)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("function-after", "tagged-union") or str(part).startswith(("function-", "literal[")):
            continue
        else:
            out += ("." if out else "") + shown_name(part)
    return out or "configuration"


def _model_at(loc: tuple[Any, ...], root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that holds the field at `loc` under `root`, to list its valid keys."""
    model: Any = root
    for part in loc[:-1]:
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        model = _inner_model(field.annotation)
    return model


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def one_line_error(exc: ValidationError, root: type[BaseModel], prefix: tuple[str, ...] = ()) -> str:
    """The first validation error of a `root` document as `field = value: rule; alternative`
    (`prefix`: where in `root` the validated part sits, when only a part was validated). An
    unknown key comes first: a misspelt one (`[sytem]`) is why a required one is missing."""
    errors = exc.errors()
    error = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = (*prefix, *error["loc"])
    field = _field_path(loc)
    if error["type"] == "extra_forbidden":
        model = _model_at(loc, root)
        what = "table" if isinstance(error.get("input"), dict) else "key"
        if model is None:
            return f"{field}: unknown {what}; valid keys are listed in README.md, Configuration (TOML)"
        close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1)
        meant = f" (did you mean {close[0]}?)" if close else ""
        return f"{field}: unknown {what}; valid keys here are {', '.join(model.model_fields)}{meant}"
    if error["type"] == "missing":
        return f"{field}: required key is missing; add it (see examples/ for a complete file)"
    message = error["msg"].removeprefix("Value error, ")
    value = error.get("input")
    echoed = "" if isinstance(value, dict) else f" = {shown(value)}"
    hint = _hint(loc, root)
    return f"{field}{echoed}: {message}" + (f"; {hint}" if hint else "")


def _hint(loc: tuple[Any, ...], root: type[BaseModel]) -> str:
    model = _model_at(loc, root)
    if model is None or not loc or not isinstance(loc[-1], str):
        return ""
    field = model.model_fields.get(loc[-1])
    if field is None or not field.examples:
        return ""
    return f"e.g. {loc[-1]} = {json.dumps(field.examples[0])}"
