"""The GPU platforms of the Rail-only paper's §V (railx.platforms) as `[hb_domains]` workload
systems.

N GPUs of a platform in HB domains of K are priced with no network built
(:class:`railx.workload.system.HbDomainsConfig`), from the platform's per-GPU HB and NIC
bandwidths and its GPU's peak and memory. Compute runs at `efficiency` x peak: the one compute
parameter of the model (docs/reproductions.md, "Rail-only: iteration time").
"""

from __future__ import annotations

from typing import Any

from railx.config import ConfigError
from railx.messages import shown
from railx.platforms import PLATFORMS, Platform
from railx.workload.system import WorkloadSystem

__all__ = ["DGX_A100", "DGX_GH200", "EFFICIENCY", "platform_system"]

EFFICIENCY = 0.7
"""Sustained fraction of the dense matmul peak, our assumption for A100 and H100 alike (not
fitted: the HFU validation reports the efficiency each ground-truth case would imply)."""

DGX_A100 = PLATFORMS["dgx-a100"]
"""Megatron-LM's and Korthikanti et al.'s servers: the Fig. 7 validation."""

DGX_GH200 = PLATFORMS["dgx-gh200"]
"""H100 GPUs in NVLink domains of up to 256: the platform of the Figs. 8-10 sweeps."""


def platform_system(
    platform: Platform,
    gpus: int,
    size: int | None = None,
    *,
    hb_tbps: float | None = None,
    nic_gbps: float | None = None,
    efficiency: float = EFFICIENCY,
    training: dict[str, Any] | None = None,
) -> WorkloadSystem:
    """`gpus` of `platform` in HB domains of `size` (default: the platform's), other bandwidths if
    given; `training` is a `[training]` table."""
    gpu = platform.gpu
    if gpu is None:
        raise ConfigError(
            f"platform = {shown(platform.name)}: railx has no GPU compute figures for it; use one of "
            + ", ".join(name for name, p in PLATFORMS.items() if p.gpu is not None)
        )
    return WorkloadSystem.model_validate(
        {
            "hb_domains": {
                "gpus": gpus,
                "size": platform.gpus_per_domain if size is None else size,
                "hb_tbps": platform.hb_tbps if hb_tbps is None else hb_tbps,
                "nic_gbps": platform.nic_gbps if nic_gbps is None else nic_gbps,
            },
            "chip": {
                "sustained_tflops": efficiency * gpu.peak_tflops,
                "peak_tflops": gpu.peak_tflops,
                "memory_GB": gpu.memory_GB,
            },
            "training": training or {},
        }
    )
