//! Routing for the packet-switched HyperX peers. From its chip a packet goes to its switch (any
//! plane: ECMP across planes) and corrects the switch coordinates one dimension at a time — each a
//! single hop, every pair of switches in a dimension being joined — then descends to the
//! destination chip.
//!
//! - `minimal`: dimension order straight to the destination's switch. Dependencies only run from
//!   lower to higher dimensions, so one VC is deadlock-free.
//! - `valiant`: dimension order to an intermediate switch drawn uniformly at random (every switch
//!   of the plane is offered as a choice at the source, `Selection::Random`), then dimension order
//!   to the destination: VC 0 before the intermediate, VC 1 after, so each phase is the acyclic
//!   minimal function on its own VC.
//!
//! The deadlock check confirms both rather than assumes them.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, Selection, NO_VIA};
use crate::error::{RailxError, Result};
use crate::network::Network;

pub struct HyperxRouting {
    dims: Vec<u32>,
    terminals: u32,
    switches_per_plane: u32,
    valiant: bool,
    chips: Vec<u32>,
    adjacency: Adjacency,
    links: LinkEnds,
}

impl HyperxRouting {
    /// Minimal dimension order. `dims` switches per dimension, `terminals` chips per switch; the
    /// network's switches are the planes' lattices one after another (as the HyperX peer builds
    /// them).
    pub fn new(net: &Network, dims: &[u32], terminals: u32) -> Result<HyperxRouting> {
        HyperxRouting::build(net, dims, terminals, false)
    }

    /// Valiant routing through a random intermediate switch, on the same network as `new`.
    pub fn valiant(net: &Network, dims: &[u32], terminals: u32) -> Result<HyperxRouting> {
        HyperxRouting::build(net, dims, terminals, true)
    }

    fn build(net: &Network, dims: &[u32], terminals: u32, valiant: bool) -> Result<HyperxRouting> {
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
            valiant,
            chips: (0..chips).collect(),
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |_| true),
        })
    }

    /// The first switch of the plane that switch `sw` belongs to.
    fn plane_start(&self, sw: u32) -> u32 {
        sw - (sw - self.chips.len() as u32) % self.switches_per_plane
    }

    /// The switch (index within its plane) one dimension-order hop from `here` toward `there`.
    fn toward(&self, here: u32, there: u32) -> u32 {
        let mut stride = 1;
        for &s in &self.dims {
            let (a, b) = ((here / stride) % s, (there / stride) % s);
            if a != b {
                return here + b * stride - a * stride;
            }
            stride *= s;
        }
        here
    }
}

impl Routing for HyperxRouting {
    fn name(&self) -> &'static str {
        if self.valiant {
            "valiant"
        } else {
            "minimal"
        }
    }

    fn vcs(&self) -> u8 {
        1 + self.valiant as u8
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn selection(&self) -> Selection {
        if self.valiant {
            Selection::Random
        } else {
            Selection::Adaptive
        }
    }

    fn next_hops(&self, at: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        if at == dst {
            return;
        }
        let mut after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        let chips = self.chips.len() as u32;
        if at < chips {
            // A chip: up to its switch in every plane; Valiant draws its intermediate here.
            for &(_, link) in self.adjacency.from(at) {
                if !self.valiant {
                    out.push(Hop {
                        link,
                        vc: 0,
                        state: after,
                    });
                    continue;
                }
                out.extend((0..self.switches_per_plane).map(|via| Hop {
                    link,
                    vc: 0,
                    state: RouteState { via, ..after },
                }));
            }
            return;
        }
        let first = self.plane_start(at);
        let here = at - first;
        if after.via == here {
            // The intermediate is reached: the second phase, on its own VC.
            after.via = NO_VIA;
            after.vc = 1;
        }
        let target = if after.via == NO_VIA {
            dst / self.terminals
        } else {
            after.via
        };
        let next = if here == target {
            dst
        } else {
            first + self.toward(here, target)
        };
        if let Some(link) = self.adjacency.link_to(at, next) {
            out.push(Hop {
                link,
                vc: after.vc,
                state: after,
            });
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
