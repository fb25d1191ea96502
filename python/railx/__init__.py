"""railx: design, configure and evaluate interconnection networks for hyper-scale AI training.

The RailX plant, OCS synthesis, realized network and metrics live in the Rust core
(`railx._core`); this package is the user surface: configuration, the Python API and the CLI.

The names below, and every subpackage (`railx.cost.table6()`, `railx.sim.simulate(...)`), are
loaded on first use (PEP 562), so `import railx` (and the `railx` command's start-up) costs only
the core's exception types, not pydantic or NumPy.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any

from railx._core import Cancelled, ConfigError, InternalError, RailxError, VerificationError, hamiltonian_rails
from railx._core import max_scale as _max_scale

if TYPE_CHECKING:
    from railx.config import Config, load_config
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

# Public names defined in a submodule, by the module that defines them (imported on first use).
_LAZY: dict[str, str] = {
    "Config": "railx.config",
    "load_config": "railx.config",
    "Network": "railx.network",
    "realize": "railx.network",
    "verify_ocs_file": "railx.network",
    "System": "railx.systems",
}


#: The subpackages and modules `railx.NAME` imports on first use, without an explicit import.
SUBMODULES = (
    "allocation",
    "availability",
    "collectives",
    "config",
    "cost",
    "flowsim",
    "libra",
    "multitenant",
    "network",
    "platforms",
    "progress",
    "report",
    "results",
    "routing",
    "sim",
    "sweep",
    "systems",
    "wavelengths",
    "workload",
)


def __getattr__(name: str) -> Any:
    if name in SUBMODULES:
        return importlib.import_module(f"railx.{name}")  # which also binds railx.NAME
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'railx' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *SUBMODULES})


def max_scale(m: int, n: int, R: int) -> list[dict]:
    """Largest system per preset (torus, hyperx, dragonfly) for (m, n, R): grid and chips."""
    return json.loads(_max_scale(m, n, R))
