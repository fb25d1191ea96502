//! Digit-correcting routing for SiPAC / Flex-SiPAC (BCube's routing; paper 003 §3.A): a packet
//! at a CU corrects the lowest address digit in which it differs from its destination, one
//! lightpath through that level's WSS to the CU with that digit set, which relays it on. At most
//! L WSS hops (L - 1 relays); every CU-WSS link of the route is an external hop.
//!
//! One VC: a packet arriving at a CU over a level-l WSS leaves it over a WSS of a higher level
//! (digits are corrected in rising order and never revisited), so every channel dependency rises
//! in (level, CU-to-WSS before WSS-to-CU) and the channel dependency graph is acyclic; the
//! deadlock check confirms it.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::peers::sipac::{cus, wss_per_level, SipacSpec};

pub struct SipacRouting {
    spec: SipacSpec,
    per_level: u32,
    chips: Vec<u32>,
    adjacency: Adjacency,
    links: LinkEnds,
}

impl SipacRouting {
    /// Over the network `spec` builds: chips are the CUs (id = address), then the WSS level by
    /// level, each level's in the order of their index (the address without that level's digit).
    pub fn new(net: &Network, spec: &SipacSpec) -> Result<SipacRouting> {
        let (r, l) = (spec.radix(), spec.levels());
        let switches = l as u64 * wss_per_level(r, l);
        if net.chip_count as u64 != cus(r, l) || net.switch_radix.len() as u64 != switches {
            return Err(RailxError::invalid(
                "routing",
                "sipac digit order",
                format!(
                    "needs {} CUs and {switches} WSS (SiPAC({r}, {l}))",
                    cus(r, l)
                ),
                "use it on the SiPAC peer it was built from",
            ));
        }
        Ok(SipacRouting {
            spec: spec.clone(),
            per_level: wss_per_level(r, l) as u32,
            chips: (0..net.chip_count).collect(),
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |_| true),
        })
    }

    /// The lowest level whose digit differs between two CUs (they differ somewhere).
    fn first_difference(&self, a: u32, b: u32) -> u32 {
        let r = self.spec.radix();
        let (mut a, mut b, mut level) = (a, b, 0);
        while a % r == b % r {
            (a, b, level) = (a / r, b / r, level + 1);
        }
        level
    }
}

impl Routing for SipacRouting {
    fn name(&self) -> &'static str {
        "digit-order"
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
        let next = if at < chips {
            // A CU: into the WSS of the lowest differing level.
            let level = self.first_difference(at, dst);
            chips + level * self.per_level + self.spec.wss_index(at, level)
        } else {
            // A WSS: out to its CU that has the destination's digit of this level.
            let (level, index) = ((at - chips) / self.per_level, (at - chips) % self.per_level);
            let digit = dst / self.spec.radix().pow(level) % self.spec.radix();
            self.spec.cu_on(level, index, digit)
        };
        if let Some(link) = self.adjacency.link_to(at, next) {
            out.push(Hop {
                link,
                vc: 0,
                state: RouteState {
                    hops: state.hops.saturating_add(1),
                    ..*state
                },
            });
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
