"""A configuration realized: OCS tables synthesised by the core, the chip graph built from them,
and the analyses that run on it (plan metrics, OCS files, network export)."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from railx._core import System as CoreSystem
from railx._core import verify_ocs as _verify_ocs
from railx.atomic import atomic_path, checked_path, make_dir, write_file_set
from railx.config import Config, load_config, read_text

if TYPE_CHECKING:
    import networkx

    from railx.progress import ProgressCallback
    from railx.systems import System

__all__ = ["NETWORK_FORMATS", "Network", "NetworkFormat", "realize", "verify_ocs_file", "verify_ocs_text"]

NetworkFormat = Literal["json", "graphml"]
NETWORK_FORMATS: tuple[NetworkFormat, ...] = ("json", "graphml")
OCS_SUFFIX = ".ocs.json"
"""How an OCS file's name ends: `system.ocs.json`, `<job>.ocs.json`."""
LINK_CLASSES = ("intra-node", "inter-node-optical")  # by the links' `class` code, as railx.network/v1 names them


class Network:
    """A realized RailX network: what the switches are programmed with, and the chips it joins."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.core = CoreSystem(config.to_core_json())

    @property
    def chips(self) -> int:
        """Number of chips in the system."""
        return self.core.chips

    def plan(self, progress: ProgressCallback | None = None) -> dict[str, Any]:
        """Plant summary, realized metrics and the paper's closed forms (README.md, What the numbers
        mean). `progress(done, total, unit)` hears the source nodes the metrics have walked
        (railx.progress)."""
        return json.loads(self.core.plan_json(progress))

    def ocs(self) -> dict[str, Any]:
        """The whole system's `railx.ocs/v1` configuration."""
        return json.loads(self.core.ocs_json())

    def ocs_files(self) -> list[tuple[str, str]]:
        """The OCS files :meth:`write_ocs` writes, as (file name, text): `system.ocs.json` and,
        with jobs, one `<job>.ocs.json` per job."""
        files = [("system", self.core.ocs_json()), *self.core.job_ocs_json()]
        return [(f"{name}{OCS_SUFFIX}", text + "\n") for name, text in files]

    def write_ocs(self, out_dir: str | Path) -> list[Path]:
        """Writes :meth:`ocs_files` into folder `out_dir`, each atomically, and removes the
        folder's other `*.ocs.json` files (an earlier run's jobs), so the folder holds exactly
        this configuration's set; returns the paths written."""
        folder = make_dir(checked_path(out_dir, "out_dir"), f"--out {out_dir}")
        written, _stale = write_file_set(folder, self.ocs_files(), f"*{OCS_SUFFIX}")
        return written

    def links(self) -> dict[str, np.ndarray]:
        """Directed links as arrays: src, dst (chip ids), class (0 mesh, 1 optical), bandwidth_Bps,
        latency_s, rail (-1 for mesh links), lane (-1 for optical links). Two adjacent chips of a
        node are joined by n mesh links each way, lanes 0..n-1, each of intra_bw = k * port_bw,
        so a chip edge carries k * n * port_bw in the mesh. Chip id = (Y*P + X)*m*m + y*m + x."""
        links = self.core.links()
        return {
            "src": links["src"],
            "dst": links["dst"],
            "class": links["class"],
            "bandwidth_Bps": links["bandwidth_Bps"],
            "latency_s": links["latency_s"],
            "rail": links["rail"],
            "lane": links["lane"],
        }

    def write(self, path: str | Path, fmt: NetworkFormat = "json") -> None:
        """Writes the chip graph as a `railx.network/v1` JSON edge list or as GraphML, atomically
        (a reader or a killed run finds the previous file or the complete new one)."""
        path = checked_path(path, "path")
        with atomic_path(path) as temporary:
            self.core.write_network(str(temporary), fmt)

    @cached_property
    def system(self) -> System:
        """This network as a :class:`railx.System` (name "network"), sharing the network already
        built, for the analyses that take a System."""
        from railx.systems import System

        document = self.config.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
        system = System("network", "RailX network", railx=document)
        # System is frozen; its `core` is a cached_property, whose cache is the instance dict:
        # filling it shares this network's build instead of synthesising it again.
        system.__dict__["core"] = self.core
        return system

    def to_networkx(self) -> networkx.MultiDiGraph:
        """The chip graph as a networkx MultiDiGraph, as `networkx.read_graphml` loads the GraphML
        export: nodes are chip ids with their coordinates `X`, `Y` (node) and `x`, `y` (in its
        mesh); one edge per directed link, keyed by its index in :meth:`links`, with `class`
        (`intra-node` or `inter-node-optical`), `bandwidth_Bps`, `latency_s` and, for optical
        links, `rail`. networkx is imported here, not with railx."""
        import networkx

        plant = self.config.system.plant()
        m, p = plant["m"], plant["grid"][0]
        graph = networkx.MultiDiGraph()
        for chip in range(self.chips):
            node, local = divmod(chip, m * m)
            graph.add_node(chip, X=node % p, Y=node // p, x=local % m, y=local // m)
        links = self.links()
        for i, (src, dst, cls, bw, lat, rail) in enumerate(
            zip(*(links[k].tolist() for k in ("src", "dst", "class", "bandwidth_Bps", "latency_s", "rail")))
        ):
            attrs: dict[str, Any] = {"class": LINK_CLASSES[cls], "bandwidth_Bps": bw, "latency_s": lat}
            if rail >= 0:
                attrs["rail"] = rail
            graph.add_edge(src, dst, key=i, **attrs)
        return graph


def realize(config: Config | str | Path) -> Network:
    """Validates a configuration (object or TOML path), synthesises its OCS tables and realizes it."""
    if not isinstance(config, Config):
        config = load_config(config)
    return Network(config)


def verify_ocs_file(path: str | Path, topology: Config | str | Path | None = None) -> dict[str, Any]:
    """Verifies a `railx.ocs/v1` file: port validity, and with a configuration that the circuits
    rebuild its intended topology. Returns the report; raises RailxError when the file is invalid."""
    return verify_ocs_text(read_text(path, f"OCS file {path}"), topology)


def verify_ocs_text(text: str, topology: Config | str | Path | None = None) -> dict[str, Any]:
    """Verifies a `railx.ocs/v1` document's text, as :func:`verify_ocs_file` does a file."""
    if topology is not None and not isinstance(topology, Config):
        topology = load_config(topology)
    config_json = topology.to_core_json() if topology is not None else None
    return json.loads(_verify_ocs(text, config_json))
