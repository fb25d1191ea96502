"""Flex-SiPAC (paper 003) through the Python surface: the `flex-sipac-512` preset (SiPAC(8, 3),
60 x 32 Gb/s per CU) under `railx route`, `railx collective` (flow level = routed analytic model
for the ring), `railx cost` (counts, no invented price) and `railx scale` (Fig. 9 rows), and
spec errors as one line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx.config import ConfigError
from railx.cost import scalability
from railx.systems import PRESETS, System


def sipac(**fields: object) -> System:
    peer = {"family": "sipac", "radix": 4, "levels": 2, "wavelengths": 4, "wavelength_rate_Bps": 4e9} | fields
    return System("s", "s", peer=peer)


def test_the_preset_is_the_papers_evaluation_system() -> None:
    preset = PRESETS["flex-sipac-512"]
    bom = preset.bom()
    # N = 8^3 CUs, 3 levels of 8^2 WSS of radix 8, 3 fibre links and one comb transceiver per CU.
    assert (bom["chips"], bom["ports_per_chip"]) == (512, 3)
    assert bom["wss"] == [{"radix": 8, "count": 192}]
    assert (bom["comb_transceivers"], bom["chip_wss_links"]) == (512, 1536)
    # 60 wavelengths x 32 Gb/s = 1,920 Gb/s = 240 GB/s per CU, 20 wavelengths (80 GB/s) per port.
    assert preset.port_bw_Bps * bom["ports_per_chip"] == pytest.approx(240e9)
    assert set(preset.network()["bandwidth_Bps"]) == {80e9}


def test_route_relays_at_cus_through_one_wss_per_differing_digit() -> None:
    result = run_railx("route", "flex-sipac-512", "--from", "0", "--to", "511", "--json")
    assert result.rc == 0, result.stderr
    route = json.loads(result.stdout)
    # 0 = (0,0,0) and 511 = (7,7,7) differ in all three digits: three lightpaths, six links,
    # relayed at CUs 7 = (7,0,0) and 63 = (7,7,0).
    assert route["hops"] == {"Ho": 6, "Hi": 0}
    assert [hop["to"] for hop in route["path"]][1::2] == [7, 63, 511]


def test_ring_all_reduce_at_flow_level_equals_the_routed_analytic_model() -> None:
    times = {}
    for fidelity in ("analytic", "flow"):
        result = run_railx(
            "collective", "flex-sipac-512", "--algo", "ring", "--size", "1MiB", "--fidelity", fidelity,
            "--link-model", "routed", "--json",
        )  # fmt: skip
        assert result.rc == 0, result.stderr
        times[fidelity] = json.loads(result.stdout)["time_s"]
    assert times["flow"] == pytest.approx(times["analytic"], rel=0.01)


def test_cost_counts_the_parts_and_leaves_the_unpriced_total_out() -> None:
    result = run_railx("cost", "flex-sipac-512", "ft2", "--json")
    assert result.rc == 0, result.stderr
    sipac_row, ft2 = json.loads(result.stdout)
    assert (sipac_row["wss"], sipac_row["comb_transceivers"], sipac_row["aot"]) == (192, 512, 0)
    assert sipac_row["cost_usd"] is None and sipac_row["cost_per_inject_rel"] is None
    assert set(sipac_row["unpriced"]) == {"wss", "comb_transceiver"}
    assert ft2["cost_per_inject_rel"] == 1.0
    table = run_railx("cost", "flex-sipac-512", "ft2")
    assert table.rc == 0 and "no public price" in table.stdout
    refused = run_railx("cost", "ft2", "--baseline", "flex-sipac-512")
    assert refused.rc == 2 and "has no total cost" in refused.stderr


def test_scale_rows_follow_fig9() -> None:
    get = {(r["family"], r["variant"], r["radix"]): r["max_chips"] for r in scalability((16, 32, 64))}
    for radix in (16, 32, 64):
        assert get[("sipac", "Flex-SiPAC, 2 levels", radix)] == radix**2
        assert get[("sipac", "Flex-SiPAC, 3 levels", radix)] == radix**3
        assert get[("dgx-h100-superpod", "8-GPU servers, giant NVSwitch", radix)] == 8 * radix
        assert get[("sip-ocs", "flat, OCS radix N", radix)] == radix
    # Paper 003 §4.C: radix 16 and 3 levels give 4,096 CUs; 2 levels meet TPUv4 at r = 32.
    assert get[("sipac", "Flex-SiPAC, 3 levels", 16)] == 4096
    assert get[("sipac", "Flex-SiPAC, 2 levels", 32)] == get[("torus3d", "TPUv4: OCS, 4x4x4 cubes", 32)]
    assert get[("sipac", "Flex-SiPAC, 2 levels", 64)] > get[("torus3d", "TPUv4: OCS, 4x4x4 cubes", 64)]
    result = run_railx("scale", "--radix", "16")
    assert result.rc == 0 and "Flex-SiPAC, 3 levels" in result.stdout and "4,096" in result.stdout


@settings(max_examples=25, deadline=None)
@given(radix=st.integers(2, 6), levels=st.integers(1, 3), per_port=st.integers(1, 8))
def test_ports_carry_the_transceivers_wavelengths(radix: int, levels: int, per_port: int) -> None:
    system = sipac(radix=radix, levels=levels, wavelengths=per_port * levels)
    links = system.network()
    assert system.chips == radix**levels
    assert len(links["src"]) == 2 * levels * radix**levels
    assert set(links["bandwidth_Bps"]) == {per_port * 4e9}
    assert system.port_bw_Bps * levels == pytest.approx(per_port * levels * 4e9)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"radix": 1}, "sipac.radix = 1: a WSS joins at least 2 CUs"),
        ({"levels": 0}, "sipac.levels = 0: must be a positive integer"),
        ({"levels": 3, "wavelengths": 2}, "sipac.wavelengths = 2: the even spread"),
        ({"levels": 3, "wavelengths": 20}, "use wavelengths = 18, or list level_wavelengths"),
        ({"level_wavelengths": [3, 3]}, "sipac.level_wavelengths = [3, 3]: needs one positive count per level"),
        ({"ports": 3}, "unknown field `ports`"),
    ],
)
def test_bad_specs_are_one_line(fields: dict[str, object], expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        sipac(**fields).bom()
    assert expected in str(info.value) and "\n" not in str(info.value)
