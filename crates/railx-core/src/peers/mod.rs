//! Peer topologies that RailX is compared with (docs/cost.md), one file per family. Each gives
//! its [`BillOfMaterials`] by counting (no graph; fast at any scale) and its [`Network`] on
//! demand, refused beyond the resource budget ([`crate::resources`]).
//!
//! A spec arrives as serde data (from the Python layer as JSON), tagged by `family`.

pub mod dragonfly;
pub mod fat_tree;
pub mod graph;
pub mod hammingmesh;
pub mod hb_domain;
pub mod hyperx;
pub mod rail_only;
pub mod rail_optimised;
pub mod sipac;
pub mod torus3d;

use crate::bom::BillOfMaterials;
use crate::closed_form::max_scale;
use crate::collectives::Group;
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network, LINK_BYTES};
use crate::plant::Axis;
use crate::resources::{require, Driver, Estimate};
use crate::sim::flow::{Generator, Symmetry};
use serde::{Deserialize, Serialize};

/// Bytes per directed link of a peer graph: the link's columns. The builders push links one by
/// one; the vectors' growth reserves address space beyond this but touches only what they keep.
const PEER_LINK_BYTES: f64 = LINK_BYTES;

/// Bandwidth and latencies given to the links of a materialised peer graph (SI units).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct LinkSpec {
    /// One port, per direction (default 50e9 B/s = 400 Gb/s).
    #[serde(default = "default_port_bw")]
    pub port_bw_Bps: f64,
    /// Cable, fibre or switch hop (default 300 ns, as RailX's alpha_out).
    #[serde(default = "default_long_latency")]
    pub long_latency_s: f64,
    /// On-board or in-package hop (default 10 ns, as RailX's alpha_in).
    #[serde(default = "default_short_latency")]
    pub short_latency_s: f64,
}

fn default_port_bw() -> f64 {
    50e9
}
fn default_long_latency() -> f64 {
    300e-9
}
fn default_short_latency() -> f64 {
    10e-9
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            port_bw_Bps: default_port_bw(),
            long_latency_s: default_long_latency(),
            short_latency_s: default_short_latency(),
        }
    }
}

impl LinkSpec {
    /// Adds both directions of a full-duplex link: long latency unless it is on a board.
    pub(crate) fn duplex(
        &self,
        net: &mut Network,
        a: u32,
        b: u32,
        class: LinkClass,
        axis: Axis,
        rail: u32,
    ) {
        self.duplex_bw(net, a, b, class, axis, rail, self.port_bw_Bps);
    }

    #[allow(clippy::too_many_arguments, non_snake_case)]
    pub(crate) fn duplex_bw(
        &self,
        net: &mut Network,
        a: u32,
        b: u32,
        class: LinkClass,
        axis: Axis,
        rail: u32,
        bandwidth_Bps: f64,
    ) {
        let latency = if class == LinkClass::IntraNode {
            self.short_latency_s
        } else {
            self.long_latency_s
        };
        net.push_link(a, b, class, bandwidth_Bps, latency, axis, rail);
        net.push_link(b, a, class, bandwidth_Bps, latency, axis, rail);
    }

    fn validate(&self) -> Result<()> {
        for (field, v, hint) in [
            ("link.port_bw_Bps", self.port_bw_Bps, "e.g. 50e9"),
            ("link.long_latency_s", self.long_latency_s, "e.g. 300e-9"),
            ("link.short_latency_s", self.short_latency_s, "e.g. 10e-9"),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(RailxError::invalid(
                    field,
                    v,
                    "must be a finite number > 0",
                    hint,
                ));
            }
        }
        Ok(())
    }
}

/// A peer system, tagged by family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum PeerSpec {
    FatTree(fat_tree::FatTreeSpec),
    RailOnly(rail_only::RailOnlySpec),
    RailOptimised(rail_optimised::RailOptimisedSpec),
    Hammingmesh(hammingmesh::HammingMeshSpec),
    Torus3d(torus3d::Torus3dSpec),
    Hyperx(hyperx::HyperXSpec),
    Dragonfly(dragonfly::DragonflySpec),
    Sipac(sipac::SipacSpec),
    Graph(graph::GraphSpec),
}

/// What every family provides.
pub trait PeerBuilder {
    /// Component counts and global bandwidth, without building the graph.
    fn bom(&self) -> Result<BillOfMaterials>;
    /// The graph; the caller has checked its size.
    fn build(&self) -> Result<Network>;
    fn link(&self) -> &LinkSpec;
    /// Every chip as one collective process group over the built network (`chips` of them):
    /// the high-bandwidth domain's dimensions (`Local`) first, then those that join domains,
    /// each with its kind and axis, ranks numbered as the builder numbers the chips.
    fn collective_group(&self, chips: u32) -> Result<Group>;
    /// A job's chips `cus` as a process group (rank i on `cus[i]`): one fully connected
    /// dimension (what direct and ring schedules need); SiPAC adds its address geometry.
    fn job_group(&self, cus: Vec<u32>, chips: u32) -> Result<Group> {
        Group::line(cus, crate::collectives::DimKind::AllToAll, chips)
    }

    /// Generators of a group of automorphisms of the built network acting freely on its chips
    /// (`sim::flow::Symmetry`), as permutations of the chips (the switches follow, derived and
    /// checked link by link when the group is used), and what its elements are; `None` for a
    /// family that declares none. Aggregated flow-level runs and routed step measurements use it.
    fn symmetry(&self) -> Option<(&'static str, Vec<Generator>)> {
        None
    }
}

impl PeerSpec {
    /// The family name, as the `family` key spells it.
    pub fn family(&self) -> &'static str {
        match self {
            PeerSpec::FatTree(_) => "fat-tree",
            PeerSpec::RailOnly(_) => "rail-only",
            PeerSpec::RailOptimised(_) => "rail-optimised",
            PeerSpec::Hammingmesh(_) => "hammingmesh",
            PeerSpec::Torus3d(_) => "torus3d",
            PeerSpec::Hyperx(_) => "hyperx",
            PeerSpec::Dragonfly(_) => "dragonfly",
            PeerSpec::Sipac(_) => "sipac",
            PeerSpec::Graph(_) => "graph",
        }
    }

    fn builder(&self) -> &dyn PeerBuilder {
        match self {
            PeerSpec::FatTree(s) => s,
            PeerSpec::RailOnly(s) => s,
            PeerSpec::RailOptimised(s) => s,
            PeerSpec::Hammingmesh(s) => s,
            PeerSpec::Torus3d(s) => s,
            PeerSpec::Hyperx(s) => s,
            PeerSpec::Dragonfly(s) => s,
            PeerSpec::Sipac(s) => s,
            PeerSpec::Graph(s) => s,
        }
    }

    /// The family's own checks first (a family may derive its links from its spec).
    pub fn bom(&self) -> Result<BillOfMaterials> {
        let bom = self.builder().bom()?;
        self.builder().link().validate()?;
        Ok(bom)
    }

    /// Every chip as one collective process group (see [`PeerBuilder::collective_group`]).
    pub fn collective_group(&self, chips: u32) -> Result<Group> {
        self.builder().collective_group(chips)
    }

    /// A job's chips as a process group (see [`PeerBuilder::job_group`]).
    pub fn job_group(&self, cus: Vec<u32>, chips: u32) -> Result<Group> {
        self.builder().job_group(cus, chips)
    }

    /// The family's symmetry group over the built network (see [`PeerBuilder::symmetry`]), or
    /// `None` when it declares none.
    pub fn symmetry(&self) -> Result<Option<Symmetry>> {
        match self.builder().symmetry() {
            Some((what, generators)) if !generators.is_empty() => {
                Symmetry::new(what, generators).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Directed links the graph would have (two per full-duplex link of every kind).
    pub fn graph_links(&self) -> Result<u64> {
        Ok(2 * self.bom()?.links())
    }

    /// Memory of materialising the graph: its directed links ([`PeerSpec::graph_links`]).
    pub fn network_estimate(links: u64) -> Estimate {
        Estimate::memory(links as f64 * PEER_LINK_BYTES)
    }

    /// Materialises the graph, after checking it fits the resource budget; a refusal names the
    /// chips (links grow with them) and the most that fit.
    pub fn network(&self) -> Result<Network> {
        let links = self.graph_links()?;
        let chips = self.bom()?.chips;
        let what = format!("building this {} network", self.family());
        require(&what, &[Driver::new("chips", chips, 1)], |v| {
            let share = v[0] / chips.max(1) as f64;
            PeerSpec::network_estimate((links as f64 * share) as u64)
        })?;
        self.builder().build()
    }
}

pub(crate) use crate::error::require_positive as positive;

/// Chip ids must fit 32 bits with room for the switches.
pub(crate) fn check_chips(chips: u64) -> Result<()> {
    if chips > u32::MAX as u64 / 2 {
        return Err(RailxError::invalid(
            "chips",
            chips,
            "railx indexes chips with 32-bit ids",
            "use a smaller system",
        ));
    }
    Ok(())
}

/// Largest switch radix the scalability comparison takes: beyond any switch built, and where
/// every family's chip count stays inside 64 bits (a 2-tier HammingMesh has R^4 a^2 / 64).
pub const MAX_RADIX: u32 = 16_384;

/// One point of the scalability comparison: the largest system of a family for a radix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScaleRow {
    pub family: &'static str,
    /// Which variant of the family ("2 tiers", "m = 4", ...).
    pub variant: String,
    pub radix: u32,
    /// `None` where the family has no limit from the switch radix.
    pub max_chips: Option<u64>,
}

/// Largest system per family and variant for a switch radix (paper Fig. 1, Table 2, eq. 1):
/// fat-trees from their tiers, Rail-only from its rails' Clos and HB domain, HammingMesh from
/// its line fat-trees, TPUv4 from its OCS ((R/2) cubes), RailX from eq. 1 ((R/2)^2 m^2),
/// HyperX and Dragonfly from the best use of the radix; and paper 003's Fig. 9: Flex-SiPAC
/// (r^L), the DGX-H100 SuperPOD (8-GPU servers under one top NVSwitch layer: 8R) and SiP-OCS
/// (N GPUs on OCS of radix N: R). The radix is a packet switch's for packet-switched families,
/// an OCS's for RailX, TPUv4 and SiP-OCS, a WSS's for Flex-SiPAC and the top-layer NVSwitch's
/// for the SuperPOD.
pub fn scalability(radix: u32) -> Result<Vec<ScaleRow>> {
    if !(4..=MAX_RADIX).contains(&radix) || !radix.is_multiple_of(2) {
        return Err(RailxError::invalid(
            "radix",
            radix,
            format!("the scalability comparison needs an even radix in 4..={MAX_RADIX}"),
            "e.g. radix = 64",
        ));
    }
    let row = |family, variant: String, chips| ScaleRow {
        family,
        variant,
        radix,
        max_chips: chips,
    };
    let mut rows = Vec::new();
    for tiers in [2, 3] {
        rows.push(row(
            "fat-tree",
            format!("{tiers} tiers, non-blocking"),
            Some(fat_tree::Clos::max_endpoints(radix, tiers, &[])),
        ));
    }
    rows.push(row(
        "rail-only",
        "K = 8, 2-tier rails".into(),
        Some(8 * fat_tree::Clos::max_endpoints(radix, 2, &[])),
    ));
    for (a, tiers) in [(4, 1), (4, 2)] {
        rows.push(row(
            "hammingmesh",
            format!("Hx{a}Mesh, {tiers}-tier planes"),
            Some(hammingmesh::max_chips(a, radix, tiers)),
        ));
    }
    rows.push(row("torus3d", "without OCS".into(), None));
    rows.push(row(
        "torus3d",
        "TPUv4: OCS, 4x4x4 cubes".into(),
        Some(torus3d::max_chips_with_ocs(radix, 4)),
    ));
    rows.push(row(
        "hyperx",
        "2D".into(),
        Some(hyperx::max_chips_2d(radix)),
    ));
    rows.push(row(
        "dragonfly",
        "balanced".into(),
        Some(dragonfly::max_chips(radix)),
    ));
    for levels in [2, 3] {
        rows.push(row(
            "sipac",
            format!("Flex-SiPAC, {levels} levels"),
            Some(sipac::cus(radix, levels)),
        ));
    }
    rows.push(row(
        "dgx-h100-superpod",
        "8-GPU servers, giant NVSwitch".into(),
        Some(8 * radix as u64),
    ));
    rows.push(row(
        "sip-ocs",
        "flat, OCS radix N".into(),
        Some(radix as u64),
    ));
    for m in [4, 7] {
        rows.push(row(
            "railx",
            format!("m = {m}"),
            Some(max_scale(m, 1, radix)?[0].chips),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_by_family_and_reject_unknown_keys() {
        let spec: PeerSpec = serde_json::from_str(
            r#"{"family": "fat-tree", "radix": 64, "tiers": 2, "chips": 2048, "planes": 36}"#,
        )
        .unwrap();
        assert_eq!(spec.bom().unwrap().packet_switch_count(), 3456);
        let err = serde_json::from_str::<PeerSpec>(
            r#"{"family": "fat-tree", "radix": 64, "chips": 2048, "colour": 1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
    }

    #[test]
    fn scalability_matches_known_closed_forms() {
        let max_chips = |radix: u32, family: &str, variant: &str| {
            scalability(radix)
                .unwrap()
                .into_iter()
                .find(|r| r.family == family && r.variant.starts_with(variant))
                .unwrap()
                .max_chips
        };
        assert_eq!(max_chips(64, "fat-tree", "2 tiers"), Some(2048));
        assert_eq!(max_chips(64, "hammingmesh", "Hx4Mesh, 1"), Some(16_384));
        assert_eq!(max_chips(128, "torus3d", "TPUv4"), Some(4096));
        assert_eq!(max_chips(128, "railx", "m = 7"), Some(200_704));
        // Paper 003 Fig. 9 and §4.C: a radix-16 WSS gives 256 CUs in 2 levels, 4,096 in 3;
        // 2 levels overtake TPUv4 (32R) past R = 32.
        assert_eq!(max_chips(16, "sipac", "Flex-SiPAC, 2"), Some(256));
        assert_eq!(max_chips(16, "sipac", "Flex-SiPAC, 3"), Some(4096));
        assert_eq!(
            max_chips(32, "sipac", "Flex-SiPAC, 2"),
            max_chips(32, "torus3d", "TPUv4")
        );
        assert_eq!(max_chips(64, "dgx-h100-superpod", ""), Some(512));
        assert_eq!(max_chips(64, "sip-ocs", ""), Some(64));
        assert!(scalability(7).is_err());
    }
}
