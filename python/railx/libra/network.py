"""Multi-dimensional networks in LIBRA's notation (paper 004 §IV-A): building blocks Ring (RI),
FullyConnected (FC) and Switch (SW) stacked innermost first, e.g. `RI(4)_FC(8)_RI(4)_SW(32)`,
each dimension optionally tagged with the cost-model dimension that prices it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from railx.config import ConfigError, read_text
from railx.libra.yamlfile import parse_yaml
from railx.messages import shown

__all__ = ["Dimension", "LibraNetwork", "load_network", "parse_network", "parse_notation"]

Kind = Literal["RI", "FC", "SW"]
_LONG: dict[str, Kind] = {"Ring": "RI", "FullyConnected": "FC", "Switch": "SW"}
_SHORT: dict[str, Kind] = {"RI": "RI", "FC": "FC", "SW": "SW"}
_TOKEN = re.compile(r"^(RI|FC|SW)\((\d+)\)$")


@dataclass(frozen=True)
class Dimension:
    """One network dimension: its building block, NPUs along it, and its cost-model dimension."""

    kind: Kind
    size: int
    cost_dimension: str | None = None


@dataclass(frozen=True)
class LibraNetwork:
    """A stack of dimensions, innermost first."""

    dims: tuple[Dimension, ...]

    @property
    def npus(self) -> int:
        """Total NPUs: the product of the dimension sizes."""
        return math.prod(d.size for d in self.dims)

    @property
    def notation(self) -> str:
        """LIBRA's name of the shape, e.g. `RI(4)_FC(8)_RI(4)_SW(32)`."""
        return "_".join(f"{d.kind}({d.size})" for d in self.dims)

    def with_cost_dimensions(self, names: list[str]) -> LibraNetwork:
        """The same shape with each dimension priced by the named cost-model dimension."""
        if len(names) != len(self.dims):
            raise ConfigError(
                f"cost dimensions: {len(names)} names for a {len(self.dims)}D network {self.notation}; give one per dimension"
            )
        return LibraNetwork(tuple(Dimension(d.kind, d.size, n) for d, n in zip(self.dims, names)))


def parse_notation(text: str) -> LibraNetwork:
    """`RI(4)_FC(8)_RI(4)_SW(32)` -> a 4D network (sizes >= 2)."""
    dims = []
    for i, token in enumerate(text.strip().split("_")):
        match = _TOKEN.match(token)
        if match is None:
            raise ConfigError(
                f"network = {shown(text)}: dimension {i} {shown(token)} is not RI(n), FC(n) or SW(n); e.g. RI(4)_FC(8)_SW(32)"
            )
        size = int(match.group(2))
        if size < 2:
            raise ConfigError(f"network = {shown(text)}: dimension {i} has {size} NPUs; a dimension needs at least 2")
        dims.append(Dimension(_SHORT[match.group(1)], size))
    return LibraNetwork(tuple(dims))


def load_network(spec: str | Path) -> LibraNetwork:
    """A LIBRA network YAML file (Topology, NpusCount, CostDimension), or a notation string."""
    path = Path(spec)
    if not path.is_file():
        if isinstance(spec, str) and "(" in spec:
            return parse_notation(spec)
        raise ConfigError(f"--network {spec}: no such file, and not a notation like RI(4)_FC(8)_RI(4)_SW(32)")
    return parse_network(read_text(path), str(path))


def parse_network(text: str, source: str) -> LibraNetwork:
    """A LIBRA network YAML text (Topology, NpusCount, CostDimension); errors name `source`."""
    data = parse_yaml(text, source)
    topology = _yaml_list(data, "Topology", "[ Ring, FullyConnected, Switch ]", source)
    sizes = _yaml_list(data, "NpusCount", "[ 16, 8, 32 ]", source)
    if len(topology) != len(sizes):
        raise ConfigError(
            f"{source}: Topology has {len(topology)} dimensions but NpusCount {len(sizes)}; give one size per dimension"
        )
    kinds = []
    for t in topology:
        if not isinstance(t, str) or t not in _LONG:
            raise ConfigError(f"{source}: Topology entry {shown(t)} is not Ring, FullyConnected or Switch")
        kinds.append(_LONG[t])
    network = parse_notation("_".join(f"{k}({s})" for k, s in zip(kinds, sizes)))
    names = data.get("CostDimension")
    return network.with_cost_dimensions([str(n) for n in names]) if isinstance(names, list) else network


def _yaml_list(data: dict[str, object], key: str, example: str, source: str) -> list[object]:
    """`data[key]`, which must be a list; else a one-line error with an example."""
    value = data.get(key)
    if not isinstance(value, list):
        raise ConfigError(f"{source}: {key} must be a list, e.g. {key}: {example}")
    return value
