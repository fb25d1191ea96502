"""Collective communication models. `analytic`: closed-form alpha-beta times (DESIGN.md §7);
schedules and simulated times plug in beside it."""

from railx.collectives import analytic
from railx.collectives.analytic import *  # noqa: F403 - the analytic models are this package's API

__all__ = list(analytic.__all__)
