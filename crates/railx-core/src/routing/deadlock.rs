//! Deadlock freedom, checked rather than assumed (docs/routing.md): the channel dependency graph
//! (channel = link x VC; channel a -> b when a packet holding a may request b next) of a routing
//! function over every source-destination pair must be acyclic. Larger networks get the
//! structural check instead: on sampled routes, the VC never decreases, it strictly increases at
//! every inter-node hop, and each node is crossed in XY order — the argument that makes the
//! hop-count schemes deadlock-free.

use super::channel_graph::ChannelGraph;
use super::{Hop, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::progress::{chunked, chunked_weighted, Meter, Observer, Silent, Unit};
use crate::resources::{require, Driver, Estimate};
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use serde::Serialize;

/// A channel as reported: the link (with its end chips) and the VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChannelRef {
    pub link: u32,
    pub from_chip: u32,
    pub to_chip: u32,
    pub vc: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadlockReport {
    pub routing: String,
    pub acyclic: bool,
    /// `exhaustive` (every pair, full dependency graph) or `structural` (sampled routes).
    pub method: String,
    pub vcs_available: u8,
    pub vcs_used: u8,
    pub pairs: u64,
    pub channels: usize,
    pub dependencies: usize,
    /// One dependency cycle, when found.
    pub cycle: Option<Vec<ChannelRef>>,
}

/// Chips above which `check` switches from exhaustive to structural for a routing function
/// whose deadlock freedom is the structural argument (`Routing::rising_vcs`); the others are
/// checked exhaustively at any size the resource budget allows.
pub const EXHAUSTIVE_LIMIT_CHIPS: usize = 12_000;

/// Exhaustive when the routing covers at most `EXHAUSTIVE_LIMIT_CHIPS` chips or has no
/// structural argument, else structural on `samples` seeded random pairs. An exhaustive check
/// beyond the resource budget is refused, naming the chips and the most that fit.
pub fn check(routing: &dyn Routing, samples: usize, seed: u64) -> Result<DeadlockReport> {
    check_observed(routing, samples, seed, &mut Silent)
}

/// `check`, telling `observer` the destinations walked (exhaustive) or routes checked
/// (structural), `crate::progress`.
pub fn check_observed(
    routing: &dyn Routing,
    samples: usize,
    seed: u64,
    observer: &mut dyn Observer,
) -> Result<DeadlockReport> {
    let chips = routing.chips().len();
    if chips <= EXHAUSTIVE_LIMIT_CHIPS || !routing.rising_vcs() {
        let total = Some(chips as u64);
        let mut meter = Meter::new(observer, "deadlock check", Unit::Destinations, total, 1);
        return exhaustive_metered(routing, &mut meter);
    }
    let pairs = super::analysis::sample_pairs(routing.chips(), samples, seed)?;
    let total = Some(pairs.len() as u64);
    let mut meter = Meter::new(observer, "deadlock check", Unit::Routes, total, 1);
    structural_metered(routing, &pairs, &mut meter)
}

/// Marks a packet bound for whichever destination of the group being walked: one that has not
/// reached the group's chips, where its hops are the same for all of them.
const ANY_DST: u32 = u32::MAX;

/// Memory per (vertex, VC) a walk to one destination may expand: the hash-set entry of its
/// (vertex, routing state) and its share of the stack.
const EXPANDED_BYTES: f64 = 48.0;
/// Work per (link, VC) a walk to one destination group may take: a routing decision offering it
/// and its dependency. Each (vertex, state) is expanded once per walk, over the hops it is
/// offered, so (links x VCs) bounds a walk whatever the routing offers. Calibrated on the
/// 10,000-chip torus with 25 VCs when every destination was walked alone (about 8e10 steps
/// estimated, 170 CPU-s measured); walked by node (16 chips a group) it takes 15 CPU-s, and the
/// estimate, divided by the group size, 5e9 steps. Routings offering few of a vertex's links take
/// less (the 1,296-chip HyperX: 0.2 s), and the 16,384-chip HammingMesh (1.4e11 steps estimated,
/// each destination alone) ran over 260 CPU-s without finishing.
const EXPANSION_STEPS: f64 = 4.0;

/// Refuses an exhaustive check beyond the resource budget: every destination's walk takes up to
/// every (link, VC) once, each thread holds a set of up to every (vertex, VC), and the
/// dependency graph holds a bit per pair of consecutive channels (`ChannelGraph`); vertices and
/// links grow in proportion to the chips.
fn require_exhaustive(routing: &dyn Routing) -> Result<Estimate> {
    let chips = routing.chips().len() as u64;
    let (vertices, bits) = ChannelGraph::size(routing);
    let (links, vcs) = (routing.links().count() as f64, routing.vcs() as f64);
    let threads = rayon::current_num_threads() as f64;
    let what = if routing.rising_vcs() {
        format!(
            "the exhaustive deadlock check of routing = {}",
            routing.name()
        )
    } else {
        format!(
            "the deadlock check of routing = {} (its deadlock freedom does not rest on VCs rising at every hop, so it is checked exhaustively only)",
            routing.name()
        )
    };
    require(&what, &[Driver::new("chips", chips, 2)], |v| {
        let scale = v[0] / chips.max(1) as f64;
        Estimate::new(
            bits as f64 * scale / 8.0 + threads * vertices as f64 * scale * vcs * EXPANDED_BYTES,
            v[0] / routing.destinations_per_group() as f64 * links * scale * vcs * EXPANSION_STEPS,
        )
    })
}

/// A packet in flight: its chip, its routing state, its destination (`ANY_DST` until it reaches
/// the group's chips) and how many channels it may hold there, the top of `Walk::held` (the
/// parallel lanes of the hop that brought it; none at its source).
type InFlight = (u32, RouteState, u32, usize);

/// Buffers of `walk_to_group`, reused from one group to the next (a 10K-chip check walks 625
/// groups, each over up to millions of (chip, destination, state) triples).
#[derive(Default)]
struct Walk {
    expanded: FxHashSet<(u32, u32, RouteState)>,
    stack: Vec<InFlight>,
    /// The channels the packets on `stack` hold, each packet's above those of the packets below.
    held: Vec<(u32, u8)>,
    /// The channels held by a packet entering the group, copied for each destination.
    entering: Vec<(u32, u8)>,
    hops: Vec<Hop>,
}

/// Walks every route choice from every source to every destination of `group` (group number
/// `g` of `group_of`, `Routing::destinations_per_group`), recording in `graph` each dependency
/// between consecutive channels. Outside the group's chips a route does not depend on which of
/// its destinations it is bound for, so it is walked once for all of them (`ANY_DST`) and
/// splits into one walk per destination where it enters the group. A deterministic continuation
/// depends only on the chip, the destination and the routing state, so each such triple is
/// expanded once; dependencies into it are still recorded for every channel that leads there,
/// and parallel lanes (hops to the same chip in the same state) arrive as one packet holding
/// any of them. An error when a hop does not leave its chip.
fn walk_to_group(
    routing: &dyn Routing,
    group: &[u32],
    g: u32,
    group_of: &[u32],
    walk: &mut Walk,
    graph: &ChannelGraph,
) -> Result<()> {
    let Walk {
        expanded,
        stack,
        held,
        entering,
        hops,
    } = walk;
    let inside = |chip: u32| group_of.get(chip as usize) == Some(&g);
    // The packets a source at `chip` sends, one per destination of the group.
    let each_dst = |chip: u32| group.iter().filter(move |&&d| d != chip);
    expanded.clear();
    stack.clear();
    held.clear();
    for &chip in routing.chips() {
        if inside(chip) {
            stack.extend(each_dst(chip).map(|&d| (chip, RouteState::start(), d, 0)));
        } else {
            stack.push((chip, RouteState::start(), ANY_DST, 0));
        }
    }
    // The highest VC seen, noted in the shared graph once (a shared counter per hop would move
    // its cache line between the threads at every step).
    let mut max_vc = 0u8;
    while let Some((chip, state, dst, holding)) = stack.pop() {
        let first = held.len() - holding;
        if dst == ANY_DST && inside(chip) {
            entering.clear();
            entering.extend(held.drain(first..));
            for &d in each_dst(chip) {
                held.extend_from_slice(entering);
                stack.push((chip, state, d, holding));
            }
            continue;
        }
        let toward = if dst == ANY_DST { group[0] } else { dst };
        hops.clear();
        routing.next_hops(chip, toward, &state, hops);
        for hop in hops.iter() {
            if routing.link_source(hop.link) != chip {
                return Err(RailxError::verification(
                    format!("routes to {toward}"),
                    format!("at chip {chip}: link {} does not leave this chip", hop.link),
                ));
            }
            max_vc = max_vc.max(hop.vc);
            for &h in &held[first..] {
                graph.add(h, (hop.link, hop.vc));
            }
        }
        held.truncate(first);
        if !expanded.insert((chip, dst, state)) {
            continue;
        }
        let same_packet = |a: &Hop, b: &Hop| {
            a.state == b.state && routing.link_target(a.link) == routing.link_target(b.link)
        };
        for lanes in hops.chunk_by(same_packet) {
            held.extend(lanes.iter().map(|h| (h.link, h.vc)));
            let next = routing.link_target(lanes[0].link);
            stack.push((next, lanes[0].state, dst, lanes.len()));
        }
    }
    graph.use_vc(max_vc);
    Ok(())
}

/// The full channel dependency graph over every pair, and a cycle if it has one (refused beyond
/// the resource budget).
pub fn exhaustive(routing: &dyn Routing) -> Result<DeadlockReport> {
    let total = Some(routing.chips().len() as u64);
    let mut silent = Silent;
    let mut meter = Meter::new(&mut silent, "deadlock check", Unit::Destinations, total, 1);
    exhaustive_metered(routing, &mut meter)
}

/// Walks the destination groups, each thread a contiguous share of every chunk the meter
/// reports between, with its own reused buffers, into one shared graph (whose contents do not
/// depend on who set which dependency when).
fn dependency_graph(routing: &dyn Routing, meter: &mut Meter) -> Result<ChannelGraph> {
    let graph = ChannelGraph::new(routing);
    let chips = routing.chips();
    let groups: Vec<&[u32]> = chips
        .chunks(routing.destinations_per_group().max(1))
        .collect();
    let mut group_of = vec![u32::MAX; chips.iter().max().map_or(0, |&c| c as usize + 1)];
    for (g, group) in groups.iter().enumerate() {
        for &chip in group.iter() {
            group_of[chip as usize] = g as u32;
        }
    }
    let numbered: Vec<(u32, &[u32])> = (0..).zip(groups).collect();
    let threads = rayon::current_num_threads().max(1);
    let mut walks: Vec<Walk> = (0..threads).map(|_| Walk::default()).collect();
    let destinations = |part: &(u32, &[u32])| part.1.len() as u64;
    chunked_weighted(&numbered, meter, destinations, |part| {
        let share = part.len().div_ceil(threads).max(1);
        walks
            .par_iter_mut()
            .zip(part.par_chunks(share))
            .try_for_each(|(walk, mine)| {
                mine.iter().try_for_each(|&(g, group)| {
                    walk_to_group(routing, group, g, &group_of, walk, &graph)
                })
            })
    })?;
    Ok(graph)
}

/// The dependencies the exhaustive check finds, as sorted, deduplicated `from << 32 | to` edges
/// (channel = link x VCs + VC).
pub fn dependencies(routing: &dyn Routing) -> Result<Vec<u64>> {
    let mut silent = Silent;
    let mut meter = Meter::new(&mut silent, "deadlock check", Unit::Destinations, None, 1);
    Ok(dependency_graph(routing, &mut meter)?.edges())
}

fn exhaustive_metered(routing: &dyn Routing, meter: &mut Meter) -> Result<DeadlockReport> {
    require_exhaustive(routing)?;
    let vcs = routing.vcs() as u64;
    let graph = dependency_graph(routing, meter)?;
    let vcs_used = graph.max_vc() + 1;
    if vcs_used > routing.vcs() {
        return Err(RailxError::invalid(
            "vcs",
            routing.vcs(),
            format!(
                "routing = {} uses {vcs_used} virtual channels, more than its budget",
                routing.name()
            ),
            format!("allow at least {vcs_used} VCs"),
        ));
    }
    let deps = graph.edges();
    drop(graph);
    let n = routing.chips().len() as u64;
    let cycle = find_cycle(&deps);
    Ok(DeadlockReport {
        routing: routing.name().to_string(),
        acyclic: cycle.is_none(),
        method: "exhaustive".into(),
        vcs_available: routing.vcs(),
        vcs_used,
        pairs: n * n.saturating_sub(1),
        channels: count_channels(&deps),
        dependencies: deps.len(),
        cycle: cycle.map(|c| {
            c.into_iter()
                .map(|ch| {
                    let link = (ch / vcs) as u32;
                    ChannelRef {
                        link,
                        from_chip: routing.link_source(link),
                        to_chip: routing.link_target(link),
                        vc: (ch % vcs) as u8,
                    }
                })
                .collect()
        }),
    })
}

fn count_channels(deps: &[u64]) -> usize {
    let mut all: Vec<u64> = deps
        .iter()
        .flat_map(|d| [d >> 32, d & 0xffff_ffff])
        .collect();
    all.sort_unstable();
    all.dedup();
    all.len()
}

/// One cycle of the dependency graph given as sorted, deduplicated `from << 32 | to` edges.
pub fn find_cycle(deps: &[u64]) -> Option<Vec<u64>> {
    let mut nodes: Vec<u64> = deps
        .iter()
        .flat_map(|d| [d >> 32, d & 0xffff_ffff])
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    let index = |c: u64| nodes.binary_search(&c).unwrap_or(0);
    let mut start = vec![0usize; nodes.len() + 1];
    for d in deps {
        start[index(d >> 32) + 1] += 1;
    }
    for i in 0..nodes.len() {
        start[i + 1] += start[i];
    }
    let targets: Vec<usize> = deps.iter().map(|d| index(d & 0xffff_ffff)).collect();
    // Iterative DFS with colours: 0 new, 1 on the stack, 2 done.
    let mut colour = vec![0u8; nodes.len()];
    let mut parent = vec![usize::MAX; nodes.len()];
    for root in 0..nodes.len() {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, start[root])];
        colour[root] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if *next == start[v + 1] {
                colour[v] = 2;
                stack.pop();
                continue;
            }
            let w = targets[*next];
            *next += 1;
            match colour[w] {
                0 => {
                    colour[w] = 1;
                    parent[w] = v;
                    stack.push((w, start[w]));
                }
                1 => {
                    let mut cycle = vec![nodes[w]];
                    let mut at = v;
                    while at != w {
                        cycle.push(nodes[at]);
                        at = parent[at];
                    }
                    cycle[1..].reverse();
                    return Some(cycle);
                }
                _ => {}
            }
        }
    }
    None
}

/// The structural argument on `samples` seeded random routes (first choice at every hop).
pub fn structural(routing: &dyn Routing, samples: usize, seed: u64) -> Result<DeadlockReport> {
    let pairs = super::analysis::sample_pairs(routing.chips(), samples, seed)?;
    let total = Some(pairs.len() as u64);
    let mut silent = Silent;
    let mut meter = Meter::new(&mut silent, "deadlock check", Unit::Routes, total, 1);
    structural_metered(routing, &pairs, &mut meter)
}

fn structural_metered(
    routing: &dyn Routing,
    pairs: &[(u32, u32)],
    meter: &mut Meter,
) -> Result<DeadlockReport> {
    let results = chunked(pairs, meter, |chunk| Ok(structural_chunk(routing, chunk)))?;
    let mut vcs_used = 0;
    for r in results.into_iter().flatten() {
        vcs_used = vcs_used.max(r?);
    }
    Ok(DeadlockReport {
        routing: routing.name().to_string(),
        acyclic: true,
        method: "structural".into(),
        vcs_available: routing.vcs(),
        vcs_used: vcs_used + 1,
        pairs: pairs.len() as u64,
        channels: 0,
        dependencies: 0,
        cycle: None,
    })
}

/// The highest VC of each route of `pairs` (in order), or why it breaks the structural argument.
fn structural_chunk(routing: &dyn Routing, pairs: &[(u32, u32)]) -> Vec<Result<u8>> {
    pairs
        .par_iter()
        .map(|&(src, dst)| {
            let route = super::analysis::route(routing, src, dst)?;
            let mut max_vc = 0u8;
            for pair in route.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                max_vc = max_vc.max(b.vc);
                // The VC rises at every inter-node hop and holds across a node's mesh.
                let holds = if routing.is_external(a.link) { b.vc > a.vc } else { b.vc == a.vc };
                if !holds {
                    return Err(RailxError::verification(
                        format!("route {src} -> {dst}"),
                        format!(
                            "VC goes from {} to {} after link {}; the structural argument needs it to rise at every inter-node hop and hold inside a node",
                            a.vc, b.vc, a.link
                        ),
                    ));
                }
            }
            Ok(max_vc.max(route.first().map(|h| h.vc).unwrap_or(0)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::find_cycle;
    use proptest::prelude::*;

    /// Acyclic by Kahn's algorithm: repeatedly remove a vertex with no incoming edge.
    fn acyclic_by_kahn(vertices: u64, edges: &[u64]) -> bool {
        let mut indegree = vec![0u32; vertices as usize];
        for e in edges {
            indegree[(e & 0xffff_ffff) as usize] += 1;
        }
        let mut ready: Vec<u64> = (0..vertices)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut removed = 0;
        while let Some(v) = ready.pop() {
            removed += 1;
            for e in edges.iter().filter(|e| *e >> 32 == v) {
                let w = (e & 0xffff_ffff) as usize;
                indegree[w] -= 1;
                if indegree[w] == 0 {
                    ready.push(w as u64);
                }
            }
        }
        removed == vertices
    }

    proptest! {
        /// On random dependency graphs: a cycle is reported exactly when Kahn's algorithm finds
        /// one, and what is reported is a cycle of the graph (each edge present, closing up).
        #[test]
        fn find_cycle_agrees_with_kahn(
            vertices in 1u64..12,
            raw in prop::collection::vec((0u64..12, 0u64..12), 0..40),
        ) {
            let mut edges: Vec<u64> = raw
                .into_iter()
                .map(|(a, b)| (a % vertices) << 32 | (b % vertices))
                .collect();
            edges.sort_unstable();
            edges.dedup();
            let cycle = find_cycle(&edges);
            prop_assert_eq!(cycle.is_none(), acyclic_by_kahn(vertices, &edges));
            if let Some(c) = cycle {
                for (i, &from) in c.iter().enumerate() {
                    let to = c[(i + 1) % c.len()];
                    prop_assert!(edges.binary_search(&(from << 32 | to)).is_ok());
                }
            }
        }
    }
}
