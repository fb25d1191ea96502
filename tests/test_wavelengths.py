"""Flex-SiPAC wavelength allocation (paper 003, §3.C): addressing, targets, eq. 1's relaxation,
exact solver and heuristic against brute force, wavelength colouring, reconfiguration, the CLI and
its one-line errors."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx.config import ConfigError
from railx.wavelengths import (
    Instance,
    Job,
    SiPAC,
    allocate,
    apply_diff,
    assign_wavelengths,
    conflict_graph,
    heuristic,
    konig_colours,
    load_wavelength_config,
    reconfigure,
    relabel,
    relax,
    solve_exact,
    traffic_matrix,
    wavelength_conflicts,
    wavelength_targets,
)
from railx.wavelengths.colouring import lightpath_ends
from railx.wavelengths.heuristic import round_within_budgets

# ---------------------------------------------------------------- addressing


@given(r=st.integers(2, 5), L=st.integers(1, 3))
def test_every_wss_joins_r_cus_differing_in_its_digit_only(r: int, L: int) -> None:
    topo = SiPAC(r, L)
    assert topo.N == r**L
    for level in range(L):
        seen = []
        for wss in range(topo.wss_per_level):
            members = topo.members(level, wss)
            assert [topo.digit(m, level) for m in members] == list(range(r))
            assert all(topo.wss(m, level) == wss for m in members)
            for a, b in itertools.combinations(members, 2):
                assert topo.level_between(a, b) == level
            seen += members
        assert sorted(seen) == list(range(topo.N))  # one WSS per CU per level
    # BCube's server graph is the Hamming graph H(L, r): networkx builds it independently.
    reference = functools.reduce(nx.cartesian_product, [nx.complete_graph(r)] * L)
    assert len(topo.arcs) == 2 * reference.number_of_edges() == topo.N * L * (r - 1)


# ---------------------------------------------------------------- traffic and targets


def test_ring_and_mesh_traffic_inside_one_wss() -> None:
    topo = SiPAC(4, 1)
    ring = traffic_matrix(topo, [Job("a", (0, 1, 2, 3), "ring")])
    assert ring[0, 1] == ring[3, 0] == pytest.approx(2 * 3 / 4) and ring[1, 0] == 0
    mesh = traffic_matrix(topo, [Job("a", (0, 1, 2, 3), "mesh")])
    assert np.allclose(mesh, (2 / 4) * (1 - np.eye(4)))
    t = wavelength_targets(mesh, 9)
    assert np.allclose(t, 3 * (1 - np.eye(4)))  # 9 wavelengths, 3 to each of 3 peers


def test_relayed_ring_is_split_over_shortest_paths_inside_the_job() -> None:
    # SiPAC(4, 2): ring 0..7; 3 -> 4 and 7 -> 0 differ in both digits, each relayed half via
    # either corner of its square (3 -> 0 -> 4, 3 -> 7 -> 4; 7 -> 3 -> 0, 7 -> 4 -> 0).
    topo = SiPAC(4, 2)
    T = traffic_matrix(topo, [Job("ring", tuple(range(8)), "ring")])
    v = 2 * 7 / 8
    assert T[3, 0] == pytest.approx(v) and T[7, 4] == pytest.approx(v)  # half of each relayed demand
    assert T[3, 7] == T[7, 3] == T[0, 4] == T[4, 0] == pytest.approx(v / 2)
    assert T.sum() == pytest.approx(v * (6 * 1 + 2 * 2))  # 6 direct hops, 2 relayed over 2 hops
    levels = [topo.level_between(i, j) for i, j in zip(*np.nonzero(T))]
    assert None not in levels  # traffic only between direct neighbours
    assert T[8:, :].sum() == 0 and T[:, 8:].sum() == 0  # nothing through other CUs


@given(w=st.integers(2, 20), split=st.integers(1, 3))
def test_targets_share_each_busy_cus_w_wavelengths(w: int, split: int) -> None:
    topo = SiPAC(3, 2)
    jobs = [Job("a", tuple(range(3 * split)), "mesh")]
    t = wavelength_targets(traffic_matrix(topo, jobs), w)
    rows = t.sum(axis=1)
    assert np.allclose(rows[: 3 * split], w) and np.allclose(rows[3 * split :], 0)


# ---------------------------------------------------------------- brute force references

TINY = [(SiPAC(2, 1), 3), (SiPAC(3, 1), 2), (SiPAC(3, 1), 3), (SiPAC(2, 2), 2)]


def _random_instance(topo: SiPAC, w: int, seed: int, scale: float = 1.3, density: float = 0.7) -> Instance:
    """Targets drawn on the arcs, some rows above w, so the budgets bind."""
    rng = np.random.default_rng(seed)
    targets = np.zeros((topo.N, topo.N))
    t = rng.uniform(0, scale * w, len(topo.arcs)) * (rng.random(len(topo.arcs)) < density)
    targets[topo.arcs[:, 0], topo.arcs[:, 1]] = t
    return Instance(topo, w, targets)


def _integer_points(inst: Instance, full: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every integer allocation within the budgets (= w when `full`) and its objective."""
    grid = np.array(list(itertools.product(range(inst.w + 1), repeat=len(inst.t))))
    out, inn = grid @ inst.egress.T.toarray(), grid @ inst.ingress.T.toarray()
    ok = np.all(out <= inst.w, axis=1) & np.all(inn <= inst.w, axis=1)
    if full:
        ok &= np.all(out == inst.w, axis=1) & np.all(inn == inst.w, axis=1)
    points = grid[ok]
    return points, ((points - inst.t) ** 2).sum(axis=1)


def _qp_by_active_sets(inst: Instance) -> float:
    """The relaxation's optimum by enumerating active sets: for each set of constraints taken as
    equalities, the projection of t onto that face; the least objective over feasible ones is the
    global optimum (the optimum's own active set is among them)."""
    E = len(inst.t)
    A = np.vstack([inst.egress.toarray(), inst.ingress.toarray(), -np.eye(E)])
    b = np.concatenate([np.full(2 * inst.topology.N, inst.w), np.zeros(E)])
    best = np.inf
    for size in range(len(b) + 1):
        for active in itertools.combinations(range(len(b)), size):
            S = list(active)
            if S:
                mu, *_ = np.linalg.lstsq(A[S] @ A[S].T, A[S] @ inst.t - b[S], rcond=None)
                x = inst.t - A[S].T @ mu
                if not np.allclose(A[S] @ x, b[S], atol=1e-9):
                    continue
            else:
                x = inst.t
            if np.all(A @ x <= b + 1e-9):
                best = min(best, float(((x - inst.t) ** 2).sum()))
    return best


@pytest.mark.parametrize("topo,w", TINY[:3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_relaxation_equals_the_active_set_brute_force(topo: SiPAC, w: int, seed: int) -> None:
    inst = _random_instance(topo, w, seed)
    found = relax(inst)
    assert found.objective == pytest.approx(_qp_by_active_sets(inst), abs=1e-5)
    assert not inst.violations(found.lam)


def test_relaxation_needs_nonnegativity() -> None:
    # One CU wanting w from each of two neighbours and 0 from a third: without lambda >= 0 the
    # least-squares optimum would send -w/3 on the idle arc (stationarity 2(x - t) + mu = 0).
    topo = SiPAC(4, 1)
    targets = np.zeros((4, 4))
    targets[0, 1] = targets[0, 2] = 6
    found = relax(Instance(topo, 6, targets))
    row = Instance(topo, 6, targets).matrix(found.lam)[0]
    assert row[3] == pytest.approx(0, abs=1e-7) and row[1] == pytest.approx(3, abs=1e-6)


@pytest.mark.parametrize("topo,w", TINY)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("full", [False, True])
def test_exact_equals_integer_brute_force(topo: SiPAC, w: int, seed: int, full: bool) -> None:
    inst = _random_instance(topo, w, seed)
    _, objectives = _integer_points(inst, full)
    found = solve_exact(inst, full=full)
    assert found.objective == pytest.approx(objectives.min(), abs=1e-9)
    assert not inst.violations(found.lam)
    assert found.objective >= relax(inst).objective - 1e-6  # the relaxation bounds it below


@pytest.mark.parametrize("topo,w", TINY)
def test_heuristic_gap_to_brute_force_is_measured(topo: SiPAC, w: int) -> None:
    """The heuristic lands in the set of full allocations; its gap to that set's brute-force
    optimum is >= 0 and reported (docs/flex-sipac.md lists it on a benchmark sample)."""
    gaps = []
    for seed in range(3):
        inst = _random_instance(topo, w, seed)
        points, objectives = _integer_points(inst, full=True)
        found = heuristic(inst)
        assert any(np.array_equal(found.lam, p) for p in points)
        gaps.append(found.objective - objectives.min())
    assert min(gaps) >= -1e-9
    print(f"heuristic gap on SiPAC({topo.r}, {topo.L}), w = {w}: {gaps}")


# ---------------------------------------------------------------- heuristic is always feasible


@st.composite
def job_mixes(draw: st.DrawFn) -> tuple[SiPAC, int, list[Job]]:
    r = draw(st.integers(2, 4))
    L = draw(st.integers(1, 2))
    topo = SiPAC(r, L)
    w = draw(st.integers(L, 10))
    cuts = sorted(draw(st.sets(st.integers(0, topo.N), min_size=2, max_size=5)))
    jobs = []
    for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
        if b - a >= 2 and draw(st.booleans()):
            jobs.append(Job(f"j{k}", tuple(range(a, b)), draw(st.sampled_from(["ring", "mesh", "sipco"]))))
    return topo, w, jobs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(mix=job_mixes())
def test_heuristic_always_fills_every_cu_within_budgets(mix: tuple[SiPAC, int, list[Job]]) -> None:
    topo, w, jobs = mix
    try:
        T = traffic_matrix(topo, jobs)
    except ConfigError:
        assume(False)  # a range whose CUs are not joined inside the job: rejected by design
        raise
    inst = Instance(topo, w, wavelength_targets(T, w))
    found = heuristic(inst)
    assert found.lam.dtype.kind == "i" and np.all(found.lam >= 0)
    assert np.all(inst.egress @ found.lam == w) and np.all(inst.ingress @ found.lam == w)
    assert found.objective >= solve_exact(inst, full=True).objective - 1e-9


def test_rounding_gives_back_what_nearest_rounding_oversteps() -> None:
    # Three arcs at 1.5 under w = 4: nearest rounding gives 2 + 2 + 2 = 6 > 4.
    topo = SiPAC(4, 1)
    inst = Instance(topo, 4, np.zeros((4, 4)))
    relaxed = np.zeros(len(inst.t))
    relaxed[:3] = 1.5  # CU 0's three arcs
    lam = round_within_budgets(inst, relaxed)
    assert lam[:3].sum() == 4 and not inst.violations(lam)


def test_stuck_round_robin_is_completed() -> None:
    # 3 CUs on one WSS, w = 2, CUs 1 and 2 exchange 2 each way: CU 0 can reach no one until the
    # completion takes one wavelength back from each direction.
    topo = SiPAC(3, 1)
    inst = Instance(topo, 2, wavelength_targets(traffic_matrix(topo, [Job("x", (1, 2), "mesh")]), 2))
    found = heuristic(inst)
    assert found.taken_back == 2
    assert np.array_equal(inst.matrix(found.lam), 1 - np.eye(3, dtype=np.int64))
    assert found.objective == pytest.approx(solve_exact(inst, full=True).objective)


# ---------------------------------------------------------------- wavelength assignment


@st.composite
def allocations(draw: st.DrawFn) -> tuple[SiPAC, int, np.ndarray]:
    """A random feasible allocation (egress, ingress <= w) on a small SiPAC."""
    topo = SiPAC(draw(st.integers(2, 4)), draw(st.integers(1, 2)))
    w = draw(st.integers(topo.L, 8))
    lam = np.array(draw(st.lists(st.integers(0, w), min_size=len(topo.arcs), max_size=len(topo.arcs))))
    return topo, w, _within_budgets(topo, w, lam)


def _within_budgets(topo: SiPAC, w: int, lam: np.ndarray) -> np.ndarray:
    """`lam` with each CU's largest arcs cut until it sends and receives at most w."""
    lam = lam.copy()
    inst = Instance(topo, w, np.zeros((topo.N, topo.N)))
    for matrix in (inst.egress, inst.ingress):
        for cu in range(topo.N):
            mine = matrix[cu].indices
            while lam[mine].sum() > w:
                lam[mine[np.argmax(lam[mine])]] -= 1
    return lam


@settings(max_examples=60, deadline=None)
@given(case=allocations())
def test_dsatur_assignment_is_always_valid(case: tuple[SiPAC, int, np.ndarray]) -> None:
    topo, w, lam = case
    colouring = assign_wavelengths(topo, w, topo.arcs, lam)
    assert wavelength_conflicts(topo, w, colouring.lightpaths) == []
    assert len(colouring.lightpaths) == lam.sum()
    # A proper colouring of the conflict graph, checked on networkx's graph directly.
    graph = conflict_graph(colouring.lightpaths[:, :2])
    assert all(colouring.lightpaths[a, 2] != colouring.lightpaths[b, 2] for a, b in graph.edges)


@settings(max_examples=60, deadline=None)
@given(case=allocations())
def test_konig_uses_w_colours_even_where_dsatur_needs_more(case: tuple[SiPAC, int, np.ndarray]) -> None:
    topo, w, lam = case
    ends = lightpath_ends(topo.arcs, lam)
    colours = konig_colours(topo.N, w, ends)
    assert wavelength_conflicts(topo, w, np.column_stack([ends, colours])) == []


def test_dsatur_can_exceed_w_and_konig_takes_over() -> None:
    # A found case: the heuristic's full allocation for random targets on one 4-port WSS, w = 4;
    # DSatur colours it with 5 wavelengths, one more than the comb has.
    topo, w = SiPAC(4, 1), 4
    inst = _random_instance(topo, w, seed=1, scale=1.0, density=0.5)
    colouring = assign_wavelengths(topo, w, topo.arcs, heuristic(inst).lam)
    assert colouring.dsatur_colours > w and colouring.method == "konig"
    assert wavelength_conflicts(topo, w, colouring.lightpaths) == []


def test_large_allocations_go_straight_to_konig() -> None:
    topo, w = SiPAC(4, 3), 80  # 64 CUs x 80 = 5,120 lightpaths, over DSATUR_MAX_LIGHTPATHS
    jobs = [Job("a", tuple(range(16)), "mesh"), Job("b", tuple(range(16, 48)), "sipco")]
    inst = Instance(topo, w, wavelength_targets(traffic_matrix(topo, jobs), w))
    colouring = assign_wavelengths(topo, w, topo.arcs, heuristic(inst).lam)
    assert colouring.method == "konig" and colouring.dsatur_colours is None
    assert len(colouring.lightpaths) == topo.N * w
    assert wavelength_conflicts(topo, w, colouring.lightpaths) == []


def test_conflict_check_names_each_broken_rule() -> None:
    topo = SiPAC(4, 1)
    bad = np.array([[0, 1, 2], [0, 1, 2], [0, 2, 5]])
    problems = wavelength_conflicts(topo, 4, bad)
    assert "wavelength 2 twice on the transmitter of CU 0" in problems
    assert "wavelength 2 twice on the output bus of WSS L0.0 port 1" in problems
    assert "lightpath 0->2: wavelength 5 outside 0..3" in problems
    assert wavelength_conflicts(SiPAC(2, 2), 4, np.array([[0, 3, 0]])) == ["lightpath 0->3: the CUs share no WSS"]


# ---------------------------------------------------------------- reconfiguration


def _best_relabelling_by_brute_force(w: int, old: np.ndarray, new: np.ndarray) -> int:
    before = {tuple(x) for x in old.tolist()}
    return max(len(before & {(s, d, perm[c]) for s, d, c in new.tolist()}) for perm in itertools.permutations(range(w)))


@settings(max_examples=30, deadline=None)
@given(before=allocations(), seed=st.integers(0, 2**16))
def test_reconfiguration_diff_turns_old_into_new_with_least_changes(
    before: tuple[SiPAC, int, np.ndarray], seed: int
) -> None:
    topo, w, lam_old = before
    assume(w <= 6)  # the brute force runs over w! relabellings
    rng = np.random.default_rng(seed)
    # The next allocation: some arcs kept, others redrawn.
    redrawn = rng.integers(0, w + 1, len(lam_old))
    lam_new = _within_budgets(topo, w, np.where(rng.random(len(lam_old)) < 0.5, lam_old, redrawn))
    old = assign_wavelengths(topo, w, topo.arcs, lam_old).lightpaths
    new = assign_wavelengths(topo, w, topo.arcs, lam_new).lightpaths
    change = reconfigure(topo, w, old, new)
    # Applying the diff to the old assignment gives the new one, a valid assignment of lam_new.
    assert np.array_equal(apply_diff(old, change.diff), change.lightpaths)
    assert wavelength_conflicts(topo, w, change.lightpaths) == []
    counts = np.zeros((topo.N, topo.N), dtype=np.int64)
    np.add.at(counts, (change.lightpaths[:, 0], change.lightpaths[:, 1]), 1)
    assert np.array_equal(counts[topo.arcs[:, 0], topo.arcs[:, 1]], lam_new)
    # Minimal: the relabelling is the best of all w! ones, and the chosen plan is no worse; no
    # plan changes fewer than the lambda differences.
    best_kept = _best_relabelling_by_brute_force(w, old, new)
    relabelled = {tuple(x) for x in relabel(w, old, new).tolist()}
    assert len(relabelled & {tuple(x) for x in old.tolist()}) == best_kept
    changes = change.dropped + change.added
    assert change.least_changes <= changes <= len(old) + len(new) - 2 * best_kept
    assert change.kept + change.dropped == len(old) and change.kept + change.added == len(new)


def test_unchanged_allocation_needs_no_change() -> None:
    topo = SiPAC(4, 2)
    a = allocate(topo, 8, [Job("a", tuple(range(8)), "ring")], exact=False)
    shuffled = a.colouring.lightpaths.copy()
    shuffled[:, 2] = (shuffled[:, 2] + 3) % 8  # the same assignment under other wavelength names
    change = reconfigure(topo, 8, a.colouring.lightpaths, shuffled)
    assert change.dropped == change.added == 0 and change.diff == []


# ---------------------------------------------------------------- CLI, example, errors


def test_example_runs_and_reports_objectives_and_a_valid_assignment(examples: Path) -> None:
    result = run_railx("wavelengths", examples / "wavelengths" / "flex-sipac-jobs.toml", "--json")
    assert result.rc == 0, result.stderr
    record = json.loads(result.stdout)
    objective = record["objective"]
    assert objective["relaxation"] <= objective["exact"] + 1e-6 <= objective["heuristic_rounded"] + 2e-6
    assert objective["exact"] <= objective["exact_full"] <= objective["heuristic"]
    assert objective["gap"] == pytest.approx(objective["heuristic"] - objective["exact_full"])
    assert record["colouring"]["valid"] and record["colouring"]["conflicts"] == []
    assert len(record["lightpaths"]) == record["N"] * record["w"]  # every CU sends all w
    table = run_railx("wavelengths", examples / "wavelengths" / "flex-sipac-jobs.toml")
    assert table.rc == 0 and "valid" in table.stdout and "heuristic - exact full" in table.stdout


def test_previous_allocation_gives_a_diff_that_reaches_the_new_one(examples: Path, tmp_path: Path) -> None:
    before = run_railx("wavelengths", examples / "wavelengths" / "flex-sipac-jobs.toml", "--json")
    path = tmp_path / "before.json"
    path.write_text(before.stdout)
    after = run_railx(
        "wavelengths", examples / "wavelengths" / "flex-sipac-jobs-next.toml", "--previous", path, "--json"
    )
    assert after.rc == 0, after.stderr
    record = json.loads(after.stdout)
    old = np.array(json.loads(before.stdout)["lightpaths"])
    change = record["reconfiguration"]
    assert np.array_equal(apply_diff(old, change["ports"]), np.array(record["lightpaths"]))
    assert change["least_changes"] <= change["dropped"] + change["added"]
    text = run_railx("wavelengths", examples / "wavelengths" / "flex-sipac-jobs-next.toml", "--previous", path)
    assert text.rc == 0 and "reconfiguration, per WSS input port" in text.stdout


def _toml(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "w.toml"
    path.write_text(body)
    return path


BAD = [
    ("r = 1\nL = 2\nw = 4\n", r"r = 1: a WSS joins at least 2 CUs; e.g. r = 4"),
    ("r = 4\nL = 0\nw = 4\n", r"L = 0: a SiPAC has at least one level"),
    ("r = 4\nL = 2\nw = 1\n", r"w = 1: fewer wavelengths than the 2 ports"),
    ("r = 4\nL = 2\nw = 2000\n", r"w = 2000: over 1024 wavelengths per CU"),
    ("r = 64\nL = 3\nw = 8\n", r"r = 64, L = 3: r\^L = 262144 CUs is over 4096"),
    (
        'r = 4\nL = 2\nw = 8\n[[jobs]]\nname = "a"\ncus = [0, 8]\ncollective = "ring"\n'
        '[[jobs]]\nname = "b"\ncus = [4, 12]\ncollective = "mesh"\n',
        r"jobs\[1\]\.cus: CU 4 is in both job 'a' and job 'b'; give each CU to one job",
    ),
    (
        'r = 4\nL = 2\nw = 8\n[[jobs]]\nname = "a"\ncus = [8, 20]\ncollective = "ring"\n',
        r"jobs\[0\]\.cus: CU 16 of job 'a' is outside the 16 CUs 0\.\.15",
    ),
    (
        'r = 4\nL = 2\nw = 8\n[[jobs]]\nname = "a"\ncus = [0, 4]\ncollective = "tree"\n',
        r"jobs\[0\]\.collective = 'tree': unknown; use one of ring, mesh, sipco",
    ),
    (
        'r = 4\nL = 2\nw = 8\n[[jobs]]\nname = "a"\ncus = [3, 5]\ncollective = "ring"\n',
        r"jobs\[0\]\.cus: job 'a' has CUs 3 and 4 with no path through WSSs inside the job",
    ),
    (
        'r = 4\nL = 2\nw = 8\n[[jobs]]\nname = "a"\ncus = [4, 2]\ncollective = "ring"\n',
        r"jobs\[0\]\.cus = \[4, 2\]: must be a half-open range",
    ),
    ("r = 4\nL = 2\nw = 8\nlambda = 3\n", r"lambda: unknown key; valid keys here are r, L, w, jobs"),
]


@pytest.mark.parametrize("body,message", BAD)
def test_bad_input_is_one_config_error_line(tmp_path: Path, body: str, message: str) -> None:
    path = _toml(tmp_path, body)
    with pytest.raises(ConfigError, match=message):
        config = load_wavelength_config(path)
        allocate(config.topology(), config.w, config.job_list())
    result = run_railx("wavelengths", path)
    assert result.rc == 2 and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_previous_of_another_network_is_refused(examples: Path, tmp_path: Path) -> None:
    other = _toml(tmp_path, "r = 4\nL = 2\nw = 6\n")
    record = run_railx("wavelengths", other, "--json")
    prev = tmp_path / "prev.json"
    prev.write_text(record.stdout)
    result = run_railx("wavelengths", examples / "wavelengths" / "flex-sipac-jobs.toml", "--previous", prev)
    assert result.rc == 2 and "w = 6, but this network has w = 12" in result.stderr


def test_mesh_traffic_by_betweenness_equals_enumerating_the_shortest_paths() -> None:
    # A job that is not a product of digit ranges (CUs 2..10 of SiPAC(4, 2)), so its shortest
    # paths are uneven; the betweenness sum must equal routing every pair path by path.
    topo = SiPAC(4, 2)
    cus = tuple(range(2, 11))
    T = traffic_matrix(topo, [Job("m", cus, "mesh")])
    graph = nx.Graph([(i, j) for i in cus for j in topo.neighbours(i) if j in cus])
    expected = np.zeros_like(T)
    for s in cus:
        for d in cus:
            if s != d:
                paths = list(nx.all_shortest_paths(graph, s, d))
                for path in paths:
                    for a, b in zip(path, path[1:]):
                        expected[a, b] += 2 / len(cus) / len(paths)
    assert np.allclose(T, expected)
