"""Job mixes (paper 003, §6.A.1): jobs of given sizes mapped one after another onto contiguous
blocks of CUs, their skewness (eq. 2), and seeded generators of mixes over a range of skewness."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from railx.config import ConfigError

__all__ = ["JobMix", "map_jobs", "mix_for_sigma", "random_mixes", "skewness", "two_job_mixes"]


@dataclass(frozen=True)
class JobMix:
    """Jobs on `n_cus` CUs: job i holds CUs `ranges[i][0] .. ranges[i][1] - 1`."""

    n_cus: int
    ranges: tuple[tuple[int, int], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(stop - start for start, stop in self.ranges)

    @property
    def sigma(self) -> float:
        return skewness(self.sizes)

    def cus(self, job: int) -> range:
        start, stop = self.ranges[job]
        return range(start, stop)

    def label(self) -> str:
        return "+".join(str(s) for s in self.sizes)


def skewness(sizes: Sequence[int]) -> float:
    """Eq. 2: sigma = 1 - min |u_i| / max |u_i|. One job, or jobs of one size, give 0 (the
    paper's text calls the single 512-CU job sigma = 1; the equation gives 0, which railx
    follows). Raises ConfigError for no job or an empty one."""
    if not sizes:
        raise ConfigError("jobs: no job given; give at least one job size, e.g. [512]")
    if min(sizes) < 1:
        raise ConfigError(f"jobs: a job of {min(sizes)} CUs; every job holds at least 1 CU, e.g. [256, 256]")
    return 1.0 - min(sizes) / max(sizes)


def map_jobs(sizes: Sequence[int], n_cus: int, ranges: Sequence[tuple[int, int]] | None = None) -> JobMix:
    """Jobs mapped sequentially onto contiguous CUs from CU 0 (`ranges` None), or at the given
    half-open `ranges`, checked: every job non-empty, inside 0..n_cus - 1, no CU in two jobs."""
    if n_cus < 1:
        raise ConfigError(f"cus = {n_cus}: a network has at least 1 CU, e.g. cus = 512")
    skewness(sizes)
    if ranges is None:
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        ranges = [(int(s), int(s) + int(k)) for s, k in zip(starts, sizes)]
    if len(ranges) != len(sizes):
        raise ConfigError(f"jobs: {len(sizes)} sizes but {len(ranges)} ranges; give one range per job")
    owner = np.full(n_cus, -1)
    for i, ((start, stop), size) in enumerate(zip(ranges, sizes)):
        if stop - start != size:
            raise ConfigError(f"jobs[{i}]: range [{start}, {stop}) holds {stop - start} CUs, not {size}")
        if start < 0 or stop > n_cus:
            raise ConfigError(
                f"jobs[{i}]: CUs [{start}, {stop}) exceed the {n_cus} CUs 0..{n_cus - 1}; "
                f"the sizes must sum to at most {n_cus}"
            )
        taken = owner[start:stop]
        if (taken >= 0).any():
            raise ConfigError(
                f"jobs[{i}]: CU {start + int(np.argmax(taken >= 0))} is also in job {int(taken.max())}; "
                "jobs may not overlap, map them one after another"
            )
        owner[start:stop] = i
    return JobMix(n_cus, tuple((int(a), int(b)) for a, b in ranges))


def mix_for_sigma(n_cus: int, sigma: float, jobs: int, granule: int) -> JobMix:
    """`jobs` jobs: one of size a, the others of size b, both multiples of `granule`, with
    1 - b / a nearest sigma, then as many of the n_cus CUs used as fit. jobs = 1 is the whole
    network (sigma 0 by eq. 2)."""
    if not 0.0 <= sigma < 1.0:
        raise ConfigError(f"sigma = {sigma}: eq. 2 gives values in [0, 1); e.g. sigma = 0.5")
    if jobs < 1 or granule < 1 or jobs * granule > n_cus:
        raise ConfigError(
            f"jobs = {jobs}, granule = {granule}: {jobs} jobs of at least {granule} CUs must fit {n_cus} CUs"
        )
    if jobs == 1:
        return map_jobs([n_cus - n_cus % granule], n_cus)
    units = n_cus // granule
    # a + (jobs - 1) b <= units: the skewness nearest sigma, then the most CUs used.
    fits = [(a, b) for a in range(1, units + 1) for b in range(1, a + 1) if a + (jobs - 1) * b <= units]
    a, b = min(fits, key=lambda ab: (abs(1 - ab[1] / ab[0] - sigma), -(ab[0] + (jobs - 1) * ab[1])))
    return map_jobs([a * granule] + [b * granule] * (jobs - 1), n_cus)


def two_job_mixes(n_cus: int, granule: int, points: int) -> list[JobMix]:
    """Fig. 8's mixes: two jobs filling the network, from equal halves (sigma 0) to the most
    skewed, the smaller job shrinking by the same number of granules each time."""
    half = n_cus // granule // 2
    steps = np.unique(np.linspace(0, half - 1, points).round().astype(int))
    return [map_jobs([(half + int(d)) * granule, (half - int(d)) * granule], n_cus) for d in steps]


def random_mixes(
    n_cus: int,
    granule: int,
    count: int,
    seed: int,
    max_jobs: int = 8,
    admissible: Callable[[JobMix], bool] | None = None,
) -> list[JobMix]:
    """`count` seeded random mixes: 1..max_jobs jobs of sizes in whole granules, summing to at
    most n_cus, mapped sequentially in a random order; a mix `admissible` rejects is redrawn
    (e.g. one whose job is not joined through its own CUs on Flex-SiPAC)."""
    units = n_cus // granule
    if units < 1:
        raise ConfigError(f"granule = {granule}: larger than the {n_cus} CUs; e.g. granule = 8")
    rng = np.random.default_rng(seed)
    mixes: list[JobMix] = []
    while len(mixes) < count:
        jobs = int(rng.integers(1, min(max_jobs, units) + 1))
        used = int(rng.integers(jobs, units + 1))
        cuts = np.sort(rng.choice(np.arange(1, used), size=jobs - 1, replace=False)) if jobs > 1 else np.zeros(0, int)
        sizes = np.diff(np.concatenate([[0], cuts, [used]])).astype(int) * granule
        mix = map_jobs([int(s) for s in rng.permutation(sizes)], n_cus)
        if admissible is None or admissible(mix):
            mixes.append(mix)
    return mixes
