//! Metrics of a realized network, region by region (README.md, What the numbers mean): inter-node
//! diameter by breadth-first search, the diameter in external and internal hops under nearest-link
//! minimal routing, and the bisection bandwidth of balanced cuts with the all-to-all bound it
//! implies.

use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::{Axis, Plant};
use crate::progress::{chunked, Meter, Observer, Unit};
use crate::routing::logical::{other, LogicalRoutes, RouteDim};
use crate::spec::DimKind;
use crate::topology::Region;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashSet;

/// External (optical) and internal (mesh) hop counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[allow(non_snake_case)]
pub struct Hops {
    pub Ho: u32,
    pub Hi: u32,
}

/// Metrics of one region's realized network. Bandwidths are in units of one port's bandwidth.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionMetrics {
    pub name: String,
    pub chips: u32,
    pub nodes: u32,
    /// Switches carrying at least one of the region's circuits.
    pub switches_used: u32,
    pub switch_ports_used: u64,
    /// Rails left unused by the topology, per axis `[X, Y]`.
    pub unused_rails: [u32; 2],
    /// Longest shortest path between two nodes, in optical hops; `None` when not strongly connected.
    pub diameter_inter_node: Option<u32>,
    /// Largest external and internal hop counts of a chip-to-chip route under nearest-link minimal
    /// routing (each maximised over all chip pairs; docs/routing.md).
    pub diameter_hops: Hops,
    /// Largest zero-load latency of such a route: Ho * alpha_out + Hi * alpha_in.
    pub max_route_latency_s: f64,
    /// Directed optical links crossing the smallest balanced cut found, and that cut.
    pub bisection_links: u64,
    pub bisection_cut: String,
    pub bisection_bw_per_chip: f64,
    /// 2 * bisection / chips: the bound on uniform all-to-all throughput per chip.
    pub a2a_bound_per_chip: f64,
}

/// Optical adjacency of a region at node level, with precomputed nearest-link choices.
struct NodeGraph {
    m: u32,
    /// Region-local node -> sorted distinct neighbours, each with its entry in `nearest`.
    neighbours: Vec<Vec<Neighbour>>,
    /// For a directed node pair and each chip of the source node: (entry chip at the
    /// neighbour, mesh hops from the chip to the exit chip of its nearest link).
    nearest: Vec<(u16, u16)>,
}

/// One node's neighbours and its block of the nearest-link table.
type NodeTables = (Vec<Neighbour>, Vec<(u16, u16)>);

#[derive(Debug, Clone, Copy)]
struct Neighbour {
    node: u32,
    links: u32,
    table: usize,
}

impl NodeGraph {
    fn build(net: &Network, plant: &Plant, region: &Region) -> NodeGraph {
        let per = plant.chips_per_node();
        let mut local = vec![u32::MAX; plant.nodes() as usize];
        for (i, node) in region.node_ids(plant).into_iter().enumerate() {
            local[node as usize] = i as u32;
        }
        let n = region.nodes() as usize;
        // (neighbour, exit chip, entry chip) per region node.
        let mut links: Vec<Vec<(u32, u16, u16)>> = vec![Vec::new(); n];
        for i in 0..net.links() {
            if net.class[i] != LinkClass::InterNodeOptical {
                continue;
            }
            let (a, b) = (
                local[(net.src[i] / per) as usize],
                local[(net.dst[i] / per) as usize],
            );
            if a == u32::MAX || b == u32::MAX {
                continue;
            }
            links[a as usize].push((b, (net.src[i] % per) as u16, (net.dst[i] % per) as u16));
        }
        let m = plant.m;
        let tables: Vec<NodeTables> = links
            .into_par_iter()
            .map(|mut out| {
                out.sort_unstable();
                let mut neighbours = Vec::new();
                let mut nearest = Vec::new();
                for group in out.chunk_by(|a, b| a.0 == b.0) {
                    neighbours.push(Neighbour {
                        node: group[0].0,
                        links: group.len() as u32,
                        table: nearest.len(),
                    });
                    for chip in 0..per {
                        // Ties go to the first link in (exit, entry) order: deterministic.
                        let best = group
                            .iter()
                            .map(|&(_, exit, entry)| (mesh_hops(m, chip, exit as u32), entry))
                            .min_by_key(|&(d, _)| d)
                            .unwrap_or((0, 0));
                        nearest.push((best.1, best.0 as u16));
                    }
                }
                (neighbours, nearest)
            })
            .collect();
        let mut neighbours = Vec::with_capacity(n);
        let mut nearest = Vec::new();
        for (mut list, table) in tables {
            let offset = nearest.len();
            for nb in &mut list {
                nb.table += offset;
            }
            nearest.extend(table);
            neighbours.push(list);
        }
        NodeGraph {
            m,
            neighbours,
            nearest,
        }
    }

    fn len(&self) -> usize {
        self.neighbours.len()
    }

    fn neighbour(&self, v: u32, w: u32) -> Option<&Neighbour> {
        let list = &self.neighbours[v as usize];
        list.binary_search_by_key(&w, |nb| nb.node)
            .ok()
            .map(|i| &list[i])
    }
}

fn mesh_hops(m: u32, a: u32, b: u32) -> u32 {
    let (ax, ay, bx, by) = (a % m, a / m, b % m, b / m);
    ax.abs_diff(bx) + ay.abs_diff(by)
}

/// Internal hops from a chip to the farthest chip of its node.
fn eccentricity(m: u32, chip: u32) -> u32 {
    let (x, y) = (chip % m, chip / m);
    x.max(m - 1 - x) + y.max(m - 1 - y)
}

/// Inter-node diameter by all-sources breadth-first search, bit-parallel: `reached[v]` holds the
/// sources that have reached v, and one sweep over the in-links advances every source one level.
/// Sources go in blocks of 4096 so memory stays `nodes * 512` bytes.
fn inter_node_diameter(graph: &NodeGraph) -> Option<u32> {
    let n = graph.len();
    if n <= 1 {
        return Some(0);
    }
    let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, list) in graph.neighbours.iter().enumerate() {
        for nb in list {
            incoming[nb.node as usize].push(v as u32);
        }
    }
    const BLOCK: usize = 4096;
    let mut diameter = 0;
    for start in (0..n).step_by(BLOCK) {
        let sources = BLOCK.min(n - start);
        let words = sources.div_ceil(64);
        let mut reached = vec![0u64; n * words];
        for s in 0..sources {
            reached[(start + s) * words + s / 64] |= 1 << (s % 64);
        }
        let mut level = 0;
        loop {
            let next: Vec<u64> = (0..n)
                .into_par_iter()
                .flat_map_iter(|v| {
                    let mut row = reached[v * words..(v + 1) * words].to_vec();
                    for &u in &incoming[v] {
                        for (w, word) in row.iter_mut().enumerate() {
                            *word |= reached[u as usize * words + w];
                        }
                    }
                    row
                })
                .collect();
            if next == reached {
                break;
            }
            reached = next;
            level += 1;
        }
        let full = |v: usize| {
            (0..words).all(|w| {
                let bits = if w + 1 == words && !sources.is_multiple_of(64) {
                    (1u64 << (sources % 64)) - 1
                } else {
                    u64::MAX
                };
                reached[v * words + w] & bits == bits
            })
        };
        if !(0..n).all(full) {
            return None;
        }
        diameter = diameter.max(level);
    }
    Some(diameter)
}

/// The chips a route may occupy at its current node, each with the largest number of internal hops
/// taken to get there from any source chip.
type Frontier = Vec<(u16, u32)>;

/// Worst case of routes from one source node.
#[derive(Debug, Clone, Copy, Default)]
struct Worst {
    ho: u32,
    hi: u32,
    latency_s: f64,
}

impl Worst {
    fn merge(self, other: Worst) -> Worst {
        Worst {
            ho: self.ho.max(other.ho),
            hi: self.hi.max(other.hi),
            latency_s: self.latency_s.max(other.latency_s),
        }
    }
}

/// The worst case of nearest-link minimal routing (the routes of `routing::railx`'s `minimal`
/// function, docs/routing.md) from a source node to every node, with every source and destination
/// chip at once: a frontier of chips follows the node route, and destinations that share a route
/// prefix share its computation.
struct Router<'a> {
    graph: &'a NodeGraph,
    region: &'a Region,
    logical: LogicalRoutes,
    alpha_out_s: f64,
    alpha_in_s: f64,
}

impl<'a> Router<'a> {
    fn new(graph: &'a NodeGraph, region: &'a Region, plant: &Plant) -> Result<Router<'a>> {
        let neighbours = |v: u32| {
            graph.neighbours[v as usize]
                .iter()
                .map(|nb| nb.node)
                .collect()
        };
        Ok(Router {
            graph,
            region,
            logical: LogicalRoutes::new(region, neighbours)?,
            alpha_out_s: plant.alpha_out_s,
            alpha_in_s: plant.alpha_in_s,
        })
    }

    /// Moves every chip of the frontier from node v to neighbour w over its nearest link.
    fn hop(&self, frontier: &Frontier, v: u32, w: u32) -> Result<Frontier> {
        let nb = self.graph.neighbour(v, w).ok_or_else(|| {
            RailxError::verification(
                self.region.label(),
                format!("route needs a link from node {v} to node {w}, and there is none"),
            )
        })?;
        let mut next: Frontier = frontier
            .iter()
            .map(|&(chip, hi)| {
                let (entry, hops) = self.graph.nearest[nb.table + chip as usize];
                (entry, hi + hops as u32)
            })
            .collect();
        // Keep one entry per chip, the worst.
        next.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        next.dedup_by_key(|e| e.0);
        Ok(next)
    }

    /// Follows the node route from v to `dst`, returning the frontier there and the hops taken.
    fn walk(&self, v: u32, dst: u32, frontier: &Frontier) -> Result<(Frontier, u32)> {
        let (mut at, mut f, mut ho) = (v, frontier.clone(), 0);
        while at != dst {
            let next = self.logical.next_node(at, dst).0;
            f = self.hop(&f, at, next)?;
            (at, ho) = (next, ho + 1);
        }
        Ok((f, ho))
    }

    /// Visits every destination reachable by correcting local dims[k..] from v, sharing route
    /// prefixes; records those `accept` admits.
    fn explore(
        &self,
        k: usize,
        v: u32,
        frontier: &Frontier,
        ho: u32,
        accept: &dyn Fn(u32) -> bool,
        worst: &mut Worst,
    ) -> Result<()> {
        let dims = &self.logical.dims;
        if k == dims.len() {
            if accept(v) {
                self.record(frontier, ho, worst);
            }
            return Ok(());
        }
        let rd = dims[k];
        let s = rd.dim.size;
        self.explore(k + 1, v, frontier, ho, accept, worst)?;
        let here = self.logical.digit(&rd, v);
        if rd.dim.kind == DimKind::Ring {
            // Walk each direction step by step so that every prefix is computed once.
            for (steps, delta) in [(s / 2, 1), ((s - 1) / 2, s - 1)] {
                let (mut at, mut f) = (v, frontier.clone());
                for step in 1..=steps {
                    let next = self.logical.moved(&rd, at, (here + step * delta) % s);
                    f = self.hop(&f, at, next)?;
                    at = next;
                    self.explore(k + 1, at, &f, ho + step, accept, worst)?;
                }
            }
        } else {
            for target in (0..s).filter(|&t| t != here) {
                let w = self.logical.moved(&rd, v, target);
                self.explore(k + 1, w, &self.hop(frontier, v, w)?, ho + 1, accept, worst)?;
            }
        }
        Ok(())
    }

    fn record(&self, frontier: &Frontier, ho: u32, worst: &mut Worst) {
        let m = self.graph.m;
        let hi = frontier
            .iter()
            .map(|&(chip, hi)| hi + eccentricity(m, chip as u32))
            .max()
            .unwrap_or(0);
        let latency = ho as f64 * self.alpha_out_s + hi as f64 * self.alpha_in_s;
        *worst = worst.merge(Worst {
            ho,
            hi,
            latency_s: latency,
        });
    }

    /// Worst route from one source node to every node of the region.
    fn worst_from(&self, source: u32) -> Result<Worst> {
        let per = self.graph.m * self.graph.m;
        let start: Frontier = (0..per).map(|c| (c as u16, 0)).collect();
        let mut worst = Worst::default();
        let everyone = |_: u32| true;
        self.explore(0, source, &start, 0, &everyone, &mut worst)?;
        let Some(g) = self.logical.global else {
            return Ok(worst);
        };
        // Dragonfly: other groups through a gateway line, chosen per destination line; the
        // destinations that share a gateway share the route to it.
        let (side, lg) = (other(g.axis), &self.logical);
        let a = lg.along(g.axis, source);
        let lines = self.region.positions(side).len() as u32;
        for b in (0..g.dim.size).filter(|&b| b != a) {
            let mut gates: Vec<u32> = (0..lines)
                .map(|to| lg.gateway(a, b, lg.along(side, source), to))
                .collect();
            gates.sort_unstable();
            gates.dedup();
            for gate in gates {
                let (f, ho) = self.walk(source, lg.with_along(side, source, gate), &start)?;
                let at = lg.with_along(side, source, gate);
                let w = lg.with_along(g.axis, at, b);
                let f = self.hop(&f, at, w)?;
                let via_gate =
                    |d: u32| lg.gateway(a, b, lg.along(side, source), lg.along(side, d)) == gate;
                self.explore(0, w, &f, ho + 1, &via_gate, &mut worst)?;
            }
        }
        Ok(worst)
    }
}

/// Directed optical links crossing the balanced cut that orders nodes by one logical dimension's
/// coordinate first (then by node index) and splits the order in half.
fn cut_links(graph: &NodeGraph, router: &Router, rd: &RouteDim) -> u64 {
    let lg = &router.logical;
    let n = graph.len() as u32;
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_by_key(|&v| (lg.digit(rd, v), v));
    let mut side = vec![false; n as usize];
    for &v in &order[..(n / 2) as usize] {
        side[v as usize] = true;
    }
    graph
        .neighbours
        .iter()
        .enumerate()
        .flat_map(|(v, list)| list.iter().map(move |nb| (v, nb)))
        .filter(|(v, nb)| side[*v] != side[nb.node as usize])
        .map(|(_, nb)| nb.links as u64)
        .sum()
}

/// All metrics of one region of a realized network.
/// `observer` hears how many of the region's source nodes have had their worst routes walked
/// (the work that grows with the square of the nodes).
pub fn region_metrics(
    net: &Network,
    region: &Region,
    observer: &mut dyn Observer,
) -> Result<RegionMetrics> {
    let plant = net.railx_plant()?;
    let graph = NodeGraph::build(net, plant, region);
    let router = Router::new(&graph, region, plant)?;
    let diameter_inter_node = inter_node_diameter(&graph);
    let sources: Vec<u32> = (0..graph.len() as u32).collect();
    let mut meter = Meter::new(
        observer,
        "the metrics' route walk",
        Unit::Nodes,
        Some(sources.len() as u64),
        1,
    );
    // Worst is a maximum per field: merging the chunks' worst cases in any order is exact.
    let worst = chunked(&sources, &mut meter, |part| {
        part.par_iter()
            .map(|&s| router.worst_from(s))
            .try_reduce(Worst::default, |a, b| Ok(a.merge(b)))
    })?
    .into_iter()
    .fold(Worst::default(), Worst::merge);
    let all_dims: Vec<RouteDim> = router
        .logical
        .dims
        .iter()
        .copied()
        .chain(router.logical.global)
        .collect();
    let cut = all_dims
        .iter()
        .map(|rd| {
            (
                cut_links(&graph, &router, rd),
                format!("{}-dim of size {} halved", rd.axis.name(), rd.dim.size),
            )
        })
        .min_by_key(|c| c.0);
    let (bisection_links, bisection_cut) = cut.unwrap_or((0, "none (a single node)".to_string()));
    let chips = region.nodes() * plant.chips_per_node();
    let port_units = bisection_links as f64; // every optical link carries one port's bandwidth
    let optical: u64 = graph
        .neighbours
        .iter()
        .flatten()
        .map(|nb| nb.links as u64)
        .sum();
    Ok(RegionMetrics {
        name: region.name.clone().unwrap_or_else(|| "system".to_string()),
        chips,
        nodes: region.nodes(),
        switches_used: switches_used(net, plant, region),
        switch_ports_used: optical, // two ports per circuit, two directed links per circuit
        unused_rails: [
            plant.r() - region.x.rails_used(),
            plant.r() - region.y.rails_used(),
        ],
        diameter_inter_node,
        diameter_hops: Hops {
            Ho: worst.ho,
            Hi: worst.hi,
        },
        max_route_latency_s: worst.latency_s,
        bisection_links,
        bisection_cut,
        bisection_bw_per_chip: port_units / chips as f64,
        a2a_bound_per_chip: 2.0 * port_units / chips as f64,
    })
}

fn switches_used(net: &Network, plant: &Plant, region: &Region) -> u32 {
    let per = plant.chips_per_node();
    let in_region: HashSet<u32> = region.node_ids(plant).into_iter().collect();
    let mut used = HashSet::new();
    for i in 0..net.links() {
        if net.class[i] != LinkClass::InterNodeOptical || !in_region.contains(&(net.src[i] / per)) {
            continue;
        }
        let (xn, yn) = plant.node_coords(net.src[i] / per);
        let line = match net.axis[i] {
            Axis::X => yn,
            Axis::Y => xn,
        };
        used.insert((net.axis[i], line, net.rail[i]));
    }
    used.len() as u32
}
