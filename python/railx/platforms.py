"""GPU platforms with a high-bandwidth (HB) domain (Rail-only paper 002 §II-A), as Rail-only and
rail-optimised peers: a [peer] table names a `platform` and how many `domains` (or `gpus`), and
the platform fills in its HB domain size K, its HB bandwidth and its NIC bandwidth per GPU.

Bandwidths are per GPU and per direction (NVLink's "bidirectional" figures halved). Every NVIDIA
platform here joins its HB domain with NVSwitch, so its HB model is `switch` (any pair of GPUs at
the full per-GPU rate). Sources: the paper (§II-A: DGX H100 3.6 Tb/s, DGX GH200 256 GPUs at
3.6 Tb/s with a 400 Gb/s ConnectX-7 each, GB200 NVL72 7.2 Tb/s per GPU; §III-A: DGX A100 with an
HB domain of 8) and NVIDIA's datasheets: DGX A100 (NVLink 3, 600 GB/s bidirectional per GPU; eight
200 Gb/s ConnectX-6 for the compute fabric), DGX H100 (NVLink 4, 900 GB/s bidirectional; eight
400 Gb/s ConnectX-7), DGX GH200 (NVLink 4 through the NVLink switch system; one 400 Gb/s
ConnectX-7 per superchip), DGX GB200 NVL72 (NVLink 5, 1.8 TB/s bidirectional per GPU; one 400 Gb/s
ConnectX-7 per GPU) and GB300 NVL72 (NVLink 5; one 800 Gb/s ConnectX-8 per GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from railx.config import ConfigError
from railx.messages import shown

__all__ = ["GPUS", "NETWORKS", "PLATFORMS", "Gpu", "Platform", "expand_platform", "platform_peer"]

GB = 1e9
GBIT = 1e9 / 8
# The two networks a platform's NICs can be joined by (docs/cost.md).
NETWORKS = ("rail-only", "rail-optimised")


@dataclass(frozen=True)
class Gpu:
    """A GPU's dense BF16/FP16 matmul peak and its HBM, for the workload model."""

    name: str
    peak_tflops: float
    memory_GB: float
    source: str


GPUS: dict[str, Gpu] = {
    g.name: g
    for g in [
        Gpu("A100", 312.0, 80.0, "A100 SXM 80 GB datasheet: 312 TFLOP/s dense FP16/BF16"),
        Gpu("H100", 989.0, 80.0, "H100 SXM datasheet: 989 TFLOP/s dense BF16, 80 GB HBM3"),
    ]
}


@dataclass(frozen=True)
class Platform:
    """An HB domain of `gpus_per_domain` GPUs (K), `hb_Bps` of HB bandwidth and `nic_Bps` of
    network bandwidth per GPU and direction, and where the numbers come from."""

    name: str
    label: str
    gpus_per_domain: int
    hb_Bps: float
    nic_Bps: float
    source: str
    gpu: Gpu | None = None
    """The GPU, where the workload model needs its compute (None: not modelled)."""

    @property
    def hb_tbps(self) -> float:
        """HB bandwidth per GPU and direction, in Tb/s."""
        return self.hb_Bps * 8 / 1e12

    @property
    def nic_gbps(self) -> float:
        """NIC bandwidth per GPU and direction, in Gb/s."""
        return self.nic_Bps * 8 / 1e9

    @property
    def hb_ports_per_gpu(self) -> float:
        """HB bandwidth in NIC ports (the peers' `hb_ports_per_chip`)."""
        return self.hb_Bps / self.nic_Bps


PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in [
        Platform(
            "dgx-a100",
            "DGX A100",
            8,
            300 * GB,
            200 * GBIT,
            "NVLink 3 600 GB/s bidirectional per GPU; 8 x 200 Gb/s ConnectX-6 (DGX A100 datasheet; paper 002 §III-A)",
            GPUS["A100"],
        ),
        Platform(
            "dgx-h100",
            "DGX H100",
            8,
            450 * GB,
            400 * GBIT,
            "NVLink 4 900 GB/s bidirectional (3.6 Tb/s) per GPU; 8 x 400 Gb/s ConnectX-7 (DGX H100 datasheet; paper 002 §II-A)",
            GPUS["H100"],
        ),
        Platform(
            "dgx-gh200",
            "DGX GH200",
            256,
            450 * GB,
            400 * GBIT,
            "256 GH200 on the NVLink switch system at 3.6 Tb/s; 400 Gb/s ConnectX-7 per GPU (paper 002 §II-A, §III-B)",
            # Paper 002's §V sweeps run H100 GPUs in these domains: the Hopper GPU at H100's peak
            # and 80 GB, the Grace memory not counted.
            GPUS["H100"],
        ),
        Platform(
            "gb200-nvl72",
            "GB200 NVL72",
            72,
            900 * GB,
            400 * GBIT,
            "NVLink 5 1.8 TB/s bidirectional (7.2 Tb/s) per GPU (paper 002 §II-A); one 400 Gb/s ConnectX-7 per GPU (DGX GB200 datasheet)",
        ),
        Platform(
            "gb300-nvl72",
            "GB300 NVL72",
            72,
            900 * GB,
            800 * GBIT,
            "NVLink 5 1.8 TB/s bidirectional per GPU; one 800 Gb/s ConnectX-8 per GPU (GB300 NVL72 reference architecture)",
        ),
    ]
}

# Keys a platform fills in; a [peer] table naming a platform may not also give them.
_FILLED = ("hb_domain", "hb_ports_per_chip", "hb_model", "dims")


def platform_peer(
    platform: str | Platform, domains: int, network: str = "rail-only", radix: int = 64
) -> dict[str, Any]:
    """The peer spec of `domains` HB domains of `platform` joined by `network` (`rail-only`: one
    minimum-tier Clos per rail; `rail-optimised`: one full-bisection Clos over every NIC) of
    radix-`radix` switches."""
    plat = _platform(platform)
    if network not in NETWORKS:
        raise ConfigError(
            f"family = {shown(network)}: a platform's GPUs form a Rail-only or rail-optimised network; "
            'use family = "rail-only" or "rail-optimised"'
        )
    if not (isinstance(domains, int) and domains >= 1):
        raise ConfigError(
            f"domains = {shown(domains)}: the number of HB domains must be a positive integer; e.g. domains = 16"
        )
    spec: dict[str, Any] = {
        "family": network,
        "radix": radix,
        "hb_domain": plat.gpus_per_domain,
        "hb_model": "switch",
        "hb_ports_per_chip": plat.hb_ports_per_gpu,
        "link": {"port_bw_Bps": plat.nic_Bps},
    }
    if network == "rail-only":
        spec["dims"] = [{"size": domains, "rails": 1}]
    else:
        spec["domains"] = domains
    return spec


def expand_platform(peer: dict[str, Any]) -> dict[str, Any]:
    """A [peer] table with `platform` (and `domains` or `gpus`) as the full peer spec; any other
    table unchanged. Bad input (an unknown platform, GPUs that K does not divide, a key the
    platform sets) is a one-line ConfigError."""
    if "platform" not in peer:
        return peer
    rest = dict(peer)
    name = rest.pop("platform")
    plat = _platform(name)
    for key in _FILLED:
        if key in rest:
            raise ConfigError(
                f"peer.{key}: set by platform = {shown(name)}; drop it, or drop platform and give every key"
            )
    k = plat.gpus_per_domain
    if ("gpus" in rest) == ("domains" in rest):
        raise ConfigError(
            f"peer.platform = {shown(name)}: give the size as domains (HB domains) or gpus; e.g. domains = 16"
        )
    if "gpus" in rest:
        gpus = rest.pop("gpus")
        if not (isinstance(gpus, int) and gpus >= k and gpus % k == 0):
            lower = max(k, gpus // k * k) if isinstance(gpus, int) else k
            raise ConfigError(
                f"peer.gpus = {shown(gpus)}: must be a positive multiple of {name}'s HB domain of K = {k} GPUs; "
                f"e.g. gpus = {lower} or {lower + k}"
            )
        domains = gpus // k
    else:
        domains = rest.pop("domains")
    network = rest.pop("family", "rail-only")
    link = rest.pop("link", {})
    spec = platform_peer(plat, domains, network, rest.pop("radix", 64))
    spec["link"] = spec["link"] | link
    return spec | rest


def _platform(platform: str | Platform) -> Platform:
    if isinstance(platform, Platform):
        return platform
    if platform not in PLATFORMS:
        raise ConfigError(f"platform = {shown(platform)}: unknown platform; use one of {', '.join(PLATFORMS)}")
    return PLATFORMS[platform]
