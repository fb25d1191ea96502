//! Up*/down* routing with ECMP for layered switched networks (the fat-tree peers, rail-optimised
//! or not): a packet climbs, over any up link, until its switch reaches the destination by down
//! links alone, then descends over any down link that still reaches it. A route never turns
//! from down to up, so one VC is deadlock-free; the check confirms it rather than assumes it.
//! The up links are equally good, so a simulator breaks its ties among them round-robin
//! (`Selection::Balanced`).
//!
//! The same climb serves networks whose chips sit in several trees (Rail-only's rails,
//! HammingMesh's row and column trees): built over the tree links only, it routes between two
//! chips of one tree, entered by [`UpDownRouting::entries`].

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, Selection, NO_VIA};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::resources::{require, Driver, Estimate};
use std::collections::VecDeque;

pub struct UpDownRouting {
    chips: Vec<u32>,
    words: usize,
    /// Per vertex, the links to the level above and to the level below.
    up: Vec<Vec<u32>>,
    down: Vec<Vec<u32>>,
    /// Per vertex, the chips it reaches by down links only (bitset of `words` words).
    below: Vec<u64>,
    /// Per switch (vertex - chips), which tree it belongs to: its component over switch links.
    tree: Vec<u32>,
    links: LinkEnds,
}

impl UpDownRouting {
    pub fn new(net: &Network) -> Result<UpDownRouting> {
        UpDownRouting::over(net, |_| true)
    }

    /// Up*/down* over the links whose class `keep` accepts; the others (a board's mesh, an HB
    /// domain) are left to the caller.
    pub fn over(net: &Network, keep: impl Fn(LinkClass) -> bool) -> Result<UpDownRouting> {
        let vertices = net.vertices() as usize;
        let chips = net.chip_count as usize;
        let words = chips.div_ceil(64);
        // The reachability table: a bit per (vertex, chip).
        let per_chip = vertices as f64 / chips.max(1) as f64;
        require(
            "the up*/down* reachability table",
            &[Driver::new("chips", chips as u64, 1)],
            |v| {
                let c = v[0];
                Estimate::memory(c * per_chip * (c / 64.0).ceil() * 8.0)
            },
        )?;
        // Level = hops from the nearest chip: 0 for chips, 1 for leaf switches, ...
        let adjacency = Adjacency::of(net);
        let mut level = vec![u32::MAX; vertices];
        let mut queue: VecDeque<u32> = (0..net.chip_count).collect();
        level[..chips].fill(0);
        while let Some(v) = queue.pop_front() {
            for &(w, link) in adjacency.from(v) {
                let w = w as usize;
                if !keep(net.class[link as usize]) {
                    continue;
                }
                if level[w] == u32::MAX {
                    level[w] = level[v as usize] + 1;
                    queue.push_back(w as u32);
                }
            }
        }
        let mut up = vec![Vec::new(); vertices];
        let mut down = vec![Vec::new(); vertices];
        for link in (0..net.links()).filter(|&l| keep(net.class[l])) {
            let (a, b) = (net.src[link] as usize, net.dst[link] as usize);
            match level[b].checked_sub(level[a]) {
                Some(1) => up[a].push(link as u32),
                _ if level[a] == level[b] + 1 => down[a].push(link as u32),
                _ => {
                    return Err(RailxError::invalid(
                        "routing",
                        "updown",
                        format!(
                            "needs a layered network (a folded Clos), but link {link} joins vertex {a} at level {} to vertex {b} at level {}",
                            level[a], level[b]
                        ),
                        "use it on a fat-tree peer",
                    ))
                }
            }
        }
        let mut below = vec![0u64; vertices * words];
        for c in 0..chips {
            below[c * words + c / 64] |= 1 << (c % 64);
        }
        let mut order: Vec<usize> = (chips..vertices).collect();
        order.sort_by_key(|&v| level[v]);
        for v in order {
            for &link in &down[v] {
                let child = net.dst[link as usize] as usize;
                for w in 0..words {
                    below[v * words + w] |= below[child * words + w];
                }
            }
        }
        let tree = trees(net, &adjacency, &keep);
        Ok(UpDownRouting {
            chips: (0..net.chip_count).collect(),
            words,
            up,
            down,
            below,
            tree,
            links: LinkEnds::of(net, |_| true),
        })
    }

    /// The up links from chip `at` into a tree that also holds chip `target` (ECMP over those
    /// trees' leaves).
    pub fn entries(&self, at: u32, target: u32) -> impl Iterator<Item = u32> + '_ {
        let tree_of =
            |link: u32| self.tree[(self.link_target(link) - self.chips.len() as u32) as usize];
        self.up[at as usize].iter().copied().filter(move |&l| {
            let tree = tree_of(l);
            self.up[target as usize].iter().any(|&t| tree_of(t) == tree)
        })
    }

    /// The hops of a packet inside the trees bound for the chip `state.via` (the chip a climb
    /// lands on): it keeps its VC in the trees and takes `landing_vc` on the hop that lands, where
    /// the waypoint is cleared. Rail-only and HammingMesh cross their trees this way.
    pub fn toward_waypoint(&self, at: u32, state: &RouteState, landing_vc: u8, out: &mut Vec<Hop>) {
        let start = out.len();
        self.next_hops(at, state.via, state, out);
        for hop in &mut out[start..] {
            hop.vc = state.vc;
            if self.link_target(hop.link) < self.chips.len() as u32 {
                hop.state.via = NO_VIA;
                hop.state.vc = landing_vc;
            }
        }
    }

    fn reaches(&self, vertex: u32, chip: u32) -> bool {
        self.below[vertex as usize * self.words + chip as usize / 64] >> (chip % 64) & 1 == 1
    }
}

impl Routing for UpDownRouting {
    fn name(&self) -> &'static str {
        "updown"
    }

    fn vcs(&self) -> u8 {
        1
    }

    /// Every up link that still leads to the destination is as good as another.
    fn selection(&self) -> Selection {
        Selection::Balanced
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
        let descending = self.reaches(at, dst);
        let links = if descending {
            &self.down[at as usize]
        } else {
            &self.up[at as usize]
        };
        for &link in links {
            if !descending || self.reaches(self.link_target(link), dst) {
                out.push(Hop {
                    link,
                    vc: 0,
                    state: after,
                });
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}

/// Component of every switch over the kept switch-to-switch links (one per tree).
fn trees(net: &Network, adjacency: &Adjacency, keep: &impl Fn(LinkClass) -> bool) -> Vec<u32> {
    let chips = net.chip_count;
    let mut tree = vec![u32::MAX; (net.vertices() - chips) as usize];
    for root in chips..net.vertices() {
        if tree[(root - chips) as usize] != u32::MAX {
            continue;
        }
        tree[(root - chips) as usize] = root;
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for &(w, link) in adjacency.from(v) {
                if w >= chips
                    && keep(net.class[link as usize])
                    && tree[(w - chips) as usize] == u32::MAX
                {
                    tree[(w - chips) as usize] = root;
                    stack.push(w);
                }
            }
        }
    }
    tree
}
