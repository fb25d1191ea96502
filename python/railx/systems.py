"""Systems railx evaluates side by side: named presets (the twelve rows of RailX Table 6 and a
few more) and systems read from a file. Every analysis (cost, routing, the flit- and flow-level
simulators, collectives, workloads) takes a :class:`System` from here.

A peer system is a spec tagged by `family` (fat-tree, rail-only, rail-optimised, hammingmesh,
torus3d, hyperx, dragonfly, sipac; fields as in `railx_core::peers`; a Rail-only or rail-optimised table
may name a `platform` instead of its HB domain, railx.platforms); a RailX system is an ordinary RailX configuration,
whose bill of materials comes from its plant and whose global bandwidth comes from its
topology's closed form. Costing builds nothing; the first analysis that needs the network builds
it once (:attr:`System.core`: a RailX configuration synthesised and realized from its circuits, a
peer's graph built directly).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from railx._core import RailxError, peer_bom, railx_config_bom
from railx._core import System as CoreSystem
from railx.config import Config, ConfigError, read_toml
from railx.messages import shown, shown_name
from railx.overrides import apply_overrides
from railx.platforms import PLATFORMS, expand_platform, platform_peer

if TYPE_CHECKING:
    from railx._core import LinkArrays
    from railx.network import Network

__all__ = ["PRESETS", "System", "SystemLike", "TABLE6_ORDER", "core_of", "resolve_system", "system_from_document"]

DEFAULT_PORT_BW_BPS = 50e9  # 400 Gb/s, the port of every Table 6 system
GBPS = 1e9


@dataclass(frozen=True)
class System:
    """A system to cost: a name, a human label, and either a peer spec or a RailX config."""

    name: str
    label: str
    peer: dict[str, Any] | None = None
    railx: dict[str, Any] | None = None
    sim: dict[str, Any] | None = None
    """The file's `[sim]` table (the simulator's settings, `railx.config.SimConfig`), if any."""

    def document(self) -> dict[str, Any]:
        """The system as a configuration file holds it: a RailX configuration or a `[peer]` table,
        with its `[sim]` table."""
        body = dict(self.railx) if self.railx is not None else {"peer": self.peer}
        return body | ({"sim": self.sim} if self.sim is not None else {})

    @property
    def family(self) -> str:
        return "railx" if self.railx is not None else str(self.peer["family"])  # type: ignore[index]

    @property
    def port_bw_Bps(self) -> float:
        """Bandwidth of one port, per direction (SiPAC: a CU's wavelengths over its L ports)."""
        if self.railx is not None:
            return float(self.railx["system"].get("port_bw_GBps", DEFAULT_PORT_BW_BPS / GBPS)) * GBPS
        if self.family == "sipac":
            spec = self.peer or {}
            return float(spec["wavelengths"]) * float(spec["wavelength_rate_Bps"]) / float(spec["levels"])
        return float(self.peer.get("link", {}).get("port_bw_Bps", DEFAULT_PORT_BW_BPS))  # type: ignore[union-attr]

    @classmethod
    def resolve(cls, system: SystemLike) -> System:
        """Any :data:`SystemLike` as a System: `system` itself, a realized :class:`railx.Network`'s
        system (sharing its built network), or the preset or TOML file a name or path names (see
        :func:`resolve_system`). A bare core system carries no specification: a ConfigError."""
        from railx.network import Network

        if isinstance(system, System):
            return system
        if isinstance(system, Network):
            return system.system
        if isinstance(system, CoreSystem):
            raise ConfigError(
                "system: a railx._core.System carries no specification; pass the railx.System, the "
                "railx.Network or the file it was built from"
            )
        return resolve_system(os.fspath(system))

    def spec_json(self) -> str:
        """The system as the core takes it: a RailX configuration, or `{"peer": {...}}`."""
        if self.railx is not None:
            return Config.from_dict(self.railx).to_core_json()
        return json.dumps({"peer": self.peer})

    @cached_property
    def core(self) -> CoreSystem:
        """The built system (`railx._core.System`), built on first use: a RailX configuration
        synthesised and realized from its circuits, a peer's graph built directly. Raises
        ConfigError naming the system on invalid input (or a graph over 50M directed links)."""
        try:
            return CoreSystem(self.spec_json())
        except ConfigError as exc:
            raise ConfigError(f"{self.name}: {exc}") from None

    @property
    def chips(self) -> int:
        return int(self.core.chips)

    def routing_names(self) -> list[str]:
        """The routing functions this system offers, its default first."""
        return list(self.core.routing_names())

    def bom(self) -> dict[str, Any]:
        """Bill of materials and global bandwidth (raises ConfigError on invalid input)."""
        try:
            if self.railx is not None:
                return json.loads(railx_config_bom(Config.from_dict(self.railx).to_core_json()))
            return json.loads(peer_bom(json.dumps(self.peer)))
        except ConfigError:
            raise
        except RailxError as exc:
            raise ConfigError(f"{self.name}: {exc}") from None

    def network(self) -> LinkArrays:
        """The graph: chips (ids 0..chips-1) then a peer's packet switches (`switch_radix`),
        directed links as NumPy arrays (src, dst, class: 0 board/mesh, 1 chip-chip optical,
        2 copper, 3 switch link; bandwidth_Bps, latency_s, rail; lane: a RailX mesh link's lane
        0..n-1, -1 for any other link)."""
        return self.core.links()


def _fat_tree(chips: int, tiers: int, taper: list[int] | None = None) -> dict[str, Any]:
    return {"family": "fat-tree", "radix": 64, "tiers": tiers, "taper": taper or [], "chips": chips, "planes": 36}


def _hx(a: int, boards: int, tiers: int) -> dict[str, Any]:
    return {"family": "hammingmesh", "a": a, "boards": [boards, boards], "planes": 9, "radix": 64, "tiers": tiers}


def _torus(ocs: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "family": "torus3d",
        "dims": [16, 16, 16],
        "cube": 4,
        "board": [2, 2],
        "ports_per_direction": 6,
    }
    if ocs:
        spec["ocs_radix"] = 128
    return spec


def _railx(m: int, topology: dict[str, Any]) -> dict[str, Any]:
    return {"system": {"m": m, "n": 9, "R": 128, "port_bw_GBps": 50.0}, "topology": topology}


# RailX4Mesh is the paper's 64 x 64 2D-HyperX: with r = 36 rails per axis a two-link all-to-all of
# 64 nodes (63 rails) does not fit, so each axis is a single-link all-to-all (paper A.1): K_64 as 31
# undirected Walecki rings plus one perfect-matching rail, 32 of 36 rails, one link per node pair.
_RAILX4_AXIS = [{"size": 64, "kind": "single-link-all-to-all", "rails": 32}]

# The paper's Table 6 (36 x 400G ports per chip, 64-port packet switches, 128-port OCS), in its order.
PRESETS: dict[str, System] = {
    s.name: s
    for s in [
        System("ft2", "2-Tier Nonbl. FT", peer=_fat_tree(2048, 2)),
        System("ft2-tap3", "1:3 Tap. 2-Tier FT", peer=_fat_tree(3072, 2, [3])),
        System("hx4mesh", "Hx4Mesh (1-Tier FT)", peer=_hx(4, 32, 1)),
        System("hx7mesh", "Hx7Mesh (1-Tier FT)", peer=_hx(7, 32, 1)),
        System("tpuv4", "3D-Torus w/ OCS", peer=_torus(True)),
        System("torus3d", "3D Torus w/o OCS", peer=_torus(False)),
        System(
            "railonly",
            "Rail-Only (2D FT)",
            peer={"family": "rail-only", "radix": 64, "dims": [{"size": 64, "rails": 18}, {"size": 64, "rails": 18}]},
        ),
        System("railx4mesh", "RailX4Mesh", railx=_railx(4, {"x": _RAILX4_AXIS, "y": _RAILX4_AXIS})),
        System("railx7mesh", "RailX7Mesh", railx=_railx(7, {"preset": "hyperx"})),
        System("ft4", "4-Tier Nonbl. FT", peer=_fat_tree(196608, 4)),
        System("ft3-tap49", "1:7:49 Tap. 3-Tier FT", peer=_fat_tree(200704, 3, [7, 7])),
        System("hx7mesh-2t", "Hx7Mesh (2-Tier FT)", peer=_hx(7, 64, 2)),
        # Beyond Table 6: packet-switched HyperX and Dragonfly with the same 36 planes.
        System(
            "hyperx",
            "2D HyperX 16x16, 16 chips/switch",
            peer={"family": "hyperx", "dims": [16, 16], "terminals": 16, "radix": 64, "planes": 36},
        ),
        System(
            "dragonfly",
            "Dragonfly 65 groups x 32 switches",
            peer={
                "family": "dragonfly",
                "groups": 65,
                "routers": 32,
                "terminals": 16,
                "global_ports": 16,
                "radix": 64,
                "planes": 36,
            },
        ),
        # Paper 003's evaluation system: SiPAC(8, 3), 512 CUs, 60 wavelengths x 32 Gb/s per CU.
        System(
            "flex-sipac-512",
            "Flex-SiPAC (8, 3), 512 CUs",
            peer={"family": "sipac", "radix": 8, "levels": 3, "wavelengths": 60, "wavelength_rate_Bps": 4e9},
        ),
    ]
}
TABLE6_ORDER: tuple[str, ...] = tuple(list(PRESETS)[:12])

# Rail-only and its rail-optimised baseline (paper 002) on each HB-domain platform
# (railx.platforms), small enough for the flow and flit levels: 16 DGX servers (128 GPUs),
# 8 NVL72 racks (576 GPUs), 4 DGX GH200 (1,024 GPUs); radix-64 switches.
PLATFORM_DOMAINS: dict[str, int] = {"dgx-a100": 16, "dgx-h100": 16, "dgx-gh200": 4, "gb200-nvl72": 8, "gb300-nvl72": 8}


def _platform_presets() -> list[System]:
    presets = []
    for name, domains in PLATFORM_DOMAINS.items():
        label = PLATFORMS[name].label
        for network, short in (("rail-only", "railonly"), ("rail-optimised", "railopt")):
            peer = platform_peer(name, domains, network)
            presets.append(System(f"{short}-{name}", f"{network.capitalize()} {domains} x {label}", peer=peer))
    return presets


PRESETS.update((s.name, s) for s in _platform_presets())


# Anything an analysis accepts as a system: a System, a realized RailX Network, a built core
# system, or a preset name or TOML file path (a str or a pathlib.Path).
SystemLike = Union[System, "Network", CoreSystem, str, "os.PathLike[str]"]


def core_of(system: SystemLike) -> CoreSystem:
    """The built core system behind any :data:`SystemLike`."""
    if isinstance(system, CoreSystem):
        return system
    return System.resolve(system).core


def resolve_system(name_or_path: str, overrides: Sequence[str] | None = None) -> System:
    """A preset by name, or a TOML file: a RailX configuration ([system] and [topology]) or a
    peer in a [peer] table (with `family`); either may carry a [sim] table. `overrides` are
    `KEY=VALUE` settings of the document's fields (railx.overrides), applied before validation."""
    if name_or_path in PRESETS:
        preset = PRESETS[name_or_path]
        if not overrides:
            return preset
        return system_from_document(apply_overrides(preset.document(), overrides), preset.name, name_or_path)
    path = Path(name_or_path)
    if not path.suffix:
        raise ConfigError(
            f"system = {shown(name_or_path)}: not a preset or a file; use one of {', '.join(PRESETS)} or a .toml file"
        )
    data = apply_overrides(read_toml(path, f"system = {shown(name_or_path)}"), overrides or ())
    return system_from_document(data, path.stem, str(path))


def system_from_document(data: dict[str, Any], name: str, source: str) -> System:
    """The system a TOML file's document describes (a RailX configuration, or a [peer] table;
    either with a [sim] table), named `name`; errors name `source`."""
    sim = data.get("sim")
    if "peer" in data:
        extra = sorted(set(data) - {"peer", "sim"})
        if extra:
            raise ConfigError(
                f"{source}: {shown_name(extra[0])}: unknown key next to [peer]; a peer file holds a [peer] table and "
                "optionally a [sim] table"
            )
        if sim is not None:
            Config.validate_sim(sim)
        return System(name, name, peer=expand_platform(data["peer"]), sim=sim)
    Config.from_dict(data)  # validate now, for a one-line error naming the file's field
    return System(name, name, railx={key: value for key, value in data.items() if key != "sim"}, sim=sim)
