"""Rail-only against its rail-optimised baseline (paper 002 §III-IV): the platform presets, HB
domains as switches, eq. 1-3 against hand-computed cases, the slow-down derived from the presets,
the same all-to-all schedules at flow level equal to the equations, deadlock-free routes on both
networks, and bad input as one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_railx
from railx.collectives.commands import collective_report
from railx.collectives.railonly import (
    PAPER_SLOWDOWN,
    forwarding_slowdown,
    hierarchical_all_gather_time_s,
    rail_only_all_to_all_time_s,
    rail_optimised_all_to_all_time_s,
    slowdown_rows,
)
from railx.config import ConfigError
from railx.cost.railonly import clos_30k_anchor, switch_ratio, table2
from railx.platforms import PLATFORMS, expand_platform, platform_peer
from railx.routing import check_deadlock, route
from railx.systems import PRESETS, System, resolve_system


def test_platform_presets_state_per_gpu_bandwidths_per_direction() -> None:
    # (K, HB GB/s, NIC Gb/s) per GPU and direction: datasheets and paper 002 §II-A.
    expected = {
        "dgx-a100": (8, 300, 200),
        "dgx-h100": (8, 450, 400),
        "dgx-gh200": (256, 450, 400),
        "gb200-nvl72": (72, 900, 400),
        "gb300-nvl72": (72, 900, 800),
    }
    for name, (k, hb_GBps, nic_Gbps) in expected.items():
        p = PLATFORMS[name]
        assert (p.gpus_per_domain, p.hb_Bps / 1e9, p.nic_Bps * 8 / 1e9) == (k, hb_GBps, nic_Gbps)
        assert p.source
    assert PLATFORMS["dgx-a100"].hb_ports_per_gpu == 12
    assert PLATFORMS["dgx-h100"].hb_ports_per_gpu == 9


def test_equations_match_hand_computed_cases() -> None:
    # x = 2 GPUs per domain, y = 3 domains, C_F = 10, C_S = 1 (bytes/s), D = 6 bytes.
    x, y, cf, cs, d = 2, 3, 10.0, 1.0, 6.0
    # eq. 1: (y-1) D/(x y C_S) + (x-1) D/(x C_F) = 12/6 + 6/20
    assert hierarchical_all_gather_time_s(d, x, y, cf, cs) == pytest.approx(2.3)
    # eq. 2: max((x-1) D/C_F, x (y-1) D/C_S) = max(0.6, 24)
    assert rail_optimised_all_to_all_time_s(d, x, y, cf, cs) == pytest.approx(24.0)
    # eq. 3: x (y-1) D/C_S + y (x-1) D/C_F = 24 + 1.8
    assert rail_only_all_to_all_time_s(d, x, y, cf, cs) == pytest.approx(25.8)
    assert forwarding_slowdown(x, y, cf, cs) == pytest.approx(1.8 / 24)
    # When the HB domain is the slower side, eq. 2 is its term.
    assert rail_optimised_all_to_all_time_s(d, 8, 2, 1.0, 100.0) == pytest.approx(7 * 6.0)


def test_slowdown_follows_from_the_presets_not_the_printed_numbers() -> None:
    rows = {r["platform"]: r for r in slowdown_rows(domains=8)}
    for name, row in rows.items():
        p = PLATFORMS[name]
        # y (x-1) = x (y-1) at x = y = 8: eq. 3 / eq. 2 - 1 is exactly C_S / C_F.
        assert row["analytic"] == pytest.approx(p.nic_Bps / p.hb_Bps)
        # The paper's 8.2% / 11.2% are within 0.15 points of it, on either side.
        assert abs(row["analytic"] - PAPER_SLOWDOWN[name]) < 0.0015
    assert rows["dgx-a100"]["analytic"] == pytest.approx(1 / 12)
    assert rows["dgx-h100"]["analytic"] == pytest.approx(1 / 9)


@pytest.mark.parametrize("platform", ["dgx-a100", "dgx-h100"])
def test_flow_level_all_to_all_equals_eq_2_and_3(platform: str) -> None:
    """The schedules are contention-free on these networks, so the flow level equals the
    equations plus at most the hop latencies of a path (eq. 2-3 price bandwidth only): 4 x 300 ns
    up and down the rail-optimised 2-tier Clos, 2 x 300 ns + 2 x 10 ns per two-step step."""
    p, y, pair = PLATFORMS[platform], 16, 128 << 10
    size = pair * p.gpus_per_domain * y
    eq2 = rail_optimised_all_to_all_time_s(pair, p.gpus_per_domain, y, p.hb_Bps, p.nic_Bps)
    eq3 = rail_only_all_to_all_time_s(pair, p.gpus_per_domain, y, p.hb_Bps, p.nic_Bps)
    only, opt = PRESETS[f"railonly-{platform}"], PRESETS[f"railopt-{platform}"]
    flow = {
        (s.name, algo): collective_report(s, "all-to-all", algo, size, "flow")["time_s"]
        for s in (only, opt)
        for algo in ("two-step", "direct")
    }
    latency_s = 1.25e-6
    assert eq3 <= flow[(only.name, "two-step")] <= eq3 + latency_s
    assert eq2 <= flow[(opt.name, "direct")] <= eq2 + latency_s
    # Forwarding by routing (one message per pair, pipelined through the HB domain) costs
    # nothing at flow level here: the HB uplink carries y (x-1) D, less than the NIC's x (y-1) D.
    assert eq2 <= flow[(only.name, "direct")] <= eq2 + latency_s
    # Two-step on the rail-optimised network is eq. 3 as well (the same two steps).
    assert eq3 <= flow[(opt.name, "two-step")] <= eq3 + latency_s
    # The analytic model on the routed network agrees with both.
    routed = collective_report(only, "all-to-all", "two-step", size)["time_s"]
    assert routed == pytest.approx(flow[(only.name, "two-step")], rel=1e-9)


@pytest.mark.parametrize("network", ["railonly", "railopt"])
def test_flow_level_all_gather_equals_eq_1(network: str) -> None:
    """railx's `direct` all-gather gathers over the rails, then inside the HB domain (a
    bidirectional ring there), the data of eq. 1; the flow level adds the hop latencies: 2 x 300
    ns on the rail, 7 ring steps of 2 x 10 ns through the HB switch (0.74 us)."""
    p, volume = PLATFORMS["dgx-h100"], 128 << 20
    eq1 = hierarchical_all_gather_time_s(volume, 8, 16, p.hb_Bps, p.nic_Bps)
    flow = collective_report(PRESETS[f"{network}-dgx-h100"], "all-gather", "direct", volume, "flow")["time_s"]
    assert eq1 <= flow <= eq1 + 0.75e-6


def test_full_mesh_and_switch_hb_models_give_the_same_all_to_all() -> None:
    """An all-to-all spreads evenly over a full mesh's pair links, so both HB models carry it at
    the per-GPU HB rate; a single pair differs (1/(K-1) of it on the mesh)."""
    peer = platform_peer("dgx-h100", 4, "rail-only")
    mesh = System("mesh", "mesh", peer=peer | {"hb_model": "full-mesh"})
    switch = System("switch", "switch", peer=peer)
    size = 32 * (64 << 10)
    t = [collective_report(s, "all-to-all", "two-step", size, "flow")["time_s"] for s in (mesh, switch)]
    assert t[0] == pytest.approx(t[1], rel=1e-3)
    assert mesh.bom()["board_links"] == 4 * 28 and switch.bom()["board_links"] == 32
    assert switch.bom()["hb_switches"] == [{"radix": 8, "count": 4}]


@pytest.mark.parametrize("network,algo", [("rail-optimised", "direct"), ("rail-only", "two-step")])
def test_flit_level_all_to_all_has_no_incast_loss(network: str, algo: str) -> None:
    """The direct and two-step schedules send in shifted order (step t to the translate by t,
    digit by digit), so at every step every GPU has its own destination, also among the messages
    that leave the HB domain: at flit level the all-to-all keeps within 1% of the flow level (rank
    order: 1.45 and 1.15, shifted modulo the group: 1.40 and 1.00; docs/reproductions.md)."""
    system = System("x", "x", peer=platform_peer("dgx-h100", 4, network))
    size = 32 * (32 << 10)
    flow = collective_report(system, "all-to-all", algo, size, "flow")["time_s"]
    flit = collective_report(system, "all-to-all", algo, size, "flit")["time_s"]
    assert flow <= flit <= 1.01 * flow


def test_flit_level_forwarding_slowdown_has_the_flow_levels_sign_and_size() -> None:
    """Without the incast the flit level reproduces eq. 3 / eq. 2 - 1 as the flow level does (4
    domains of 8 DGX H100, 32 KiB per pair: flow 12.61%, flit 12.77%; it was -10.40% in rank order)."""
    kwargs = {"platforms": ("dgx-h100",), "domains": 4, "pair_bytes": 32 << 10}
    (flow,) = slowdown_rows(fidelity="flow", **kwargs)
    (flit,) = slowdown_rows(fidelity="flit", **kwargs)
    assert flit["simulated"] == pytest.approx(flow["simulated"], abs=0.01)
    assert flit["simulated_direct"] == pytest.approx(0.0, abs=0.01)


@pytest.mark.parametrize("network", ["rail-only", "rail-optimised"])
@pytest.mark.parametrize("hb_model", ["switch", "full-mesh"])
def test_routes_are_deadlock_free_and_forward_only_on_rail_only(network: str, hb_model: str) -> None:
    system = System("x", "x", peer=platform_peer("dgx-a100", 4, network) | {"hb_model": hb_model})
    report = check_deadlock(system)
    assert report["acyclic"] and report["vcs_used"] == 1
    # GPU 1 of domain 0 to GPU 3 of domain 2: Rail-only crosses the HB domain first.
    path = route(system, 1, 2 * 8 + 3)["path"]
    hb_hops = [h for h in path if not h["external"]]
    if network == "rail-only":
        assert len(hb_hops) == (2 if hb_model == "switch" else 1) and path[0] == hb_hops[0]
    else:
        assert hb_hops == []


@settings(max_examples=25, deadline=None)
@given(platform=st.sampled_from(sorted(PLATFORMS)), domains=st.integers(1, 40), optimised=st.booleans())
def test_platform_files_expand_to_their_counts(platform: str, domains: int, optimised: bool) -> None:
    p = PLATFORMS[platform]
    family = "rail-optimised" if optimised else "rail-only"
    spec = expand_platform({"family": family, "platform": platform, "gpus": domains * p.gpus_per_domain})
    bom = System("x", "x", peer=spec).bom()
    assert bom["chips"] == domains * p.gpus_per_domain
    assert bom["hb_switches"] == ([{"radix": p.gpus_per_domain, "count": domains}])
    assert bom["board_links"] == bom["chips"] and bom["chip_switch_links"] == bom["chips"]


def test_platform_peer_files_work_with_every_command(tmp_path: Path) -> None:
    path = tmp_path / "h100.toml"
    path.write_text('[peer]\nfamily = "rail-optimised"\nplatform = "dgx-h100"\ngpus = 64\n')
    system = resolve_system(str(path))
    assert system.bom()["chips"] == 64
    out = run_railx("collective", str(path), "--op", "all-to-all", "--algo", "direct", "--size", "1MiB", "--json")
    assert out.rc == 0, out.stderr
    out = run_railx("route", "railonly-dgx-h100", "--from", "0", "--to", "100")
    assert out.rc == 0, out.stderr
    out = run_railx("route", str(path), "--check-deadlock")
    assert out.rc == 0 and "acyclic" in out.stdout.lower(), out.stderr
    out = run_railx("cost", "railonly-dgx-h100", "railopt-dgx-h100", "--json")
    assert out.rc == 0, out.stderr


@pytest.mark.parametrize(
    ("peer", "message"),
    [
        ({"platform": "dgx-b300", "domains": 4}, "platform = 'dgx-b300': unknown platform; use one of dgx-a100"),
        ({"platform": "dgx-h100", "gpus": 100}, "peer.gpus = 100: must be a positive multiple of dgx-h100's"),
        ({"platform": "dgx-h100", "domains": 4, "hb_domain": 4}, "peer.hb_domain: set by platform"),
        ({"platform": "dgx-h100"}, "give the size as domains (HB domains) or gpus"),
        ({"family": "fat-tree", "platform": "dgx-h100", "domains": 2}, "family = 'fat-tree'"),
    ],
)
def test_bad_platform_input_is_one_line(peer: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        expand_platform({"family": "rail-only"} | peer)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_bad_platform_file_is_one_line_at_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[peer]\nfamily = "rail-only"\nplatform = "dgx-h100"\ngpus = 100\n')
    out = run_railx("collective", str(path), "--op", "all-to-all", "--algo", "two-step", "--size", "1MiB")
    assert out.rc == 2
    assert "gpus = 100" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    with pytest.raises(ConfigError, match='hb_model = "crossbar": an HB domain is a full mesh or a switch'):
        System("x", "x", peer=platform_peer("dgx-h100", 2) | {"hb_model": "crossbar"}).bom()


def test_table2_sota_is_the_rail_optimised_peer_and_still_matches() -> None:
    rows = table2(hb_domain=256)
    assert all(r["match"] for r in rows)


def test_three_quarters_of_the_switches_is_three_fifths_by_the_closed_form() -> None:
    # (2L-1) N/R switches for a filled L-tier Clos: 5N/64 against 3N/64 at radix 64.
    for gpus in (32768, 65536):
        r = switch_ratio(gpus, 64)
        assert (r["sota_switches"], r["railonly_switches"]) == (5 * gpus // 64, 3 * gpus // 64)
        assert r["ratio"] == r["closed_form"] == pytest.approx(0.6)


def test_the_30k_gpu_anchor_is_outside_table_ii_prices() -> None:
    a = clos_30k_anchor()
    # 3 tiers at radix 64: 5 switch ports and 6 transceivers per GPU.
    assert a["tiers"] == 3
    assert a["cost_usd"] == pytest.approx(30000 * (5 * 694 + 6 * 199), rel=1e-3)
    assert a["power_w"] == pytest.approx(30000 * (5 * 18 + 6 * 9), rel=1e-3)
    low, high = a["usd_per_w_range"]
    assert (low, high) == (pytest.approx(199 / 9), pytest.approx(694 / 18))
    assert a["paper_usd_per_w"] > high
