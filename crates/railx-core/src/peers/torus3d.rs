//! 3D torus of `cube`^3 cubes (TPUv4 style): boards of `board[0] x board[1]` chips (PCB traces,
//! priced with the chips), passive copper cables between the boards of a cube, optical links
//! (a transceiver per end) between cubes, wrap-arounds included. With `ocs_radix`, every optical
//! link runs through an optical circuit switch (two OCS ports per link, TPUv4); without, the
//! fibres are fixed. Each chip has `ports_per_direction` ports towards each of its six
//! neighbours. Links in the graph carry their dimension (0, 1, 2) as `rail`. A dimension of
//! extent 1 is flat (no links, no ports), so `dims = [36, 36, 1]` is a 2D torus.

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use crate::sim::flow::Generator;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Torus3dSpec {
    /// Chips along each dimension; multiples of `cube`, or 1 for a flat dimension.
    pub dims: [u32; 3],
    #[serde(default = "four")]
    pub cube: u32,
    /// Board extent along dimensions 0 and 1 (one chip along dimension 2).
    #[serde(default = "two_by_two")]
    pub board: [u32; 2],
    pub ports_per_direction: u32,
    /// Radix of the OCS between cubes; `None` = fixed fibres.
    #[serde(default)]
    pub ocs_radix: Option<u32>,
    #[serde(default)]
    pub link: LinkSpec,
}

fn four() -> u32 {
    4
}
fn two_by_two() -> [u32; 2] {
    [2, 2]
}

/// TPUv4's limit: each OCS joins one face position of every cube, two ports per cube, so at
/// most R/2 cubes of `cube`^3 chips.
pub fn max_chips_with_ocs(radix: u32, cube: u32) -> u64 {
    radix as u64 / 2 * (cube as u64).pow(3)
}

/// What joins position i to i+1 of a dimension inside a cube.
fn class_at(i: u32, cube: u32, board: u32) -> LinkClass {
    if i == cube - 1 {
        LinkClass::InterNodeOptical
    } else if i / board == (i + 1) / board {
        LinkClass::IntraNode
    } else {
        LinkClass::Copper
    }
}

/// Mean ring distance from a chip to every chip of a ring of k (itself included).
fn mean_ring_distance(k: u32) -> f64 {
    (0..k).map(|d| d.min(k - d) as f64).sum::<f64>() / k as f64
}

impl Torus3dSpec {
    fn chips(&self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
    }

    /// Dimensions with links (extent above 1).
    fn linked_dims(&self) -> u32 {
        self.dims.iter().filter(|&&d| d > 1).count() as u32
    }

    fn boards(&self) -> [u32; 3] {
        [self.board[0], self.board[1], 1]
    }

    fn validate(&self) -> Result<()> {
        positive(
            "torus3d.ports_per_direction",
            self.ports_per_direction,
            "e.g. 6",
        )?;
        if self.cube < 2 {
            return Err(RailxError::invalid(
                "torus3d.cube",
                self.cube,
                "a cube needs at least 2 chips per side",
                "e.g. cube = 4",
            ));
        }
        for (j, &d) in self.dims.iter().enumerate() {
            if d == 0 || (d != 1 && !d.is_multiple_of(self.cube)) {
                return Err(RailxError::invalid(
                    format!("torus3d.dims[{j}]"),
                    d,
                    format!(
                        "every dimension is a whole number of cubes of {} (or 1: a flat dimension)",
                        self.cube
                    ),
                    format!("e.g. {}", self.cube * 4),
                ));
            }
        }
        for (j, &b) in self.board.iter().enumerate() {
            if b == 0 || !self.cube.is_multiple_of(b) {
                return Err(RailxError::invalid(
                    format!("torus3d.board[{j}]"),
                    b,
                    format!("boards must tile the cube of {}", self.cube),
                    "e.g. board = [2, 2]",
                ));
            }
        }
        if let Some(r) = self.ocs_radix {
            if r < 2 || !r.is_multiple_of(2) {
                return Err(RailxError::invalid(
                    "torus3d.ocs_radix",
                    r,
                    "an OCS radix must be even and >= 2",
                    "e.g. ocs_radix = 128",
                ));
            }
            let max = max_chips_with_ocs(r, self.cube);
            if self.chips() > max {
                return Err(RailxError::invalid(
                    "torus3d.dims",
                    format!("{:?} ({} chips)", self.dims, self.chips()),
                    format!("each OCS joins two ports of every cube, so radix {r} takes at most {} cubes ({max} chips)", r / 2),
                    "use fewer cubes, a larger ocs_radix, or no OCS",
                ));
            }
        }
        check_chips(self.chips())
    }
}

impl PeerBuilder for Torus3dSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        self.validate()?;
        let chips = self.chips();
        let p = self.ports_per_direction as u64;
        let mut counts = [0u64; 3]; // board, copper, optical
        for (j, board) in self.boards().into_iter().enumerate() {
            if self.dims[j] == 1 {
                continue;
            }
            for i in 0..self.cube {
                let slot = match class_at(i, self.cube, board) {
                    LinkClass::IntraNode => 0,
                    LinkClass::Copper => 1,
                    _ => 2,
                };
                // Every chip at position i (mod cube) has p links to its + neighbour.
                counts[slot] += chips / self.cube as u64 * p;
            }
        }
        let [board, copper, optical] = counts;
        let mut ocs = Vec::new();
        if let Some(r) = self.ocs_radix {
            add_switches(&mut ocs, r, (2 * optical).div_ceil(r as u64));
        }
        // Cutting the longest ring in two crosses it twice (the wrap-around) in every line.
        let longest = *self.dims.iter().max().unwrap_or(&1) as u64;
        let bisection = (2 * chips / longest * p) as f64;
        let hops: f64 = self.dims.iter().map(|&k| mean_ring_distance(k)).sum();
        let ports = 2 * self.linked_dims() * self.ports_per_direction;
        let hop_bound = ports as f64 / hops;
        Ok(BillOfMaterials {
            family: "torus3d",
            chips,
            ports_per_chip: ports,
            packet_switches: Vec::new(),
            ocs,
            pcc: copper,
            aot: 2 * optical,
            switch_tiers: 0,
            chip_switch_links: 0,
            switch_switch_links: 0,
            chip_chip_optical_links: optical,
            board_links: board,
            global: GlobalBandwidth::new(chips, ports, bisection, hop_bound),
            ..Default::default()
        })
    }

    fn build(&self) -> Result<Network> {
        self.validate()?;
        let [k0, k1, k2] = self.dims;
        let mut net = Network::with_capacity(None, self.chips() as u32, 0);
        let id = |c: [u32; 3]| c[0] + k0 * (c[1] + k1 * c[2]);
        let boards = self.boards();
        for z in 0..k2 {
            for y in 0..k1 {
                for x in 0..k0 {
                    let here = [x, y, z];
                    for j in (0..3).filter(|&j| self.dims[j] > 1) {
                        let mut next = here;
                        next[j] = (here[j] + 1) % self.dims[j];
                        let class = class_at(here[j] % self.cube, self.cube, boards[j]);
                        let axis = if j == 1 { Axis::Y } else { Axis::X };
                        for _ in 0..self.ports_per_direction {
                            self.link
                                .duplex(&mut net, id(here), id(next), class, axis, j as u32);
                        }
                    }
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// Translations by one cube along each dimension of more than one cube: a link's class and
    /// latency depend on its position inside the cube (board trace, copper, optical), so a
    /// translation by one chip is not an automorphism, one by a cube is (OCS circuits keep
    /// every cube's face wired to the next cube's).
    fn symmetry(&self) -> Option<(&'static str, Vec<Generator>)> {
        self.validate().ok()?;
        let chips = self.chips() as u32;
        let mut stride = 1;
        let mut generators = Vec::new();
        for (j, &extent) in self.dims.iter().enumerate() {
            if extent > self.cube {
                let label = format!("one cube along dimension {j}");
                generators.push(Generator::coordinate_shift(
                    label, chips, stride, extent, extent, self.cube,
                ));
            }
            stride *= extent;
        }
        Some(("cube translations", generators))
    }

    /// Per torus dimension (extent > 1) the position inside the cube (local), then the ring of
    /// cubes; dimension 1 along Y, the others along X, as the builder tags the links.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        let mut dims = Vec::new();
        for (j, &extent) in self.dims.iter().enumerate() {
            let axis = if j == 1 { Axis::Y } else { Axis::X };
            let cube = self.cube.min(extent);
            dims.push(GroupDim::new(cube, DimKind::Local, axis));
            dims.push(GroupDim::new(extent / cube, DimKind::Ring, axis));
        }
        Group::numbered(dims, chips)
    }
}
