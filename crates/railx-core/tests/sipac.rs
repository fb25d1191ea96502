//! SiPAC / Flex-SiPAC (paper 003 §3.A): counts against the hand-derived closed forms (N = r^L
//! CUs, r^(L-1) WSS per level, L ports per CU, N L fibre links, diameter L WSS hops) over r in
//! 2..=16 and L in 1..=4; the built graph against them; digit-order routing (every pair in as many
//! WSS hops as address digits differ, at most L, as short as a breadth-first search, acyclic
//! channel dependencies); the link bandwidths of the wavelength split; one-line errors.

mod common;

use proptest::prelude::*;
use railx_core::collectives::DimKind;
use railx_core::peers::PeerSpec;
use railx_core::routing::analysis::route;
use railx_core::routing::deadlock::exhaustive;
use railx_core::routing::peer::for_peer;
use serde_json::json;

fn spec(radix: u32, levels: u32, wavelengths: u32) -> PeerSpec {
    serde_json::from_value(json!({
        "family": "sipac", "radix": radix, "levels": levels,
        "wavelengths": wavelengths, "wavelength_rate_Bps": 4e9,
    }))
    .unwrap()
}

/// Address digits (base r, L of them) in which two CUs differ.
fn differing_digits(r: u32, levels: u32, a: u32, b: u32) -> u32 {
    (0..levels)
        .filter(|&l| a / r.pow(l) % r != b / r.pow(l) % r)
        .count() as u32
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn counts_follow_the_closed_forms(r in 2u32..=16, levels in 1u32..=4, per_port in 1u32..=20) {
        let bom = spec(r, levels, per_port * levels).bom().unwrap();
        let n = (r as u64).pow(levels);
        prop_assert_eq!(bom.chips, n);
        prop_assert_eq!(bom.ports_per_chip, levels);
        prop_assert_eq!(bom.wss.len(), 1);
        prop_assert_eq!(bom.wss[0].radix, r);
        prop_assert_eq!(bom.wss[0].count, levels as u64 * (r as u64).pow(levels - 1));
        prop_assert_eq!(bom.chip_wss_links, n * levels as u64);
        prop_assert_eq!(bom.comb_transceivers, n);
        prop_assert_eq!((bom.aot, bom.packet_switch_count(), bom.ocs_count()), (0, 0, 0));
        // The top-digit cut: floor(r/2) CUs of each top-level WSS across it, each one port.
        prop_assert_eq!(bom.global.bisection_ports, (n / r as u64 * (r / 2) as u64) as f64);
    }

    #[test]
    fn the_graph_matches_the_counts_and_its_diameter_is_l(r in 2u32..=8, levels in 1u32..=4) {
        prop_assume!((r as u64).pow(levels) <= 512);
        let spec = spec(r, levels, 2 * levels);
        let bom = spec.bom().unwrap();
        let net = spec.network().unwrap();
        prop_assert_eq!(net.chip_count as u64, bom.chips);
        prop_assert_eq!(net.switch_radix.len() as u64, bom.wss[0].count);
        prop_assert!(net.switch_radix.iter().all(|&x| x == r));
        prop_assert_eq!(net.links() as u64, 2 * bom.links());
        // Every CU-WSS link carries its level's w/L wavelengths at 4e9 B/s.
        prop_assert!(net.bandwidth_Bps.iter().all(|&b| b == 2.0 * 4e9));
        // Each WSS joins r CUs that differ only in its level's digit.
        let n = net.chip_count;
        for wss in n..net.vertices() {
            let cus: Vec<u32> = (0..net.links()).filter(|&l| net.src[l] == wss).map(|l| net.dst[l]).collect();
            prop_assert_eq!(cus.len() as u32, r);
            prop_assert!(cus.iter().all(|&c| differing_digits(r, levels, c, cus[0]) <= 1));
        }
        // Diameter (paper 003 §3.A): L WSS hops between CUs, two links each.
        let far = (0..n).map(|src| common::bfs(&net, src)[..n as usize].iter().copied().max().unwrap()).max().unwrap();
        prop_assert_eq!(far, 2 * levels);
    }
}

#[test]
fn digit_order_routes_every_pair_in_its_differing_digits_and_is_deadlock_free() {
    for (r, levels) in [(2, 1), (2, 4), (3, 3), (4, 2), (5, 2), (8, 2), (4, 3)] {
        let spec = spec(r, levels, levels);
        let net = spec.network().unwrap();
        let routing = for_peer(&spec, &net, None).unwrap();
        assert_eq!(routing.name(), "digit-order");
        let n = net.chip_count;
        for src in 0..n {
            let shortest = common::bfs(&net, src);
            for dst in (0..n).filter(|&d| d != src) {
                let path = route(routing.as_ref(), src, dst).unwrap();
                let digits = differing_digits(r, levels, src, dst);
                // One lightpath (CU -> WSS -> CU) per corrected digit; at most L of them.
                assert_eq!(path.len() as u32, 2 * digits, "{src} -> {dst}");
                assert!(digits <= levels);
                assert_eq!(path.len() as u32, shortest[dst as usize]);
                assert_eq!(net.dst[path.last().unwrap().link as usize], dst);
                // Relays are CUs: every other vertex on the path is a WSS of a rising level.
                let levels_used: Vec<u32> = path
                    .iter()
                    .step_by(2)
                    .map(|h| (net.dst[h.link as usize] - n) / (n / r))
                    .collect();
                assert!(
                    levels_used.windows(2).all(|w| w[0] < w[1]),
                    "{levels_used:?}"
                );
            }
        }
        let report = exhaustive(routing.as_ref()).unwrap();
        assert!(report.acyclic, "SiPAC({r}, {levels}): {:?}", report.cycle);
        assert_eq!(
            (report.vcs_used, report.pairs),
            (1, n as u64 * (n as u64 - 1))
        );
    }
}

#[test]
fn a_level_split_sets_each_levels_port_bandwidth_and_the_group_is_l_all_to_all_dims() {
    let spec: PeerSpec = serde_json::from_value(json!({
        "family": "sipac", "radix": 4, "levels": 3, "wavelengths": 60,
        "wavelength_rate_Bps": 4e9, "level_wavelengths": [40, 10, 10],
    }))
    .unwrap();
    let net = spec.network().unwrap();
    for l in 0..net.links() {
        let expected = if net.rail[l] == 0 { 40.0 } else { 10.0 } * 4e9;
        assert_eq!(net.bandwidth_Bps[l], expected);
    }
    // Uniform traffic is held by the thinnest level: 10 of a mean port's 20 wavelengths, times
    // r / (r - 1); injection is 3 mean ports.
    let bom = spec.bom().unwrap();
    assert!((bom.global.a2a_frac - 0.5 * 4.0 / 3.0 / 3.0).abs() < 1e-12);
    let group = spec.collective_group(net.chip_count).unwrap();
    assert_eq!(group.dims().len(), 3);
    assert!(group
        .dims()
        .iter()
        .all(|d| d.size == 4 && d.kind == DimKind::AllToAll));
}

#[test]
fn bad_input_is_one_line_naming_the_field() {
    let cases = [
        (
            json!({"radix": 1, "levels": 2, "wavelengths": 4}),
            "sipac.radix",
        ),
        (
            json!({"radix": 4, "levels": 0, "wavelengths": 4}),
            "sipac.levels",
        ),
        (
            json!({"radix": 4, "levels": 3, "wavelengths": 2}),
            "sipac.wavelengths",
        ),
        (
            json!({"radix": 4, "levels": 3, "wavelengths": 61}),
            "sipac.wavelengths",
        ),
        (
            json!({"radix": 4, "levels": 3, "wavelengths": 60, "level_wavelengths": [30, 30]}),
            "sipac.level_wavelengths",
        ),
        (
            json!({"radix": 4, "levels": 2, "wavelengths": 60, "level_wavelengths": [30, 31]}),
            "sipac.level_wavelengths",
        ),
        (
            json!({"radix": 4, "levels": 2, "wavelengths": 60, "wavelength_rate_Bps": 0.0}),
            "sipac.wavelength_rate_Bps",
        ),
        (
            json!({"radix": 4, "levels": 20, "wavelengths": 20}),
            "sipac.levels",
        ),
    ];
    for (fields, field) in cases {
        let mut value = json!({"family": "sipac", "wavelength_rate_Bps": 4e9});
        value
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let spec: PeerSpec = serde_json::from_value(value).unwrap();
        let err = spec.bom().unwrap_err().to_string();
        assert!(err.starts_with(field), "{err}");
        assert!(!err.contains('\n'), "{err}");
        assert!(err.contains("use") || err.contains("e.g."), "{err}");
    }
    let err = serde_json::from_value::<PeerSpec>(json!({
        "family": "sipac", "radix": 4, "levels": 2, "wavelengths": 4,
        "wavelength_rate_Bps": 4e9, "ports": 3,
    }))
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown field `ports`"), "{err}");
}
