"""SiP-OCS bandwidth steering (SiP-ML, Khani et al., SIGCOMM 2021; paper 003 §6.A.2): choose
the circuits of Q OCSs for a job's estimated traffic matrix.

The hardware: every GPU has Q ports, port q on OCS q, and an OCS of radix N joins the GPUs'
transmitters to their receivers one to one, so OCS q realises one partial permutation P_q of the
GPUs (P_q[i] = j: GPU i's port-q transmitter reaches GPU j; -1: the port is dark). A circuit
carries 1/Q of a GPU's bandwidth.

**SiP-ML's ILP** (paper 003 cites it as "maximise the minimum inverse of the completion time";
the SiP-ML authors' simulator, MLNetwork/rostam, src/interconnect/ocs.cc, encodes it with one
binary per OCS and transmitter-receiver pair, permutation rows and columns, and maximises t
subject to b_ij >= t T_ij for every pair with traffic, b_ij the circuits from i to j). Served
directly only, it degenerates on the traffic paper 003 feeds it, a mesh all-to-all per job: a
job of more than Q + 1 GPUs cannot give every pair a circuit, so every configuration has t = 0.
railx therefore solves the same objective with the traffic **relayed** over intermediate GPUs,
as the flow level (and paper 003's packet simulator) forwards it:

    maximise   lambda
    subject to x_ij integer >= 0,  sum_j x_ij <= Q,  sum_i x_ij <= Q        (circuits)
               f^s_a >= 0 a flow of lambda T_sv from s to every v, per source s
               sum_s f^s_ij <= x_ij                                         (capacity)

lambda is the fraction of T served per unit time (in circuits); 1 / lambda is the completion
time of the whole matrix. `relay=False` restricts f^s to the arcs leaving s, which is SiP-ML's
ILP exactly. The per-OCS binaries aggregate to x without loss: x is the sum of Q partial
permutations iff its row and column sums are at most Q (Koenig's edge-colouring theorem for
bipartite multigraphs), and `decompose` recovers the Q permutations.

The MILP has k^3 flow variables for a job of k GPUs; railx solves it exactly up to
`EXACT_MAX_GPUS`. Larger jobs with uniform traffic (a mesh, the estimate paper 003 uses) get the
**Cayley heuristic**: GPUs numbered in mixed radix b_0 x b_1 x ... = k (every factorisation with
sum (b_d - 1) <= Q), or circulants Z_k (every set of Q shifts where there are at most
`MAX_SHIFT_SETS`, else Q evenly spread shifts and `RANDOM_SHIFT_SETS` seeded random sets), one OCS per generator
"add a to digit d" (a permutation); an LP chooses each generator's share of the Q OCSs, rounded
to whole OCSs, and a second LP gives the rounded network's lambda exactly (by symmetry one
source's flow suffices on a Cayley graph with uniform traffic); the best candidate wins. Its gap
to the exact MILP is measured on small jobs (tests, benchmarks/sip_ocs_ilp.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linear_sum_assignment, linprog, milp

from railx._core import InternalError
from railx.config import ConfigError

__all__ = [
    "EXACT_MAX_GPUS",
    "Steering",
    "cayley_steering",
    "concurrent_flow",
    "decompose",
    "exact_steering",
    "moore_bound",
    "steer_job",
]

EXACT_MAX_GPUS = 5
"""Jobs of up to this many GPUs get the exact MILP by default (HiGHS proves 5 GPUs in well under
a second; 6 GPUs on 2 OCSs takes about 20 s, the relabelling symmetry of a mesh grows as k!)."""
MAX_SHIFT_SETS = 120
"""The Cayley heuristic tries every set of shifts of a circulant up to this many sets."""
RANDOM_SHIFT_SETS = 8
"""Beyond, it tries this many random sets of q distinct shifts (seeded by the job size): random
circulants come nearer the Moore bound than products of complete graphs at hundreds of GPUs."""


@dataclass(frozen=True)
class Steering:
    """The Q OCS configurations of one job (GPUs numbered 0..k-1 inside the job): `perms[q, i]`
    is the GPU that GPU i's port q transmits to (-1: dark); `throughput` is lambda, the fraction
    of the traffic matrix served per unit time in circuits; `method` says which solver chose it."""

    perms: np.ndarray
    throughput: float
    method: str

    def circuits(self) -> np.ndarray:
        """k x k: circuits from GPU i to GPU j over all OCSs."""
        k = self.perms.shape[1]
        out = np.zeros((k, k), dtype=np.int64)
        for perm in self.perms:
            lit = perm >= 0
            np.add.at(out, (np.arange(k)[lit], perm[lit]), 1)
        return out


def _check(traffic: np.ndarray, q: int) -> np.ndarray:
    t = np.asarray(traffic, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise ConfigError(f"traffic: shape {t.shape}; give a k x k matrix of a job of k >= 2 GPUs")
    if (t < 0).any() or np.diag(t).any() or not t.any():
        raise ConfigError(
            "traffic: needs entries >= 0, a zero diagonal and some traffic; e.g. a mesh, 1 off the diagonal"
        )
    if q < 1:
        raise ConfigError(f"q = {q}: SiP-OCS has at least one OCS; e.g. q = 16")
    return t


def _flow_program(
    traffic: np.ndarray, x_lo: np.ndarray, x_hi: np.ndarray, q: int, relay: bool, integral: bool
) -> tuple[np.ndarray, float]:
    """The steering MILP (module docstring) with circuit bounds x_lo <= x <= x_hi; with x fixed
    and `integral` False it is the concurrent-flow LP of a given network. Returns (x, lambda)."""
    k = traffic.shape[0]
    arcs = [(i, j) for i in range(k) for j in range(k) if i != j]
    n_arcs = len(arcs)
    sources = [s for s in range(k) if traffic[s].any()]
    n_x, n_f = n_arcs, len(sources) * n_arcs
    n = n_x + n_f + 1  # x, f (source-major), lambda
    src = np.array([a[0] for a in arcs])
    dst = np.array([a[1] for a in arcs])
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    lo: list[float] = []
    hi: list[float] = []

    def add(row_cols: np.ndarray, row_vals: np.ndarray, b_lo: float, b_hi: float) -> None:
        rows.append(np.full(len(row_cols), len(lo)))
        cols.append(row_cols)
        vals.append(row_vals)
        lo.append(b_lo)
        hi.append(b_hi)

    for v in range(k):  # port budgets: transmitters and receivers
        add(np.flatnonzero(src == v), np.ones(k - 1), -np.inf, q)
        add(np.flatnonzero(dst == v), np.ones(k - 1), -np.inf, q)
    for a in range(n_arcs):  # capacity: sum_s f^s_a <= x_a
        f_cols = n_x + a + n_arcs * np.arange(len(sources))
        add(np.concatenate([f_cols, [a]]), np.concatenate([np.ones(len(sources)), [-1.0]]), -np.inf, 0.0)
    for si, s in enumerate(sources):  # conservation at every v != s: in - out = lambda T_sv
        base = n_x + si * n_arcs
        for v in range(k):
            if v == s:
                continue
            into, out = np.flatnonzero(dst == v), np.flatnonzero(src == v)
            add(
                np.concatenate([base + into, base + out, [n - 1]]),
                np.concatenate([np.ones(len(into)), -np.ones(len(out)), [-traffic[s, v]]]),
                0.0,
                0.0,
            )
    f_hi = np.full(n_f, np.inf)
    if not relay:  # SiP-ML: source s's traffic leaves on its own circuits and goes no further
        for si, s in enumerate(sources):
            f_hi[si * n_arcs : (si + 1) * n_arcs][src != s] = 0.0
    matrix = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(len(lo), n))
    x_lo_arcs = np.array([x_lo[i, j] for i, j in arcs], dtype=float)
    x_hi_arcs = np.array([x_hi[i, j] for i, j in arcs], dtype=float)
    cost = np.zeros(n)
    cost[-1] = -1.0
    integrality = np.zeros(n)
    if integral:
        integrality[:n_x] = 1
    result = milp(
        cost,
        constraints=LinearConstraint(matrix, np.array(lo), np.array(hi)),
        bounds=Bounds(np.concatenate([x_lo_arcs, np.zeros(n_f), [0.0]]), np.concatenate([x_hi_arcs, f_hi, [np.inf]])),
        integrality=integrality,
    )
    if not result.success or result.x is None:
        raise InternalError(f"SiP-OCS steering: HiGHS ended with {result.message!r} on a feasible problem")
    x = np.zeros((k, k), dtype=np.int64)
    x[src, dst] = np.rint(result.x[:n_x]).astype(np.int64)
    return x, float(result.x[-1])


def concurrent_flow(circuits: np.ndarray, traffic: np.ndarray, relay: bool = True) -> float:
    """lambda of a given network: the largest fraction of `traffic` every pair gets at once,
    routed over `circuits` (k x k counts, capacity 1 each), relayed at GPUs unless `relay` is off."""
    c = np.asarray(circuits, dtype=float)
    t = _check(traffic, max(1, int(c.sum(axis=1).max())))
    return _flow_program(t, c, c, int(max(c.sum(axis=0).max(), c.sum(axis=1).max(), 1)), relay, False)[1]


def decompose(circuits: np.ndarray, q: int) -> np.ndarray:
    """Q partial permutations whose circuits sum to `circuits` (rows and columns <= q): pad to a
    q-regular bipartite multigraph with dark entries, then peel q perfect matchings (Koenig)."""
    x = np.asarray(circuits, dtype=np.int64).copy()
    k = x.shape[0]
    if np.diag(x).any() or x.sum(axis=1).max() > q or x.sum(axis=0).max() > q:
        raise ConfigError(f"circuits: need a zero diagonal and at most q = {q} per row and column")
    # Dark padding, northwest-corner fill of the row and column deficits (equal totals).
    dark = np.zeros_like(x)
    rows, cols = q - x.sum(axis=1), q - x.sum(axis=0)
    i = j = 0
    while i < k and j < k:
        take = min(rows[i], cols[j])
        dark[i, j] += take
        rows[i] -= take
        cols[j] -= take
        i += rows[i] == 0
        j += cols[j] == 0
    perms = np.full((q, k), -1, dtype=np.int64)
    for p in range(q):
        # A perfect matching in the support of the regular multigraph x + dark (Hall), real
        # circuits preferred so the dark padding stays dark where it can.
        cost = np.where(x > 0, 0.0, np.where(dark > 0, 1.0, k + 1.0))
        r, c = linear_sum_assignment(cost)
        if cost[r, c].max() > 1.0:
            raise InternalError("SiP-OCS decomposition: no perfect matching in a regular bipartite multigraph")
        real = x[r, c] > 0
        x[r[real], c[real]] -= 1
        dark[r[~real], c[~real]] -= 1
        perms[p, r[real]] = c[real]
    return perms


def exact_steering(traffic: np.ndarray, q: int, relay: bool = True) -> Steering:
    """The MILP's optimum (HiGHS through scipy.optimize.milp), as Q OCS configurations."""
    t = _check(traffic, q)
    k = t.shape[0]
    x, lam = _flow_program(t, np.zeros((k, k)), np.full((k, k), q), q, relay, True)
    return Steering(decompose(x, q), lam, "exact MILP" if relay else "exact MILP, direct only")


def _factorisations(k: int, smallest: int = 2) -> list[list[int]]:
    """Every way to write k as a product of factors >= `smallest`, each list non-decreasing."""
    found = [[k]] if k >= smallest else []
    for f in range(smallest, int(k**0.5) + 1):
        if k % f == 0:
            found += [[f, *rest] for rest in _factorisations(k // f, f)]
    return found


def _generators(digits: list[int], shifts: list[int] | None) -> list[np.ndarray]:
    """Each generator as the permutation it applies to 0..k-1: add a to digit d (mod b_d), or
    for a circulant (`shifts`) add s mod k."""
    k = int(np.prod(digits))
    v = np.arange(k)
    if shifts is not None:
        return [(v + s) % k for s in shifts]
    weights = np.cumprod([1, *digits[:-1]])
    perms = []
    for d, b in enumerate(digits):
        digit = (v // weights[d]) % b
        perms += [v + (((digit + a) % b) - digit) * weights[d] for a in range(1, b)]
    return perms


def _cayley_program(gens: list[np.ndarray], q: int, shares: np.ndarray | None) -> tuple[float, np.ndarray]:
    """Uniform all-to-all on the Cayley digraph of `gens` (permutations of a group's elements,
    element 0 the identity): one source's flow f(v, g) with lambda to every other element; the
    translates of all sources load generator g's circuits by sum_v f(v, g). Capacities `shares`
    (OCSs per generator), or LP variables summing to q when None. Returns (lambda, shares)."""
    k, m = len(gens[0]), len(gens)
    n_f = k * m  # f(v, g) at index g * k + v
    free = shares is None
    n = n_f + (m if free else 0) + 1
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    lo: list[float] = []
    hi: list[float] = []
    for v in range(1, k):  # conservation at v != 0: in - out = lambda
        into = [(g * k + int(u)) for g, perm in enumerate(gens) for u in np.flatnonzero(perm == v)]
        out = [g * k + v for g in range(m)]
        r = len(lo)
        rows += [r] * (len(into) + len(out) + 1)
        cols += into + out + [n - 1]
        vals += [1.0] * len(into) + [-1.0] * len(out) + [-1.0]
        lo.append(0.0)
        hi.append(0.0)
    for g in range(m):  # capacity of generator g's circuits
        r = len(lo)
        rows += [r] * k
        cols += list(range(g * k, (g + 1) * k))
        vals += [1.0] * k
        if free:
            rows.append(r)
            cols.append(n_f + g)
            vals.append(-1.0)
        lo.append(-np.inf)
        hi.append(0.0 if free else float(shares[g]))  # type: ignore[index]
    if free:
        r = len(lo)
        rows += [r] * m
        cols += list(range(n_f, n_f + m))
        vals += [1.0] * m
        lo.append(-np.inf)
        hi.append(float(q))
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(len(lo), n))
    cost = np.zeros(n)
    cost[-1] = -1.0
    eq, ub = np.array(lo) == np.array(hi), np.array(lo) != np.array(hi)
    result = linprog(
        cost, A_ub=matrix[ub], b_ub=np.array(hi)[ub], A_eq=matrix[eq], b_eq=np.array(hi)[eq], method="highs"
    )
    if not result.success:
        raise InternalError(f"SiP-OCS Cayley LP: HiGHS ended with {result.message!r}")
    return float(result.x[-1]), (result.x[n_f : n_f + m] if free else np.asarray(shares, dtype=float))


def _round_shares(shares: np.ndarray, q: int) -> np.ndarray:
    """Whole OCSs per generator summing to q: largest remainders, then at least one for every
    generator the LP used while any generator has two (a Cayley graph missing a generator may
    disconnect)."""
    whole = np.floor(shares + 1e-9).astype(np.int64)
    order = np.argsort(-(shares - whole), kind="stable")
    whole[order[: q - int(whole.sum())]] += 1
    for g in np.flatnonzero((shares > 1e-6) & (whole == 0)):
        donor = int(np.argmax(whole))
        if whole[donor] < 2:
            break
        whole[donor] -= 1
        whole[g] += 1
    return whole


def cayley_steering(k: int, q: int) -> Steering:
    """The Cayley heuristic (module docstring) for a uniform all-to-all among k GPUs."""
    if k < 2 or q < 1:
        raise ConfigError(f"k = {k}, q = {q}: a job of at least 2 GPUs on at least 1 OCS; e.g. k = 64, q = 16")
    candidates: list[tuple[list[int], list[int] | None]] = [
        (f, None) for f in _factorisations(k) if sum(b - 1 for b in f) <= q
    ]
    # Circulants Z_k: every set of min(q, k - 1) shifts where there are few, else q shifts spread
    # evenly over 1..k-1 (for a k no factorisation fits, e.g. a prime).
    width = min(q, k - 1)
    if comb(k - 1, width) <= MAX_SHIFT_SETS:
        candidates += [([k], list(c)) for c in combinations(range(1, k), width)]
    else:
        candidates.append(([k], sorted({1 + (i * (k - 1)) // q for i in range(q)})))
        rng = np.random.default_rng(k)  # seeded: a job size always gets the same circuits
        candidates += [
            ([k], sorted(int(x) for x in rng.choice(np.arange(1, k), size=q, replace=False)))
            for _ in range(RANDOM_SHIFT_SETS)
        ]
    best: tuple[tuple[float, float, float], Steering] | None = None
    for digits, shifts in candidates:
        gens = _generators(digits, shifts)
        loads = _shortest_path_loads(np.array(gens))
        # Two whole-OCS splits: the LP's rounded, and the one best for shortest-path routing
        # (one OCS per generator when there are q of them).
        splits = [np.ones(len(gens), dtype=np.int64)]
        if len(gens) < q:
            splits = [_round_shares(_cayley_program(gens, q, None)[1], q), _shortest_path_shares(loads, q)]
        for whole in splits:
            lam, _ = _cayley_program(gens, q, whole)
            perms = np.array([gens[g] for g in np.repeat(np.arange(len(gens)), whole)], dtype=np.int64)
            # The objective first; at equal lambda what the flow level's shortest-path routing
            # delivers, then the fewer mean hops.
            key = (round(lam, 9), round(float((whole / loads).min()), 9), -_mean_hops(perms))
            if best is None or key > best[0]:
                label = "x".join(map(str, digits)) if shifts is None else f"Z_{k} shifts {shifts}"
                best = (key, Steering(perms, lam, f"Cayley heuristic ({label})"))
    assert best is not None
    return best[1]


def _shortest_path_loads(gens: np.ndarray) -> np.ndarray:
    """Per generator, the load one circuit of it carries when every GPU sends one unit to every
    other over shortest paths, split evenly over the next hops at every branching (the flow
    level's routing): one source's flows, every arc of a generator alike by symmetry."""
    m, k = gens.shape
    # dist[w, v]: circuits from w to v, relaxed until stable (at most the diameter's rounds).
    dist = np.full((k, k), np.inf)
    np.fill_diagonal(dist, 0)
    while True:
        relaxed = np.minimum(dist, 1 + dist[gens].min(axis=0))
        if (relaxed == dist).all():
            break
        dist = relaxed
    if np.isinf(dist).any():
        return np.full(m, np.inf)  # not strongly connected: no throughput
    at = np.zeros((k, k))  # at[w, v]: GPU 0's flow towards v now at w
    at[0, 1:] = 1.0
    next_hop = dist[gens] == dist[None, :, :] - 1  # m x k x k: generator g leads w closer to v
    fanout = next_hop.sum(axis=0)
    loads = np.zeros(m)
    for h in range(int(dist.max()), 0, -1):
        moving = np.where(dist == h, at, 0.0) / np.maximum(fanout, 1)
        at = np.where(dist == h, 0.0, at)
        for g in range(m):
            share = np.where(next_hop[g], moving, 0.0)
            loads[g] += share.sum()
            at[gens[g]] += share
    return loads


def _shortest_path_shares(loads: np.ndarray, q: int) -> np.ndarray:
    """Whole OCSs per generator summing to q, one each and every spare to the generator with
    the most load per circuit (the max-min split for fixed loads)."""
    whole = np.ones(len(loads), dtype=np.int64)
    for _ in range(q - len(loads)):
        whole[int(np.argmax(loads / whole))] += 1
    return whole


def _mean_hops(perms: np.ndarray) -> float:
    """Mean circuit hops from GPU 0 to the others (breadth first; every GPU alike on a Cayley graph)."""
    k = perms.shape[1]
    dist = np.full(k, -1)
    dist[0] = 0
    frontier = np.array([0])
    while frontier.size:
        reached = np.unique(perms[:, frontier])
        reached = reached[dist[reached] < 0]
        dist[reached] = dist[frontier[0]] + 1
        frontier = reached
    return float(dist[1:].mean()) if (dist >= 0).all() else np.inf


def moore_bound(k: int, q: int) -> float:
    """An upper bound on lambda for a mesh of k GPUs on q OCSs, whatever the steering: a GPU has
    at most q^h GPUs h circuits away, every unit of traffic to a GPU h away crosses h circuits,
    and the k GPUs own k q circuits, so lambda <= q / sum_h h n_h with n_h = min(q^h, the rest)."""
    left, hops, h = k - 1, 0, 0
    while left > 0:
        h += 1
        n_h = min(q**h, left)
        hops += h * n_h
        left -= n_h
    return q / hops


def steer_job(k: int, q: int) -> Steering:
    """A job of k GPUs with the mesh traffic paper 003 estimates: the exact MILP up to
    EXACT_MAX_GPUS, the Cayley heuristic beyond; k <= q + 1 gives every pair a direct circuit."""
    if k <= EXACT_MAX_GPUS:
        return exact_steering(np.ones((k, k)) - np.eye(k), q)
    return cayley_steering(k, q)
