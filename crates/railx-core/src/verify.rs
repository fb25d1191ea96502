//! Verification of an OCS configuration against the intended topology (RailX paper §3.1, §3.3):
//! after the port-level check, the node multigraph is rebuilt from the circuits alone and every
//! rail of every logical dimension is checked for the structure its kind promises.

use crate::error::{shown, RailxError, Result};
use crate::ocs::{check_ports, Arc, OcsConfig, OcsSystem};
use crate::plant::{Axis, Plant};
use crate::spec::DimKind;
use crate::topology::{LogicalDim, Region, System};
use serde::Serialize;
use std::collections::HashMap;

/// What a successful verification found, per region.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionReport {
    pub name: String,
    pub nodes: u32,
    pub circuits: usize,
    pub strongly_connected: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub switches: usize,
    pub circuits: usize,
    /// Empty when only port validity was checked (no intended topology given).
    pub regions: Vec<RegionReport>,
}

/// Port-level validity only: the file could be programmed into real switches.
pub fn verify_ports(config: &OcsConfig) -> Result<VerifyReport> {
    check_ports(config)?;
    Ok(VerifyReport {
        switches: config.switches.len(),
        circuits: config.circuit_count(),
        regions: Vec::new(),
    })
}

/// Full verification: valid ports, the same system as the configuration, and — rebuilt from the
/// circuits alone — exactly the intended topology of every region the file covers (one job when the
/// file names one, else the whole system, where nodes outside every job must carry no circuit).
pub fn verify(config: &OcsConfig, system: &System) -> Result<VerifyReport> {
    let arcs = check_ports(config)?;
    let expected = OcsSystem::of(&system.plant);
    if config.system != expected {
        return Err(RailxError::verification(
            "system",
            format!(
                "the file is for {:?} but the configuration describes {:?}",
                config.system, expected
            ),
        ));
    }
    let regions: Vec<&Region> = match &config.job {
        Some(name) => {
            let found = system
                .regions
                .iter()
                .find(|r| r.name.as_deref() == Some(name.as_str()));
            vec![found.ok_or_else(|| {
                RailxError::verification(
                    "job",
                    format!("the configuration has no job named {}", shown(name)),
                )
            })?]
        }
        None => system.regions.iter().collect(),
    };
    let index = NodeIndex::new(&system.plant, &regions);
    let mut buckets: RailArcs = HashMap::new();
    let mut region_edges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); regions.len()];
    for arc in &arcs {
        let (region, u, v, line_index) = index.locate(&system.plant, arc)?;
        buckets
            .entry((region, arc.axis, line_index, arc.rail))
            .or_default()
            .push((u, v));
        let local = |along: u32| match arc.axis {
            Axis::X => regions[region].local_index(along, line_index),
            Axis::Y => regions[region].local_index(line_index, along),
        };
        // A circuit is full duplex: it carries a link each way.
        region_edges[region].extend([(local(u), local(v)), (local(v), local(u))]);
    }
    let mut reports = Vec::with_capacity(regions.len());
    for (ri, region) in regions.iter().enumerate() {
        let mut circuits = 0;
        for axis in Axis::BOTH {
            circuits += check_axis(region, ri, axis, &mut buckets)?;
        }
        // Leftover buckets are arcs on rails that no logical dimension owns.
        if let Some((&(_, axis, line_index, rail), _)) = buckets.iter().find(|(k, _)| k.0 == ri) {
            let line = other_positions(region, axis)[line_index as usize];
            return Err(RailxError::verification(
                Plant::switch_id(axis, line, rail),
                format!(
                    "rail {rail} is unused by {} (its {} rail groups use rails 0..{}) but carries circuits",
                    region.label(),
                    axis.name(),
                    region.layout(axis).rails_used()
                ),
            ));
        }
        reports.push(RegionReport {
            name: region.name.clone().unwrap_or_else(|| "system".to_string()),
            nodes: region.nodes(),
            circuits,
            strongly_connected: strongly_connected(region.nodes(), &region_edges[ri]),
        });
    }
    for report in &reports {
        if !report.strongly_connected && report.nodes > 1 {
            return Err(RailxError::verification(
                report.name.clone(),
                "the rebuilt node graph is not strongly connected, so some node pairs cannot communicate",
            ));
        }
    }
    Ok(VerifyReport {
        switches: config.switches.len(),
        circuits: config.circuit_count(),
        regions: reports,
    })
}

fn other_positions(region: &Region, axis: Axis) -> &[u32] {
    region.positions(match axis {
        Axis::X => Axis::Y,
        Axis::Y => Axis::X,
    })
}

/// Arcs (logical positions u -> v along the axis) per (region, axis, line index, rail).
type RailArcs = HashMap<(usize, Axis, u32, u32), Vec<(u32, u32)>>;

/// Physical node -> (region, logical positions) for the regions being verified.
struct NodeIndex {
    owner: Vec<Option<(usize, u32, u32)>>,
}

impl NodeIndex {
    fn new(plant: &Plant, regions: &[&Region]) -> NodeIndex {
        let mut owner = vec![None; plant.nodes() as usize];
        for (ri, region) in regions.iter().enumerate() {
            for (j, &y) in region.ys.iter().enumerate() {
                for (i, &x) in region.xs.iter().enumerate() {
                    owner[plant.node_id(x, y) as usize] = Some((ri, i as u32, j as u32));
                }
            }
        }
        NodeIndex { owner }
    }

    fn of(&self, plant: &Plant, axis: Axis, line: u32, pos: u32) -> Option<(usize, u32, u32)> {
        self.owner[plant.node_on_line(axis, line, pos) as usize]
    }

    /// The region an arc lies in, its endpoints' logical positions along the axis, and the line's
    /// logical index; an error when the arc leaves the regions or joins two of them.
    fn locate(&self, plant: &Plant, arc: &Arc) -> Result<(usize, u32, u32, u32)> {
        let place = Plant::switch_id(arc.axis, arc.line, arc.rail);
        let ends = [arc.plus, arc.minus].map(|pos| self.of(plant, arc.axis, arc.line, pos));
        let describe = |pos: u32| {
            let (x, y) = plant.node_coords(plant.node_on_line(arc.axis, arc.line, pos));
            format!("node ({x}, {y})")
        };
        match ends {
            [Some(a), Some(b)] if a.0 == b.0 => {
                let (along_a, along_b, line_index) = match arc.axis {
                    Axis::X => (a.1, b.1, a.2),
                    Axis::Y => (a.2, b.2, a.1),
                };
                Ok((a.0, along_a, along_b, line_index))
            }
            [Some(_), Some(_)] => Err(RailxError::verification(
                place,
                format!(
                    "a circuit joins {} and {}, which belong to different jobs",
                    describe(arc.plus),
                    describe(arc.minus)
                ),
            )),
            [a, _] => {
                let stray = if a.is_none() { arc.plus } else { arc.minus };
                Err(RailxError::verification(
                    place,
                    format!(
                        "a circuit uses {}, which is outside the nodes being verified",
                        describe(stray)
                    ),
                ))
            }
        }
    }
}

/// Checks every rail of every logical dimension of one axis of a region; returns the circuits seen.
fn check_axis(region: &Region, ri: usize, axis: Axis, buckets: &mut RailArcs) -> Result<usize> {
    let extent = region.positions(axis).len() as u32;
    let lines = other_positions(region, axis);
    let mut circuits = 0;
    for dim in &region.layout(axis).dims {
        // Global dimensions count pairs over all lines together; the others per line.
        let mut global_pairs = PairCounts::new(dim);
        for (line_index, &line) in lines.iter().enumerate() {
            let mut pairs = PairCounts::new(dim);
            for rail in dim.rail_range() {
                let place = Plant::switch_id(axis, line, rail);
                let arcs = buckets
                    .remove(&(ri, axis, line_index as u32, rail))
                    .unwrap_or_default();
                circuits += arcs.len();
                if arcs.is_empty() && dim.kind == DimKind::GlobalAllToAll {
                    continue; // a global dimension may leave trailing rails empty
                }
                let matching = if is_single_link_matching_rail(dim, rail) {
                    check_matching_rail(dim, &arcs, extent, &place)?;
                    true
                } else {
                    let succ = successor_map(&arcs, extent, &place)?;
                    check_rail(dim, region, &succ, &place)?
                };
                let counts = if dim.kind == DimKind::GlobalAllToAll {
                    &mut global_pairs
                } else {
                    &mut pairs
                };
                counts.add(&arcs, matching);
            }
            if matches!(dim.kind, DimKind::AllToAll | DimKind::SingleLinkAllToAll) {
                pairs.check(
                    dim.copies(),
                    &format!("{} line {line}", axis.name()),
                    region,
                )?;
            }
        }
        if dim.kind == DimKind::GlobalAllToAll {
            global_pairs.check(1, &format!("all {} lines", axis.name()), region)?;
        }
    }
    Ok(circuits)
}

/// The rail's successor map along the axis; every node of the region line must have an out-arc.
fn successor_map(arcs: &[(u32, u32)], extent: u32, place: &str) -> Result<Vec<u32>> {
    let mut succ = vec![u32::MAX; extent as usize];
    for &(u, v) in arcs {
        succ[u as usize] = v;
    }
    if let Some(missing) = succ.iter().position(|&v| v == u32::MAX) {
        return Err(RailxError::verification(
            place,
            format!("the node at logical position {missing} has no circuit on this rail; every rail of a logical dimension joins all its nodes"),
        ));
    }
    Ok(succ)
}

/// Whether `rail` is the perfect-matching rail of a copy of an even single-link all-to-all (the
/// last rail of each copy, see `hamiltonian::single_link_rails`).
fn is_single_link_matching_rail(dim: &LogicalDim, rail: u32) -> bool {
    dim.kind == DimKind::SingleLinkAllToAll
        && dim.size.is_multiple_of(2)
        && (rail - dim.first_rail) % dim.rails_per_copy() + 1 == dim.rails_per_copy()
}

/// A single-link matching rail: every node of the line in exactly one circuit, which joins it to
/// another node of its fiber.
fn check_matching_rail(
    dim: &LogicalDim,
    arcs: &[(u32, u32)],
    extent: u32,
    place: &str,
) -> Result<()> {
    let mut circuits = vec![0u32; extent as usize];
    for &(u, v) in arcs {
        if u == v || dim.with_digit(u, 0) != dim.with_digit(v, 0) {
            return Err(RailxError::verification(
                place,
                format!("matching circuit {u} -> {v} does not join two nodes of one fiber of the rail's logical dimension"),
            ));
        }
        circuits[u as usize] += 1;
        circuits[v as usize] += 1;
    }
    if let Some(node) = circuits.iter().position(|&c| c != 1) {
        return Err(RailxError::verification(
            place,
            format!(
                "the node at logical position {node} is in {} circuits of the matching rail; a perfect matching puts every node in exactly one",
                circuits[node]
            ),
        ));
    }
    Ok(())
}

/// Checks one rail's structure; returns whether it is a matching rail (2-cycles).
fn check_rail(dim: &LogicalDim, region: &Region, succ: &[u32], place: &str) -> Result<bool> {
    for (u, &v) in succ.iter().enumerate() {
        let u = u as u32;
        if dim.with_digit(u, 0) != dim.with_digit(v, 0) {
            return Err(RailxError::verification(
                place,
                format!(
                    "arc {u} -> {v} joins nodes that differ outside the rail's logical dimension"
                ),
            ));
        }
        if dim.kind == DimKind::Ring && dim.digit(v) != (dim.digit(u) + 1) % dim.size {
            return Err(RailxError::verification(
                place,
                format!("ring arc {u} -> {v} does not go to the next node in index order"),
            ));
        }
    }
    if dim.kind == DimKind::Ring {
        return Ok(false);
    }
    let is_matching = succ
        .iter()
        .enumerate()
        .all(|(u, &v)| v as usize != u && succ[v as usize] as usize == u);
    if is_matching && dim.size > 2 {
        if region.allow_matching_rail && (dim.size == 4 || dim.size == 6) {
            return Ok(true);
        }
        return Err(RailxError::verification(place, "the rail is made of 2-cycles, not a ring (allowed only with allow_matching_rail for 4 or 6 nodes)"));
    }
    // Every fiber must be one cycle through all its nodes.
    let extent = succ.len() as u32;
    for base in (0..extent).filter(|&p| dim.digit(p) == 0) {
        let mut at = base;
        for step in 1..=dim.size {
            at = succ[at as usize];
            if at == base && step < dim.size {
                return Err(RailxError::verification(
                    place,
                    format!("the rail closes a cycle of {step} nodes from node {base}; it must be one ring through all {} nodes", dim.size),
                ));
            }
        }
    }
    Ok(false)
}

/// How often each pair of coordinates of a logical dimension is joined, per fiber (the nodes that
/// differ only in this dimension's coordinate), over the rails of its group: ordered pairs (one
/// circuit is one arc of a directed decomposition), or unordered pairs for a single-link
/// dimension (one circuit is one undirected edge).
struct PairCounts {
    dim: LogicalDim,
    unordered: bool,
    /// fiber base position -> counts[u_digit * size + v_digit] (u_digit < v_digit if unordered)
    counts: HashMap<u32, Vec<u32>>,
    matching_rails: u32,
}

impl PairCounts {
    fn new(dim: &LogicalDim) -> PairCounts {
        PairCounts {
            dim: *dim,
            unordered: dim.kind == DimKind::SingleLinkAllToAll,
            counts: HashMap::new(),
            matching_rails: 0,
        }
    }

    fn add(&mut self, arcs: &[(u32, u32)], matching: bool) {
        let s = self.dim.size;
        self.matching_rails += matching as u32;
        for &(u, v) in arcs {
            let fiber = self
                .counts
                .entry(self.dim.with_digit(u, 0))
                .or_insert_with(|| vec![0; (s * s) as usize]);
            let (a, b) = (self.dim.digit(u), self.dim.digit(v));
            let (a, b) = if self.unordered {
                (a.min(b), a.max(b))
            } else {
                (a, b)
            };
            fiber[(a * s + b) as usize] += 1;
        }
    }

    /// Every ordered pair of distinct coordinates joined exactly `copies` times, and at most one
    /// matching rail per copy of the decomposition.
    fn check(&self, copies: u32, place: &str, region: &Region) -> Result<()> {
        let s = self.dim.size;
        if self.matching_rails > copies {
            return Err(RailxError::verification(
                place,
                format!(
                    "{} matching rails; a decomposition has at most one per copy",
                    self.matching_rails
                ),
            ));
        }
        let mut fibers: Vec<_> = self.counts.iter().collect();
        fibers.sort_unstable_by_key(|(base, _)| **base);
        for (&base, counts) in fibers {
            let (arrow, pairs) = if self.unordered {
                ("<->", "unordered")
            } else {
                ("->", "ordered")
            };
            for a in 0..s {
                for b in (0..s).filter(|&b| b != a && (!self.unordered || b > a)) {
                    let joined = counts[(a * s + b) as usize];
                    if joined != copies {
                        return Err(RailxError::verification(
                            place,
                            format!(
                                "in {}, coordinates {a} {arrow} {b} of the all-to-all dimension of {s} nodes (fiber at position {base}) are joined {joined} times; every {pairs} pair must be joined exactly {copies} time(s)",
                                region.label()
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether a region's rebuilt node graph is strongly connected (forward and backward reachability
/// from one node); `edges` are arcs between region-local node indices.
fn strongly_connected(nodes: u32, edges: &[(u32, u32)]) -> bool {
    if nodes <= 1 {
        return true;
    }
    let reach_all = |forward: bool| {
        let mut adjacency = vec![Vec::new(); nodes as usize];
        for &(u, v) in edges {
            let (from, to) = if forward { (u, v) } else { (v, u) };
            adjacency[from as usize].push(to);
        }
        let mut seen = vec![false; nodes as usize];
        let mut stack = vec![0u32];
        seen[0] = true;
        let mut count = 1;
        while let Some(u) = stack.pop() {
            for &v in &adjacency[u as usize] {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    count += 1;
                    stack.push(v);
                }
            }
        }
        count == nodes
    };
    reach_all(true) && reach_all(false)
}
