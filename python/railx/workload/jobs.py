"""Published training jobs: a catalogue model, its parallelisation, batch and the HB domain size of
the cluster it ran on, every value with its source (the Rail-only paper's Figs. 2-5 cases).

A job file (TOML) has a `name` and, for each field of :class:`JobSpec`, a table
`{ value = ..., source = "..." }`. Shipped jobs live in `railx/workload/jobs/<key>.toml`; any other
file can be given by path.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from railx.config import ConfigError, read_toml
from railx.messages import shown, shown_name
from railx.workload.catalogue import ModelSpec, SourcedInt, load_model
from railx.workload.matrix import ALL_REDUCE_ALGOS, Placement
from railx.workload.traffic import Parallelism

__all__ = ["JobSpec", "SourcedStr", "available_jobs", "load_job"]

JOBS_DIR = Path(__file__).with_name("jobs")


class SourcedStr(BaseModel):
    """A name and where it comes from."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    value: str = Field(min_length=1)
    source: str = Field(min_length=1)


class JobSpec(BaseModel):
    """One training job: `model` (a catalogue key), parallel sizes T, C, E, D (= E * De), P, the
    micro-batch and global batch (sequences), sequence length, element size, GPUs per HB domain and
    the data-parallel all-reduce algorithm (ring or hierarchical)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: str = Field(min_length=1)
    model: SourcedStr
    T: SourcedInt
    C: SourcedInt
    E: SourcedInt
    D: SourcedInt
    P: SourcedInt
    micro_batch: SourcedInt
    global_batch: SourcedInt
    sequence: SourcedInt
    dtype_bytes: SourcedInt
    hb_domain: SourcedInt
    all_reduce: SourcedStr

    def spec(self) -> ModelSpec:
        """The catalogue model."""
        return load_model(self.model.value)

    def parallelism(self) -> Parallelism:
        """The parallelism, with N_B = global batch / (micro-batch x D) micro-batches per rank."""
        per_step = self.micro_batch.value * self.D.value
        if self.global_batch.value % per_step:
            raise ConfigError(
                f"{shown_name(self.name)}: global_batch = {self.global_batch.value} must be a multiple of micro_batch x D = {per_step}"
            )
        return Parallelism(
            T=self.T.value,
            C=self.C.value,
            E=self.E.value,
            D=self.D.value,
            P=self.P.value,
            micro_batch=self.micro_batch.value,
            micro_batches=self.global_batch.value // per_step,
            sequence=self.sequence.value,
            dtype_bytes=self.dtype_bytes.value,
        )

    def placement(self) -> Placement:
        """The job's GPUs (T*C*D*P) in HB domains of `hb_domain`."""
        return Placement(self.T.value * self.C.value * self.D.value * self.P.value, self.hb_domain.value)


def available_jobs() -> list[str]:
    """Keys of the shipped jobs (file names without .toml), sorted."""
    return sorted(p.stem for p in JOBS_DIR.glob("*.toml"))


def load_job(key_or_path: str | Path) -> JobSpec:
    """A shipped job by key (e.g. `megatron-gpt-1t`) or a job file by path; validated."""
    path = Path(key_or_path)
    if path.suffix != ".toml":
        path = JOBS_DIR / f"{key_or_path}.toml"
        if not path.is_file():
            raise ConfigError(
                f"job = {shown(str(key_or_path))}: unknown job key; shipped jobs are {', '.join(available_jobs())} (or give a .toml path)"
            )
    data = read_toml(path, f"job = {shown(str(path))}")
    try:
        job = JobSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"])
        raise ConfigError(f'{path}: {where}: {err["msg"]}; each field is {{ value = ..., source = "..." }}') from None
    if job.all_reduce.value not in ALL_REDUCE_ALGOS:
        raise ConfigError(f"{path}: all_reduce = {shown(job.all_reduce.value)}: must be ring or hierarchical")
    return job
