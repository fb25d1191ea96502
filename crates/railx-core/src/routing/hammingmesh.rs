//! Dimension-order routing for the HammingMesh peers (Hoefler et al., SC'22, its simplest
//! scheme): a packet first corrects its board column through the fat-tree of its chip row, then
//! its board row through the fat-tree of its chip column, moving on each board's 2D mesh in XY
//! order to the port chip it leaves by. On the source board it goes along its row to the nearer
//! west or east edge and climbs that row's tree, which lands it on the destination board
//! column's edge nearer the destination; there it goes along X to the destination's column and
//! along Y to the nearer north or south edge, and the column's tree lands it on the destination
//! board's edge nearer the destination, from which it goes along Y. Trees are climbed up*/down*
//! with ECMP over planes and up links.
//!
//! VC = trees crossed so far (at most 3 VCs): within one VC the mesh hops are XY ordered and end
//! in a climb, and leaving a tree moves the packet to the next VC, so no dependency leads back;
//! the deadlock check confirms it.

use super::updown::UpDownRouting;
use super::{Adjacency, Hop, LinkEnds, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};

pub struct HammingMeshRouting {
    /// Board side (a x a chips).
    a: u32,
    /// Chips along the global X axis (boards along X times a).
    width: u32,
    chips: Vec<u32>,
    /// Up*/down* over the row and column trees (board mesh links left out).
    trees: UpDownRouting,
    adjacency: Adjacency,
    /// Board mesh links are intra-node hops (Hi), tree links external (Ho).
    links: LinkEnds,
}

/// Where a packet at a chip goes next.
enum Step {
    /// One mesh hop to this chip.
    Mesh(u32),
    /// Into a tree that lands on this chip.
    Tree(u32),
}

impl HammingMeshRouting {
    /// Over the network the HammingMesh peer builds: `boards` along X and Y of `a` x `a` chips,
    /// chip id = Y * (boards[0] * a) + X on the global chip grid.
    pub fn new(net: &Network, a: u32, boards: [u32; 2]) -> Result<HammingMeshRouting> {
        let chips = (a * boards[0]) as u64 * (a * boards[1]) as u64;
        if chips != net.chip_count as u64 || a == 0 {
            return Err(RailxError::invalid(
                "routing",
                "hammingmesh",
                format!("needs {chips} chips ({boards:?} boards of {a} x {a})"),
                "use it on the HammingMesh peer it was built from",
            ));
        }
        Ok(HammingMeshRouting {
            a,
            width: a * boards[0],
            chips: (0..net.chip_count).collect(),
            trees: UpDownRouting::over(net, |c| c != LinkClass::IntraNode)?,
            adjacency: Adjacency::of(net),
            links: LinkEnds::of(net, |c| c != LinkClass::IntraNode),
        })
    }

    /// The board edge (first or last chip of a line, as a global coordinate) nearer to `v`.
    fn edge(&self, v: u32) -> u32 {
        let (base, offset) = (v - v % self.a, v % self.a);
        if offset <= self.a - 1 - offset {
            base
        } else {
            base + self.a - 1
        }
    }

    fn step(&self, at: u32, dst: u32) -> Step {
        let a = self.a;
        let chip = |x: u32, y: u32| y * self.width + x;
        let toward = |v: u32, w: u32| if w > v { v + 1 } else { v - 1 };
        let (x, y) = (at % self.width, at / self.width);
        let (dx, dy) = (dst % self.width, dst / self.width);
        if x / a != dx / a {
            let exit = self.edge(x);
            if x != exit {
                return Step::Mesh(chip(toward(x, exit), y));
            }
            return Step::Tree(chip(self.edge(dx), y));
        }
        if x != dx {
            return Step::Mesh(chip(toward(x, dx), y));
        }
        if y / a != dy / a {
            let exit = self.edge(y);
            if y != exit {
                return Step::Mesh(chip(x, toward(y, exit)));
            }
            return Step::Tree(chip(x, self.edge(dy)));
        }
        Step::Mesh(chip(x, toward(y, dy)))
    }
}

impl Routing for HammingMeshRouting {
    fn name(&self) -> &'static str {
        "dimension-order"
    }

    fn vcs(&self) -> u8 {
        3
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn next_hops(&self, at: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        if at == dst {
            return;
        }
        let chips = self.chips.len() as u32;
        let vc = state.vc;
        if at >= chips {
            // Inside a tree, bound for the chip it lands on; landing moves to the next VC.
            self.trees.toward_waypoint(at, state, vc + 1, out);
            return;
        }
        let after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        match self.step(at, dst) {
            Step::Mesh(next) => {
                if let Some(link) = self.adjacency.link_to(at, next) {
                    out.push(Hop {
                        link,
                        vc,
                        state: after,
                    });
                }
            }
            Step::Tree(land) => out.extend(self.trees.entries(at, land).map(|link| Hop {
                link,
                vc,
                state: RouteState { via: land, ..after },
            })),
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
