"""Availability and MLaaS allocation: the solvers agree with each other and with brute force,
known optima come out, packing is sound, emitted OCS files verify, bad input is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import railx
from conftest import run_railx
from railx.availability import (
    algorithm2,
    availability,
    best_case_nodes,
    blocked_matrix,
    components,
    largest_allocation,
    milp_solver,
    pack_jobs,
    sample_failed,
    worst_case_nodes,
)
from railx.availability.packing import JobRequest
from railx.config import ConfigError, TopologyConfig


def brute_force(blocked: np.ndarray) -> int:
    """Largest rows x columns avoiding blocked nodes, by trying every row subset."""
    q = blocked.shape[0]
    best = 0
    for mask in range(1, 1 << q):
        rows = [i for i in range(q) if mask >> i & 1]
        best = max(best, len(rows) * int((~blocked[rows].any(axis=0)).sum()))
    return best


def random_instance(rng: np.random.Generator, max_side: int, max_failed: int) -> np.ndarray:
    q, p = rng.integers(1, max_side + 1, size=2)
    k = int(rng.integers(0, min(max_failed, p * q) + 1))
    return sample_failed((int(p), int(q)), rng, count=k)


def assert_valid(blocked: np.ndarray, found: railx.availability.Allocation) -> None:
    assert not blocked[np.ix_(found.rows, found.cols)].any()
    assert len(set(found.rows)) == len(found.rows) and len(set(found.cols)) == len(found.cols)


def test_algorithm2_equals_the_component_solver_on_thousands_of_instances() -> None:
    rng = np.random.default_rng(2026)
    for _ in range(2000):
        blocked = random_instance(rng, 12, 10)
        a, c = algorithm2(blocked), components(blocked)
        assert a.nodes == c.nodes, blocked
        assert_valid(blocked, a)
        assert_valid(blocked, c)


def test_all_solvers_equal_brute_force_on_small_grids() -> None:
    rng = np.random.default_rng(7)
    for _ in range(150):
        blocked = random_instance(rng, 7, 10)
        expected = brute_force(blocked)
        for solver in (algorithm2, components, milp_solver):
            found = solver(blocked)
            assert found.nodes == expected and found.optimal and found.upper_bound_nodes == expected
            assert_valid(blocked, found)


def test_milp_agrees_with_algorithm2_on_a_thousand_instances_up_to_grid_12() -> None:
    rng = np.random.default_rng(11)
    for _ in range(1000):
        blocked = random_instance(rng, 12, 10)
        assert milp_solver(blocked).nodes == algorithm2(blocked).nodes


@pytest.mark.parametrize("half_radix", [8, 16, 64])
@pytest.mark.parametrize("a", [1, 2, 3])
def test_failures_in_distinct_rows_and_columns_leave_the_paper_worst_case(half_radix: int, a: int) -> None:
    # 2a failures on the diagonal: every one needs its own row or column: (R/2 - a)^2 (paper §6.6).
    failed = [(i, i) for i in range(2 * a)]
    blocked = blocked_matrix(failed, (half_radix, half_radix))
    assert largest_allocation(blocked).nodes == (half_radix - a) ** 2
    assert worst_case_nodes((half_radix, half_radix), 2 * a) == (half_radix - a) ** 2


def test_failures_in_one_row_cost_one_row() -> None:
    blocked = blocked_matrix([(x, 3) for x in range(0, 10, 2)], (10, 10))
    found = largest_allocation(blocked)
    assert found.nodes == 9 * 10 == best_case_nodes((10, 10), 5)
    assert 3 not in found.rows


def test_dense_failures_use_the_milp_and_say_whether_it_is_proven() -> None:
    blocked = sample_failed((24, 24), np.random.default_rng(3), rate=0.15)
    found = largest_allocation(blocked)
    assert found.solver == "milp"
    assert_valid(blocked, found)
    assert found.optimal and found.upper_bound_nodes == found.nodes
    limited = largest_allocation(blocked, "milp", time_limit_s=1e-3)
    assert limited.nodes <= found.nodes <= limited.upper_bound_nodes


def test_monte_carlo_is_seeded_and_reports_its_keys() -> None:
    first = availability((16, 16), rate=0.01, samples=20, seed=5).to_dict()
    assert first == availability((16, 16), rate=0.01, samples=20, seed=5).to_dict()
    for key in ("availability_mean", "availability_min", "availability_max", "samples", "seed"):
        assert key in first
    assert first["availability_min"] <= first["availability_mean"] <= first["availability_max"] <= 1.0
    assert first["optimal_samples"] == 20


def test_paper_claim_availability_above_90_percent_at_0_1_percent() -> None:
    # Paper §6.6 / Fig. 17(b): at a 0.1% failure rate availability stays above 90%, and a larger
    # system is less available at the same rate.
    means = [availability((s, s), rate=0.001, samples=100, seed=0).availability_mean for s in (16, 32, 64)]
    assert all(m > 0.9 for m in means), means
    assert means[0] > means[1] > means[2], means


def test_packing_everything_uses_every_healthy_node_without_overlap() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        blocked = sample_failed((9, 7), rng, count=int(rng.integers(0, 8)))
        packing = pack_jobs(blocked, None)
        seen = np.zeros_like(blocked)
        for job in packing.jobs:
            cells = np.ix_(job.ys, job.xs)
            assert not blocked[cells].any(), "job on a failed node"
            assert not seen[cells].any(), "jobs overlap"
            seen[cells] = True
        assert not packing.unused_healthy
        assert (seen | blocked).all()


def test_packing_requests_places_largest_first_and_reports_the_rest() -> None:
    blocked = blocked_matrix([(1, 1), (3, 2), (5, 5), (6, 5)], (8, 8))
    torus = TopologyConfig(preset="torus")
    requests = [JobRequest("a", (4, 4), torus), JobRequest("b", (3, 2), torus), JobRequest("huge", (8, 8), torus)]
    packing = pack_jobs(blocked, requests)
    assert [j.name for j in packing.jobs] == ["a", "b"]
    assert packing.unplaced == ("huge",)
    assert sum(j.nodes for j in packing.jobs) + len(packing.unused_healthy) == 64 - 4
    with pytest.raises(ConfigError, match="larger than the 8 x 8 grid"):
        pack_jobs(blocked, [JobRequest("too-big", (9, 2), torus)])


def test_allocate_writes_ocs_files_that_verify_and_avoid_failed_nodes(examples: Path, tmp_path: Path) -> None:
    failed = tmp_path / "failed.json"
    failed.write_text(json.dumps([[1, 1], [3, 2], [5, 5], [6, 5]]))
    out = tmp_path / "out"
    result = run_railx("allocate", examples / "jobs.toml", "--failed", failed, "--jobs", "all", "--out", out, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["unused_healthy_nodes"] == 0 and report["used_nodes"] == 60
    system = json.loads((out / "system.ocs.json").read_text())
    failed_nodes = {(1, 1), (3, 2), (5, 5), (6, 5)}
    for switch in system["switches"]:
        for circuit in switch["circuits"]:
            for port in circuit:
                pos = port // 2
                node = (pos, switch["line"]) if switch["dim"] == "X" else (switch["line"], pos)
                assert node not in failed_nodes
    for path in report["ocs_files"]:
        assert run_railx("ocs", "verify", path).rc == 0


def test_availability_cli_keys(examples: Path, tmp_path: Path) -> None:
    failed = tmp_path / "failed.json"
    failed.write_text("[[0, 0], [2, 2]]")
    result = run_railx("availability", examples / "jobs.toml", "--failed", failed, "--json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["max_single_job_nodes"] == 7 * 7  # two isolated failures: one row and one column
    assert report["max_single_job_nodes"] == len(report["rows_kept"]) * len(report["cols_kept"])
    assert report["solver"] == "algorithm2" and report["optimal"] is True


@pytest.mark.parametrize(
    ("failed", "words"),
    [
        ("[[8, 0]]", ("[8, 0]", "outside the 8 x 8 grid")),
        ("[[1, 1], [1, 1]]", ("[1, 1]", "listed twice")),
        ("[[1]]", ("[1]", "pair of integers")),
        ('{"x": 1}', ("JSON list",)),
        ("[[1, 1]", ("not valid JSON",)),
    ],
)
def test_bad_failed_files_are_one_line(examples: Path, tmp_path: Path, failed: str, words: tuple[str, ...]) -> None:
    path = tmp_path / "failed.json"
    path.write_text(failed)
    result = run_railx("availability", examples / "jobs.toml", "--failed", path)
    assert result.rc == 2
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error:")
    for word in words:
        assert word in line, line


def test_bad_rate_and_jobs_are_refused(examples: Path, tmp_path: Path) -> None:
    result = run_railx("availability", examples / "jobs.toml", "--rate", "-0.1")
    assert (
        result.rc == 2
        and "Invalid value for '--rate': must be a finite number >= 0 and <= 1, not -0.1" in result.stderr
    )
    failed = tmp_path / "failed.json"
    failed.write_text("[]")
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[jobs]]\nname = "x"\nshape = [20, 2]\n')
    result = run_railx("allocate", examples / "jobs.toml", "--failed", failed, "--jobs", jobs, "--out", tmp_path / "o")
    assert result.rc == 2 and "larger than the 8 x 8 grid" in result.stderr
    jobs.write_text('[[jobs]]\nname = "x"\nshape = [2, 2]\ncolour = "red"\n')
    result = run_railx("allocate", examples / "jobs.toml", "--failed", failed, "--jobs", jobs, "--out", tmp_path / "o")
    assert result.rc == 2 and "colour" in result.stderr and "valid keys" in result.stderr
