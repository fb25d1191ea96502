"""Wavelength assignment: which of the w comb wavelengths each lightpath uses (paper 003, §3.C).

An allocation says how many wavelengths go from CU i to CU j (lambda_ij); each of those
lightpaths leaves i's transmitter on one comb wavelength, goes out of i's level-l port into the
level-l WSS, and leaves the WSS's output bus to j's level-l port and j's receiver. The conflict
graph has one vertex per lightpath and an edge between two lightpaths that

- leave the same CU (one transmitter modulates each comb wavelength once), or
- reach the same CU (one receiver detects each wavelength once).

Colours are wavelengths 0..w-1; a proper colouring is a valid assignment. It also keeps every
wavelength once per fibre (a fibre from CU i carries only i's lightpaths) and once per WSS
output bus (a bus carries only lightpaths to one CU), the switch's coherent-crosstalk rule. The
graph is the line graph of the bipartite multigraph transmitters -> receivers, so by Konig's
theorem w colours suffice whenever every egress and ingress is <= w. The paper names DSatur;
networkx's DSatur is tried first (up to DSATUR_MAX_LIGHTPATHS lightpaths: it is quadratic in w
per lightpath and slow in Python beyond), and when it needs more than w colours (a greedy colouring
can) an exact Konig colouring takes over: pad the multigraph to w-regular, peel off w perfect
matchings (Hopcroft-Karp, scipy).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from railx._core import InternalError
from railx.wavelengths.addressing import SiPAC

DSATUR_MAX_LIGHTPATHS = 4096
"""Largest allocation DSatur is tried on (about 5 s at 1,024 lightpaths and w = 16); larger ones go
straight to the Konig colouring."""

__all__ = [
    "DSATUR_MAX_LIGHTPATHS",
    "Colouring",
    "assign_wavelengths",
    "conflict_graph",
    "konig_colours",
    "lightpath_ends",
    "wavelength_conflicts",
]


@dataclass(frozen=True)
class Colouring:
    """Every lightpath as (source CU, destination CU, wavelength), sorted, and how it was found."""

    lightpaths: np.ndarray
    method: Literal["dsatur", "konig"]
    dsatur_colours: int | None
    """Colours DSatur used (the method is konig when this is over w); None when not tried."""


def lightpath_ends(arcs: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """One (source, destination) row per wavelength of the allocation, arc by arc."""
    return np.repeat(arcs, np.asarray(lam, dtype=np.int64), axis=0)


def conflict_graph(ends: np.ndarray) -> nx.Graph:
    """Lightpaths 0..P-1 joined when they share a source CU or a destination CU."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(ends)))
    for column in (0, 1):
        groups: dict[int, list[int]] = defaultdict(list)
        for p, cu in enumerate(ends[:, column]):
            groups[int(cu)].append(p)
        for members in groups.values():
            graph.add_edges_from((a, b) for x, a in enumerate(members) for b in members[x + 1 :])
    return graph


def konig_colours(N: int, w: int, ends: np.ndarray) -> np.ndarray:
    """A proper w-edge-colouring of the transmitter -> receiver multigraph (every degree <= w):
    padded with dummy edges to w-regular, it splits into w perfect matchings (Hall), one per
    colour."""
    real = np.zeros((N, N), dtype=np.int64)
    np.add.at(real, (ends[:, 0], ends[:, 1]), 1)
    out_short, in_short = w - real.sum(axis=1), w - real.sum(axis=0)
    if np.any(out_short < 0) or np.any(in_short < 0):
        raise InternalError("wavelength colouring: a CU sends or receives more than w wavelengths")
    dummy = np.zeros_like(real)
    # Pair the missing ends greedily; any pairing (self-pairs included) makes the padding w-regular.
    i = j = 0
    while i < N and j < N:
        if out_short[i] == 0:
            i += 1
        elif in_short[j] == 0:
            j += 1
        else:
            k = min(out_short[i], in_short[j])
            dummy[i, j] += k
            out_short[i] -= k
            in_short[j] -= k
    pending: dict[tuple[int, int], list[int]] = defaultdict(list)
    for p, (s, d) in enumerate(ends):
        pending[(int(s), int(d))].append(p)
    colours = np.full(len(ends), -1, dtype=np.int64)
    for colour in range(w):
        match = maximum_bipartite_matching(sparse.csr_matrix(real + dummy > 0), perm_type="column")
        if np.any(match < 0):
            raise InternalError("wavelength colouring: a regular bipartite multigraph without a perfect matching")
        for s, d in enumerate(match):
            if real[s, d] > 0:
                real[s, d] -= 1
                colours[pending[(s, int(d))].pop()] = colour
            else:
                dummy[s, d] -= 1
    return colours


def assign_wavelengths(topology: SiPAC, w: int, arcs: np.ndarray, lam: np.ndarray) -> Colouring:
    """Gives every lightpath of the allocation a wavelength: DSatur (networkx), or the exact
    Konig colouring when DSatur needs more than w or the allocation is too large for it."""
    ends = lightpath_ends(arcs, lam)
    used = None
    if len(ends) <= DSATUR_MAX_LIGHTPATHS:
        greedy = nx.greedy_color(conflict_graph(ends), strategy="DSATUR")
        colours = np.array([greedy[p] for p in range(len(ends))], dtype=np.int64)
        used = int(colours.max()) + 1 if len(colours) else 0
    method: Literal["dsatur", "konig"] = "dsatur"
    if used is None or used > w:
        colours, method = konig_colours(topology.N, w, ends), "konig"
    lightpaths = np.column_stack([ends, colours]) if len(ends) else np.zeros((0, 3), dtype=np.int64)
    order = np.lexsort((lightpaths[:, 2], lightpaths[:, 1], lightpaths[:, 0]))
    return Colouring(lightpaths=lightpaths[order], method=method, dsatur_colours=used)


def wavelength_conflicts(topology: SiPAC, w: int, lightpaths: np.ndarray) -> list[str]:
    """Every broken rule of a wavelength assignment, as readable lines (none when valid): a pair
    that shares no WSS, a wavelength outside 0..w-1, or a wavelength twice from one transmitter,
    into one receiver, on one fibre (CU port -> WSS) or on one WSS output bus (WSS -> CU port)."""
    problems: list[str] = []
    seen: set[tuple[object, ...]] = set()
    for s, d, c in (tuple(int(v) for v in row) for row in lightpaths):
        level = topology.level_between(s, d)
        if level is None:
            problems.append(f"lightpath {s}->{d}: the CUs share no WSS")
            continue
        if not 0 <= c < w:
            problems.append(f"lightpath {s}->{d}: wavelength {c} outside 0..{w - 1}")
        wss, port = topology.wss(s, level), topology.digit(d, level)
        label = topology.wss_label(level, wss)
        for place, key in (
            (f"transmitter of CU {s}", ("tx", s)),
            (f"receiver of CU {d}", ("rx", d)),
            (f"fibre CU {s} port {level} -> WSS {label}", ("fibre", s, level)),
            (f"output bus of WSS {label} port {port}", ("bus", level, wss, port)),
        ):
            if (*key, c) in seen:
                problems.append(f"wavelength {c} twice on the {place}")
            seen.add((*key, c))
    return problems
