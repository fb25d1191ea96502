//! Rail-optimised (paper 002 §II-B, Fig. 1; the "state of the art" Rail-only is compared with):
//! HB domains of K chips ([`HbDomain`]) and ONE full-bisection folded Clos over every chip's NIC,
//! its leaves filled rail by rail (the chips of one local rank, across domains, on the same leaf
//! switches: "rail switches"), its upper tiers joining the rails. Chips of one domain talk over
//! the HB domain, every other pair straight through the Clos; Rail-only is the same HB domains
//! with one separate Clos per rail instead (`rail_only.rs`).

use super::fat_tree::Clos;
use super::hb_domain::{HbDomain, HbModel};
use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::Result;
use crate::network::Network;
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RailOptimisedSpec {
    pub radix: u32,
    /// Chips per HB domain (K); 1 = none.
    #[serde(default = "super::hb_domain::one_chip")]
    pub hb_domain: u32,
    /// HB bandwidth per chip and direction, in network ports.
    #[serde(default)]
    pub hb_ports_per_chip: f64,
    /// How the HB domain joins its chips: `full-mesh` (default) or `switch`.
    #[serde(default)]
    pub hb_model: HbModel,
    /// HB domains (the chips are `hb_domain * domains`).
    pub domains: u32,
    /// Tiers of the Clos; `None` = the fewest non-blocking tiers that take every chip.
    #[serde(default)]
    pub tiers: Option<u32>,
    #[serde(default)]
    pub link: LinkSpec,
}

impl RailOptimisedSpec {
    pub fn hb(&self) -> HbDomain {
        HbDomain {
            k: self.hb_domain,
            model: self.hb_model,
            ports_per_chip: self.hb_ports_per_chip,
        }
    }

    pub fn chips(&self) -> u64 {
        self.hb_domain as u64 * self.domains as u64
    }

    /// The one non-blocking Clos over every chip, validated.
    fn clos(&self) -> Result<Clos> {
        self.hb().validate("rail_optimised")?;
        positive("rail_optimised.domains", self.domains, "e.g. domains = 16")?;
        check_chips(self.chips())?;
        let tiers = self
            .tiers
            .unwrap_or_else(|| Clos::min_tiers(self.chips(), self.radix));
        Clos::new("rail_optimised", self.chips(), self.radix, tiers, &[])
    }

    /// The chips in leaf order: rail (local rank) by rail, each rail's domains in order.
    fn rail_major(&self) -> Vec<u32> {
        let (k, domains) = (self.hb_domain, self.domains);
        (0..k)
            .flat_map(|rank| (0..domains).map(move |d| d * k + rank))
            .collect()
    }
}

impl PeerBuilder for RailOptimisedSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        let clos = self.clos()?;
        let chips = self.chips();
        let hb = self.hb();
        let mut packet_switches = Vec::new();
        add_switches(&mut packet_switches, self.radix, clos.switch_count());
        let mut hb_switches = Vec::new();
        add_switches(&mut hb_switches, self.hb_domain, hb.switches(chips));
        // Every pair of chips has the Clos; a cut keeping the domains whole crosses only it.
        Ok(BillOfMaterials::switched(Switched {
            family: "rail-optimised",
            chips,
            ports_per_chip: 1,
            packet_switches,
            hb_switches,
            switch_tiers: clos.switches.len() as u32,
            chip_switch_links: clos.links[0],
            switch_switch_links: clos.switch_links(),
            board_links: hb.board_links(chips),
            global: GlobalBandwidth::new(
                chips,
                1,
                chips as f64 / 2.0 * clos.bisection_frac(),
                clos.a2a_bottleneck(),
            ),
        }))
    }

    fn build(&self) -> Result<Network> {
        let clos = self.clos()?;
        let chips = self.chips() as u32;
        let mut net = Network::with_capacity(None, chips, 0);
        self.hb().build(&mut net, chips, &self.link);
        clos.build(&mut net, &self.rail_major(), &self.link, Axis::X, 0);
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// The HB domain (local), then the domains, fully connected through the Clos.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        Group::numbered(
            vec![
                GroupDim::new(self.hb_domain, DimKind::Local, Axis::X),
                GroupDim::new(self.domains, DimKind::AllToAll, Axis::X),
            ],
            chips,
        )
    }
}
