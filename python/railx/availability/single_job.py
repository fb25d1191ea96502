"""The largest single job on a grid with blocked nodes (paper §6.6, A.5).

A job is a set of rows x a set of columns (not necessarily contiguous: the OCS joins any rows and
columns). It may not contain a blocked node, so each blocked node's row or column must go. The
largest such rectangle is NP-hard in general; three solvers answer it:

- ``algorithm2``: the paper's Algorithm 2. Failures alone in their row and column ("isolated")
  are balanced between rows and columns; every row-or-column choice of the others is enumerated
  (2^|C|). Exact; practical while |C| is small.
- ``components``: exact for any number of failures as long as the failure graph (rows and columns
  joined by failed nodes) breaks into small connected components: each component's trade-off
  (kept rows -> most kept columns) is enumerated over its smaller side, then the components are
  combined by a max-plus knapsack over kept rows.
- ``milp``: no sparsity assumption. The concave envelope of the trade-off comes from parametric
  min cuts (bipartite vertex cover) and bounds every row count; a greedy pass gives a good job
  to beat; where the envelope still leaves room for a larger job, a MILP (HiGHS) settles the
  trade-off exactly for that row count. With a time limit the answer may be unproven, and
  ``optimal`` and ``upper_bound_nodes`` say so.

``largest_allocation`` picks the cheapest solver that applies (``auto``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components, maximum_flow

from railx.config import ConfigError
from railx.messages import shown

__all__ = [
    "SOLVERS",
    "Allocation",
    "Solver",
    "largest_allocation",
    "algorithm2",
    "components",
    "milp_solver",
    "rows_with_most_columns",
]

Solver = Literal["auto", "algorithm2", "components", "milp"]
SOLVERS: tuple[Solver, ...] = ("auto", "algorithm2", "components", "milp")

#: Largest enumeration (2^n cases) the enumerating solvers accept.
MAX_ENUMERATION_BITS = 16
#: ``auto`` runs Algorithm 2 up to this many non-isolated failures (beyond, components is faster).
AUTO_ALGORITHM2_BITS = 10


@dataclass(frozen=True)
class Allocation:
    """A job's rows (Y) and columns (X) of nodes, how it was found and whether it is proven largest."""

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    solver: str
    optimal: bool
    #: Proven upper bound on the largest job's node count (equals `nodes` when optimal).
    upper_bound_nodes: int
    seconds: float = field(default=0.0, compare=False)

    @property
    def nodes(self) -> int:
        return len(self.rows) * len(self.cols)


@dataclass(frozen=True)
class _Graph:
    """The failure graph restricted to rows and columns that hold a blocked node."""

    rows: np.ndarray  # grid row index of each active row
    cols: np.ndarray  # grid column index of each active column
    edge_row: np.ndarray  # active-row index of each blocked node
    edge_col: np.ndarray  # active-column index of each blocked node
    free_rows: np.ndarray  # rows without any blocked node: always kept
    free_cols: np.ndarray

    @classmethod
    def of(cls, blocked: np.ndarray) -> _Graph:
        r, c = np.nonzero(blocked)
        rows, cols = np.unique(r), np.unique(c)
        return cls(
            rows=rows,
            cols=cols,
            edge_row=np.searchsorted(rows, r),
            edge_col=np.searchsorted(cols, c),
            free_rows=np.flatnonzero(~blocked.any(axis=1)),
            free_cols=np.flatnonzero(~blocked.any(axis=0)),
        )

    def allocation(
        self, kept_rows: np.ndarray, kept_cols: np.ndarray, solver: str, optimal: bool, upper: int
    ) -> Allocation:
        """Builds the result from boolean masks over the active rows and columns."""
        rows = np.sort(np.r_[self.free_rows, self.rows[kept_rows]])
        cols = np.sort(np.r_[self.free_cols, self.cols[kept_cols]])
        return Allocation(tuple(int(v) for v in rows), tuple(int(v) for v in cols), solver, optimal, upper)


def _check(blocked: np.ndarray) -> np.ndarray:
    blocked = np.asarray(blocked)
    if blocked.ndim != 2 or blocked.dtype != bool:
        raise ConfigError("blocked: must be a 2-D boolean matrix indexed [y, x]; e.g. np.zeros((Q, P), bool)")
    return blocked


def _balanced_split(
    fixed_rows: np.ndarray, fixed_cols: np.ndarray, isolated: int, n_rows: int, n_cols: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each case, the number of isolated failures to clear by removing rows (the rest remove
    columns) that maximises (rows left) x (columns left), and that area."""
    extra = np.arange(isolated + 1)
    area = (n_rows - fixed_rows[:, None] - extra[None, :]) * (
        n_cols - fixed_cols[:, None] - (isolated - extra)[None, :]
    )
    area = np.where(
        (n_rows - fixed_rows[:, None] - extra >= 0) & (n_cols - fixed_cols[:, None] - (isolated - extra) >= 0), area, -1
    )
    best = area.argmax(axis=1)
    return best, area[np.arange(len(best)), best]


def _isolated_mask(blocked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blocked nodes (rows, cols) and which of them are alone in their row and their column."""
    r, c = np.nonzero(blocked)
    return r, c, (blocked.sum(axis=1)[r] == 1) & (blocked.sum(axis=0)[c] == 1)


def _non_isolated(blocked: np.ndarray) -> int:
    return int((~_isolated_mask(blocked)[2]).sum())


def _component_labels(g: _Graph) -> tuple[int, np.ndarray]:
    """Connected components of the failure graph (active rows first, then active columns)."""
    nr, nc = len(g.rows), len(g.cols)
    graph = csr_matrix((np.ones(len(g.edge_row)), (g.edge_row, nr + g.edge_col)), shape=(nr + nc, nr + nc))
    return connected_components(graph, directed=False)


def _largest_component_side(blocked: np.ndarray) -> int:
    """The largest smaller side (rows or columns) over the failure graph's components."""
    g = _Graph.of(blocked)
    n_comp, label = _component_labels(g)
    nr = len(g.rows)
    rows = np.bincount(label[:nr], minlength=n_comp)
    cols = np.bincount(label[nr:], minlength=n_comp)
    return int(np.minimum(rows, cols).max())


def algorithm2(blocked: np.ndarray) -> Allocation:
    """The paper's Algorithm 2 (exact; 2^|C| cases for the C failures that share a row or column)."""
    start = time.perf_counter()
    blocked = _check(blocked)
    n_rows, n_cols = blocked.shape
    r, c, isolated = _isolated_mask(blocked)
    cr, cc = r[~isolated], c[~isolated]
    if len(cr) > MAX_ENUMERATION_BITS:
        raise ConfigError(
            f"solver = algorithm2: {len(cr)} failures share a row or column, 2^{len(cr)} cases to enumerate "
            f"(limit 2^{MAX_ENUMERATION_BITS}); use solver = components or milp"
        )
    # Each case is a bit per non-isolated failure: 1 removes its row, 0 its column.
    cases = (np.arange(1 << len(cr))[:, None] >> np.arange(len(cr))[None, :]) & 1
    row_ids, row_of = np.unique(cr, return_inverse=True)
    col_ids, col_of = np.unique(cc, return_inverse=True)
    removes_row = np.zeros((len(cases), len(row_ids)), dtype=bool)
    removes_col = np.zeros((len(cases), len(col_ids)), dtype=bool)
    for j in range(len(cr)):
        removes_row[:, row_of[j]] |= cases[:, j] == 1
        removes_col[:, col_of[j]] |= cases[:, j] == 0
    extra_rows, area = _balanced_split(
        removes_row.sum(axis=1), removes_col.sum(axis=1), int(isolated.sum()), n_rows, n_cols
    )
    best = int(area.argmax())
    removed_rows = set(row_ids[removes_row[best]].tolist())
    removed_cols = set(col_ids[removes_col[best]].tolist())
    iso_r, iso_c = r[isolated], c[isolated]
    k = int(extra_rows[best])
    removed_rows |= set(iso_r[:k].tolist())
    removed_cols |= set(iso_c[k:].tolist())
    rows = tuple(i for i in range(n_rows) if i not in removed_rows)
    cols = tuple(j for j in range(n_cols) if j not in removed_cols)
    nodes = len(rows) * len(cols)
    return Allocation(rows, cols, "algorithm2", True, nodes, time.perf_counter() - start)


def _component_tradeoff(adjacency: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact trade-off of one component: for each number a of kept rows, the most kept columns and
    the kept-row mask achieving it. `adjacency[i, j]`: row i and column j share a blocked node.
    Enumerates the smaller side."""
    n_rows, n_cols = adjacency.shape
    transpose = n_cols < n_rows
    side = adjacency.T if transpose else adjacency  # enumerate subsets of side's rows
    k, other = side.shape
    words = (other + 63) // 64
    bits = np.zeros((k, words), dtype=np.uint64)
    for i in range(k):
        for j in np.flatnonzero(side[i]):
            bits[i, j // 64] |= np.uint64(1) << np.uint64(j % 64)
    union = np.zeros((1 << k, words), dtype=np.uint64)
    for i in range(k):  # union[mask] = union of the kept elements' neighbours, built by doubling
        union[1 << i : 1 << (i + 1)] = union[: 1 << i] | bits[i]
    kept_other = other - np.bitwise_count(union).sum(axis=1).astype(np.int64)
    masks = np.arange(1 << k)
    kept_side = np.bitwise_count(masks.astype(np.uint64)).astype(np.int64)
    if transpose:  # the enumerated side is columns: a = kept rows = kept_other
        a, b = kept_other, kept_side
    else:
        a, b = kept_side, kept_other
    best_b = np.full(n_rows + 1, -1, dtype=np.int64)
    np.maximum.at(best_b, a, b)
    # Keeping fewer rows never hurts the columns: make the trade-off monotone.
    best_b = np.maximum.accumulate(best_b[::-1])[::-1]
    choice = np.empty(n_rows + 1, dtype=np.int64)
    for count in range(n_rows + 1):
        feasible = np.flatnonzero((a >= count) & (b >= best_b[count]))
        choice[count] = feasible[0]
    row_masks = np.zeros((n_rows + 1, n_rows), dtype=bool)
    for count in range(n_rows + 1):
        mask = int(choice[count])
        if transpose:
            kept_cols = np.array([(mask >> i) & 1 for i in range(k)], dtype=bool)
            kept = ~adjacency[:, kept_cols].any(axis=1)
        else:
            kept = np.array([(mask >> i) & 1 for i in range(k)], dtype=bool)
        keep_idx = np.flatnonzero(kept)[:count]  # trim to exactly `count` kept rows
        row_masks[count, keep_idx] = True
    return best_b, row_masks


def components(blocked: np.ndarray) -> Allocation:
    """Exact, by connected components of the failure graph, each enumerated over its smaller side."""
    start = time.perf_counter()
    blocked = _check(blocked)
    g = _Graph.of(blocked)
    nr, nc = len(g.rows), len(g.cols)
    adjacency = np.zeros((nr, nc), dtype=bool)
    adjacency[g.edge_row, g.edge_col] = True
    n_comp, label = _component_labels(g)
    parts = []
    for comp in range(n_comp):
        rows = np.flatnonzero(label[:nr] == comp)
        cols = np.flatnonzero(label[nr:] == comp)
        if min(len(rows), len(cols)) > MAX_ENUMERATION_BITS:
            raise ConfigError(
                f"solver = components: a component of the failure graph spans {len(rows)} rows and {len(cols)} columns "
                f"(limit {MAX_ENUMERATION_BITS} on the smaller side); use solver = milp"
            )
        tradeoff, row_masks = _component_tradeoff(adjacency[np.ix_(rows, cols)])
        parts.append((rows, cols, tradeoff, row_masks))
    # Max-plus knapsack over kept active rows: best[A] = most kept active columns.
    best = np.zeros(1, dtype=np.int64)
    picks: list[np.ndarray] = []
    for _, _, tradeoff, _ in parts:
        total = np.full(len(best) + len(tradeoff) - 1, -1, dtype=np.int64)
        pick = np.zeros(len(total), dtype=np.int64)
        for a, b in enumerate(tradeoff):
            candidate = best + b
            better = candidate > total[a : a + len(best)]
            total[a : a + len(best)][better] = candidate[better]
            pick[a : a + len(best)][better] = a
        best, picks = total, picks + [pick]
    fr, fc = len(g.free_rows), len(g.free_cols)
    areas = (fr + np.arange(len(best))) * (fc + best)
    count = int(areas.argmax())
    kept_rows = np.zeros(nr, dtype=bool)
    kept_cols = np.zeros(nc, dtype=bool)
    for (rows, cols, _, row_masks), pick in zip(reversed(parts), reversed(picks)):
        a = int(pick[count])
        mask = row_masks[a]
        kept_rows[rows[mask]] = True
        kept_cols[cols[~adjacency[np.ix_(rows[mask], cols)].any(axis=0)]] = True
        count -= a
    nodes = int(areas.max())
    result = g.allocation(kept_rows, kept_cols, "components", True, nodes)
    return Allocation(result.rows, result.cols, result.solver, True, nodes, time.perf_counter() - start)


def _max_weight_independent(g: _Graph, weight_row: int, weight_col: int) -> tuple[np.ndarray, np.ndarray]:
    """Kept (row, column) masks maximising weight_row*|rows| + weight_col*|cols| with no blocked
    node kept: the complement of a minimum weight vertex cover, by one s-t min cut."""
    nr, nc = len(g.rows), len(g.cols)
    n, s, t = nr + nc + 2, nr + nc, nr + nc + 1
    infinite = weight_row * nr + weight_col * nc + 1
    src = np.r_[np.full(nr, s), g.edge_row, nr + np.arange(nc)]
    dst = np.r_[np.arange(nr), nr + g.edge_col, np.full(nc, t)]
    cap = np.r_[np.full(nr, weight_row), np.full(len(g.edge_row), infinite), np.full(nc, weight_col)].astype(np.int64)
    graph = csr_matrix((cap, (src, dst)), shape=(n, n))
    flow = maximum_flow(graph, s, t).flow
    residual = (graph - flow).tocsr()
    residual.data = (residual.data > 0).astype(np.int8)
    residual.eliminate_zeros()
    source_side = np.zeros(n, dtype=bool)
    source_side[breadth_first_order(residual, s, directed=True, return_predecessors=False)] = True
    return source_side[:nr], ~source_side[nr : nr + nc]


def _envelope(g: _Graph) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """Vertices of the concave envelope of (kept rows, kept columns), each with its masks."""
    nr, nc = len(g.rows), len(g.cols)

    def point(wr: int, wc: int) -> tuple[int, int, np.ndarray, np.ndarray]:
        kr, kc = _max_weight_independent(g, wr, wc)
        return int(kr.sum()), int(kc.sum()), kr, kc

    ends = [point(1, nr + 1), point(nc + 1, 1)]  # most columns first, then most rows
    found = {(p[0], p[1]): p for p in ends}
    stack = [(ends[0], ends[1])]
    while stack:
        p1, p2 = stack.pop()
        wr, wc = p1[1] - p2[1], p2[0] - p1[0]
        if wr <= 0 or wc <= 0:
            continue
        p3 = point(wr, wc)
        if wr * p3[0] + wc * p3[1] > wr * p1[0] + wc * p1[1]:
            found[(p3[0], p3[1])] = p3
            stack += [(p1, p3), (p3, p2)]
    return sorted(found.values(), key=lambda p: p[0])


def _greedy(g: _Graph, transpose: bool) -> tuple[int, np.ndarray, np.ndarray]:
    """A good feasible job fast: keep rows one at a time, each time the row that loses the fewest
    further columns (on the transposed graph: columns that lose the fewest rows); every prefix is
    a candidate. Returns the best area and its kept (row, column) masks."""
    nr, nc = len(g.rows), len(g.cols)
    fr, fc = len(g.free_rows), len(g.free_cols)
    adjacency = np.zeros((nr, nc), dtype=bool)
    adjacency[g.edge_row, g.edge_col] = True
    side = adjacency.T if transpose else adjacency  # pick side's rows; lose side's columns
    picked = np.zeros(side.shape[0], dtype=bool)
    lost = np.zeros(side.shape[1], dtype=bool)
    order = []
    for _ in range(side.shape[0]):
        cost = np.where(picked, np.iinfo(np.int64).max, (side & ~lost).sum(axis=1))
        i = int(cost.argmin())
        picked[i] = True
        lost |= side[i]
        order.append((i, int(lost.sum())))
    best_area, best_k = -1, 0
    for k in range(len(order) + 1):
        kept_side, kept_other = k, side.shape[1] - (order[k - 1][1] if k else 0)
        rows, cols = (kept_other, kept_side) if transpose else (kept_side, kept_other)
        area = (fr + rows) * (fc + cols)
        if area > best_area:
            best_area, best_k = area, k
    chosen = np.zeros(side.shape[0], dtype=bool)
    chosen[[i for i, _ in order[:best_k]]] = True
    other = np.logical_not(side[chosen].any(axis=0))
    return (best_area, other, chosen) if transpose else (best_area, chosen, other)


def _milp_for_rows(
    g: _Graph, kept_rows: int, time_limit_s: float
) -> tuple[np.ndarray, np.ndarray, int, int, bool] | None:
    """Most kept active columns with exactly `kept_rows` kept active rows: masks, value, bound, proven."""
    nr, nc = len(g.rows), len(g.cols)
    m = len(g.edge_row)
    a = np.zeros((m + 1, nr + nc))
    a[np.arange(m), g.edge_row] = 1
    a[np.arange(m), nr + g.edge_col] = 1
    a[m, :nr] = 1
    constraint = LinearConstraint(a, np.r_[np.full(m, -np.inf), kept_rows], np.r_[np.ones(m), kept_rows])
    result = milp(
        np.r_[np.zeros(nr), -np.ones(nc)],
        constraints=constraint,
        integrality=np.ones(nr + nc),
        bounds=Bounds(0, 1),
        options={"time_limit": max(time_limit_s, 1e-3)},
    )
    if result.x is None:
        return None
    x = result.x > 0.5
    value = int(x[nr:].sum())
    bound = int(np.floor(-result.mip_dual_bound + 1e-6)) if result.mip_dual_bound is not None else nc
    return x[:nr], x[nr:], value, bound, result.status == 0


def milp_solver(blocked: np.ndarray, time_limit_s: float = 30.0) -> Allocation:
    """Envelope by parametric min cuts, then MILPs (HiGHS) where the envelope leaves a gap."""
    start = time.perf_counter()
    blocked = _check(blocked)
    g = _Graph.of(blocked)
    fr, fc = len(g.free_rows), len(g.free_cols)
    nr = len(g.rows)
    vertices = _envelope(g)
    # Best feasible job so far: an envelope vertex or a greedy one.
    best = max(vertices, key=lambda p: (fr + p[0]) * (fc + p[1]))
    best_area = (fr + best[0]) * (fc + best[1])
    best_masks = (best[2], best[3])
    for transpose in (False, True):
        area, kept_rows, kept_cols = _greedy(g, transpose)
        if area > best_area:
            best_area, best_masks = area, (kept_rows, kept_cols)
    # Upper bound of the trade-off at every row count: the envelope (a concave majorant).
    xs = [p[0] for p in vertices]
    ys = [p[1] for p in vertices]
    bound = {a: int(np.floor(np.interp(a, xs, ys) + 1e-9)) for a in range(nr + 1)}
    for a, b, *_ in vertices:
        bound[a] = b
    proven = True
    for a in sorted(range(nr + 1), key=lambda a: -(fr + a) * (fc + bound[a])):
        if (fr + a) * (fc + bound[a]) <= best_area:
            break
        remaining = time_limit_s - (time.perf_counter() - start)
        solved = _milp_for_rows(g, a, remaining) if remaining > 0 else None
        if solved is None:
            proven = False
            continue
        kept_rows, kept_cols, value, dual, exact = solved
        bound[a] = min(bound[a], value if exact else dual)
        proven &= exact
        if (fr + a) * (fc + value) > best_area:
            best_area, best_masks = (fr + a) * (fc + value), (kept_rows, kept_cols)
    # Every row count whose bound beat the best was solved, so with all MILPs exact this is best_area.
    upper = max(best_area, max((fr + a) * (fc + bound[a]) for a in range(nr + 1)))
    result = g.allocation(best_masks[0], best_masks[1], "milp", proven, upper)
    return Allocation(result.rows, result.cols, "milp", proven, upper, time.perf_counter() - start)


def rows_with_most_columns(blocked: np.ndarray, count: int, time_limit_s: float = 30.0) -> tuple[list[int], list[int]]:
    """`count` rows and the columns they leave free, chosen to leave the most columns (rows
    without blocked nodes first, then a MILP over the others)."""
    blocked = _check(blocked)
    g = _Graph.of(blocked)
    if count <= len(g.free_rows):
        return [int(v) for v in g.free_rows[:count]], list(range(blocked.shape[1]))
    need = count - len(g.free_rows)
    if need > len(g.rows):
        raise ConfigError(f"count = {count}: more rows than the grid's {blocked.shape[0]}")
    solved = _milp_for_rows(g, need, time_limit_s)
    if solved is None:
        return [], []
    kept_rows, kept_cols, *_ = solved
    found = g.allocation(kept_rows, kept_cols, "milp", False, 0)
    return list(found.rows), list(found.cols)


def largest_allocation(blocked: np.ndarray, solver: Solver = "auto", time_limit_s: float = 30.0) -> Allocation:
    """The largest job (rows x columns) avoiding every blocked node. ``auto`` uses Algorithm 2
    while its enumeration is small, then the component solver, then the MILP."""
    blocked = _check(blocked)
    if not blocked.any():
        q, p = blocked.shape
        return Allocation(tuple(range(q)), tuple(range(p)), "trivial", True, p * q)
    if solver == "algorithm2":
        return algorithm2(blocked)
    if solver == "components":
        return components(blocked)
    if solver == "milp":
        return milp_solver(blocked, time_limit_s)
    if solver != "auto":
        raise ConfigError(f"solver = {shown(solver)}: unknown solver; use auto, algorithm2, components or milp")
    if _non_isolated(blocked) <= AUTO_ALGORITHM2_BITS:
        return algorithm2(blocked)
    if _largest_component_side(blocked) <= MAX_ENUMERATION_BITS:
        return components(blocked)
    return milp_solver(blocked, time_limit_s)
