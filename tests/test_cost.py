"""Cost model: RailX Table 6 and Rail-only Table II reproduced from components, catalogs and
their errors, figures, scalability, and the `railx cost` / `railx scale` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx.config import ConfigError
from railx.cost import (
    PRESETS,
    compare,
    consistent_hb_domains,
    figures,
    load_catalog,
    relative_to,
    scalability,
    table2,
    table6,
)
from railx.cost.railonly import PAPER_SAVINGS
from railx.cost.table6 import DISCREPANCIES, PAPER

CATALOG = Path(__file__).resolve().parents[1] / "python/railx/cost/catalogs/railx-table6.toml"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return table6()


def test_table6_matches_the_paper_except_the_documented_cells(rows: list[dict]) -> None:
    cells = compare(rows)
    assert len(cells) == 12 * 8
    differing = {(c["row"], c["column"]) for c in cells if not c["match"]}
    assert differing == set(DISCREPANCIES)
    assert all(c["cause"] != "undocumented" for c in cells)


def test_table6_counts_are_exact(rows: list[dict]) -> None:
    by_name = {r["name"]: r for r in rows}
    for name, printed in PAPER.items():
        assert by_name[name]["chips"] == int(printed[0])
        assert by_name[name]["packet_switches"] + by_name[name]["ocs"] == int(printed[1])
    assert by_name["railx7mesh"]["ocs"] == 8064 and by_name["railx7mesh"]["aot"] == 1_032_192
    assert by_name["tpuv4"]["pcc"] == 30_720 and by_name["tpuv4"]["aot"] == 36_864
    # ~$1.3B for 200K chips (paper abstract).
    assert by_name["railx7mesh"]["cost_usd"] == pytest.approx(1314.432e6)


def test_both_global_bandwidth_definitions_are_reported(rows: list[dict]) -> None:
    by_name = {r["name"]: r for r in rows}
    hx4, railx7 = by_name["hx4mesh"], by_name["railx7mesh"]
    assert hx4["global_bw_frac"] == pytest.approx(1 / 8) and hx4["a2a_frac"] == pytest.approx(1 / 4)
    # RailX7Mesh 2D-HyperX: a2a bound 2(r+1)/m^2 ports of 36; bisection ratio half of it.
    assert railx7["a2a_frac"] == pytest.approx(2 * 64 / 49 / 36)
    assert railx7["global_bw_frac"] == pytest.approx(railx7["a2a_frac"] / 2)
    # Under one definition for every row, RailX7Mesh's cost per global bandwidth is HammingMesh's.
    assert railx7["cost_per_a2a_bw_rel"] == pytest.approx(0.444, abs=1e-3)
    assert hx4["cost_per_a2a_bw_rel"] == pytest.approx(0.452, abs=1e-3)


def test_railx4mesh_is_the_single_link_64_by_64_hyperx(rows: list[dict]) -> None:
    railx4 = {r["name"]: r for r in rows}["railx4mesh"]
    axis = PRESETS["railx4mesh"].railx["topology"]["x"]  # type: ignore[index]
    assert axis == [{"size": 64, "kind": "single-link-all-to-all", "rails": 32}]
    # One link per node pair: a cut halving one axis crosses 64 lines x 32 x 32 pairs, two directed
    # links each, over 65,536 chips: 2 ports per chip (of 36) one way, all-to-all bound 4 ports.
    assert railx4["global_bw_frac"] == pytest.approx(2 / 36)
    assert railx4["a2a_frac"] == pytest.approx(4 / 36)
    assert railx4["ocs"] == 4608 and railx4["aot"] == 589_824


def test_relative_figures_use_the_baseline(rows: list[dict]) -> None:
    base = rows[0]
    assert base["name"] == "ft2"
    assert base["cost_per_inject_rel"] == base["cost_per_global_bw_rel"] == 1.0
    for r in rows:
        expected = (r["cost_usd"] / r["chips"]) / (base["cost_usd"] / base["chips"])
        assert r["cost_per_inject_rel"] == pytest.approx(expected)
        assert r["cost_per_global_bw_rel"] == pytest.approx(expected / r["global_bw_frac"])


def test_power_needs_watts_for_every_component(rows: list[dict]) -> None:
    by_name = {r["name"]: r for r in rows}
    # 3456 switches x 64 ports x 18 W + 294,912 AOT x 9 W.
    assert by_name["ft2"]["power_w"] == pytest.approx(3456 * 64 * 18 + 294_912 * 9)
    assert by_name["torus3d"]["power_w"] == pytest.approx(36_864 * 9)
    assert by_name["railx7mesh"]["power_w"] is None and by_name["railx7mesh"]["unpowered"] == ["ocs"]


def test_table2_holds_for_a_256_gpu_hb_domain_only() -> None:
    rows = table2(hb_domain=256)
    assert all(r["match"] for r in rows), [r for r in rows if not r["match"]]
    assert {(r["gpus"], r["radix"]) for r in rows} == set(PAPER_SAVINGS)
    assert min(r["cost_saving_pct"] for r in rows) == pytest.approx(38.29, abs=0.01)
    assert max(r["cost_saving_pct"] for r in rows) == pytest.approx(76.59, abs=0.01)
    assert {round(r["power_saving_pct"], 1) for r in rows} == {37.5, 60.0, 75.0}
    assert consistent_hb_domains() == [256]
    by_key = {(r["gpus"], r["radix"]): r for r in rows}
    assert (by_key[(32768, 64)]["sota_tiers"], by_key[(32768, 64)]["railonly_tiers"]) == (3, 2)
    assert by_key[(32768, 64)]["sota_switches"] == 5 * 32768 // 64


def test_table2_with_installed_ports_breaks_one_row(tmp_path: Path) -> None:
    text = (CATALOG.parent / "railonly.toml").read_text().replace('port_basis = "used"', 'port_basis = "installed"')
    path = tmp_path / "installed.toml"
    path.write_text(text)
    rows = {(r["gpus"], r["radix"]): r for r in table2(catalog=str(path))}
    assert not rows[(32768, 256)]["match"]
    assert rows[(32768, 256)]["cost_saving_pct"] == pytest.approx(37.9, abs=0.1)
    assert sum(r["match"] for r in rows.values()) == 5


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("[aot]", "[aot2]"),
            "aot2: unknown table; valid keys here are name, description, port_basis, packet_switch, ocs, pcc, aot, nic",
        ),
        (("usd = 1000", "usd = -1000"), "aot.usd = -1000"),
        (('source = "RailX (000) §6.2: a passive', 'sauce = "'), "pcc.sauce: unknown key; valid keys here are usd"),
        (('source = "RailX (000) §6.2: a passive', 'sauce = "'), "(did you mean source?)"),
        (('source = "RailX (000) §6.2: a passive', '# "'), "pcc.source: required key is missing"),
        (
            ("usd = 250", "usd = 250\nusd_per_port = 3"),
            "pcc: give exactly one of usd (per unit), usd_per_port (switches) or unpriced",
        ),
        (('port_basis = "used"', 'port_basis = "bought"'), "port_basis = 'bought'"),
        (
            ('port_basis = "used"\n\n[packet_switch]', '\n[packet_switch]\nport_basis = "used"'),
            "packet_switch.port_basis: unknown key",
        ),
    ],
)
def test_bad_catalogs_give_one_line_errors(tmp_path: Path, edit: tuple[str, str], expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(CATALOG.read_text().replace(*edit, 1))
    with pytest.raises(ConfigError) as info:
        load_catalog(path)
    message = str(info.value)
    assert expected in message and "\n" not in message


def test_catalog_must_price_what_the_system_has() -> None:
    railonly = load_catalog("railonly")
    with pytest.raises(ConfigError, match="ocs: no price, but the system has some"):
        figures(PRESETS["railx7mesh"], railonly)
    from railx.systems import System

    wide = System("ft128", "", peer={"family": "fat-tree", "radix": 128, "chips": 4096})
    with pytest.raises(ConfigError, match=r"packet_switch.radix = 64: the system has 128-port switches, bought whole"):
        figures(wide, load_catalog("railx-table6", "installed"))
    # Per used port, any radix is priced from the catalog's 64-port unit.
    used = figures(wide, load_catalog("railx-table6", "used"))
    assert used["cost_breakdown_usd"]["packet_switch"] == pytest.approx(
        used["switch_ports"]["packet_switch"]["used"] * 35000 / 64
    )
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_catalog("no-such-catalog")


def test_scalability_follows_the_closed_forms() -> None:
    rows = scalability((32, 64, 128))
    get = {(r["family"], r["variant"], r["radix"]): r["max_chips"] for r in rows}
    for radix in (32, 64, 128):
        assert get[("fat-tree", "2 tiers, non-blocking", radix)] == 2 * (radix // 2) ** 2
        assert get[("railx", "m = 7", radix)] == (radix // 2) ** 2 * 49  # eq. 1
        assert get[("torus3d", "TPUv4: OCS, 4x4x4 cubes", radix)] == radix // 2 * 64
        assert get[("torus3d", "without OCS", radix)] is None
    assert get[("railx", "m = 7", 128)] > get[("fat-tree", "3 tiers, non-blocking", 64)]


def test_cost_cli_json_rows_carry_the_documented_keys() -> None:
    result = run_railx("cost", "ft2", "railx7mesh", "--json")
    assert result.rc == 0, result.stderr
    out = json.loads(result.stdout)
    keys = {"name", "chips", "packet_switches", "ocs", "pcc", "aot", "cost_usd", "cost_per_inject_rel",
            "global_bw_frac", "cost_per_global_bw_rel", "power_w", "a2a_frac"}  # fmt: skip
    assert all(keys <= set(row) for row in out)
    assert out[1]["ocs"] == 8064 and out[0]["cost_per_inject_rel"] == 1.0


def test_cost_cli_reproductions_and_plots(tmp_path: Path) -> None:
    result = run_railx("cost", "--table6", "--json")
    assert result.rc == 0, result.stderr
    assert len(json.loads(result.stdout)["rows"]) == 12
    result = run_railx("cost", "--railonly-table2", "--json")
    assert result.rc == 0, result.stderr
    assert json.loads(result.stdout)["consistent_hb_domains"] == [256]
    result = run_railx("cost", "--table6")
    assert result.rc == 0 and "83 of 96 cells" in result.stdout
    plot = tmp_path / "cost.svg"
    result = run_railx("cost", "hx4mesh", "railx4mesh", "--plot", plot)
    assert result.rc == 0, result.stderr
    assert plot.read_text().lstrip().startswith("<?xml")
    scale_plot = tmp_path / "scale.png"
    result = run_railx("scale", "--plot", scale_plot, "--radix", "32", "--radix", "64")
    assert result.rc == 0, result.stderr
    assert scale_plot.read_bytes()[:4] == b"\x89PNG"


def test_cost_cli_reads_config_files(tmp_path: Path, examples: Path) -> None:
    peer = tmp_path / "tapered.toml"
    peer.write_text('[peer]\nfamily = "fat-tree"\nradix = 64\ntiers = 2\ntaper = [3]\nchips = 3072\nplanes = 36\n')
    result = run_railx("cost", peer, examples / "hyperx-9x9.toml", "--json")
    assert result.rc == 0, result.stderr
    out = json.loads(result.stdout)
    assert out[0]["packet_switches"] == 2880 and out[0]["global_bw_frac"] == pytest.approx(1 / 3)
    assert out[1]["family"] == "railx" and out[1]["chips"] == 9 * 9 * 16


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("cost", "nope"), "system = 'nope': not a preset or a file"),
        (("cost",), "systems: none given"),
        (("cost", "ft2", "--catalog", "missing.toml"), "catalog = 'missing.toml': cannot read the file"),
    ],
)
def test_cost_cli_bad_input_is_one_line_exit_2(args: tuple[str, ...], expected: str) -> None:
    result = run_railx(*args)
    assert result.rc == 2
    assert result.stderr.startswith("error: ") and expected in result.stderr
    assert result.stderr.count("\n") == 1


def test_relative_to_any_baseline(rows: list[dict]) -> None:
    again = relative_to(rows, rows[7])
    assert again[7]["cost_per_inject_rel"] == 1.0 and again[7]["baseline"] == "railx4mesh"


# Fig. 14's ~1.3K-chip systems (benchmarks/fig14.py), 8 ports per chip.
RAILX_1296 = {
    "system": {"m": 4, "n": 2, "R": 128, "grid": [9, 9], "k": 4},
    "topology": {"preset": "hyperx"},
}
HX4MESH_1296 = {"family": "hammingmesh", "a": 4, "boards": [9, 9], "planes": 2, "radix": 64, "tiers": 1}


def test_a_partly_used_switch_is_paid_for_by_its_used_ports() -> None:
    from railx.systems import System

    railx = System("railx-1296", "", railx=RAILX_1296)
    used, installed = (figures(railx, load_catalog("railx-table6", basis)) for basis in ("used", "installed"))
    # 144 OCS of 128 ports, 18 in use each (2 per chip-chip circuit: 1,296 circuits).
    assert used["ocs"] == 144 and used["switch_ports"]["ocs"] == {"installed": 144 * 128, "used": 144 * 18}
    assert used["cost_breakdown_usd"]["ocs"] == pytest.approx(144 * 18 / 128 * 35000)
    assert installed["cost_breakdown_usd"]["ocs"] == 144 * 35000
    assert used["cost_usd"] == pytest.approx(144 * 18 / 128 * 35000 + 2592 * 1000)
    assert (used["port_basis"], installed["port_basis"]) == ("used", "installed")
    # HammingMesh: 144 64-port line switches with 18 chip links each.
    hx = System("hx-1296", "", peer=HX4MESH_1296)
    hx_used = figures(hx, load_catalog("railx-table6", "used"))
    assert hx_used["cost_breakdown_usd"]["packet_switch"] == pytest.approx(144 * 18 / 64 * 35000)
    assert hx_used["cost_usd"] == pytest.approx(144 * 18 / 64 * 35000 + 5184 * 1000)


@pytest.mark.parametrize("name", list(PAPER))
def test_table6_fills_its_switches_so_both_bases_agree(name: str) -> None:
    used, installed = (figures(PRESETS[name], load_catalog("railx-table6", basis)) for basis in ("used", "installed"))
    for ports in used["switch_ports"].values():
        assert ports["used"] == ports["installed"]
    assert used["cost_usd"] == pytest.approx(installed["cost_usd"], rel=1e-12)


def test_table6_under_installed_ports_is_unchanged() -> None:
    rows = table6(port_basis="installed")
    differing = {(c["row"], c["column"]) for c in compare(rows) if not c["match"]}
    assert differing == set(DISCREPANCIES) and {r["port_basis"] for r in rows} == {"installed"}


_peer_specs = st.one_of(
    st.builds(
        lambda chips, planes: {"family": "fat-tree", "radix": 64, "chips": chips, "planes": planes},
        st.integers(2, 3000),
        st.integers(1, 4),
    ),
    st.builds(
        lambda a, bx, by, planes: {"family": "hammingmesh", "a": a, "boards": [bx, by], "planes": planes, "radix": 64},
        st.integers(2, 4),
        st.integers(2, 12),
        st.integers(2, 12),
        st.integers(1, 3),
    ),
    st.builds(
        lambda x, y, z: {"family": "torus3d", "dims": [x, y, z], "ports_per_direction": 2, "ocs_radix": 128},
        st.sampled_from([4, 8]),
        st.sampled_from([4, 8]),
        st.sampled_from([4, 8, 12]),
    ),
)


@given(spec=st.one_of(_peer_specs, st.builds(lambda p, q: {"railx": (p, q)}, st.integers(2, 20), st.integers(2, 20))))
@settings(max_examples=40, deadline=None)
def test_every_family_is_priced_by_one_rule(spec: dict) -> None:
    from railx.systems import System

    if "railx" in spec:
        p, q = spec["railx"]
        system = System(
            "railx", "", railx={"system": {"m": 4, "n": 2, "R": 128, "grid": [p, q]}, "topology": {"preset": "torus"}}
        )
    else:
        system = System(spec["family"], "", peer=spec)
    used, installed = (figures(system, load_catalog("railx-table6", basis)) for basis in ("used", "installed"))
    unit_radix = {"packet_switch": 64, "ocs": 128}
    per_unit = {"packet_switch": 35000.0, "ocs": 35000.0}
    for kind, ports in used["switch_ports"].items():
        assert 0 <= ports["used"] <= ports["installed"]
        assert used["cost_breakdown_usd"][kind] == pytest.approx(ports["used"] * per_unit[kind] / unit_radix[kind])
        units = installed["packet_switches" if kind == "packet_switch" else "ocs"]
        assert installed["cost_breakdown_usd"][kind] == pytest.approx(units * per_unit[kind])
    others = {k: v for k, v in used["cost_breakdown_usd"].items() if k not in unit_radix}
    assert others == {k: v for k, v in installed["cost_breakdown_usd"].items() if k not in unit_radix}
    assert used["cost_usd"] <= installed["cost_usd"] + 1e-6


def test_cost_cli_names_the_pricing_basis() -> None:
    result = run_railx("cost", "railx4mesh", "--port-basis", "installed", "--json")
    assert result.rc == 0, result.stderr
    assert json.loads(result.stdout)[0]["port_basis"] == "installed"
    result = run_railx("cost", "hx4mesh")
    assert result.rc == 0 and "switches priced per used port" in result.stdout
    result = run_railx("cost", "ft2", "--port-basis", "bought")
    assert result.rc == 2 and "port_basis = 'bought': not a pricing basis; use 'used' or 'installed'" in result.stderr


def test_throughput_per_cost_prices_recorded_results_on_both_bases() -> None:
    from railx.cost import throughput_per_cost
    from railx.systems import System

    systems = {"railx": System("railx", "RailX", railx=RAILX_1296)}
    [row] = throughput_per_cost([{"system": "railx", "chips": 1296, "peak_accepted": 0.5}], systems)
    assert row["cost_usd"] == {"used": pytest.approx(3_300_750), "installed": pytest.approx(7_632_000)}
    assert row["per_musd"]["used"] == pytest.approx(0.5 * 1296 / 3.30075)
    with pytest.raises(ConfigError, match="system = 'nope': not a known system"):
        throughput_per_cost([{"system": "nope", "chips": 1, "peak_accepted": 1.0}], systems)
    with pytest.raises(ConfigError, match="railx.chips = 64: the system has 1296"):
        throughput_per_cost([{"system": "railx", "chips": 64, "peak_accepted": 1.0}], systems)


def test_fig14_hammingmesh_boards_equal_railx_k2_and_its_a2a_bound_is_higher() -> None:
    import numpy as np

    import railx
    from railx.config import Config
    from railx.systems import System

    hx = System("hx-1296", "", peer=HX4MESH_1296)
    net = hx.network()
    board = net["class"] == 0
    pair_bw: dict[tuple[int, int], float] = {}
    for s, d, bw in zip(net["src"][board], net["dst"][board], net["bandwidth_Bps"][board], strict=True):
        pair_bw[(s, d)] = pair_bw.get((s, d), 0.0) + bw
    # Two planes: two 50 GB/s board links between neighbours, RailX's k = 2 mesh link.
    assert set(pair_bw.values()) == {2 * 50e9}
    k2 = railx.realize(Config.from_dict(RAILX_1296 | {"system": RAILX_1296["system"] | {"k": 2}}))
    links = k2.links()
    assert set(np.unique(links["bandwidth_Bps"][links["class"] == 0])) == {2 * 50e9}
    # All-to-all bounds in flits (ports) per cycle per chip: HammingMesh 2.0 (bisection; a board's
    # 32 tree ports give 32 / (16 (1 - 1/81)) = 2.025); RailX 2(r + 1)/m^2 = 1.125 (closed form),
    # 1.235 on the realized network (9 nodes per axis: the balanced cut splits a slab).
    bom = hx.bom()
    assert bom["global"]["a2a_frac"] * bom["ports_per_chip"] == pytest.approx(2.0)
    chip_of_board = (np.arange(1296) // 4 % 9) + 9 * (np.arange(1296) // (36 * 4))
    up = (net["class"] == 3) & (net["src"] < 1296)
    assert set(np.bincount(chip_of_board[net["src"][up]])) == {4 * 4 * 2}
    plan = k2.plan()
    assert plan["closed_form"]["a2a_bound_per_chip"] == pytest.approx(1.125)
    assert plan["a2a_bound_per_chip"] == pytest.approx(100 / 81)
    # One plane halves ports, board links and bound (1.0), and costs RailX's price per used port.
    one = System("hx1", "", peer=HX4MESH_1296 | {"planes": 1})
    assert one.bom()["global"]["a2a_frac"] * one.bom()["ports_per_chip"] == pytest.approx(1.0)
    used = load_catalog("railx-table6", "used")
    assert figures(one, used)["cost_usd"] == pytest.approx(figures(System("r", "", railx=RAILX_1296), used)["cost_usd"])
