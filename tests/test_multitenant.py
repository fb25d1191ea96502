"""Multi-tenant all-reduce evaluation (paper 003, §6): skewness (eq. 2), job mapping and its
one-line errors, the mixes' invariants, the baselines' structure, mesh all-reduce at flow level
against its closed form, Flex-SiPCO at flow level (all jobs at once) against its closed form and
the paper's bound, the workloads' parameter counts and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx.collectives.sipco import flex_sipco_bound_s
from railx.config import ConfigError
from railx.multitenant import evaluate, jct, map_jobs, mix_for_sigma, random_mixes, skewness
from railx.multitenant.baselines import (
    CU_BANDWIDTH_BPS,
    HOP_LATENCY_S,
    FlexSipacShape,
    flex_sipac,
    flex_sipac_admissible,
    port_wavelengths,
    sip_ocs,
    superpod,
    tpuv4,
)
from railx.multitenant.evaluation import (
    flex_sipco_all_reduce,
    flex_sipco_bound,
    mesh_all_reduce,
    mesh_closed_form_s,
)
from railx.multitenant.workloads import iteration_messages, parameters
from railx.systems import System


def _links(system: System) -> dict[tuple[int, int], float]:
    return {(int(a["src"]), int(a["dst"])): float(a["bandwidth_Bps"]) for a in system.peer["links"]}  # type: ignore[index]


# --- skewness and mapping -------------------------------------------------------------------


def test_skewness_follows_eq_2() -> None:
    # One job: eq. 2 gives 0 (the paper's text calls the single 512-CU job sigma = 1).
    assert skewness([512]) == 0.0
    assert skewness([128, 128, 128, 128]) == 0.0
    assert skewness([384, 128]) == pytest.approx(2 / 3)
    assert skewness([504, 8]) == pytest.approx(1 - 8 / 504)


@pytest.mark.parametrize(
    ("sizes", "ranges", "field"),
    [
        ([], None, "no job"),
        ([256, 0], None, "at least 1 CU"),
        ([400, 200], None, "exceed the 512 CUs"),
        ([100, 100], [(0, 100), (50, 150)], "also in job 0"),
        ([100], [(0, 99)], "holds 99 CUs"),
    ],
)
def test_bad_job_mappings_are_one_line_errors(
    sizes: list[int], ranges: list[tuple[int, int]] | None, field: str
) -> None:
    with pytest.raises(ConfigError) as err:
        map_jobs(sizes, 512, ranges)
    assert field in str(err.value)
    assert "\n" not in str(err.value)


def test_sequential_mapping_is_contiguous_from_cu_0() -> None:
    mix = map_jobs([96, 32, 128], 512)
    assert mix.ranges == ((0, 96), (96, 128), (128, 256))
    assert list(mix.cus(1)) == list(range(96, 128))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(1, 64), granule=st.sampled_from([1, 4, 8]))
def test_random_mixes_are_contiguous_and_fit(seed: int, units: int, granule: int) -> None:
    n = units * granule
    for mix in random_mixes(n, granule, 3, seed):
        assert sum(mix.sizes) <= n
        assert mix.ranges[0][0] == 0
        assert all(a[1] == b[0] for a, b in zip(mix.ranges, mix.ranges[1:]))
        assert all(s > 0 and s % granule == 0 for s in mix.sizes)
        assert 0.0 <= mix.sigma < 1.0


def test_random_mixes_are_seeded() -> None:
    assert random_mixes(512, 8, 5, seed=3) == random_mixes(512, 8, 5, seed=3)


@settings(max_examples=40, deadline=None)
@given(sigma=st.floats(0.0, 0.9), jobs=st.integers(2, 4))
def test_mix_for_sigma_is_near_its_target(sigma: float, jobs: int) -> None:
    mix = mix_for_sigma(512, sigma, jobs, 8)
    assert len(mix.sizes) == jobs and sum(mix.sizes) <= 512
    # b / a moves in steps of at most 1 / a granules; a is at least 512 / (8 jobs) granules here.
    assert abs(mix.sigma - sigma) <= 1 / (512 // 8 // jobs)


# --- baselines --------------------------------------------------------------------------------


def test_every_cu_has_the_same_bandwidth_on_every_baseline() -> None:
    mix = map_jobs([64], 64)
    for system in (sip_ocs(mix), tpuv4(mix), flex_sipac(mix)):
        out = np.zeros(64)
        for (a, _), bw in _links(system).items():
            out[a] += bw
        assert out == pytest.approx(np.full(64, CU_BANDWIDTH_BPS)), system.name
    assert superpod(mix).peer["link"]["port_bw_Bps"] == CU_BANDWIDTH_BPS  # type: ignore[index]


def test_sip_ocs_gives_a_small_job_a_direct_circuit_to_every_peer() -> None:
    # 9 GPUs on 16 OCSs: the steering's best is all 8 shifts of Z_9, two OCSs each: 2/16 of a CU
    # to each peer (lambda = 2 circuits, the capacity bound 16 / 8).
    links = _links(sip_ocs(map_jobs([9], 9)))
    assert len(links) == 9 * 8
    assert list(links.values()) == pytest.approx([2 / 16 * CU_BANDWIDTH_BPS] * 72)


def test_tpuv4_joins_the_blocks_a_job_spans_into_extended_rings() -> None:
    # A job over 1.5 blocks joins blocks 0 and 1 (8 x 4 x 4 rings); block 2 and 3 stay 4^3 tori.
    links = _links(tpuv4(map_jobs([96, 32], 256)))
    assert len(links) == 256 * 6
    assert (63 - 3, 64) not in links  # sanity: ids are block-local
    # CU 3 (x = 3 in block 0) reaches CU 64 (x = 0 of block 1) along the extended x ring.
    assert (3, 64) in links and (67, 0) in links
    assert (131, 128) in links  # block 2 alone: its x ring wraps onto itself


def test_flex_sipac_allocation_keeps_each_cus_wavelength_budget() -> None:
    shape = FlexSipacShape(8, 2, 60, 4e9)
    mix = map_jobs([40, 24], 64)
    assert flex_sipac_admissible(mix, shape)
    for allocation in ("heuristic", "relaxed"):
        out = np.zeros(64)
        for (a, _), bw in _links(flex_sipac(mix, "mesh", shape, allocation)).items():
            out[a] += bw
        assert np.all(out <= 60 * 4e9 * (1 + 1e-6))


def test_a_job_not_joined_through_its_own_wss_is_not_admissible() -> None:
    # On SiPAC(8, 3), CUs 56..71 are blocks (0, 7) and (1, 0): no WSS joins them inside the job.
    assert not flex_sipac_admissible(map_jobs([56, 16], 512), FlexSipacShape())


def test_graph_peer_rejects_a_bad_link_in_one_line() -> None:
    bad = System(
        "g",
        "g",
        peer={"family": "graph", "chips": 2, "links": [{"src": 0, "dst": 5, "bandwidth_Bps": 1e9, "latency_s": 1e-7}]},
    )
    with pytest.raises(ConfigError) as err:
        _ = bad.core
    assert "graph.links[0].dst" in str(err.value) and "\n" not in str(err.value)


# --- evaluation -------------------------------------------------------------------------------


def test_jct_is_the_slowest_job() -> None:
    assert jct(np.array([1.0, 3.0, 2.0])) == 3.0
    rows = evaluate(["sip-ocs"], ["M"], [map_jobs([48, 16], 64)], [1 << 20])
    assert len(rows) == 1 and rows[0].jct_s == max(rows[0].per_job_s)
    assert rows[0].per_job_s[0] > rows[0].per_job_s[1]  # the larger job relays more


@pytest.mark.parametrize("size", [1000, 1 << 20, 100_000_000])
def test_mesh_on_a_non_blocking_switch_equals_its_closed_form(size: int) -> None:
    mix = map_jobs([64], 64)
    flow = mesh_all_reduce(superpod(mix), mix, [size])[0, 0]
    assert flow == pytest.approx(mesh_closed_form_s(64, size, CU_BANDWIDTH_BPS, HOP_LATENCY_S), rel=0.01)


def test_mesh_steps_scale_exactly_with_the_message() -> None:
    # The two-run extrapolation agrees with a flow run of each job's step at a third size
    # (SiP-OCS jobs own their circuits, so each job's step can run alone).
    from railx.flowsim import Messages, simulate
    from railx.multitenant.evaluation import _mesh_step

    mix = map_jobs([40, 24], 64)
    system = sip_ocs(mix)
    size = 3 * 64 * 1000
    predicted = mesh_all_reduce(system, mix, [size])[0] / 2
    steps, owner = _mesh_step(mix, 1)
    for job, k in enumerate(mix.sizes):
        sel = owner == job
        alone = Messages.from_lists(steps.src[sel].tolist(), steps.dst[sel].tolist(), [size // k] * int(sel.sum()))
        assert simulate(system, alone).completion_s == pytest.approx(predicted[job], rel=1e-6)


def test_flex_sipco_bound_is_the_papers_formula() -> None:
    # One 512-CU job spans all 3 levels: 4 (alpha + 7 x 2n / 24 / (w rate / 3)).
    n = 1 << 20
    expected = 4 * (HOP_LATENCY_S + 7 * 2 * n / 24 / (60 * 4e9 / 3))
    assert flex_sipco_bound_s(8, 3, n, 60 * 4e9 / 3, HOP_LATENCY_S) == pytest.approx(expected)
    assert flex_sipco_bound("flex-sipac", map_jobs([512], 512), n)[0] == pytest.approx(expected)
    # A 64-CU job spans 2 levels; Flex-SiPAC moves the third level's wavelengths onto them.
    both = flex_sipco_bound("flex-sipac", map_jobs([64, 64], 512), n)
    static = flex_sipco_bound("sipac", map_jobs([64, 64], 512), n)
    assert both[0] == pytest.approx(3 * (HOP_LATENCY_S + 7 * 2 * n / 16 / (60 * 4e9 / 2)))
    assert np.all(static > both)
    with pytest.raises(ConfigError, match="algo = F on superpod"):
        flex_sipco_bound("superpod", map_jobs([512], 512), n)


def _sipco_closed_form_s(levels: int, n: int, port_Bps: float) -> float:
    """Flex-SiPCO of a job filling a box of radix 8 on `levels` levels, contention-free:
    (l-hat + 1)(alpha + 7 n / (8 l-hat) / B)."""
    return (levels + 1) * (HOP_LATENCY_S + 7 * n / (8 * levels) / port_Bps)


def test_flex_sipco_at_flow_level_runs_every_job_at_once() -> None:
    n = 3 << 20
    rate = 4e9
    # The whole network (SiPAC(8, 2)): SiPCO, every port w / 2, on Flex-SiPAC and static SiPAC.
    whole = map_jobs([64], 64)
    for topology in ("flex-sipac", "sipac"):
        t = flex_sipco_all_reduce(topology, whole, [n])[0, 0]
        assert t == pytest.approx(_sipco_closed_form_s(2, n, 30 * rate), rel=1e-9)
    # Two jobs on one level-0 WSS each, the rest idle: eq. 1 puts the jobs' wavelengths on level
    # 0 (60 + 0), static SiPAC keeps 30 per level; the jobs share no link, so together each
    # takes its time alone, the closed form.
    mix = map_jobs([8, 8], 64)
    split = port_wavelengths(mix, FlexSipacShape.for_cus(64))
    assert split[0] == [60, 0] and split[15] == [60, 0] and split[16] == [30, 30]
    flex = flex_sipco_all_reduce("flex-sipac", mix, [n])[0]
    static = flex_sipco_all_reduce("sipac", mix, [n])[0]
    assert flex == pytest.approx([_sipco_closed_form_s(1, n, 60 * rate)] * 2, rel=1e-9)
    assert static == pytest.approx([_sipco_closed_form_s(1, n, 30 * rate)] * 2, rel=1e-9)
    alone = flex_sipco_all_reduce("flex-sipac", map_jobs([8], 64, [(8, 16)]), [n])[0, 0]
    assert flex[1] == pytest.approx(alone, rel=1e-12)
    # Below the paper's bound (which budgets transit chunks these full boxes do not have).
    rows = evaluate(["flex-sipac"], ["F"], [mix], [n])
    assert rows[0].fidelity == "flow" and rows[0].bound_s is not None
    assert rows[0].jct_s == pytest.approx(max(flex)) and rows[0].jct_s < rows[0].bound_s


# --- workloads ---------------------------------------------------------------------------------


def test_workload_parameter_counts_match_the_published_models() -> None:
    assert sum(parameters("vgg16")) == 138_357_544  # Simonyan and Zisserman, VGG-16 (D)
    assert sum(parameters("bert-large")) == 335_141_888  # BERT-large, "340M"
    assert len(parameters("vgg16")) == 16 and len(parameters("bert-large")) == 26
    assert sum(b * c for b, c in iteration_messages("candle-uno").items()) == 4 * sum(parameters("candle-uno"))
    with pytest.raises(ConfigError, match="workload = 'resnet'"):
        parameters("resnet")


# --- CLI ---------------------------------------------------------------------------------------


def test_cli_json_gives_the_closed_form_on_the_giant_switch() -> None:
    result = run_railx("multitenant", "--cus", "64", "--job", "64", "--topology", "superpod", "--size", "1MB", "--json")
    assert result.rc == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows[0]["jct_s"] == pytest.approx(mesh_closed_form_s(64, 10**6, CU_BANDWIDTH_BPS, HOP_LATENCY_S), rel=0.01)


def test_cli_bad_input_is_one_line() -> None:
    result = run_railx("multitenant", "--cus", "64", "--job", "60", "--job", "8", "--topology", "superpod")
    assert result.rc == 2
    assert "exceed the 64 CUs" in result.stderr and result.stderr.strip().count("\n") == 0


def test_cli_workload_sums_its_layers_on_the_giant_switch() -> None:
    result = run_railx(
        "multitenant", "--cus", "64", "--job", "64", "--topology", "superpod", "--workload", "bert-large", "--json"
    )
    assert result.rc == 0, result.stderr
    expected = sum(
        count * mesh_closed_form_s(64, size, CU_BANDWIDTH_BPS, HOP_LATENCY_S)
        for size, count in iteration_messages("bert-large").items()
    )
    assert json.loads(result.stdout)[0]["jct_s"] == pytest.approx(expected, rel=0.01)


def test_cli_unknown_allocation_is_one_line() -> None:
    result = run_railx("multitenant", "--cus", "64", "--job", "64", "--allocation", "greedy")
    assert result.rc == 2
    assert "--allocation = 'greedy'" in result.stderr and result.stderr.strip().count("\n") == 0
