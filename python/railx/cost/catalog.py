"""Price catalogs: what each component of a bill of materials costs (US dollars) and draws
(watts), as data in a TOML file where every entry names its source (docs/cost.md, Catalogs).

A catalog has one table per component kind: `packet_switch`, `ocs`, `pcc` (passive copper
cable), `aot` (active optical transceiver), `nic`, `wss` (wavelength-selective switch) and
`comb_transceiver` (a comb-laser transceiver, one per Flex-SiPAC chip). A switch is priced per
unit of a stated `radix` (`usd`) or per port (`usd_per_port`, any radix); power likewise (`watts`
or `watts_per_port`). A kind with no sourced price says why in `unpriced`: a system that has it
gets its counts and no total cost. Unknown keys, negative numbers and missing sources are
errors, each one line.

How a system that uses a fraction of its switches pays for them is the catalog's `port_basis`,
one rule for every switch of every family (packet switches and OCS alike):
- `used` (default): a switch is paid for by the ports the system uses, at the catalog's price
  per port (a per-unit price divided by its radix). A buyer would not pay for 110 idle ports of
  a 128-port OCS: the switch is shared with other systems, or a smaller radix is bought at the
  same price per port.
- `installed`: every switch is bought whole, every installed port paid for; a per-unit price
  then holds only at the catalog's radix.
Systems that fill their switches (every RailX Table 6 row) cost the same under both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from railx.config import ConfigError, Strict, one_line_error, read_text
from railx.files import parse_toml
from railx.messages import shown

__all__ = [
    "BUILTIN_CATALOGS",
    "PORT_BASES",
    "Catalog",
    "Component",
    "PortBasis",
    "Priced",
    "load_catalog",
    "parse_catalog",
]

CATALOG_DIR = Path(__file__).with_name("catalogs")
BUILTIN_CATALOGS: tuple[str, ...] = tuple(sorted(p.stem for p in CATALOG_DIR.glob("*.toml")))
SWITCH_KINDS = ("packet_switch", "ocs", "wss")
PortBasis = Literal["installed", "used"]
PORT_BASES: tuple[str, ...] = ("used", "installed")


class Component(Strict):
    """The price and power of one kind of component, with where they come from."""

    usd: float | None = Field(default=None, ge=0, allow_inf_nan=False, description="price per unit", examples=[1000])
    usd_per_port: float | None = Field(
        default=None, ge=0, allow_inf_nan=False, description="switches: price per port", examples=[694]
    )
    watts: float | None = Field(default=None, ge=0, allow_inf_nan=False, description="power per unit", examples=[9])
    watts_per_port: float | None = Field(
        default=None, ge=0, allow_inf_nan=False, description="switches: power per port", examples=[18]
    )
    radix: int | None = Field(
        default=None, gt=0, description="switches priced per unit: the radix that price is for", examples=[64]
    )
    unpriced: str | None = Field(
        default=None,
        min_length=1,
        description="no price: why none is given (the system's total cost is then left out)",
        examples=["no public price for an N x N micro-ring WSS"],
    )
    source: str = Field(min_length=1, description="where the numbers come from", examples=["vendor list price, 2025"])

    @model_validator(mode="after")
    def _one_price(self) -> Component:
        if sum(x is not None for x in (self.usd, self.usd_per_port, self.unpriced)) != 1:
            raise ValueError(
                "give exactly one of usd (per unit), usd_per_port (switches) or unpriced (why there is no price), "
                "e.g. usd = 1000"
            )
        if self.watts is not None and self.watts_per_port is not None:
            raise ValueError("give watts (per unit) or watts_per_port, not both")
        return self


class Catalog(Strict):
    """A whole price catalog."""

    name: str = Field(min_length=1, examples=["my-prices"])
    description: str = ""
    port_basis: PortBasis = Field(
        default="used",
        description="switches are paid for by the ports the system uses, or whole (every installed port)",
        examples=["used"],
    )
    packet_switch: Component | None = None
    ocs: Component | None = None
    pcc: Component | None = None
    aot: Component | None = None
    nic: Component | None = None
    wss: Component | None = None
    comb_transceiver: Component | None = None

    def price(self, bom: dict[str, Any]) -> Priced:
        """Cost and power of a bill of materials (as `railx._core` returns it). A component the
        system has and the catalog lacks, or a switch radix the catalog does not price, is a
        ConfigError naming both; one the catalog marks `unpriced` leaves the total out (None)."""
        breakdown: dict[str, float] = {}
        switch_ports: dict[str, dict[str, int]] = {}
        power_w = 0.0
        unpowered: set[str] = set()
        unpriced: dict[str, str] = {}
        for kind, units, ports, radix in _lines(bom):
            comp = self._component(kind)
            if comp.unpriced is not None:
                unpriced[kind] = comp.unpriced
            else:
                usd = self._amount(kind, comp, comp.usd, comp.usd_per_port, units, ports, radix, "usd")
                breakdown[kind] = breakdown.get(kind, 0.0) + usd
            if ports is not None:
                total = switch_ports.setdefault(kind, {"installed": 0, "used": 0})
                for basis in total:
                    total[basis] += ports[basis]
            if comp.watts is None and comp.watts_per_port is None:
                unpowered.add(kind)
            else:
                power_w += self._amount(kind, comp, comp.watts, comp.watts_per_port, units, ports, radix, "watts")
        return Priced(
            cost_usd=None if unpriced else sum(breakdown.values()),
            power_w=None if unpowered else power_w,
            breakdown_usd=breakdown,
            unpriced=unpriced,
            unpowered=sorted(unpowered),
            port_basis=self.port_basis,
            switch_ports=switch_ports,
        )

    def _component(self, kind: str) -> Component:
        comp = getattr(self, kind)
        if comp is None:
            raise ConfigError(
                f"catalog {shown(self.name)}: {kind}: no price, but the system has some; add a [{kind}] table with usd and source"
            )
        return comp

    def _amount(
        self,
        kind: str,
        comp: Component,
        per_unit: float | None,
        per_port: float | None,
        units: int,
        ports: dict[str, int] | None,
        radix: int | None,
        what: str,
    ) -> float:
        """Dollars (or watts) for `units` of a component. A switch is charged per port on the
        catalog's `port_basis`; a per-unit switch price is for the catalog's radix (or any radix
        if it names none): divided by it per port, or per whole switch of that radix only."""
        if ports is None or radix is None:
            if per_port is not None:
                raise ConfigError(
                    f"catalog {shown(self.name)}: {kind}.{what}_per_port: only switches have ports; give {what} per unit"
                )
            return 0.0 if per_unit is None else per_unit * units
        if per_port is not None:
            return per_port * ports[self.port_basis]
        if per_unit is None:  # a per-port price beside per-unit watts, or the reverse
            return 0.0
        unit_radix = comp.radix if comp.radix is not None else radix
        if self.port_basis == "used":
            return per_unit / unit_radix * ports["used"]
        if radix != unit_radix:
            raise ConfigError(
                f"catalog {shown(self.name)}: {kind}.radix = {comp.radix}: the system has {radix}-port switches, bought "
                f"whole under port_basis = 'installed'; price them per port ({what}_per_port), use "
                f"port_basis = 'used' or a catalog for radix {radix}"
            )
        return per_unit * units


def _lines(bom: dict[str, Any]) -> list[tuple[str, int, dict[str, int] | None, int | None]]:
    """(kind, units, ports installed/used, radix) for every component the system has. Ports in
    use: a packet switch uses one per chip link and two per switch-switch link, an OCS two per
    chip-chip optical link, a WSS one per chip fibre link; they are known per kind, so per-radix
    lines share them in proportion to installed ports."""
    used = {
        "packet_switch": bom["chip_switch_links"] + 2 * bom["switch_switch_links"],
        "ocs": 2 * bom["chip_chip_optical_links"] if bom["ocs"] else 0,
        "wss": bom["chip_wss_links"],
    }
    lines: list[tuple[str, int, dict[str, int] | None, int | None]] = []
    for kind in SWITCH_KINDS:
        switches = [s for s in bom[_bom_key(kind)] if s["count"]]
        installed_total = sum(s["radix"] * s["count"] for s in switches)
        for s in switches:
            installed = s["radix"] * s["count"]
            share = round(used[kind] * installed / installed_total)
            lines.append((kind, s["count"], {"installed": installed, "used": share}, s["radix"]))
    for kind, key in (("pcc", "pcc"), ("aot", "aot"), ("nic", "nics"), ("comb_transceiver", "comb_transceivers")):
        if bom[key]:
            lines.append((kind, bom[key], None, None))
    return lines


def _bom_key(kind: str) -> str:
    return "packet_switches" if kind == "packet_switch" else kind


@dataclass(frozen=True)
class Priced:
    """A bill of materials priced: total (None where a part has no price: `unpriced` gives each
    such kind and why), per component kind, and power where every part has watts; the basis
    switches were priced on and their ports installed and used, per switch kind."""

    cost_usd: float | None
    power_w: float | None
    breakdown_usd: dict[str, float]
    unpriced: dict[str, str]
    unpowered: list[str]
    port_basis: PortBasis
    switch_ports: dict[str, dict[str, int]]


def load_catalog(name_or_path: str | Path, port_basis: str | None = None) -> Catalog:
    """A built-in catalog by name (see BUILTIN_CATALOGS) or a TOML file; validated. `port_basis`
    ("used" or "installed"), when given, replaces the catalog's own."""
    path = Path(name_or_path)
    if not path.suffix and str(name_or_path) in BUILTIN_CATALOGS:
        path = CATALOG_DIR / f"{name_or_path}.toml"
    try:
        text = read_text(path, f"catalog = {shown(str(name_or_path))}")
    except ConfigError as exc:
        raise ConfigError(f"{exc}; or use one of the built-in catalogs {', '.join(BUILTIN_CATALOGS)}") from None
    return parse_catalog(text, str(path), port_basis)


def parse_catalog(text: str, source: str, port_basis: str | None = None) -> Catalog:
    """A catalog file's TOML text, validated (see :func:`load_catalog`); errors name `source`."""
    if port_basis is not None and port_basis not in PORT_BASES:
        raise ConfigError(
            f"port_basis = {shown(port_basis)}: not a pricing basis; use {' or '.join(repr(b) for b in PORT_BASES)}"
        )
    data = parse_toml(text, source)
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {one_line_error(exc, Catalog)}") from None
    return catalog if port_basis is None else catalog.model_copy(update={"port_basis": port_basis})
