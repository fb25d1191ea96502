//! Dimension-order routing on a k-ary n-cube of chips (the 3D torus peers, with or without
//! OCS): correct dimension 0, then 1, then 2, each the shorter way round (ties forward); every
//! parallel link toward the next chip (several ports per direction) is an allowed hop, the
//! simulator choosing among them by credits. VCs are
//! either the hop count (`minimal`: one per hop, so the diameter) or two per dimension, switching at the
//! dimension's wrap-around link (`dateline`).

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, NO_LINK};
use crate::error::{RailxError, Result};
use crate::network::Network;

/// A dimension-order routing function over a torus whose chip `c` has coordinates
/// `c = x0 + k0 * (x1 + k1 * x2 ...)`.
pub struct TorusRouting {
    dims: Vec<u32>,
    dateline: bool,
    chips: Vec<u32>,
    /// Parallel links are kept; each is an allowed hop.
    adjacency: Adjacency,
    links: LinkEnds,
    vcs: u8,
}

impl TorusRouting {
    pub fn new(net: &Network, dims: &[u32], dateline: bool) -> Result<TorusRouting> {
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
        let vcs = if dateline {
            2 * dims.len() as u32
        } else {
            diameter.max(1)
        };
        if vcs > u8::MAX as u32 {
            return Err(RailxError::invalid(
                "routing",
                "minimal",
                format!("needs {vcs} virtual channels, more than the 255 railx models"),
                "use routing = dateline",
            ));
        }
        Ok(TorusRouting {
            dims: dims.to_vec(),
            dateline,
            chips: (0..net.chip_count).collect(),
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |_| true),
            vcs: vcs as u8,
        })
    }

    fn coord(&self, chip: u32, dim: usize) -> u32 {
        let stride: u32 = self.dims[..dim].iter().product();
        (chip / stride) % self.dims[dim]
    }

    fn with_coord(&self, chip: u32, dim: usize, value: u32) -> u32 {
        let stride: u32 = self.dims[..dim].iter().product();
        chip - self.coord(chip, dim) * stride + value * stride
    }
}

impl Routing for TorusRouting {
    fn name(&self) -> &'static str {
        if self.dateline {
            "dateline"
        } else {
            "minimal"
        }
    }

    fn vcs(&self) -> u8 {
        self.vcs
    }

    fn rising_vcs(&self) -> bool {
        !self.dateline
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
        let forward = (target + k - here) % k;
        let next_coord = if forward <= k / 2 {
            (here + 1) % k
        } else {
            (here + k - 1) % k
        };
        let next = self.with_coord(chip, dim, next_coord);
        let vc = match (self.dateline, state.dim as usize == dim) {
            (true, true) => state.vc,
            (true, false) => 2 * dim as u8,
            (false, _) => state.hops,
        };
        let wraps = super::ring_wraps(k, here, next_coord);
        let next_vc = match self.dateline {
            true if wraps => 2 * dim as u8 + 1,
            true => vc,
            false => state.hops + 1,
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
        out.extend(
            self.adjacency
                .links_to(chip, next)
                .map(|link| Hop { link, vc, state }),
        );
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
