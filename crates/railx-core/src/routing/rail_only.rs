//! Routing for the Rail-only peers (the Rail-only paper; docs/cost.md): chips of one high-bandwidth
//! (HB) domain talk directly; a packet for another domain first crosses its own HB domain to the
//! chip on the destination's rail (the same local rank as the destination), then corrects the rail
//! dimensions in order, each up and down one of that line's Clos planes (up*/down*, ECMP over the
//! rails and the up links).
//!
//! One VC: HB hops come only before rail hops, each Clos is climbed and descended without a
//! down-to-up turn, and the dimensions are corrected in a fixed order, so every dependency leads
//! from an earlier stage to a later one; the deadlock check confirms it.

use super::updown::UpDownRouting;
use super::{Adjacency, Hop, LinkEnds, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};

pub struct RailOnlyRouting {
    /// Chips per HB domain (K).
    hb_domain: u32,
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
    /// over the rail dimensions, dimension 0 innermost).
    pub fn new(net: &Network, hb_domain: u32, sizes: &[u32]) -> Result<RailOnlyRouting> {
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
        Ok(RailOnlyRouting {
            hb_domain,
            sizes: sizes.to_vec(),
            chips: (0..net.chip_count).collect(),
            rails: UpDownRouting::over(net, |c| c != LinkClass::IntraNode)?,
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |c| c != LinkClass::IntraNode),
        })
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
        if at >= chips {
            // Inside a rail's Clos, bound for the chip the climb lands on.
            self.rails.toward_waypoint(at, state, state.vc, out);
            return;
        }
        let after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        let k = self.hb_domain;
        if at / k == dst / k || at % k != dst % k {
            // Across the HB domain: to the destination, or to the chip on its rail.
            if let Some(link) = self.adjacency.link_to(at, at - at % k + dst % k) {
                out.push(Hop {
                    link,
                    vc: 0,
                    state: after,
                });
            }
            return;
        }
        let stop = self.next_rail_stop(at, dst);
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
