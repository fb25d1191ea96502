"""The RailX paper's examples through the Python API: Fig. 5, 7, 8 and 9, the
RailX7Mesh scale, the Hamiltonian rail decompositions, and the realized chip graph's links checked
against the OCS circuits they come from."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

import railx
from conftest import EXAMPLES
from railx import Config


def circuits_of(ocs: dict[str, Any], dim: str) -> list[tuple[int, int, int, int]]:
    """(line, rail, plus node position, minus node position) of every circuit on `dim` switches."""
    out = []
    for switch in ocs["switches"]:
        if switch["dim"] != dim:
            continue
        for a, b in switch["circuits"]:
            plus, minus = (a, b) if a % 2 == 1 else (b, a)
            assert plus % 2 == 1 and minus % 2 == 0
            out.append((switch["line"], switch["rail"], plus // 2, minus // 2))
    return out


def single_cycle(succ: list[int]) -> bool:
    """Whether the successor list is one cycle through all its elements."""
    at, seen = 0, set()
    for _ in succ:
        seen.add(at)
        at = succ[at]
    return at == 0 and len(seen) == len(succ)


# ------------------------------------------------------------------------------------------------
# Fig. 5: rail-ring all-to-all of 5 nodes on 4 rails.

FIG5 = """
[system]
m = 2
n = 2
R = 10
grid = [5, 1]

[topology]
x = [ { size = 5, kind = "all-to-all", rails = 4 } ]
y = []
"""


def test_fig5_every_pair_twice_on_two_rails() -> None:
    net = railx.realize(Config.from_toml(FIG5))
    ocs = net.ocs()
    circuits = circuits_of(ocs, "X")
    assert circuits_of(ocs, "Y") == []
    assert len(circuits) == 5 * 4  # every node's + port on each of the 4 rails
    rails_of_pair: dict[frozenset[int], list[int]] = {}
    for line, rail, u, v in circuits:
        assert line == 0 and u != v
        rails_of_pair.setdefault(frozenset((u, v)), []).append(rail)
    assert len(rails_of_pair) == 10  # C(5, 2)
    for pair, rails in rails_of_pair.items():
        assert len(rails) == 2 and rails[0] != rails[1], (sorted(pair), rails)
    # Each ordered pair is one arc of one rail (paper Lemma 3.1), each rail a ring of all 5 nodes.
    assert Counter((u, v) for _, _, u, v in circuits) == Counter(itertools.permutations(range(5), 2))
    for rail in range(4):
        succ = {u: v for _, t, u, v in circuits if t == rail}
        assert single_cycle([succ[i] for i in range(5)])
    plan = net.plan()
    assert plan["diameter_inter_node"] == 1
    assert plan["chips"] == 20


# ------------------------------------------------------------------------------------------------
# Fig. 7: 25-node 2D-HyperX.


def test_fig7_hyperx_5x5() -> None:
    net = railx.realize(EXAMPLES / "hyperx-5x5.toml")
    plan = net.plan()
    m = plan["m"]
    assert (plan["chips"], plan["nodes"], plan["switches"], plan["rails_per_dim"]) == (100, 25, 40, 4)
    assert plan["diameter_inter_node"] == plan["closed_form"]["diameter_inter_node"] == 2
    assert plan["diameter_hops"]["Ho"] == 2
    assert plan["diameter_hops"]["Hi"] <= 5 * m - 6
    # Every row and every column is a complete graph with two links per pair.
    ocs = net.ocs()
    for dim in ("X", "Y"):
        arcs = Counter((line, u, v) for line, _, u, v in circuits_of(ocs, dim))
        expected = Counter((line, u, v) for line in range(5) for u, v in itertools.permutations(range(5), 2))
        assert arcs == expected, dim


# ------------------------------------------------------------------------------------------------
# Fig. 8: Dragonfly of 21 groups of 5 nodes.


def test_fig8_dragonfly_21x5() -> None:
    net = railx.realize(EXAMPLES / "dragonfly-21x5.toml")
    plan = net.plan()
    r, m = plan["rails_per_dim"], plan["m"]
    assert r == 4
    assert plan["grid"] == [21, 5]
    assert plan["chips"] == (r + 1) * (r * r + r + 1) * m * m == 420
    assert plan["diameter_inter_node"] == plan["closed_form"]["diameter_inter_node"] == 3
    ocs = net.ocs()
    # Global links (X, between groups): exactly one per ordered pair of groups over all rows,
    # row j carrying Hamiltonian cycles j*r .. j*r + r - 1 (all 20 cycles of K*_21).
    global_arcs = circuits_of(ocs, "X")
    assert Counter((u, v) for _, _, u, v in global_arcs) == Counter(itertools.permutations(range(21), 2))
    for line in range(5):
        for rail in range(r):
            succ = {u: v for j, t, u, v in global_arcs if (j, t) == (line, rail)}
            assert single_cycle([succ[i] for i in range(21)]), (line, rail)
    # Local links (Y, inside a group): each group a complete graph of 5 nodes, each pair twice.
    local = Counter((line, u, v) for line, _, u, v in circuits_of(ocs, "Y"))
    assert local == Counter((g, u, v) for g in range(21) for u, v in itertools.permutations(range(5), 2))


# ------------------------------------------------------------------------------------------------
# Fig. 9: the 4 x 3 x 3 x 4 x 4 high-dimensional topology.


def test_fig9_high_dimensional() -> None:
    plan = railx.realize(EXAMPLES / "high-dim-4x3x3x4x4.toml").plan()
    assert plan["chips"] == 4 * 3 * 3 * 4 * 4 == 576
    assert plan["nodes"] == 144
    # ring 3 (1) + all-to-all 3 (1) + ring 4 (2) + ring 4 (2).
    assert plan["diameter_inter_node"] == plan["closed_form"]["diameter_inter_node"] == 6
    assert plan["regions"][0]["unused_rails"] == [0, 0]


def test_torus_diameter_is_half_each_extent() -> None:
    plan = railx.realize(EXAMPLES / "torus-9x9.toml").plan()
    assert plan["diameter_inter_node"] == plan["closed_form"]["diameter_inter_node"] == 9 // 2 + 9 // 2
    assert plan["chips"] == 9 * 9 * 16 == 1296


# ------------------------------------------------------------------------------------------------
# RailX7Mesh and a smaller RailX-like HyperX.


def test_railx7mesh_scale() -> None:
    scales = {s["preset"]: s for s in railx.max_scale(7, 9, 128)}
    assert set(scales) == {"torus", "hyperx", "dragonfly"}
    assert scales["hyperx"]["chips"] == 200_704
    assert scales["hyperx"]["grid"] == [64, 64]  # r + 1 = 64 = R/2
    assert scales["torus"]["chips"] == (128 // 2) ** 2 * 7 * 7
    config = railx.load_config(EXAMPLES / "railx7mesh-hyperx.toml")
    system = config.system
    r = system.m * system.n
    assert r == 63
    assert r * (system.R // 2 + system.R // 2) == 8_064  # switches: r * (P + Q)
    # Paper eq. 1 at full size: N = (R/2)^2 m^2.
    assert (system.R // 2) ** 2 * system.m**2 == 200_704


RAILX_LIKE = """
[system]
m = 3
n = 3
R = 20

[topology]
preset = "hyperx"
"""


def test_railx_like_hyperx_10x10() -> None:
    plan = railx.realize(Config.from_toml(RAILX_LIKE)).plan()
    m, r = plan["m"], plan["rails_per_dim"]
    assert r == 9
    assert plan["grid"] == [10, 10]  # default R/2 x R/2 = (r+1) x (r+1)
    assert plan["chips"] == 900
    assert plan["switches"] == r * 20
    assert plan["diameter_inter_node"] == 2
    assert plan["diameter_hops"]["Hi"] <= 5 * m - 6
    # Even size: the all-to-all bound is exactly 2 (r+1) / m^2 per chip, realized and closed form.
    bound = 2 * (r + 1) / m**2
    assert plan["a2a_bound_per_chip"] == bound
    assert plan["closed_form"]["a2a_bound_per_chip"] == bound
    assert Fraction(plan["a2a_bound_per_chip"]).limit_denominator(1000) == Fraction(2 * (r + 1), m**2)
    assert plan["bisection_bw_per_chip"] == pytest.approx(bound / 2, rel=1e-15)


# ------------------------------------------------------------------------------------------------
# Hamiltonian rail decompositions of K*_s.


@pytest.mark.parametrize("s", [2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 16, 20, 33, 64])
def test_hamiltonian_rails(s: int) -> None:
    rails = railx.hamiltonian_rails(s)
    assert len(rails) == s - 1
    arcs = []
    for succ in rails:
        assert sorted(succ) == list(range(s)), "each rail is a permutation"
        assert single_cycle(succ), f"rail {succ} is not one ring of {s} nodes"
        arcs.extend((u, v) for u, v in enumerate(succ))
    assert len(set(arcs)) == len(arcs) == s * (s - 1)
    assert set(arcs) == set(itertools.permutations(range(s), 2))


@pytest.mark.parametrize("s", [4, 6])
def test_hamiltonian_rails_4_6_need_opt_in(s: int) -> None:
    with pytest.raises(railx.RailxError) as info:
        railx.hamiltonian_rails(s)
    message = str(info.value)
    assert "\n" not in message and "allow_matching_rail" in message and f"s = {s}" in message
    rails = railx.hamiltonian_rails(s, allow_matching_rail=True)
    assert len(rails) == s - 1
    arcs = [(u, v) for succ in rails for u, v in enumerate(succ)]
    assert set(arcs) == set(itertools.permutations(range(s), 2)) and len(arcs) == s * (s - 1)
    rings = [succ for succ in rails if single_cycle(succ)]
    matchings = [succ for succ in rails if all(succ[succ[u]] == u != succ[u] for u in range(s))]
    assert len(rings) == s - 2 and len(matchings) == 1


# ------------------------------------------------------------------------------------------------
# The realized chip graph: Network.links() against the circuits it is built from.

LINK_EXAMPLES = ["hyperx-5x5.toml", "torus-9x9.toml", "jobs.toml", "dragonfly-21x5.toml", "high-dim-4x3x3x4x4.toml"]


@pytest.mark.parametrize("name", LINK_EXAMPLES)
def test_links_are_the_circuits(name: str) -> None:
    net = railx.realize(EXAMPLES / name)
    system = net.config.system
    m, n = system.m, system.n
    p, q = system.grid if system.grid is not None else [system.R // 2] * 2
    links = net.links()
    assert set(links) == {"src", "dst", "class", "bandwidth_Bps", "latency_s", "rail", "lane"}
    count = len(links["src"])
    for key, array in links.items():
        assert isinstance(array, np.ndarray) and array.shape == (count,), key
    ocs = net.ocs()
    circuits = sum(len(s["circuits"]) for s in ocs["switches"])
    mesh = links["class"] == 0
    optical = links["class"] == 1
    assert np.all(mesh | optical)
    # n lanes each way between adjacent chips: each lane once per directed chip pair.
    assert int(mesh.sum()) == p * q * 4 * m * (m - 1) * n
    assert int(optical.sum()) == 2 * circuits
    assert np.all(links["rail"][mesh] == -1)
    assert np.all(links["lane"][optical] == -1)
    lanes = Counter(zip(links["src"][mesh].tolist(), links["dst"][mesh].tolist()))
    assert set(lanes.values()) <= {n}
    per_pair = Counter(zip(links["src"][mesh].tolist(), links["dst"][mesh].tolist(), links["lane"][mesh].tolist()))
    assert set(per_pair.values()) <= {1} and set(links["lane"][mesh].tolist()) <= set(range(n))
    assert np.all((links["rail"][optical] >= 0) & (links["rail"][optical] < m * n))
    assert np.all(links["bandwidth_Bps"][optical] == system.port_bw_GBps * 1e9)
    assert np.allclose(links["bandwidth_Bps"][mesh], system.intra_bw_Bps)
    assert np.allclose(links["latency_s"][optical], system.alpha_out_ns * 1e-9)
    assert np.allclose(links["latency_s"][mesh], system.alpha_in_ns * 1e-9)
    assert np.all(links["src"] < p * q * m * m) and np.all(links["dst"] < p * q * m * m)

    def coords(chip: np.ndarray) -> tuple[np.ndarray, ...]:
        node, local = np.divmod(chip.astype(np.int64), m * m)
        big_y, big_x = np.divmod(node, p)
        y, x = np.divmod(local, m)
        return big_x, big_y, x, y

    # Mesh links join neighbours of one node's mesh.
    sx, sy, sx_, sy_ = coords(links["src"][mesh])
    dx, dy, dx_, dy_ = coords(links["dst"][mesh])
    assert np.all((sx == dx) & (sy == dy))
    assert np.all(np.abs(sx_ - dx_) + np.abs(sy_ - dy_) == 1)

    # Optical links: exactly the two directions of every circuit, between the edge chips that
    # carry the rail (Plant::rail_chip): X-rail a on chip row a div n, + east (m-1), - west (0);
    # Y-rail b on chip column b div n, + north (m-1), - south (0).
    def chip(big_x: int, big_y: int, x: int, y: int) -> int:
        return (big_y * p + big_x) * m * m + y * m + x

    expected = Counter()
    for dim in ("X", "Y"):
        for line, rail, plus, minus in circuits_of(ocs, dim):
            lane = rail // n
            if dim == "X":
                a, b = chip(plus, line, m - 1, lane), chip(minus, line, 0, lane)
            else:
                a, b = chip(line, plus, lane, m - 1), chip(line, minus, lane, 0)
            expected[(a, b, rail)] += 1
            expected[(b, a, rail)] += 1
    realized = Counter(
        zip(links["src"][optical].tolist(), links["dst"][optical].tolist(), links["rail"][optical].tolist())
    )
    assert realized == expected

    # Each optical link runs along one axis between edge chips of the rail's row or column.
    sx, sy, sx_, sy_ = coords(links["src"][optical])
    dx, dy, dx_, dy_ = coords(links["dst"][optical])
    lane = links["rail"][optical] // n
    along_x = (sy == dy) & (sx != dx)
    along_y = (sx == dx) & (sy != dy)
    assert np.all(along_x | along_y)
    east_west = ((sx_ == m - 1) & (dx_ == 0)) | ((sx_ == 0) & (dx_ == m - 1))
    north_south = ((sy_ == m - 1) & (dy_ == 0)) | ((sy_ == 0) & (dy_ == m - 1))
    assert np.all(~along_x | ((sy_ == lane) & (dy_ == lane) & east_west))
    assert np.all(~along_y | ((sx_ == lane) & (dx_ == lane) & north_south))


def test_links_agree_with_graph_exports(tmp_path: Path) -> None:
    net = railx.realize(EXAMPLES / "hyperx-5x5.toml")
    links = net.links()
    net.write(tmp_path / "net.graphml", "graphml")
    net.write(tmp_path / "net.json", "json")
    graph = nx.read_graphml(tmp_path / "net.graphml", force_multigraph=True)
    assert graph.number_of_nodes() == net.chips == 100
    assert graph.number_of_edges() == len(links["src"])
    exported = Counter((int(u), int(v)) for u, v in graph.edges())
    assert exported == Counter(zip(links["src"].tolist(), links["dst"].tolist()))
    data = json.loads((tmp_path / "net.json").read_text())
    assert [(l["src"], l["dst"]) for l in data["links"]] == list(zip(links["src"].tolist(), links["dst"].tolist()))
    assert [l.get("rail", -1) for l in data["links"]] == links["rail"].tolist()
    assert [l.get("lane", -1) for l in data["links"]] == links["lane"].tolist()
