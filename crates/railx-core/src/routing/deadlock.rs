//! Deadlock freedom, checked rather than assumed (docs/routing.md): the channel dependency graph
//! (channel = link x VC; channel a -> b when a packet holding a may request b next) of a routing
//! function over every source-destination pair must be acyclic. Larger networks get the
//! structural check instead: on sampled routes, the VC never decreases, it strictly increases at
//! every inter-node hop, and each node is crossed in XY order — the argument that makes the
//! hop-count schemes deadlock-free.

use super::{Hop, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::progress::{chunked, Meter, Observer, Silent, Unit};
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

/// Chips above which `check` switches from exhaustive to structural.
pub const EXHAUSTIVE_LIMIT_CHIPS: usize = 12_000;

/// Exhaustive when the routing covers at most `EXHAUSTIVE_LIMIT_CHIPS` chips, else structural on
/// `samples` seeded random pairs.
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
    if chips <= EXHAUSTIVE_LIMIT_CHIPS {
        let total = Some(chips as u64);
        let mut meter = Meter::new(observer, "deadlock check", Unit::Destinations, total, 1);
        return exhaustive_metered(routing, &mut meter);
    }
    if !routing.rising_vcs() {
        return Err(RailxError::invalid(
            "routing",
            routing.name(),
            format!(
                "its deadlock freedom does not rest on VCs rising at every hop (the structural argument), so it is checked exhaustively only, up to {EXHAUSTIVE_LIMIT_CHIPS} chips (this network has {chips})"
            ),
            "check a smaller instance of the same shape; on a RailX system, routing = minimal has the structural check",
        ));
    }
    let pairs = super::analysis::sample_pairs(routing.chips(), samples, seed)?;
    let total = Some(pairs.len() as u64);
    let mut meter = Meter::new(observer, "deadlock check", Unit::Routes, total, 1);
    structural_metered(routing, &pairs, &mut meter)
}

/// A packet in flight: its chip, its routing state and the channel it holds (none at the source).
type InFlight = (u32, RouteState, Option<(u32, u8)>);

/// Buffers of `walk_to`, reused from one destination to the next (a 10K-chip check walks 10K
/// destinations, each over up to millions of (chip, state) pairs).
#[derive(Default)]
struct Walk {
    expanded: FxHashSet<(u32, RouteState)>,
    stack: Vec<InFlight>,
    hops: Vec<Hop>,
}

/// Walks every route choice from every source to `dst`, calling `edge(held, hop)` for each
/// dependency between consecutive channels. A deterministic continuation depends only on the
/// chip and the routing state, so each (chip, state) is expanded once; dependencies into it are
/// still reported for every channel that leads there.
fn walk_to(
    routing: &dyn Routing,
    dst: u32,
    walk: &mut Walk,
    mut edge: impl FnMut(Option<(u32, u8)>, &Hop),
) {
    let Walk {
        expanded,
        stack,
        hops,
    } = walk;
    expanded.clear();
    stack.clear();
    stack.extend(
        routing
            .chips()
            .iter()
            .filter(|&&c| c != dst)
            .map(|&c| (c, RouteState::start(), None)),
    );
    while let Some((chip, state, held)) = stack.pop() {
        hops.clear();
        routing.next_hops(chip, dst, &state, hops);
        for hop in hops.iter() {
            edge(held, hop);
        }
        if !expanded.insert((chip, state)) {
            continue;
        }
        for hop in hops.iter() {
            stack.push((
                routing.link_target(hop.link),
                hop.state,
                Some((hop.link, hop.vc)),
            ));
        }
    }
}

/// Channel dependencies as adjacency lists (a channel has few successors, so a linear scan
/// deduplicates faster than hashing).
#[derive(Default)]
struct Dependencies {
    next: Vec<Vec<u32>>,
    max_vc: u8,
}

impl Dependencies {
    fn add(&mut self, from: usize, to: u32) {
        if from >= self.next.len() {
            self.next.resize(from + 1, Vec::new());
        }
        if !self.next[from].contains(&to) {
            self.next[from].push(to);
        }
    }

    fn merge(mut self, other: Dependencies) -> Dependencies {
        self.max_vc = self.max_vc.max(other.max_vc);
        for (from, list) in other.next.into_iter().enumerate() {
            for to in list {
                self.add(from, to);
            }
        }
        self
    }
}

/// The full channel dependency graph over every pair, and a cycle if it has one.
pub fn exhaustive(routing: &dyn Routing) -> Result<DeadlockReport> {
    let total = Some(routing.chips().len() as u64);
    let mut silent = Silent;
    let mut meter = Meter::new(&mut silent, "deadlock check", Unit::Destinations, total, 1);
    exhaustive_metered(routing, &mut meter)
}

fn exhaustive_metered(routing: &dyn Routing, meter: &mut Meter) -> Result<DeadlockReport> {
    let vcs = routing.vcs() as u64;
    let channel = |link: u32, vc: u8| link as u64 * vcs + vc as u64;
    // The adjacency lists are flattened and sorted below, so the order in which the chunks the
    // meter reports between are merged changes nothing.
    let found = chunked(routing.chips(), meter, |dsts| {
        Ok(dsts
            .par_iter()
            .fold(
                || (Dependencies::default(), Walk::default()),
                |(mut deps, mut walk), &dst| {
                    walk_to(routing, dst, &mut walk, |held, hop| {
                        deps.max_vc = deps.max_vc.max(hop.vc);
                        if let Some((link, vc)) = held {
                            deps.add(channel(link, vc) as usize, channel(hop.link, hop.vc) as u32);
                        }
                    });
                    (deps, walk)
                },
            )
            .map(|(deps, _)| deps)
            .reduce(Dependencies::default, Dependencies::merge))
    })?
    .into_iter()
    .fold(Dependencies::default(), Dependencies::merge);
    let vcs_used = found.max_vc + 1;
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
    let mut deps: Vec<u64> = found
        .next
        .iter()
        .enumerate()
        .flat_map(|(from, list)| {
            list.iter()
                .map(move |&to| ((from as u64) << 32) | to as u64)
        })
        .collect();
    deps.sort_unstable();
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
pub(crate) fn find_cycle(deps: &[u64]) -> Option<Vec<u64>> {
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
