"""What a GPU, HB-domain or rail-switch failure costs a training job on a Rail-only network and on a
Rail-optimised one, with the remedies of the Rail-only paper (§IV-C).

The job runs on `domains` HB domains of `hb_domain` GPUs, using all but `idle_gpus` of each; the
cluster also has `spare_domains` idle domains. Its parallel mapping ties every rank to an HB domain
and a rail, so a domain that loses a GPU (or a GPU's rail connection) cannot run its share in place:
it is *broken*. The paper's rules, per failure:

- **HB domain (server)**: the whole domain is down in both designs; its work migrates to a spare
  domain, whose rail connectivity is the same as the failed one's.
- **Rail switch (or link)**: the GPUs attached to it lose the network in both designs (the paper:
  the designs are identical here; Rail-only has fewer switches to fail). Each such GPU breaks its
  domain (they sit in different domains, on one rail) unless a redundant rail switch takes over.
- **Single GPU, idle GPU in its domain**: Rail-optimised swaps in the idle GPU directly; Rail-only can
  only do so with optical switches between GPUs and rail switches (the idle GPU is on another rail);
  without them the domain is broken.
- **Single GPU, fully occupied domain**: no in-domain substitute. A GPU of another domain could take
  over on Rail-optimised only, but would turn that rank's HB traffic into NIC traffic, so the paper
  rejects it for both designs: the domain's work migrates to a spare domain, or, for large domains
  (DGX GH200) with an optical layer, the optical switches swap the failed GPU's set of
  `optical_set` GPUs for a healthy spare set.

A broken domain whose work cannot migrate (no spare left, or migration off) leaves the job; the
job shrinks by that domain's GPUs. The healthy GPUs of a broken domain are stranded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from railx.config import ConfigError
from railx.messages import shown

__all__ = [
    "DESIGNS",
    "FAILURES",
    "Design",
    "FailureKind",
    "FailureOutcome",
    "RailCluster",
    "Remedies",
    "failure_outcome",
]

Design = Literal["rail-only", "rail-optimised"]
DESIGNS: tuple[Design, ...] = ("rail-only", "rail-optimised")
FailureKind = Literal["gpu", "hb-domain", "rail-switch"]
FAILURES: tuple[FailureKind, ...] = ("gpu", "hb-domain", "rail-switch")


@dataclass(frozen=True)
class RailCluster:
    """The job's HB domains and the cluster around it. `gpus_per_rail_switch` = 0 means one switch
    per rail (every job domain on it)."""

    hb_domain: int
    domains: int
    spare_domains: int = 0
    idle_gpus: int = 0
    gpus_per_rail_switch: int = 0

    def check(self) -> None:
        """Raises ConfigError (one line naming the field) on impossible sizes."""
        if self.hb_domain < 1 or self.domains < 1:
            raise ConfigError(
                f"hb_domain = {self.hb_domain}, domains = {self.domains}: must be positive; e.g. hb_domain = 8, domains = 16"
            )
        for name in ("spare_domains", "idle_gpus", "gpus_per_rail_switch"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} = {getattr(self, name)}: must be >= 0; e.g. {name} = 0")
        if self.idle_gpus >= self.hb_domain:
            raise ConfigError(
                f"idle_gpus = {self.idle_gpus}: the job needs at least one GPU per domain, so it must be below "
                f"hb_domain = {self.hb_domain}; e.g. idle_gpus = 0"
            )

    @property
    def job_gpus_per_domain(self) -> int:
        """GPUs the job uses in each of its domains."""
        return self.hb_domain - self.idle_gpus

    @property
    def total_gpus(self) -> int:
        """Job and spare domains' GPUs."""
        return (self.domains + self.spare_domains) * self.hb_domain


@dataclass(frozen=True)
class Remedies:
    """The paper's remedies: `migrate` a broken domain's work to a spare domain; `optical` switches
    (between GPUs and rail switches, or in a large domain's optical core) that swap `optical_set`
    GPUs for healthy ones, drawing on the domain's idle GPUs or `optical_spares` spare GPUs
    reachable through them; `spare_rail_switches` redundant rail switches."""

    migrate: bool = True
    optical: bool = False
    optical_set: int = 1
    optical_spares: int = 0
    spare_rail_switches: int = 0

    def check(self) -> None:
        """Raises ConfigError on a negative count or an empty optical set."""
        if self.optical_set < 1:
            raise ConfigError(f"optical_set = {self.optical_set}: must be >= 1 GPU; e.g. optical_set = 1")
        for name in ("optical_spares", "spare_rail_switches"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} = {getattr(self, name)}: must be >= 0; e.g. {name} = 0")


@dataclass(frozen=True)
class FailureOutcome:
    """What one failure costs: GPUs lost (failed or cut off), domains broken and migrated, the
    job's GPUs before and after, healthy GPUs stranded in broken domains or swapped out, GPUs
    still usable in the cluster (total - unavailable - stranded) and how it recovered."""

    design: Design
    failure: FailureKind
    unavailable_gpus: int
    broken_domains: int
    migrated_domains: int
    job_gpus_before: int
    job_gpus_after: int
    stranded_gpus: int
    usable_gpus: int
    recovery: str


def failure_outcome(
    design: Design, failure: FailureKind, cluster: RailCluster, remedies: Remedies | None = None
) -> FailureOutcome:
    """The cost of one `failure` on `design` (module docstring for the rules)."""
    if design not in DESIGNS:
        raise ConfigError(f"design = {shown(design)}: must be rail-only or rail-optimised; e.g. design = rail-only")
    if failure not in FAILURES:
        raise ConfigError(f"failure = {shown(failure)}: must be gpu, hb-domain or rail-switch; e.g. failure = gpu")
    remedies = remedies or Remedies()
    cluster.check()
    remedies.check()
    K = cluster.hb_domain
    swapped = 0  # healthy GPUs an optical swap takes out with the failed one
    if failure == "hb-domain":
        unavailable, broken, how = K, 1, "the server is down"
    elif failure == "rail-switch":
        on_switch = min(cluster.gpus_per_rail_switch or cluster.domains, cluster.domains)
        if remedies.spare_rail_switches:
            unavailable, broken, how = 0, 0, "a redundant rail switch takes over"
        else:
            unavailable, broken, how = on_switch, on_switch, f"{on_switch} GPUs of one rail lose the network"
    elif cluster.idle_gpus and (design == "rail-optimised" or remedies.optical):
        unavailable, broken = 1, 0
        how = (
            "an idle GPU of the domain takes over directly"
            if design == "rail-optimised"
            else "optical switches connect an idle GPU of the domain to the failed GPU's rail"
        )
    elif not cluster.idle_gpus and remedies.optical and remedies.optical_spares >= remedies.optical_set:
        unavailable, broken, swapped = 1, 0, remedies.optical_set - 1
        how = f"optical switches swap the failed GPU's set of {remedies.optical_set} for spares"
    else:
        unavailable, broken = 1, 1
        how = (
            "the idle GPU is on another rail (no optical switches)"
            if cluster.idle_gpus
            else "no substitute in the domain (one from another domain would run its HB traffic at NIC speed)"
        )
    migrated = min(broken, cluster.spare_domains) if remedies.migrate else 0
    if migrated:
        how += f"; {migrated} domain(s) migrate to spares"
    if broken > migrated:
        how += f"; the job loses {broken - migrated} domain(s)"
    before = cluster.domains * cluster.job_gpus_per_domain
    # A down server strands nothing (all its GPUs are unavailable); a broken domain strands K - 1.
    stranded = (0 if failure == "hb-domain" else broken * (K - 1)) + swapped
    return FailureOutcome(
        design=design,
        failure=failure,
        unavailable_gpus=unavailable,
        broken_domains=broken,
        migrated_domains=migrated,
        job_gpus_before=before,
        job_gpus_after=before - (broken - migrated) * cluster.job_gpus_per_domain,
        stranded_gpus=stranded,
        usable_gpus=cluster.total_gpus - unavailable - stranded,
        recovery=how,
    )
