"""The inputs of the analytic collective models: a RailX system's shape and link parameters
(RailX paper §3.2), from a configuration or given explicitly."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from railx._core import railx_layout_json
from railx.config import Config, ConfigError

__all__ = ["LogicalDim", "RailxParams", "fig15_torus_toml"]

DimKindName = Literal["ring", "all-to-all"]


def fig15_torus_toml(m: int, p: int) -> str:
    """The RailX configuration (TOML text) of the paper's Fig. 15 link parameters: a p x p torus
    (R = 2p rails) of m x m meshes, n = 1, external ports 100 GB/s and 300 ns per hop, mesh links
    4x that bandwidth and 10 ns."""
    return f"""[system]
m = {m}
n = 1
R = {2 * p}
port_bw_GBps = 100
k = 4
alpha_out_ns = 300
alpha_in_ns = 10

[topology]
preset = "torus"
"""


@dataclass(frozen=True)
class LogicalDim:
    """One logical dimension of a physical axis: `size` nodes joined as `kind` over `rails` rails."""

    size: int
    kind: DimKindName
    rails: int


@dataclass(frozen=True)
class RailxParams:
    """An m x m mesh per node, a P x Q node grid, n ports per chip edge (r = m*n rails per axis),
    link bandwidths per direction (`intra_bw_Bps` one mesh lane; n lanes join adjacent chips) and
    hop latencies; `x`/`y` the logical dimensions of each axis
    (innermost first; default one ring dimension over all r rails)."""

    m: int
    n: int
    p: int
    q: int
    port_bw_Bps: float
    intra_bw_Bps: float
    alpha_out_s: float
    alpha_in_s: float
    x: tuple[LogicalDim, ...] = field(default=())
    y: tuple[LogicalDim, ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("m", "n", "p", "q"):
            if getattr(self, name) < 1:
                raise ConfigError(f"system.{name} = {getattr(self, name)}: must be a positive integer; e.g. {name} = 4")
        for name in ("port_bw_Bps", "intra_bw_Bps"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"system.{name} = {getattr(self, name)}: must be > 0; e.g. 100e9")
        for name in ("alpha_out_s", "alpha_in_s"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"system.{name} = {getattr(self, name)}: must be >= 0; e.g. 300e-9")
        if not self.x:
            object.__setattr__(self, "x", (LogicalDim(self.p, "ring", self.r),))
        if not self.y:
            object.__setattr__(self, "y", (LogicalDim(self.q, "ring", self.r),))

    @property
    def r(self) -> int:
        """Rails per physical axis."""
        return self.m * self.n

    @property
    def mesh_bw_Bps(self) -> float:
        """A chip edge's bandwidth in the mesh, per direction: n lanes of intra_bw."""
        return self.n * self.intra_bw_Bps

    @property
    def k(self) -> float:
        """A chip edge's mesh bandwidth over its external bandwidth (the paper's k): one lane over
        one port."""
        return self.intra_bw_Bps / self.port_bw_Bps

    @property
    def chips(self) -> int:
        return self.m * self.m * self.p * self.q

    def dims(self, axis: Literal["x", "y"]) -> tuple[LogicalDim, ...]:
        return self.x if axis == "x" else self.y

    @classmethod
    def from_config(cls, config: Config | dict[str, Any]) -> RailxParams:
        """From a RailX configuration (or the dict of its TOML), with the logical dimensions and rails
        the core resolves (presets expanded, defaults applied: nothing is re-derived here); a
        configuration with jobs is refused (collectives run over the whole system)."""
        if not isinstance(config, Config):
            config = Config.from_dict(config)
        layout = json.loads(railx_layout_json(config.to_core_json()))

        def axis(dims: list[dict[str, Any]]) -> tuple[LogicalDim, ...]:
            return tuple(
                LogicalDim(d["size"], "ring" if d["kind"] == "ring" else "all-to-all", d["rails"]) for d in dims
            )

        p, q = layout["grid"]
        return cls(
            m=layout["m"],
            n=layout["n"],
            p=p,
            q=q,
            port_bw_Bps=layout["port_bw_Bps"],
            intra_bw_Bps=layout["intra_bw_Bps"],
            alpha_out_s=layout["alpha_out_s"],
            alpha_in_s=layout["alpha_in_s"],
            x=axis(layout["x"]),
            y=axis(layout["y"]),
        )
