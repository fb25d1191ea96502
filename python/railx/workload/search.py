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

`search_recompute=True` also tries every recomputation mode (none, selective, full), as Calculon
does (`activation_recompute` none / attn_only / full), each with its activation memory
(Korthikanti et al., Table 2: 34 + 5 a s / h bytes per token and hidden unit without
recomputation, 34 with selective, the layers' 2-byte inputs plus one whole layer with full); its
compute is :func:`railx.workload.traffic.compute_flops`'s for the mode (railx does not repeat the
tensor-parallel collectives of a fully recomputed forward, which Calculon counts).

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

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, get_args

from railx.config import ConfigError
from railx.workload.catalogue import ModelSpec
from railx.workload.iteration import IterationModel
from railx.workload.system import ChipConfig, TrainingConfig, WorkloadSystem, WorkloadSystemLike, as_workload_system
from railx.workload.traffic import Parallelism, Recompute

__all__ = ["Candidate", "best_parallelism", "memory_bytes"]

MODEL_STATE_BYTES_PER_PARAM = 16
"""fp16 weights and gradients and fp32 Adam states (master weights, two moments): ZeRO's 16 bytes."""
ATTENTION_BYTES_PER_TOKEN_HEAD = 5
"""Korthikanti et al.'s bytes per layer, token and attention head (per unit of sequence length) of the
attention scores, softmax and dropout mask that selective recomputation drops: 5 a s / h more per
token and hidden unit without recomputation (their Table 2)."""
CHECKPOINT_BYTES_PER_TOKEN_HIDDEN = 2
"""Full recomputation keeps only each layer's fp16 input (Korthikanti et al., Table 2), split over T
with sequence parallelism."""
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
    recompute: Recompute
    """The activation recomputation it runs (the system's unless searched)."""


def memory_bytes(
    model: ModelSpec, par: Parallelism, *, optimizer_sharding: bool = False, recompute: Recompute = "selective"
) -> float:
    """Bytes one GPU of the first pipeline stage needs: model states (sharded over D with
    `optimizer_sharding`) and the activations `recompute` keeps (module docstring)."""
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
    layer_token_hidden = par.sequence * par.micro_batch * v["hidden"] / (par.T * par.C)  # one layer's, per rank
    whole_layer = (
        ACTIVATION_BYTES_PER_TOKEN_HIDDEN + ATTENTION_BYTES_PER_TOKEN_HEAD * v["heads"] * par.sequence / v["hidden"]
    )
    stored = {
        "selective": ACTIVATION_BYTES_PER_TOKEN_HIDDEN,
        "none": whole_layer,
        "full": CHECKPOINT_BYTES_PER_TOKEN_HIDDEN,
    }
    activations = stored[recompute] * layer_token_hidden * (v["layers"] / par.P) * in_flight
    if recompute == "full":  # the layer being recomputed holds all of its activations
        activations += whole_layer * layer_token_hidden
    return states + activations


def best_parallelism(
    model: ModelSpec,
    system: WorkloadSystemLike,
    global_batch: int,
    *,
    chip: ChipConfig | Mapping[str, Any] | None = None,
    training: TrainingConfig | Mapping[str, Any] | None = None,
    routing: str | None = None,
    search_interleave: bool = False,
    search_micro_batch: bool = False,
    search_recompute: bool = False,
    optimizer_sharding: bool = False,
) -> Candidate:
    """The fastest T x P x D (micro-batch as the system file says, N_B = global batch /
    (micro-batch x D)) over T a power of two dividing heads and FFN width, P dividing the layers,
    that fills the system's GPUs and fits the chip's `memory_GB`; with `search_interleave`, also
    over every interleaving v dividing the L/P layers of a stage (else the system's); with
    `search_micro_batch`, over every micro-batch size dividing the batch of a data-parallel rank
    (else the system's); with `search_recompute`, over the recomputation modes (else the
    system's `[training] recompute`); with `optimizer_sharding`, under the sharded memory rule
    (:func:`memory_bytes`). Ties go to the smaller T, then P, then v, then the recomputation mode
    named first (none, selective, full), then the smaller micro-batch. One-line ConfigError when
    nothing fits. `system`, `chip`, `training` and `routing` as :class:`IterationModel` takes them."""
    system = as_workload_system(system, chip, training, routing)
    v = model.values()
    capacity_bytes = system.chip.memory_bytes
    memory_GB = capacity_bytes / 1e9
    gpus = system.chips
    micro = system.training.micro_batch
    searched = get_args(Recompute) if search_recompute else (system.training.recompute,)
    modes = {mode: _with_recompute(system, mode) for mode in searched}
    best: Candidate | None = None
    T = 1
    while T <= gpus and v["heads"] % T == 0 and v["ffn"] % T == 0:
        for P in (p for p in range(1, v["layers"] + 1) if v["layers"] % p == 0 and gpus % (T * p) == 0):
            D = gpus // (T * P)
            if global_batch % D:
                continue
            base = system.parallelism(T=T, P=P, D=D)
            local = global_batch // D
            micros = _micro_batches(local) if search_micro_batch else [micro] if local % micro == 0 else []
            interleaves = _interleavings(v["layers"], P) if search_interleave else (base.interleave,)
            for chunks, mode in ((c, r) for c in interleaves for r in modes):
                for b in micros:  # ascending: memory b min(P, N_B) never falls, so stop at the first misfit
                    par = replace(base, micro_batch=b, micro_batches=global_batch // (b * D), interleave=chunks)
                    try:
                        par.check(model)  # e.g. an interleaving that does not divide this P's stages
                    except ConfigError:
                        break
                    need = memory_bytes(model, par, optimizer_sharding=optimizer_sharding, recompute=mode)
                    if need > capacity_bytes:
                        break
                    time_s = float(IterationModel(model, par, modes[mode]).evaluate().total_s)
                    if best is None or time_s < best.time_s:
                        best = Candidate(par, time_s, need, mode)
        T *= 2
    if best is None:
        raise ConfigError(
            f"global batch {global_batch}: no T x P x D of {model.name} on {gpus} GPUs fits {memory_GB:g} GB per GPU "
            f"with D dividing the batch; e.g. a larger global batch (a multiple of {gpus // v['layers'] or 1})"
        )
    return best


def _with_recompute(system: WorkloadSystem, mode: Recompute) -> WorkloadSystem:
    """The system with `[training] recompute = mode`."""
    return system.model_copy(update={"training": system.training.model_copy(update={"recompute": mode})})


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
