"""The whole wavelength allocation of a Flex-SiPAC network: targets from the jobs, eq. 1 solved
three ways (relaxation, heuristic, exact when small), the heuristic's wavelengths assigned and
checked, and its JSON record (the input of a later reconfiguration)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from railx.config import ConfigError
from railx.messages import shown
from railx.wavelengths.addressing import SiPAC
from railx.wavelengths.colouring import Colouring, assign_wavelengths, wavelength_conflicts
from railx.wavelengths.exact import EXACT_MAX_VARIABLES, Exact, solve_exact
from railx.wavelengths.heuristic import Heuristic, heuristic
from railx.wavelengths.model import Instance
from railx.wavelengths.relaxation import Relaxation, relax
from railx.wavelengths.traffic import Job, traffic_matrix, wavelength_targets

__all__ = ["Allocation", "allocate", "allocation_json", "previous_lightpaths"]

SCHEMA = "railx.wavelengths/v1"


@dataclass(frozen=True)
class Allocation:
    """Everything `railx wavelengths` reports for one network and job mix."""

    instance: Instance
    jobs: tuple[Job, ...]
    relaxation: Relaxation
    heuristic: Heuristic
    exact: Exact | None
    """Eq. 1's integer optimum (egress, ingress <= w)."""
    exact_full: Exact | None
    """The integer optimum among full allocations (egress = ingress = w), the heuristic's own set."""
    colouring: Colouring
    conflicts: list[str]
    """Broken wavelength rules of the colouring (empty: valid)."""

    @property
    def gap(self) -> float | None:
        """Heuristic objective minus the best full allocation's (None without the exact solve)."""
        return None if self.exact_full is None else self.heuristic.objective - self.exact_full.objective


def allocate(topology: SiPAC, w: int, jobs: Sequence[Job], exact: bool | None = None) -> Allocation:
    """Allocates and assigns wavelengths for the jobs; `exact` None runs the exact solver when
    arcs x w is at most EXACT_MAX_VARIABLES."""
    instance = Instance(topology, w, wavelength_targets(traffic_matrix(topology, jobs), w))
    relaxation = relax(instance)
    found = heuristic(instance, relaxation)
    run_exact = exact if exact is not None else len(instance.t) * w <= EXACT_MAX_VARIABLES
    colouring = assign_wavelengths(topology, w, instance.arcs, found.lam)
    return Allocation(
        instance=instance,
        jobs=tuple(jobs),
        relaxation=relaxation,
        heuristic=found,
        exact=solve_exact(instance) if run_exact else None,
        exact_full=solve_exact(instance, full=True) if run_exact else None,
        colouring=colouring,
        conflicts=wavelength_conflicts(topology, w, colouring.lightpaths),
    )


def _arc_rows(a: Allocation) -> list[dict[str, Any]]:
    inst, topo = a.instance, a.instance.topology
    rows = []
    for k, (i, j) in enumerate(inst.arcs):
        values = [inst.t[k], a.relaxation.lam[k], a.heuristic.lam[k], 0 if a.exact is None else a.exact.lam[k]]
        if not any(v > 0 for v in values):
            continue
        level = int(topo.arc_levels[k])
        rows.append(
            {
                "src": int(i),
                "dst": int(j),
                "wss": topo.wss_label(level, topo.wss(int(i), level)),
                "target": float(inst.t[k]),
                "relaxed": float(a.relaxation.lam[k]),
                "heuristic": int(a.heuristic.lam[k]),
                "exact": None if a.exact is None else int(a.exact.lam[k]),
            }
        )
    return rows


def allocation_json(a: Allocation) -> dict[str, Any]:
    """The JSON record: network, jobs, objectives, per-pair allocation and the lightpaths with
    their wavelengths (what `--previous` reads back)."""
    topo = a.instance.topology
    return {
        "schema": SCHEMA,
        "r": topo.r,
        "L": topo.L,
        "w": a.instance.w,
        "N": topo.N,
        "jobs": [{"name": j.name, "cus": sorted(j.cus), "collective": j.collective} for j in a.jobs],
        "objective": {
            "relaxation": a.relaxation.objective,
            "heuristic": a.heuristic.objective,
            "heuristic_rounded": a.heuristic.rounded_objective,
            "exact": None if a.exact is None else a.exact.objective,
            "exact_full": None if a.exact_full is None else a.exact_full.objective,
            "gap": a.gap,
        },
        "heuristic": {"filled": a.heuristic.filled, "taken_back": a.heuristic.taken_back},
        "allocation": _arc_rows(a),
        "colouring": {
            "method": a.colouring.method,
            "dsatur_colours": a.colouring.dsatur_colours,
            "valid": not a.conflicts,
            "conflicts": a.conflicts,
        },
        "lightpaths": a.colouring.lightpaths.tolist(),
    }


def previous_lightpaths(data: Any, topology: SiPAC, w: int, source: str) -> np.ndarray:
    """The lightpaths of an earlier `railx wavelengths --json` record, checked against this
    network (same r, L, w) and the wavelength rules."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ConfigError(f"{source}: not a {SCHEMA} record; write one with `railx wavelengths CONFIG --json`")
    for key, value in (("r", topology.r), ("L", topology.L), ("w", w)):
        if data.get(key) != value:
            raise ConfigError(
                f"{source}: {key} = {shown(data.get(key))}, but this network has {key} = {value}; compare allocations of one network"
            )
    try:
        lightpaths = np.array(data["lightpaths"], dtype=np.int64).reshape(-1, 3)
    except (KeyError, TypeError, ValueError):
        raise ConfigError(
            f"{source}: lightpaths must be a list of [source, destination, wavelength] integers"
        ) from None
    problems = wavelength_conflicts(topology, w, lightpaths)
    if problems:
        raise ConfigError(f"{source}: lightpaths: {problems[0]}; give a record written by railx wavelengths")
    return lightpaths
