"""A configuration realized: OCS tables synthesised by the core, the chip graph built from them,
and the analyses that run on it (plan metrics, OCS files, network export)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np

from railx._core import System as CoreSystem
from railx._core import verify_ocs as _verify_ocs
from railx.config import Config, load_config, make_dir, read_text

__all__ = ["NETWORK_FORMATS", "Network", "NetworkFormat", "realize", "verify_ocs_file", "verify_ocs_text"]

NetworkFormat = Literal["json", "graphml"]
NETWORK_FORMATS: tuple[NetworkFormat, ...] = ("json", "graphml")


class Network:
    """A realized RailX network: what the switches are programmed with, and the chips it joins."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.core = CoreSystem(config.to_core_json())

    @property
    def chips(self) -> int:
        """Number of chips in the system."""
        return self.core.chips

    def plan(self) -> dict[str, Any]:
        """Plant summary, realized metrics and the paper's closed forms (README.md, What the numbers mean)."""
        return json.loads(self.core.plan_json())

    def ocs(self) -> dict[str, Any]:
        """The whole system's `railx.ocs/v1` configuration."""
        return json.loads(self.core.ocs_json())

    def write_ocs(self, out_dir: str | Path) -> list[Path]:
        """Writes `system.ocs.json` and, with jobs, one `<job>.ocs.json` per job; returns the paths."""
        out_dir = Path(out_dir)
        make_dir(out_dir, f"--out {out_dir}")
        files = [("system", self.core.ocs_json()), *self.core.job_ocs_json()]
        paths = []
        for name, text in files:
            path = out_dir / f"{name}.ocs.json"
            path.write_text(text + "\n", encoding="utf-8")
            paths.append(path)
        return paths

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
        """Writes the chip graph as a `railx.network/v1` JSON edge list or as GraphML."""
        self.core.write_network(str(path), fmt)


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
