"""The Rail-only paper's §V (paper 002): an iteration-time model validated against published HFU
(Fig. 7) and the iteration time of Rail-only clusters against HB-domain size, bandwidths and
batch (Figs. 8-10), all with the one iteration model (:class:`railx.workload.IterationModel`)
on `[hb_domains]` systems."""

from railx.workload.railonly.platform import DGX_A100, DGX_GH200, EFFICIENCY, platform_system
from railx.workload.railonly.sweeps import Point, bandwidth_sweep, batch_sweep, hb_size_sweep
from railx.workload.railonly.validation import HfuCase, HfuRow, hfu_cases, validate_hfu

__all__ = [
    "DGX_A100",
    "DGX_GH200",
    "EFFICIENCY",
    "HfuCase",
    "HfuRow",
    "Point",
    "bandwidth_sweep",
    "batch_sweep",
    "hb_size_sweep",
    "hfu_cases",
    "platform_system",
    "validate_hfu",
]
