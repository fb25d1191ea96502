"""SiPAC(r, L) addressing: which CUs share a wavelength-selective switch (paper 003, §3.A).

A SiPAC(r, L) network has N = r^L compute units (CUs). A CU's address is its index written in
base r, (a_{L-1} .. a_0). Like BCube, level l holds N / r r-port WSSs, and the level-l WSS joins
the r CUs whose addresses differ only in digit l; every CU has one optical port per level (L
ports). Two CUs are direct neighbours (a wavelength can go from one to the other through one
WSS) exactly when their addresses differ in one digit, and that digit is the level of the WSS.

This module is the only place that knows the incidence; the allocation takes a `SiPAC` and can
later take the core's system handle instead, by giving it the same few methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from railx.config import ConfigError

__all__ = ["MAX_CUS", "SiPAC"]

MAX_CUS = 4096
"""Largest network the allocation takes (a 3-level SiPAC of 16-port WSSs, paper 003 §6)."""


@dataclass(frozen=True)
class SiPAC:
    """A SiPAC(r, L) topology: `r`-port WSSs in `L` levels, N = r^L CUs."""

    r: int
    L: int

    def __post_init__(self) -> None:
        if self.r < 2:
            raise ConfigError(f"r = {self.r}: a WSS joins at least 2 CUs; e.g. r = 4")
        if self.L < 1:
            raise ConfigError(f"L = {self.L}: a SiPAC has at least one level; e.g. L = 2")
        if self.r**self.L > MAX_CUS:
            raise ConfigError(
                f"r = {self.r}, L = {self.L}: r^L = {self.r**self.L} CUs is over {MAX_CUS}; e.g. r = 4, L = 2"
            )

    @property
    def N(self) -> int:
        """Number of CUs, r^L."""
        return int(self.r**self.L)

    @property
    def wss_per_level(self) -> int:
        """WSSs in one level, N / r."""
        return self.N // self.r

    def digit(self, cu: int, level: int) -> int:
        """Digit `level` of the CU's base-r address: its port number on its level-`level` WSS."""
        return (cu // self.r**level) % self.r

    def wss(self, cu: int, level: int) -> int:
        """Index (within its level) of the level-`level` WSS the CU hangs on: its address with
        digit `level` removed."""
        low = cu % self.r**level
        return (cu // self.r ** (level + 1)) * self.r**level + low

    def members(self, level: int, wss: int) -> list[int]:
        """The r CUs on WSS `wss` of level `level`, by port number (the digit `level`)."""
        low = wss % self.r**level
        high = wss // self.r**level
        base = high * self.r ** (level + 1) + low
        return [base + d * self.r**level for d in range(self.r)]

    def level_between(self, i: int, j: int) -> int | None:
        """The level of the WSS joining CUs i and j, or None when they are not direct neighbours
        (their addresses differ in no digit or in more than one)."""
        differing = [level for level in range(self.L) if self.digit(i, level) != self.digit(j, level)]
        return differing[0] if len(differing) == 1 else None

    def neighbours(self, cu: int) -> list[int]:
        """The L (r - 1) CUs one WSS away, level by level."""
        return [m for level in range(self.L) for m in self.members(level, self.wss(cu, level)) if m != cu]

    @cached_property
    def arcs(self) -> np.ndarray:
        """Every directed neighbour pair (i, j), sorted, as an (N L (r - 1)) x 2 array: the only
        pairs a wavelength can join."""
        pairs = sorted((i, j) for i in range(self.N) for j in self.neighbours(i))
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    @cached_property
    def arc_levels(self) -> np.ndarray:
        """The WSS level of each arc."""
        return np.array([self.level_between(int(i), int(j)) for i, j in self.arcs], dtype=np.int64)

    def wss_label(self, level: int, wss: int) -> str:
        """A WSS's name in tables and diffs, `L<level>.<index>`."""
        return f"L{level}.{wss}"
