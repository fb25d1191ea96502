//! Dimension-order routing on a k-ary n-cube of chips (the 3D torus peers, with or without
//! OCS): correct dimension 0, then 1, then 2, each the shorter way round; every parallel link
//! toward the next chip (several ports per direction) is an allowed hop. VCs are (`TorusVcs`)
//! the hop count (`minimal`: one per hop, so the diameter), or two per dimension: switching at the
//! dimension's wrap-around link (`dateline`), or chosen for the whole ring as the packet enters it
//! (`dateline-partition`, BookSim2's `dim_order_torus`).
//!
//! `minimal` and `dateline` break ties (half-way round an even ring) forward and let a simulator
//! choose among parallel links by credits. `dateline-partition` is BookSim2's routing: a tie
//! offers both directions, and a simulator picks among the allowed hops at random.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, Selection, NO_LINK};
use crate::error::{RailxError, Result};
use crate::network::Network;

/// How a torus route uses virtual channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TorusVcs {
    /// One VC per hop taken (`minimal`).
    HopCount,
    /// Two per dimension: the second from the wrap-around link on (`dateline`).
    Dateline,
    /// Two per dimension, fixed for the whole ring as the packet enters it: the second when its
    /// way round crosses the wrap-around link, the first otherwise (`dateline-partition`). The
    /// second class then holds only routes through the wrap-around link, none longer than half
    /// the ring, so neither class closes a cycle.
    Partition,
}

impl TorusVcs {
    const ALL: [TorusVcs; 3] = [TorusVcs::HopCount, TorusVcs::Dateline, TorusVcs::Partition];

    /// The scheme of a routing function's name.
    pub fn of(name: &str) -> Option<TorusVcs> {
        TorusVcs::ALL.into_iter().find(|s| s.name() == name)
    }

    fn name(self) -> &'static str {
        match self {
            TorusVcs::HopCount => "minimal",
            TorusVcs::Dateline => "dateline",
            TorusVcs::Partition => "dateline-partition",
        }
    }
}

/// A dimension-order routing function over a torus whose chip `c` has coordinates
/// `c = x0 + k0 * (x1 + k1 * x2 ...)`.
pub struct TorusRouting {
    dims: Vec<u32>,
    /// Chip-id distance between neighbours along each dimension.
    strides: Vec<u32>,
    /// Every chip's coordinates (`dims.len()` per chip): a simulator routes every packet at
    /// every hop, and looking them up spares it the divisions.
    coords: Vec<u32>,
    scheme: TorusVcs,
    chips: Vec<u32>,
    /// The links from each chip to its neighbour one step forward and one step back along each
    /// dimension (at `ring_start[(chip * dims + dim) * 2 + back]..` the next one), parallel
    /// links kept: each is an allowed hop.
    ring_links: Vec<u32>,
    ring_start: Vec<u32>,
    links: LinkEnds,
    vcs: u8,
}

impl TorusRouting {
    pub fn new(net: &Network, dims: &[u32], scheme: TorusVcs) -> Result<TorusRouting> {
        let chips: u64 = dims.iter().map(|&k| k as u64).product();
        if chips != net.chip_count as u64 || !net.switch_radix.is_empty() {
            return Err(RailxError::invalid(
                "routing",
                "torus dimension order",
                format!("needs a network of exactly {chips} chips and no switches (a torus of {dims:?})"),
                "use it on a 3D torus peer network",
            ));
        }
        let diameter: u32 = dims.iter().map(|k| k / 2).sum();
        // A hop's VC is the number of hops before it, so a route uses at most `diameter` VCs.
        let vcs = match scheme {
            TorusVcs::HopCount => diameter.max(1),
            TorusVcs::Dateline | TorusVcs::Partition => 2 * dims.len() as u32,
        };
        if vcs > u8::MAX as u32 {
            return Err(RailxError::invalid(
                "routing",
                "minimal",
                format!("needs {vcs} virtual channels, more than the 255 railx models"),
                "use routing = dateline",
            ));
        }
        let strides: Vec<u32> = (0..dims.len())
            .map(|d| dims[..d].iter().product())
            .collect();
        let coords = (0..net.chip_count)
            .flat_map(|chip| {
                let strides = &strides;
                (0..dims.len()).map(move |d| (chip / strides[d]) % dims[d])
            })
            .collect();
        let mut routing = TorusRouting {
            dims: dims.to_vec(),
            strides,
            coords,
            scheme,
            chips: (0..net.chip_count).collect(),
            ring_links: Vec::new(),
            ring_start: vec![0],
            links: LinkEnds::of(net, |_| true),
            vcs: vcs as u8,
        };
        let adjacency = Adjacency::of(net);
        for chip in 0..net.chip_count {
            for (dim, &k) in dims.iter().enumerate() {
                let here = routing.coord(chip, dim);
                for next in [(here + 1) % k, (here + k - 1) % k] {
                    let neighbour = routing.with_coord(chip, dim, next);
                    routing
                        .ring_links
                        .extend(adjacency.links_to(chip, neighbour));
                    routing.ring_start.push(routing.ring_links.len() as u32);
                }
            }
        }
        Ok(routing)
    }

    fn coord(&self, chip: u32, dim: usize) -> u32 {
        self.coords[chip as usize * self.dims.len() + dim]
    }

    fn with_coord(&self, chip: u32, dim: usize, value: u32) -> u32 {
        chip - self.coord(chip, dim) * self.strides[dim] + value * self.strides[dim]
    }
}

impl Routing for TorusRouting {
    fn name(&self) -> &'static str {
        self.scheme.name()
    }

    fn vcs(&self) -> u8 {
        self.vcs
    }

    fn rising_vcs(&self) -> bool {
        self.scheme == TorusVcs::HopCount
    }

    fn selection(&self) -> Selection {
        match self.scheme {
            TorusVcs::Partition => Selection::Random,
            TorusVcs::HopCount | TorusVcs::Dateline => Selection::Adaptive,
        }
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        let Some(dim) = (0..self.dims.len()).find(|&d| self.coord(chip, d) != self.coord(dst, d))
        else {
            return;
        };
        let (k, here, target) = (self.dims[dim], self.coord(chip, dim), self.coord(dst, dim));
        let forward = if target >= here {
            target - here
        } else {
            target + k - here
        };
        let entering = state.dim as usize != dim;
        // Half-way round a ring longer than two, BookSim2's routing may go either way.
        let tie = self.scheme == TorusVcs::Partition && entering && k > 2 && 2 * forward == k;
        let ahead = forward <= k / 2;
        for go_forward in [ahead, !ahead].into_iter().take(1 + tie as usize) {
            let next_coord = match (go_forward, here) {
                (true, _) if here + 1 == k => 0,
                (true, _) => here + 1,
                (false, 0) => k - 1,
                (false, _) => here - 1,
            };
            let crosses_wrap = if go_forward {
                target < here
            } else {
                target > here
            };
            let vc = match (self.scheme, entering) {
                (TorusVcs::HopCount, _) => state.hops,
                (_, false) => state.vc,
                (TorusVcs::Dateline, true) => 2 * dim as u8,
                (TorusVcs::Partition, true) => 2 * dim as u8 + crosses_wrap as u8,
            };
            let next_vc = match self.scheme {
                TorusVcs::HopCount => state.hops + 1,
                TorusVcs::Dateline if super::ring_wraps(k, here, next_coord) => 2 * dim as u8 + 1,
                TorusVcs::Dateline | TorusVcs::Partition => vc,
            };
            let state = RouteState {
                exit: NO_LINK,
                hops: state.hops + 1,
                misroutes: 0,
                vc: next_vc,
                dim: dim as u8,
                via: super::NO_VIA,
                mesh: super::MeshOrder::Unchosen,
            };
            let slot = (chip as usize * self.dims.len() + dim) * 2 + !go_forward as usize;
            let (from, to) = (self.ring_start[slot], self.ring_start[slot + 1]);
            for &link in &self.ring_links[from as usize..to as usize] {
                out.push(Hop { link, vc, state });
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
