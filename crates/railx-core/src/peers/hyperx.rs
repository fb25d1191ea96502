//! Packet-switched HyperX: switches on a lattice `S_1 x S_2 x ...`, every switch joined to every
//! other switch that differs in one coordinate, `terminals` chips per switch. With `planes` > 1
//! every chip port has its own HyperX. Radix needed: terminals + sum(S_i - 1).

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HyperXSpec {
    /// Switches along each dimension.
    pub dims: Vec<u32>,
    /// Chips per switch.
    pub terminals: u32,
    pub radix: u32,
    #[serde(default = "one")]
    pub planes: u32,
    #[serde(default)]
    pub link: LinkSpec,
}

fn one() -> u32 {
    1
}

/// Largest 2D HyperX for a radix: the best S with T = R - 2(S-1) terminals per switch.
pub fn max_chips_2d(radix: u32) -> u64 {
    (1..=radix / 2 + 1)
        .filter(|&s| radix > 2 * (s - 1))
        .map(|s| (radix - 2 * (s - 1)) as u64 * s as u64 * s as u64)
        .max()
        .unwrap_or(0)
}

impl HyperXSpec {
    fn switches(&self) -> u64 {
        self.dims.iter().map(|&s| s as u64).product()
    }

    fn validate(&self) -> Result<()> {
        positive("hyperx.terminals", self.terminals, "e.g. terminals = 16")?;
        positive("hyperx.planes", self.planes, "e.g. planes = 36")?;
        if self.dims.is_empty() || self.dims.contains(&0) {
            return Err(RailxError::invalid(
                "hyperx.dims",
                format!("{:?}", self.dims),
                "a HyperX needs at least one dimension, each of at least one switch",
                "e.g. dims = [16, 16]",
            ));
        }
        let needed = self.terminals + self.dims.iter().map(|s| s - 1).sum::<u32>();
        if needed > self.radix {
            return Err(RailxError::invalid(
                "hyperx.radix",
                self.radix,
                format!("each switch needs terminals + sum(S_i - 1) = {needed} ports"),
                format!("use radix >= {needed}, or fewer terminals or switches per dimension"),
            ));
        }
        check_chips(self.switches() * self.terminals as u64)
    }
}

impl PeerBuilder for HyperXSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        self.validate()?;
        let planes = self.planes as u64;
        let switches = self.switches();
        let t = self.terminals as u64;
        let chips = switches * t;
        let mut packet_switches = Vec::new();
        add_switches(&mut packet_switches, self.radix, planes * switches);
        let per_switch: u64 = self.dims.iter().map(|&s| s as u64 - 1).sum();
        let chip_switch = planes * chips;
        let switch_switch = planes * switches * per_switch / 2;
        // Halving the longest dimension: each of its lines has floor(S/2)*ceil(S/2) crossing
        // links. A single switch is a crossbar: full bisection.
        let s = *self.dims.iter().max().unwrap_or(&1) as u64;
        let bisection = if s == 1 {
            (planes * chips) as f64 / 2.0
        } else {
            (planes * switches / s * (s / 2) * s.div_ceil(2)) as f64
        };
        // In dimension i a switch has S_i - 1 links for the 1 - 1/S_i of its chips' traffic
        // that must correct that coordinate: S_i / T per chip.
        let bottleneck = self
            .dims
            .iter()
            .filter(|&&s| s > 1)
            .map(|&s| planes as f64 * s as f64 / t as f64)
            .fold(f64::INFINITY, f64::min);
        Ok(BillOfMaterials::switched(Switched {
            family: "hyperx",
            chips,
            ports_per_chip: self.planes,
            packet_switches,
            switch_tiers: 1,
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: 0,
            global: GlobalBandwidth::new(chips, self.planes, bisection, bottleneck),
            ..Default::default()
        }))
    }

    fn build(&self) -> Result<Network> {
        self.validate()?;
        let switches = self.switches() as u32;
        let t = self.terminals;
        let mut net = Network::with_capacity(None, switches * t, 0);
        for plane in 0..self.planes {
            let first = net.vertices();
            for _ in 0..switches {
                net.add_switch(self.radix);
            }
            for sw in 0..switches {
                for c in 0..t {
                    self.link.duplex(
                        &mut net,
                        sw * t + c,
                        first + sw,
                        LinkClass::Switch,
                        Axis::X,
                        plane,
                    );
                }
                // Join to every switch differing in one coordinate, higher coordinate only
                // (each pair once).
                let mut stride = 1;
                for (i, &s) in self.dims.iter().enumerate() {
                    let coord = (sw / stride) % s;
                    for other in coord + 1..s {
                        let peer = sw + (other - coord) * stride;
                        let axis = if i == 0 { Axis::X } else { Axis::Y };
                        self.link.duplex(
                            &mut net,
                            first + sw,
                            first + peer,
                            LinkClass::Switch,
                            axis,
                            plane,
                        );
                    }
                    stride *= s;
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// The chips of one switch (local), then each switch dimension (fully connected); the first
    /// along X, the others along Y, as the builder tags the links.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        let mut dims = vec![GroupDim::new(self.terminals, DimKind::Local, Axis::X)];
        for (i, &s) in self.dims.iter().enumerate() {
            let axis = if i == 0 { Axis::X } else { Axis::Y };
            dims.push(GroupDim::new(s, DimKind::AllToAll, axis));
        }
        Group::numbered(dims, chips)
    }
}
