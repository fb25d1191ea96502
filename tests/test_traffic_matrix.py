"""GPU-pair traffic matrices (railx.workload.matrix): totals equal to Table 4's volumes under the
stated algorithms, structural properties for random jobs, the Rail-only paper's §III figures
(Figs. 2-5), bad input and the `railx traffic` command."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from railx.config import ConfigError
from railx.workload.catalogue import ModelSpec, SourcedInt, load_model
from railx.workload.jobs import available_jobs, load_job
from railx.workload.matrix import Placement, group_bytes, plot_heatmap, rank_groups, traffic_matrix
from railx.workload.traffic import Parallelism, traffic


def spec(experts: int, interval: int) -> ModelSpec:
    fields = {
        "layers": 4,
        "hidden": 64,
        "heads": 8,
        "kv_heads": 2,
        "ffn": 96,
        "ffn_matrices": 3,
        "vocab": 1000,
        "experts": experts,
        "top_k": min(2, experts),
        "moe_layer_interval": interval if experts > 1 else 1,
    }
    return ModelSpec(name="test", **{k: SourcedInt(value=v, source="test") for k, v in fields.items()})


@st.composite
def jobs(draw: st.DrawFn) -> tuple[ModelSpec, Parallelism, Placement]:
    experts = draw(st.sampled_from([1, 4, 8]))
    model = spec(experts, draw(st.sampled_from([1, 2])))
    E = draw(st.sampled_from([e for e in (1, 2, 4) if experts % e == 0]))
    par = Parallelism(
        T=draw(st.sampled_from([1, 2, 4])),
        C=draw(st.sampled_from([1, 2])),
        E=E,
        D=E * draw(st.sampled_from([1, 2, 3])),
        P=draw(st.sampled_from([1, 2])),
        micro_batches=draw(st.integers(1, 3)),
        sequence=64,
    )
    spare = draw(st.sampled_from([0, 1]))
    n = par.ranks
    k = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    return model, par, Placement(n + spare * k, k)


def _entries(m) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    coo = m.tocoo()
    return coo.row, coo.col, coo.data


@settings(max_examples=60, deadline=None)
@given(jobs(), st.sampled_from(["ring", "hierarchical"]), st.sampled_from(["bidirectional", "unidirectional"]))
def test_matrix_totals_and_structure(job, all_reduce, ring) -> None:
    model, par, placement = job
    try:
        tm = traffic_matrix(model, par, placement, all_reduce, ring)
    except ConfigError as exc:  # hierarchical needs as many group members in every domain it touches
        assume("hierarchical" not in str(exc))
        raise
    for coll in traffic(model, par):
        groups = par.ranks // coll.group_size(par)
        assert tm.collective_bytes[coll.name] == pytest.approx(groups * group_bytes(coll, par), rel=1e-9, abs=1e-6)
    by_kind = {"TP": "T", "CP": "C", "EP": "E", "DP": "D", "PP": "P"}
    for kind, m in tm.by_type.items():
        expected = sum(v for c, v in tm.collective_bytes.items() if c[0] == by_kind[kind])
        assert float(m.sum()) == pytest.approx(expected, rel=1e-9, abs=1e-6)
        row, col, data = _entries(m)
        assert (data > 0).all()
        assert (row != col).all()
        assert (row < par.ranks).all() and (col < par.ranks).all()  # idle GPUs stay silent
        if ring == "bidirectional" or kind in ("EP", "PP"):
            assert abs(m - m.T).max() <= 1e-9 * max(1.0, float(m.max()))
    row, col, _ = _entries(tm.by_type["PP"])
    stage = par.T * par.C * par.D
    assert (np.abs(row - col) == stage).all()  # adjacent stages, same position in the stage


@settings(max_examples=40, deadline=None)
@given(jobs(), st.data())
def test_rank_groups_match_parallelism_group(job, data) -> None:
    _, par, _ = job
    dims = data.draw(st.sampled_from([("T",), ("C",), ("E",), ("E", "De"), ("C", "E", "De"), ("C", "De"), ("P",)]))
    groups = rank_groups(par, dims)
    assert sorted(groups.ravel().tolist()) == list(range(par.ranks))  # a partition
    rank = data.draw(st.integers(0, par.ranks - 1))
    (row,) = [g for g in groups if rank in g]
    assert row.tolist() == par.group(rank, dims)


def test_ring_all_reduce_pair_volume_closed_form() -> None:
    """A dense job with D = 4 only: each rank sends 2 (p-1)/p V f, half to each ring neighbour."""
    model = spec(1, 1)
    par = Parallelism(D=4, sequence=64)
    tm = traffic_matrix(model, par, Placement(4, 1))
    per_rank = sum(2 * 3 / 4 * c.volume_bytes * c.frequency for c in traffic(model, par) if c.parallelism == "D")
    dp = tm.by_type["DP"].toarray()
    assert dp[0, 1] == pytest.approx(per_rank / 2) and dp[0, 3] == pytest.approx(per_rank / 2)
    assert dp[0, 2] == 0.0


# ---- the Rail-only paper's §III jobs -------------------------------------------------------------

MEGATRON = ["megatron-gpt-146b", "megatron-gpt-310b", "megatron-gpt-530b", "megatron-gpt-1t"]


def matrix_of(key: str, ring: str = "bidirectional"):
    job = load_job(key)
    return traffic_matrix(job.spec(), job.parallelism(), job.placement(), job.all_reduce.value, ring)  # type: ignore[arg-type]


def test_shipped_jobs_match_their_published_sizes() -> None:
    assert available_jobs() == sorted(MEGATRON + ["gh200-gpt-1t", "deepspeed-moe-1.3b"])
    gpus = {"megatron-gpt-146b": 1536, "megatron-gpt-310b": 1920, "megatron-gpt-530b": 2520, "megatron-gpt-1t": 3072}
    for key, n in gpus.items():  # Narayanan et al. 2021, Table 1
        assert load_job(key).placement().gpus == n
    assert load_job("gh200-gpt-1t").placement() == Placement(4096, 256)
    assert load_job("deepspeed-moe-1.3b").placement() == Placement(128, 8)


@pytest.mark.parametrize("key", MEGATRON)
def test_fig2_megatron_pairs_mostly_silent_and_tp_dominates(key: str) -> None:
    """Fig. 2: over 99% of GPU pairs carry nothing; TP is over 75% of the bytes, all inside HB domains;
    DP and PP stay on rails (pairs a multiple of 8 apart)."""
    tm = matrix_of(key)
    assert tm.pair_shares()["none"] > 0.99
    shares = tm.volume_shares()
    assert shares["TP (HB)"] > 0.75 and "TP (NIC)" not in shares
    for kind in ("DP", "PP"):
        row, col, _ = _entries(tm.by_type[kind])
        assert ((row - col) % 8 == 0).all()


def test_fig2_tp_pairs_below_004_percent_needs_a_one_way_ring() -> None:
    """The paper's "< 0.04% of pairs carry TP" holds for GPT-1T with a one-way ring (1/3071);
    railx's default two-way ring touches twice as many pairs."""
    assert matrix_of("megatron-gpt-1t", "unidirectional").pair_shares()["TP"] == pytest.approx(1 / 3071)
    assert matrix_of("megatron-gpt-1t").pair_shares()["TP"] == pytest.approx(2 / 3071)


def test_fig3_gpt1t_pair_volumes() -> None:
    """Fig. 3: ~300 GB between GPUs of an HB domain, ~6 GB across (PP: 512 micro-batches x 13.1 MB)."""
    top = matrix_of("megatron-gpt-1t").max_pair_bytes()
    bsh = 2048 * 25600 * 2  # one micro-batch's activations, bytes
    assert top["NIC"] == pytest.approx(512 * bsh / 8)
    # TP per rank: 8 RS/AG of 7/8 BSH per layer and micro-batch, 2 layers per stage; half to each neighbour
    assert top["HB"] == pytest.approx(8 * 7 / 8 * bsh * 2 * 512 / 2)
    assert 300e9 <= top["HB"] <= 400e9 and 6e9 <= top["NIC"] <= 7e9


def test_fig4_gh200_hierarchical_all_reduce_keeps_98_percent_in_the_domain() -> None:
    """Fig. 4: DP over 32 GPUs in each of 2 GH200 domains; hierarchical all-reduce sends
    y(x-1)/(y(x-1) + y-1) = 62/63 of its bytes inside domains; the rest between GPUs 256 apart."""
    tm = matrix_of("gh200-gpt-1t")
    shares = tm.volume_shares()
    inside = shares["DP (HB)"] / (shares["DP (HB)"] + shares["DP (NIC)"])
    assert inside == pytest.approx(62 / 63)
    assert round(inside, 2) == 0.98
    _, nic = tm.split(tm.by_type["DP"])
    row, col, _ = _entries(nic)
    assert (np.abs(row - col) == 256).all()
    row, col, _ = _entries(tm.by_type["PP"])
    assert (np.abs(row - col) == 512).all()  # two domains per stage: still one rail
    # The paper's DP (NIC) is 0.8% of all bytes; railx's TP volume is larger relative to DP (docs).
    assert shares["DP (NIC)"] == pytest.approx(0.00123, rel=0.02)


def test_fig5_moe_all_to_all_share() -> None:
    """Fig. 5: uniform all-to-all among 128 experts is 27% of MoE-1.3B's bytes (railx: 28.5%)."""
    tm = matrix_of("deepspeed-moe-1.3b")
    shares = tm.volume_shares()
    ep = shares["EP (HB)"] + shares["EP (NIC)"]
    assert ep == pytest.approx(0.27, abs=0.02)
    assert tm.pair_shares()["EP"] == pytest.approx(1.0)  # every pair
    assert shares["EP (HB)"] / ep == pytest.approx(7 / 127)  # 7 of a GPU's 127 peers share its server


def test_moe_interval_splits_layers() -> None:
    rows = {c.name: c for c in traffic(load_model("moe-1.3b"), load_job("deepspeed-moe-1.3b").parallelism())}
    assert rows["E"].frequency == 4 * 12 and rows["T.ffn"].frequency + rows["T.ffn.dense"].frequency == 4 * 24
    assert rows["D.ffn.dense"].dims == ("C", "E", "De") and rows["D.ffn"].dims == ("C", "De")


def test_heatmap_png(tmp_path) -> None:
    path = tmp_path / "one_stage.png"
    plot_heatmap(matrix_of("megatron-gpt-1t"), 48, path, "GPT-1T, one stage")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ConfigError, match="heatmap gpus = 5000"):
        plot_heatmap(matrix_of("megatron-gpt-1t"), 5000, path, "too many")


# ---- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("placement", "message"),
    [
        (Placement(96, 7), "hb_domain = 7: must divide the 96 GPUs"),
        (Placement(64, 8), "gpus = 64: the parallelism needs T*C*D*P = 96 GPUs; e.g. gpus = 96"),
        (Placement(96, 0), "hb_domain = 0, gpus = 96: both must be positive"),
    ],
)
def test_bad_placement(placement: Placement, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("*", r"\*")) as info:
        traffic_matrix(spec(1, 1), Parallelism(T=4, D=24, sequence=64), placement)
    assert "\n" not in str(info.value)


def test_hierarchical_needs_a_regular_grid() -> None:
    with pytest.raises(ConfigError, match="all_reduce = hierarchical: .*e.g. all_reduce = ring"):
        traffic_matrix(spec(1, 1), Parallelism(D=6, sequence=64), Placement(8, 4), "hierarchical")


def test_unknown_model_and_job() -> None:
    with pytest.raises(ConfigError, match="unknown model key"):
        load_model("gpt-2t")
    with pytest.raises(ConfigError, match="unknown job key; shipped jobs are deepspeed-moe-1.3b"):
        load_job("gpt-2t")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "railx.cli", *args], capture_output=True, text=True, check=False)


def test_cli_json_and_errors(tmp_path) -> None:
    out = _cli("traffic", "--job", "deepspeed-moe-1.3b", "--json", "--heatmap", str(tmp_path / "moe.png"))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["gpus"] == 128 and report["all_reduce"] == "ring"
    assert sum(report["volume_shares"].values()) == pytest.approx(1.0)
    assert (tmp_path / "moe.png").is_file()
    same = _cli(
        "traffic", "moe-1.3b", "--parallel", "E=128,D=128", "--hb-domain", "8", "--global-batch", "512", "--json"
    )
    assert json.loads(same.stdout)["volume_shares"] == pytest.approx(report["volume_shares"])
    for args, message in [
        (("traffic", "gpt-1t", "--parallel", "T=8,P=64,D=6", "--hb-domain", "7"), "hb_domain = 7"),
        (("traffic", "gpt-9t", "--parallel", "T=8", "--hb-domain", "8"), "unknown model key"),
        (("traffic", "gpt-1t", "--parallel", "T=8"), "give MODEL with --parallel and --hb-domain"),
        (("traffic", "--job", "megatron-gpt-1t", "--hb-domain", "8"), "give either --job KEY or MODEL"),
        (("traffic", "--job", "megatron-gpt-1t", "--sequence", "4096"), "give either --job KEY or MODEL"),
        (("traffic", "--job", "megatron-gpt-1t", "--all-reduce", "tree"), "--all-reduce = 'tree'"),
    ]:
        bad = _cli(*args)
        assert bad.returncode == 2 and message in bad.stderr and bad.stderr.count("\n") == 1, bad.stderr


def test_hierarchical_all_reduce_closed_form() -> None:
    """D = 4 over 2 domains of 2: each rank sends V to its domain peer (2 (x-1)/x V, x = 2) and V/2
    to its rail peer (2 (y-1)/y V/x, y = 2): 3/2 V in all, a ring's 2 (p-1)/p V."""
    model = spec(1, 1)
    par = Parallelism(D=4, sequence=64)
    V = sum(c.volume_bytes * c.frequency for c in traffic(model, par) if c.parallelism == "D")
    dp = traffic_matrix(model, par, Placement(4, 2), "hierarchical").by_type["DP"].toarray()
    assert dp[0, 1] == pytest.approx(V) and dp[0, 2] == pytest.approx(V / 2) and dp[0, 3] == 0.0
    assert dp[3, 2] == pytest.approx(V) and dp[3, 1] == pytest.approx(V / 2)
    assert dp.sum(axis=1) == pytest.approx([2 * 3 / 4 * V] * 4)
