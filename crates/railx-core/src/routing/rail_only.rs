//! Routing for the Rail-only peers (the Rail-only paper; docs/cost.md): chips of one high-bandwidth
//! (HB) domain talk over it (directly on a full mesh, through the domain's switch on the switch
//! model); a packet for another domain first crosses its own HB domain to the chip on the
//! destination's rail (the same local rank as the destination), then corrects the rail
//! dimensions in order, each up and down one of that line's Clos planes (up*/down*, ECMP over the
//! rails and the up links).
//!
//! The rail-optimised peer routes the same way without the forwarding: chips of one domain over
//! it, every other pair straight up and down the one Clos that joins every NIC.
//!
//! One VC: HB hops come only before rail hops, each Clos is climbed and descended without a
//! down-to-up turn, and the dimensions are corrected in a fixed order, so every dependency leads
//! from an earlier stage to a later one; the deadlock check confirms it.

use super::updown::UpDownRouting;
use super::{Adjacency, Hop, LinkEnds, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::peers::hb_domain::{HbDomain, HbModel};

pub struct RailOnlyRouting {
    /// Chips per HB domain (K).
    hb_domain: u32,
    /// The first HB switch (domain d's is `first + d`) on the switch model; `None` on a full mesh.
    hb_switches: Option<u32>,
    /// Rail-only: cross-rail traffic is forwarded through the HB domain; rail-optimised: it is not
    /// (one Clos reaches every chip).
    forward: bool,
    /// Members of each rail dimension's lines.
    sizes: Vec<u32>,
    chips: Vec<u32>,
    /// Up*/down* over the rails' Clos links (HB links left out).
    rails: UpDownRouting,
    adjacency: Adjacency,
    /// HB links are intra-node hops (Hi), rail links external (Ho).
    links: LinkEnds,
}

impl RailOnlyRouting {
    /// Over the network the Rail-only peer builds: chip id = HB rank + K * (mixed-radix index
    /// over the rail dimensions, dimension 0 innermost); HB switches right after the chips.
    pub fn new(net: &Network, hb: &HbDomain, sizes: &[u32]) -> Result<RailOnlyRouting> {
        RailOnlyRouting::build(net, hb, sizes, true)
    }

    /// Over the network the rail-optimised peer builds (`domains` HB domains, one Clos).
    pub fn rail_optimised(net: &Network, hb: &HbDomain, domains: u32) -> Result<RailOnlyRouting> {
        RailOnlyRouting::build(net, hb, &[domains], false)
    }

    fn build(
        net: &Network,
        hb: &HbDomain,
        sizes: &[u32],
        forward: bool,
    ) -> Result<RailOnlyRouting> {
        let hb_domain = hb.k;
        let chips = sizes.iter().fold(hb_domain as u64, |n, &s| n * s as u64);
        if chips != net.chip_count as u64 {
            return Err(RailxError::invalid(
                "routing",
                "rail-only",
                format!(
                    "needs {chips} chips (HB domains of {hb_domain}, rail dimensions {sizes:?})"
                ),
                "use it on the Rail-only peer it was built from",
            ));
        }
        let switched = hb_domain > 1 && hb.model == HbModel::Switch;
        Ok(RailOnlyRouting {
            hb_domain,
            hb_switches: switched.then_some(net.chip_count),
            forward,
            sizes: sizes.to_vec(),
            chips: (0..net.chip_count).collect(),
            rails: UpDownRouting::over(net, |c| c != LinkClass::IntraNode)?,
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |c| c != LinkClass::IntraNode),
        })
    }

    /// The domain whose HB switch `vertex` is, if it is one.
    fn hb_switch_domain(&self, vertex: u32) -> Option<u32> {
        let first = self.hb_switches?;
        let domains = self.chips.len() as u32 / self.hb_domain;
        (vertex >= first && vertex - first < domains).then(|| vertex - first)
    }

    /// `chip` with its first rail coordinate that differs from `dst`'s set to `dst`'s.
    fn next_rail_stop(&self, chip: u32, dst: u32) -> u32 {
        let mut stride = self.hb_domain;
        for &s in &self.sizes {
            let (a, b) = ((chip / stride) % s, (dst / stride) % s);
            if a != b {
                return chip + b * stride - a * stride;
            }
            stride *= s;
        }
        chip
    }
}

impl Routing for RailOnlyRouting {
    fn name(&self) -> &'static str {
        "minimal"
    }

    fn vcs(&self) -> u8 {
        1
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn next_hops(&self, at: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        if at == dst {
            return;
        }
        let chips = self.chips.len() as u32;
        let after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        let k = self.hb_domain;
        if at >= chips {
            if let Some(domain) = self.hb_switch_domain(at) {
                // Out of the HB switch: to the destination, or to the chip on its rail.
                let target = domain * k + dst % k;
                if let Some(link) = self.adjacency.link_to(at, target) {
                    out.push(Hop {
                        link,
                        vc: 0,
                        state: after,
                    });
                }
                return;
            }
            // Inside a rail's Clos, bound for the chip the climb lands on.
            self.rails.toward_waypoint(at, state, state.vc, out);
            return;
        }
        if at / k == dst / k || (self.forward && at % k != dst % k) {
            // Across the HB domain: to the destination, or to the chip on its rail, directly or
            // through the domain's switch.
            let next = match self.hb_switches {
                Some(first) => first + at / k,
                None => at - at % k + dst % k,
            };
            if let Some(link) = self.adjacency.link_to(at, next) {
                out.push(Hop {
                    link,
                    vc: 0,
                    state: after,
                });
            }
            return;
        }
        let stop = if self.forward {
            self.next_rail_stop(at, dst)
        } else {
            dst
        };
        out.extend(self.rails.entries(at, stop).map(|link| Hop {
            link,
            vc: 0,
            state: RouteState { via: stop, ..after },
        }));
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
