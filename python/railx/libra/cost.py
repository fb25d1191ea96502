"""LIBRA's network cost model (paper 004 §IV-D, Table I, Fig. 12): dollars per GB/s of each
component (Link, Switch, Nic) per cost dimension (InterChiplet, InterPackage, InterNode, InterPod,
or any names the user gives).

Per network dimension with per-NPU bandwidth bw:
- Ring: N/size rings, each with 2*size unidirectional links of bw/2 -> N * bw * Link.
- FullyConnected: N/size groups, each with size*(size-1) links of bw/(size-1) -> N * bw * Link.
- Switch: one switch spanning this dimension and all inner ones per outer index, N ports of bw:
  N * bw * (Link + Switch + Nic); Nic may be absent (priced 0) for switches that need none.
So the network cost is linear in the bandwidths: sum_d unit_d * bw_d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from railx.config import ConfigError, read_text
from railx.libra.network import LibraNetwork
from railx.libra.yamlfile import parse_yaml
from railx.messages import shown

__all__ = ["CostModel", "load_cost_model", "parse_cost_model"]

_ELEMENTS = ("Link", "Switch", "Nic")


@dataclass(frozen=True)
class CostModel:
    """Dollars per GB/s of each element, per cost dimension."""

    prices_usd_per_GBps: dict[str, dict[str, float]]

    def _price(self, cost_dim: str, element: str, required: bool) -> float:
        prices = self.prices_usd_per_GBps.get(cost_dim)
        if prices is None:
            raise ConfigError(
                f"cost model: no entry for cost dimension {shown(cost_dim)}; it has {', '.join(self.prices_usd_per_GBps)}"
            )
        if element not in prices and required:
            raise ConfigError(
                f"cost model: {cost_dim} has no {element} price ($ per GB/s), which a {'Switch' if element == 'Switch' else ''} dimension priced by it needs; add e.g. {element}: 13.0"
            )
        return prices.get(element, 0.0)

    def _counts(self, network: LibraNetwork, d: int) -> tuple[int, int, float]:
        """Building blocks, links per block, and link bandwidth per GB/s of per-NPU bandwidth."""
        dim = network.dims[d]
        sizes = [x.size for x in network.dims]
        if dim.kind == "RI":
            return network.npus // dim.size, 2 * dim.size, 0.5
        if dim.kind == "FC":
            return network.npus // dim.size, dim.size * (dim.size - 1), 1.0 / (dim.size - 1)
        return math.prod(sizes[d + 1 :]), math.prod(sizes[: d + 1]), 1.0

    def unit_usd_per_GBps(self, network: LibraNetwork) -> np.ndarray:
        """Per dimension, the network's dollars per GB/s of per-NPU bandwidth in that dimension."""
        units = []
        for d, dim in enumerate(network.dims):
            if dim.cost_dimension is None:
                raise ConfigError(
                    f"network {network.notation}: dimension {d} has no cost dimension; give CostDimension in the network file"
                )
            blocks, links, link_bw = self._counts(network, d)
            price = self._price(dim.cost_dimension, "Link", True)
            if dim.kind == "SW":
                price += self._price(dim.cost_dimension, "Switch", True) + self._price(dim.cost_dimension, "Nic", False)
            units.append(blocks * links * link_bw * price)
        return np.array(units)

    def network_cost_usd(self, network: LibraNetwork, bw_GBps: np.ndarray) -> float:
        """Dollar cost of the network at these per-NPU bandwidths."""
        return float(self.unit_usd_per_GBps(network) @ np.asarray(bw_GBps, dtype=float))


def load_cost_model(path: str | Path) -> CostModel:
    """Reads a LIBRA cost-model YAML file (`Dim:` then indented `Link: 4.0` ...)."""
    return parse_cost_model(read_text(path), str(path))


def parse_cost_model(text: str, source: str) -> CostModel:
    """A LIBRA cost-model YAML text; errors name `source`."""
    data = parse_yaml(text, source)
    prices: dict[str, dict[str, float]] = {}
    for cost_dim, entries in data.items():
        if not isinstance(entries, dict):
            raise ConfigError(f"{source}: {cost_dim} must hold indented prices, e.g. Link: 4.0")
        for element, value in entries.items():
            if element not in _ELEMENTS:
                raise ConfigError(f"{source}: {cost_dim}.{element}: unknown element; use Link, Switch or Nic")
            if not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(
                    f"{source}: {cost_dim}.{element} = {shown(value)}: a price must be a positive number ($ per GB/s)"
                )
        prices[cost_dim] = {k: float(v) for k, v in entries.items()}
    if not prices:
        raise ConfigError(f"{source}: no cost dimensions")
    return CostModel(prices)
