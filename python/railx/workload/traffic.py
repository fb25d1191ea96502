"""Per-iteration traffic and compute of one training rank (RailX paper Table 4; docs/workloads.md).

Ranks are numbered in the parallelism order [T, C, E, De, P] (T innermost). For a model, a
parallelism and a sequence, :func:`traffic` lists every collective of an iteration with its
pattern, process group, volume and frequency exactly as Table 4, and :func:`compute_flops` the
FLOPs of one micro-batch on one pipeline stage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from railx.config import ConfigError
from railx.workload.catalogue import ModelSpec

__all__ = [
    "DIMS",
    "PAPER_TRAFFIC",
    "Collective",
    "Dim",
    "Parallelism",
    "Recompute",
    "StageFlops",
    "compute_flops",
    "traffic",
]

#: The Rail-only paper's printed traffic figures (paper 002, §III, Figs. 2-5), as fractions and
#: bytes: the share of GPU pairs with no traffic (above, Fig. 2b), TP's share of the bytes (above,
#: Fig. 2a), GPT-1T's largest pair inside an HB domain and across domains (about, Fig. 3), the
#: all-reduce bytes kept inside the GH200 domain (Fig. 4) and all-to-all's share of MoE-1.3B's
#: bytes (Fig. 5).
PAPER_TRAFFIC: dict[str, float] = {
    "no_traffic_pairs_above": 0.99,
    "tp_share_above": 0.75,
    "gpt1t_max_hb_pair_bytes": 300e9,
    "gpt1t_max_nic_pair_bytes": 6e9,
    "gh200_all_reduce_in_domain": 0.98,
    "moe_all_to_all_share": 0.27,
}

Dim = Literal["T", "C", "E", "De", "P"]
"""A parallelism dimension of the rank grid."""
DIMS: tuple[Dim, ...] = ("T", "C", "E", "De", "P")
"""Parallelism dimensions, innermost first: tensor, context, expert, data within expert, pipeline."""

Pattern = Literal["RS+AG", "point-to-point", "all-to-all", "all-reduce"]

Recompute = Literal["none", "selective", "full"]
"""Activation recomputation (Korthikanti et al., Reducing Activation Recomputation in Large
Transformer Models, MLSys 2023): none; "selective" recomputes the attention core (scores, softmax,
attention over values) in the backward pass; "full" recomputes every transformer layer's forward."""


@dataclass(frozen=True)
class Parallelism:
    """Parallel sizes and the batch: T, C, E, D (= E * De, attention data parallelism), P; micro-batch
    B (sequences), N_B micro-batches per data-parallel rank, sequence length S (tokens), the
    element size in bytes, and `interleave` v: model chunks per pipeline stage (Megatron-LM's
    interleaved 1F1B schedule; 1 is plain 1F1B), which divides the bubble by v and multiplies the
    pipeline sends by v."""

    T: int = 1
    C: int = 1
    E: int = 1
    D: int = 1
    P: int = 1
    micro_batch: int = 1
    micro_batches: int = 1
    sequence: int = 4096
    dtype_bytes: int = 2
    interleave: int = 1

    @property
    def De(self) -> int:
        """Data parallelism within an expert group: D / E."""
        return self.D // self.E

    @property
    def ranks(self) -> int:
        """Chips one replica set uses: T * C * D * P."""
        return self.T * self.C * self.D * self.P

    def size(self, dim: Dim) -> int:
        """Size of one dimension of [T, C, E, De, P]."""
        return self.De if dim == "De" else getattr(self, dim)

    def check(self, model: ModelSpec) -> None:
        """Raises ConfigError (one line naming the field) unless this parallelism fits the model."""
        for name in ("T", "C", "E", "D", "P", "micro_batch", "micro_batches", "sequence", "dtype_bytes", "interleave"):
            if getattr(self, name) < 1:
                raise ConfigError(
                    f"parallel.{name} = {getattr(self, name)}: must be a positive integer; e.g. {name} = 1"
                )
        v = model.values()
        rules = [
            (
                "D",
                self.D % self.E == 0,
                f"must be a multiple of E = {self.E} (D = E * De); e.g. D = {self.E * max(1, self.D // self.E)}",
            ),
            (
                "T",
                v["heads"] % self.T == 0,
                f"must divide the attention heads ({v['heads']} in {model.name}); e.g. T = {_divisor_at_most(v['heads'], self.T)}",
            ),
            (
                "T",
                v["ffn"] % self.T == 0,
                f"must divide the FFN width ({v['ffn']} in {model.name}); e.g. T = {_divisor_at_most(v['ffn'], self.T)}",
            ),
            (
                "E",
                v["experts"] % self.E == 0,
                f"must divide the experts ({v['experts']} in {model.name}); e.g. E = {_divisor_at_most(v['experts'], self.E)}",
            ),
            (
                "P",
                v["layers"] % self.P == 0,
                f"must divide the layers ({v['layers']} in {model.name}); e.g. P = {_divisor_at_most(v['layers'], self.P)}",
            ),
            (
                "P",
                (v["layers"] // self.P) % v["moe_layer_interval"] == 0,
                f"must leave each stage a whole number of MoE layers (every {v['moe_layer_interval']}th of "
                f"{v['layers']} layers in {model.name}); e.g. P = 1",
            ),
            (
                "interleave",
                (v["layers"] // self.P) % self.interleave == 0,
                f"must divide the {v['layers'] // self.P} layers of a stage ({v['layers']} layers / P = {self.P}); "
                f"e.g. interleave = {_divisor_at_most(max(1, v['layers'] // self.P), self.interleave)}",
            ),
            (
                "C",
                self.sequence % self.C == 0,
                f"must divide the sequence length {self.sequence}; e.g. C = {_divisor_at_most(self.sequence, self.C)}",
            ),
        ]
        for name, ok, rule in rules:
            if not ok:
                raise ConfigError(f"parallel.{name} = {getattr(self, name)}: {rule}")

    def coords(self, rank: int) -> dict[Dim, int]:
        """Mixed-radix coordinates of a rank over [T, C, E, De, P]."""
        out: dict[Dim, int] = {}
        for dim in DIMS:
            out[dim], rank = rank % self.size(dim), rank // self.size(dim)
        return out

    def rank(self, coords: dict[Dim, int]) -> int:
        """Inverse of :meth:`coords`."""
        rank, stride = 0, 1
        for dim in DIMS:
            rank += coords[dim] * stride
            stride *= self.size(dim)
        return rank

    def group(self, rank: int, dims: tuple[Dim, ...]) -> list[int]:
        """The ranks that differ from `rank` only along `dims`, ascending."""
        base = self.coords(rank)
        members = [dict(base)]
        for dim in dims:
            members = [{**c, dim: x} for c in members for x in range(self.size(dim))]
        return sorted(self.rank(c) for c in members)


def _divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of n not above limit (a valid size to suggest)."""
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


@dataclass(frozen=True)
class Collective:
    """One row of Table 4: a collective every rank performs `frequency` times per iteration.

    `dims` are the parallelism dimensions its group spans (in [T, C, E, De, P] order);
    `volume_elements` the per-rank volume of one occurrence."""

    name: str
    parallelism: str
    pattern: Pattern
    dims: tuple[Dim, ...]
    volume_elements: float
    frequency: float
    dtype_bytes: int

    @property
    def volume_bytes(self) -> float:
        """Volume of one occurrence in bytes."""
        return self.volume_elements * self.dtype_bytes

    def group_size(self, par: Parallelism) -> int:
        """Ranks in one process group."""
        return math.prod(par.size(d) for d in self.dims)


def traffic(model: ModelSpec, par: Parallelism) -> list[Collective]:
    """Every collective of one training iteration of one rank, as in Table 4 of the RailX paper.

    A model with MoE only in every i-th layer (`moe_layer_interval` > 1) has two more rows for its
    dense layers: `T.ffn.dense` (top-1 volume) and `D.ffn.dense` (the dense FFN is replicated across
    E, so its gradients are all-reduced over C x E x De); the MoE rows then count the MoE layers only.
    """
    par.check(model)
    v = model.values()
    B, S, H, L = par.micro_batch, par.sequence, v["hidden"], v["layers"]
    K, I, V = v["top_k"], v["ffn"], v["vocab"]
    T, C, P, NB = par.T, par.C, par.P, par.micro_batches
    kv_ratio = v["kv_heads"] / v["heads"]
    per_layer = NB * L / P
    moe, dense = model.moe_fraction, 1.0 - model.moe_fraction
    rows: list[tuple[str, str, Pattern, tuple[Dim, ...], float, float]] = [
        ("T.attention", "T", "RS+AG", ("T",), B * S * H, 4 * per_layer),
        ("T.ffn", "T", "RS+AG", ("T",), B * S * H * K, 4 * per_layer * moe),
        ("C", "C", "point-to-point", ("C",), B * S * H * (2 * kv_ratio) / T, 2 * per_layer),
        ("E", "E", "all-to-all", ("E",), B * S * H * K / (T * C), 4 * per_layer * moe),
        ("D.vocab", "D", "all-reduce", ("E", "De"), 2 * H * V / (T * C), 1),
        ("D.qkv", "D", "all-reduce", ("C", "E", "De"), (2 + 2 * kv_ratio) * H * H / T, L / P),
        ("D.ffn", "D", "all-reduce", ("C", "De"), v["ffn_matrices"] * H * I / T, L / P * moe),
        ("P", "P", "point-to-point", ("P",), B * S * H / (T * C), 2 * NB * par.interleave),
    ]
    if dense > 0:
        rows[2:2] = [("T.ffn.dense", "T", "RS+AG", ("T",), B * S * H, 4 * per_layer * dense)]
        rows.insert(
            -1, ("D.ffn.dense", "D", "all-reduce", ("C", "E", "De"), v["ffn_matrices"] * H * I / T, L / P * dense)
        )
    return [Collective(n, p, pat, dims, vol, f, par.dtype_bytes) for n, p, pat, dims, vol, f in rows]


@dataclass(frozen=True)
class StageFlops:
    """FLOPs of one micro-batch on one pipeline stage of one rank: forward and backward (2x forward,
    plus the recomputed forward work), split into the parts that sit between the collectives."""

    qkv: float
    attention: float
    out_proj: float
    router: float
    ffn: float
    vocab: float
    recompute: float = 0.0

    @property
    def forward(self) -> float:
        """All forward FLOPs."""
        return self.qkv + self.attention + self.out_proj + self.router + self.ffn + self.vocab

    @property
    def backward(self) -> float:
        """Backward FLOPs: input and weight gradients (twice the forward) and the recomputation."""
        return 2.0 * self.forward + self.recompute

    @property
    def model(self) -> float:
        """Model FLOPs (forward and backward, no recomputation): what MFU counts."""
        return 3.0 * self.forward

    @property
    def hardware(self) -> float:
        """Hardware FLOPs (with the recomputation): what HFU counts."""
        return self.forward + self.backward


def compute_flops(model: ModelSpec, par: Parallelism, recompute: Recompute = "none") -> StageFlops:
    """Dense matmul FLOPs (2 per multiply-add) of one micro-batch on the stage holding L/P layers and
    the vocabulary projection, per rank: tokens split by C, weights and heads by T, experts by E
    (each token runs top_k experts in an MoE layer, the one FFN in a dense layer between them).
    Attention is full (no causal halving).

    For a GPT (GELU MLP of width 4h, one key/value head per head) forward plus backward is
    Korthikanti et al.'s model-FLOPs formula, 72 B s l h^2 (1 + s/(6h) + v/(12 h l)) per
    micro-batch of the whole model (docs/workloads.md). `recompute` adds the backward's
    recomputation as their hardware-FLOPs formulas count it: "full" one more forward of the
    layers (96 B s l h^2 (1 + s/(6h) + v/(16 h l)) in all); "selective" 12 B s^2 h per layer,
    which is their 72 B s l h^2 (1 + s/(3h) + v/(12 h l)) (the published MFU/HFU ratios of all
    four of their models follow from it)."""
    par.check(model)
    v = model.values()
    tokens = par.micro_batch * par.sequence / par.C
    H, layers = v["hidden"], v["layers"] / par.P
    kv_ratio = v["kv_heads"] / v["heads"]
    shard = par.T
    moe = model.moe_fraction
    router = 2.0 * tokens * H * v["experts"] * moe if v["experts"] > 1 else 0.0
    experts_per_token = v["top_k"] * moe + (1.0 - moe)  # top_k experts in MoE layers, one dense FFN elsewhere
    flops = StageFlops(
        qkv=layers * 2.0 * tokens * H * H * (1 + 2 * kv_ratio) / shard,
        attention=layers * 4.0 * tokens * par.sequence * H / shard,
        out_proj=layers * 2.0 * tokens * H * H / shard,
        router=layers * router,
        ffn=layers * 2.0 * v["ffn_matrices"] * tokens * H * v["ffn"] * experts_per_token / shard,
        vocab=2.0 * tokens * H * v["vocab"] / shard,
    )
    if recompute == "full":
        return replace(flops, recompute=flops.forward - flops.vocab)
    if recompute == "selective":
        return replace(flops, recompute=3.0 * flops.attention)
    return flops
