"""Design-space sweeps (docs/sweeps.md): a spec names an analysis, a base system, options and
axes; the points run as Dask tasks (an embedded cluster, or an existing one) and land in a
resumable DuckDB store keyed by each point's content hash."""

from railx.sweep.engine import SweepSummary, dask_client, run_sweep
from railx.sweep.registry import ANALYSES, FIGURES, Analysis
from railx.sweep.spec import Point, Sweep, load_spec, parse_spec, point_key
from railx.sweep.store import DEFAULT_STORE, Store

__all__ = [
    "ANALYSES",
    "DEFAULT_STORE",
    "FIGURES",
    "Analysis",
    "Point",
    "Store",
    "Sweep",
    "SweepSummary",
    "dask_client",
    "load_spec",
    "parse_spec",
    "point_key",
    "run_sweep",
]
