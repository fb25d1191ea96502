//! Node-level routing on a region's logical topology: coordinates, and the next node of the
//! dimension-order minimal route (docs/routing.md; RailX paper Algorithm 1 generalised). Logical
//! dims are corrected in order (X's innermost first, then Y's); a ring steps the shorter way (ties
//! forward); an all-to-all jumps; a Dragonfly's global dimension goes local (to the node holding
//! the global link), global, local. Nodes are region-local indices `j * |xs| + i`.

use crate::error::{RailxError, Result};
use crate::plant::Axis;
use crate::spec::DimKind;
use crate::topology::{LogicalDim, Region};

/// A logical dimension with the axis it lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteDim {
    pub axis: Axis,
    pub dim: LogicalDim,
}

/// The other physical axis.
pub fn other(axis: Axis) -> Axis {
    match axis {
        Axis::X => Axis::Y,
        Axis::Y => Axis::X,
    }
}

/// Coordinates and dimension-order next nodes of one region.
#[derive(Debug, Clone)]
pub struct LogicalRoutes {
    width: u32,
    nodes: u32,
    /// Local dimensions in correction order.
    pub dims: Vec<RouteDim>,
    /// A Dragonfly's global dimension, if any.
    pub global: Option<RouteDim>,
    /// gateway[a * G + b]: the lines (positions along the other axis) whose node in group a has a
    /// global link to group b — two per pair of groups, one per direction of the decomposition.
    gateway: Vec<Vec<u32>>,
    /// Every node's coordinate in each local dimension: `digits[v * dims.len() + k]`. Looked up
    /// rather than divided out: the routing functions ask at every inter-node hop.
    digits: Vec<u32>,
    /// How far apart in node index two nodes are whose coordinates in local dimension k differ
    /// by one (the dimension's place value along its axis, times the width for Y): moving a
    /// node in dimension k adds a multiple of it.
    node_stride: Vec<u32>,
}

impl LogicalRoutes {
    /// `neighbours(v)` lists the region-local nodes that node v has a link to.
    pub fn new(region: &Region, neighbours: impl Fn(u32) -> Vec<u32>) -> Result<LogicalRoutes> {
        let mut dims = Vec::new();
        let mut global = None;
        for axis in Axis::BOTH {
            for dim in &region.layout(axis).dims {
                let rd = RouteDim { axis, dim: *dim };
                if dim.kind == DimKind::GlobalAllToAll {
                    global = Some(rd);
                } else {
                    dims.push(rd);
                }
            }
        }
        let width = region.xs.len() as u32;
        let mut routes = LogicalRoutes {
            width,
            nodes: region.nodes(),
            node_stride: dims
                .iter()
                .map(|rd| match rd.axis {
                    Axis::X => rd.dim.stride,
                    Axis::Y => rd.dim.stride * width,
                })
                .collect(),
            dims,
            global,
            gateway: Vec::new(),
            digits: Vec::new(),
        };
        routes.digits = (0..routes.nodes)
            .flat_map(|v| {
                let routes = &routes;
                routes.dims.iter().map(move |rd| routes.digit(rd, v))
            })
            .collect();
        if let Some(g) = global {
            routes.gateway = routes.gateways(region, g, neighbours)?;
        }
        Ok(routes)
    }

    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Position of node v along an axis.
    pub fn along(&self, axis: Axis, v: u32) -> u32 {
        match axis {
            Axis::X => v % self.width,
            Axis::Y => v / self.width,
        }
    }

    /// Node v moved to position `pos` along an axis.
    pub fn with_along(&self, axis: Axis, v: u32, pos: u32) -> u32 {
        match axis {
            Axis::X => v - v % self.width + pos,
            Axis::Y => v % self.width + pos * self.width,
        }
    }

    /// Node v's coordinate in a logical dimension.
    pub fn digit(&self, rd: &RouteDim, v: u32) -> u32 {
        rd.dim.digit(self.along(rd.axis, v))
    }

    /// Node v with its coordinate in `rd` set to `digit`.
    pub fn moved(&self, rd: &RouteDim, v: u32, digit: u32) -> u32 {
        let pos = rd.dim.with_digit(self.along(rd.axis, v), digit);
        self.with_along(rd.axis, v, pos)
    }

    fn gateways(
        &self,
        region: &Region,
        g: RouteDim,
        neighbours: impl Fn(u32) -> Vec<u32>,
    ) -> Result<Vec<Vec<u32>>> {
        let groups = g.dim.size;
        let lines = region.positions(other(g.axis)).len() as u32;
        let mut gateway = vec![Vec::new(); (groups * groups) as usize];
        for line in 0..lines {
            for a in 0..groups {
                let v = self.with_along(other(g.axis), self.with_along(g.axis, 0, a), line);
                for w in neighbours(v) {
                    if self.along(other(g.axis), w) == line {
                        gateway[(a * groups + self.along(g.axis, w)) as usize].push(line);
                    }
                }
            }
        }
        for a in 0..groups {
            for b in (0..groups).filter(|&b| b != a) {
                if gateway[(a * groups + b) as usize].is_empty() {
                    return Err(RailxError::verification(
                        region.label(),
                        format!("no global link from group {a} to group {b}"),
                    ));
                }
            }
        }
        Ok(gateway)
    }

    /// The line through which to leave group a for group b when travelling from line `from` to
    /// line `to`: the gateway needing the fewest local hops (the lowest line on a tie).
    pub fn gateway(&self, a: u32, b: u32, from: u32, to: u32) -> u32 {
        let groups = self.global.map(|g| g.dim.size).unwrap_or(0);
        let lines = &self.gateway[(a * groups + b) as usize];
        *lines
            .iter()
            .min_by_key(|&&g| ((g != from) as u32 + (g != to) as u32, g))
            .unwrap_or(&0)
    }

    /// Node v's coordinates in the local dimensions, in `dims` order.
    pub fn digits_of(&self, v: u32) -> &[u32] {
        let k = self.dims.len();
        &self.digits[v as usize * k..(v as usize + 1) * k]
    }

    /// Node v, whose coordinate in local dimension k is `here`, with that coordinate set to
    /// `digit` (`moved` without dividing out the coordinate).
    fn moved_in(&self, k: usize, v: u32, here: u32, digit: u32) -> u32 {
        v - here * self.node_stride[k] + digit * self.node_stride[k]
    }

    /// The first local dimension (index into `dims`) in which v and `dst` differ.
    fn first_difference(&self, v: u32, dst: u32) -> Option<usize> {
        let (a, b) = (self.digits_of(v), self.digits_of(dst));
        a.iter().zip(b).position(|(x, y)| x != y)
    }

    /// The logical dimension (index into `dims`, or `dims.len()` for the global one) in which
    /// neighbouring nodes v and w differ.
    pub fn dim_of_move(&self, v: u32, w: u32) -> usize {
        self.first_difference(v, w).unwrap_or(self.dims.len())
    }

    /// The next node of the dimension-order minimal route from v to dst (v != dst), and the index
    /// of the dimension it moves in (`dims.len()` for the global dimension).
    pub fn next_node(&self, v: u32, dst: u32) -> (u32, usize) {
        if let Some(g) = self.global {
            let (a, b) = (self.along(g.axis, v), self.along(g.axis, dst));
            if a != b {
                let side = other(g.axis);
                let line = self.gateway(a, b, self.along(side, v), self.along(side, dst));
                let gate = self.with_along(other(g.axis), v, line);
                if gate == v {
                    return (self.with_along(g.axis, v, b), self.dims.len());
                }
                return self.local_next(v, gate);
            }
        }
        self.local_next(v, dst)
    }

    /// One step from v along the first local dimension in which it differs from `dst` (ring
    /// dimensions step the minimal way, all-to-all ones jump), and that dimension's index.
    fn local_next(&self, v: u32, dst: u32) -> (u32, usize) {
        let k = self.first_difference(v, dst).unwrap_or(0);
        let (here, target) = (self.digits_of(v)[k], self.digits_of(dst)[k]);
        let rd = &self.dims[k];
        let next = match rd.dim.kind {
            // One step the shorter way round (ties forward); coordinates are below the size.
            DimKind::Ring => {
                let s = rd.dim.size;
                let forward = if target >= here {
                    target - here
                } else {
                    target + s - here
                };
                if forward <= s / 2 {
                    if here + 1 == s {
                        0
                    } else {
                        here + 1
                    }
                } else if here == 0 {
                    s - 1
                } else {
                    here - 1
                }
            }
            _ => target,
        };
        (self.moved_in(k, v, here, next), k)
    }

    /// Every minimal next node from v toward dst: one per local dimension still to correct (both
    /// ways round a ring when they tie); the dimension-order choice for a global route.
    pub fn minimal_next_nodes(&self, v: u32, dst: u32) -> Vec<u32> {
        if let Some(g) = self.global {
            if self.along(g.axis, v) != self.along(g.axis, dst) {
                return vec![self.next_node(v, dst).0];
            }
        }
        let mut out = Vec::new();
        let (at, to) = (self.digits_of(v), self.digits_of(dst));
        for (k, rd) in self.dims.iter().enumerate() {
            let (here, target) = (at[k], to[k]);
            if here == target {
                continue;
            }
            let s = rd.dim.size;
            match rd.dim.kind {
                DimKind::Ring => {
                    let forward = (target + s - here) % s;
                    if forward <= s / 2 {
                        out.push(self.moved_in(k, v, here, (here + 1) % s));
                    }
                    if forward >= s - s / 2 {
                        out.push(self.moved_in(k, v, here, (here + s - 1) % s));
                    }
                }
                _ => out.push(self.moved_in(k, v, here, target)),
            }
        }
        out.dedup();
        out
    }

    /// Inter-node hops of the dimension-order minimal route from v to dst.
    pub fn route_length(&self, v: u32, dst: u32) -> u32 {
        let mut hops = 0;
        let mut at = v;
        while at != dst {
            at = self.next_node(at, dst).0;
            hops += 1;
        }
        hops
    }
}
