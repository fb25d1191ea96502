//! The channel dependency graph of the exhaustive deadlock check (docs/routing.md), stored as one
//! bitset that every thread writes into.
//!
//! A channel is a (link, VC). A packet holding channel (l, v) can only request a channel on a
//! link leaving l's target vertex, so channel (l, v) gets a row of `out-degree(target(l)) x vcs`
//! bits, one per channel it could depend on, and a dependency is one bit. Recording one is a
//! load (and, the first time, an atomic or): no search, no hashing, and no per-thread copy to
//! merge. Rows are laid out in channel order and each row's bits in the order of the channels
//! they stand for (the links leaving a vertex ascending, then VCs), so reading the set back
//! yields the dependencies sorted and without duplicates, whatever the threads and their order.

use super::Routing;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// Channel dependencies found so far (module docs).
pub struct ChannelGraph {
    vcs: u64,
    /// Per link: the first bit of its VC-0 channel's row; its other VCs' rows follow.
    row_start: Vec<u64>,
    /// Per link: bits in each of its channels' rows (out-degree of its target x vcs).
    width: Vec<u64>,
    /// Per link: its rank among the links leaving its source (ascending link ids).
    out_rank: Vec<u32>,
    /// Links leaving each vertex, ascending (compressed rows).
    out_start: Vec<u32>,
    out_links: Vec<u32>,
    target: Vec<u32>,
    bits: Vec<AtomicU64>,
    max_vc: AtomicU8,
}

impl ChannelGraph {
    /// An empty graph over the channels of `routing` (its links x its VC budget).
    pub fn new(routing: &dyn Routing) -> ChannelGraph {
        let links = routing.links().count() as u32;
        let vcs = routing.vcs() as u64;
        let vertices = (0..links)
            .map(|l| routing.link_source(l).max(routing.link_target(l)) + 1)
            .max()
            .unwrap_or(0) as usize;
        let mut out_start = vec![0u32; vertices + 1];
        for l in 0..links {
            out_start[routing.link_source(l) as usize + 1] += 1;
        }
        for v in 0..vertices {
            out_start[v + 1] += out_start[v];
        }
        let mut fill = out_start.clone();
        let mut out_links = vec![0u32; links as usize];
        let mut out_rank = vec![0u32; links as usize];
        for l in 0..links {
            let s = routing.link_source(l) as usize;
            out_rank[l as usize] = fill[s] - out_start[s];
            out_links[fill[s] as usize] = l;
            fill[s] += 1;
        }
        let target: Vec<u32> = (0..links).map(|l| routing.link_target(l)).collect();
        let (mut row_start, mut width) = (Vec::new(), Vec::new());
        let mut total = 0u64;
        for &t in &target {
            let w = (out_start[t as usize + 1] - out_start[t as usize]) as u64 * vcs;
            row_start.push(total);
            width.push(w);
            total += w * vcs;
        }
        ChannelGraph {
            vcs,
            row_start,
            width,
            out_rank,
            out_start,
            out_links,
            target,
            bits: (0..total.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            max_vc: AtomicU8::new(0),
        }
    }

    /// The vertices the links of `routing` join, and the bits its graph holds: a row of
    /// `out-degree(target(l)) x vcs` bits for each of the `vcs` channels of every link `l`
    /// (module docs), as `new` lays them out.
    pub fn size(routing: &dyn Routing) -> (u64, u64) {
        let links = routing.links().count() as u32;
        let vertices = (0..links)
            .map(|l| routing.link_source(l).max(routing.link_target(l)) + 1)
            .max()
            .unwrap_or(0);
        let mut out_degree = vec![0u64; vertices as usize];
        for l in 0..links {
            out_degree[routing.link_source(l) as usize] += 1;
        }
        let vcs = routing.vcs() as u64;
        let bits = (0..links)
            .map(|l| out_degree[routing.link_target(l) as usize] * vcs * vcs)
            .sum();
        (vertices as u64, bits)
    }

    /// Notes that a route uses VC `vc` (the highest is reported, and checked against the budget).
    pub fn use_vc(&self, vc: u8) {
        self.max_vc.fetch_max(vc, Relaxed);
    }

    /// The highest VC any route used.
    pub fn max_vc(&self) -> u8 {
        self.max_vc.load(Relaxed)
    }

    /// Records that a packet holding `held` may request `next` (both (link, VC)); `next`'s link
    /// must leave `held`'s target. VCs beyond the budget are left out: the caller notes the
    /// highest VC it saw (`use_vc`), and the check refuses such a routing function before
    /// reading the graph.
    pub fn add(&self, held: (u32, u8), next: (u32, u8)) {
        if held.1 as u64 >= self.vcs || next.1 as u64 >= self.vcs {
            return;
        }
        let l = held.0 as usize;
        let bit = self.row_start[l]
            + held.1 as u64 * self.width[l]
            + self.out_rank[next.0 as usize] as u64 * self.vcs
            + next.1 as u64;
        let word = &self.bits[(bit >> 6) as usize];
        let mask = 1u64 << (bit & 63);
        if word.load(Relaxed) & mask == 0 {
            word.fetch_or(mask, Relaxed);
        }
    }

    /// Every dependency as `from << 32 | to` (channel = link x vcs + VC), sorted, each once.
    pub fn edges(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for (l, &t) in self.target.iter().enumerate() {
            let leaving = &self.out_links
                [self.out_start[t as usize] as usize..self.out_start[t as usize + 1] as usize];
            for vc in 0..self.vcs {
                let from = l as u64 * self.vcs + vc;
                let first = self.row_start[l] + vc * self.width[l];
                for bit in self.set_bits(first, first + self.width[l]) {
                    let offset = bit - first;
                    let next = leaving[(offset / self.vcs) as usize] as u64;
                    out.push(from << 32 | (next * self.vcs + offset % self.vcs));
                }
            }
        }
        out
    }

    /// The set bits in `[a, b)`, ascending.
    fn set_bits(&self, a: u64, b: u64) -> impl Iterator<Item = u64> + '_ {
        let words = (a >> 6)..b.div_ceil(64);
        words.flat_map(move |w| {
            let mut word = self.bits[w as usize].load(Relaxed);
            std::iter::from_fn(move || {
                while word != 0 {
                    let bit = w * 64 + word.trailing_zeros() as u64;
                    word &= word - 1;
                    if (a..b).contains(&bit) {
                        return Some(bit);
                    }
                }
                None
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{LinkClass, Network};
    use crate::plant::Axis;
    use crate::routing::shortest_path::ShortestPathRouting;

    #[test]
    fn edges_come_back_sorted_once_each() {
        // A ring of three chips, both directions: links 0 (0->1), 1 (1->2), 2 (2->0), 3 (1->0).
        let mut net = Network::with_capacity(None, 3, 4);
        for (a, b) in [(0, 1), (1, 2), (2, 0), (1, 0)] {
            net.push_link(a, b, LinkClass::IntraNode, 1.0, 1.0, Axis::X, 0);
        }
        let routing = ShortestPathRouting::new(&net).unwrap();
        let g = ChannelGraph::new(&routing);
        // Added twice and out of order; the graph reads back sorted, each once.
        g.add((1, 0), (2, 0));
        g.add((0, 0), (3, 0));
        g.add((0, 0), (1, 0));
        g.add((0, 0), (1, 0));
        let vcs = routing.vcs() as u64;
        let ch = |link: u64| link * vcs;
        assert_eq!(
            g.edges(),
            vec![
                ch(0) << 32 | ch(1),
                ch(0) << 32 | ch(3),
                ch(1) << 32 | ch(2)
            ]
        );
        assert_eq!(g.max_vc(), 0);
    }
}
