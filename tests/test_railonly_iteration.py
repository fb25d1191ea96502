"""The Rail-only paper's §V with the one iteration model: Korthikanti et al.'s FLOPs formulas,
HFU against the published measurements (Fig. 7), `[hb_domains]` systems (where each dimension
runs, the hierarchical reduce-scatter of eq. 1, the ideal K = N), the parallelisation search and
the sweeps' monotonicity (Figs. 8-10), and their one-line errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_railx
from railx.config import ConfigError
from railx.workload.catalogue import load_model
from railx.workload.iteration import IterationModel
from railx.workload.railonly import DGX_A100, DGX_GH200, hfu_cases, platform_system, validate_hfu
from railx.workload.railonly.sweeps import (
    CALCULON,
    PAPER_FIG9_HB_CUT,
    PAPER_FIG9_NIC_CUT,
    RAILX,
    SWEEP_TRAINING,
    Choices,
    bandwidth_cuts,
    bandwidth_sweep,
    point,
)
from railx.workload.search import best_parallelism, memory_bytes
from railx.workload.system import WorkloadSystem, load_workload_system
from railx.workload.traffic import Parallelism, compute_flops

GPTS = ("gpt-22b", "gpt3-175b", "gpt-530b", "gpt-1t", "gpt-146b")
RAILONLY = EXAMPLES / "workloads" / "railonly"


# ---- FLOPs: Korthikanti et al.'s formulas ------------------------------------------------------
def _korthikanti(key: str, B: int, s: int) -> tuple[float, float, float]:
    """Their per-iteration FLOPs of a micro-batch of B sequences: model, selective, full."""
    v = load_model(key).values()
    h, layers, V = v["hidden"], v["layers"], v["vocab"]
    base = 72.0 * B * s * layers * h * h
    model = base * (1 + s / (6 * h) + V / (12 * h * layers))
    selective = base * (1 + s / (3 * h) + V / (12 * h * layers))
    full = 96.0 * B * s * layers * h * h * (1 + s / (6 * h) + V / (16 * h * layers))
    return model, selective, full


@settings(max_examples=30, deadline=None)
@given(key=st.sampled_from(GPTS), B=st.integers(1, 8), s=st.sampled_from([512, 1024, 2048, 4096, 8192]))
def test_table4_compute_is_korthikantis_formula_for_gpts(key: str, B: int, s: int) -> None:
    spec = load_model(key)
    par = Parallelism(micro_batch=B, sequence=s)
    model, selective, full = _korthikanti(key, B, s)
    assert compute_flops(spec, par).model == pytest.approx(model, rel=1e-12)
    assert compute_flops(spec, par, "none").hardware == pytest.approx(model, rel=1e-12)
    assert compute_flops(spec, par, "selective").hardware == pytest.approx(selective, rel=1e-12)
    assert compute_flops(spec, par, "full").hardware == pytest.approx(full, rel=1e-12)


@pytest.mark.parametrize("case", [c for c in hfu_cases() if c.iteration_s is not None], ids=lambda c: c.name)
def test_published_mfu_to_hfu_ratio_follows_the_selective_formula(case) -> None:  # type: ignore[no-untyped-def]
    """The printed MFU/HFU (each rounded to 0.1%) is the model/hardware FLOPs ratio of selective
    recomputation: the evidence for counting it as Korthikanti et al.'s s/(3h) term."""
    it = IterationModel(load_model(case.model), Parallelism(sequence=2048), _one_gpu("selective"))
    model, hardware = it.iteration_flops()
    rounding = 0.05 / case.mfu_percent + 0.05 / case.hfu_percent
    assert case.mfu_percent / case.hfu_percent == pytest.approx(model / hardware, abs=rounding)


def _one_gpu(recompute: str) -> WorkloadSystem:
    return WorkloadSystem.model_validate(
        {
            "hb_domains": {"gpus": 1, "size": 1, "hb_tbps": 1, "nic_gbps": 1},
            "chip": {"sustained_tflops": 1, "peak_tflops": 1},
            "training": {"recompute": recompute, "sequence": 2048},
        }
    )


# ---- Fig. 7: HFU against the ground truth --------------------------------------------------------
def test_hfu_against_ground_truth() -> None:
    """railx at 70% of peak: 1T within 3% (the paper's model: 1.8%), the error growing as the model
    shrinks (the paper's: 10.8% at 22B; railx's 37.6%, the fixed per-iteration costs a matmul count
    does not see, docs/reproductions.md), and every case within the tolerance of its measured error."""
    rows = {r.case.name: r for r in validate_hfu()}
    assert list(rows) == ["(22B, 8)", "(175B, 64)", "(530B, 280)", "(530B, 2240)", "(1T, 512)"]
    tolerance = {"(22B, 8)": 0.40, "(175B, 64)": 0.17, "(530B, 280)": 0.07, "(530B, 2240)": 0.10, "(1T, 512)": 0.03}
    for name, row in rows.items():
        assert abs(row.hfu_error) < tolerance[name], (name, row.hfu_error)
    errors = [rows[n].hfu_error for n in ("(22B, 8)", "(175B, 64)", "(530B, 280)")]
    assert errors == sorted(errors, reverse=True)
    # The efficiency each case implies rises with the model size: what no single efficiency removes.
    implied = [rows[n].implied_efficiency for n in ("(22B, 8)", "(175B, 64)", "(530B, 280)", "(1T, 512)")]
    assert implied == sorted(implied)
    # Data parallelism only adds to the 280-GPU run (same copies, plus the gradient all-reduce).
    assert rows["(530B, 2240)"].time_s > rows["(530B, 280)"].time_s
    assert rows["(530B, 2240)"].hfu < rows["(530B, 280)"].hfu


def test_hfu_is_hardware_flops_over_time_gpus_and_peak() -> None:
    row = [r for r in validate_hfu() if r.case.name == "(1T, 512)"][0]
    model, selective, _ = _korthikanti("gpt-1t", 512, 2048)
    assert row.hfu == pytest.approx(selective / (row.time_s * 512 * 312e12))
    assert row.mfu == pytest.approx(model / (row.time_s * 512 * 312e12))


# ---- [hb_domains] systems --------------------------------------------------------------------------
def _hbd(gpus: int, size: int, hb_tbps: float = 3.6, nic_gbps: float = 400.0, **training: object) -> WorkloadSystem:
    return WorkloadSystem.model_validate(
        {
            "hb_domains": {"gpus": gpus, "size": size, "hb_tbps": hb_tbps, "nic_gbps": nic_gbps},
            "chip": {"sustained_tflops": 700, "peak_tflops": 989, "memory_GB": 80},
            "training": {"sequence": 2048, "micro_batches": 4, **training},
        }
    )


def test_each_dimension_lies_in_a_domain_across_rails_or_both() -> None:
    par = Parallelism(T=8, P=4, D=16)  # strides: T 1, D 8, P 128
    inside = _hbd(512, 512).links(par)
    assert {d: link.place for d, link in inside.items() if par.size(d) > 1} == {"T": "HB", "De": "HB", "P": "HB"}
    links = _hbd(512, 32).links(par)
    assert links["T"].place == "HB" and links["P"].place == "rail"
    assert links["De"].domain_ranks == 4 and links["De"].place == "HB 4 x rail 4"
    # Switches: a rank's port C; collectives take C/2 per direction of a two-way dimension, P sends C.
    assert links["T"].bw_bytes_per_s == pytest.approx(3.6e12 / 8 / 2)
    assert links["P"].bw_bytes_per_s == pytest.approx(400e9 / 8)
    assert links["De"].domain_bw_bytes_per_s == pytest.approx(3.6e12 / 8 / 2)


@settings(max_examples=25, deadline=None)
@given(x=st.sampled_from([2, 4, 8]), y=st.sampled_from([2, 4, 8]), hb=st.floats(1, 10), nic=st.floats(50, 800))
def test_a_split_tensor_dimension_reduce_scatters_as_eq_1(x: int, y: int, hb: float, nic: float) -> None:
    """T of x * y ranks over y domains of x: the paper's eq. 1, (x-1)D/(x C_F) + (y-1)D/(x y C_S)."""
    spec = load_model("gpt-22b")
    par = Parallelism(T=x * y, micro_batches=1, sequence=2048)
    it = IterationModel(spec, par, _hbd(x * y, x, hb, nic, micro_batches=1))
    coll = next(c for c in it.collectives if c.name == "T.attention")
    D = coll.volume_bytes
    cf, cs = hb * 1e12 / 8, nic * 1e9 / 8
    expected = ((x - 1) * D / (x * cf) + (y - 1) * D / (x * y * cs)) * coll.frequency
    assert float(it.evaluate().by_collective_s["T.attention"]) == pytest.approx(expected, rel=1e-9)


def test_a_dimension_that_does_not_tile_the_domains_is_refused() -> None:
    system = _hbd(48, 16)
    with pytest.raises(ConfigError, match=r"^parallel\.P = 8: its groups \(stride 6\) do not tile HB domains of 16"):
        system.links(Parallelism(T=2, D=3, P=8))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            "[hb_domains]\ngpus = 96\nsize = 64\nhb_tbps = 3.6\nnic_gbps = 400\n",
            r"hb_domains\.size.*must divide gpus = 96 .*e\.g\. size = 32",
        ),
        (
            '[hb_domains]\ngpus = 64\nsize = 8\nhb_tbps = 3.6\nnic_gbps = 400\n[peer]\nfamily = "fat-tree"\n',
            r"the system is given twice, as \[hb_domains\] and as \[peer\]; keep one",
        ),
        (
            'routing = "minimal"\n[hb_domains]\ngpus = 64\nsize = 8\nhb_tbps = 3.6\nnic_gbps = 400\n',
            r"routing.*routes nothing; drop routing",
        ),
        ("[hb_domains]\ngpus = 64\nsize = 8\nhb_tbps = 0\nnic_gbps = 400\n", r"hb_domains\.hb_tbps"),
    ],
)
def test_bad_hb_domains_files_end_in_one_line(tmp_path: Path, table: str, message: str) -> None:
    path = tmp_path / "ws.toml"
    path.write_text(table + "[chip]\nsustained_tflops = 400\n")
    with pytest.raises(ConfigError, match=message) as err:
        load_workload_system(path)
    assert "\n" not in str(err.value)


def test_a_parallelism_that_does_not_fill_the_gpus_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^parallel: T\*C\*D\*P = 8\*1\*1\*4 = 32 must equal the system's 64 chips"):
        IterationModel(load_model("gpt-22b"), Parallelism(T=8, P=4, sequence=2048), _hbd(64, 8))


def test_hfu_needs_a_peak() -> None:
    system = _hbd(8, 8).model_copy(update={"chip": _hbd(8, 8).chip.model_copy(update={"peak_tflops": None})})
    it = IterationModel(load_model("gpt-22b"), Parallelism(T=8, sequence=2048), system)
    with pytest.raises(ConfigError, match=r"^chip\.peak_tflops: needed for HFU"):
        it.hfu(1.0)


# ---- the search and the sweeps (Figs. 8-10) ---------------------------------------------------------
def test_the_search_picks_the_fastest_fitting_parallelisation() -> None:
    spec, system = load_model("gpt-146b"), platform_system(DGX_GH200, 256, 8, training=SWEEP_TRAINING)
    best = best_parallelism(spec, system, 256)
    assert best.memory_bytes <= 80e9
    for T, P in ((8, 8), (8, 16), (16, 4), (4, 16)):
        D = 256 // (T * P)
        par = replace(system.parallelism(T=T, P=P, D=D), micro_batches=256 // D)
        if memory_bytes(spec, par) <= 80e9:
            assert best.time_s <= float(IterationModel(spec, par, system).evaluate().total_s)


def test_nothing_fitting_the_memory_is_one_line() -> None:
    system = platform_system(DGX_GH200, 8, 8, training=SWEEP_TRAINING)
    with pytest.raises(ConfigError, match=r"^global batch 8: no T x P x D of GPT 1T .* on 8 GPUs fits 80 GB per GPU"):
        best_parallelism(load_model("gpt-1t"), system, 8)


@pytest.mark.parametrize("model", ["gpt-146b", "gpt-1t"])
def test_the_ideal_one_domain_is_the_fastest(model: str) -> None:
    gpus = 4096
    ideal = point(model, gpus, gpus, 1024).time_s
    times = [point(model, gpus, k, 1024).time_s for k in (1, 8, 64, 256)]
    assert all(ideal <= t for t in times)
    assert times == sorted(times, reverse=True)  # a larger domain never hurts


@settings(max_examples=15, deadline=None)
@given(
    k=st.sampled_from([1, 8, 64]),
    hb=st.tuples(st.floats(1, 10), st.floats(1, 10)).map(sorted),
    nic=st.tuples(st.floats(50, 800), st.floats(50, 800)).map(sorted),
)
def test_more_bandwidth_never_slows_an_iteration(k: int, hb: list[float], nic: list[float]) -> None:
    """For a fixed parallelisation and for the best one."""
    spec = load_model("gpt-146b")
    par = Parallelism(T=16, P=4, D=4, micro_batches=8, sequence=2048)
    fixed = [
        float(IterationModel(spec, par, _hbd(256, k, h, n, micro_batches=8)).evaluate().total_s)
        for h, n in ((hb[0], nic[0]), (hb[1], nic[0]), (hb[1], nic[1]))
    ]
    assert fixed == sorted(fixed, reverse=True)
    best = [point("gpt-146b", 256, k, 256, h, n).time_s for h, n in ((hb[0], nic[0]), (hb[1], nic[1]))]
    assert best[1] <= best[0]


# ---- the CLI and the shipped files ----------------------------------------------------------------
def test_the_a100_example_reports_the_validation_hfu() -> None:
    res = run_railx(
        "workload", "gpt-1t", "--parallel", "T=8,P=64,D=1", "--system", RAILONLY / "dgx-a100-512.toml", "--json"
    )
    assert res.rc == 0, res.stderr
    report = json.loads(res.stdout)
    row = [r for r in validate_hfu() if r.case.name == "(1T, 512)"][0]
    assert report["iteration_s"] == pytest.approx(row.time_s)
    assert report["hfu"] == pytest.approx(row.hfu)
    assert report["global_batch"] == 512
    assert load_workload_system(RAILONLY / "dgx-a100-512.toml").chip.peak_tflops == DGX_A100.gpu.peak_tflops


def test_parallel_best_searches_and_needs_a_batch() -> None:
    system = RAILONLY / "h100-16k.toml"
    res = run_railx("workload", "gpt-1t", "--parallel", "best", "--global-batch", "4096", "--system", system, "--json")
    assert res.rc == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["chips"] == 16384 and report["global_batch"] == 4096
    assert report["iteration_s"] == pytest.approx(point("gpt-1t", 16384, 256, 4096).time_s)
    bad = run_railx("workload", "gpt-1t", "--parallel", "best", "--system", system)
    assert bad.rc == 2 and bad.stderr.strip().splitlines() == [
        "error: --parallel best: needs --global-batch N (sequences per iteration); e.g. --global-batch 4096"
    ]
    extra = run_railx(
        "workload", "gpt-1t", "--parallel", "T=16,P=16,D=64", "--global-batch", "4096", "--system", system
    )
    assert extra.rc == 2 and "--global-batch: only with --parallel best" in extra.stderr


def test_interleaving_divides_the_bubble_and_multiplies_the_pipeline_sends() -> None:
    spec = load_model("gpt3-175b")
    plain = IterationModel(spec, Parallelism(T=8, P=8, micro_batches=64, sequence=2048), _hbd(64, 8))
    par = Parallelism(T=8, P=8, micro_batches=64, sequence=2048, interleave=3)
    three = IterationModel(spec, par, _hbd(64, 8, interleave=3))
    slot = plain.forward_s + plain.backward_s
    assert plain.compute_total_s == pytest.approx((64 + 7) * slot)
    assert three.compute_total_s == pytest.approx((64 + 7 / 3) * slot)
    sends = {m: next(c for c in it.collectives if c.name == "P").frequency for m, it in (("1", plain), ("3", three))}
    assert sends == {"1": 128, "3": 384}
    with pytest.raises(ConfigError, match=r"^parallel\.interleave = 5: must divide the 12 layers of a stage"):
        Parallelism(T=8, P=8, sequence=2048, interleave=5).check(spec)


def test_recomputation_costs_time_and_raises_hfu_over_mfu() -> None:
    spec, par = load_model("gpt-22b"), Parallelism(T=8, micro_batch=4, sequence=2048)
    runs = {
        r: IterationModel(spec, par, _hbd(8, 8, recompute=r, micro_batches=1)) for r in ("none", "selective", "full")
    }
    times = {r: float(it.evaluate().total_s) for r, it in runs.items()}
    assert times["none"] < times["selective"] < times["full"]
    for r, it in runs.items():
        model, hardware = it.iteration_flops()
        assert it.mfu(times[r]) == pytest.approx(it.hfu(times[r]) * model / hardware)
    assert runs["none"].iteration_flops()[0] == runs["full"].iteration_flops()[0]  # model FLOPs: the same


@settings(max_examples=40, deadline=None)
@given(
    logs=st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)),
    log_k=st.integers(0, 10),
)
def test_placement_agrees_with_the_ranks_groups(logs: tuple[int, int, int, int], log_k: int) -> None:
    """Power-of-two sizes: each dimension's link says what its groups are (brute force over
    Parallelism.group and domain = rank // K): one domain, one member per domain, or x per domain."""
    T, C, D, P = (2**e for e in logs)
    par = Parallelism(T=T, C=C, D=D, P=P)
    gpus = par.ranks
    size = min(2**log_k, gpus)
    links = _hbd(gpus, size).links(par)
    for dim, link in links.items():
        p = par.size(dim)
        if p == 1:
            continue
        for rank in range(0, gpus, max(1, gpus // 8)):
            domains: dict[int, int] = {}
            for member in par.group(rank, (dim,)):
                domains[member // size] = domains.get(member // size, 0) + 1
            per_domain = set(domains.values())
            assert len(per_domain) == 1
            (x,) = per_domain
            if link.place == "HB":
                assert len(domains) == 1
            elif link.place == "rail":
                assert x == 1
            else:
                assert (link.domain_ranks, p // link.domain_ranks) == (x, len(domains))


def test_the_papers_trends_hold() -> None:
    """Fig. 8: GPT-1T at K = 256 within 2% of ideal (paper: 0.9%), and GPT-146B gains more from
    K 8 -> 256 than GPT-1T; Fig. 9: the NIC matters more at K = 8, the HB bandwidth at K = 256;
    Fig. 10: a larger batch brings every K closer to the ideal (16,384 and 32,768 GPUs)."""
    n = 16384
    t = {
        (m, k): point(m, n, k, {"gpt-1t": 4096, "gpt-146b": 1024}[m]).time_s
        for m in ("gpt-1t", "gpt-146b")
        for k in (8, 256, n)
    }
    assert t[("gpt-1t", 256)] / t[("gpt-1t", n)] < 1.02
    assert 1 - t[("gpt-146b", 256)] / t[("gpt-146b", 8)] > 1 - t[("gpt-1t", 256)] / t[("gpt-1t", 8)]
    bw = {
        (k, hb, nic): point("gpt-1t", 32768, k, 4096, hb, nic).time_s
        for k in (8, 256)
        for hb in (2.4, 9.6)
        for nic in (100, 400)
    }
    nic_gain = {k: 1 - bw[(k, 2.4, 400)] / bw[(k, 2.4, 100)] for k in (8, 256)}
    hb_gain = {k: 1 - bw[(k, 9.6, 100)] / bw[(k, 2.4, 100)] for k in (8, 256)}
    assert nic_gain[8] > nic_gain[256] and hb_gain[256] > hb_gain[8]
    for k in (8, 256):
        rel = [point("gpt-1t", 32768, 32768, b).time_s / point("gpt-1t", 32768, k, b).time_s for b in (256, 4096)]
        assert rel[0] < rel[1] <= 1


# ---- Calculon's critical-path choices and the interleaving search (Fig. 9's gap) -------------------
def _split(it: IterationModel) -> tuple[float, float]:
    """(DP communication time, every other communication time) of an evaluation, at one count each."""
    plain = IterationModel(
        it.model,
        it.par,
        it.system.model_copy(
            update={"training": it.system.training.model_copy(update={"dp_overlap": "stage", "bubble_comm": False})}
        ),
    )
    by = plain.evaluate().by_parallelism_s
    return float(by["D"]), sum(float(t) for p, t in by.items() if p != "D")


@pytest.mark.parametrize("P", [4, 16, 128])
def test_layer_dp_overlap_keeps_one_layers_all_reduce_exposed(P: int) -> None:
    """T_iter = compute - w + max(w, X (1 - 1/n)) + X/n + the rest, with w = t_b (1 - 1/n) and n = L/P."""
    spec = load_model("gpt-1t")
    par = Parallelism(T=8, P=P, D=8, micro_batches=4, sequence=2048)
    stage, layer = (
        IterationModel(spec, par, _hbd(64 * P, 8, 2.4, 100, overlap=["D"], dp_overlap=mode))
        for mode in ("stage", "layer")
    )
    dp_s, rest_s = _split(layer)
    n = 128 / P
    w = layer.backward_s * (1 - 1 / n)
    expected = layer.compute_total_s - w + max(w, dp_s * (1 - 1 / n)) + dp_s / n + rest_s
    assert float(layer.evaluate().total_s) == pytest.approx(expected, rel=1e-12)
    assert float(layer.evaluate().total_s) >= float(stage.evaluate().total_s)


def test_bubble_comm_repeats_a_micro_batchs_exposed_communication_in_the_bubble() -> None:
    spec = load_model("gpt-1t")
    par = Parallelism(T=16, P=16, D=4, micro_batches=32, sequence=2048, interleave=2)
    off, on = (
        IterationModel(spec, par, _hbd(1024, 8, 2.4, 100, overlap=["D"], interleave=2, bubble_comm=flag))
        for flag in (False, True)
    )
    _, exposed_s = _split(on)  # TP and PP: exposed, once per micro-batch
    bubble = (16 - 1) / (2 * 32)
    assert float(on.evaluate().total_s) - float(off.evaluate().total_s) == pytest.approx(bubble * exposed_s, rel=1e-9)


def test_the_interleaved_schedule_holds_more_activations_and_the_search_may_use_it() -> None:
    spec = load_model("gpt-1t")
    plain = Parallelism(T=8, P=16, D=8, micro_batches=32, sequence=2048)
    states = 16 * spec.parameter_count() / (8 * 16)
    for v in (2, 4, 8):
        ratio = (memory_bytes(spec, replace(plain, interleave=v)) - states) / (memory_bytes(spec, plain) - states)
        assert ratio == pytest.approx(1 + 15 / (16 * v))  # Korthikanti et al. §4.2.3
    system = platform_system(DGX_GH200, 1024, 8, training=SWEEP_TRAINING)
    fixed = best_parallelism(spec, system, 256)
    searched = best_parallelism(spec, system, 256, search_interleave=True)
    assert fixed.par.interleave == 1 and searched.time_s <= fixed.time_s
    assert searched.memory_bytes <= 80e9


def _fig9_gains(choices: Choices) -> tuple[float, ...]:
    cuts = bandwidth_cuts(bandwidth_sweep(choices=choices))
    return tuple(100 * cuts[(kind, k)] for kind in ("nic", "hb") for k in (8, 256))


def test_calculons_model_puts_fig9s_hb_gains_on_the_papers_and_its_nic_gains_below() -> None:
    """docs/reproductions.md, Fig. 9: railx's default is 14.5 points off the paper's worst number;
    Calculon's model lands both HB gains within 0.2 points and leaves both NIC gains low (8.0 and
    3.5 points; the documented residual). Micro-batch and recomputation searches are off here:
    the benchmark shows they move none of the four numbers (and they are the slow part)."""
    paper = tuple(100 * v for v in (*PAPER_FIG9_NIC_CUT.values(), *PAPER_FIG9_HB_CUT.values()))
    assert paper == pytest.approx((35.9, 8.0, 8.0, 13.3))
    railx = _fig9_gains(RAILX)
    calculon = _fig9_gains(replace(CALCULON, search_micro_batch=False, search_recompute=False))
    assert railx == pytest.approx((21.4, 2.8, 9.4, 22.6), abs=0.05)
    assert calculon == pytest.approx((27.9, 4.5, 7.9, 13.2), abs=0.05)
    assert max(abs(a - b) for a, b in zip(railx, paper, strict=True)) > 14
    assert max(abs(a - b) for a, b in zip(calculon[2:], paper[2:], strict=True)) < 0.2
    assert all(a < b for a, b in zip(calculon[:2], paper[:2], strict=True))


def test_optimizer_sharding_keeps_the_weights_whole_and_shards_the_rest_over_D() -> None:
    """Calculon's sharded memory rule: 2 + 14/D bytes per parameter over T x P, plus one layer's
    unsharded 2-byte gradients; the activations do not change, and D = 1 is the unsharded 16 bytes
    plus that one layer."""
    spec = load_model("gpt-1t")
    params = spec.parameter_count()
    for T, P, D in ((8, 16, 8), (16, 8, 64), (8, 32, 1)):
        par = Parallelism(T=T, P=P, D=D, micro_batches=16, sequence=2048)
        whole, sharded = memory_bytes(spec, par), memory_bytes(spec, par, optimizer_sharding=True)
        activations = whole - 16 * params / (T * P)
        states = (2 + 14 / D) * params / (T * P) + 2 * params / (T * 128)
        assert sharded == pytest.approx(states + activations, rel=1e-12)
        assert (sharded < whole) == (D > 1 and 14 * (1 - 1 / D) > 2 * P / 128)


def test_optimizer_sharding_lets_the_search_use_more_data_parallelism() -> None:
    system = platform_system(DGX_GH200, 32768, 256, training=SWEEP_TRAINING)
    spec = load_model("gpt-1t")
    plain = best_parallelism(spec, system, 4096)
    sharded = best_parallelism(spec, system, 4096, optimizer_sharding=True)
    assert sharded.time_s <= plain.time_s and sharded.par.D >= plain.par.D
    assert sharded.memory_bytes == pytest.approx(memory_bytes(spec, sharded.par, optimizer_sharding=True))
    assert sharded.memory_bytes <= 80e9


@pytest.mark.parametrize(
    ("P", "v", "n", "slots"),
    [(8, 1, 3, 7), (8, 4, 16, 7 / 4), (8, 4, 3, (7 + 3 * 5) / 4), (4, 32, 1, (3 + 31 * 3) / 32)],
)
def test_an_interleaved_pipeline_short_of_micro_batches_idles_more(P: int, v: int, n: int, slots: float) -> None:
    """Bubble slots (P - 1)/v, plus (v - 1)(P - N_B mod P)/v when N_B is not a multiple of P and v > 1
    (Calculon's missing-micro-batch bubble); the compute total is (N_B + slots)(t_f + t_b)."""
    spec = load_model("gpt-1t")
    par = Parallelism(T=8, P=P, D=4, micro_batches=n, sequence=2048, interleave=v)
    it = IterationModel(spec, par, _hbd(32 * P, 8, 2.4, 100, overlap=["D"], interleave=v))
    assert it.bubble_slots == pytest.approx(slots)
    assert it.compute_total_s == pytest.approx((n + slots) * (it.forward_s + it.backward_s))


@pytest.mark.parametrize(("P", "v"), [(4, 2), (16, 4), (16, 8)])
def test_layer_dp_overlap_of_an_interleaved_stage_hides_each_chunk_under_its_own_window(P: int, v: int) -> None:
    """Calculon's DP overlap with v chunks: one layer's all-reduce exposed; the v - 1 earlier chunks'
    share (v - 1)/v hides under P t_b (v - 1)/v, the last chunk's other layers' share under its own
    layers' backward, each exposed only beyond its window."""
    spec = load_model("gpt-1t")
    par = Parallelism(T=8, P=P, D=8, micro_batches=2 * P, sequence=2048, interleave=v)
    it = IterationModel(spec, par, _hbd(64 * P, 8, 2.4, 100, overlap=["D"], dp_overlap="layer", interleave=v))
    dp_s, rest_s = _split(it)
    n, t_b = 128 / P, it.backward_s
    earlier, last = (v - 1) / v, (n / v - 1) / n
    windows = [(earlier * dp_s, P * t_b * earlier), (last * dp_s, t_b * last)]
    expected = it.compute_total_s + sum(max(w, x) - w for x, w in windows) + dp_s / n + rest_s
    assert float(it.evaluate().total_s) == pytest.approx(expected, rel=1e-12)
    assert sum(w for _, w in it.sub_windows_s("D")) == pytest.approx(it.windows_s()["D"])


def test_each_recomputation_mode_keeps_korthikantis_activation_bytes() -> None:
    """Table 2 of Korthikanti et al., per layer and token over T: 34 h (selective), h (34 + 5 a s / h)
    (none); full keeps the 2-byte inputs of every layer plus one whole layer."""
    spec = load_model("gpt-1t")
    v = spec.values()
    par = Parallelism(T=8, P=16, D=8, micro_batches=32, sequence=2048)
    states = 16 * spec.parameter_count() / (8 * 16)
    per_layer = 2048 * v["hidden"] / 8
    layers, in_flight = 128 / 16, 16
    whole = 34 + 5 * v["heads"] * 2048 / v["hidden"]
    expected = {
        "selective": 34 * per_layer * layers * in_flight,
        "none": whole * per_layer * layers * in_flight,
        "full": 2 * per_layer * layers * in_flight + whole * per_layer,
    }
    for mode, activations in expected.items():
        assert memory_bytes(spec, par, recompute=mode) == pytest.approx(states + activations, rel=1e-12)
    system = platform_system(DGX_GH200, 1024, 8, training=SWEEP_TRAINING)
    searched = best_parallelism(spec, system, 256, search_recompute=True)
    assert searched.time_s <= best_parallelism(spec, system, 256).time_s
    assert searched.memory_bytes == pytest.approx(memory_bytes(spec, searched.par, recompute=searched.recompute))


def test_the_micro_batch_search_never_loses_and_keeps_the_batch() -> None:
    spec = load_model("gpt-1t")
    system = platform_system(DGX_GH200, 1024, 8, training=SWEEP_TRAINING)
    fixed = best_parallelism(spec, system, 256)
    searched = best_parallelism(spec, system, 256, search_micro_batch=True)
    assert searched.time_s <= fixed.time_s and searched.memory_bytes <= 80e9
    assert searched.par.micro_batch * searched.par.micro_batches * searched.par.D == 256
