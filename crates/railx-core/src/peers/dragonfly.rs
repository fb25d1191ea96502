//! Packet-switched Dragonfly: `groups` groups of `routers` switches joined all-to-all inside the
//! group, `terminals` chips and `global_ports` global links per switch. Every pair of groups gets
//! the same number `c = floor(routers * global_ports / (groups - 1))` of global links; ports left
//! over stay unused (and uncabled). With `planes` > 1 every chip port has its own Dragonfly.
//! Radix needed: terminals + routers - 1 + global_ports.

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DragonflySpec {
    pub groups: u32,
    /// Switches per group (a).
    pub routers: u32,
    /// Chips per switch (p).
    pub terminals: u32,
    /// Global links per switch (h).
    pub global_ports: u32,
    pub radix: u32,
    #[serde(default = "one")]
    pub planes: u32,
    #[serde(default)]
    pub link: LinkSpec,
}

fn one() -> u32 {
    1
}

/// Largest Dragonfly for a radix: the best (a, p, h) with p + a - 1 + h = R and a*h + 1 groups.
/// For each a, the chips `a (R + 1 - a - h)(a h + 1)` are concave in h, so only the integers
/// beside the real optimum `h* = ((R + 1 - a) a - 1) / 2a` need trying: linear in the radix.
pub fn max_chips(radix: u32) -> u64 {
    let chips = |a: u64, h: u64| a * (radix as u64 + 1 - a - h) * (a * h + 1);
    (1..radix as u64)
        .flat_map(|a| {
            let top = radix as u64 - a;
            let best = ((radix as u64 + 1 - a) * a).saturating_sub(1) / (2 * a);
            [best, best + 1].map(move |h| (a, h.clamp(1, top)))
        })
        .map(|(a, h)| chips(a, h))
        .max()
        .unwrap_or(0)
}

impl DragonflySpec {
    /// Global links per pair of groups.
    fn per_pair(&self) -> u64 {
        (self.routers as u64 * self.global_ports as u64) / (self.groups as u64 - 1)
    }

    fn validate(&self) -> Result<()> {
        positive("dragonfly.routers", self.routers, "e.g. routers = 16")?;
        positive("dragonfly.terminals", self.terminals, "e.g. terminals = 8")?;
        positive(
            "dragonfly.global_ports",
            self.global_ports,
            "e.g. global_ports = 8",
        )?;
        positive("dragonfly.planes", self.planes, "e.g. planes = 36")?;
        let most = self.routers * self.global_ports + 1;
        if self.groups < 2 || self.groups > most {
            return Err(RailxError::invalid(
                "dragonfly.groups",
                self.groups,
                format!("every pair of groups needs a global link: 2 to routers * global_ports + 1 = {most} groups"),
                format!("use at most {most} groups, or more global ports"),
            ));
        }
        let needed = self.terminals + self.routers - 1 + self.global_ports;
        if needed > self.radix {
            return Err(RailxError::invalid(
                "dragonfly.radix",
                self.radix,
                format!(
                    "each switch needs terminals + routers - 1 + global_ports = {needed} ports"
                ),
                format!("use radix >= {needed}"),
            ));
        }
        check_chips(self.groups as u64 * self.routers as u64 * self.terminals as u64)
    }
}

impl PeerBuilder for DragonflySpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        self.validate()?;
        let planes = self.planes as u64;
        let (g, a, p) = (
            self.groups as u64,
            self.routers as u64,
            self.terminals as u64,
        );
        let chips = g * a * p;
        let c = self.per_pair();
        let mut packet_switches = Vec::new();
        add_switches(&mut packet_switches, self.radix, planes * g * a);
        let chip_switch = planes * chips;
        let switch_switch = planes * (g * a * (a - 1) / 2 + c * g * (g - 1) / 2);
        // Halving the groups cuts c links per pair of groups on opposite sides.
        let bisection = (planes * (g / 2) * g.div_ceil(2) * c) as f64;
        // A group's c*(g-1) global links carry all but 1/g of its a*p chips' traffic.
        let global =
            planes as f64 * (c * (g - 1)) as f64 / ((a * p) as f64 * (1.0 - 1.0 / g as f64));
        Ok(BillOfMaterials::switched(Switched {
            family: "dragonfly",
            chips,
            ports_per_chip: self.planes,
            packet_switches,
            switch_tiers: 1,
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: 0,
            global: GlobalBandwidth::new(chips, self.planes, bisection, global),
            ..Default::default()
        }))
    }

    fn build(&self) -> Result<Network> {
        self.validate()?;
        let (g, a, p, h) = (self.groups, self.routers, self.terminals, self.global_ports);
        let c = self.per_pair() as u32;
        let mut net = Network::with_capacity(None, g * a * p, 0);
        for plane in 0..self.planes {
            let first = net.vertices();
            for _ in 0..g * a {
                net.add_switch(self.radix);
            }
            let router = |group: u32, r: u32| first + group * a + r;
            for group in 0..g {
                for r in 0..a {
                    for t in 0..p {
                        let chip = (group * a + r) * p + t;
                        self.link.duplex(
                            &mut net,
                            chip,
                            router(group, r),
                            LinkClass::Switch,
                            Axis::X,
                            plane,
                        );
                    }
                    for s in r + 1..a {
                        self.link.duplex(
                            &mut net,
                            router(group, r),
                            router(group, s),
                            LinkClass::Switch,
                            Axis::X,
                            plane,
                        );
                    }
                }
            }
            // Global port d + q*(g-1) of a group leads to the group d+1 ahead (mod g), copy q;
            // each group uses every offset once per copy, so no port is used twice.
            for i in 0..g {
                for j in i + 1..g {
                    for q in 0..c {
                        let port_i = (j - i - 1) + q * (g - 1);
                        let port_j = (i + g - j - 1) + q * (g - 1);
                        let (u, v) = (router(i, port_i / h), router(j, port_j / h));
                        self.link
                            .duplex(&mut net, u, v, LinkClass::Switch, Axis::Y, plane);
                    }
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// The chips of one switch (local), the switches of a group (fully connected, X), the
    /// groups (joined all-to-all by global links, Y).
    fn collective_group(&self, chips: u32) -> Result<Group> {
        Group::numbered(
            vec![
                GroupDim::new(self.terminals, DimKind::Local, Axis::X),
                GroupDim::new(self.routers, DimKind::AllToAll, Axis::X),
                GroupDim::new(self.groups, DimKind::AllToAll, Axis::Y),
            ],
            chips,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_chips_equals_the_exhaustive_search() {
        for radix in 2..200u32 {
            let mut best = 0;
            for a in 1..radix {
                for h in 1..=radix - a {
                    let p = (radix + 1).saturating_sub(a + h);
                    if p > 0 {
                        best = best.max(a as u64 * p as u64 * (a as u64 * h as u64 + 1));
                    }
                }
            }
            assert_eq!(max_chips(radix), best, "radix {radix}");
        }
    }
}
