"""Reconfiguration: from the previous wavelength assignment to a new allocation, changing as few
lightpaths (source, destination, wavelength) as possible (paper 003, §3.C, "minimize
modifications to the existing wavelength allocation").

Two candidates, the one with fewer changes wins:
- relabel: any permutation of the w wavelengths keeps an assignment valid (the rules are
  "distinct per transmitter, receiver, fibre, bus", blind to which wavelength is which). The
  relabelling of the new assignment keeping most old lightpaths is a maximum-weight assignment
  between old and new wavelengths, weight[a][b] = CU pairs with an old lightpath on a and a new
  one on b (scipy.optimize.linear_sum_assignment); it is the best of all w! relabellings.
- recolour: keep min(old, new) lightpaths of every CU pair on their old wavelengths and colour
  the rest edge by edge, as in the constructive proof of Konig's theorem: a wavelength a free at
  the transmitter and b free at the receiver; if a is busy at the receiver, swap a and b along
  the alternating path from the receiver (it cannot reach the transmitter: the multigraph is
  bipartite) and take a. It never needs more than w wavelengths; a swap moves kept lightpaths,
  which then count as changes. Without swaps it meets the lower bound sum |lambda_new - lambda_old|.

What remains to change becomes a diff an SDN controller applies per WSS input port (= the CU
transmitter port feeding it): wavelengths to drop, then to add, each with the output port it is
switched to.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.optimize import linear_sum_assignment

from railx._core import InternalError
from railx.config import ConfigError
from railx.wavelengths.addressing import SiPAC

__all__ = ["Reconfiguration", "apply_diff", "reconfigure", "recolour", "relabel"]

Lightpath = tuple[int, int, int]


@dataclass(frozen=True)
class Reconfiguration:
    """The new assignment nearest the old one and what it takes to get there."""

    method: Literal["relabel", "recolour"]
    lightpaths: np.ndarray
    """The new assignment, rows (source, destination, wavelength), sorted."""
    kept: int
    dropped: int
    added: int
    least_changes: int
    """sum over CU pairs of |lambda_new - lambda_old|: no assignment changes fewer."""
    diff: list[dict[str, Any]]


def _triples(lightpaths: np.ndarray) -> set[Lightpath]:
    return {(int(s), int(d), int(c)) for s, d, c in lightpaths}


def _sorted(triples: set[Lightpath] | list[Lightpath]) -> np.ndarray:
    return np.array(sorted(triples), dtype=np.int64).reshape(-1, 3)


def _pair_counts(lightpaths: np.ndarray) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for s, d, _ in lightpaths:
        counts[(int(s), int(d))] += 1
    return counts


def relabel(w: int, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The relabelling of `new`'s wavelengths that keeps most lightpaths of `old`."""
    by_pair: dict[tuple[int, int], set[int]] = defaultdict(set)
    for s, d, c in _triples(old):
        by_pair[(s, d)].add(c)
    weight = np.zeros((w, w), dtype=np.int64)
    for s, d, b in _triples(new):
        for a in by_pair.get((s, d), ()):
            weight[a, b] += 1
    old_of, new_of = linear_sum_assignment(weight, maximize=True)
    mapping = np.empty(w, dtype=np.int64)
    mapping[new_of] = old_of
    return _sorted({(s, d, int(mapping[c])) for s, d, c in _triples(new)})


def recolour(w: int, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """`new`'s lightpaths per CU pair, coloured to keep old wavelengths where the pair keeps
    lightpaths (alternating-path swaps where needed; see the module docstring)."""
    wanted = _pair_counts(new)
    colour_of: dict[int, int] = {}
    ends: list[tuple[int, int]] = []
    tx: dict[int, dict[int, int]] = defaultdict(dict)  # transmitter -> wavelength -> lightpath
    rx: dict[int, dict[int, int]] = defaultdict(dict)

    def place(p: int, c: int) -> None:
        s, d = ends[p]
        colour_of[p] = c
        tx[s][c] = p
        rx[d][c] = p

    left = dict(wanted)
    for s, d, c in sorted(_triples(old)):
        if left.get((s, d), 0) > 0:
            left[(s, d)] -= 1
            ends.append((s, d))
            place(len(ends) - 1, c)
    for (s, d), count in sorted(left.items()):
        for _ in range(count):
            ends.append((s, d))
            p = len(ends) - 1
            a = next(c for c in range(w) if c not in tx[s])
            b = next(c for c in range(w) if c not in rx[d])
            if a in rx[d] and b not in tx[s]:
                a = b
            elif a in rx[d]:
                _swap_path(d, a, b, ends, colour_of, tx, rx)
            place(p, a)
    return _sorted({(ends[p][0], ends[p][1], c) for p, c in colour_of.items()})


def _swap_path(
    d: int,
    a: int,
    b: int,
    ends: list[tuple[int, int]],
    colour_of: dict[int, int],
    tx: dict[int, dict[int, int]],
    rx: dict[int, dict[int, int]],
) -> None:
    """Swaps wavelengths a and b on the path from receiver d that alternates a (receiver to
    transmitter) and b (transmitter to receiver); afterwards a is free at d."""
    path: list[int] = []
    receiver: int | None = d
    while receiver is not None and a in rx[receiver]:
        p = rx[receiver][a]
        path.append(p)
        q = tx[ends[p][0]].get(b)
        if q is None:
            break
        path.append(q)
        receiver = ends[q][1]
    for p in path:
        s, r = ends[p]
        del tx[s][colour_of[p]], rx[r][colour_of[p]]
    for p in path:
        s, r = ends[p]
        c = b if colour_of[p] == a else a
        colour_of[p] = c
        tx[s][c] = p
        rx[r][c] = p
    if a in rx[d]:
        raise InternalError("wavelength recolouring: an alternating path left its wavelength busy")


def reconfigure(topology: SiPAC, w: int, old: np.ndarray, new: np.ndarray) -> Reconfiguration:
    """The assignment of `new`'s lightpaths (rows source, destination, wavelength) nearest `old`,
    the better of relabelling and recolouring, and the diff to apply."""
    before = _triples(old)
    candidates = {"relabel": relabel(w, old, new), "recolour": recolour(w, old, new)}
    method: Literal["relabel", "recolour"] = min(
        ("recolour", "relabel"), key=lambda m: len(before ^ _triples(candidates[m]))
    )
    after = _triples(candidates[method])
    old_counts, new_counts = _pair_counts(old), _pair_counts(new)
    least = sum(abs(new_counts.get(p, 0) - old_counts.get(p, 0)) for p in set(old_counts) | set(new_counts))
    return Reconfiguration(
        method=method,
        lightpaths=candidates[method],
        kept=len(before & after),
        dropped=len(before - after),
        added=len(after - before),
        least_changes=least,
        diff=_diff(topology, before - after, after - before),
    )


def _diff(topology: SiPAC, drop: set[Lightpath], add: set[Lightpath]) -> list[dict[str, Any]]:
    """Per WSS input port, sorted: the wavelengths to drop and to add, each with its output port."""
    ports: dict[tuple[int, int, int], dict[str, Any]] = {}
    for action, lightpaths in (("drop", drop), ("add", add)):
        for s, d, c in sorted(lightpaths):
            level = topology.level_between(s, d)
            if level is None:
                raise ConfigError(
                    f"lightpaths: {s}->{d} joins CUs that share no WSS in SiPAC(r = {topology.r}, L = {topology.L})"
                )
            wss = topology.wss(s, level)
            key = (level, wss, topology.digit(s, level))
            entry = ports.setdefault(
                key,
                {"wss": topology.wss_label(level, wss), "input_port": key[2], "cu": s, "drop": [], "add": []},
            )
            entry[action].append({"wavelength": c, "output_port": topology.digit(d, level), "to_cu": d})
    return [ports[k] for k in sorted(ports)]


def apply_diff(old: np.ndarray, diff: list[dict[str, Any]]) -> np.ndarray:
    """The assignment after the controller applies `diff` to `old` (rows source, destination,
    wavelength), sorted. Every drop goes first, as on the hardware: a wavelength may move from one
    port of a CU to another, and must never be on both at once."""
    state = _triples(old)
    state -= {(e["cu"], item["to_cu"], item["wavelength"]) for e in diff for item in e["drop"]}
    state |= {(e["cu"], item["to_cu"], item["wavelength"]) for e in diff for item in e["add"]}
    return _sorted(state)
