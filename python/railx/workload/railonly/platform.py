"""The GPU platforms of the Rail-only paper's §V, as `[hb_domains]` workload systems.

A platform is a GPU (peak dense FLOP/s, memory) and its per-GPU HB and NIC bandwidths; the
system of N of them in HB domains of K is priced with no network built
(:class:`railx.workload.system.HbDomainsConfig`). Compute runs at `efficiency` x peak: the one
compute parameter of the model (docs/reproductions.md, "Rail-only: iteration time").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from railx.workload.system import WorkloadSystem

__all__ = ["DGX_A100", "DGX_GH200", "EFFICIENCY", "Platform"]

EFFICIENCY = 0.7
"""Sustained fraction of the dense matmul peak, our assumption for A100 and H100 alike (not
fitted: the HFU validation reports the efficiency each ground-truth case would imply)."""


@dataclass(frozen=True)
class Platform:
    """Per-GPU numbers of a platform; bandwidths per direction."""

    name: str
    peak_tflops: float
    memory_GB: float
    hb_tbps: float
    nic_gbps: float
    hb_domain: int

    def system(
        self,
        gpus: int,
        size: int | None = None,
        *,
        hb_tbps: float | None = None,
        nic_gbps: float | None = None,
        efficiency: float = EFFICIENCY,
        training: dict[str, Any] | None = None,
    ) -> WorkloadSystem:
        """`gpus` of this platform in HB domains of `size` (default: the platform's), other
        bandwidths if given; `training` is a `[training]` table."""
        return WorkloadSystem.model_validate(
            {
                "hb_domains": {
                    "gpus": gpus,
                    "size": self.hb_domain if size is None else size,
                    "hb_tbps": self.hb_tbps if hb_tbps is None else hb_tbps,
                    "nic_gbps": self.nic_gbps if nic_gbps is None else nic_gbps,
                },
                "chip": {
                    "sustained_tflops": efficiency * self.peak_tflops,
                    "peak_tflops": self.peak_tflops,
                    "memory_GB": self.memory_GB,
                },
                "training": training or {},
            }
        )


DGX_A100 = Platform("DGX A100", peak_tflops=312.0, memory_GB=80.0, hb_tbps=2.4, nic_gbps=200.0, hb_domain=8)
"""A100 SXM: 312 TFLOP/s dense FP16/BF16; NVLink 3: 12 links x 25 GB/s = 300 GB/s = 2.4 Tb/s each
direction; one 200 Gb/s HDR InfiniBand HCA per GPU (8 per DGX A100)."""

DGX_GH200 = Platform("DGX GH200", peak_tflops=989.0, memory_GB=80.0, hb_tbps=3.6, nic_gbps=400.0, hb_domain=256)
"""H100: 989 TFLOP/s dense BF16; NVLink 4: 18 links x 25 GB/s = 450 GB/s = 3.6 Tb/s each direction
(the Rail-only paper §II-A, §III-B); one 400 Gb/s ConnectX-7 per GPU (§III-B); 256 GPUs per DGX
GH200. Memory: the H100's 80 GB HBM3 (the paper's sweeps are on H100 GPUs; the GH200's Grace
memory is not counted)."""
