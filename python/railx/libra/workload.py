"""Workloads in the ASTRA-sim 1.0 text format LIBRA reads, and LIBRA's communicator files.

A workload line is one layer: name, a reserved field, then for the forward, input-gradient and
weight-gradient phases a compute time (cycles), a collective (NONE, ALLREDUCE, ALLGATHER,
REDUCESCATTER, ALLTOALL) and its size in bytes, then an update time LIBRA ignores. The optional
two-line header ASTRA-sim writes (parallelism keyword, layer count) is accepted.

A communicator file gives, per phase, the group size the collective spans in each network
dimension (-1: the dimension is not used), e.g. `WeightGrad: [ -1, 2, 4, 32 ]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from railx.config import ConfigError, is_one_of, read_text
from railx.libra.network import LibraNetwork
from railx.libra.yamlfile import parse_yaml
from railx.messages import shown

__all__ = [
    "PHASES",
    "Communicator",
    "Layer",
    "LibraWorkload",
    "Phase",
    "load_communicator",
    "load_workload",
    "parse_communicator",
    "parse_workload",
]

CollectiveKind = Literal["NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL"]
PHASES: tuple[str, ...] = ("forward", "input_grad", "weight_grad")
_KINDS: tuple[CollectiveKind, ...] = ("NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL")


@dataclass(frozen=True)
class Phase:
    """Compute then one collective: compute cycles, collective kind and its size in bytes."""

    compute_cycles: float
    collective: CollectiveKind
    size_bytes: float


@dataclass(frozen=True)
class Layer:
    """A layer's three phases."""

    name: str
    forward: Phase
    input_grad: Phase
    weight_grad: Phase


@dataclass(frozen=True)
class LibraWorkload:
    """A named list of layers."""

    name: str
    layers: tuple[Layer, ...]


def _phase(fields: list[str], where: str) -> Phase:
    kind = fields[1].upper().replace("-", "").replace("_", "")
    if not is_one_of(kind, _KINDS):
        raise ConfigError(f"{where}: collective {shown(fields[1])} is not one of {', '.join(_KINDS)}")
    try:
        compute, size = float(fields[0]), float(fields[2])
    except ValueError:
        raise ConfigError(
            f"{where}: compute time {shown(fields[0])} and size {shown(fields[2])} must be numbers"
        ) from None
    if compute < 0 or size < 0:
        raise ConfigError(f"{where}: compute time and collective size must be >= 0")
    return Phase(compute, kind, size)


def load_workload(path: str | Path) -> LibraWorkload:
    """Reads an ASTRA-sim 1.0 workload text file (12 fields per layer line)."""
    path = Path(path)
    return parse_workload(read_text(path, f"--workload {path}"), path.stem, str(path))


def parse_workload(text: str, name: str, source: str) -> LibraWorkload:
    """An ASTRA-sim 1.0 workload text named `name` (LIBRA names a workload by its file's stem);
    errors name `source`."""
    lines = text.splitlines()
    body = [(i, line.split()) for i, line in enumerate(lines, start=1) if line.strip()]
    if len(body) >= 2 and len(body[0][1]) == 1 and len(body[1][1]) == 1 and body[1][1][0].isdigit():
        body = body[2:]  # ASTRA-sim header: parallelism keyword and layer count
    layers = []
    for number, fields in body:
        where = f"{source}:{number}"
        if len(fields) != 12:
            raise ConfigError(
                f"{where}: a layer line has 12 fields (name, -1, then compute/collective/bytes for 3 phases, update), found {len(fields)}"
            )
        layers.append(
            Layer(fields[0], _phase(fields[2:5], where), _phase(fields[5:8], where), _phase(fields[8:11], where))
        )
    if not layers:
        raise ConfigError(f"--workload {source}: no layer lines")
    return LibraWorkload(name, tuple(layers))


@dataclass(frozen=True)
class Communicator:
    """Per phase, the group size in each dimension (None where the dimension is not used)."""

    forward: tuple[int | None, ...]
    input_grad: tuple[int | None, ...]
    weight_grad: tuple[int | None, ...]

    def of(self, phase: str) -> tuple[int | None, ...]:
        """The group sizes of a phase."""
        return getattr(self, phase)


def load_communicator(path: str | Path, network: LibraNetwork) -> Communicator:
    """Reads a communicator file and checks it against the network (each size 1..dimension size
    and dividing it, or -1)."""
    return parse_communicator(read_text(path), str(path), network)


def parse_communicator(text: str, source: str, network: LibraNetwork) -> Communicator:
    """A communicator YAML text, checked against the network; errors name `source`."""
    data = parse_yaml(text, source)
    keys = {"forward": "Forward", "input_grad": "InputGrad", "weight_grad": "WeightGrad"}
    out = {}
    for phase, key in keys.items():
        sizes = data.get(key)
        if not isinstance(sizes, list) or len(sizes) != len(network.dims):
            raise ConfigError(
                f"{source}: {key} must list one group size per dimension of {network.notation} ({len(network.dims)}), -1 for unused"
            )
        groups: list[int | None] = []
        for i, (size, dim) in enumerate(zip(sizes, network.dims)):
            if size == -1:
                groups.append(None)
            elif isinstance(size, int) and 1 <= size <= dim.size and dim.size % size == 0:
                groups.append(size)
            else:
                raise ConfigError(
                    f"{source}: {key}[{i}] = {shown(size)}: must be -1 or divide the dimension's {dim.size} NPUs"
                )
        out[phase] = tuple(groups)
    return Communicator(**out)
