"""The fastest parallelisation of a dense model on a system: every T x P x D that fits the GPUs,
the global batch and the GPU memory, each evaluated with the one iteration model (eq. 10).

This is how the Rail-only paper's §V-B picks a parallelisation for every cluster and HB-domain
size ("we enumerate all possible parallelization strategies ... and use the optimal one"). The
memory rule is the standard one for Megatron-LM-style mixed-precision training with Adam:

- model states: 16 bytes per parameter (fp16 weights and gradients, fp32 master weights and
  two Adam moments; Rajbhandari et al., ZeRO, SC'20, §3.1), split over T x P;
- activations: 34 s b h bytes per layer and rank with sequence parallelism and selective
  recomputation (Korthikanti et al., MLSys 2023, Table 2), divided by T, for the P micro-batches
  of L/P layers the first stage of a 1F1B pipeline holds: 34 s b h L / T (their eq. 5); with v
  model chunks per stage (the interleaved schedule) the first stage holds 1 + (P - 1)/(P v) times
  that (their §4.2.3).

By default the search keeps the system's `[training] interleave`; `search_interleave=True` also
tries every interleaving v dividing the layers of a stage, as Calculon's execution search does
(Isaev et al., SC'23: `calculon/llm/optimal_execution.py` enumerates every pipeline interleaving
with T, P and D). Interleaving divides the bubble by v (eq. 10) and multiplies the pipeline sends
by v, so it decides whether the bubble or the sends (and, through T, the HB traffic) dominate.

`search_micro_batch=True` also tries every micro-batch size dividing a data-parallel rank's batch,
as Calculon's search does (`Llm.get_valid_microbatch_sizes`).

`optimizer_sharding=True` is the memory rule of Calculon's optimizer sharding (its search tries it
whenever D > 1; `calculon/llm/llm.py` keeps the fp16 weights whole, shards the weight gradients and
the optimizer state over the D data-parallel ranks, and keeps one layer's gradients unsharded
before their reduction): 2 + 14/D bytes per parameter over T x P, plus one layer's 2-byte
gradients. Its communication is a reduce-scatter and an all-gather of the gradients, the two
halves of the all-reduce railx already counts, so it changes which T x P x D fit, not their time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from railx.config import ConfigError
from railx.workload.catalogue import ModelSpec
from railx.workload.iteration import IterationModel
from railx.workload.system import WorkloadSystem
from railx.workload.traffic import Parallelism

__all__ = ["Candidate", "best_parallelism", "memory_bytes"]

MODEL_STATE_BYTES_PER_PARAM = 16
"""fp16 weights and gradients and fp32 Adam states (master weights, two moments): ZeRO's 16 bytes."""
WEIGHT_BYTES_PER_PARAM = 2
"""fp16 weights: the part of the model states optimizer sharding keeps whole."""
GRADIENT_BYTES_PER_PARAM = 2
"""fp16 weight gradients."""
ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 34
"""Korthikanti et al.'s activation bytes per layer per token per hidden unit with sequence
parallelism and selective recomputation (their Table 2, divided by the tensor-parallel size)."""


@dataclass(frozen=True)
class Candidate:
    """One parallelisation and its iteration time."""

    par: Parallelism
    time_s: float
    memory_bytes: float


def memory_bytes(model: ModelSpec, par: Parallelism, *, optimizer_sharding: bool = False) -> float:
    """Bytes one GPU of the first pipeline stage needs: model states (sharded over D with
    `optimizer_sharding`) and activations (module docstring)."""
    v = model.values()
    params = model.parameter_count() / (par.T * par.P)
    if optimizer_sharding:
        sharded = (MODEL_STATE_BYTES_PER_PARAM - WEIGHT_BYTES_PER_PARAM) / par.D
        unsharded_layer = GRADIENT_BYTES_PER_PARAM * params * par.P / v["layers"]  # awaiting its reduce-scatter
        states = (WEIGHT_BYTES_PER_PARAM + sharded) * params + unsharded_layer
    else:
        states = MODEL_STATE_BYTES_PER_PARAM * params
    in_flight: float = min(par.P, par.micro_batches)  # 1F1B: the first stage holds up to P micro-batches
    if par.interleave > 1:  # the interleaved schedule runs more micro-batches ahead on the first stage
        in_flight *= 1 + (par.P - 1) / (par.P * par.interleave)
    activations = (
        ACTIVATION_BYTES_PER_TOKEN_HIDDEN
        * par.sequence
        * par.micro_batch
        * v["hidden"]
        * (v["layers"] / par.P)
        * in_flight
        / (par.T * par.C)
    )
    return states + activations


def best_parallelism(
    model: ModelSpec,
    system: WorkloadSystem,
    global_batch: int,
    *,
    search_interleave: bool = False,
    search_micro_batch: bool = False,
    optimizer_sharding: bool = False,
) -> Candidate:
    """The fastest T x P x D (micro-batch as the system file says, N_B = global batch /
    (micro-batch x D)) over T a power of two dividing heads and FFN width, P dividing the layers,
    that fills the system's GPUs and fits the chip's `memory_GB`; with `search_interleave`, also
    over every interleaving v dividing the L/P layers of a stage (else the system's); with
    `search_micro_batch`, over every micro-batch size dividing the batch of a data-parallel rank
    (else the system's); with `optimizer_sharding`, under the sharded memory rule
    (:func:`memory_bytes`). Ties go to the smaller T, then P, then micro-batch, then v. One-line
    ConfigError when nothing fits."""
    v = model.values()
    capacity_bytes = system.chip.memory_bytes
    memory_GB = capacity_bytes / 1e9
    gpus = system.chips
    micro = system.training.micro_batch
    best: Candidate | None = None
    T = 1
    while T <= gpus and v["heads"] % T == 0 and v["ffn"] % T == 0:
        for P in (p for p in range(1, v["layers"] + 1) if v["layers"] % p == 0 and gpus % (T * p) == 0):
            D = gpus // (T * P)
            if global_batch % D:
                continue
            base = system.parallelism(T=T, P=P, D=D)
            micros = _micro_batches(global_batch // D) if search_micro_batch else (micro,)
            interleaves = _interleavings(v["layers"], P) if search_interleave else (base.interleave,)
            for b, chunks in ((b, c) for b in micros if global_batch % (b * D) == 0 for c in interleaves):
                par = replace(base, micro_batch=b, micro_batches=global_batch // (b * D), interleave=chunks)
                try:
                    par.check(model)  # e.g. an interleaving that does not divide this P's stages
                except ConfigError:
                    continue
                need = memory_bytes(model, par, optimizer_sharding=optimizer_sharding)
                if need > capacity_bytes:
                    continue
                time_s = float(IterationModel(model, par, system).evaluate().total_s)
                if best is None or time_s < best.time_s:
                    best = Candidate(par, time_s, need)
        T *= 2
    if best is None:
        raise ConfigError(
            f"global batch {global_batch}: no T x P x D of {model.name} on {gpus} GPUs fits {memory_GB:g} GB per GPU "
            f"with D dividing the batch; e.g. a larger global batch (a multiple of {gpus // v['layers'] or 1})"
        )
    return best


def _micro_batches(local_batch: int) -> list[int]:
    """Micro-batch sizes of a data-parallel rank's `local_batch` sequences: its divisors (Calculon's
    `Llm.get_valid_microbatch_sizes`; its extra rule, micro-batch x sequence divisible by T, holds
    for every power-of-two T up to the sequence length)."""
    return [b for b in range(1, local_batch + 1) if local_batch % b == 0]


def _interleavings(layers: int, P: int) -> list[int]:
    """Model chunks per stage an interleaved schedule can use: the divisors of a stage's L/P
    layers (only 1 without a pipeline)."""
    per_stage = layers // P if P > 1 else 1
    return [chunks for chunks in range(1, per_stage + 1) if per_stage % chunks == 0]
