"""Collective communication: `analytic` holds the closed forms of RailX paper §4.2 and A.2 (used
by the workload models); `plans` and `models` price every schedule the Rust core builds (ring,
bidir-ring, 2d-ring, hierarchical, direct, multi-rail, two-step) with per-line links derived from
a RailX system (`params`); `commands` is `railx collective`."""

from railx.collectives import analytic
from railx.collectives.analytic import *  # noqa: F403 - the analytic models are this package's API
from railx.collectives.models import Estimate, bus_bandwidth_factor, estimate
from railx.collectives.params import LogicalDim, RailxParams

__all__ = [*analytic.__all__, "Estimate", "LogicalDim", "RailxParams", "bus_bandwidth_factor", "estimate"]
