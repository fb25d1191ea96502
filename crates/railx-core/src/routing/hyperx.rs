//! Dimension-order minimal routing for the packet-switched HyperX peers: from its chip a packet
//! goes to its switch (any plane: ECMP across planes), corrects the switch coordinates one
//! dimension at a time — each a single hop, every pair of switches in a dimension being joined —
//! and descends to the destination chip. Dependencies only run from lower to higher dimensions,
//! so one VC is deadlock-free; the check confirms it.

use super::{Hop, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::Network;

pub struct HyperxRouting {
    dims: Vec<u32>,
    terminals: u32,
    switches_per_plane: u32,
    chips: Vec<u32>,
    /// Per vertex: (neighbour, link), sorted.
    out: Vec<Vec<(u32, u32)>>,
    link_source: Vec<u32>,
    link_target: Vec<u32>,
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
        let mut out = vec![Vec::new(); net.vertices() as usize];
        for link in 0..net.links() {
            out[net.src[link] as usize].push((net.dst[link], link as u32));
        }
        for list in &mut out {
            list.sort_unstable();
        }
        Ok(HyperxRouting {
            dims: dims.to_vec(),
            terminals,
            switches_per_plane: per_plane,
            chips: (0..chips).collect(),
            out,
            link_source: net.src.clone(),
            link_target: net.dst.clone(),
        })
    }

    fn link_to(&self, from: u32, to: u32) -> Option<u32> {
        let list = &self.out[from as usize];
        list.get(list.partition_point(|e| e.0 < to))
            .filter(|e| e.0 == to)
            .map(|e| e.1)
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
            for &(_, link) in &self.out[at as usize] {
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
        if let Some(link) = self.link_to(at, next) {
            out.push(Hop {
                link,
                vc: 0,
                state: after,
            });
        }
    }

    fn link_source(&self, link: u32) -> u32 {
        self.link_source[link as usize]
    }

    fn link_target(&self, link: u32) -> u32 {
        self.link_target[link as usize]
    }

    fn is_external(&self, _link: u32) -> bool {
        true
    }
}
