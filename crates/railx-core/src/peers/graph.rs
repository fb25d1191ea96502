//! An explicit graph (`family = "graph"`): chips, optional switch vertices and directed links,
//! each with its own bandwidth and latency, as given. For networks that are an outcome rather
//! than a family: a reconfigurable fabric after its circuits or wavelengths were steered to a job
//! mix (python/railx/multitenant, docs/multitenant.md), where each job sees the links its
//! allocation made. Routed by `shortest-path` (routing/shortest_path.rs).
//!
//! The bill of materials counts what the graph holds; its global bandwidth has no closed form,
//! so the bisection is reported as unknown (NaN, `null` in JSON) and the all-to-all bound as the
//! injection bound alone.

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

/// One directed link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct GraphLink {
    pub src: u32,
    pub dst: u32,
    /// Bytes per second in this direction.
    pub bandwidth_Bps: f64,
    pub latency_s: f64,
}

/// The spec as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Chips: vertices `0..chips`.
    pub chips: u32,
    /// Switch vertices, `chips..chips + switches` (a switch's radix is its out-degree).
    #[serde(default)]
    pub switches: u32,
    /// Directed links; a full-duplex link is two.
    pub links: Vec<GraphLink>,
    /// Not read (every link carries its own figures); kept for the `PeerBuilder` interface.
    #[serde(skip)]
    pub link: LinkSpec,
}

impl GraphSpec {
    fn vertices(&self) -> u64 {
        self.chips as u64 + self.switches as u64
    }

    fn validate(&self) -> Result<()> {
        positive("graph.chips", self.chips, "e.g. chips = 8")?;
        check_chips(self.vertices())?;
        let vertices = self.vertices();
        for (k, l) in self.links.iter().enumerate() {
            for (end, v) in [("src", l.src), ("dst", l.dst)] {
                if v as u64 >= vertices {
                    return Err(RailxError::invalid(
                        format!("graph.links[{k}].{end}"),
                        v,
                        format!("must be a vertex id below chips + switches = {vertices}"),
                        format!("use 0..{}", vertices - 1),
                    ));
                }
            }
            if l.src == l.dst {
                return Err(RailxError::invalid(
                    format!("graph.links[{k}].dst"),
                    l.dst,
                    "a link joins two different vertices",
                    "drop the self-loop",
                ));
            }
            for (field, v, hint) in [
                ("bandwidth_Bps", l.bandwidth_Bps, "e.g. 50e9"),
                ("latency_s", l.latency_s, "e.g. 300e-9"),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(RailxError::invalid(
                        format!("graph.links[{k}].{field}"),
                        v,
                        "must be a finite number > 0",
                        hint,
                    ));
                }
            }
        }
        Ok(())
    }

    fn out_degrees(&self) -> Vec<u32> {
        let mut degree = vec![0u32; self.vertices() as usize];
        for l in &self.links {
            degree[l.src as usize] += 1;
        }
        degree
    }
}

impl PeerBuilder for GraphSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        self.validate()?;
        let degree = self.out_degrees();
        let chips = self.chips as usize;
        let mut switches = Vec::new();
        for &d in &degree[chips..] {
            add_switches(&mut switches, d, 1);
        }
        let is_chip = |v: u32| (v as usize) < chips;
        let chip_chip = self
            .links
            .iter()
            .filter(|l| is_chip(l.src) && is_chip(l.dst))
            .count() as u64;
        let switched = self.links.len() as u64 - chip_chip;
        let ports = degree[..chips].iter().copied().max().unwrap_or(0).max(1);
        Ok(BillOfMaterials {
            family: "graph",
            chips: self.chips as u64,
            ports_per_chip: ports,
            packet_switches: switches,
            aot: 0,
            switch_tiers: 0,
            // Directed links, counted as full-duplex pairs (rounded up).
            chip_switch_links: switched.div_ceil(2),
            switch_switch_links: 0,
            chip_chip_optical_links: chip_chip.div_ceil(2),
            board_links: 0,
            global: GlobalBandwidth::new(self.chips as u64, ports, f64::NAN, f64::INFINITY),
            ..Default::default()
        })
    }

    fn build(&self) -> Result<Network> {
        self.validate()?;
        let mut net = Network::with_capacity(None, self.chips, self.links.len());
        for d in &self.out_degrees()[self.chips as usize..] {
            net.add_switch(*d);
        }
        for l in &self.links {
            let class = if l.src < self.chips && l.dst < self.chips {
                LinkClass::InterNodeOptical
            } else {
                LinkClass::Switch
            };
            net.push_link(
                l.src,
                l.dst,
                class,
                l.bandwidth_Bps,
                l.latency_s,
                Axis::X,
                0,
            );
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// One all-to-all dimension of every chip (an explicit graph has no structure to group by).
    fn collective_group(&self, chips: u32) -> Result<Group> {
        Group::numbered(
            vec![GroupDim::new(chips, DimKind::AllToAll, Axis::X)],
            chips,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn star(chips: u32) -> GraphSpec {
        let links = (0..chips)
            .flat_map(|c| {
                [(c, chips), (chips, c)].map(|(src, dst)| GraphLink {
                    src,
                    dst,
                    bandwidth_Bps: 1e9,
                    latency_s: 1e-7,
                })
            })
            .collect();
        GraphSpec {
            chips,
            switches: 1,
            links,
            link: LinkSpec::default(),
        }
    }

    #[test]
    fn a_star_counts_one_switch_of_its_degree() {
        let bom = star(6).bom().unwrap();
        assert_eq!(bom.packet_switches[0].radix, 6);
        assert_eq!(bom.chip_switch_links, 6);
        assert_eq!(star(6).build().unwrap().links(), 12);
    }

    #[test]
    fn bad_links_are_refused_by_field() {
        let mut spec = star(4);
        spec.links[3].dst = 9;
        let err = spec.bom().unwrap_err().to_string();
        assert!(err.contains("graph.links[3].dst"), "{err}");
        let mut spec = star(4);
        spec.links[0].bandwidth_Bps = 0.0;
        let err = spec.bom().unwrap_err().to_string();
        assert!(err.contains("graph.links[0].bandwidth_Bps"), "{err}");
    }
}
