//! Rail-only (paper 002): high-bandwidth (HB) domains of K chips (NVLink class, priced with the
//! chips; a full mesh or a switch, [`HbDomain`]), and a separate minimum-tier non-blocking Clos
//! per rail. The
//! general form is a grid: `dims` lists the rail dimensions, each a line of `size` chips (or HB
//! domains) joined by `rails` independent Clos planes. Rail-only proper is one dimension of
//! `chips / K` with one rail per NIC port; RailX's "2D fat-tree" is two dimensions with no HB
//! domain. Cross-rail traffic is forwarded through the HB domain (or the other dimension).

use super::fat_tree::Clos;
use super::hb_domain::{HbDomain, HbModel};
use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::plant::Axis;
use crate::sim::flow::Generator;
use serde::{Deserialize, Serialize};

/// One rail dimension: lines of `size` members, each line joined by `rails` Clos planes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RailDim {
    pub size: u32,
    pub rails: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RailOnlySpec {
    pub radix: u32,
    /// Chips per HB domain (K); 1 = none.
    #[serde(default = "super::hb_domain::one_chip")]
    pub hb_domain: u32,
    /// HB bandwidth per chip and direction, in units of one network port (e.g. 9 for 3.6 Tb/s
    /// vs 400 Gb/s).
    #[serde(default)]
    pub hb_ports_per_chip: f64,
    /// How the HB domain joins its chips: `full-mesh` (default) or `switch` (NVSwitch).
    #[serde(default)]
    pub hb_model: HbModel,
    pub dims: Vec<RailDim>,
    #[serde(default)]
    pub link: LinkSpec,
}

impl RailOnlySpec {
    pub fn hb(&self) -> HbDomain {
        HbDomain {
            k: self.hb_domain,
            model: self.hb_model,
            ports_per_chip: self.hb_ports_per_chip,
        }
    }

    fn chips(&self) -> u64 {
        self.hb_domain as u64 * self.dims.iter().map(|d| d.size as u64).product::<u64>()
    }

    /// One Clos per dimension (all lines of a dimension are alike), validated.
    fn closes(&self) -> Result<Vec<Clos>> {
        self.hb().validate("rail_only")?;
        if self.dims.is_empty() {
            return Err(RailxError::invalid(
                "rail_only.dims",
                "[]",
                "a Rail-only network needs at least one rail dimension",
                "e.g. dims = [{size = 128, rails = 1}]",
            ));
        }
        check_chips(self.chips())?;
        self.dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let field = format!("rail_only.dims[{i}]");
                positive(&format!("{field}.size"), d.size, "e.g. size = 128")?;
                positive(&format!("{field}.rails"), d.rails, "e.g. rails = 1")?;
                let tiers = Clos::min_tiers(d.size as u64, self.radix);
                Clos::new(&field, d.size as u64, self.radix, tiers, &[])
            })
            .collect()
    }

    /// Member chips of every line of dimension `j`: chip id = HB rank + K * (mixed-radix index
    /// over the dims, dim 0 innermost).
    fn lines(&self, j: usize) -> Vec<Vec<u32>> {
        let k = self.hb_domain as u64;
        let stride: u64 = k * self.dims[..j]
            .iter()
            .map(|d| d.size as u64)
            .product::<u64>();
        let size = self.dims[j].size as u64;
        let chips = self.chips();
        (0..chips)
            .filter(|c| (c / stride).is_multiple_of(size))
            .map(|base| (0..size).map(|i| (base + i * stride) as u32).collect())
            .collect()
    }
}

impl PeerBuilder for RailOnlySpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        let closes = self.closes()?;
        let chips = self.chips();
        let k = self.hb_domain as u64;
        let mut packet_switches = Vec::new();
        let (mut chip_switch, mut switch_switch) = (0, 0);
        let mut bisection = f64::INFINITY;
        let mut bottleneck = f64::INFINITY;
        for (d, clos) in self.dims.iter().zip(&closes) {
            let planes = chips / d.size as u64 * d.rails as u64;
            add_switches(
                &mut packet_switches,
                self.radix,
                planes * clos.switch_count(),
            );
            chip_switch += planes * clos.links[0];
            switch_switch += planes * clos.switch_links();
            if d.size > 1 {
                // Halving this dimension splits every line: half of each rail crosses.
                bisection = bisection.min(chips as f64 * d.rails as f64 / 2.0);
                // Every message whose ends differ in this coordinate takes one hop on its rails.
                bottleneck = bottleneck.min(d.rails as f64 / (1.0 - 1.0 / d.size as f64));
            }
        }
        let hb = self.hb();
        if k > 1 {
            // Every message to another local rank crosses the HB domain.
            bisection = bisection.min(hb.bisection_ports(chips));
            bottleneck = bottleneck.min(hb.forwarding_bottleneck_ports());
        }
        let mut hb_switches = Vec::new();
        add_switches(&mut hb_switches, self.hb_domain, hb.switches(chips));
        let ports: u32 = self.dims.iter().map(|d| d.rails).sum();
        Ok(BillOfMaterials::switched(Switched {
            family: "rail-only",
            chips,
            ports_per_chip: ports,
            packet_switches,
            hb_switches,
            switch_tiers: Clos::deepest(&closes),
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: hb.board_links(chips),
            global: GlobalBandwidth::new(chips, ports, bisection, bottleneck),
        }))
    }

    fn build(&self) -> Result<Network> {
        let closes = self.closes()?;
        let chips = self.chips() as u32;
        let mut net = Network::with_capacity(None, chips, 0);
        self.hb().build(&mut net, chips, &self.link);
        for (j, (d, clos)) in self.dims.iter().zip(&closes).enumerate() {
            let axis = if j == 0 { Axis::X } else { Axis::Y };
            for members in self.lines(j) {
                for rail in 0..d.rails {
                    clos.build(&mut net, &members, &self.link, axis, rail);
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// The rotation of every HB domain's chips (the crossbar maps onto itself, line j's rails
    /// onto line j + 1's), and per rail dimension its Clos's leaf rotations and shifts applied to
    /// every line at once.
    fn symmetry(&self) -> Option<(&'static str, Vec<Generator>)> {
        let closes = self.closes().ok()?;
        let chips = self.chips() as u32;
        let k = self.hb_domain;
        let mut generators = Vec::new();
        if k > 1 {
            generators.push(Generator::coordinate_shift(
                "rotation of the HB domains",
                chips,
                1,
                k,
                k,
                1,
            ));
        }
        let mut stride = k;
        for (d, clos) in self.dims.iter().zip(&closes) {
            generators.extend(clos.symmetries(chips, stride));
            stride *= d.size;
        }
        Some(("HB-domain rotations and rail leaf shifts", generators))
    }

    /// The HB domain (local), then each rail dimension (fully connected through its Clos), the
    /// first along X and the others along Y, as the builder lays the rails.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        let mut dims = vec![GroupDim::new(self.hb_domain, DimKind::Local, Axis::X)];
        for (j, d) in self.dims.iter().enumerate() {
            let axis = if j == 0 { Axis::X } else { Axis::Y };
            dims.push(GroupDim::new(d.size, DimKind::AllToAll, axis));
        }
        Group::numbered(dims, chips)
    }
}
