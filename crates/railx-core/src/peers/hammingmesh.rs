//! HammingMesh Hx(a)Mesh: boards of a x a chips joined by a short-reach 2D mesh (on the board,
//! priced with the chips), boards in a `bx x by` grid. In each of `planes` planes every chip has
//! four ports (N, E, S, W); the west and east ports of a board's chip row go to the fat-tree of
//! that row of boards (`2 * bx` endpoints), north and south ports of a chip column to the tree
//! of that column of boards. Each tree is a non-blocking Clos of `tiers` tiers.

use super::fat_tree::Clos;
use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::Result;
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use crate::sim::flow::Generator;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HammingMeshSpec {
    /// Board side: a x a chips per board.
    pub a: u32,
    /// Boards along X and Y.
    pub boards: [u32; 2],
    #[serde(default = "one")]
    pub planes: u32,
    pub radix: u32,
    /// Tiers of every row and column tree; `None` = the fewest that take the line.
    #[serde(default)]
    pub tiers: Option<u32>,
    #[serde(default)]
    pub link: LinkSpec,
}

fn one() -> u32 {
    1
}

/// Largest Hx(a)Mesh with `tiers`-tier line trees: a tree takes two ports of each board in its
/// line, so a line holds half a Clos's endpoints, in both directions.
pub fn max_chips(a: u32, radix: u32, tiers: u32) -> u64 {
    let line = Clos::max_endpoints(radix, tiers, &[]) / 2;
    // Saturates rather than wraps past 2^64 (radices far beyond any switch).
    line.saturating_mul(line)
        .saturating_mul(a as u64 * a as u64)
}

impl HammingMeshSpec {
    fn chips(&self) -> u64 {
        self.a as u64 * self.a as u64 * self.boards[0] as u64 * self.boards[1] as u64
    }

    /// The X-line and Y-line trees.
    fn trees(&self) -> Result<[Clos; 2]> {
        positive("hammingmesh.a", self.a, "e.g. a = 4")?;
        positive("hammingmesh.planes", self.planes, "e.g. planes = 9")?;
        positive(
            "hammingmesh.boards[0]",
            self.boards[0],
            "e.g. boards = [32, 32]",
        )?;
        positive(
            "hammingmesh.boards[1]",
            self.boards[1],
            "e.g. boards = [32, 32]",
        )?;
        check_chips(self.chips())?;
        let tree = |i: usize| {
            let endpoints = 2 * self.boards[i] as u64;
            let tiers = self
                .tiers
                .unwrap_or_else(|| Clos::min_tiers(endpoints, self.radix));
            Clos::new(
                &format!("hammingmesh.boards[{i}]"),
                endpoints,
                self.radix,
                tiers,
                &[],
            )
        };
        Ok([tree(0)?, tree(1)?])
    }

    /// Chip id of chip (x, y) of board (bx, by): row-major over the global chip grid.
    fn chip(&self, bx: u32, by: u32, x: u32, y: u32) -> u32 {
        (by * self.a + y) * self.boards[0] * self.a + bx * self.a + x
    }
}

impl PeerBuilder for HammingMeshSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        let trees = self.trees()?;
        let (a, p) = (self.a as u64, self.planes as u64);
        let [bx, by] = [self.boards[0] as u64, self.boards[1] as u64];
        // Trees per axis: one per (line of boards, chip row or column, plane).
        let count = [by * a * p, bx * a * p];
        let mut packet_switches = Vec::new();
        let (mut chip_switch, mut switch_switch) = (0, 0);
        for (tree, n) in trees.iter().zip(count) {
            add_switches(&mut packet_switches, self.radix, n * tree.switch_count());
            chip_switch += n * tree.links[0];
            switch_switch += n * tree.switch_links();
        }
        let chips = self.chips();
        let boards = bx * by;
        // Halving the boards along X (or Y) splits every X tree (or Y tree) in half: `bx` (`by`)
        // ports of each cross. Both axes give bx*by*a*planes.
        let bisection = (bx * by * a * p) as f64;
        // A board's 4a ports per plane carry all but 1/boards of its a^2 chips' traffic.
        let board = 4.0 * (a * p) as f64 / ((a * a) as f64 * (1.0 - 1.0 / boards as f64));
        Ok(BillOfMaterials::switched(Switched {
            family: "hammingmesh",
            chips,
            ports_per_chip: 4 * self.planes,
            packet_switches,
            switch_tiers: Clos::deepest(&trees),
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: boards * p * 2 * a * (a - 1),
            global: GlobalBandwidth::new(chips, 4 * self.planes, bisection, board),
            ..Default::default()
        }))
    }

    fn build(&self) -> Result<Network> {
        let trees = self.trees()?;
        let a = self.a;
        let [bxs, bys] = self.boards;
        let mut net = Network::with_capacity(None, self.chips() as u32, 0);
        for by in 0..bys {
            for bx in 0..bxs {
                for y in 0..a {
                    for x in 0..a {
                        let here = self.chip(bx, by, x, y);
                        for _ in 0..self.planes {
                            if x + 1 < a {
                                let east = self.chip(bx, by, x + 1, y);
                                self.link.duplex(
                                    &mut net,
                                    here,
                                    east,
                                    LinkClass::IntraNode,
                                    Axis::X,
                                    u32::MAX,
                                );
                            }
                            if y + 1 < a {
                                let north = self.chip(bx, by, x, y + 1);
                                self.link.duplex(
                                    &mut net,
                                    here,
                                    north,
                                    LinkClass::IntraNode,
                                    Axis::Y,
                                    u32::MAX,
                                );
                            }
                        }
                    }
                }
            }
        }
        for plane in 0..self.planes {
            for by in 0..bys {
                for y in 0..a {
                    let ends: Vec<u32> = (0..bxs)
                        .flat_map(|bx| [self.chip(bx, by, 0, y), self.chip(bx, by, a - 1, y)])
                        .collect();
                    trees[0].build(&mut net, &ends, &self.link, Axis::X, plane);
                }
            }
            for bx in 0..bxs {
                for x in 0..a {
                    let ends: Vec<u32> = (0..bys)
                        .flat_map(|by| [self.chip(bx, by, x, 0), self.chip(bx, by, x, a - 1)])
                        .collect();
                    trees[1].build(&mut net, &ends, &self.link, Axis::Y, plane);
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// Translations by one board along X and along Y (of the global chip grid, wrapping): a
    /// board's mesh onto the next board's, a chip row's tree onto itself (X) or onto the next
    /// board row's same chip row (Y), and likewise the column trees.
    fn symmetry(&self) -> Option<(&'static str, Vec<Generator>)> {
        let [bx, by] = self.boards;
        let (a, chips) = (self.a, self.chips() as u32);
        let (width, height) = (bx * a, by * a);
        let generators = vec![
            Generator::coordinate_shift("one board along X", chips, 1, width, width, a),
            Generator::coordinate_shift("one board along Y", chips, width, height, height, a),
        ];
        Some(("board translations", generators))
    }

    /// Chip `x + a*(bx + boards_x*(y + a*by))`: the board's x, the row of boards (fully connected
    /// through its trees), the board's y, the column of boards.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        let [bx, by] = self.boards;
        Group::numbered(
            vec![
                GroupDim::new(self.a, DimKind::Local, Axis::X),
                GroupDim::new(bx, DimKind::AllToAll, Axis::X),
                GroupDim::new(self.a, DimKind::Local, Axis::Y),
                GroupDim::new(by, DimKind::AllToAll, Axis::Y),
            ],
            chips,
        )
    }
}
