"""Model catalogue and per-iteration traffic: Table 4 of the RailX paper for symbolic
parameters, the Listing 1 job, FLOPs, and clear errors for bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railx.config import ConfigError
from railx.workload.catalogue import ModelSpec, SourcedInt, available_models, load_model
from railx.workload.traffic import Parallelism, compute_flops, traffic


def spec(**values: int) -> ModelSpec:
    fields = {
        "layers": 8,
        "hidden": 64,
        "heads": 8,
        "kv_heads": 2,
        "ffn": 96,
        "ffn_matrices": 3,
        "vocab": 1000,
        "experts": 8,
        "top_k": 2,
        "moe_layer_interval": 1,
    }
    fields.update(values)
    return ModelSpec(name="test", **{k: SourcedInt(value=v, source="test") for k, v in fields.items()})


# Published sizes the catalogue's shapes must reproduce (parameters in billions, 3% tolerance).
# Megatron-LM's GPTs: Narayanan et al. 2021, Table 1 (22B: Korthikanti et al. 2023, Table 3); MoE-1.3B (1.3B+MoE-128): DeepSpeed-MoE's 52B.
PUBLISHED_B = {
    "llama3-70b": 70.6,
    "llama3-405b": 405,
    "gpt3-175b": 175,
    "gpt-22b": 22,
    "gpt-146b": 145.6,
    "gpt-310b": 310.1,
    "gpt-530b": 529.6,
    "gpt-1t": 1008,
    "mixtral-8x22b": 141,
    "moe-1.3b": 52,
}


def test_catalogue_has_the_required_models_with_sources() -> None:
    keys = available_models()
    for key in ("llama3-70b", "llama3-405b", "gpt3-175b", "gpt-1t", "mixtral-8x22b", "deepseek-v3"):
        assert key in keys
    for key in keys:
        model = load_model(key)
        for field in ModelSpec.model_fields:
            if field != "name":
                assert getattr(model, field).source.strip()
    assert load_model("deepseek-v3").values()["experts"] == 256
    assert load_model("mixtral-8x22b").values()["top_k"] == 2


@pytest.mark.parametrize("key", sorted(PUBLISHED_B))
def test_catalogue_shapes_give_the_published_parameter_counts(key: str) -> None:
    assert load_model(key).parameter_count() / 1e9 == pytest.approx(PUBLISHED_B[key], rel=0.03)


def test_user_model_file_and_errors(tmp_path) -> None:
    text = load_model("llama3-70b").model_dump_json()
    import json

    data = json.loads(text)
    lines = [f'name = "{data.pop("name")}"'] + [
        f'{k} = {{ value = {v["value"]}, source = "mine" }}' for k, v in data.items()
    ]
    path = tmp_path / "mine.toml"
    path.write_text("\n".join(lines))
    assert load_model(path).values() == load_model("llama3-70b").values()
    with pytest.raises(ConfigError, match="unknown model key.*llama3-70b"):
        load_model("llama-9000")
    path.write_text("\n".join(lines).replace("value = 8192", "value = -1"))
    with pytest.raises(ConfigError, match="hidden"):
        load_model(path)


@settings(max_examples=60, deadline=None)
@given(
    T=st.sampled_from([1, 2, 4]),
    C=st.sampled_from([1, 2, 4]),
    E=st.sampled_from([1, 2, 4, 8]),
    De=st.integers(1, 3),
    P=st.sampled_from([1, 2, 4, 8]),
    B=st.integers(1, 4),
    NB=st.integers(1, 16),
    S=st.sampled_from([1024, 4096, 8192]),
    kv=st.sampled_from([1, 2, 4, 8]),
    K=st.integers(1, 8),
    dtype=st.sampled_from([1, 2, 4]),
)
def test_volumes_frequencies_and_groups_are_table_4(T, C, E, De, P, B, NB, S, kv, K, dtype) -> None:
    H, I, V, L, hA = 64, 96, 1000, 8, 8
    model = spec(hidden=H, ffn=I, vocab=V, layers=L, heads=hA, kv_heads=kv, experts=8, top_k=K)
    D = E * De
    par = Parallelism(T=T, C=C, E=E, D=D, P=P, micro_batch=B, micro_batches=NB, sequence=S, dtype_bytes=dtype)
    rows = {c.name: c for c in traffic(model, par)}
    expected = {  # Table 4: (pattern, volume in elements, frequency)
        "T.attention": ("RS+AG", B * S * H, 4 * NB * L / P),
        "T.ffn": ("RS+AG", B * S * H * K, 4 * NB * L / P),
        "C": ("point-to-point", B * S * H * (2 * kv / hA) / T, 2 * NB * L / P),
        "E": ("all-to-all", B * S * H * K / (T * C), 4 * NB * L / P),
        "D.vocab": ("all-reduce", 2 * H * V / (T * C), 1),
        "D.qkv": ("all-reduce", (2 + 2 * kv / hA) * H * H / T, L / P),
        "D.ffn": ("all-reduce", 3 * H * I / T, L / P),
        "P": ("point-to-point", B * S * H / (T * C), 2 * NB),
    }
    assert set(rows) == set(expected)
    for name, (pattern, volume, frequency) in expected.items():
        assert rows[name].pattern == pattern
        assert rows[name].volume_elements == pytest.approx(volume, rel=1e-12)
        assert rows[name].volume_bytes == pytest.approx(volume * dtype, rel=1e-12)
        assert rows[name].frequency == pytest.approx(frequency, rel=1e-12)
    groups = {  # Table 4's process groups of rank i = 0
        "T.attention": list(range(T)),
        "C": [j * T for j in range(C)],
        "E": [j * T * C for j in range(E)],
        "D.vocab": [j * T * C for j in range(D)],
        "D.qkv": [j * T for j in range(C * D)],
        "D.ffn": sorted(c * T + j * T * C * E for c in range(C) for j in range(De)),
        "P": [j * T * C * D for j in range(P)],
    }
    for name, members in groups.items():
        assert par.group(0, rows[name].dims) == members
        assert rows[name].group_size(par) == len(members)
    rank = (par.ranks * 7) // 11
    for row in rows.values():  # groups partition the ranks: every rank's group holds it, same size
        group = par.group(rank, row.dims)
        assert rank in group and len(group) == row.group_size(par)
        assert all(par.group(r, row.dims) == group for r in group)


def test_listing_1_configuration() -> None:
    """RailX paper A.4 Listing 1: Llama 3 70B with 8 experts top-2, DP 4 TP 4 PP 2 CP 2 EP 2."""
    model = load_model("llama3-70b-moe8")
    par = Parallelism(T=4, C=2, E=2, D=4, P=2, micro_batch=1, micro_batches=8, sequence=8192, dtype_bytes=2)
    assert par.ranks == 64 and par.De == 2
    assert model.values()["experts"] // par.E == 4  # experts per EP rank
    rows = {c.name: c for c in traffic(model, par)}
    assert rows["T.attention"].volume_bytes == 8192 * 8192 * 2
    assert rows["T.ffn"].volume_bytes == 8192 * 8192 * 2 * 2
    assert rows["E"].volume_bytes == 8192 * 8192 * 2 / 8 * 2
    assert rows["C"].volume_bytes == 8192 * 8192 * (2 * 8 / 64) / 4 * 2
    assert rows["E"].frequency == 4 * 8 * 80 / 2 and rows["P"].frequency == 16
    assert [par.group(0, rows[n].dims) for n in ("C", "E", "D.vocab", "D.ffn", "P")] == [
        [0, 4],
        [0, 8],
        [0, 8, 16, 24],
        [0, 4, 16, 20],
        [0, 32],
    ]


@pytest.mark.parametrize(
    ("par", "field"),
    [
        (Parallelism(T=3), "parallel.T = 3"),
        (Parallelism(E=2, D=3), "parallel.D = 3"),
        (Parallelism(E=3, D=3), "parallel.E = 3"),
        (Parallelism(P=3), "parallel.P = 3"),
        (Parallelism(C=3, sequence=1024), "parallel.C = 3"),
        (Parallelism(T=0), "parallel.T = 0"),
    ],
)
def test_bad_parallelism_names_the_field(par: Parallelism, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        traffic(spec(), par)
    message = str(info.value)
    assert message.startswith(field) and "\n" not in message and "e.g." in message


def test_flops_match_six_n_d_for_dense_matmuls() -> None:
    """Forward + backward FLOPs of the weight matmuls are 6 x parameters x tokens (split by T*C*P)."""
    model = load_model("llama3-70b")
    par = Parallelism(T=4, C=2, P=2, micro_batch=2, sequence=4096)
    f = compute_flops(model, par)
    v = model.values()
    layer_params = v["hidden"] ** 2 * (2 + 2 * v["kv_heads"] / v["heads"]) + 3 * v["hidden"] * v["ffn"]
    tokens = 2 * 4096
    weights = 3 * (f.qkv + f.out_proj + f.ffn)
    assert weights == pytest.approx(6 * layer_params * v["layers"] * tokens / (4 * 2 * 2), rel=1e-12)
    assert f.backward == pytest.approx(2 * f.forward)
    longer = compute_flops(model, Parallelism(T=4, C=2, P=2, micro_batch=2, sequence=8192))
    assert longer.attention == pytest.approx(4 * f.attention)  # quadratic in the sequence
