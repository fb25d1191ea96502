"""The `railx wavelengths` input file (TOML): a Flex-SiPAC network and the jobs on it.

r = 4                 # WSS radix
L = 2                 # levels (ports per CU); N = r^L CUs
w = 12                # comb wavelengths per CU transceiver

[[jobs]]
name = "resnet"
cus = [0, 8]          # half-open range of CU addresses
collective = "ring"   # ring, mesh or sipco
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from railx.config import ConfigError, JobName, Strict, one_line_error, read_toml
from railx.wavelengths.addressing import SiPAC
from railx.wavelengths.traffic import Job, validate_jobs

__all__ = ["WavelengthConfig", "WavelengthJob", "load_wavelength_config", "wavelength_config"]


class WavelengthJob(Strict):
    """A job: a name, its CUs as a half-open range [start, stop] and its all-reduce collective."""

    name: JobName
    cus: list[int] = Field(min_length=2, max_length=2, examples=[[0, 8]])
    collective: str = Field(examples=["ring"])

    @field_validator("cus")
    @classmethod
    def _range(cls, cus: list[int]) -> list[int]:
        if not 0 <= cus[0] < cus[1]:
            raise ValueError("must be a half-open range [start, stop] with 0 <= start < stop")
        return cus

    def job(self) -> Job:
        return Job(name=self.name, cus=tuple(range(*self.cus)), collective=self.collective)


class WavelengthConfig(Strict):
    """A Flex-SiPAC(r, L) network with w wavelengths per CU, and its jobs."""

    r: int = Field(examples=[4], description="WSS radix")
    L: int = Field(examples=[2], description="levels, one optical port per level on every CU")
    w: int = Field(gt=0, examples=[12], description="comb wavelengths per CU transceiver")
    jobs: list[WavelengthJob] = Field(default_factory=list)

    def topology(self) -> SiPAC:
        return SiPAC(self.r, self.L)

    def job_list(self) -> list[Job]:
        return [j.job() for j in self.jobs]


def wavelength_config(data: Any, where: str) -> WavelengthConfig:
    """Validates a wavelength document (a parsed TOML table): schema, topology and jobs; a one-line
    `ConfigError` prefixed with `where` (the file, or the sweep's options)."""
    try:
        config = WavelengthConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {one_line_error(exc, WavelengthConfig)}") from None
    try:
        validate_jobs(config.topology(), config.job_list())
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return config


def load_wavelength_config(path: str | Path) -> WavelengthConfig:
    """Reads and validates a wavelength TOML file: schema, topology and jobs (one-line `ConfigError`)."""
    return wavelength_config(read_toml(path), str(path))
