//! Dimension-order minimal routing for the packet-switched HyperX peers: from its chip a packet
//! goes to its switch (any plane: ECMP across planes), corrects the switch coordinates one
//! dimension at a time — each a single hop, every pair of switches in a dimension being joined —
//! and descends to the destination chip. Dependencies only run from lower to higher dimensions,
//! so one VC is deadlock-free; the check confirms it.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::Network;

pub struct HyperxRouting {
    dims: Vec<u32>,
    terminals: u32,
    switches_per_plane: u32,
    chips: Vec<u32>,
    adjacency: Adjacency,
    links: LinkEnds,
}

impl HyperxRouting {
    /// `dims` switches per dimension, `terminals` chips per switch; the network's switches are
    /// the planes' lattices one after another (as the HyperX peer builds them).
    pub fn new(net: &Network, dims: &[u32], terminals: u32) -> Result<HyperxRouting> {
        let per_plane: u32 = dims.iter().product();
        let chips = per_plane * terminals;
        let switches = net.switch_radix.len() as u32;
        if net.chip_count != chips || per_plane == 0 || !switches.is_multiple_of(per_plane) {
            return Err(RailxError::invalid(
                "routing",
                "hyperx dimension order",
                format!("needs {chips} chips and whole planes of {per_plane} switches (HyperX {dims:?}, {terminals} chips per switch)"),
                "use it on the HyperX peer it was built from",
            ));
        }
        Ok(HyperxRouting {
            dims: dims.to_vec(),
            terminals,
            switches_per_plane: per_plane,
            chips: (0..chips).collect(),
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |_| true),
        })
    }

    /// The first switch of the plane that switch `sw` belongs to.
    fn plane_start(&self, sw: u32) -> u32 {
        sw - (sw - self.chips.len() as u32) % self.switches_per_plane
    }
}

impl Routing for HyperxRouting {
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
        let after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        let chips = self.chips.len() as u32;
        if at < chips {
            // A chip: up to its switch in every plane.
            for &(_, link) in self.adjacency.from(at) {
                out.push(Hop {
                    link,
                    vc: 0,
                    state: after,
                });
            }
            return;
        }
        let first = self.plane_start(at);
        let (here, there) = (at - first, dst / self.terminals);
        let next = if here == there {
            dst
        } else {
            let mut stride = 1;
            let mut next = at;
            for &s in &self.dims {
                let (a, b) = ((here / stride) % s, (there / stride) % s);
                if a != b {
                    next = at + b * stride - a * stride;
                    break;
                }
                stride *= s;
            }
            next
        };
        if let Some(link) = self.adjacency.link_to(at, next) {
            out.push(Hop {
                link,
                vc: 0,
                state: after,
            });
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
