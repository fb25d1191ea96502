"""Flow-level simulation through the Python API: closed-form times, aggregation equals the full
run, timelines, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import railx
from railx.config import Config, ConfigError
from railx.flowsim import Messages, simulate, simulate_symmetric, symmetric_traffic
from railx.routing import route

TORUS = """
[system]
m = 2
n = 1
R = 16
grid = [3, 3]
port_bw_GBps = 50
k = 2
alpha_out_ns = 300
alpha_in_ns = 10
[topology]
preset = "torus"
"""


@pytest.fixture(scope="module")
def torus() -> railx.Network:
    return railx.realize(Config.from_toml(TORUS))


def test_single_message_is_latency_plus_bytes_over_bandwidth(torus: railx.Network) -> None:
    links = torus.links()
    path = [h["link"] for h in route(torus, 0, 35)["path"]]
    latency = sum(float(links["latency_s"][l]) for l in path)
    bandwidth = min(float(links["bandwidth_Bps"][l]) for l in path)
    result = simulate(torus, Messages.from_lists([0], [35], [10**6]))
    assert result.completion_s == pytest.approx(latency + 1e6 / bandwidth, rel=1e-12)
    assert result.flows == result.messages == 1


def test_dependent_message_waits_for_arrival_plus_delay(torus: railx.Network) -> None:
    one = simulate(torus, Messages.from_lists([0], [1], [1000])).completion_s
    chain = simulate(torus, Messages.from_lists([0, 0], [1, 1], [1000, 1000], [0.0, 1e-6], [[], [0]]))
    assert chain.completion_s == pytest.approx(2 * one + 1e-6, rel=1e-12)
    assert chain.start_s[1] == pytest.approx(one + 1e-6, rel=1e-12)


def test_aggregated_run_equals_full_run(torus: railx.Network) -> None:
    reps = symmetric_traffic(torus, "all-to-all", 4096)
    agg = simulate_symmetric(torus, reps, bins=8)
    nodes = 9
    # Expand by hand: translate every representative over the 3 x 3 node grid; dependencies on
    # the same translate (any translate gives the same times).
    per = 4
    src, dst, after = [], [], []
    for i in range(len(reps)):
        for g in range(nodes):
            gx, gy = g % 3, g // 3

            def move(chip: int, gx: int = gx, gy: int = gy) -> int:
                node, local = divmod(int(chip), per)
                x, y = node % 3, node // 3
                return (((y + gy) % 3) * 3 + (x + gx) % 3) * per + local

            src.append(move(reps.src[i]))
            dst.append(move(reps.dst[i]))
            deps = reps.deps[int(reps.dep_start[i]) : int(reps.dep_start[i + 1])]
            after.append([int(j) * nodes + g for j in deps])
    full_msgs = Messages.from_lists(src, dst, np.repeat(reps.bytes, nodes), np.repeat(reps.delay_s, nodes), after)
    full = simulate(torus, full_msgs, bins=8)
    assert agg.messages == full.messages == len(reps) * nodes
    assert agg.completion_s == pytest.approx(full.completion_s, rel=1e-9)
    np.testing.assert_allclose(np.repeat(agg.arrival_s, nodes), full.arrival_s, rtol=1e-9)
    np.testing.assert_allclose(agg.link_utilisation(), full.link_utilisation(), atol=1e-9)
    assert agg.utilisation is not None and agg.utilisation.shape == (len(agg.resource_capacity_Bps), 8)
    assert agg.utilisation.max() <= 1 + 1e-6


def test_bad_inputs_raise_one_line_errors(torus: railx.Network) -> None:
    with pytest.raises(railx.RailxError, match=r"^message 0.dst = 99: the network has 36 chips"):
        simulate(torus, Messages.from_lists([0], [99], [8]))
    with pytest.raises(railx.RailxError, match=r"^message 0.bytes = 0"):
        simulate(torus, Messages.from_lists([0], [1], [0]))
    with pytest.raises(railx.RailxError, match=r"^message 1.after = 1: a message may only wait for earlier"):
        simulate(torus, Messages.from_lists([0, 1], [1, 0], [8, 8], after=[[], [1]]))
    with pytest.raises(ConfigError, match=r"^bytes = -5"):
        symmetric_traffic(torus, "all-to-all", -5)
    with pytest.raises(railx.RailxError, match=r"^traffic = ring"):
        symmetric_traffic(torus, "ring", 8)  # type: ignore[arg-type]
    with pytest.raises(railx.RailxError, match=r"^routing = fastest"):
        simulate(torus, Messages.from_lists([0], [1], [8]), routing="fastest")  # type: ignore[arg-type]
    hyperx = railx.realize(
        Config.from_toml(
            TORUS.replace('"torus"', '"hyperx"')
            .replace("R = 16", "R = 16\nn = 2")
            .replace("n = 1\n", "")
            .replace("[3, 3]", "[5, 5]")
        )
    )
    with pytest.raises(railx.RailxError, match="not invariant under translations"):
        simulate_symmetric(hyperx, symmetric_traffic(hyperx, "all-to-all", 8))
