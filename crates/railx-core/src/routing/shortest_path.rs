//! Minimal routing on any graph (the `graph` peer): at a vertex bound for chip d, every link to
//! a vertex one hop closer to d (by hop count) is allowed, so a simulator spreads traffic over
//! all shortest paths (ECMP; the flow level splits a flow evenly at every branching). A pair
//! with no path gets no hop, which the simulators report as a stuck route.
//!
//! Deadlock freedom by distance classes: the VC is the number of hops taken, so every channel
//! dependency goes from VC h to VC h + 1 and the dependency graph is acyclic; it needs as many
//! VCs as the graph's diameter.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, Selection};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::resources::{require, Driver, Estimate};
use rayon::prelude::*;
use std::collections::VecDeque;

const UNREACHABLE: u16 = u16::MAX;

pub struct ShortestPathRouting {
    chips: Vec<u32>,
    vertices: usize,
    /// `dist[d * vertices + v]`: hops from vertex v to chip d.
    dist: Vec<u16>,
    adjacency: Adjacency,
    links: LinkEnds,
    vcs: u8,
}

impl ShortestPathRouting {
    pub fn new(net: &Network) -> Result<ShortestPathRouting> {
        let vertices = net.vertices() as usize;
        let chips = net.chip_count as usize;
        // The distance table: chips x vertices entries of 2 bytes, a breadth-first search each.
        let switches = (vertices - chips) as f64;
        let links_per_vertex = net.links() as f64 / vertices.max(1) as f64;
        require(
            "the shortest-path routing table",
            &[Driver::new("chips", chips as u64, 1)],
            |v| {
                let (c, n) = (v[0], v[0] + switches * v[0] / chips as f64);
                Estimate::new(2.0 * c * n, c * n * (1.0 + links_per_vertex))
            },
        )?;
        let mut incoming = vec![Vec::new(); vertices];
        for link in 0..net.links() {
            incoming[net.dst[link] as usize].push(net.src[link]);
        }
        let mut dist = vec![UNREACHABLE; vertices * chips];
        dist.par_chunks_mut(vertices)
            .enumerate()
            .for_each(|(d, row)| {
                // Backwards breadth-first search from the destination.
                row[d] = 0;
                let mut queue = VecDeque::from([d as u32]);
                while let Some(v) = queue.pop_front() {
                    let next = row[v as usize].saturating_add(1);
                    for &u in &incoming[v as usize] {
                        if row[u as usize] == UNREACHABLE {
                            row[u as usize] = next;
                            queue.push_back(u);
                        }
                    }
                }
            });
        let diameter = dist
            .iter()
            .copied()
            .filter(|&d| d != UNREACHABLE)
            .max()
            .unwrap_or(0);
        if diameter > u8::MAX as u16 {
            return Err(RailxError::invalid(
                "routing",
                "shortest-path",
                format!("the graph's diameter is {diameter} hops, one VC per hop allows 255"),
                "add shortcut links",
            ));
        }
        Ok(ShortestPathRouting {
            chips: (0..net.chip_count).collect(),
            vertices,
            dist,
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |_| true),
            vcs: diameter.max(1) as u8,
        })
    }

    fn distance(&self, v: u32, dst: u32) -> u16 {
        self.dist[dst as usize * self.vertices + v as usize]
    }
}

impl Routing for ShortestPathRouting {
    fn name(&self) -> &'static str {
        "shortest-path"
    }

    fn vcs(&self) -> u8 {
        self.vcs
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn next_hops(&self, at: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        let here = self.distance(at, dst);
        if at == dst || here == UNREACHABLE {
            return;
        }
        let vc = state.hops.min(self.vcs - 1);
        let after = RouteState {
            hops: state.hops.saturating_add(1),
            vc,
            ..*state
        };
        for &(next, link) in self.adjacency.from(at) {
            if self.distance(next, dst) + 1 == here {
                out.push(Hop {
                    link,
                    vc,
                    state: after,
                });
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }

    /// Every offered hop is on a shortest path: ties go round-robin (ECMP).
    fn selection(&self) -> Selection {
        Selection::Balanced
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::LinkClass;
    use crate::plant::Axis;

    /// A ring of `n` chips, both directions.
    fn ring(n: u32) -> Network {
        let mut net = Network::with_capacity(None, n, 2 * n as usize);
        for a in 0..n {
            let b = (a + 1) % n;
            for (s, d) in [(a, b), (b, a)] {
                net.push_link(s, d, LinkClass::InterNodeOptical, 1e9, 1e-7, Axis::X, 0);
            }
        }
        net
    }

    #[test]
    fn offers_every_hop_on_a_shortest_path_with_rising_vcs() {
        let routing = ShortestPathRouting::new(&ring(6)).unwrap();
        assert_eq!(routing.vcs(), 3); // the diameter
        let mut out = Vec::new();
        routing.next_hops(0, 3, &RouteState::start(), &mut out);
        let targets: Vec<u32> = out.iter().map(|h| routing.link_target(h.link)).collect();
        assert_eq!(targets, vec![1, 5]); // both ways round are shortest
        assert!(out.iter().all(|h| h.vc == 0 && h.state.hops == 1));
        out.clear();
        routing.next_hops(0, 1, &RouteState::start(), &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn an_unreachable_chip_gets_no_hop() {
        // Chips 0..3 on a ring, chip 4 with no link.
        let net = ring(4);
        let mut two = Network::with_capacity(None, 5, net.links());
        for l in 0..net.links() {
            two.push_link(
                net.src[l],
                net.dst[l],
                LinkClass::InterNodeOptical,
                1e9,
                1e-7,
                Axis::X,
                0,
            );
        }
        let routing = ShortestPathRouting::new(&two).unwrap();
        let mut out = Vec::new();
        routing.next_hops(0, 4, &RouteState::start(), &mut out);
        assert!(out.is_empty());
    }
}
