//! Rail-only (paper 002): high-bandwidth (HB) domains of K chips joined by a full crossbar (NVLink
//! class, priced with the chips), and a separate minimum-tier non-blocking Clos per rail. The
//! general form is a grid: `dims` lists the rail dimensions, each a line of `size` chips (or HB
//! domains) joined by `rails` independent Clos planes. Rail-only proper is one dimension of
//! `chips / K` with one rail per NIC port; RailX's "2D fat-tree" is two dimensions with no HB
//! domain. Cross-rail traffic is forwarded through the HB domain (or the other dimension).

use super::fat_tree::Clos;
use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
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
    #[serde(default = "one")]
    pub hb_domain: u32,
    /// HB bandwidth per chip, in units of one network port (e.g. 9 for 3.6 Tb/s vs 400 Gb/s).
    #[serde(default)]
    pub hb_ports_per_chip: f64,
    pub dims: Vec<RailDim>,
    #[serde(default)]
    pub link: LinkSpec,
}

fn one() -> u32 {
    1
}

impl RailOnlySpec {
    fn chips(&self) -> u64 {
        self.hb_domain as u64 * self.dims.iter().map(|d| d.size as u64).product::<u64>()
    }

    /// One Clos per dimension (all lines of a dimension are alike), validated.
    fn closes(&self) -> Result<Vec<Clos>> {
        positive("rail_only.hb_domain", self.hb_domain, "e.g. hb_domain = 8")?;
        if self.hb_domain > 1
            && !(self.hb_ports_per_chip.is_finite() && self.hb_ports_per_chip > 0.0)
        {
            return Err(RailxError::invalid(
                "rail_only.hb_ports_per_chip",
                self.hb_ports_per_chip,
                "an HB domain of more than one chip needs its bandwidth per chip, in network ports",
                "e.g. hb_ports_per_chip = 9 (3.6 Tb/s over 400 Gb/s ports)",
            ));
        }
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
        if k > 1 {
            // A crossbar of K chips, each pair joined by hb/(K-1) of the chip's HB bandwidth.
            let per_pair = self.hb_ports_per_chip / (k - 1) as f64;
            let half = (k / 2) as f64 * k.div_ceil(2) as f64;
            bisection = bisection.min((chips / k) as f64 * half * per_pair);
            bottleneck = bottleneck.min(self.hb_ports_per_chip / (1.0 - 1.0 / k as f64));
        }
        let ports: u32 = self.dims.iter().map(|d| d.rails).sum();
        Ok(BillOfMaterials::switched(Switched {
            family: "rail-only",
            chips,
            ports_per_chip: ports,
            packet_switches,
            switch_tiers: Clos::deepest(&closes),
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: chips / k * k * (k - 1) / 2,
            global: GlobalBandwidth::new(chips, ports, bisection, bottleneck),
        }))
    }

    fn build(&self) -> Result<Network> {
        let closes = self.closes()?;
        let chips = self.chips() as u32;
        let k = self.hb_domain;
        let mut net = Network::with_capacity(None, chips, 0);
        if k > 1 {
            let bw = self.hb_ports_per_chip * self.link.port_bw_Bps / (k - 1) as f64;
            for domain in 0..chips / k {
                for a in 0..k {
                    for b in a + 1..k {
                        let (u, v) = (domain * k + a, domain * k + b);
                        self.link.duplex_bw(
                            &mut net,
                            u,
                            v,
                            LinkClass::IntraNode,
                            Axis::X,
                            u32::MAX,
                            bw,
                        );
                    }
                }
            }
        }
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
