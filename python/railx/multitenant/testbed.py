"""Paper 003 §5.B's system testbed as a flow-level simulation: 4 GPUs, two 2-GPU jobs (GPUs 0, 1
and 2, 3) each all-reducing MobileNetV2's gradients, on Flex-SiPAC(2, 2) against static SiPAC,
BCube and leaf-spine (the paper measures 20%, 22% and 23% lower JCT).

The testbed's figures: every GPU has two 10 Gb/s transceivers (two wavelengths, 1550.12 and
1556.55 nm); Flex-SiPAC(r = 2, L = 2) joins GPUs whose addresses differ in one digit, so each job's
pair shares a level-0 WSS and static SiPAC gives it one wavelength while the level-1 one (towards
the other job) idles; Flex-SiPAC moves both wavelengths to level 0 (the testbed: a LAG). BCube has
the same links with an electrical switch per WSS. Leaf-spine: one spine over two aggregation
switches, each linked to two GPUs; the paper gives no link rate, so railx builds it at both
readings: one 10 Gb/s link per GPU (the paper's "linked to two GPUs") and two (the GPU's whole
20 Gb/s, as a LAG that a fluid flow fills).

Every GPU-to-GPU hop (a lightpath, or a switch traversal: two 300 ns fibre segments) takes the
same 600 ns, as in the rest of the multi-tenant evaluation. NCCL's all-reduce of two GPUs (a
ring of two) is the mesh all-reduce: each GPU sends half the message twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from railx.config import ConfigError
from railx.multitenant.baselines import HOP_LATENCY_S, FlexSipacShape, flex_sipac, sipac_static
from railx.multitenant.evaluation import mesh_all_reduce
from railx.multitenant.jobs import JobMix, map_jobs
from railx.systems import System

__all__ = [
    "MOBILENET_V2_BYTES",
    "PAPER_REDUCTION",
    "TESTBED_LINK_BPS",
    "TESTBED_SHAPE",
    "TestbedRow",
    "bcube",
    "leaf_spine",
    "run_testbed",
]

TESTBED_LINK_BPS = 10e9 / 8
"""One SFP+ transceiver (one wavelength): 10 Gb/s."""
TESTBED_SHAPE = FlexSipacShape(r=2, L=2, w=2, rate_Bps=TESTBED_LINK_BPS)
MOBILENET_V2_BYTES = 3_504_872 * 4
"""MobileNetV2 (width 1.0, 224 x 224, 1,000 classes; Sandler et al., arXiv:1801.04381, as built
by TensorFlow's Keras applications): 3,504,872 trainable parameters, fp32 gradients."""
PAPER_REDUCTION = {"sipac": 0.20, "bcube": 0.22, "leaf-spine": 0.23}
"""Flex-SiPAC's JCT reduction against each network, as paper 003 §5.B measures it."""


def _switched(name: str, label: str, n_gpus: int, switches: int, cables: list[tuple[int, int, float]]) -> System:
    """A graph system of GPUs 0..n-1 and switches n.., each cable (a, b, bytes/s) full duplex,
    each end a 300 ns fibre segment (a GPU-switch-GPU path is one 600 ns hop)."""
    links: dict[tuple[int, int], float] = {}
    for a, b, bw in cables:
        for u, v in ((a, b), (b, a)):
            links[(u, v)] = links.get((u, v), 0.0) + bw
    peer: dict[str, Any] = {
        "family": "graph",
        "chips": n_gpus,
        "switches": switches,
        "links": [
            {"src": u, "dst": v, "bandwidth_Bps": bw, "latency_s": HOP_LATENCY_S / 2}
            for (u, v), bw in sorted(links.items())
        ],
    }
    return System(name, label, peer=peer)


def bcube(shape: FlexSipacShape = TESTBED_SHAPE) -> System:
    """BCube(r, L - 1) with SiPAC's links: one electrical switch per WSS (switch id n + level *
    n / r + index), each GPU one link of one wavelength's rate to its switch on every level."""
    topo = shape.topology()
    n = shape.n_cus
    cables = []
    for level in range(shape.L):
        for gpu in range(n):
            wss = topo.wss(gpu, level)
            cables.append((gpu, n + level * (n // shape.r) + wss, shape.rate_Bps))
    return _switched("bcube", f"BCube({shape.r}, {shape.L - 1})", n, shape.L * n // shape.r, cables)


def leaf_spine(n_gpus: int, gpus_per_leaf: int, gpu_links: int, link_Bps: float = TESTBED_LINK_BPS) -> System:
    """One spine over n_gpus / gpus_per_leaf leaves: every GPU `gpu_links` links of `link_Bps` to
    its leaf, every leaf gpus_per_leaf x gpu_links links up to the spine (non-blocking)."""
    if gpus_per_leaf < 1 or n_gpus % gpus_per_leaf or gpu_links < 1:
        raise ConfigError(
            f"leaf-spine: {n_gpus} GPUs, {gpus_per_leaf} per leaf, {gpu_links} links per GPU; "
            "the leaves must split the GPUs evenly and every GPU needs a link, e.g. 4, 2, 1"
        )
    leaves = n_gpus // gpus_per_leaf
    spine = n_gpus + leaves
    cables = [(g, n_gpus + g // gpus_per_leaf, gpu_links * link_Bps) for g in range(n_gpus)]
    cables += [(n_gpus + leaf, spine, gpus_per_leaf * gpu_links * link_Bps) for leaf in range(leaves)]
    rate = gpu_links * link_Bps * 8 / 1e9
    return _switched(
        "leaf-spine", f"leaf-spine, {gpu_links} x {rate / gpu_links:g} Gb/s per GPU", n_gpus, leaves + 1, cables
    )


@dataclass(frozen=True)
class TestbedRow:
    """One network of the testbed: its mix's all-reduce time (the slower job's), Flex-SiPAC's
    reduction against it (railx) and the paper's (None where the paper has no such network)."""

    __test__ = False  # not a pytest class

    network: str
    label: str
    all_reduce_s: float
    reduction: float
    paper_reduction: float | None


def _networks(mix: JobMix, shape: FlexSipacShape) -> list[tuple[str, System]]:
    per_leaf = shape.r  # a leaf per level-0 WSS: the testbed's two GPUs per aggregation switch
    return [
        ("flex-sipac", flex_sipac(mix, "mesh", shape)),
        ("sipac", sipac_static(mix, shape)),
        ("bcube", bcube(shape)),
        ("leaf-spine", leaf_spine(shape.n_cus, per_leaf, 1, shape.rate_Bps)),
        ("leaf-spine", leaf_spine(shape.n_cus, per_leaf, shape.L, shape.rate_Bps)),
    ]


def run_testbed(size_bytes: int = MOBILENET_V2_BYTES, shape: FlexSipacShape = TESTBED_SHAPE) -> list[TestbedRow]:
    """Every network's all-reduce of `size_bytes` per job, both jobs at once (flow level), and
    Flex-SiPAC's reduction against it: 1 - T_flex / T_network."""
    mix = map_jobs([shape.r] * (shape.n_cus // shape.r), shape.n_cus)
    times = [
        (name, system, float(mesh_all_reduce(system, mix, [size_bytes]).max()))
        for name, system in _networks(mix, shape)
    ]
    flex = times[0][2]
    return [TestbedRow(name, system.label, t, 1 - flex / t, PAPER_REDUCTION.get(name)) for name, system, t in times]
