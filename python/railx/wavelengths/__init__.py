"""Flex-SiPAC wavelength allocation (paper 003, §3.C): jobs' traffic to wavelength targets, eq. 1
solved by its relaxation, the paper's heuristic and an exact MILP, wavelengths assigned by
colouring, and reconfiguration diffs. The topology enters only through `SiPAC` (addressing.py)."""

from railx.wavelengths.addressing import SiPAC
from railx.wavelengths.allocation import Allocation, allocate, allocation_json
from railx.wavelengths.colouring import (
    Colouring,
    assign_wavelengths,
    conflict_graph,
    konig_colours,
    wavelength_conflicts,
)
from railx.wavelengths.config import WavelengthConfig, load_wavelength_config
from railx.wavelengths.exact import Exact, solve_exact
from railx.wavelengths.heuristic import Heuristic, heuristic
from railx.wavelengths.model import Instance
from railx.wavelengths.reconfiguration import Reconfiguration, apply_diff, recolour, reconfigure, relabel
from railx.wavelengths.relaxation import Relaxation, relax
from railx.wavelengths.traffic import COLLECTIVES, Job, traffic_matrix, wavelength_targets

__all__ = [
    "COLLECTIVES",
    "Allocation",
    "Colouring",
    "Exact",
    "Heuristic",
    "Instance",
    "Job",
    "Reconfiguration",
    "Relaxation",
    "SiPAC",
    "WavelengthConfig",
    "allocate",
    "allocation_json",
    "apply_diff",
    "assign_wavelengths",
    "conflict_graph",
    "heuristic",
    "konig_colours",
    "load_wavelength_config",
    "reconfigure",
    "recolour",
    "relabel",
    "relax",
    "solve_exact",
    "traffic_matrix",
    "wavelength_conflicts",
    "wavelength_targets",
]
