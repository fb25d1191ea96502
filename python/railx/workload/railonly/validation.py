"""HFU of the iteration model against published measurements (the Rail-only paper's Fig. 7).

Each case of `hfu_ground_truth.toml` is a Megatron-LM run of Korthikanti et al. (MLSys 2023) with
its published parallelisation, batch and interleaving, on DGX A100 servers (HB domains of 8,
:data:`DGX_A100`), with selective recomputation. The model has one compute parameter, the
sustained fraction of peak (:data:`EFFICIENCY`); each row also reports the fraction that would
make the model's HFU equal the measured one, so the spread across cases, which no single
efficiency can remove, is visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from railx.config import Strict, read_toml
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.railonly.platform import DGX_A100, EFFICIENCY, platform_system

__all__ = ["GROUND_TRUTH", "PAPER_HFU_ERROR", "HfuCase", "HfuRow", "hfu_cases", "validate_hfu"]

GROUND_TRUTH = Path(__file__).with_name("hfu_ground_truth.toml")

PAPER_HFU_ERROR: dict[str, float] = {"gpt-1t": 0.018, "gpt-22b": 0.108}
"""The Rail-only paper's own model's error against the measured HFU (§V-A), per model: the
discrepancy it reports growing as the model shrinks."""

VALIDATION_TRAINING = {"sequence": 2048, "dtype_bytes": 2, "recompute": "selective", "overlap": ["P"]}
"""Megatron-LM as Korthikanti et al. ran it: sequence 2048, fp16, selective recomputation; the
pipeline sends hide under the other micro-batches, the data-parallel all-reduce does not (it ran
after the backward pass in the Megatron-LM of 2022)."""


class HfuCase(Strict):
    """One published run: model, GPUs, parallelisation, batch, and the measured numbers."""

    name: str
    model: str
    gpus: int = Field(gt=0)
    T: int = Field(gt=0)
    P: int = Field(gt=0)
    D: int = Field(gt=0)
    micro_batch: int = Field(gt=0)
    global_batch: int = Field(gt=0)
    interleave: int = Field(gt=0)
    iteration_s: float | None = None
    mfu_percent: float
    hfu_percent: float
    source: str


@dataclass(frozen=True)
class HfuRow:
    """A case with the model's iteration time, HFU and MFU, and the efficiency that would match."""

    case: HfuCase
    time_s: float
    hfu: float
    mfu: float
    implied_efficiency: float

    @property
    def hfu_error(self) -> float:
        """(model HFU - measured HFU) / measured HFU."""
        return self.hfu / (self.case.hfu_percent / 100) - 1


def hfu_cases() -> list[HfuCase]:
    """The five cases of Fig. 7, with their sources."""
    data = read_toml(GROUND_TRUTH, str(GROUND_TRUTH))
    return [HfuCase.model_validate(case) for case in data["case"]]


def model_case(case: HfuCase, efficiency: float = EFFICIENCY) -> IterationModel:
    """The iteration model of one case on DGX A100 servers."""
    training = {
        **VALIDATION_TRAINING,
        "micro_batch": case.micro_batch,
        "micro_batches": case.global_batch // (case.micro_batch * case.D),
        "interleave": case.interleave,
    }
    system = platform_system(DGX_A100, case.gpus, efficiency=efficiency, training=training)
    spec = load_model(case.model)
    par = system.parallelism(T=case.T, P=case.P, D=case.D)
    par.check(spec)
    return IterationModel(spec, par, system)


def validate_hfu(efficiency: float = EFFICIENCY) -> list[HfuRow]:
    """Every case at `efficiency` x peak."""
    rows = []
    for case in hfu_cases():
        it = model_case(case, efficiency)
        time_s = float(it.evaluate().total_s)
        at_peak = model_case(case, 1.0)
        hfu_at_peak = at_peak.hfu(float(at_peak.evaluate().total_s))
        rows.append(HfuRow(case, time_s, it.hfu(time_s), it.mfu(time_s), case.hfu_percent / 100 / hfu_at_peak))
    return rows
