"""Eq. 1 of paper 003 as an instance: wavelength targets t, budget w, and the arcs a wavelength
can take.

    minimise   sum_ij (lambda_ij - t_ij)^2
    subject to sum_j lambda_ij <= w   (egress: CU i's transmitter has w wavelengths)
               sum_i lambda_ij <= w   (ingress: CU j's receiver has w wavelengths)
               lambda_ii = 0, lambda_ij integer

Read with the topology: a wavelength goes from CU i out of one port, through one WSS, to CU j,
so lambda_ij can be positive only when i and j are direct neighbours (the paper's "t_ij = 0
wherever lambda_ij = 0", and Table 1's lambda_ij^(l), the level-l WSS joining them). An
allocation is therefore a vector over the arcs (`SiPAC.arcs`); off the arcs lambda is 0, and so
is t (traffic.py routes onto arcs). Eq. 1 omits lambda_ij >= 0, but a count of wavelengths
cannot be negative, and without it the least-squares optimum does go negative on idle pairs to
free budget for busy ones; every solver here imposes it. The constraint sums in eq. 1 run over
j = 1..N while the objective runs over 0..N-1; both mean every CU.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse

from railx.config import ConfigError
from railx.wavelengths.addressing import SiPAC

__all__ = ["MAX_WAVELENGTHS", "Instance"]

MAX_WAVELENGTHS = 1024
"""Most wavelengths per CU taken (comb sources offer up to 160 today, paper 003 §3.A)."""


@dataclass(frozen=True)
class Instance:
    """One eq. 1 problem: the topology, w wavelengths per CU and the N x N targets t."""

    topology: SiPAC
    w: int
    targets: np.ndarray

    def __post_init__(self) -> None:
        if self.w < self.topology.L:
            raise ConfigError(
                f"w = {self.w}: fewer wavelengths than the {self.topology.L} ports of a CU, so a port would "
                f"start dark (the default spreads w evenly over the ports); e.g. w = {self.topology.L * (self.topology.r - 1)}"
            )
        if self.w > MAX_WAVELENGTHS:
            raise ConfigError(
                f"w = {self.w}: over {MAX_WAVELENGTHS} wavelengths per CU (comb sources offer up to 160); e.g. w = 64"
            )
        N = self.topology.N
        if self.targets.shape != (N, N):
            raise ConfigError(f"targets: shape {self.targets.shape}, expected ({N}, {N}) for N = {N} CUs")
        off_arcs = self.targets.copy()
        off_arcs[self.arcs[:, 0], self.arcs[:, 1]] = 0
        if np.any(off_arcs != 0) or np.any(self.targets < 0):
            raise ConfigError(
                "targets: t must be >= 0 and 0 between CUs that share no WSS; route T first (traffic_matrix)"
            )

    @property
    def arcs(self) -> np.ndarray:
        """The directed neighbour pairs, E x 2."""
        return self.topology.arcs

    @cached_property
    def t(self) -> np.ndarray:
        """The targets on the arcs (length E)."""
        return self.targets[self.arcs[:, 0], self.arcs[:, 1]]

    @cached_property
    def egress(self) -> sparse.csr_matrix:
        """N x E: row i sums the arcs leaving CU i."""
        return self._incidence(self.arcs[:, 0])

    @cached_property
    def ingress(self) -> sparse.csr_matrix:
        """N x E: row j sums the arcs entering CU j."""
        return self._incidence(self.arcs[:, 1])

    def _incidence(self, ends: np.ndarray) -> sparse.csr_matrix:
        E = len(ends)
        return sparse.csr_matrix((np.ones(E), (ends, np.arange(E))), shape=(self.topology.N, E))

    def objective(self, lam: np.ndarray) -> float:
        """Eq. 1's objective for an allocation over the arcs (off the arcs both are 0)."""
        return float(np.sum((np.asarray(lam, dtype=float) - self.t) ** 2))

    def violations(self, lam: np.ndarray) -> list[str]:
        """Every constraint of eq. 1 (with lambda >= 0) the allocation breaks, as readable lines."""
        lam = np.asarray(lam, dtype=float)
        out = []
        if np.any(lam < -1e-9):
            out.append("negative lambda")
        for name, matrix in (("egress", self.egress), ("ingress", self.ingress)):
            over = np.flatnonzero(matrix @ lam > self.w + 1e-9)
            out += [f"{name} of CU {int(cu)} over w = {self.w}" for cu in over]
        return out

    def matrix(self, lam: np.ndarray) -> np.ndarray:
        """The allocation as the N x N matrix Lambda."""
        out = np.zeros((self.topology.N, self.topology.N), dtype=np.asarray(lam).dtype)
        out[self.arcs[:, 0], self.arcs[:, 1]] = lam
        return out
