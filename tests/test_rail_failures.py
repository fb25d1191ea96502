"""Rail-only vs Rail-optimised failures (Rail-only paper §IV-C) against hand-computed cases."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from railx.availability.rail_failures import DESIGNS, RailCluster, Remedies, failure_outcome
from railx.config import ConfigError

# 16 DGX A100 (K = 8) running a job, one spare server.
A100 = RailCluster(hb_domain=8, domains=16, spare_domains=1)


def test_server_failure_is_the_same_on_both_designs_and_migrates() -> None:
    for design in DESIGNS:
        o = failure_outcome(design, "hb-domain", A100)
        assert (o.unavailable_gpus, o.broken_domains, o.migrated_domains) == (8, 1, 1)
        assert (o.job_gpus_before, o.job_gpus_after, o.stranded_gpus) == (128, 128, 0)
        assert o.usable_gpus == 17 * 8 - 8
    lost = failure_outcome("rail-only", "hb-domain", A100, Remedies(migrate=False))
    assert lost.job_gpus_after == 120


def test_rail_switch_failure_is_identical_on_both_designs() -> None:
    """A rail switch with 4 GPU ports: its 4 GPUs (one rail, 4 servers) lose the network; one server
    migrates to the spare, the job loses the other 3 (3 x 8 GPUs), 4 x 7 healthy GPUs are stranded."""
    cluster = RailCluster(hb_domain=8, domains=16, spare_domains=1, gpus_per_rail_switch=4)
    outcomes = [failure_outcome(d, "rail-switch", cluster) for d in DESIGNS]
    assert outcomes[0].unavailable_gpus == outcomes[1].unavailable_gpus == 4
    for o in outcomes:
        assert (o.broken_domains, o.migrated_domains, o.job_gpus_after, o.stranded_gpus) == (4, 1, 128 - 24, 28)
        assert o.usable_gpus == 136 - 4 - 28
    # One switch per rail (the default): every server loses a GPU.
    whole = failure_outcome("rail-only", "rail-switch", A100)
    assert (whole.unavailable_gpus, whole.job_gpus_after) == (16, 8)
    # The paper's remedy: redundant rail switches.
    spare = failure_outcome("rail-only", "rail-switch", A100, Remedies(spare_rail_switches=1))
    assert (spare.unavailable_gpus, spare.job_gpus_after, spare.usable_gpus) == (0, 128, 136)


def test_gpu_failure_with_an_idle_gpu_in_the_domain() -> None:
    """Rail-optimised swaps in the idle GPU; Rail-only needs optical switches to put it on the
    failed GPU's rail, otherwise the server's work migrates."""
    cluster = RailCluster(hb_domain=8, domains=16, spare_domains=1, idle_gpus=1)  # 7 of 8 GPUs used
    opt = failure_outcome("rail-optimised", "gpu", cluster)
    assert (opt.broken_domains, opt.job_gpus_after, opt.usable_gpus) == (0, 112, 135)
    bare = failure_outcome("rail-only", "gpu", cluster)
    assert (bare.broken_domains, bare.migrated_domains, bare.job_gpus_after, bare.stranded_gpus) == (1, 1, 112, 7)
    optical = failure_outcome("rail-only", "gpu", cluster, Remedies(optical=True))
    assert (optical.broken_domains, optical.job_gpus_after, optical.usable_gpus) == (0, 112, 135)


def test_gpu_failure_in_a_fully_occupied_domain() -> None:
    """Small domains: both designs migrate the whole domain. A GH200-like domain (K = 256) with an
    optical core swaps the failed GPU's set of 8 for spares and keeps the domain."""
    for design in DESIGNS:
        o = failure_outcome(design, "gpu", A100)
        assert (o.broken_domains, o.migrated_domains, o.job_gpus_after, o.stranded_gpus) == (1, 1, 128, 7)
    gh200 = RailCluster(hb_domain=256, domains=16)
    none = failure_outcome("rail-only", "gpu", gh200)
    assert none.job_gpus_after == 15 * 256  # no spare server: the job loses a whole GH200
    swap = failure_outcome("rail-only", "gpu", gh200, Remedies(optical=True, optical_set=8, optical_spares=8))
    assert (swap.broken_domains, swap.job_gpus_after, swap.stranded_gpus) == (0, 4096, 7)
    short = failure_outcome("rail-only", "gpu", gh200, Remedies(optical=True, optical_set=8, optical_spares=4))
    assert short.broken_domains == 1


@pytest.mark.parametrize(
    ("cluster", "remedies", "message"),
    [
        (RailCluster(8, 0), Remedies(), "hb_domain = 8, domains = 0: must be positive"),
        (RailCluster(8, 4, idle_gpus=8), Remedies(), "idle_gpus = 8: the job needs at least one GPU per domain"),
        (RailCluster(8, 4, spare_domains=-1), Remedies(), "spare_domains = -1: must be >= 0"),
        (RailCluster(8, 4), Remedies(optical_set=0), "optical_set = 0: must be >= 1"),
    ],
)
def test_bad_input(cluster: RailCluster, remedies: Remedies, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        failure_outcome("rail-only", "gpu", cluster, remedies)


def test_cli() -> None:
    run = [sys.executable, "-m", "railx.cli", "rail-failures", "--hb-domain", "8", "--domains", "16"]
    out = subprocess.run([*run, "--spare-domains", "1", "--json"], capture_output=True, text=True, check=False)
    rows = json.loads(out.stdout)
    assert [(r["failure"], r["design"]) for r in rows][:2] == [("gpu", "rail-only"), ("gpu", "rail-optimised")]
    assert len(rows) == 6
    bad = subprocess.run([*run, "--failure", "nic"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "error: --failure = 'nic': must be gpu, hb-domain or rail-switch; e.g. --failure gpu"
    )
