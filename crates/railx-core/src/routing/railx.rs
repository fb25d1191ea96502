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
    /// Per region-local node: (neighbour, exit chip, entry chip (local indices), link), sorted, so
    /// that ties between equally near links go to the lowest exit and entry chips — the same
    /// choice `metrics` makes.
    optical: Vec<Vec<(u32, u32, u32, u32)>>,
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
        let mut optical: Vec<Vec<(u32, u32, u32, u32)>> = vec![Vec::new(); node_ids.len()];
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
                optical[va as usize].push((vb, a % per_node, b % per_node, link as u32));
            }
        }
        for list in &mut optical {
            list.sort_unstable();
        }
        let neighbours = |v: u32| {
            let mut out: Vec<u32> = optical[v as usize].iter().map(|e| e.0).collect();
            out.dedup();
            out
        };
        let logical = LogicalRoutes::new(region, neighbours)?;
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

    /// The mesh lanes of the step from chip `from` toward chip `to` of the same node, X first
    /// (XY, and a crossing not yet begun) or Y first (YX).
    fn mesh_step(&self, from: u32, to: u32, order: MeshOrder) -> &[u32] {
        let (a, b) = (self.places[from as usize], self.places[to as usize]);
        let (ax, ay, bx, by) = (a.x, a.y, b.x, b.y);
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
    fn push_mesh_hops(&self, chip: u32, target: u32, vc: u8, next: RouteState, out: &mut Vec<Hop>) {
        let orders: &[(MeshOrder, u8)] =
            if self.scheme != Scheme::Balanced || next.mesh != MeshOrder::Unchosen {
                &[(next.mesh, 0)]
            } else {
                &[(MeshOrder::Xy, 0), (MeshOrder::Yx, 1)]
            };
        for &(mesh, parity) in orders {
            let vc = vc + parity;
            let state = RouteState { vc, mesh, ..next };
            out.extend(self.mesh_step(chip, target, mesh).iter().map(|&link| Hop {
                link,
                vc,
                state,
            }));
        }
    }

    /// The link from node v to neighbour w whose chip (its source) is nearest (in mesh hops) to
    /// `chip`.
    fn nearest_link(&self, v: u32, w: u32, chip: u32) -> Option<u32> {
        let list = &self.optical[v as usize];
        let start = list.partition_point(|e| e.0 < w);
        let here = self.places[chip as usize];
        list[start..]
            .iter()
            .take_while(|e| e.0 == w)
            .min_by_key(|e| {
                let exit = self.places[self.link_source(e.3) as usize];
                here.x.abs_diff(exit.x) + here.y.abs_diff(exit.y)
            })
            .map(|e| e.3)
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
                    let (a, b) = (self.logical.digit(rd, v), self.logical.digit(rd, w));
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

    /// The logical dimension (index into the local dims, or `dims.len()` for the global one) in
    /// which neighbouring nodes v and w differ.
    fn dim_of_move(&self, v: u32, w: u32) -> usize {
        let dims = &self.logical.dims;
        dims.iter()
            .position(|rd| self.logical.digit(rd, v) != self.logical.digit(rd, w))
            .unwrap_or(dims.len())
    }

    /// The first hop toward neighbour w over the link nearest to `chip`: that link itself when
    /// `chip` holds it, else the XY mesh step toward the chip that does.
    #[allow(clippy::too_many_arguments)]
    fn leave_toward(
        &self,
        chip: u32,
        v: u32,
        w: u32,
        dim: usize,
        misroute: bool,
        state: &RouteState,
        out: &mut Vec<Hop>,
    ) {
        let Some(link) = self.nearest_link(v, w, chip) else {
            return;
        };
        let vc = self.hop_vc(state, dim);
        let exit_chip = self.link_source(link);
        if exit_chip == chip {
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
            self.push_mesh_hops(chip, exit_chip, vc, next, out);
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
            .map(|&w| (w, self.dim_of_move(v, w), false))
            .collect();
        if state.misroutes < misroutes {
            let mut others: Vec<u32> = self.optical[v as usize].iter().map(|e| e.0).collect();
            others.dedup();
            out.extend(
                others
                    .into_iter()
                    .filter(|w| !minimal.contains(w))
                    .map(|w| (w, self.dim_of_move(v, w), true)),
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
        let (v, d) = (self.local(chip), self.local(dst));
        if v == d {
            let hold = RouteState {
                exit: NO_LINK,
                ..*state
            };
            self.push_mesh_hops(chip, dst, self.final_vc(state), hold, out);
            return;
        }
        if state.exit != NO_LINK {
            // Already heading for this node's exit: keep crossing the mesh, or leave by it.
            let exit_chip = self.link_source(state.exit);
            if exit_chip == chip {
                let w = self.local(self.link_target(state.exit));
                let misroute = matches!(self.scheme, Scheme::Adaptive { .. })
                    && !self.logical.minimal_next_nodes(v, d).contains(&w);
                let dim = self.dim_of_move(v, w);
                let vc = self.link_vc(state.vc);
                out.push(Hop {
                    link: state.exit,
                    vc,
                    state: self.after_hop(state, dim, vc, v, w, misroute),
                });
            } else {
                self.push_mesh_hops(chip, exit_chip, state.vc, *state, out);
            }
            return;
        }
        match self.scheme {
            Scheme::Minimal | Scheme::Dateline | Scheme::Balanced | Scheme::Phased => {
                let (w, dim) = self.logical.next_node(v, d);
                self.leave_toward(chip, v, w, dim, false, state, out);
            }
            Scheme::Adaptive { misroutes } => {
                for (w, dim, misroute) in self.adaptive_candidates(v, d, state, misroutes) {
                    self.leave_toward(chip, v, w, dim, misroute, state, out);
                }
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}
