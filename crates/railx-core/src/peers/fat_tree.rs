//! Folded-Clos fat-trees: L tiers of radix-R packet switches, non-blocking or tapered per tier,
//! optionally rail-optimised (`planes` = one separate tree per chip port). [`Clos`] is also the
//! building block of Rail-only's rails and HammingMesh's line trees.
//!
//! A tier-l switch below the top has `d_l` down and `u_l` up ports with `d_l = t_l * u_l`
//! (taper `t_l`, 1 = non-blocking), so `t_l + 1` must divide R. Counting from the endpoints up:
//! `S_l = ceil(E_l / d_l)` switches take the `E_l` links from below and send `E_(l+1) = S_l * u_l`
//! up; the top tier uses all R ports downwards, `S_L = ceil(E_(L-1) / R)`. At most
//! `R * d_1 * ... * d_(L-1)` endpoints fit (R pods under the top tier): 2 (R/2)^L non-blocking.

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth, Switched};
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use crate::sim::flow::Generator;
use serde::{Deserialize, Serialize};

/// Switch and link counts of one folded Clos.
#[derive(Debug, Clone, PartialEq)]
pub struct Clos {
    pub radix: u32,
    pub endpoints: u64,
    /// Down ports per switch of each tier below the top.
    pub down: Vec<u32>,
    /// Up ports per switch of each tier below the top.
    pub up: Vec<u32>,
    /// Switches per tier, bottom first.
    pub switches: Vec<u64>,
    /// Links per boundary: `links[0]` endpoint-leaf, `links[l]` tier l to tier l+1.
    pub links: Vec<u64>,
}

impl Clos {
    /// Largest number of endpoints `tiers` tiers of `radix` take with the given tapers (empty:
    /// non-blocking everywhere).
    pub fn max_endpoints(radix: u32, tiers: u32, taper: &[u32]) -> u64 {
        (0..tiers.saturating_sub(1) as usize)
            .map(|l| {
                let t = taper.get(l).copied().unwrap_or(1);
                (radix / (t + 1) * t) as u64
            })
            .product::<u64>()
            * radix as u64
    }

    /// Fewest non-blocking tiers that take `endpoints`.
    pub fn min_tiers(endpoints: u64, radix: u32) -> u32 {
        (1..)
            .find(|&l| Clos::max_endpoints(radix, l, &[]) >= endpoints || l >= 16)
            .unwrap_or(16)
    }

    /// Counts a Clos; `field` names the spec in errors.
    pub fn new(field: &str, endpoints: u64, radix: u32, tiers: u32, taper: &[u32]) -> Result<Clos> {
        if radix < 2 || !radix.is_multiple_of(2) {
            return Err(RailxError::invalid(
                format!("{field}.radix"),
                radix,
                "a packet switch radix must be even and >= 2",
                "e.g. radix = 64",
            ));
        }
        positive(&format!("{field}.tiers"), tiers, "e.g. tiers = 2")?;
        if !taper.is_empty() && taper.len() != tiers as usize - 1 {
            return Err(RailxError::invalid(
                format!("{field}.taper"),
                format!("{taper:?}"),
                format!(
                    "give one down:up ratio per tier below the top ({} here)",
                    tiers - 1
                ),
                "e.g. taper = [7, 7] for 3 tiers (1:7:49), or [] for non-blocking",
            ));
        }
        let mut down = Vec::new();
        let mut up = Vec::new();
        for l in 0..tiers as usize - 1 {
            let t = taper.get(l).copied().unwrap_or(1);
            if t == 0 || !radix.is_multiple_of(t + 1) {
                let valid: Vec<u32> = (1..radix).filter(|t| radix.is_multiple_of(t + 1)).collect();
                return Err(RailxError::invalid(
                    format!("{field}.taper[{l}]"),
                    t,
                    format!("a taper t splits the {radix} ports into t*u down and u up, so t + 1 must divide the radix"),
                    format!("use one of {valid:?}"),
                ));
            }
            up.push(radix / (t + 1));
            down.push(radix / (t + 1) * t);
        }
        let max = Clos::max_endpoints(radix, tiers, taper);
        if endpoints == 0 || endpoints > max {
            return Err(RailxError::invalid(
                format!("{field}.chips"),
                endpoints,
                format!("{tiers} tier(s) of radix {radix} with taper {taper:?} take 1 to {max} endpoints"),
                format!(
                    "use at most {max} chips, or {} tiers",
                    Clos::min_tiers(endpoints, radix).max(tiers + 1)
                ),
            ));
        }
        let mut switches = Vec::new();
        let mut links = vec![endpoints];
        for l in 0..tiers as usize - 1 {
            let s = links[l].div_ceil(down[l] as u64);
            switches.push(s);
            links.push(s * up[l] as u64);
        }
        switches.push(links[tiers as usize - 1].div_ceil(radix as u64));
        Ok(Clos {
            radix,
            endpoints,
            down,
            up,
            switches,
            links,
        })
    }

    /// Tiers of the deepest of several Clos networks (0 for none).
    pub fn deepest(closes: &[Clos]) -> u32 {
        closes
            .iter()
            .map(|c| c.switches.len() as u32)
            .max()
            .unwrap_or(0)
    }

    pub fn switch_count(&self) -> u64 {
        self.switches.iter().sum()
    }

    /// Links between switches (every boundary above the leaves).
    pub fn switch_links(&self) -> u64 {
        self.links[1..].iter().sum()
    }

    /// Endpoints under one switch of each tier below the top.
    fn pods(&self) -> Vec<u64> {
        self.down
            .iter()
            .scan(1u64, |acc, &d| {
                *acc *= d as u64;
                Some(*acc)
            })
            .collect()
    }

    /// Bisection ratio: a balanced cut crosses the uplinks of every tier whose subtree is smaller
    /// than the whole tree, so it keeps `1 / (product of their tapers)` of full bisection.
    pub fn bisection_frac(&self) -> f64 {
        self.pods()
            .iter()
            .zip(&self.down)
            .zip(&self.up)
            .filter(|((&pod, _), _)| pod < self.endpoints)
            .map(|((_, &d), &u)| u as f64 / d as f64)
            .product()
    }

    /// All-to-all bound per endpoint (share of its one port): a subtree of `pod` endpoints sends
    /// `1 - pod/E` of its traffic out through `pod * u/d` (cumulative) uplinks.
    pub fn a2a_bottleneck(&self) -> f64 {
        let mut cumulative = 1.0;
        let mut bound = f64::INFINITY;
        for ((pod, &d), &u) in self.pods().iter().zip(&self.down).zip(&self.up) {
            cumulative *= u as f64 / d as f64;
            if *pod < self.endpoints {
                bound = bound.min(cumulative / (1.0 - *pod as f64 / self.endpoints as f64));
            }
        }
        bound
    }

    /// Endpoints per leaf switch, as `build` wires them (all of them on a one-tier Clos).
    fn leaf_size(&self) -> u32 {
        let down = self.down.first().copied().unwrap_or(self.radix) as u64;
        down.min(self.endpoints) as u32
    }

    /// Automorphisms of this Clos that move its endpoints, as permutations of `chips` chips whose
    /// endpoint index is the coordinate `(c / stride) mod endpoints` of the chip id: the rotation
    /// of the endpoints inside every leaf (the switches stay), and the shift by one leaf (leaf s
    /// to s + 1; the upper tiers follow, as `build` wires uplink k of switch s to (s u + k) mod
    /// S). None when the last leaf is partly filled. The group they generate (Z_leaf x
    /// Z_leaves) acts freely on the endpoints; whether the switches follow is checked link by
    /// link when it is used (`sim::flow::LinkOrbits`).
    pub(crate) fn symmetries(&self, chips: u32, stride: u32) -> Vec<Generator> {
        let (leaf, endpoints) = (self.leaf_size(), self.endpoints as u32);
        if !endpoints.is_multiple_of(leaf) {
            return Vec::new();
        }
        let mut generators = Vec::new();
        if leaf > 1 {
            let label = format!("rotation inside leaves of {leaf} (stride {stride})");
            generators.push(Generator::coordinate_shift(
                label, chips, stride, endpoints, leaf, 1,
            ));
        }
        if endpoints > leaf {
            let label = format!("shift by one leaf of {leaf} (stride {stride})");
            generators.push(Generator::coordinate_shift(
                label, chips, stride, endpoints, endpoints, leaf,
            ));
        }
        generators
    }

    /// Adds this Clos's switches to `net` and wires `endpoints` (vertex ids) to it: endpoint e on
    /// leaf e / d_1; uplink k of tier-l switch s goes to tier-(l+1) switch (s*u_l + k) mod
    /// S_(l+1), which gives each leaf's uplinks distinct upper switches and the pod structure
    /// of a folded Clos when the counts are full.
    pub fn build(
        &self,
        net: &mut Network,
        endpoints: &[u32],
        link: &LinkSpec,
        axis: Axis,
        rail: u32,
    ) {
        let tiers: Vec<Vec<u32>> = self
            .switches
            .iter()
            .map(|&s| (0..s).map(|_| net.add_switch(self.radix)).collect())
            .collect();
        let leaf_down = self.down.first().copied().unwrap_or(self.radix) as usize;
        for (e, &chip) in endpoints.iter().enumerate() {
            link.duplex(
                net,
                chip,
                tiers[0][e / leaf_down],
                LinkClass::Switch,
                axis,
                rail,
            );
        }
        for l in 0..self.up.len() {
            let upper = &tiers[l + 1];
            for (s, &sw) in tiers[l].iter().enumerate() {
                for k in 0..self.up[l] as usize {
                    let target = upper[(s * self.up[l] as usize + k) % upper.len()];
                    link.duplex(net, sw, target, LinkClass::Switch, axis, rail);
                }
            }
        }
    }
}

/// A fat-tree of `chips` chips; with `planes` > 1 every chip port has its own tree
/// (rail-optimised: one plane per port).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    pub radix: u32,
    /// Tiers; `None` = the fewest that take the chips (non-blocking).
    #[serde(default)]
    pub tiers: Option<u32>,
    /// Down:up ratio per tier below the top (`[3]` = 1:3; `[7, 7]` = 1:7:49); empty = non-blocking.
    #[serde(default)]
    pub taper: Vec<u32>,
    pub chips: u64,
    #[serde(default = "one")]
    pub planes: u32,
    #[serde(default)]
    pub link: LinkSpec,
}

fn one() -> u32 {
    1
}

impl FatTreeSpec {
    fn clos(&self) -> Result<Clos> {
        positive("fat_tree.planes", self.planes, "e.g. planes = 36")?;
        check_chips(self.chips)?;
        let tiers = self
            .tiers
            .unwrap_or_else(|| Clos::min_tiers(self.chips, self.radix));
        Clos::new("fat_tree", self.chips, self.radix, tiers, &self.taper)
    }
}

impl PeerBuilder for FatTreeSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        let clos = self.clos()?;
        let planes = self.planes as u64;
        let mut packet_switches = Vec::new();
        add_switches(
            &mut packet_switches,
            self.radix,
            planes * clos.switch_count(),
        );
        let chip_switch = planes * clos.links[0];
        let switch_switch = planes * clos.switch_links();
        Ok(BillOfMaterials::switched(Switched {
            family: "fat-tree",
            chips: self.chips,
            ports_per_chip: self.planes,
            packet_switches,
            switch_tiers: clos.switches.len() as u32,
            chip_switch_links: chip_switch,
            switch_switch_links: switch_switch,
            board_links: 0,
            global: GlobalBandwidth::new(
                self.chips,
                self.planes,
                planes as f64 * self.chips as f64 / 2.0 * clos.bisection_frac(),
                planes as f64 * clos.a2a_bottleneck(),
            ),
            ..Default::default()
        }))
    }

    fn build(&self) -> Result<Network> {
        let clos = self.clos()?;
        let chips = self.chips as u32;
        let mut net = Network::with_capacity(None, chips, 0);
        let endpoints: Vec<u32> = (0..chips).collect();
        for plane in 0..self.planes {
            clos.build(&mut net, &endpoints, &self.link, Axis::X, plane);
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// Rotations inside the leaves and shifts by whole leaves, the same in every plane.
    fn symmetry(&self) -> Option<(&'static str, Vec<Generator>)> {
        let clos = self.clos().ok()?;
        let chips = self.chips as u32;
        Some(("leaf rotations and shifts", clos.symmetries(chips, 1)))
    }

    /// One fully connected dimension: every chip reaches every other through the tree.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        Group::numbered(
            vec![GroupDim::new(chips, DimKind::AllToAll, Axis::X)],
            chips,
        )
    }
}
