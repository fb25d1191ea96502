"""Analytic collective models: equal to the paper's formulas (eq. 7, 8, 13), the same bytes as
the Rust schedules, Fig. 15's ordering, the CLI and its one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railx._core import RailxError, collective_check, collective_counts
from railx._core import System as CoreSystem
from railx.collectives import LogicalDim, RailxParams, analytic, estimate
from railx.collectives.plans import ALGORITHMS, OPS, canonical_op
from railx.config import Config, ConfigError


def railx(m: int, p: int, n: int = 1, alpha_in_s: float = 0.0, k: float = 4.0) -> RailxParams:
    """k = intra_bw / port_bw per mesh lane; n lanes per chip edge give the paper's k n B."""
    return RailxParams(
        m=m, n=n, p=p, q=p, port_bw_Bps=100e9, intra_bw_Bps=k * 100e9, alpha_out_s=300e-9, alpha_in_s=alpha_in_s
    )


def t_r(p: int, v: float, b: float, alpha: float) -> float:
    return analytic.ring_reduce_scatter_time_s(p, v, b, alpha)


@settings(max_examples=60, deadline=None)
@given(m=st.sampled_from([2, 4, 7]), p=st.integers(1, 64), n=st.integers(1, 9), v=st.floats(1e3, 1e10))
def test_2d_ring_is_eq7(m: int, p: int, n: int, v: float) -> None:
    got = estimate("all-reduce", "2d-ring", v, railx(m, p, n)).time_s
    assert got == pytest.approx(analytic.two_d_ring_all_reduce_time_s(m, p, v, n * 100e9, 300e-9), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    m=st.sampled_from([2, 4, 6]),
    p=st.integers(1, 64),
    n=st.integers(1, 9),
    k=st.sampled_from([1.0, 2.0, 4.0, 8.0]),
    v=st.floats(1e3, 1e10),
)
def test_hierarchical_is_eq8_exact_form_below_its_closed_form(m: int, p: int, n: int, k: float, v: float) -> None:
    nb, a = n * 100e9, 300e-9
    got = estimate("all-reduce", "hierarchical", v, railx(m, p, n, k=k)).time_s
    exact = 2 * t_r(m * m, v, k * nb, 0.0) + 2 * (
        t_r(p, v / (2 * m * m), nb / m, a) + t_r(p, v / (2 * m * m * p), nb / m, a)
    )
    assert got == pytest.approx(exact, rel=1e-12)
    closed = analytic.mesh_hierarchical_all_reduce_time_s(m, p, k, v, nb, a)
    # The closed form keeps the lower-order terms the exact form does not have.
    dropped = 4 * a + (2 / m**2) * v / (2 * k * nb) + (v / m**2) / (2 * nb / m) / p**2
    assert closed - got == pytest.approx(dropped, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(m=st.sampled_from([2, 4, 7]), p=st.integers(2, 64), n=st.integers(1, 9), v=st.floats(1e3, 1e10))
def test_direct_on_hyperx_is_eq13(m: int, p: int, n: int, v: float) -> None:
    hx = RailxParams(
        m=m,
        n=n,
        p=p,
        q=p,
        port_bw_Bps=100e9,
        intra_bw_Bps=4 * 100e9,
        alpha_out_s=300e-9,
        alpha_in_s=0.0,
        x=(LogicalDim(p, "all-to-all", m * n),),
        y=(LogicalDim(p, "all-to-all", m * n),),
    )
    got = estimate("all-reduce", "direct", v, hx).time_s
    assert got == pytest.approx(analytic.hyperx_all_reduce_time_s(m, p, 4.0, v, n * 100e9, 300e-9), rel=1e-12)


CONFIGS = {
    "torus": {"system": {"m": 2, "n": 2, "R": 16, "grid": [3, 3]}, "topology": {"preset": "torus"}},
    "hyperx": {"system": {"m": 2, "n": 2, "R": 16, "grid": [3, 3]}, "topology": {"preset": "hyperx"}},
    "mixed": {
        "system": {"m": 2, "n": 2, "R": 32, "grid": [9, 4]},
        "topology": {
            "x": [{"size": 3, "kind": "ring", "rails": 2}, {"size": 3, "kind": "all-to-all", "rails": 2}],
            "y": [{"size": 2, "kind": "ring", "rails": 2}, {"size": 2, "kind": "ring", "rails": 2}],
        },
    },
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_models_move_the_bytes_of_the_rust_schedules(name: str) -> None:
    data = CONFIGS[name]
    core = CoreSystem(Config.from_dict(data).to_core_json())
    params = RailxParams.from_config(data)
    checked = 0
    for op in OPS:
        for algo in ALGORITHMS:
            try:
                est = estimate(op, algo, 1 << 24, params)
            except ConfigError as exc:
                with pytest.raises(RailxError, match=str(exc).split(":")[0]):
                    collective_counts(core, op, algo, 1 << 24)
                continue
            counts = collective_counts(core, op, algo, 1 << 24)
            assert counts["ranks"] == est.ranks
            assert counts["bytes"] == pytest.approx(est.bytes_moved, rel=1e-9), (op, algo)
            checked += 1
    assert checked >= 11


def test_schedules_are_correct_as_data_through_the_binding() -> None:
    core = CoreSystem(Config.from_dict(CONFIGS["hyperx"]).to_core_json())
    collective_check(core, "all-reduce", "direct", 4096, 2)
    collective_check(core, "all-to-all", "two-step", 4096)
    torus = CoreSystem(Config.from_dict(CONFIGS["torus"]).to_core_json())
    with pytest.raises(RailxError, match=r"^algo = direct: a direct reduction needs fully connected"):
        collective_check(torus, "all-reduce", "direct", 4096)
    with pytest.raises(RailxError, match=r"^size_bytes = 0"):
        collective_counts(core, "all-reduce", "ring", 0)


def test_fig15_hierarchical_is_never_slower_and_wins_across_nodes() -> None:
    for p in (1, 2, 8, 64):
        params = RailxParams(
            m=4, n=1, p=p, q=p, port_bw_Bps=100e9, intra_bw_Bps=400e9, alpha_out_s=300e-9, alpha_in_s=10e-9
        )
        for size in (1 << 10, 1 << 20, 1 << 30):
            t = {a: estimate("all-reduce", a, size, params).time_s for a in ("bidir-ring", "2d-ring", "hierarchical")}
            best_other = min(t["bidir-ring"], t["2d-ring"])
            assert t["hierarchical"] <= best_other * (1 + 1e-12)
            if p > 1:
                assert t["hierarchical"] < best_other


def test_bus_bandwidth_follows_nccl() -> None:
    est = estimate("all-reduce", "bidir-ring", 1e9, railx(2, 2))
    assert est.busbw_Bps == pytest.approx(est.algbw_Bps * 2 * (est.ranks - 1) / est.ranks)


def test_op_names_are_hyphenated_and_the_old_spellings_give_the_same_result() -> None:
    assert OPS == ("all-reduce", "reduce-scatter", "all-gather", "all-to-all")
    params = railx(4, 2)
    core = CoreSystem(Config.from_dict(CONFIGS["hyperx"]).to_core_json())
    for op in OPS:
        legacy = op.replace("-", "")
        assert canonical_op(legacy) == op
        new, old = estimate(op, "multi-rail", 1 << 20, params), estimate(legacy, "multi-rail", 1 << 20, params)
        assert old == new and old.op == op
        assert collective_counts(core, legacy, "multi-rail", 4096) == collective_counts(core, op, "multi-rail", 4096)
    with pytest.raises(ConfigError, match=r"^op = 'all_reduce': not a collective operation; use all-reduce, "):
        canonical_op("all_reduce")
    with pytest.raises(
        RailxError, match=r"^op = all_reduce: .*use all-reduce, reduce-scatter, all-gather or all-to-all"
    ):
        collective_counts(core, "all_reduce", "ring", 4096)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from railx.cli import main; main()", "collective", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_json_and_errors(tmp_path) -> None:
    out = run_cli("examples/hyperx-9x9.toml", "--op", "all-reduce", "--algo", "direct", "--size", "1048576", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert {"time_s", "algbw_Bps", "busbw_Bps", "fidelity", "algo", "messages", "bytes"} <= set(report)
    assert report["fidelity"] == "analytic" and report["algbw_Bps"] == pytest.approx(1048576 / report["time_s"])
    legacy = run_cli("examples/hyperx-9x9.toml", "--op", "allreduce", "--algo", "direct", "--size", "1048576", "--json")
    assert legacy.returncode == 0, legacy.stderr
    assert json.loads(legacy.stdout) == report and report["op"] == "all-reduce"
    plot = tmp_path / "sweep.png"
    out = run_cli("examples/torus-9x9.toml", "--algo", "2d-ring", "--sweep", "--plot", str(plot), "--json")
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)) == 11 and plot.stat().st_size > 0
    for args, message in [
        (
            ("examples/torus-9x9.toml", "--algo", "direct", "--size", "8"),
            "error: algo = direct: a direct reduction needs fully connected",
        ),
        (("examples/torus-9x9.toml", "--size", "0"), "error: size = 0: a collective moves at least one byte"),
        (("examples/torus-9x9.toml", "--size", "8", "--fidelity", "packet"), "error: fidelity = 'packet'"),
        (
            ("examples/torus-9x9.toml", "--op", "all-to-all", "--algo", "ring", "--size", "8"),
            "error: algo = ring: ring is a reduction algorithm",
        ),
        (("ft2", "--size", "8"), "error: algo = hierarchical: hierarchical needs a grouping"),
        (("ft2", "--size", "8", "--algo", "ring", "--link-model", "paper"), "error: link_model = paper"),
        (("examples/torus-9x9.toml",), "error: collective: give --size BYTES or --sweep"),
        (("examples/jobs.toml", "--size", "8"), "error: jobs = 2: a collective here runs over every chip"),
        (("examples/torus-9x9.toml", "--size", "1.5KiB?"), "error: size = '1.5KiB?': not a byte size"),
    ]:
        out = run_cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr


def test_cli_size_takes_units() -> None:
    plain = run_cli("examples/torus-9x9.toml", "--size", "1048576", "--json")
    with_unit = run_cli("examples/torus-9x9.toml", "--size", "1MiB", "--json")
    assert plain.returncode == with_unit.returncode == 0, with_unit.stderr
    assert json.loads(with_unit.stdout) == json.loads(plain.stdout)
    assert (
        json.loads(run_cli("examples/torus-9x9.toml", "--size", "1.5 GB", "--json").stdout)["size_bytes"]
        == 1_500_000_000
    )
