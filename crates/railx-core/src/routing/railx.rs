//! Routing functions of a RailX region (docs/routing.md; RailX paper §4.1).
//!
//! In every scheme a packet, on entering a node (or at its source), picks the inter-node link to
//! leave by — the nearest, from its entry chip, among the links to the chosen next node — and
//! crosses the mesh to that link's chip in XY order (X first, then Y); at the destination node it
//! goes XY to the destination chip. The schemes differ in the next nodes allowed and the VCs:
//!
//! - `minimal`: the dimension-order next node (paper Algorithm 1 generalised); the VC is the
//!   number of inter-node hops taken so far, so at most diameter + 1 VCs.
//! - `dateline`: the same routes; each ring dimension gets two VCs (before and after the packet
//!   crosses its wrap-around link) and every other dimension one, so long tori need few VCs.
//! - `adaptive`: any minimal next node, plus up to `a` misrouted hops to any other neighbour;
//!   the VC is again the hop count. A misroute may undo a dimension already corrected, costing
//!   that hop and one more, so routes take at most diameter + 2a hops: diameter + 2a + 1 VCs.
//! - `balanced`: `minimal`'s routes, but each mesh crossing may go XY or YX (O1TURN, Seo et al.
//!   2005), chosen at its first hop (by the simulators: the freer way), to spread the load of the
//!   mesh links near the exit chips. Each hop class gets two VCs, XY's and YX's: within one,
//!   every crossing turns the same way (acyclic), and classes only rise, so 2 (diameter + 1) VCs.
//! - `phased`: `minimal`'s routes with a VC per dimension phase, as the RailX authors' simulator
//!   (CNSim) routes its 2D-HyperX: VC d while crossing a node toward the link of logical
//!   dimension d, d + 1 on that link, and D (the number of dimensions) in the destination node.
//!   A packet that needs no hop in a dimension skips its VC, so traffic spreads over the VCs
//!   differently from `minimal`. Only where every dimension is all-to-all (one hop each): a ring
//!   dimension's several hops would share a VC in a cycle.

use super::analysis::route;
use super::logical::LogicalRoutes;
use super::{ring_wraps, Hop, LinkEnds, MeshOrder, RouteState, Routing, NO_LINK};
use crate::closed_form::region_closed_form;
use crate::error::{RailxError, Result};
use crate::metrics::Hops;
use crate::network::{LinkClass, Network};
use crate::plan::Realized;
use crate::plant::Plant;
use crate::spec::DimKind;
use crate::topology::Region;
use serde::Serialize;

/// One hop of a described route; coordinates are `[X, Y, x, y]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HopReport {
    pub link: u32,
    pub from: [u32; 4],
    pub to: [u32; 4],
    pub external: bool,
    pub vc: u8,
}

/// A route from `src` to `dst` chip by chip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteReport {
    pub routing: String,
    pub src: u32,
    pub dst: u32,
    #[serde(rename = "hops")]
    pub hops_count: Hops,
    #[serde(rename = "path")]
    pub hops: Vec<HopReport>,
}

/// Which routing function to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Minimal,
    Dateline,
    Adaptive { misroutes: u8 },
    Balanced,
    Phased,
}

impl Scheme {
    /// Parses a routing option: `minimal`, `dateline`, `adaptive` (with `misroutes` free hops)
    /// or `balanced`.
    pub fn parse(name: &str, misroutes: u8) -> Result<Scheme> {
        match name {
            "minimal" => Ok(Scheme::Minimal),
            "dateline" => Ok(Scheme::Dateline),
            "adaptive" => Ok(Scheme::Adaptive { misroutes }),
            "balanced" => Ok(Scheme::Balanced),
            "phased" => Ok(Scheme::Phased),
            other => Err(RailxError::invalid(
                "routing",
                other,
                "unknown routing function for a RailX network",
                "use minimal, dateline, adaptive, balanced or phased",
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Minimal => "minimal",
            Scheme::Dateline => "dateline",
            Scheme::Adaptive { .. } => "adaptive",
            Scheme::Balanced => "balanced",
            Scheme::Phased => "phased",
        }
    }
}

const EAST: usize = 0;
const WEST: usize = 1;
const NORTH: usize = 2;
const SOUTH: usize = 3;

/// Where a chip is: its region-local node (`u32::MAX` outside the region) and its column and row
/// in the node's mesh. Looked up at every hop instead of divided out (the exhaustive deadlock
/// check routes billions of hops).
#[derive(Debug, Clone, Copy)]
struct Place {
    node: u32,
    x: u32,
    y: u32,
}

/// An inter-node link leaving a node, as the choice of the nearest one reads it: the link and
/// its exit chip's column and row in the node's mesh (chips per node fit in a u32, so m in a u16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exit {
    link: u32,
    x: u16,
    y: u16,
}

/// The inter-node links leaving each region-local node, grouped by the neighbour they lead to:
/// node v's neighbours are `to[first[v]..first[v + 1]]`, ascending, and the links to the one in
/// slot j are `exits[start[j]..start[j + 1]]`, ordered by exit chip, entry chip (local indices)
/// and link, so that ties between equally near links go to the lowest exit and entry chips —
/// the same choice `metrics` makes. Flat and compact, not a list per node: a route looks its
/// next node up here at every node it enters, and on large networks each table read is a cache
/// miss.
struct Exits {
    first: Vec<u32>,
    to: Vec<u32>,
    start: Vec<u32>,
    exits: Vec<Exit>,
}

impl Exits {
    /// `lists[v]`: (neighbour, exit chip, entry chip, exit) of each link leaving node v, in
    /// any order.
    fn new(mut lists: Vec<Vec<(u32, u32, u32, Exit)>>) -> Exits {
        let mut out = Exits {
            first: vec![0],
            to: Vec::new(),
            start: vec![0],
            exits: Vec::new(),
        };
        for list in &mut lists {
            list.sort_unstable_by_key(|&(w, exit, entry, e)| (w, exit, entry, e.link));
            for (i, &(w, .., e)) in list.iter().enumerate() {
                if i > 0 && list[i - 1].0 != w {
                    out.start.push(out.exits.len() as u32);
                }
                if i == 0 || list[i - 1].0 != w {
                    out.to.push(w);
                }
                out.exits.push(e);
            }
            if !list.is_empty() {
                out.start.push(out.exits.len() as u32);
            }
            out.first.push(out.to.len() as u32);
        }
        out
    }

    /// The nodes node v has links to, ascending.
    fn neighbours(&self, v: u32) -> &[u32] {
        &self.to[self.first[v as usize] as usize..self.first[v as usize + 1] as usize]
    }

    /// The links from node v to node w (none when w is not a neighbour).
    fn toward(&self, v: u32, w: u32) -> &[Exit] {
        let (first, end) = (
            self.first[v as usize] as usize,
            self.first[v as usize + 1] as usize,
        );
        let slot = first + self.to[first..end].partition_point(|&n| n < w);
        if slot == end || self.to[slot] != w {
            return &[];
        }
        &self.exits[self.start[slot] as usize..self.start[slot + 1] as usize]
    }
}

/// A routing function over one region of a realized RailX network.
pub struct RailxRouting {
    scheme: Scheme,
    plant: Plant,
    per_node: u32,
    /// Per plant chip.
    places: Vec<Place>,
    chips: Vec<u32>,
    /// Plant node -> region-local node (`u32::MAX` outside the region).
    local_of_node: Vec<u32>,
    logical: LogicalRoutes,
    /// Mesh lanes per chip edge (the plant's n).
    lanes: u32,
    /// The mesh links leaving each chip eastward, westward, northward, southward, `lanes` per
    /// direction in lane order: chip c's lane l toward `dir` is `mesh[(4 c + dir) lanes + l]`
    /// (`NO_LINK` at the mesh's edges).
    mesh: Vec<u32>,
    optical: Exits,
    links: LinkEnds,
    /// Dateline: first VC of each logical dimension (local dims, then the global one).
    vc_base: Vec<u8>,
    vcs: u8,
}

impl RailxRouting {
    pub fn new(net: &Network, region: &Region, scheme: Scheme) -> Result<RailxRouting> {
        let plant: &Plant = net.railx_plant()?;
        let per_node = plant.chips_per_node();
        let node_ids = region.node_ids(plant);
        let mut local_of_node = vec![u32::MAX; plant.nodes() as usize];
        for (i, &node) in node_ids.iter().enumerate() {
            local_of_node[node as usize] = i as u32;
        }
        let lanes = plant.n;
        let mut mesh = vec![NO_LINK; (4 * lanes * plant.chips()) as usize];
        let mut optical: Vec<Vec<(u32, u32, u32, Exit)>> = vec![Vec::new(); node_ids.len()];
        for link in 0..net.links() {
            let (a, b) = (net.src[link], net.dst[link]);
            if net.class[link] == LinkClass::IntraNode {
                let (la, lb) = (a % per_node, b % per_node);
                let dir = if lb == la + 1 {
                    EAST
                } else if la == lb + 1 {
                    WEST
                } else if lb > la {
                    NORTH
                } else {
                    SOUTH
                };
                let lane = net.lane(link).filter(|&l| l < lanes).ok_or_else(|| {
                    RailxError::internal(
                        "network",
                        format!(
                            "mesh link {link} has lane {:?}, not one of 0..{lanes}",
                            net.lane(link)
                        ),
                    )
                })?;
                mesh[((4 * a + dir as u32) * lanes + lane) as usize] = link as u32;
                continue;
            }
            let (va, vb) = (
                local_of_node[(a / per_node) as usize],
                local_of_node[(b / per_node) as usize],
            );
            if va != u32::MAX && vb != u32::MAX {
                let exit = a % per_node;
                let place = Exit {
                    link: link as u32,
                    x: (exit % plant.m) as u16,
                    y: (exit / plant.m) as u16,
                };
                optical[va as usize].push((vb, exit, b % per_node, place));
            }
        }
        let optical = Exits::new(optical);
        let logical = LogicalRoutes::new(region, |v| optical.neighbours(v).to_vec())?;
        // Dimension-order routes are as long as the closed-form diameter at most.
        let diameter = region_closed_form(plant, region).diameter_inter_node;
        let mut vc_base = Vec::new();
        let vcs = match scheme {
            Scheme::Minimal => diameter + 1,
            Scheme::Balanced => 2 * (diameter + 1),
            Scheme::Phased => {
                let one_hop = |rd: &super::logical::RouteDim| rd.dim.kind != DimKind::Ring;
                if logical.global.is_some() || !logical.dims.iter().all(one_hop) {
                    return Err(RailxError::invalid(
                        "routing",
                        "phased",
                        format!(
                            "{} has a ring or global dimension, whose hops would share a VC",
                            region.label()
                        ),
                        "use routing = minimal",
                    ));
                }
                logical.dims.len() as u32 + 1
            }
            // A misroute can also undo a correction already made: two more hops each.
            Scheme::Adaptive { misroutes } => diameter + 2 * misroutes as u32 + 1,
            Scheme::Dateline => {
                if !logical.dims.iter().any(|rd| rd.dim.kind == DimKind::Ring) {
                    return Err(RailxError::invalid(
                        "routing",
                        "dateline",
                        format!(
                            "{} has no ring dimension for a dateline to break",
                            region.label()
                        ),
                        "use routing = minimal or adaptive",
                    ));
                }
                let mut next = 0u32;
                for rd in logical.dims.iter().chain(logical.global.iter()) {
                    vc_base.push(next as u8);
                    next += if rd.dim.kind == DimKind::Ring { 2 } else { 1 };
                }
                next
            }
        };
        if vcs > u8::MAX as u32 {
            return Err(RailxError::invalid(
                "routing",
                scheme.name(),
                format!("needs {vcs} virtual channels, more than the 255 railx models"),
                "use routing = dateline for long rings",
            ));
        }
        Ok(RailxRouting {
            scheme,
            plant: plant.clone(),
            per_node,
            places: (0..plant.chips())
                .map(|chip| {
                    let local = chip % per_node;
                    Place {
                        node: local_of_node[(chip / per_node) as usize],
                        x: local % plant.m,
                        y: local / plant.m,
                    }
                })
                .collect(),
            chips: node_ids
                .iter()
                .flat_map(|&n| (0..per_node).map(move |c| n * per_node + c))
                .collect(),
            local_of_node,
            logical,
            lanes,
            mesh,
            optical,
            links: LinkEnds::of(net, |c| c != LinkClass::IntraNode),
            vc_base,
            vcs: vcs as u8,
        })
    }

    /// The routing of one region of a realized configuration: the job named `job`, or the only
    /// region when there is one.
    pub fn of_region(
        realized: &Realized,
        job: Option<&str>,
        scheme: Scheme,
    ) -> Result<RailxRouting> {
        let region = realized.system.region(job)?;
        RailxRouting::new(&realized.network, region, scheme)
    }

    /// A route described chip by chip, with coordinates `(X, Y, x, y)`.
    pub fn describe_route(&self, src: u32, dst: u32) -> Result<RouteReport> {
        self.node_of(src)?;
        self.node_of(dst)?;
        let path = route(self, src, dst)?;
        let hops: Vec<HopReport> = path
            .iter()
            .map(|h| {
                let (from, to) = (self.link_source(h.link), self.link_target(h.link));
                HopReport {
                    link: h.link,
                    from: self.plant.chip_coords(from).into(),
                    to: self.plant.chip_coords(to).into(),
                    external: self.is_external(h.link),
                    vc: h.vc,
                }
            })
            .collect();
        let ho = hops.iter().filter(|h| h.external).count() as u32;
        Ok(RouteReport {
            routing: self.scheme.name().to_string(),
            src,
            dst,
            hops_count: Hops {
                Ho: ho,
                Hi: hops.len() as u32 - ho,
            },
            hops,
        })
    }

    /// The region-local node of a chip; an error for a chip outside the region.
    pub fn node_of(&self, chip: u32) -> Result<u32> {
        let node = (chip / self.per_node) as usize;
        match self.local_of_node.get(node) {
            Some(&v) if v != u32::MAX => Ok(v),
            _ => Err(RailxError::invalid(
                "chip",
                chip,
                "is not a chip of this network's region",
                format!(
                    "use a chip id of the region ({} chips, ids as in `railx network`)",
                    self.chips.len()
                ),
            )),
        }
    }

    fn local(&self, chip: u32) -> u32 {
        self.places[chip as usize].node
    }

    /// The mesh lanes of the step from chip `from` (at `a`) toward the chip of the same node at
    /// column and row `b`, X first (XY, and a crossing not yet begun) or Y first (YX).
    fn mesh_step(&self, from: u32, a: Place, b: (u32, u32), order: MeshOrder) -> &[u32] {
        let (ax, ay, (bx, by)) = (a.x, a.y, b);
        // Along X while X differs (XY) or once Y agrees (YX); else along Y.
        let dir = if (order != MeshOrder::Yx && bx != ax) || ay == by {
            if bx > ax {
                EAST
            } else {
                WEST
            }
        } else if by > ay {
            NORTH
        } else {
            SOUTH
        };
        let first = ((4 * from + dir as u32) * self.lanes) as usize;
        &self.mesh[first..first + self.lanes as usize]
    }

    /// The mesh hop(s) from `chip` toward `target` on VC `vc`, the packet carrying `next` after
    /// it: every lane of the step, in lane order, on the same VC (lanes are parallel links, so
    /// the choice among them leaves the dependencies of the crossing as they are). Under
    /// `balanced` a crossing's first hop is offered both ways: XY on `vc` (even) and YX on
    /// `vc + 1`; the order then holds for the rest of the crossing.
    #[inline(always)]
    fn push_mesh_hops(
        &self,
        (chip, here): (u32, Place),
        target: (u32, u32),
        vc: u8,
        next: RouteState,
        out: &mut Vec<Hop>,
    ) {
        if self.scheme == Scheme::Balanced && next.mesh == MeshOrder::Unchosen {
            for (mesh, vc) in [(MeshOrder::Xy, vc), (MeshOrder::Yx, vc + 1)] {
                self.push_lanes((chip, here), target, RouteState { vc, mesh, ..next }, out);
            }
        } else {
            self.push_lanes((chip, here), target, RouteState { vc, ..next }, out);
        }
    }

    /// Every lane of the mesh step from `chip` toward `target` in the order `state.mesh`, on
    /// VC `state.vc`, the packet carrying `state` after it.
    #[inline]
    fn push_lanes(
        &self,
        (chip, here): (u32, Place),
        target: (u32, u32),
        state: RouteState,
        out: &mut Vec<Hop>,
    ) {
        let lanes = self.mesh_step(chip, here, target, state.mesh);
        let hop = Hop {
            link: NO_LINK,
            vc: state.vc,
            state,
        };
        out.reserve(lanes.len());
        for &link in lanes {
            out.push(Hop { link, ..hop });
        }
    }

    /// The link from node v to neighbour w whose chip (its source) is nearest (in mesh hops) to
    /// `chip`.
    fn nearest_link(&self, v: u32, w: u32, here: Place) -> Option<Exit> {
        self.optical
            .toward(v, w)
            .iter()
            .min_by_key(|e| here.x.abs_diff(e.x as u32) + here.y.abs_diff(e.y as u32))
            .copied()
    }

    /// The VC of a hop in logical dimension `dim` for a packet in `state` (and of the mesh
    /// traversal leading to it).
    fn hop_vc(&self, state: &RouteState, dim: usize) -> u8 {
        match self.scheme {
            Scheme::Dateline if state.dim as usize == dim => state.vc,
            Scheme::Dateline => self.vc_base[dim],
            // Even: the XY VC of the hop class (a crossing's first hop may move to YX's).
            Scheme::Balanced => 2 * state.hops,
            Scheme::Phased => dim as u8,
            _ => state.hops,
        }
    }

    /// The VC of an inter-node link leaving a node whose mesh the packet crossed on `mesh_vc`.
    fn link_vc(&self, mesh_vc: u8) -> u8 {
        match self.scheme {
            Scheme::Phased => mesh_vc + 1,
            _ => mesh_vc,
        }
    }

    /// The VC of the mesh crossing in the destination node.
    fn final_vc(&self, state: &RouteState) -> u8 {
        match self.scheme {
            Scheme::Phased => self.vcs - 1,
            _ => state.vc,
        }
    }

    /// The state after crossing `link` in logical dimension `dim` from node v to w.
    fn after_hop(
        &self,
        state: &RouteState,
        dim: usize,
        vc: u8,
        v: u32,
        w: u32,
        misroute: bool,
    ) -> RouteState {
        let next_vc = match self.scheme {
            Scheme::Dateline => {
                // Crossing a ring's wrap-around link moves the packet to the dimension's second VC.
                let rd = self.logical.dims.get(dim);
                let wraps = rd.is_some_and(|rd| {
                    let (a, b) = (
                        self.logical.digits_of(v)[dim],
                        self.logical.digits_of(w)[dim],
                    );
                    rd.dim.kind == DimKind::Ring && ring_wraps(rd.dim.size, a, b)
                });
                if wraps {
                    self.vc_base[dim] + 1
                } else {
                    vc
                }
            }
            Scheme::Balanced => 2 * (state.hops + 1),
            Scheme::Phased => dim as u8 + 1,
            _ => state.hops + 1,
        };
        RouteState {
            exit: NO_LINK,
            hops: state.hops + 1,
            misroutes: state.misroutes + misroute as u8,
            vc: next_vc,
            dim: dim as u8,
            via: super::NO_VIA,
            mesh: MeshOrder::Unchosen,
        }
    }

    /// The first hop toward neighbour w over the link nearest to `chip` (at `here`): that link
    /// itself when `chip` holds it, else the XY mesh step toward the chip that does.
    #[allow(clippy::too_many_arguments)]
    fn leave_toward(
        &self,
        (chip, here): (u32, Place),
        v: u32,
        w: u32,
        dim: usize,
        misroute: bool,
        state: &RouteState,
        out: &mut Vec<Hop>,
    ) {
        let Some(Exit { link, x, y }) = self.nearest_link(v, w, here) else {
            return;
        };
        let vc = self.hop_vc(state, dim);
        let exit = (x as u32, y as u32);
        if exit == (here.x, here.y) {
            let vc = self.link_vc(vc);
            out.push(Hop {
                link,
                vc,
                state: self.after_hop(state, dim, vc, v, w, misroute),
            });
        } else {
            let next = RouteState {
                exit: link,
                ..*state
            };
            self.push_mesh_hops((chip, here), exit, vc, next, out);
        }
    }

    /// Candidate next nodes from v toward d (adaptive), each with its logical dimension and whether it is a
    /// misroute.
    fn adaptive_candidates(
        &self,
        v: u32,
        d: u32,
        state: &RouteState,
        misroutes: u8,
    ) -> Vec<(u32, usize, bool)> {
        let minimal = self.logical.minimal_next_nodes(v, d);
        let mut out: Vec<(u32, usize, bool)> = minimal
            .iter()
            .map(|&w| (w, self.logical.dim_of_move(v, w), false))
            .collect();
        if state.misroutes < misroutes {
            out.extend(
                self.optical
                    .neighbours(v)
                    .iter()
                    .filter(|w| !minimal.contains(w))
                    .map(|&w| (w, self.logical.dim_of_move(v, w), true)),
            );
        }
        out
    }
}

impl Routing for RailxRouting {
    fn name(&self) -> &'static str {
        self.scheme.name()
    }

    fn rising_vcs(&self) -> bool {
        self.scheme != Scheme::Dateline
    }

    fn vcs(&self) -> u8 {
        self.vcs
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    /// A node's chips (consecutive in `chips`): outside the destination's node, every scheme
    /// routes by the destination node alone.
    fn destinations_per_group(&self) -> usize {
        self.per_node as usize
    }

    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        if chip == dst {
            return;
        }
        let (here, there) = (self.places[chip as usize], self.places[dst as usize]);
        let (v, d) = (here.node, there.node);
        if v == d {
            let hold = RouteState {
                exit: NO_LINK,
                ..*state
            };
            let target = (there.x, there.y);
            self.push_mesh_hops((chip, here), target, self.final_vc(state), hold, out);
            return;
        }
        if state.exit != NO_LINK {
            // Already heading for this node's exit: keep crossing the mesh, or leave by it.
            let [exit_chip, entry_chip] = self.links.ends(state.exit);
            if exit_chip == chip {
                let w = self.local(entry_chip);
                let misroute = matches!(self.scheme, Scheme::Adaptive { .. })
                    && !self.logical.minimal_next_nodes(v, d).contains(&w);
                let dim = self.logical.dim_of_move(v, w);
                let vc = self.link_vc(state.vc);
                out.push(Hop {
                    link: state.exit,
                    vc,
                    state: self.after_hop(state, dim, vc, v, w, misroute),
                });
            } else {
                let exit = self.places[exit_chip as usize];
                self.push_mesh_hops((chip, here), (exit.x, exit.y), state.vc, *state, out);
            }
            return;
        }
        match self.scheme {
            Scheme::Minimal | Scheme::Dateline | Scheme::Balanced | Scheme::Phased => {
                let (w, dim) = self.logical.next_node(v, d);
                self.leave_toward((chip, here), v, w, dim, false, state, out);
            }
            Scheme::Adaptive { misroutes } => {
                for (w, dim, misroute) in self.adaptive_candidates(v, d, state, misroutes) {
                    self.leave_toward((chip, here), v, w, dim, misroute, state, out);
                }
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{realize, Realized};
    use crate::spec::{ConfigSpec, Preset, TopologySpec};
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// Small regions of every logical dimension kind: rings, all-to-alls with parallel links
    /// and several mesh lanes, a Dragonfly's global dimension.
    fn regions() -> &'static [Realized] {
        static REGIONS: OnceLock<Vec<Realized>> = OnceLock::new();
        REGIONS.get_or_init(|| {
            let spec = |m, n, radix, grid, preset| ConfigSpec {
                system: crate::plant::tests::spec(m, n, radix, Some(grid)),
                topology: Some(TopologySpec {
                    preset: Some(preset),
                    ..Default::default()
                }),
                jobs: vec![],
            };
            [
                spec(3, 2, 12, [4, 5], Preset::Torus),
                spec(4, 2, 16, [5, 5], Preset::Hyperx),
                spec(2, 2, 14, [7, 3], Preset::Dragonfly),
            ]
            .iter()
            .map(|s| realize(s).unwrap())
            .collect()
        })
    }

    /// The dimension-order next node computed from the coordinates directly (division and
    /// modulo, one step the shorter way round a ring, ties forward).
    fn direct_next_node(lr: &LogicalRoutes, v: u32, d: u32) -> (u32, usize) {
        let k = lr
            .dims
            .iter()
            .position(|rd| lr.digit(rd, v) != lr.digit(rd, d))
            .unwrap_or(0);
        let rd = &lr.dims[k];
        let (s, here, target) = (rd.dim.size, lr.digit(rd, v), lr.digit(rd, d));
        let next = match rd.dim.kind {
            DimKind::Ring if (target + s - here) % s <= s / 2 => (here + 1) % s,
            DimKind::Ring => (here + s - 1) % s,
            _ => target,
        };
        (lr.moved(rd, v, next), k)
    }

    proptest! {
        /// The routing's tables answer as the network and the coordinates do: every node's
        /// coordinates, the next node of a route within a group, and the link to a neighbour
        /// nearest to a chip (ties: lowest exit chip, entry chip, link).
        #[test]
        fn tables_are_the_direct_computation(which in 0usize..3, a in any::<u32>(), b in any::<u32>()) {
            let real = &regions()[which];
            let routing = RailxRouting::new(&real.network, &real.system.regions[0], Scheme::Minimal).unwrap();
            let lr = &routing.logical;
            let (v, d) = (a % lr.nodes(), b % lr.nodes());
            for (k, rd) in lr.dims.iter().enumerate() {
                prop_assert_eq!(lr.digits_of(v)[k], lr.digit(rd, v));
            }
            let same_group = lr.global.is_none_or(|g| lr.along(g.axis, v) == lr.along(g.axis, d));
            if v != d && same_group {
                prop_assert_eq!(lr.next_node(v, d), direct_next_node(lr, v, d));
            }
            let chip = routing.chips[(v * routing.per_node + b % routing.per_node) as usize];
            let here = routing.places[chip as usize];
            let net = &real.network;
            let per = routing.per_node;
            for &w in routing.optical.neighbours(v) {
                let direct = (0..net.links() as u32)
                    .filter(|&l| {
                        let (s, t) = (net.src[l as usize], net.dst[l as usize]);
                        net.class[l as usize] != LinkClass::IntraNode
                            && routing.local(s) == v
                            && routing.local(t) == w
                    })
                    .min_by_key(|&l| {
                        let (s, t) = (net.src[l as usize], net.dst[l as usize]);
                        let exit = routing.places[s as usize];
                        (here.x.abs_diff(exit.x) + here.y.abs_diff(exit.y), s % per, t % per, l)
                    });
                prop_assert_eq!(routing.nearest_link(v, w, here).map(|e| e.link), direct);
            }
            let neighbours: std::collections::BTreeSet<u32> = (0..net.links())
                .filter(|&l| net.class[l] != LinkClass::IntraNode && routing.local(net.src[l]) == v)
                .map(|l| routing.local(net.dst[l]))
                .collect();
            prop_assert_eq!(routing.optical.neighbours(v), &neighbours.into_iter().collect::<Vec<_>>()[..]);
        }
    }
}
