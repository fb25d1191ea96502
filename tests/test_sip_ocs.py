"""SiP-OCS steering (railx.multitenant.sip_ocs): every OCS port in at most one circuit, the
MILP equal to brute force over every OCS configuration on tiny jobs, SiP-ML's direct-only
objective and its degeneracy on a mesh, the Cayley heuristic's symmetric LP against the full
one and its gap to the exact MILP; and paper 003 §5.B's testbed at flow level."""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railx.config import ConfigError
from railx.multitenant.baselines import CU_BANDWIDTH_BPS, HOP_LATENCY_S, sip_ocs
from railx.multitenant.jobs import map_jobs
from railx.multitenant.sip_ocs import (
    Steering,
    cayley_steering,
    concurrent_flow,
    decompose,
    exact_steering,
    moore_bound,
    steer_job,
)
from railx.multitenant.testbed import MOBILENET_V2_BYTES, PAPER_REDUCTION, TESTBED_LINK_BPS, run_testbed


def _mesh(k: int) -> np.ndarray:
    return np.ones((k, k)) - np.eye(k)


def _assert_valid(steering: Steering, q: int, k: int) -> None:
    """Every OCS: each transmitter in at most one circuit (one entry per port), each receiver in
    at most one (no repeated target), no GPU to itself."""
    assert steering.perms.shape == (q, k)
    for perm in steering.perms:
        lit = perm[perm >= 0]
        assert len(set(lit.tolist())) == len(lit)
        assert lit.max(initial=-1) < k
        assert not (perm == np.arange(k)).any()


def _partial_permutations(k: int) -> list[tuple[int, ...]]:
    """Every configuration of one OCS on k GPUs: an injective map of some transmitters to other
    GPUs' receivers (-1: dark)."""
    found = []
    for targets in np.ndindex(*([k + 1] * k)):
        perm = tuple(t - 1 for t in targets)
        lit = [t for t in perm if t >= 0]
        if len(set(lit)) == len(lit) and all(t != i for i, t in enumerate(perm)):
            found.append(perm)
    return found


def _brute_force(traffic: np.ndarray, q: int, relay: bool) -> float:
    k = traffic.shape[0]
    best = 0.0
    for config in combinations_with_replacement(_partial_permutations(k), q):
        circuits = np.zeros((k, k))
        for perm in config:
            for i, j in enumerate(perm):
                if j >= 0:
                    circuits[i, j] += 1
        best = max(best, concurrent_flow(circuits, traffic, relay))
    return best


SKEWED = np.array([[0, 3, 1], [0, 0, 2], [1, 0, 0]], dtype=float)


@pytest.mark.parametrize(
    ("traffic", "q"), [(_mesh(3), 1), (_mesh(3), 2), (SKEWED, 1), (SKEWED, 2), (np.pad(SKEWED, ((0, 1), (0, 1))), 1)]
)
@pytest.mark.parametrize("relay", [True, False])
def test_exact_milp_equals_brute_force_over_every_ocs_configuration(traffic: np.ndarray, q: int, relay: bool) -> None:
    steering = exact_steering(traffic, q, relay)
    _assert_valid(steering, q, traffic.shape[0])
    assert steering.throughput == pytest.approx(_brute_force(traffic, q, relay), abs=1e-7)
    # Its configurations do realise the throughput it reports.
    assert concurrent_flow(steering.circuits(), traffic, relay) == pytest.approx(steering.throughput, abs=1e-7)


def test_sip_mls_direct_objective_degenerates_on_a_mesh_larger_than_q_plus_1() -> None:
    # 5 GPUs, 2 OCSs: 4 peers but 2 ports, so some pair has no circuit and min b_ij / T_ij = 0;
    # relayed, a ring of two shifts serves every pair.
    assert exact_steering(_mesh(5), 2, relay=False).throughput == 0.0
    assert exact_steering(_mesh(5), 2).throughput == pytest.approx(1 / 3)


def test_a_job_of_at_most_q_plus_1_gpus_gets_its_capacity_bound() -> None:
    # Each GPU sends lambda to k - 1 peers through q circuits: lambda <= q / (k - 1), met by a
    # complete digraph with q / (k - 1) circuits per pair.
    for k, q in ((4, 3), (3, 4)):
        assert exact_steering(_mesh(k), q).throughput == pytest.approx(q / (k - 1))
        assert cayley_steering(k, q).throughput == pytest.approx(q / (k - 1))


@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_decompose_splits_any_feasible_circuit_matrix_into_q_ocs_configurations(k: int, q: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    # A random feasible matrix: the sum of q random partial permutations.
    x = np.zeros((k, k), dtype=np.int64)
    for _ in range(q):
        for i, j in zip(range(k), rng.permutation(k)):
            if i != j and rng.random() < 0.8:
                x[i, j] += 1
    steering = Steering(decompose(x, q), 0.0, "test")
    _assert_valid(steering, q, k)
    assert (steering.circuits() == x).all()


def test_decompose_rejects_an_overloaded_port() -> None:
    with pytest.raises(ConfigError, match="at most q = 1"):
        decompose(np.array([[0, 1, 1], [0, 0, 0], [0, 0, 0]]), 1)


@pytest.mark.parametrize(("k", "q"), [(8, 3), (9, 2), (12, 4)])
def test_cayley_symmetric_lp_equals_the_full_concurrent_flow(k: int, q: int) -> None:
    steering = cayley_steering(k, q)
    _assert_valid(steering, q, k)
    assert (steering.circuits().sum(axis=1) == q).all()  # every port lit
    assert concurrent_flow(steering.circuits(), _mesh(k)) == pytest.approx(steering.throughput, rel=1e-6)


# Measured gap of the Cayley heuristic to the exact MILP (benchmarks/sip_ocs_ilp.py prints more).
GAPS = {(4, 1): 0.0, (4, 2): 0.0, (5, 1): 0.0, (5, 2): 0.0, (5, 3): 0.0}


@pytest.mark.parametrize(("k", "q"), sorted(GAPS))
def test_cayley_heuristic_gap_to_the_exact_milp(k: int, q: int) -> None:
    exact = exact_steering(_mesh(k), q).throughput
    heuristic = cayley_steering(k, q).throughput
    assert heuristic <= exact + 1e-9
    assert 1 - heuristic / exact == pytest.approx(GAPS[(k, q)], abs=1e-6)


def test_steer_job_switches_from_exact_to_heuristic_above_five_gpus() -> None:
    assert steer_job(5, 2).method == "exact MILP"
    big = steer_job(64, 16)
    assert big.method.startswith("Cayley heuristic")
    # Above the old Hamming stand-in's 1/8 (8 x 8 digits, 14 classes, 2 spare OCSs), below the
    # Moore bound.
    assert 1 / 8 < big.throughput <= moore_bound(64, 16)


def test_moore_bound_closed_forms() -> None:
    assert moore_bound(5, 4) == 1.0  # every peer one circuit away: q / (k - 1)
    assert moore_bound(7, 2) == pytest.approx(2 / (2 * 1 + 4 * 2))  # 2 at one hop, 4 at two
    for k, q in ((4, 1), (5, 2), (5, 3)):
        assert exact_steering(_mesh(k), q).throughput <= moore_bound(k, q) + 1e-9


def test_sip_ocs_network_gives_every_gpu_q_circuits_inside_its_job() -> None:
    mix = map_jobs([24, 40], 64)
    links = {(int(a["src"]), int(a["dst"])): float(a["bandwidth_Bps"]) for a in sip_ocs(mix).peer["links"]}  # type: ignore[index]
    out = np.zeros(64)
    for (a, b), bw in links.items():
        assert (a < 24) == (b < 24)  # circuits stay inside a job
        out[a] += bw
    assert out == pytest.approx(np.full(64, CU_BANDWIDTH_BPS))


def test_bad_traffic_is_one_line() -> None:
    with pytest.raises(ConfigError) as err:
        exact_steering(np.eye(3), 2)
    assert "zero diagonal" in str(err.value) and "\n" not in str(err.value)


# --- §5.B testbed ------------------------------------------------------------------------------


def test_testbed_at_flow_level() -> None:
    rows = {(r.network, r.label): r for r in run_testbed()}
    by_net = {r.network: r for r in rows.values()}
    # Flex-SiPAC: both wavelengths between each job's pair, two steps of half the message each.
    flex = by_net["flex-sipac"].all_reduce_s
    assert flex == pytest.approx(2 * (HOP_LATENCY_S + MOBILENET_V2_BYTES / 2 / (2 * TESTBED_LINK_BPS)), rel=1e-6)
    # Static SiPAC, BCube and a one-link leaf-spine give the pair one wavelength's rate: half.
    one_link = 2 * (HOP_LATENCY_S + MOBILENET_V2_BYTES / 2 / TESTBED_LINK_BPS)
    for r in rows.values():
        if "2 x 10" in r.label or r.network == "flex-sipac":
            assert r.all_reduce_s == pytest.approx(flex, rel=1e-6)
        else:
            assert r.all_reduce_s == pytest.approx(one_link, rel=1e-6)
            assert r.reduction == pytest.approx(0.5, abs=1e-3)
            assert r.paper_reduction == PAPER_REDUCTION[r.network]
