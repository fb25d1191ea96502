"""railx: design, configure and evaluate interconnection networks for hyper-scale AI training.

The RailX plant, OCS synthesis, realized network and metrics live in the Rust core
(`railx._core`); this package is the user surface: configuration, the Python API and the CLI.

Every subpackage is reachable from `import railx` alone and is imported on first use
(`railx.cost.table6()`, `railx.sim.simulate(...)`), so `import railx` stays cheap.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType

from railx._core import Cancelled, InternalError, RailxError, VerificationError, hamiltonian_rails
from railx._core import max_scale as _max_scale
from railx.config import Config, ConfigError, load_config
from railx.network import Network, realize, verify_ocs_file
from railx.systems import System

__version__ = "0.1.0"

__all__ = [
    "Cancelled",
    "Config",
    "ConfigError",
    "InternalError",
    "Network",
    "RailxError",
    "System",
    "VerificationError",
    "hamiltonian_rails",
    "load_config",
    "max_scale",
    "realize",
    "verify_ocs_file",
]


#: The subpackages and modules `railx.NAME` imports on first use (module __getattr__, PEP 562);
#: config, network and systems are imported with railx itself.
SUBMODULES = (
    "allocation",
    "availability",
    "collectives",
    "cost",
    "flowsim",
    "libra",
    "multitenant",
    "platforms",
    "progress",
    "report",
    "results",
    "routing",
    "sim",
    "sweep",
    "wavelengths",
    "workload",
)


def __getattr__(name: str) -> ModuleType:
    if name in SUBMODULES:
        return importlib.import_module(f"railx.{name}")  # also binds railx.NAME for next time
    raise AttributeError(f"module 'railx' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *SUBMODULES})


def max_scale(m: int, n: int, R: int) -> list[dict]:
    """Largest system per preset (torus, hyperx, dragonfly) for (m, n, R): grid and chips."""
    return json.loads(_max_scale(m, n, R))
